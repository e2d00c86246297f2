"""NER spans and line breaks: where a model's span that runs over a line ends, and which of
its later lines stay (a step of :class:`veil.text.ner._ner.SpacyNerRecognizer`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from veil._lazy import lazy_compile
from veil.text.vocab._lexicon import (
    LOWER_LATIN,
    NOTE_WORDS,
    UPPER_LATIN,
    common_words,
    name_lexicon,
)

__all__ = ["line_pieces"]

_INITIAL = lazy_compile(r"[A-Z]\.")

_WRAPPED_NAME_WORD = lazy_compile(rf"[{UPPER_LATIN}][{LOWER_LATIN}'’-]+")


def line_pieces(ents: Iterable[Any], text: str) -> Iterator[tuple[Any, int, int]]:
    """(entity, start, end) of each NER span, cut at its first line break: an envelope's
    "Kristen Whitaker\nBrown LLC" read as one person ended the name at the company's first
    word, and the company's finding then outranked the whole of it. A line is its own field
    in a letter's header, a form or a note, and what the model runs on into is the next
    field ("Anthony Hatfield\nDOB", "Zachary Phelps\nScientist", "Todd Ramos\nAllen" of
    a company's name: 150 spans in 400 generated blocks, an ad hoc count; the benchmark's
    ``PERSON_HEADER`` case measures the effect).

    A person's name that a line wrap breaks is kept whole: when the first line holds one
    word of it, or ends in an initial ("Maria\nGonzalez", "John A.\nSmith"), the next
    line's words in the span that are written as names and are no everyday or charting
    word stay in it (cutting them left the surname unredacted)."""
    for ent in ents:
        start, end = ent.start_char, ent.end_char
        cut = text.find("\n", start, end)
        if cut < 0:
            yield ent, start, end
            continue
        # the name's words on the first line: the span's, and the capitalised words just
        # before it on that line (the model may start at the surname: "Iva Dvořák\nObchodník")
        line = text[text.rfind("\n", 0, start) + 1 : cut].split()
        head = []
        for w in reversed(line):
            if not w[:1].isupper():
                break
            head.append(w)
        incomplete = bool(head) and (len(head) == 1 or _INITIAL.fullmatch(head[0]) is not None)
        # a person's name, whatever the model called it ("Maria\nGonzalez" read as an ORG
        # is a person by the rules below): a first line of one known given name counts too
        named = ent.label_ == "PERSON" or (
            len(head) == 1 and head[0].casefold() in name_lexicon()[0]
        )
        if incomplete and named:
            tail = [w for w in text[cut:end].split() if w.strip(">")]  # a reply's quote marks
            common = common_words()
            if tail and all(
                _WRAPPED_NAME_WORD.fullmatch(w)
                and w.casefold() not in common
                and w.casefold() not in NOTE_WORDS
                for w in tail
            ):
                yield ent, start, end
                continue
        yield ent, start, len(text[start:cut].rstrip()) + start
        for a, b, place in _later_lines(ent.label_, text, cut, end):
            yield (_PlacePiece if place else ent), a, b


class _PlacePiece:
    """The label of a later line kept as a place whatever the model called its span."""

    label_ = "GPE"


_PLACE_LABELS = frozenset(("GPE", "LOC", "FAC"))
_LINE_PIECE = lazy_compile(r"[^\n>]+")


def _later_lines(label: str, text: str, cut: int, end: int) -> Iterator[tuple[int, int, bool]]:
    """(start, end, a place of the gazetteer) of the lines after the first of a span cut at
    its line break that name a place on their own: "Paix\nMarseille\nFrance" read as one
    place lost the town and the country with the cut. A line is kept when its words are
    all capitalised, none an everyday or charting word, and the model called the span a
    place or the line is a place of the gazetteer (then a place, whatever the span's
    label); a name's next field ("Scientist", "DOB", "Brown LLC") stays out."""
    from veil.text.recognition._places import gazetteer

    common = common_words()
    for m in _LINE_PIECE.finditer(text, cut, end):
        piece = m.group().strip()
        words = piece.split()
        if not words or not all(
            _WRAPPED_NAME_WORD.fullmatch(w)
            and w.casefold() not in common
            and w.casefold() not in NOTE_WORDS
            for w in words
        ):
            continue
        known = piece in gazetteer()
        if label in _PLACE_LABELS or known:
            a = m.start() + m.group().index(piece)
            yield a, a + len(piece), known
