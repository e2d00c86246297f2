"""Organisations found without NER: a legal form or an institution word after the name
("Smith PLC", "Baker Clinic"), an opening word before it ("Stichting Ketting"), and
partnership names after a preposition ("at Martin, Young and Jarvis")."""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._places import gazetteer
from veil.text.recognition._recognizer import Recognizer, recognizers, scan
from veil.text.vocab._lexicon import (
    NOT_NAMES,
    NOTE_WORDS,
    OPENING_WORDS,
    UPPER_LATIN,
    clinical_register,
    common_words,
)
from veil.text.vocab._org_words import _LEGAL_FORMS, _ORG_OPENERS, _ORG_WORDS, _WEAK_FORMS

__all__ = ["OrganizationRecognizer"]


_SP = r"[ \t]+"  # the words of a name are on one line: "Swatch\nSwiss\nSX" is a list
# family-firm endings that close an organisation's name ("and Sons", "& Søn")
_FAMILY_FIRM = (
    r"(?:and|&)[ \t]+Sons|&[ \t]+S[øö]n(?:ner)?|&[ \t]+Söhne|e[ \t]+[Ff]igli|e[ \t]+[Ff]ilhos"
    r"|et[ \t]+[Ff]ils|i[ \t]+(?:[Ss]yn(?:owie)?|[Ww]spólnicy)"
    r"|[y&][ \t]+[Aa]sociados|(?:and|&)[ \t]+Co\."
)


def _alternation(forms: tuple[str, ...]) -> str:
    """Longest first, dots literal, spaces any run of spaces."""
    escaped = (re.escape(f).replace(r"\ ", _SP) for f in sorted(forms, key=len, reverse=True))
    return "|".join(escaped)


_W = rf"[{UPPER_LATIN}][\w'’]*(?:-[\w'’]+)*"  # a capitalised word: "Trüb", "Campos-Gonzalez"
_CONJ = r"(?:and|&|e|y|et|und|og|och|a|i|ja|en)"
# a name of one to five capitalised words, joined by spaces, commas and conjunctions of
# the languages of the legal forms ("Tron, Pietrangeli e Castioni", "Jespersen & Søn")
# ("Margraf Trüb GmbH & Co. OHG": lazy, so the name ends at the first legal form)
# lower-case name particles inside a firm's name ("Janssen de Jong Groep", "Infraestructuras
# del Norte S.Com."); not "do", "da", "la", "le", "el", "al": English words, or as often
# the start of the sentence's next phrase
_ORG_PARTICLE = r"(?:van|von|de|der|den|del|della|di|du|das|dos|ter|ten|zu|zum|zur)"
_ORG_MORE = (
    rf"(?:(?:,?{_SP}|{_SP}{_CONJ}{_SP}|[ \t]*&[ \t]*)(?:{_ORG_PARTICLE}{_SP}){{0,2}}{_W}){{0,4}}?"
)
# particles before the first capital: "van den Velde BV", "von Bergen GmbH"
_LEADING_PARTICLES = lazy_compile(
    rf"(?<![\w'’.&-])(?:van|von|de|ter|ten)(?:{_SP}(?:der|den|de|la))?{_SP}$"
)
# a saint's abbreviation before a name, which the name's words (no full stop) leave out
_SAINT_BEFORE = lazy_compile(r"(?<![\w'’.&-])(?:St|Ste|Sta|Sto|Snt)\.[ \t]+$")
_ORG_NAME = _W + _ORG_MORE
# the same, starting where no word goes on before it; the look-behind follows the first
# capital so that the regex engine skips to capitals instead of trying every position
_ORG_NAME_START = rf"[{UPPER_LATIN}](?<![\w'’.&-].)[\w'’]*(?:-[\w'’]+)*" + _ORG_MORE
_FORM = rf"(?:{_alternation(_LEGAL_FORMS)})(?:{_SP}&{_SP}Co\.)?"
_SUFFIXED = lazy_compile(
    rf"(?P<name>{_ORG_NAME_START})"
    rf"(?:,?{_SP}(?P<form>{_FORM})(?:{_SP}(?:{_alternation(_LEGAL_FORMS)}))?(?=$|[\s,;:!?)\"'’]|\.(?!\w))"
    # an institution word or a family-firm ending, and the firm's legal form after it
    rf"|{_SP}(?P<word>{_alternation(_ORG_WORDS)}|{_FAMILY_FIRM})"
    rf"(?:{_SP}(?:{_alternation(_LEGAL_FORMS)})(?=$|[\s,;:!?)\"'’]|\.(?!\w)))?(?![\w'’-]))"
)
# what every _SUFFIXED match holds, after a space, a tab or a comma: a legal form, an
# institution word, or the word a family-firm ending closes on; texts without one (most)
# skip the name regex, whose lazy expansions at every capital cost more than this scan
_SUFFIX_GATE = lazy_compile(
    rf"[ \t,](?:{_alternation(_LEGAL_FORMS)}|{_alternation(_ORG_WORDS)}"
    r"|Sons|S[øö]n|Söhne|[Ff]igli|[Ff]ilhos|[Ff]ils|[Ss]yn|[Ss]ynowie|[Ww]spólnicy|[Aa]sociados)"
)
_OPENED = lazy_compile(
    rf"(?<![\w'’.&-])(?:{_alternation(_ORG_OPENERS)}){_SP}{_ORG_NAME}(?![\w'’-])"
)
_SENTENCE_START = lazy_compile(r"(?:^|[.!?:;\n][ \t]*)(?=\w$)")
# "The", "Our" ... opening a sentence are not part of the name ("The Smith Group")
_LEAD = lazy_compile(r"(?:The|A|An|Our|My|Your|Their|His|Her|This|That|At|By|For|From|With)\s+")
_FIRST_WORD = lazy_compile(r"([\w-]+)[ \t]+")


@recognizers.register("organization")
class OrganizationRecognizer(Recognizer):
    """Organisations named with a legal form or an institution word after the name ("Smith
    PLC", "Müller GmbH & Co. KG", "Sampaio Ltda.", "Olesen A/S", "Krejčová a.s.", "Baker
    Clinic", "Rose and Sons"), or an opening word ("Stichting Ketting", "Fundacja ..."), and
    partnership names after a preposition ("at Martin, Young and Jarvis").

    A short capital form that is also a state code, a blood group or a clinical
    abbreviation ("NV", "AB", "SL", "AS") counts only outside clinical notes and after a
    name that is not a place, everyday, drug or charting words ("Reno NV", "Type AB",
    "Nitro SL" are not companies). Score 0.75, tier 1: NER's PERSON on "Sampaio" loses to
    "Sampaio Ltda.".

    Examples
    --------
    >>> r = OrganizationRecognizer()
    >>> text = "Invoices from Margraf Trüb GmbH & Co. OHG and Olesen A/S; lives in Reno NV."
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['Margraf Trüb GmbH & Co. OHG', 'Olesen A/S']
    """

    name = "organization"
    entities = ("ORGANIZATION",)
    reads_case = True
    score = 0.75
    _partnership = re.compile(
        r"\b(?:at|from|for|with|of|by|joined|to)\s+((?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?,\s+){1,2}"
        r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?,?\s+(?:and|&)\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b"
    )

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        for m in _SUFFIXED.finditer(text) if _SUFFIX_GATE.search(text) else ():
            start, end = m.start(), m.end()
            lead = _LEAD.match(text, start)
            if lead and lead.end() > m.end("name"):
                continue  # "The Co. was sold": no name before the form
            if lead:
                start = lead.end()
            elif (
                (opener := _FIRST_WORD.match(text, start))
                and opener.group(1).casefold() in OPENING_WORDS
                and _SENTENCE_START.search(text, max(0, start - 3), start + 1)
            ):
                if opener.end() > m.end("name"):
                    continue  # "Contact Ltd": no name after the verb
                start = opener.end()  # "Contact Avery Inc for details"
            else:
                particles = _LEADING_PARTICLES.search(text, max(0, start - 12), start)
                if particles:
                    start = particles.start()
                elif saint := _SAINT_BEFORE.search(text, max(0, start - 8), start):
                    start = saint.start()  # "St. Mary's Hospital": the saint's abbreviation
            form = m.group("form")
            if form in _WEAK_FORMS and self._not_a_firm(text, start, m.end("name")):
                continue  # "Reno NV": a place and its state; "Blood Type AB"; "Plavix, ASA"
            pattern = "legal_form" if form else "org_word"
            out.append(self._finding(start, end, pattern))
        for m in scan(_OPENED, text):
            if not any(f.start < m.end() and m.start() < f.end for f in out):
                out.append(self._finding(m.start(), m.end(), "org_opener"))
        for m in self._partnership.finditer(text):
            out.append(self._finding(m.start(1), m.end(1), "partnership"))
        return out

    @staticmethod
    def _not_a_firm(text: str, start: int, end: int) -> bool:
        name = text[start:end]
        words = [w.strip(",") for w in name.split()]
        if not any(w[1:] and not w.isupper() for w in words):
            return True  # "OR LOSS AS", "MO, TU, FR, SA": capitals, not a firm's name
        if len(words) == 1 and _SENTENCE_START.search(text, max(0, start - 3), start + 1):
            return True  # "Severe AS noted": the capital may only open the sentence
        common = common_words()
        if name in gazetteer() or any(
            w.casefold() in common or w.casefold() in NOTE_WORDS or w.casefold() in NOT_NAMES
            for w in words
        ):
            return True
        return clinical_register(text)

    def _finding(self, start: int, end: int, pattern: str) -> Finding:
        return Finding(
            start,
            end,
            "ORGANIZATION",
            self.score,
            self.name,
            self.tier,
            Explanation(self.name, pattern, self.score, self.score),
        )
