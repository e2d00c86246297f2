"""The street address recognizer: the grammar of :mod:`veil.text.recognition._address`,
also read in lower case (:mod:`veil.text.recognition._address_lower`), scored by its
address cues."""

from __future__ import annotations

from veil.text.recognition import _address  # by module: tests switch its gate off
from veil.text.recognition._address_lower import with_lower_case
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import ContextMatcher, Recognizer, recognizers
from veil.text.vocab._lexicon import clinical_register

__all__ = ["StreetAddressRecognizer"]


@recognizers.register("street_address")
class StreetAddressRecognizer(Recognizer):
    """Postal addresses: a street line, with its locality when one follows (the grammar
    is :mod:`veil.text.recognition._address`'s docstring).

    A full address (street line + locality) is tier 0: a postcode or region checked against
    a national grammar or a closed list makes it as certain as a validated number, so it
    wins over the city, state, ZIP code and NER spans inside it. A lone street line is a
    tier-1 structural pattern.

    Examples
    --------
    >>> r = StreetAddressRecognizer()
    >>> text = "Ship to 221B Baker Street, London NW1 6XE today"
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['221B Baker Street, London NW1 6XE']
    """

    entities = ("STREET_ADDRESS",)
    tier = 1
    needs_digit = False  # "Rua Cruz, S/N": see _GATE
    score = 0.75
    composite_score = 0.95
    # address cues: they raise a lone line's score, and a lone line whose street word is
    # also an everyday word ("8 Mitchell Ronde", "Via Graziella, 176") needs one
    context = (
        "address", "addressed", "live", "lives", "lived", "living", "reside", "resides",
        "resided", "residing", "resident", "residence", "located", "street", "moved",
        "relocated", "deliver", "delivered", "delivery", "apartment", "flat",
    )  # fmt: skip

    def __init__(self) -> None:
        self._context = ContextMatcher(self.context)

    def analyze(self, text: str) -> list[Finding]:
        if _address._GATE.search(text) is None:
            return []
        out = []
        for a in with_lower_case(text, _address._addresses(text)):
            base = self.composite_score if a.composite else self.score
            words = () if a.composite else self._context.find(text, a.start, a.end)
            if a.weak and (not words or clinical_register(text)):
                continue  # everyday street words flood clinical notes ("lives at home")
            score = min(1.0, base + 0.35) if words else base
            tier = 0 if a.composite else self.tier
            out.append(
                Finding(
                    a.start,
                    a.end,
                    "STREET_ADDRESS",
                    score,
                    self.name,
                    tier,
                    Explanation(self.name, a.pattern, base, score, words),
                )
            )
        return out
