"""Nationalities, religions and political groups (``NRP``) that NER's ``NORP`` misses: a
closed word list in regex-only mode, and a form's field with NER on or off."""

from __future__ import annotations

import itertools
import re

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer, recognizers
from veil.text.vocab._lexicon import LOWER_LATIN, NRP_WORDS, UPPER_LATIN, name_lexicon

__all__ = ["NrpFieldRecognizer", "NrpWordRecognizer"]

_UPC, _LOWC = UPPER_LATIN, LOWER_LATIN


# two-word nationalities and groups of the NRP word list ("South African", "Puerto Rican")
_NRP_PAIRS = frozenset(
    {"south african", "puerto rican", "sri lankan", "cape verdean", "native american",
     "african american", "asian american", "jehovah's witness", "jehovah's witnesses",
     "new zealander", "sierra leonean", "costa rican", "south korean", "north korean",
     "south sudanese", "equatorial guinean", "saudi arabian", "sunni muslim",
     "shia muslim", "orthodox jewish", "greek orthodox", "russian orthodox"}
)  # fmt: skip
_CAP_WORD = lazy_compile(rf"(?<![\w'’.-])[{_UPC}][{_LOWC}]+(?:['’]s)?(?![\w'’-])")


_NRP_FIELD = lazy_compile(
    r"\b(?i:nationality|citizenship|religion|religious\s+affiliation|faith|ethnicity|"
    r"ethnic\s+(?:origin|group|background)|race|political\s+(?:affiliation|party))"
    r"[ \t]*(?::|-|=|\bis\b)[ \t]*"
    rf"([{_UPC}{_LOWC}][{_UPC}{_LOWC}'’]*(?:[ \t-][{_UPC}{_LOWC}][{_UPC}{_LOWC}'’]*){{0,2}})"
    r"(?=[ \t]*(?:[,;.()/\n]|$))"
)


@recognizers.register("nrp_field")
class NrpFieldRecognizer(Recognizer):
    """A nationality, religion, ethnic group or party given in a form's field ("Nationality:
    Omani", "religion - Sunni Muslim", "ethnicity: hispanic"), in any case, with NER on or
    off: each word of the value is on the closed NRP list (what a field holds besides,
    "N/A", "prefer not to say", is not reported). Score 0.85, tier 1.

    Examples
    --------
    >>> text = "Nationality: Omani; Religion: Sunni Muslim; Race: N/A"
    >>> [text[f.start : f.end] for f in NrpFieldRecognizer().analyze(text)]
    ['Omani', 'Sunni Muslim']
    """

    name = "nrp_field"
    entities = ("NRP",)
    score = 0.85

    def analyze(self, text: str) -> list[Finding]:
        out = []
        for m in _NRP_FIELD.finditer(text):
            words = re.split(r"[ \t-]+", m.group(1).casefold())
            pairs = {f"{a} {b}" for a, b in itertools.pairwise(words)}
            if all(
                w in NRP_WORDS or any(w in p.split() for p in pairs & _NRP_PAIRS) for w in words
            ):
                out.append(
                    Finding(
                        m.start(1),
                        m.end(1),
                        "NRP",
                        self.score,
                        self.name,
                        self.tier,
                        Explanation(self.name, "nrp_field", self.score, self.score),
                    )
                )
        return out


@recognizers.register("nrp_word")
class NrpWordRecognizer(Recognizer):
    """Nationalities, religions and political groups from a closed word list (the NRP
    words NER's ``NORP`` is checked against): "a Nigerian engineer", "Muslim", "South
    African", "Republicans"; in regex-only mode, where NER's ``NORP`` is missing. With NER
    on it does not run: NER's reading of the sentence decides, checked against the same
    list ("French" in "French fries" or "speaks French" is not a group of people, which the
    list cannot tell). Capitalised words only; a word that is also a first name is not one
    before a capitalised word ("Christian Peterson"). Score 0.6, tier 2.

    Examples
    --------
    >>> text = "A Nigerian engineer and two South African Catholics met Christian Peterson."
    >>> [text[f.start : f.end] for f in NrpWordRecognizer().analyze(text)]
    ['Nigerian', 'South African', 'Catholics']
    """

    name = "nrp_word"
    entities = ("NRP",)
    tier = 2
    score = 0.6
    reads_case = True
    replaces_ner = True

    def analyze(self, text: str) -> list[Finding]:
        first = name_lexicon()[0]
        words = [(m.start(), m.end(), m.group().casefold()) for m in _CAP_WORD.finditer(text)]
        out = []
        i = 0
        while i < len(words):
            start, end, word = words[i]
            if i + 1 < len(words) and text[end : words[i + 1][0]] == " ":
                pair = f"{word} {words[i + 1][2]}"
                if pair in _NRP_PAIRS:
                    out.append(self._finding(start, words[i + 1][1]))
                    i += 2
                    continue
            named = (  # "Christian Peterson", "French Stewart": a first name here
                word in first
                and i + 1 < len(words)
                and text[end : words[i + 1][0]] == " "
                and words[i + 1][2] not in NRP_WORDS
            )
            if word in NRP_WORDS and not named and word != "speaking":
                out.append(self._finding(start, end))
            i += 1
        return out

    def _finding(self, start: int, end: int) -> Finding:
        return Finding(
            start,
            end,
            "NRP",
            self.score,
            self.name,
            self.tier,
            Explanation(self.name, "nrp_word", self.score, self.score),
        )
