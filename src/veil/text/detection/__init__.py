"""Detection: :class:`TextAnalyzer`, which runs the registered recognizers and NER over a
text and resolves their overlapping findings under one rule, and the detection profiles
(``_profiles``) that say which findings a use case keeps. Imports
:mod:`veil.text.ner`, :mod:`veil.text.recognition` and :mod:`veil.text.vocab`.
"""
