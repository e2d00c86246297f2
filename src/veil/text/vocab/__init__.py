"""Vocabularies and where they come from: the bottom layer of :mod:`veil.text`.

Word lists (clinical terms, relation and calendar words, names that are not names),
the name lexicon built from Faker, street, state and organisation words, spaCy model
discovery (the lexicon reads the installed pipeline's lemma tables) and the on-disk
cache these lists are kept in. Nothing here imports another part of ``veil.text``.
"""
