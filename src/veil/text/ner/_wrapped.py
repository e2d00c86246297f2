"""Names that a line wrap breaks ("Spoke with Maria\\nGonzalez about ..."): a step after the
recognizers, since it reads their findings.

Hard-wrapped text (e-mail at 72 columns, exported notes, PDFs turned to text) breaks a name
wherever the line ends. The model, and the rules that read one line at a time, then find
the given name and leave the surname on the next line unredacted (on generated wrapped
names: given name alone 169 of 640 times, `PERSON_WRAPPED` in
``benchmarks/text_generated_entities.py``). A ``PERSON`` finding of one known given name
that ends its line takes the capitalised name-like words that open the next line; one that
opens a line takes a known given name that ends the line before; two such findings on
either side of the break become one; and a known given name that ends a line with a known
surname opening the next is a person though nothing found either (score 0.6).

A double-barrelled surname ("Chavez-Lopez") read as two names, one on each side of the
hyphen, or as one name and a capitalised word joined to it, is one name too
(:func:`join_hyphenated_names`): left as two findings, the hyphen stayed in clear between
two replacements, and a half the model did not read stayed in clear beside one.
"""

from __future__ import annotations

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._names import _given_name, surname_like
from veil.text.vocab._lexicon import LOWER_LATIN, UPPER_LATIN, first_last_name

__all__ = ["join_hyphenated_names", "join_wrapped_names"]

_WORD = rf"[{UPPER_LATIN}][{LOWER_LATIN}]+(?:['’-][{UPPER_LATIN}]?[{LOWER_LATIN}]+)*"
# the break: spaces, one line break, a reply's quote marks and spaces
_BREAK = r"[ \t]*\r?\n(?:[ \t]*>)*[ \t]*"
_NEXT = lazy_compile(
    rf"{_BREAK}({_WORD})(?:[ \t]+({_WORD}))?(?=[ \t]*(?:[^\w \t]|$)|[ \t]+[{LOWER_LATIN}\d])"
)
_BEFORE = lazy_compile(rf"(?<![\w'’.-])({_WORD}){_BREAK}$")
SCORE = 0.85


def _wrapped_word(word: str) -> bool:
    """A word that opens the next line of a name: :func:`~veil.text.recognition._names.surname_like`,
    a known surname that is also an English word included ("Maria\\nBrown")."""
    return surname_like(word, known_surnames=True)


def join_wrapped_names(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` with the ``PERSON`` findings that a line break cuts joined to the rest
    of the name (module docstring); other findings as they are.

    Examples
    --------
    >>> text = "Spoke with Maria\\nGonzalez about the invoice."
    >>> maria = Finding(11, 16, "PERSON", 0.85, "spacy_ner")
    >>> [text[f.start : f.end] for f in join_wrapped_names(text, [maria])]
    ['Maria\\nGonzalez']
    """
    if "\n" not in text:
        return findings
    out = sorted([*findings, *_lexicon_pairs(text, findings)], key=lambda f: (f.start, f.end))
    i = 0
    while i < len(out):
        f = out[i]
        if f.entity_type == "PERSON" and " " not in text[f.start : f.end].strip():
            joined = _forward(text, f, out, i) or _backward(text, f, out, i)
            if joined is not None:
                start, end, drop = joined
                keep = [g for j, g in enumerate(out) if j not in drop]
                new = _finding(f, start, end)
                out = sorted([*keep, new], key=lambda g: (g.start, g.end))
                i = out.index(new) + 1
                continue
        i += 1
    return out


_PAIR = lazy_compile(rf"(?<![\w'’.-])({_WORD}){_BREAK}({_WORD})(?![\w'’-])")


def _lexicon_pairs(text: str, findings: list[Finding]) -> list[Finding]:
    """A known given name that ends a line and a known surname that opens the next, which
    nothing else found ("Spoke with Ingrid\nOlofsson about ...")."""
    out = []
    for m in _PAIR.finditer(text):
        a, b = m.span()
        if any(f.start < b and a < f.end for f in findings):
            continue
        if first_last_name([m.group(1).casefold(), m.group(2).casefold()]) and _wrapped_word(
            m.group(2)
        ):
            out.append(
                Finding(
                    a,
                    b,
                    "PERSON",
                    0.6,
                    "wrapped_name",
                    1,
                    Explanation("wrapped_name", "first_last_wrapped", 0.6, 0.6),
                )
            )
    return out


def _forward(text: str, f: Finding, out: list[Finding], i: int) -> tuple[int, int, set[int]] | None:
    """A given name that ends its line, and the surname words that open the next."""
    if not _given_name(text[f.start : f.end]):
        return None
    m = _NEXT.match(text, f.end)
    if m is None:
        return None
    words = [w for w in m.groups() if w]
    if not all(_wrapped_word(w) for w in words) or _given_name(words[0]):
        return None  # a given name opening the next line: a list of people ("Maria\nJohn")
    end = m.end(2) if m.group(2) else m.end(1)
    drop = {i}
    for j, g in enumerate(out):
        if j != i and g.start < end and f.end < g.end:
            # the surname found apart (a person) goes into the whole; anything else on
            # the words, or running past them, keeps them out
            if g.entity_type != "PERSON" or g.end > end or g.start < m.start(1):
                return None
            drop.add(j)
    return f.start, end, drop


def _backward(
    text: str, f: Finding, out: list[Finding], i: int
) -> tuple[int, int, set[int]] | None:
    """A surname that opens its line, and the known given name that ends the line before."""
    line_start = text.rfind("\n", 0, f.start) + 1
    if text[line_start : f.start].strip(" \t>"):
        return None  # not the line's first word
    m = _BEFORE.search(text, max(0, f.start - 60), f.start)
    if m is None or not _given_name(m.group(1)) or not _wrapped_word(text[f.start : f.end]):
        return None
    if any(j != i and g.start < f.start and m.start(1) < g.end for j, g in enumerate(out)):
        return None  # the given name is another finding's
    return m.start(1), f.end, {i}


def _finding(f: Finding, start: int, end: int) -> Finding:
    return Finding(
        start,
        end,
        "PERSON",
        max(f.score, SCORE),
        "wrapped_name",
        f.tier,
        Explanation("wrapped_name", "line_wrap", max(f.score, SCORE), max(f.score, SCORE)),
    )


# a hyphen or a non-breaking hyphen, with nothing around it (an en dash more often joins
# two people, as in a debate named after both)
_HYPHEN = "-\u2010\u2011"
# a capitalised word joined by a hyphen to the start or the end of a name
_LEFT_PART = lazy_compile(
    rf"(?<![\w'’.-])[{UPPER_LATIN}][{UPPER_LATIN}{LOWER_LATIN}'’]+[{_HYPHEN}]$"
)
_RIGHT_PART = lazy_compile(rf"[{_HYPHEN}][{UPPER_LATIN}][{UPPER_LATIN}{LOWER_LATIN}'’]+(?![\w'’-])")


def _hyphen_parts(text: str, f: Finding) -> Finding:
    """A ``PERSON`` finding with the capitalised word a hyphen joins to either end of it
    ("Chavez-" before "Lopez"): the other half of a double-barrelled name, which the model
    or a rule read apart."""
    if f.entity_type != "PERSON":
        return f
    start, end = f.start, f.end
    left = _LEFT_PART.search(text, max(0, start - 40), start)
    if left is not None and left.end() == start:
        start = left.start()
    right = _RIGHT_PART.match(text, end)
    if right is not None:
        end = right.end()
    if (start, end) == (f.start, f.end):
        return f
    return Finding(start, end, "PERSON", f.score, f.recognizer, f.tier, f.explanation)


def join_hyphenated_names(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` with each ``PERSON`` finding grown over the capitalised word a hyphen
    joins to it (:func:`_hyphen_parts`), and ``PERSON`` findings that then overlap, or that
    only a hyphen separates, joined into one ("Chavez-Lopez"); other findings as they are.

    Examples
    --------
    >>> text = "Seen by Chavez-Lopez MD."
    >>> a = Finding(8, 14, "PERSON", 0.85, "spacy_ner")
    >>> b = Finding(15, 20, "PERSON", 0.6, "clinical_shapes")
    >>> [text[f.start : f.end] for f in join_hyphenated_names(text, [a, b])]
    ['Chavez-Lopez']
    """
    if not findings or not any(h in text for h in _HYPHEN):
        return findings
    out: list[Finding] = []
    for f in sorted((_hyphen_parts(text, g) for g in findings), key=lambda g: (g.start, g.end)):
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.entity_type == "PERSON"
            and f.entity_type == "PERSON"
            and (f.start <= prev.end or (f.start == prev.end + 1 and text[prev.end] in _HYPHEN))
        ):
            # (two findings that took in each other's half overlap)
            score = max(prev.score, f.score)
            out[-1] = Finding(
                prev.start,
                max(prev.end, f.end),
                "PERSON",
                score,
                prev.recognizer,
                min(prev.tier, f.tier),
                Explanation(prev.recognizer, "hyphenated_name", score, score),
            )
            continue
        out.append(f)
    return out
