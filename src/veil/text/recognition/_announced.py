"""Announced identifiers and masked values: found by what the text says they are.

A checksum or a shape rule proves a value, which is right for a detector's precision; for a
redactor it leaks whatever is mistyped, synthetic, masked, foreign or simply on no list. A
label in the text ("Patient ID", "passport no.", "EIN", "account #") says what the next
token is whatever its shape, so :class:`AnnouncedIdRecognizer` reports a value that an
identifier label introduces, in the usual layouts:

* the label before the value: "Patient ID: X", "ID# X", "under policy X", "employee number
  is X", "acct ending 4321", "n° X", "Nr. X";
* the label after it, in brackets: "X (passport)";
* the label glued to it: "MRN_987654321" (the whole token is the span).

The value must look like an identifier: it contains a digit, or it is an upper-case code of
letters and digits of at least five characters ("ABPCJ4567R", "DEUTDEFF"); an ordinary word
is never one ("Patient ID: unknown", "policy number pending", "case closed", "ticket
sold"). Four digits or fewer count only with a colon, a "#", a qualifier ("no.", "number")
or "ending" between them ("staff 1000 people" and "tax 2023" are not ids), and amounts,
percentages, decimals and dates are never values.

The entity type is the label's, under Presidio's name where Presidio has one
(``US_PASSPORT``, ``US_DRIVER_LICENSE``, ``US_BANK_NUMBER``, ``IBAN_CODE``, ``US_SSN``,
``US_ITIN``, ``MEDICAL_LICENSE``, ``IN_PAN``, ...), ``ID`` otherwise; an IBAN-shaped value
announced as an account or a plain id is an ``IBAN_CODE``.

Masked and partly masked values are found as the entity they mask, with or without a label:
"XXX-XX-2409", "***-**-1234" and "987-XX-XXXX" (``US_SSN``), "4532************7890" and
"XXXX-XXXX-XXXX-9876" (``CREDIT_CARD``), "DE89 XXXX XXXX XXXX 3000 00" (``IBAN_CODE``). A
value with no digit left carries nothing and is not reported.

Scores say that nothing was validated: :data:`ANNOUNCED_SCORE` (0.6) for an announced or a
masked value, :data:`FAILED_SCORE` (0.55) for one announced as a card, an IBAN, an SSN, a
routing number, an Aadhaar, NHS or DEA number or a NINO whose checksum or format rule
fails (``announced:...:checksum_failed``); both are above the default threshold
of 0.5 and below a validated finding (1.0, tier 0), which wins on the same span by the
overlap rule (:func:`veil.text.resolve_overlaps`). The explanation's ``pattern_name`` starts
with ``announced:`` or ``masked:`` and its ``validation`` is ``None``: announced, not
validated; ``context_words`` holds the label. No value is ever logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from veil._lazy import lazy_compile
from veil.text.recognition._checksums import (
    aba_ok,
    card_issuer,
    dea_ok,
    iban_ok,
    luhn_ok,
    nhs_ok,
    ssn_kind,
)
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._national_ids import aadhaar_ok, nino_ok
from veil.text.recognition._recognizer import Recognizer, recognizers, text_features

__all__ = ["ANNOUNCED_SCORE", "FAILED_SCORE", "LABELS", "AnnouncedIdRecognizer", "Label"]

#: score of a value an identifier label announces, or a masked value: not validated
ANNOUNCED_SCORE = 0.6
#: score of a value announced as a card, IBAN, SSN, ... that fails its check digit or rule
FAILED_SCORE = 0.55


def _card_ok(value: str) -> bool:  # the card recognizer's rule: Luhn and an issuer's prefix
    return luhn_ok(value) and card_issuer(value) is not None


def _ssn_ok(value: str) -> bool:
    return ssn_kind(value) == "ssn"


@dataclass(frozen=True, slots=True)
class Label:
    """Words that announce an identifier, and the entity type they announce.

    ``words`` match case-insensitively as whole words, ``acronyms`` in capitals only ("PAN",
    "DL": the lower-case words are ordinary English). ``needs_qualifier`` asks for "number",
    "no.", "ID", "#" or "code" after the word ("order number X", not "order 12 pizzas").
    ``checksum`` is the rule a value announced so should pass; one that fails it scores
    :data:`FAILED_SCORE`.
    """

    entity: str
    words: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    needs_qualifier: bool = False
    checksum: Callable[[str], bool] | None = None


#: The labels, by entity type; the longest phrase that matches wins ("id card" over "card").
LABELS: tuple[Label, ...] = (
    Label(
        "US_PASSPORT",
        (
            "passport",
            "passeport",
            "pasaporte",
            "passaporto",
            "reisepass",
            "passnummer",
            "travel document",
        ),
    ),
    Label(
        "MEDICAL_LICENSE",
        ("medical licence", "medical license", "dea registration"),
        ("DEA",),
        checksum=dea_ok,
    ),
    Label(
        "US_DRIVER_LICENSE",
        (
            "driver's license",
            "driver's licence",
            "drivers license",
            "drivers licence",
            "driver license",
            "driver licence",
            "driving licence",
            "driving license",
            "licence",
            "license",
            "führerschein",
        ),
        ("DL", "DLN"),
    ),
    Label("US_SSN", ("social security", "ssn", "ss#"), ("SS",), checksum=_ssn_ok),
    Label("MEDICAL_LICENSE", ("npi",), ("NPI",)),
    Label("US_ITIN", ("itin", "individual taxpayer")),
    Label("IBAN_CODE", ("iban",), checksum=iban_ok),
    Label(
        "ABA_ROUTING_NUMBER",
        ("routing", "routing transit", "aba routing", "aba"),
        ("RTN",),
        checksum=aba_ok,
    ),
    Label("CREDIT_CARD", ("credit card", "debit card", "card"), ("CC", "CCN"), checksum=_card_ok),
    Label(
        "US_BANK_NUMBER",
        ("bank account", "account", "acct", "acc", "a/c", "kontonummer", "konto"),
    ),
    Label("MEDICAL_RECORD_NUMBER", ("medical record", "mrn", "mr#")),
    Label("IN_PAN", ("permanent account",), ("PAN",)),
    Label("IN_AADHAAR", ("aadhaar", "aadhar", "uidai"), checksum=aadhaar_ok),
    Label("UK_NINO", ("national insurance", "nino"), ("NIN", "NI"), checksum=nino_ok),
    Label("UK_NHS", ("nhs",), checksum=nhs_ok),
    Label(
        "ID",
        (
            "id card",
            "identity card",
            "library card",
            "membership card",
            "loyalty card",
            "insurance card",
            "health card",
            "gift card",
            "patient",
            "member",
            "membership",
            "policy",
            "claim",
            "case",
            "ticket",
            "employee",
            "staff",
            "student",
            "voter",
            "badge",
            "customer",
            "client",
            "subscriber",
            "insurance",
            "beneficiary",
            "personnel",
            "payroll",
            "tax",
            "taxpayer",
            "tax file",
            "employer identification",
            "ein",
            "fein",
            "swift",
            "bic",
            "ifsc",
            "sort code",
            "license plate",
            "licence plate",
            "number plate",
            "vin",
            "national id",
            "identity",
            "cédula",
            "dni",
            "personalausweis",
            "ausweis",
            "ausweisnummer",
            "steuernummer",
            "versichertennummer",
        ),
        ("TIN", "TFN", "EIN", "FEIN", "VAT", "SWIFT", "BIC", "IFSC", "VIN", "UIN"),
    ),
    Label(
        "ID",
        (
            "order",
            "invoice",
            "booking",
            "confirmation",
            "reservation",
            "reference",
            "record",
            "file",
            "registration",
            "application",
            "certificate",
            "permit",
            "visa",
            "serial",
            "contract",
            "enrollment",
            "enrolment",
            "tracking",
            "user",
            "account holder",
            "group",
            "plan",
        ),
        needs_qualifier=True,
    ),
)

_ACRONYM_SET = frozenset(a for lab in LABELS for a in lab.acronyms)
_BY_WORD: dict[str, Label] = {}
for _label in LABELS:
    for _w in (*_label.words, *_label.acronyms):
        _BY_WORD.setdefault(_w.lower(), _label)


def _alternation(words: list[str]) -> str:
    parts = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+").replace("'", "['’]?") for w in parts)


_WORDS = _alternation([w for lab in LABELS if not lab.needs_qualifier for w in lab.words])
_ACRONYMS = _alternation([a for lab in LABELS if not lab.needs_qualifier for a in lab.acronyms])
_QUAL_WORDS = _alternation([w for lab in LABELS if lab.needs_qualifier for w in lab.words])
# what follows a label word: "ID", "no.", "number", "#", "code", in a few languages
_QUAL = (
    r"(?:i\.?d\.?(?![\w])|ident(?:ity|ification|ifier)(?![\w])|nos?\.|no(?![\w])|nr\.?"
    r"|n[°º]\.?|num(?:ber)?\.?(?![\w])|#|code(?![\w])|n[úu]mero(?![\w])|num[ée]ro(?![\w])"
    r"|nummer(?![\w]))"
)
# a qualifier alone is a label only when it cannot be a phone's or an address's number
_QUAL_ONLY = r"(?:(?i:i\.?d\.?(?![\w])|ident(?:ity|ification)\s+(?:number|no\.?))|(?i:n[°º]\.?)|Nr\.|(?i:n[úu]mero|num[ée]ro)(?![\w]))"
_QUALS = rf"(?:[ \t]*[-_/]?[ \t]*(?i:{_QUAL}))"
_LABEL = (
    rf"(?<![\w])(?:(?P<noun>(?i:{_WORDS})|{_ACRONYMS})(?:(?<=#)|(?![\w'’]))(?P<qual>{_QUALS}*)"
    rf"|(?P<qnoun>(?i:{_QUAL_WORDS}))(?P<qual2>{_QUALS}+)"
    rf"|(?P<only>{_QUAL_ONLY}))"
)
# between a label and its value: a colon or "#", a dash, "is", "ending (in)", or a space
_SEP = (
    r"(?P<sep>[ \t]*[:#=][ \t]*(?:\n[ \t]*)?|[ \t]+[-–—][ \t]+|[ \t]*\n[ \t]*"
    r"|[ \t]+(?i:(?:is|was|reads|of|number)[ \t]+)?(?i:(?P<ending>(?:ending|ends)(?:[ \t]+(?:in|with))?"
    r"|last[ \t]+(?:4|four)(?:[ \t]+digits)?)[ \t]*:?[ \t]+)?)"
)
_MASK = "*#•●Xx"
# one identifier token: letters, digits and mask characters, with inner "-", "/", "."; then
# groups printed with spaces ("AL47 2121 1009 ...") while each holds a digit or a mask
_CHAR = r"(?:[^\W_]|[*•●])"  # a letter of any script, a digit or a mask
_VALUE = (
    rf"(?P<value>{_CHAR}{{1,40}}(?:[-/.]{_CHAR}{{1,40}}){{0,8}}"
    # printed groups: each holds a digit or a mask, or is a short code in capitals that
    # is no label ("MWP 887", "SR79 ELT"; not "12345 DOB:")
    # (bounded: an IBAN has at most nine groups; unbounded, a long run of groups costs
    # quadratic time, as every group opens a candidate)
    r"(?:[ ](?:(?=[A-Za-z0-9*•●]{0,8}[0-9*•●])[A-Z0-9*•●]{2,8}|[A-Z]{2,4})(?![\w*•●:])){0,8})"
)
_VALUE_END = r"(?![\w*•●@%/]|[.,]\d|-\w)"

_BEFORE = lazy_compile(_LABEL + _SEP + _VALUE + _VALUE_END)
_AFTER = lazy_compile(
    r"(?<![\w*•●@./-])"
    + _VALUE
    + r"[ \t]*\([ \t]*"
    + _LABEL
    + r"(?:[ \t]+(?i:number|no\.?))?[ \t]*\)"
)
_GLUED = lazy_compile(
    r"(?<![\w-])(?P<noun>(?i:mrn|ssn|dl|ein|tin|pan|emp|pt|id)|MR)[_-](?P<value>[A-Z0-9]*\d[A-Z0-9]*)"
    r"(?![\w-])"
)

_LETTER_GROUP = lazy_compile(r" [A-Z]{2,4}$")


def _passing_groups(value: str, checksum: Callable[[str], bool]) -> int | None:
    """Where ``value`` ends without the short codes in capitals printed after it ("IP",
    "EXP"): the shortest cut of its trailing letter-only groups that passes ``checksum``
    (a card's check reads the digits alone, so it passes with them too); None when no cut
    passes. A trailing group that holds a digit is never cut: it may be part of the value."""
    cut, best = len(value), None
    while (m := _LETTER_GROUP.search(value, 0, cut)) is not None:
        cut = m.start()
        if checksum(value[:cut]):
            best = cut
        elif best is not None:
            break
    return best


_M = r"[*#•●Xx]"
_MASKED = (
    (
        "ssn",
        "US_SSN",
        re.compile(
            rf"(?<![\w*#•●-])(?:\d{{3}}|{_M}{{3}})-(?:\d{{2}}|{_M}{{2}})-(?:\d{{4}}|{_M}{{4}})"
            rf"(?![\w*#•●-])"
        ),
    ),
    (
        "card_grouped",
        "CREDIT_CARD",
        re.compile(
            r"(?<![\w*#•●-])[\d*#•●Xx]{4}([ -])[\d*#•●Xx]{4,6}\1[\d*#•●Xx]{4,5}"
            r"(?:\1[\d*#•●Xx]{1,4})?(?![\w*#•●-])"
        ),
    ),
    (
        "card_compact",
        "CREDIT_CARD",
        re.compile(r"(?<![\w*#•●])\d{0,6}[*#•●Xx]{4,15}\d{2,4}(?![\w*#•●])"),
    ),
    (
        "iban",
        "IBAN_CODE",
        re.compile(
            r"(?<![\w])[A-Z]{2}\d{2}(?: (?:[A-Z0-9]{4}|[*#•●X]{4})){2,7}(?: [A-Z0-9*#•●]{1,4})?"
            r"(?![\w*#•●])"
        ),
    ),
)

_IBAN_SHAPE = lazy_compile(
    r"[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)"
)
_DECIMAL = lazy_compile(r"\d+[.,]\d{1,2}")
_DATE = lazy_compile(r"(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})")
_STOP = frozenset(
    {
        "unknown", "pending", "none", "null", "closed", "open", "below", "above", "attached",
        "enclosed", "required", "missing", "invalid", "number", "please", "thanks", "thank",
        "urgent", "update", "confirmed", "expired", "active", "holder", "details",
    }
)  # fmt: skip


def _is_date(value: str) -> bool:
    m = _DATE.fullmatch(value)
    if m is None:
        return False
    a, b, c = (int(g) for g in m.groups())
    if len(m.group(1)) == 4:
        return 1 <= b <= 12 and 1 <= c <= 31
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


def looks_like_identifier(value: str, *, strong: bool, shouted: bool = False) -> bool:
    """Whether a value after a label is an identifier rather than a word, an amount or a
    date. ``strong``: a colon, "#", a qualifier or "ending" stands between them.

    Examples
    --------
    >>> looks_like_identifier("XG9382049", strong=False)
    True
    >>> looks_like_identifier("unknown", strong=True), looks_like_identifier("2023", strong=False)
    (False, False)
    """
    first = value.split(" ", 1)[0]
    if not any(c.isdigit() or c in _MASK for c in first) and not first.isupper():
        return False  # "aged 47", "born 1970": a word first, then a number
    core = [c for c in value if c.isalnum() or c in _MASK]
    if len(core) < 4:
        return False
    digits = sum(c.isdigit() for c in value)
    if digits == 0:
        if all(c in _MASK or c in "-/." for c in value):
            return False  # "XXXXXX": masked whole, nothing left to hide
        letters = value.replace("-", "")
        if not (letters.isalnum() and letters.isupper() and len(letters) >= 5):
            return False
        # a label in capitals that is a word ("POLICY NUMBER PENDING"): text in capitals
        return value.lower() not in _STOP and not shouted
    if value.isdigit() and len(value) <= 4 and not strong:
        return False
    return not (_DECIMAL.fullmatch(value) or _is_date(value))


@recognizers.register("announced_id")
class AnnouncedIdRecognizer(Recognizer):
    """Values that an identifier label announces, and masked values (module docstring).

    Examples
    --------
    >>> r = AnnouncedIdRecognizer()
    >>> [(f.entity_type, f.score) for f in r.analyze("Patient ID: AHC-0933289")]
    [('ID', 0.6)]
    >>> [f.entity_type for f in r.analyze("SSN XXX-XX-2409 on file")]
    ['US_SSN']
    >>> r.analyze("Patient ID: unknown")
    []
    """

    name = "announced_id"
    entities = tuple(sorted({lab.entity for lab in LABELS}))
    tier = 1

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        feats = text_features(text)  # in ASCII, str.isdigit() is \d: no loop over the text
        digit = feats.digits > 0 or (not feats.ascii and any(c.isdigit() for c in text))
        if not digit and not re.search(r"[A-Z]{5}", text):
            return out
        pos = 0
        while (m := _BEFORE.search(text, pos)) is not None:
            # a label whose "value" is a word may be followed by the real label ("Insurance
            # policy number X"): the search goes on from that word, not past it
            pos = m.end() if self._announced(text, m, "before", out) else m.start("value")
        for m in _AFTER.finditer(text):
            self._announced(text, m, "after", out)
        for m in _GLUED.finditer(text):
            noun = m.group("noun").lower()
            label = _BY_WORD.get(noun)
            entity = label.entity if label is not None else "ID"
            self._emit(out, m.start(), m.end(), entity, ANNOUNCED_SCORE, "announced:glued", noun)
        if any(c in text for c in _MASK):
            for name, entity, rx in _MASKED:
                for m in rx.finditer(text):
                    self._masked(text, m, name, entity, out)
        # one finding per span and type: the label's reading, found first, explains it
        return list({(f.start, f.end, f.entity_type): f for f in reversed(out)}.values())[::-1]

    def _announced(self, text: str, m: re.Match[str], layout: str, out: list[Finding]) -> bool:
        start, end = m.span("value")
        value = text[start:end]
        noun = m.group("noun") or m.group("qnoun") or m.group("only") or ""
        qual = m.group("qual") or m.group("qual2") or ""
        sep = m.groupdict().get("sep") or ""
        strong = bool(
            qual.strip() or m.group("only") or m.groupdict().get("ending") or set(sep) & set(":#=")
        )
        if layout == "after":
            strong = True
        key = re.sub(r"\s+", " ", noun.lower()).replace("’", "'")
        # a label in capitals that is a word, not an acronym ("POLICY NUMBER PENDING"):
        # text in capitals, where a word is no code
        shouted = noun.isupper() and noun not in _ACRONYM_SET
        if not looks_like_identifier(value, strong=strong, shouted=shouted):
            return False
        label = _BY_WORD.get(key) or _BY_WORD.get(key.replace("'", ""))
        entity = label.entity if label is not None and not m.group("only") else "ID"
        masked = any(c in value for c in "*#•●") or re.search(r"[Xx]{3}", value) is not None
        if entity in ("ID", "US_BANK_NUMBER", "CREDIT_CARD") and _IBAN_SHAPE.fullmatch(value):
            entity, label = "IBAN_CODE", _BY_WORD["iban"]
        score = ANNOUNCED_SCORE
        pattern = f"announced:{layout}"
        partial = bool(m.groupdict().get("ending"))  # "card ending 9876": no whole number
        if label is not None and label.checksum is not None and not masked and not partial:
            # printed groups may have taken a short code after the value ("IBAN GB82 WEST
            # ... 32 IP 10.1.2.3", "card 4111 ... 1111 EXP 09/29"): the groups that pass
            # without it are the value
            cut = _passing_groups(value, label.checksum)
            if cut is not None:
                end = start + cut
            elif not label.checksum(value):
                score, pattern = FAILED_SCORE, f"announced:{layout}:checksum_failed"
        elif masked:
            pattern = f"announced:{layout}:masked"
        self._emit(out, start, end, entity, score, pattern, key or "id")
        return True

    def _masked(
        self, text: str, m: re.Match[str], name: str, entity: str, out: list[Finding]
    ) -> None:
        value = m.group(0)
        digits = sum(c.isdigit() for c in value)
        masks = sum(c in _MASK for c in (value[4:] if name == "iban" else value))
        if digits < 2 or masks < 2:
            return
        if name.startswith("card"):
            if not 12 <= len(re.sub(r"[ -]", "", value)) <= 20:
                return
            # letters X are masks only in runs ("XXXX"), never one X in a word
            if re.search(r"(?<![Xx])[Xx](?![Xx])", value):
                return
        self._emit(out, m.start(), m.end(), entity, ANNOUNCED_SCORE, f"masked:{name}", "")

    def _emit(
        self,
        out: list[Finding],
        start: int,
        end: int,
        entity: str,
        score: float,
        pattern: str,
        label: str,
    ) -> None:
        out.append(
            Finding(
                start,
                end,
                entity,
                score,
                self.name,
                self.tier,
                Explanation(self.name, pattern, score, score, (label,) if label else (), None),
            )
        )
