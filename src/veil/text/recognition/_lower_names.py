"""Two lower-case words right after a word that says a person follows: an addressing verb
or greeting ("call susan mikulic", "hi susan mikulic"), a role or talking word ("customer
susan mikulic", "spoke with susan mikulic") or a header's label ("From: susan mikulic").

Support and chat texts write names in lower case; the model reads none of them, and a known
given name alone left the surname in clear ("<PERSON> mikulic"). This module only finds the
candidate pairs; :class:`~veil.text.recognition._names.LexiconNameRecognizer` keeps those whose first
word is a known given name and whose second can only be a surname.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from veil._lazy import lazy_compile
from veil.text.recognition._recognizer import text_features
from veil.text.vocab._lexicon import LOWER_LATIN, word_set

__all__ = ["acting_lower_pairs", "cued_lower_pairs", "transcript_names"]

# a lower-case word of the Latin alphabets ("kałwa", "étienne"), and a given name that may be
# hyphenated ("hanne-lore")
_LWORD = rf"[{LOWER_LATIN}]{{2,}}"
_LGIVEN = rf"{_LWORD}(?:-{_LWORD})?"

# the verbs that address someone: in a text that capitalises words inside its sentences,
# its names are capitalised too, and "call alison ramos" there is read as no name (the
# lexicon tests pin it); the other cues hold in any text
_ADDRESSING = r"call|ask|email|e-mail|text|tell|meet"
_CUE = (
    r"dear|hi|hello|hey|thanks|thank\s+you|congrats|congratulations|"
    r"customer|client|caller|tenant|applicant|employee|member|patient|resident|guest|"
    r"spoke\s+(?:with|to)|talked\s+(?:with|to)|speak\s+(?:with|to)|met\s+with|meeting\s+with|"
    r"contacted|emailed|phoned|texted|cc|attn"
)
# a cue, then two lower-case words (the second not the start of an address, "john
# doe@example.com"); each word is checked afterwards, so "call mark back" is no name
_PAIR = lazy_compile(
    rf"(?:\b(?i:(?P<addressing>{_ADDRESSING})|{_CUE})\b[ \t]*[:,]?"
    r"|^[ \t]*(?i:from|to|cc|name|employee|contact|attn)[ \t]*:)"
    rf"[ \t]+(?P<given>{_LGIVEN})[ \t](?P<surname>{_LWORD})(?![\w'’@-]|\.\w)",
    re.MULTILINE,
)
# two lower-case words that act: the subject of a sentence ("hi team, alphons scarponi is
# out sick today", "maria lopez called"); each word is checked afterwards
_ACTING_VERBS = (
    "is|was|has|had|will|would|can|could|should|called|calls|said|says|wrote|writes|asked|"
    "asks|emailed|phoned|texted|replied|told|mentioned|confirmed|agreed|needs|needed|wants|"
    "wanted|joined|left|started|starts|reported|requested|submitted|sent"
)
_ACTING_PAIR = lazy_compile(
    rf"(?<![\w'’@./-])(?P<given>{_LGIVEN})[ \t](?P<surname>{_LWORD})[ \t]+(?:{_ACTING_VERBS})\b"
)
_ACTING_GATE = lazy_compile(rf"[a-z] (?:{_ACTING_VERBS})\b")
_GATE = lazy_compile(r"[a-z]{2,} [a-z]{2,}")
# the letter run of each cue of _PAIR ("e-mail": "mail"; "spoke with": "spoke"): a cue is a
# whole word, so an ASCII text holds its run as one of its own (a necessary condition)
_CUE_RUNS = word_set(
    "call ask email mail text tell meet dear hi hello hey thanks thank congrats congratulations "
    "customer client caller tenant applicant employee member patient resident guest spoke "
    "talked speak met meeting contacted emailed phoned texted cc attn"
)
_ASCII_RUN = lazy_compile(r"[a-z]+")


def _may_hold_cue(text: str) -> bool:
    """Whether a text can hold a match of :data:`_PAIR` (whose case-insensitive alternation
    is slow to scan): a header's colon, or a cue's letters as a word of an ASCII text;
    other texts are always scanned."""
    if ":" in text:
        return True
    lower = text_features(text).lower  # lower-cased once per text, for every recognizer
    return not lower or not _CUE_RUNS.isdisjoint(_ASCII_RUN.findall(lower))


# a capital inside a sentence: after a lower-case letter or a comma and a space
_MID_CAPITAL = lazy_compile(r"[a-z,;] [A-Z]")


def cued_lower_pairs(text: str) -> Iterator[tuple[int, int, str, str]]:
    """``(start, end, first, second)`` of each lower-case pair after a person cue.

    Examples
    --------
    >>> [p[2:] for p in cued_lower_pairs("pls call susan mikulic tmrw")]
    [('susan', 'mikulic')]
    >>> [p[2:] for p in cued_lower_pairs("From: susan mikulic")]
    [('susan', 'mikulic')]
    >>> list(cued_lower_pairs("Please call alison ramos, said Mr. Brown."))
    []
    """
    if _GATE.search(text) is None or not _may_hold_cue(text):
        return
    capitals: bool | None = None
    for m in _PAIR.finditer(text):
        if m.group("addressing"):
            if capitals is None:
                capitals = _MID_CAPITAL.search(text) is not None
            if capitals:
                continue
        yield m.start("given"), m.end("surname"), m.group("given"), m.group("surname")


def acting_lower_pairs(text: str) -> Iterator[tuple[int, int, str, str]]:
    """``(start, end, first, second)`` of each lower-case pair that a verb follows.

    Examples
    --------
    >>> [p[2:] for p in acting_lower_pairs("Hi team, alphons scarponi is out sick")]
    [('alphons', 'scarponi')]
    """
    if _ACTING_GATE.search(text) is None:
        return
    for m in _ACTING_PAIR.finditer(text):
        yield m.start("given"), m.end("surname"), m.group("given"), m.group("surname")


# a chat transcript's line: an optional bracketed time, then a label of one or two
# lower-case words and a colon ("[10:02] jane doe: hi", "agent: how can I help?")
_TURN = lazy_compile(
    r"^[ \t>]*(?:\[[^\]\n]{1,30}\][ \t]*)?"
    rf"(?P<label>{_LGIVEN}(?:[ \t]{_LWORD})?)[ \t]*:(?=[ \t]*\S)",
    re.MULTILINE,
)
# a turn that ends by addressing someone: "updated, thanks jane", "bye mike!"
_ADDRESSED = lazy_compile(
    r"\b(?i:thanks|thank\s+you|thx|ty|hi|hello|hey|bye|cheers|congrats|congratulations)"
    rf"[ \t]*,?[ \t]+(?P<name>{_LGIVEN})[ \t]*[.!]*[ \t]*$",
    re.MULTILINE,
)


def transcript_names(text: str) -> Iterator[tuple[int, int, tuple[str, ...]]]:
    """``(start, end, words)`` of each lower-case speaker label of a chat transcript and of
    each lower-case word a turn ends by addressing; nothing unless two or more lines of
    ``text`` open with a speaker label (a transcript). The caller checks the words.

    Examples
    --------
    >>> [w for _, _, w in transcript_names("[10:02] jane doe: hi\\nagent: thanks jane")]
    [('jane', 'doe'), ('agent',), ('jane',)]
    >>> list(transcript_names("note: jane doe called"))
    []
    """
    if ":" not in text:
        return
    turns = list(_TURN.finditer(text))
    if len(turns) < 2:
        return
    for m in turns:
        yield m.start("label"), m.end("label"), tuple(m.group("label").split())
    for m in _ADDRESSED.finditer(text):
        yield m.start("name"), m.end("name"), (m.group("name"),)
