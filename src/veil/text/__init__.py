"""Personal data in free text: detection, replacement, evaluation.

Detection (:class:`TextAnalyzer`) combines validated pattern recognizers (payment cards,
IBANs, SSNs, phone numbers, ...), spaCy NER with only the components it needs, allow and
deny lists, custom regex recognizers and hosted Presidio recognizers, under one documented
overlap rule. Replacement (:class:`TextRedactor`) applies an operator: placeholder,
redact, mask, keyed hash, FF3-1 token, encryption, surrogate or vault token, with
consistent pseudonyms across rows, files and runs. :func:`evaluate_spans` scores any
detector against presidio-research-format gold data and :func:`generate_corpus` makes
such data.

Examples
--------
>>> from veil.text import TextAnalyzer, TextRedactor, make_operator
>>> analyzer = TextAnalyzer.from_config(ner=False)
>>> TextRedactor(analyzer, make_operator("mask", {"keep_last": 4})).redact(
...     "card 4111 1111 1111 1111").text
'card **** **** **** 1111'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veil._lazy import lazy_exports

if TYPE_CHECKING:
    from veil.text.detection._analyzer import (
        DENY_LIST,
        TextAnalyzer,
        build_pattern_recognizer,
        resolve_overlaps,
    )
    from veil.text.evaluation._corpus import generate_clinical_notes, generate_corpus
    from veil.text.evaluation._evaluate import (
        EvaluationReport,
        evaluate_spans,
        load_gold,
        load_label_map,
    )
    from veil.text.recognition._finding import ENTITIES, Explanation, Finding
    from veil.text.recognition._presidio import PresidioRecognizer
    from veil.text.recognition._recognizer import (
        ContextMatcher,
        Pattern,
        PatternRecognizer,
        Recognizer,
        recognizers,
    )
    from veil.text.redaction._redactor import Redaction, TextRedactor, link_names
    from veil.text.replacement._operators import Operator, decrypt_text, make_operator, operators
    from veil.text.replacement._vault import TokenVault

__all__ = [
    "DENY_LIST",
    "ENTITIES",
    "ContextMatcher",
    "EvaluationReport",
    "Explanation",
    "Finding",
    "Operator",
    "Pattern",
    "PatternRecognizer",
    "PresidioRecognizer",
    "Recognizer",
    "Redaction",
    "TextAnalyzer",
    "TextRedactor",
    "TokenVault",
    "build_pattern_recognizer",
    "decrypt_text",
    "evaluate_spans",
    "generate_clinical_notes",
    "generate_corpus",
    "link_names",
    "load_gold",
    "load_label_map",
    "make_operator",
    "operators",
    "recognizers",
    "resolve_overlaps",
]

# where each public name lives: imported on first use, so that a command that only detects
# does not import the evaluation, corpus and replacement code (start-up of `veil text detect`)
_HOME = {
    "ContextMatcher": "veil.text.recognition._recognizer",
    "DENY_LIST": "veil.text.detection._analyzer",
    "ENTITIES": "veil.text.recognition._finding",
    "EvaluationReport": "veil.text.evaluation._evaluate",
    "Explanation": "veil.text.recognition._finding",
    "Finding": "veil.text.recognition._finding",
    "Operator": "veil.text.replacement._operators",
    "Pattern": "veil.text.recognition._recognizer",
    "PatternRecognizer": "veil.text.recognition._recognizer",
    "PresidioRecognizer": "veil.text.recognition._presidio",
    "Recognizer": "veil.text.recognition._recognizer",
    "Redaction": "veil.text.redaction._redactor",
    "TextAnalyzer": "veil.text.detection._analyzer",
    "TextRedactor": "veil.text.redaction._redactor",
    "TokenVault": "veil.text.replacement._vault",
    "build_pattern_recognizer": "veil.text.detection._analyzer",
    "decrypt_text": "veil.text.replacement._operators",
    "evaluate_spans": "veil.text.evaluation._evaluate",
    "generate_clinical_notes": "veil.text.evaluation._corpus",
    "generate_corpus": "veil.text.evaluation._corpus",
    "link_names": "veil.text.redaction._redactor",
    "load_gold": "veil.text.evaluation._evaluate",
    "load_label_map": "veil.text.evaluation._evaluate",
    "make_operator": "veil.text.replacement._operators",
    "operators": "veil.text.replacement._operators",
    "recognizers": "veil.text.recognition._recognizer",
    "resolve_overlaps": "veil.text.detection._analyzer",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOME)
