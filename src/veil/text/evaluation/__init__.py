"""Evaluation: scoring a detector against gold spans (``_evaluate``, presidio-research
format) and generating labelled corpora with hard negatives (``_corpus``,
``_corpus_secrets``). Imports :mod:`veil.text.replacement` (surrogate values),
:mod:`veil.text.recognition` and :mod:`veil.text.vocab`; never detection.
"""
