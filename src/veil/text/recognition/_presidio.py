"""Hosting Microsoft Presidio recognizers inside veil's analyzer.

Any ``presidio_analyzer.EntityRecognizer`` (a ``PatternRecognizer`` with a deny list, a
country-specific recognizer, a remote recognizer) can be wrapped and passed to
:class:`veil.text.TextAnalyzer`. Presidio's analyzer logs candidate values at some levels
(an invalid IBAN at ERROR); wrapping a recognizer raises the ``presidio-analyzer``
logger to CRITICAL so no text reaches a log.
"""

from __future__ import annotations

import logging
from typing import Any

from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer

__all__ = ["PresidioRecognizer", "silence_presidio"]


def silence_presidio() -> None:
    """Stop Presidio's loggers from emitting candidate values."""
    for name in ("presidio-analyzer", "presidio_analyzer", "presidio-anonymizer"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


class PresidioRecognizer(Recognizer):
    """Adapter: a Presidio ``EntityRecognizer`` as a veil :class:`Recognizer`.

    Recognizers that need Presidio's NLP artifacts (lemmas, tokens) receive ``None`` and
    fall back to their pattern logic; context enhancement is veil's.

    Examples
    --------
    >>> from presidio_analyzer import Pattern, PatternRecognizer  # doctest: +SKIP
    >>> titles = PatternRecognizer(supported_entity="TITLE", deny_list=["Sir", "Dame"])  # doctest: +SKIP
    >>> TextAnalyzer(recognizers=[PresidioRecognizer(titles)]).analyze("Sir Ian")  # doctest: +SKIP
    """

    tier = 1

    def __init__(self, recognizer: Any, tier: int = 1) -> None:
        silence_presidio()
        self.recognizer = recognizer
        self.entities = tuple(recognizer.supported_entities)
        self.name = f"presidio:{recognizer.name}"  # type: ignore[misc]
        self.tier = tier

    def analyze(self, text: str) -> list[Finding]:
        results = self.recognizer.analyze(text, list(self.entities), None) or []
        out = []
        for r in results:
            score = float(r.score)
            pattern = None
            if r.analysis_explanation is not None:
                pattern = getattr(r.analysis_explanation, "pattern_name", None)
            out.append(
                Finding(
                    int(r.start),
                    int(r.end),
                    str(r.entity_type),
                    score,
                    self.name,
                    self.tier,
                    Explanation(self.name, pattern, score, score),
                )
            )
        return out
