"""Addresses written in lower case, as chat often writes them ("i live at 12 main st, boston
ma 02139"), and :func:`address_shape`, which reads a value in either case.

The grammar of :mod:`veil.text.recognition._address` reads capitals (a street's name, a city, a state's
code); this module gives it a copy of the words after an address cue with their capitals
put back, same length and offsets, so that no pattern is written twice.
"""

from __future__ import annotations

import bisect
import re

from veil._lazy import lazy_compile
from veil.text.recognition._address import _CA_PC, _REGIONS, _UNIT_WORDS, _Address, _addresses
from veil.text.recognition._recognizer import text_features
from veil.text.vocab._street_words import _EN_STRONG, _EN_WEAKS

__all__ = ["address_layout", "address_shape", "with_lower_case"]

# An address written in lower case, as chat often is ("i live at 12 main st, boston ma
# 02139"): read only right after an address cue and before a house number, in a copy of the
# next words with capitals put back, so that the grammar of `_address` reads it unchanged.
_LOWER_CUE = lazy_compile(
    r"(?<![\w])(?:"
    r"(?:live|lives|lived|living|reside|resides|resided|residing|stay|stays|staying|located)"
    r"[ \t]+(?:at|on)"
    r"|address(?:[ \t]+is|[ \t]*:)"
    r"|(?:ship|send|deliver|mail|post)(?:[ \t]+(?:it|them|this|that|everything))?[ \t]+to"
    r"|moved[ \t]+to"
    rf")[ \t]+(?=\d|(?:{_UNIT_WORDS}|p\.?[ \t]?o\.?[ \t]+box|psc|cmr|usns|usnv|uss|uscgc)\b)",
    re.IGNORECASE,
)
_LOWER_STEMS = (
    "liv",
    "resid",
    "stay",
    "locat",
    "address",
    "ship",
    "send",
    "deliver",
    "mail",
    "post",
    "moved",
)
_LOWER_WINDOW = lazy_compile(r"[^!?;()]{1,120}")
_TYPE_WORDS = frozenset(w.casefold() for w in _EN_STRONG | _EN_WEAKS)
_LOWER_TOKEN = lazy_compile(r"[^\W_][\w'’-]*")
# "MA", "NSW", and the armed forces' "states" (AA, AE, AP: in ``_REGIONS`` with the US's)
_REGION_CODES = frozenset(r for r in _REGIONS if len(r) <= 3 and r.isupper())
# left in lower case: what joins prose, not a street's name ("2 people in Boston")
_LOWER_PARTICLES = frozenset(
    ["a", "an", "the", "of", "and", "or", "in", "on", "at", "to", "by", "for", "from", "with"]
)
_MILITARY_WORDS = frozenset(["PSC", "CMR", "USNS", "USNV", "USS", "USCGC", "APO", "FPO", "DPO"])
_RD_NUMBER = lazy_compile(r"[ \t]+\d{1,2}(?![\w])")
_BEFORE_PC = lazy_compile(rf"[ \t]*,?[ \t]*(?:\d{{4,5}}|{_CA_PC})(?![\w-])", re.IGNORECASE)


def _capitalised(window: str) -> str:
    """``window`` with capitals where an address has them, same length and offsets: each
    word's first letter but a particle's ("of", "the"); a state or province code before
    a postcode, a military address's word ("psc", "apo") and a word of letters and digits (a
    postcode's half, "221b") in full."""
    out = list(window)
    for m in _LOWER_TOKEN.finditer(window):
        word = m.group()
        if not word.islower() and not word[0].isdigit():
            continue
        up = word.upper()
        if len(up) != len(word):
            continue  # "ß" and others whose capital is longer: left as written
        if (
            up in _MILITARY_WORDS
            or (up in _REGION_CODES and _BEFORE_PC.match(window, m.end()))
            or (up == "RD" and _RD_NUMBER.match(window, m.end()))  # NZ rural delivery
        ):
            out[m.start() : m.end()] = up
        elif any(c.isdigit() for c in word):
            out[m.start() : m.end()] = up
        elif word not in _LOWER_PARTICLES:
            out[m.start()] = up[0]
    return "".join(out)


def with_lower_case(text: str, found: list[_Address]) -> list[_Address]:
    """``found`` and the addresses in lower case after an address cue (``_LOWER_CUE``); of
    two that overlap, the longer ("po box 18" is read in any case, its town only here)."""
    lower = _lower_case_addresses(text)
    if not lower:
        return found
    # ``found`` is sorted and free of overlaps, so its ends are sorted too: the rivals of
    # an address are one slice, found by bisection (a long document holds thousands)
    starts = [b.start for b in found]
    ends = [b.end for b in found]
    dropped: set[int] = set()
    kept = []
    for a in lower:
        lo, hi = bisect.bisect_right(ends, a.start), bisect.bisect_left(starts, a.end)
        if all(found[i].end - found[i].start < a.end - a.start for i in range(lo, hi)):
            dropped.update(range(lo, hi))
            kept.append(a)
    out = [b for i, b in enumerate(found) if i not in dropped] + kept
    return sorted(out, key=lambda a: a.start)


def _is_type(word: str) -> bool:
    """Whether ``word`` is an English street type ("St", "Ramble"), in any case."""
    return word.rstrip(".").casefold() in _TYPE_WORDS


def _cues(text: str) -> list[re.Match[str]]:
    """``_LOWER_CUE``'s matches, tried only where a word opens with a cue's stem (a
    substring scan per stem costs a tenth of the regex's scan of the whole text), in the
    lower-cased copy that the recognizers share, made once per text."""
    folded = text_features(text).lower
    if not folded:  # not ASCII: searched whole
        return list(_LOWER_CUE.finditer(text))
    starts = set()
    for stem in _LOWER_STEMS:
        i = folded.find(stem)
        while i >= 0:
            if i == 0 or not folded[i - 1].isalnum():
                starts.add(i)
            i = folded.find(stem, i + 1)
    return [m for i in sorted(starts) if (m := _LOWER_CUE.match(text, i)) is not None]


def _lower_case_addresses(text: str) -> list[_Address]:
    """Addresses in lower case after an address cue (see ``_LOWER_CUE``)."""
    out = []
    cues = _cues(text)
    for k, cue in enumerate(cues):
        start = cue.end()
        if not text[start : start + 40].islower():
            continue  # written with capitals: the grammar has read it already
        # the window ends where the next cue begins: that is another address's
        stop = cues[k + 1].start() if k + 1 < len(cues) else len(text)
        w = _LOWER_WINDOW.match(text, start, max(start, stop))
        if w is None:
            continue
        window = _capitalised(w.group())
        # where the address ends is not known: capitals put back on the chat after it
        # ("... Henderson Ramble Lol") would lengthen the street's name, where a street
        # type must end it. So the grammar reads the whole window and the window cut after
        # its last street type; the longer address from the window's start is kept (two
        # reads a cue, of a window that ends at the next cue: a megabyte of nothing but
        # such addresses took 2.5 s, the same written with capitals 7 s, timed by hand)
        best = None
        cut = max(
            (m.end() for m in _LOWER_TOKEN.finditer(window) if _is_type(m.group())), default=0
        )
        for part in (window, window[:cut]) if 0 < cut < len(window) else (window,):
            a = next(iter(_addresses(part)), None)
            if a is not None and a.start == 0 and (best is None or a.end > best.end):
                best = a
        if best is not None:
            pattern = best.pattern + "+lower_case"
            out.append(
                _Address(start, start + best.end, pattern, best.composite, best.country, best.weak)
            )
    return out


def address_shape(value: str) -> tuple[bool, str | None]:
    """(is a full postal address, country of its format) for a ``STREET_ADDRESS`` value.

    Examples
    --------
    >>> address_shape("10 Downing Street, London SW1A 2AA")
    (True, 'GB')
    >>> address_shape("123 Main St")
    (False, None)
    """
    if value.islower():
        value = _capitalised(value)  # "12 high street, oxford ox1 2jd"
    found = [a for a in _addresses(value) if a.start == 0]
    if not found:
        return False, None
    return found[0].composite, found[0].country


def address_layout(value: str) -> str | None:
    """The pattern that reads ``value`` as an address from its start ("en+region",
    "romance+town_country", ...), or ``None``.

    Examples
    --------
    >>> address_layout("Rua Augusta 100\\nLisboa\\nPortugal")
    'romance+town_country'
    """
    if value.islower():
        value = _capitalised(value)
    found = [a for a in _addresses(value) if a.start == 0]
    return found[0].pattern if found else None
