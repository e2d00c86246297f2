"""Names found without NER: after a title ("Dr. Foley"), from the name lexicon ("Jane Roe",
"wife Mary"), and organisations with a legal or institutional suffix."""

from __future__ import annotations

import re

from veil.text._finding import Explanation, Finding
from veil.text._lexicon import (
    LOWER_LATIN,
    NOTE_WORDS,
    RELATION_WORDS,
    UPPER_LATIN,
    first_last_name,
    name_lexicon,
    relation_pattern,
)
from veil.text._recognizer import Pattern, PatternRecognizer, Recognizer, recognizers

__all__ = ["LexiconNameRecognizer", "OrganizationRecognizer", "TitledNameRecognizer"]


@recognizers.register("titled_name")
class TitledNameRecognizer(PatternRecognizer):
    """Surnames after a title ("Dr. Foley", "Mrs. O'Neil"): the title is not part of the span."""

    entity = "PERSON"
    reads_case = True
    patterns = (
        Pattern(
            "titled",
            r"\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof)\.?\s+((?:[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?\s+)?"
            r"[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?)\b",
            0.8,
            group=1,
        ),
    )


_ORG_SUFFIX = (
    r"Inc|Incorporated|LLC|L\.L\.C|Ltd|Limited|PLC|plc|LLP|LP|Corp|Corporation|Co|Company|"
    r"Group|Holdings|Partners|Associates|GmbH|AG|S\.A|SA|NV|BV|Hospital|Medical Center|"
    r"Clinic|Health|Healthcare|University|College|Institute|Foundation|Bank|Trust|Agency|"
    r"Laboratories|Labs|Pharmaceuticals|Systems|Technologies|Solutions|Services"
)


@recognizers.register("organization")
class OrganizationRecognizer(PatternRecognizer):
    """Organisations named with a legal or institutional suffix ("Smith PLC", "Baker Clinic"),
    and partnership names after a preposition ("at Martin, Young and Jarvis")."""

    entity = "ORGANIZATION"
    reads_case = True
    patterns = (
        Pattern(
            "org_suffix",
            rf"\b(?:[A-Z][A-Za-z&'’-]*,?\s+(?:and\s+|&\s+)?){{1,4}}(?:{_ORG_SUFFIX})\b\.?",
            0.75,
        ),
        Pattern(
            "partnership",
            r"\b(?:at|from|for|with|of|by|joined|to)\s+((?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?,\s+){1,2}"
            r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?,?\s+(?:and|&)\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b",
            0.7,
            group=1,
        ),
    )

    def analyze(self, text: str) -> list:  # type: ignore[override]
        out = []
        for f in super().analyze(text):
            end = f.end
            if text[end - 1 : end] == "." and not text[f.start : end].endswith(
                ("Inc.", "Co.", "Corp.", "Ltd.")
            ):
                end -= 1
            value = text[f.start : end]
            # a sentence-initial capitalised word is not part of the name ("Meeting Acme Inc")
            out.append(
                type(f)(f.start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation)
            )
            del value
        return out


_UPC, _LOWC = UPPER_LATIN, LOWER_LATIN
# a capitalised name word: "Smith", "McDonald", "O'Neil", "Smith-Jones", "Łukasz"
_CAP = rf"[{_UPC}][{_LOWC}]+(?:[{_UPC}][{_LOWC}]+)?(?:['’-][{_UPC}]?[{_LOWC}]+)?"
# two or three capitalised words (overlapping matches through the lookahead), and the
# character after them so a longer capitalised run ("Rose Hill Cemetery") can be refused
_NAME_RUN = re.compile(rf"(?<![\w.'’-])(?=({_CAP}(?: {_CAP}){{1,2}})(?![\w'’-])((?: [{_UPC}])?))")
# a name with lower-case particles before the surname: "Renske van der Spaendonck", "Emanuelly
# das Neves", "Ursula von der Leyen" (one or two given names, one or two particles)
_PARTICLES_TEXT = "van von de da das dos do di du del della der den ter ten le la al bin ibn el"
_NAME_PARTICLE = "|".join(sorted(_PARTICLES_TEXT.split(), key=len, reverse=True))
_PARTICLE_NAME = re.compile(
    rf"(?<![\w.'’-])({_CAP}(?: {_CAP})?) (?:{_NAME_PARTICLE})(?: (?:{_NAME_PARTICLE}))? ({_CAP})"
    rf"(?![\w'’-])((?: [{_UPC}])?)"  # and whether a capitalised word goes on ("... Airport")
)
# a relation or care-team word, in any case, then a capitalised word: "wife Mary", "RN Okafor"
_RELATION_EXTRA = ("friend", "partner", "rn", "np", "pa")
_RELATION = re.compile(rf"\b(?i:{relation_pattern(*_RELATION_EXTRA)})\s+({_CAP})(?![\w'’-])")
_RELATION_SET = frozenset({*RELATION_WORDS, *_RELATION_EXTRA})
_ASCII_WORD = re.compile(r"[a-z]+")


def _may_hold_relation(text: str) -> bool:
    """Whether an ASCII text holds a relation word as a whole word (a cheap necessary
    condition for :data:`_RELATION`, whose case-insensitive alternation is slow to scan);
    other texts are always scanned."""
    if not text.isascii():
        return True
    return not _RELATION_SET.isdisjoint(_ASCII_WORD.findall(text.lower()))


@recognizers.register("lexicon_name")
class LexiconNameRecognizer(Recognizer):
    """Names that NER misses, checked against first and last names (Faker's lists for every
    locale it ships, :func:`veil.text._lexicon.name_lexicon`).

    * A run of two or three capitalised words whose first word is a known first name, whose
      last word is a known last name, and that no further capitalised word continues ("Jane
      Roe"; not "Rose Hill Cemetery").
    * A known first name, lower-case particles, a known last name ("Renske van der
      Spaendonck", "Emanuelly das Neves").
    * A known name right after a relation or care-team word ("wife Mary", "RN Okafor").

    No word may be charting vocabulary ("Will", "Neo", "Echo"). Score 0.6, below NER's, so
    an NER span of another type on the same words wins the overlap rule.
    """

    name = "lexicon_name"
    entities = ("PERSON",)
    tier = 2
    score = 0.6
    reads_case = True

    def analyze(self, text: str) -> list[Finding]:
        first, last = name_lexicon()
        out: list[Finding] = []
        for m in _NAME_RUN.finditer(text):
            if m.group(2):
                continue  # the run goes on: part of a longer capitalised name
            if first_last_name([w.casefold() for w in m.group(1).split()]):
                out.append(self._finding(m.start(1), m.end(1), "first_last"))
        for m in _PARTICLE_NAME.finditer(text):
            if m.group(3):
                continue  # the run goes on: "Charles de Gaulle Airport"
            given = m.group(1).split()[0].casefold()
            surname = m.group(2).casefold()
            if given in first and surname in last and not {given, surname} & NOTE_WORDS:
                out.append(self._finding(m.start(), m.end(), "particle_name"))
        for m in _RELATION.finditer(text) if _may_hold_relation(text) else ():
            w = m.group(1).casefold()
            if (w in first or w in last) and w not in NOTE_WORDS:
                out.append(self._finding(m.start(1), m.end(1), "after_relation"))
        return out

    def _finding(self, start: int, end: int, pattern: str) -> Finding:
        return Finding(
            start,
            end,
            "PERSON",
            self.score,
            self.name,
            self.tier,
            Explanation(self.name, pattern, self.score, self.score),
        )
