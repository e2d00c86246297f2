"""Phone numbers (Google's ``phonenumbers``).

Phone numbers, in international notation, whatever the regions: a ``+`` and a country code
(ITU-T E.123: "+44 20 7946 0958", "(+44) 20 ...", "+44 (0)20 ..."), or the "00" / "011"
call prefix in its place ("0044 20 7946 0958", "011 44 20 ..."), are parsed and validated
by ``phonenumbers`` one candidate at a time; the number says its own country. A "+" number
of a possible length that ``phonenumbers`` does not know as assigned (fictional ranges,
ranges newer than its metadata) is reported only with a phone context word, as an amount
("+44 123 456 789 units") can have that shape. In national notation, for the regions asked
for (default ``("US",)``): North American numbers in their usual layouts ("(617) 555-0199",
"617-555-0199", "617.555.0199", "+1 617 555 0199") by a strict regex (area code and
exchange start with 2-9), and bare ten-digit runs only with a context word ("call",
"phone"); such a number glued to a word ("is415-555-0132") or after a country code and a
hyphen ("91-415-555-0132") only when ``phonenumbers`` knows it as in service, at the
redaction threshold; every other region through ``phonenumbers.PhoneNumberMatcher`` with
validity for that region. With a phone word just before it ("call 020 7946 0958"), a number in national
notation is also found when it is valid in one of :data:`CONTEXT_REGIONS`: the word is the
evidence the bare digits lack. Extensions ("x123", "ext. 12") belong to the number. Lab values
("91/42/7.36"), dates and version numbers never match these layouts.

Ages are in ``_ages``; postal addresses, states and ZIP codes in ``_address``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from veil._errors import PolicyError
from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._phone_regions import ANY_REGIONS, amount_shaped, cued_regions
from veil.text.recognition._recognizer import (
    Recognizer,
    recognizers,
    scan,
    text_features,
)

__all__ = ["PhoneRecognizer", "enclosed"]

_PHONE_HINT = lazy_compile(r"(?:\+\s?\d|\d)[\d\s().\-/]{5,}\d")
# a phone word before a number: nouns, and the verbs of calling in their forms ("not
# answering at", "ring me on", "WhatsApp me on", "leave a voicemail at", "messages to");
# "number" only as someone's ("my number is": an order's or an account's is no phone's)
_PHONE_CONTEXT = lazy_compile(
    r"\b(?:phon(?:e[sd]?|ing)|tel|telephone|mobile|cell|cellphone|call(?:s|ed|ing)?|fax"
    r"|contact|reach|text(?:s|ed|ing)?|sms|ph|answer(?:s|ed|ing)?|voicemail|whatsapp"
    r"|dial(?:s|l?ed|l?ing)?|ring(?:s|ing)?|rang|landline|hotline|helpline"
    r"|messages?[ \t]+(?:to|at|on)|message(?:d|ing)?[ \t]+(?:me|us|him|her|them)"
    r"|(?:my|his|her|your|their|our)[ \t]+(?:new[ \t]+)?number)\b",
    re.I,
)
# the same, searched in an ASCII text lower-cased once (a case-insensitive alternation scans
# at about three times the cost)
_PHONE_CONTEXT_LOWER = lazy_compile(_PHONE_CONTEXT.pattern)


def _phone_context(text: str, start: int = 0, end: int | None = None) -> re.Match[str] | None:
    """A phone word in ``text[start:end]`` (:data:`_PHONE_CONTEXT`)."""
    stop = len(text) if end is None else end
    lower = text_features(text).lower
    if lower:
        return _PHONE_CONTEXT_LOWER.search(lower, start, stop)
    return _PHONE_CONTEXT.search(text, start, stop)


# a phone word right after the number: "0191 496 0377 is my cell", "020 7946 0958 (home)",
# "617 555 0199, mobile"
_PHONE_CONTEXT_AFTER = lazy_compile(
    r"[ \t]*(?:[,;:–-][ \t]*)?(?:(?:is|was)[ \t]+)?(?:(?:my|his|her|their|our|your|the)[ \t]+)?"
    r"(?:new[ \t]+)?(?P<word>phone|telephone|mobile|cell|cellphone|fax|landline)\b"
    r"|[ \t]*\((?P<kind>home|work|office|mobile|cell|fax)\)",
    re.I,
)

_PHONE_KIND = lazy_compile(r"\((?:home|work|office)\)", re.I)  # the words not in _PHONE_CONTEXT


def _phone_word(text: str, start: int, end: int) -> str | None:
    """The phone word before a number (within 40 characters) or right after it, lower-cased."""
    before = _phone_context(text, max(0, start - 40), start)
    if before is not None:
        return before.group(0).lower()
    after = _PHONE_CONTEXT_AFTER.match(text, end)
    if after is not None:
        return (after.group("word") or after.group("kind")).lower()
    return None


def enclosed(text: str, start: int, end: int) -> tuple[int, int]:
    """The span ``start:end`` of a phone number with the brackets that belong to it: an area
    code's opening bracket left before it ("(617) 555-0123" read from "617)"), and a pair
    that encloses exactly the number ("(617-555-0123)"); never what follows a closing
    bracket, a sentence's full stop included.

    Examples
    --------
    >>> t = "call (617-555-0123). Or (617) 555-0124."
    >>> [t[slice(*enclosed(t, *span))] for span in [(6, 18), (25, 38)]]
    ['(617-555-0123)', '(617) 555-0124']
    """
    inner = text[start:end]
    if start == 0 or text[start - 1] != "(":
        return start, end
    opened, closed = inner.count("("), inner.count(")")
    first_open = inner.find("(")
    if closed > opened and (first_open < 0 or inner.find(")") < first_open):
        return start - 1, end  # the area code's bracket
    if opened == closed and text[end : end + 1] == ")":
        return start - 1, end + 1
    return start, end


# An extension after the number: "x123", "ext. 12", "extension 4567" (not "#", which is as
# often a list or ticket number)
_EXT = r"(?P<ext>\s*(?:ext\.?|extn\.?|extension|x)\s*\d{1,6})?"
_JOINED = lazy_compile(r"[-.]\d")  # a digit group goes on after a hyphen or a dot
_EXT_AFTER = lazy_compile(r"\s*(?:ext\.?|extn\.?|extension|x)\s*\d{1,6}(?![\w])", re.I)
# ITU-T E.123 international notation: "+" and the country code, also written "(+44)"
_INTL = lazy_compile(
    r"(?<![\w+])(?P<num>(?:\(\+\d{1,3}\)|\+\d{1,3})[\d\s().-]{6,18}\d)" + _EXT + r"(?![\w])",
    re.I,
)
# The same with an international call prefix in place of "+": "00" (ITU-T E.164 recommended
# prefix, used in most of the world) or "011" (North America): "0044 20 ...", "011 44 20 ..."
_IDD = lazy_compile(
    r"(?<![\w+.,/-])(?P<idd>00|011)[\s.-]?(?P<num>[1-9]\d{0,2}[\d\s().-]{6,18}\d)"
    + _EXT
    + r"(?![\w/-]|[.,]\d)",
    re.I,
)
# A hospital pager or beeper number: an internal number of 4 to 10 digits, identifying its
# carrier as a phone number does, only after the word that says what it is ("pager 45123",
# "beeper #4-5123", "pgr: 45123"). "page" alone is not enough ("see page 12").
_PAGER_WORDS = r"\b(?:pager|beeper|bleep|pgr)\b"
_PAGER = lazy_compile(
    _PAGER_WORDS + r"\.?\s*(?:#|no\.|number|num\.?)?\s*[:#]?\s*"
    r"(?P<num>(?<![\w.,/-])\d(?:-?\d){3,9})(?![\w/-]|[.,]\d)",
    re.I,
)
_ANY_DIGIT = lazy_compile(r"\d")
_PAGER_WORD = lazy_compile(_PAGER_WORDS, re.I)
_BARE10 = lazy_compile(r"(?<![\w.,/-])1?[2-9]\d{9}(?![\w/-]|[.,]\d)")
# North American numbers written in one of the usual layouts (with "+1" or "001", or the
# trunk "1" before the area code: "1 (617) 555-0199", "1 617 555 0199"); used when the number is well
# formed but not (yet) assigned, which ``phonenumbers`` refuses (test data, new area codes).
# A parenthesis may open before the whole number ("(617-253-1000)"), and a dash that joins
# no word to it ("---617 555 0199"; not "1-156-697-0170").
_NANP = lazy_compile(
    r"(?<![\w+).])(?<![\w.]-)(?:(?:\+|00[ .-]?)1[ .-]?|(?<!:)1[ .-]?(?=\(|[2-9]\d{2}[-. ]))?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[-. ])[2-9]\d{2}[-. ]\d{4}"
    r"(?:\s*(?:ext\.?|extn\.?|extension|x)\s*\d{1,6})?(?![\w-]|\.\d)",
    re.I,
)
# a phone word glued to the number by a hyphen: "751-954-9268-Fax", "555-0199-home"
_GLUED_WORD = r"-(?:fax|tel|phone|cell|mobile|home|work|office)\b"
_NANP_GLUED = lazy_compile(
    _NANP.pattern.removesuffix(r"(?![\w-]|\.\d)") + rf"(?={_GLUED_WORD})", re.I
)
# A North American number in a usual layout whose start is attached to what precedes it:
# glued to a word ("is415-555-0132", a space left out) or after a country code written with
# a hyphen and no "+" ("91-415-555-0132"); what precedes is checked in
# :meth:`PhoneRecognizer._attached`
_NANP_CORE = lazy_compile(r"(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[-.])[2-9]\d{2}[-.]\d{4}(?![\w-]|\.\d)")
_ATTACHED_GATE = lazy_compile(r"(?:[A-Za-z]|\d-)(?:\([2-9]|[2-9]\d{2}[-.][2-9])")
_SPACED_334 = lazy_compile(r"\d{3} \d{3} \d{4}")
_CC_BEFORE = lazy_compile(r"(?<![\w+.,/-])(\d{1,3})-$")
_LETTERS_BEFORE = lazy_compile(r"(?<![\w.@/-])[A-Za-z]{1,20}$")
# what every glued match holds: a digit, a hyphen and a letter; a digit group then "x" or
# "ext" (cheap scans that let most texts skip the patterns)
_GLUED_GATE = lazy_compile(r"\d-[A-Za-z]")
_GLUED_EXT_GATE = lazy_compile(r"\d{4}[ \t]*(?:[Xx]|[Ee][Xx][Tt])")
# a seven-digit North American local number ("555-1234"), a phone with an extension glued
# to it ("555-1234x204") or with a phone word before it ("call 555-1234")
_US_LOCAL = lazy_compile(
    r"(?<![\w+.,/()-])[2-9]\d{2}-\d{4}(?P<ext>\s*(?:ext\.?|extn\.?|extension|x)\s*\d{1,6})?"
    r"(?![\w/]|-\d|[.,]\d)",
    re.I,
)
# an extension alone, after a phone word: "call me on x204", "Tel: ext. 4567"
_EXT_ALONE = lazy_compile(
    r"(?<![\w.-])(?:ext\.?|extn\.?|extension|x)\s*\d{2,6}(?![\w/-]|[.,]\d)", re.I
)
_DIGIT_RUN = lazy_compile(r"\d+")
# A number in some country's national notation: an optional trunk or area part in
# parentheses, then digit groups separated by single spaces, dots or hyphens (the number of
# digits, 7 to 15, is checked on the match).
_NATIONAL = lazy_compile(
    r"(?<![\w+.,/-])(?:\(\d{1,5}\)[\s.-]?)?\d+(?:[\s.-]\d+){0,5}(?![\w/-]|[.,]\d)"
)
# A US Social Security number's groups, 3-2-4 (or 3-6), and a ZIP+4 code's, 5-4: never
# dialled from a national number with no phone word
_SSN_SHAPE = lazy_compile(r"\d{3}([-. ])\d{2}\1\d{4}|\d{3}-\d{6}|\d{5}-\d{4}")
# What comes just before the national part of an international number: "+44 ", "(+44) "
_INTL_PREFIX = lazy_compile(r"(?:\+\d{1,3}|\(\+?\d{1,3}\)|\b00\d{1,3}|\b011)[\s.-]?$")
# Dates and times written with the same separators: "2020-01-02", "02.01.2020", "10.30"
_DATE_SHAPE = lazy_compile(
    r"\d{4}[-.]\d{1,2}[-.]\d{1,2}|\d{1,2}[-.]\d{1,2}[-.](?:\d{2}|\d{4})|\d{1,2}\.\d{2}"
)
#: Regions whose national notation is tried for a number that has a phone context word just
#: before it ("call 020 7946 0958", "Tel: 030 901820") and is not in ``regions``: the
#: context is the evidence the bare digits lack.
CONTEXT_REGIONS = (
    "US", "GB", "IE", "CA", "AU", "NZ", "IN", "ZA", "DE", "FR", "ES", "IT", "NL", "BE", "CH",
    "AT", "SE", "NO", "DK", "FI", "PL", "PT", "BR", "MX", "AR", "CO", "CL", "JP", "KR",
    "CN", "HK", "SG", "PH", "IL", "AE", "TR",
)  # fmt: skip


@recognizers.register("phone")
class PhoneRecognizer(Recognizer):
    """Phone numbers: international notation in any country, national notation in ``regions``.

    Parameters
    ----------
    regions
        Regions (ISO 3166-1 alpha-2, as ``phonenumbers`` names them) whose *national*
        notation is searched, e.g. ``("US", "GB", "DE")``. Numbers written with ``+`` and
        a country code are found whatever the regions. The default, ``("US",)``, is the
        most conservative: each added region makes more digit groups candidates.
    score
        Score of a number that ``phonenumbers`` validates; a phone context word nearby
        adds 0.2.

    Examples
    --------
    >>> r = PhoneRecognizer()
    >>> text = "call +44 20 7946 0958 or (617) 555-0199"
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['+44 20 7946 0958', '(617) 555-0199']
    """

    entities = ("PHONE_NUMBER",)
    tier = 0
    #: score of an international number of a possible length that ``phonenumbers`` does not
    #: know as assigned (fictional ranges, ranges newer than its metadata); reported only
    #: with a phone context word, which raises it to ``score``
    possible_score = 0.55
    #: score of a valid number written with "00" or "011" in place of "+": digits only, so a
    #: weaker sign than "+" that the text holds a phone number
    idd_score = 0.6
    #: score of a national number in digit groups valid in some region (:data:`ANY_REGIONS`)
    #: that the text does not name, with no phone word: below the detect threshold (0.5), at
    #: the recall-first redaction threshold (0.45)
    any_region_score = 0.45

    def __init__(self, regions: str | Sequence[str] = ("US",), score: float = 0.75) -> None:
        from veil._deps import require

        self._pn: Any = require("phonenumbers", extra="text", purpose="phone-number detection")
        wanted = (regions,) if isinstance(regions, str) else tuple(regions)
        cleaned = tuple(dict.fromkeys(r.strip().upper() for r in wanted))
        unknown = [r for r in cleaned if r not in self._pn.SUPPORTED_REGIONS]
        if not cleaned or unknown:
            raise PolicyError(
                f"phone regions: unknown region code(s) {', '.join(unknown)}"
                if unknown
                else "phone regions: no region given",
                hint="give ISO 3166-1 alpha-2 codes that phonenumbers supports, e.g. US, GB, DE",
                key="phone_regions",
            )
        self.regions = cleaned
        self._other_regions = any(r != "US" for r in cleaned)
        self._supported = frozenset(self._pn.SUPPORTED_REGIONS)
        self.score = score

    # candidates ---------------------------------------------------------------------------
    def _parse_ok(self, number: str) -> str | None:
        """``"valid"``, ``"possible"`` (right length, not known as assigned) or ``None``."""
        pn = self._pn
        try:
            num = pn.parse(number, None)
        except pn.NumberParseException:
            return None
        if pn.is_valid_number(num):
            return "valid"
        if num.country_code != 1 and (
            pn.is_possible_number_with_reason(num) == pn.ValidationResult.IS_POSSIBLE
        ):
            # North American numbers have a structure of their own (area code and exchange
            # 2-9), checked by the layout regex; a length alone says too little there
            return "possible"
        return None

    def _longest_valid(self, prefix: str, text: str, start: int, ends: list[int]) -> int | None:
        for end in reversed(ends):
            if self._parse_ok(prefix + text[start:end]) == "valid":
                return end
        return None

    def _international(self, text: str, nanp: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Numbers in international notation ("+44 ...", "(+44) ...", "0044 ...", "011 44 ...").

        A candidate may run into a following number ("+44 20 7946 0958 536-22-1234"): it is
        tried whole, then cut back one digit group at a time; a North American number that
        follows is left to the layout regex when the part before it is valid on its own.
        """
        found: list[tuple[int, int, str]] = []
        for rx, how in ((_INTL, "phonenumbers"), (_IDD, "idd_prefix")):
            prefix = "" if how == "phonenumbers" else "+"
            for m in rx.finditer(text):
                start, num_start, num_end = m.start(), m.start("num"), m.end("num")
                if any(s <= start < e for s, e, _ in found):
                    continue
                ends = [  # after each digit group, once there are 8 digits
                    g.end()
                    for g in _DIGIT_RUN.finditer(text, num_start, num_end)
                    if sum(c.isdigit() for c in text[num_start : g.end()]) >= 8
                ]
                best = self._longest_valid(prefix, text, num_start, ends)
                if best is not None:
                    for s, e in nanp:  # a North American number starts inside: cut before it
                        if start < s < best < e:
                            shorter = [end for end in ends if end <= s]
                            best = self._longest_valid(prefix, text, num_start, shorter) or best
                    ext = best == num_end and m.group("ext")
                    found.append((start, m.end() if ext else best, how))
                elif (
                    how == "phonenumbers"
                    and ends
                    and ends[-1] == num_end
                    and self._parse_ok(text[num_start:num_end]) == "possible"
                ):
                    found.append((start, m.end() if m.group("ext") else num_end, "possible"))
        return found

    def _candidates(self, text: str) -> list[tuple[int, int, str]]:
        us = "US" in self.regions
        nanp = [(m.start(), m.end()) for m in _NANP.finditer(text)] if us else []
        spans = self._international(text, nanp)
        if us:
            if _GLUED_GATE.search(text):
                nanp.extend(
                    (m.start(), m.end())
                    for m in _NANP_GLUED.finditer(text)
                    if not any(s < m.end() and m.start() < e for s, e in nanp)
                )
            if _ATTACHED_GATE.search(text):
                spans.extend(self._attached(text, [*nanp, *((s, e) for s, e, _ in spans)]))
            spans.extend(self._local(text, [*nanp, *((s, e) for s, e, _ in spans)]))
        for s, e in nanp:  # unless it is the tail of an international number found above
            if not any(a <= s and e <= b for a, b, _ in spans):
                spans.append((s, e, "nanp_layout"))
        if us:
            for m in _BARE10.finditer(text):
                if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                    spans.append((m.start(), m.end(), "bare_digits"))
        pn = self._pn
        for region in self.regions:
            if region == "US":
                continue
            for m in pn.PhoneNumberMatcher(text, region, leniency=pn.Leniency.VALID):
                if not any(s < m.end and m.start < e for s, e, _ in spans):
                    spans.append((m.start, m.end, f"phonenumbers_{region}"))
        if _phone_context(text) or _PHONE_KIND.search(text):
            spans.extend(self._with_context(text, spans))
        extra = self._any_region(text, spans)
        if extra:  # a number the text's country cue validates is no bare US digit run
            spans = [
                sp
                for sp in spans
                if sp[2] != "bare_digits" or not any(s < sp[1] and sp[0] < e for s, e, _ in extra)
            ]
            spans.extend(extra)
        return spans

    def _attached(self, text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """North American numbers attached to what precedes them (:data:`_NANP_CORE`): glued
        to a word of letters ("is415-555-0132": ``nanp_glued``, the span without the word) or
        after a country code and a hyphen ("91-415-555-0132": ``nanp_cc``, the code
        included). The layout alone is not enough here: the digits must be a number
        ``phonenumbers`` knows as assigned (in North America, or in the code's country), and
        the code one it knows."""
        pn = self._pn
        found: list[tuple[int, int, str]] = []
        for m in _NANP_CORE.finditer(text):
            start, end = m.span()
            if start == 0 or any(s < end and start < e for s, e in taken):
                continue
            window = text[max(0, start - 21) : start]
            how = None
            if text[start - 1].isalpha() and _LETTERS_BEFORE.search(window):
                how, begin = "nanp_glued", start
            else:
                cc = _CC_BEFORE.search(window)
                if cc is not None and cc.group(1) != "1":
                    code = int(cc.group(1))
                    if pn.region_code_for_country_code(code) != pn.UNKNOWN_REGION:
                        how, begin = "nanp_cc", start - len(cc.group(1)) - 1
            if how is None:
                continue
            ok = self._valid_in(m.group(0), "US")
            if not ok and how == "nanp_cc":
                ok = self._parse_ok("+" + text[begin:end].replace("-", " ", 1)) == "valid"
            if ok:
                found.append((begin, end, how))
        return found

    def _valid_in(self, number: str, region: str) -> bool:
        pn = self._pn
        try:
            return bool(pn.is_valid_number(pn.parse(number, region)))
        except pn.NumberParseException:
            return False

    def _local(self, text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Seven-digit local numbers with an extension or a phone word before them, and
        extensions alone after a phone word (:data:`_US_LOCAL`, :data:`_EXT_ALONE`)."""
        found: list[tuple[int, int, str]] = []
        scans: tuple[tuple[re.Pattern[str], str], ...]
        if _phone_context(text) is not None:
            scans = ((_US_LOCAL, "us_local"), (_EXT_ALONE, "extension"))
        elif _GLUED_EXT_GATE.search(text):  # without a phone word only a glued extension counts
            scans = ((_US_LOCAL, "us_local"),)
        else:
            return found
        for rx, how in scans:
            for m in rx.finditer(text):
                start, end = m.span()
                if any(s < end and start < e for s, e in taken) or any(
                    s < end and start < e for s, e, _ in found
                ):
                    continue
                if how == "extension" and text[max(0, start - 8) : start].rstrip()[-1:].isdigit():
                    continue  # the extension of a number before it, found with the number
                glued_ext = how == "us_local" and m.group("ext")
                if glued_ext or _phone_context(text, max(0, start - 40), start):
                    found.append((start, end, how))
        return found

    def _any_region(
        self, text: str, spans: list[tuple[int, int, str]]
    ) -> list[tuple[int, int, str]]:
        """National numbers valid in a region the text names (``cue_XX``), or, when written
        in digit groups, in any of :data:`ANY_REGIONS` (``any_XX``): no phone word needed.
        Dates, amounts and the tails of international numbers are left alone."""
        pn = self._pn
        cued: list[str] | None = None  # read when a candidate needs it: most texts have none
        found: list[tuple[int, int, str]] = []
        for m in _NATIONAL.finditer(text):
            start, end = m.span()
            raw = m.group(0)
            digits = sum(c.isdigit() for c in raw)
            if (
                not 8 <= digits <= 15
                or any(s < end and start < e for s, e, h in spans if h != "bare_digits")
                or _DATE_SHAPE.fullmatch(text, start, end)
                or _INTL_PREFIX.search(text, max(0, start - 6), start)
                or amount_shaped(text, start, end)
                or _SSN_SHAPE.fullmatch(raw)
            ):
                continue
            # with no cue: digit groups opening with a trunk prefix ("0917 123 4567", "(030)
            # 901820"), the national notation of most of the world; NANP numbers have
            # their own layout regex, and a group of digits opening 1-9 is as often an id
            trunk = re.match(r"\(?0[1-9]", raw) is not None
            if cued is None:
                cued = cued_regions(text, self._supported)
            regions = [(r, "cue") for r in cued]
            if trunk and not raw.isdigit():
                regions += [(r, "any") for r in ANY_REGIONS if r not in cued]
            for region, how in regions:
                try:
                    num = pn.parse(raw, region)
                except pn.NumberParseException:
                    continue
                if pn.is_valid_number(num) and pn.region_code_for_number(num) == region:
                    found.append((start, end, f"{how}_{region}"))
                    break
        return found

    def _with_context(
        self, text: str, spans: list[tuple[int, int, str]]
    ) -> list[tuple[int, int, str]]:
        """National numbers of :data:`CONTEXT_REGIONS` that a phone word just precedes."""
        pn = self._pn
        regions = [r for r in CONTEXT_REGIONS if r not in self.regions]
        found: list[tuple[int, int, str]] = []
        for m in _NATIONAL.finditer(text):
            start, end = m.span()
            if any(s < end and start < e for s, e, _ in spans):
                continue
            digits = sum(c.isdigit() for c in text[start:end])
            if (
                not 7 <= digits <= 15
                or _DATE_SHAPE.fullmatch(text, start, end)
                or _INTL_PREFIX.search(text, max(0, start - 6), start)
            ):
                continue
            if _phone_context(text, max(0, start - 40), start):
                ends = [  # after each digit group, once there are 7 digits; longest first;
                    # never inside a group joined by "-" or "." ("1-156-697|-0170")
                    g.end()
                    for g in _DIGIT_RUN.finditer(text, start, end)
                    if sum(c.isdigit() for c in text[start : g.end()]) >= 7
                    and _JOINED.match(text, g.end()) is None
                ]
            elif _PHONE_CONTEXT_AFTER.match(text, end):
                ends = [end]  # the word after it speaks for the whole number
            else:
                continue
            hit = None
            for e in reversed(ends):
                for region in regions:
                    try:
                        num = pn.parse(text[start:e], region)
                    except pn.NumberParseException:
                        continue
                    if pn.is_valid_number(num):
                        ext = _EXT_AFTER.match(text, e)  # "020 7946 0958 ext. 12"
                        hit = (start, ext.end() if ext else e, f"context_{region}")
                        break
                if hit:
                    break
            if hit:
                found.append(hit)
        return found

    def _pagers(self, text: str, taken: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """Internal pager numbers after "pager", "beeper", "bleep" or "pgr" (:data:`_PAGER`)."""
        out = []
        for m in _PAGER.finditer(text):
            s, e = m.span("num")
            if not any(a < e and s < b for a, b, _ in taken):
                out.append((s, e, "pager"))
        return out

    def analyze(self, text: str) -> list[Finding]:
        pagers = next(scan(_PAGER, text), None) is not None  # skipped without a pager word
        # the hint holds for every North American and international candidate; national
        # numbers of other regions may be shorter ("22158" on St Helena) or written with
        # other dashes ("020–7946–0958"), so with such regions any digit opens the scan
        hint = (
            _PHONE_HINT.search(text) is not None
            or (self._other_regions and _ANY_DIGIT.search(text) is not None)
            or (
                "US" in self.regions
                and _ANY_DIGIT.search(text) is not None
                and _phone_context(text) is not None
                and _EXT_ALONE.search(text) is not None
            )
        )
        if not pagers and not hint:
            return []
        candidates = self._candidates(text) if hint else []
        if pagers:
            candidates += self._pagers(text, candidates)
        out: list[Finding] = []
        for start, end, how in sorted(candidates):
            before = text[max(0, start - 1) : start]
            if before and (before.isalnum() or before in "/.") and how != "nanp_glued":
                continue
            if before == "(" and ")" in text[start:end] and "(" not in text[start:end]:
                start -= 1  # "(0044) 20 7946 0958": the parenthesis opened before the prefix
            raw = text[start:end]
            start, end = enclosed(text, start, end)  # "(617-555-0123)": the pair is the number's
            if re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2,4}", raw) or re.fullmatch(r"\d+\.\d+", raw):
                continue
            word = _phone_word(text, start, end)
            if word is None and how == "pager":
                # the word of a pager number (never the number: explanations hold no data)
                pager = _PAGER_WORD.search(text, max(0, start - 40), start)
                word = pager.group(0).lower() if pager else None
            hit = word is not None
            if (raw.isdigit() or how == "possible") and not hit and not how.startswith("cue_"):
                # bare digit runs are account and order numbers more often than phones; a
                # number no plan knows as assigned may be an amount ("+44 123 456 789")
                continue
            base = {"possible": self.possible_score, "idd_prefix": self.idd_score}.get(
                how,
                self.any_region_score
                if how.startswith(("any_", "nanp_glued", "nanp_cc"))
                else self.score,
            )
            score = base
            tier = self.tier
            if (
                how == "nanp_layout"
                and not hit
                and _SPACED_334.fullmatch(raw)
                and not self._valid_in(raw, "US")
            ):
                # three, three and four digits spaced, no phone word, no number in service: a
                # layout only (the NHS prints its numbers so), and a checksum-validated id of
                # the same digits wins ("221 395 1837" passes the NHS check digit; area code
                # 221 is not in service). Dashes, dots and parentheses are phone layouts
                tier = 1
            words: tuple[str, ...] = ()
            if word is not None:
                score = min(1.0, base + 0.2)
                words = (word,)
            out.append(
                Finding(
                    start,
                    end,
                    "PHONE_NUMBER",
                    score,
                    self.name,
                    tier,
                    Explanation(
                        self.name,
                        how,
                        base,
                        score,
                        words,
                        "phonenumbers"
                        if how.startswith(
                            ("phonenumbers", "idd", "cue_", "any_", "nanp_glued", "nanp_cc")
                        )
                        else None,
                    ),
                )
            )
        return out
