"""The NER step: spaCy's named entities, checked and trimmed.

Loading the pipeline with only the components it needs, turning its PERSON, ORG, GPE,
... spans into findings (``_ner``), reading notes line by line (``_ner_lines``), and
the name post-processing that joins a name wrapped over two lines (``_wrapped``) or
split by a conjunction (``_coordination``). Imports :mod:`veil.text.recognition` and
:mod:`veil.text.vocab`.
"""
