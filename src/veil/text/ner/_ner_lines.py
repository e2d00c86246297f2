"""NER spans and line breaks: where a model's span that runs over a line ends, and which of
its later lines stay; and the lines of a note NER reads alone, joined, with its spans read
back in the whole note (steps of :class:`veil.text.ner._ner.SpacyNerRecognizer`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from veil._lazy import lazy_compile
from veil.text.vocab._lexicon import (
    LOWER_LATIN,
    NOTE_WORDS,
    UPPER_LATIN,
    common_words,
    name_lexicon,
)

__all__ = ["join_lines", "line_pieces", "spans_in_text"]

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


class _Span(NamedTuple):
    """An NER span read from a text's selected lines, in the whole text's offsets."""

    start_char: int
    end_char: int
    label_: str


def join_lines(text: str, lines: Sequence[tuple[int, int]]) -> tuple[str, list[int]]:
    """The ``lines`` of ``text`` (``(start, end)``, in order, no line break inside) joined
    by line breaks, and where each starts in that string."""
    starts = []
    at = 0
    for a, b in lines:
        starts.append(at)
        at += b - a + 1
    return "\n".join(text[a:b] for a, b in lines), starts


def spans_in_text(ents: Any, lines: Sequence[tuple[int, int]], starts: list[int]) -> list[_Span]:
    """``ents`` of the selected lines (:func:`join_lines`) in the whole text's offsets. A
    span that runs on into the next selected line keeps that line only where it follows
    its own in the text; else it ends with its own line."""
    out = []
    for ent in ents:
        k = bisect_right(starts, ent.start_char) - 1
        j = bisect_right(starts, max(ent.start_char, ent.end_char - 1)) - 1
        a = lines[k][0]
        start = a + ent.start_char - starts[k]
        if j == k or any(lines[m][1] + 1 != lines[m + 1][0] for m in range(k, j)):
            end = min(a + ent.end_char - starts[k], lines[k][1])
        else:
            end = lines[j][0] + ent.end_char - starts[j]
        out.append(_Span(start, end, ent.label_))
    return out
