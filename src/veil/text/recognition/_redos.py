"""Regexes whose backtracking can take exponential time (ReDoS), refused before any text
is read.

Python's ``re`` backtracks: a pattern that can match one stretch of text in many ways
tries them all when the rest of the match fails, and a few hundred characters then take
longer than the age of the universe. Two shapes cause it, and both are found here on the
parsed pattern (never by running it):

* **nested quantifiers**: a repeated group (``*``, ``+``, ``{n,}`` or more than
  :data:`_MANY` times) holding a variable repeat, with nothing in the group that the inner
  repeat cannot match to separate one round from the next: ``(a+)+``, ``(.*)*``,
  ``(\\w+\\s?)*``. ``(\\d+\\.)+`` is safe: each round ends at a dot, which ``\\d`` cannot
  match.
* **ambiguous alternatives**: a repeated group whose alternatives can start with the same
  character, or can both match nothing: ``(a|a)*``, ``(\\d|\\w)+``, ``(a|)*``.

The check is conservative (it may refuse a pattern that a smarter engine runs in linear
time) and says how to rewrite it. Messages name the shape, never the pattern's text.
"""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _sre  # type: ignore[import-not-found]
from collections.abc import Iterable
from typing import Any

__all__ = ["catastrophic_regex"]

# an outer repeat of more rounds than this counts as unbounded
_MANY = 10
# the characters sets are compared on: Latin-1 and a few others (a word, a digit, a space
# of other scripts), enough to tell classes apart
_UNIVERSE = frozenset(map(chr, range(0x250))) | frozenset("中٣\u2003ß")
_CATEGORIES = {
    _c.CATEGORY_DIGIT: lambda ch: ch.isdecimal(),
    _c.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
    _c.CATEGORY_SPACE: lambda ch: ch.isspace(),
    _c.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    _c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    _c.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_LOOK = {_c.ASSERT, _c.ASSERT_NOT}


def _fold(chars: Iterable[str], ignore_case: bool) -> frozenset[str]:
    out = set(chars)
    if ignore_case:
        out |= {c.swapcase() for c in out if len(c.swapcase()) == 1}
    return frozenset(out)


def _class_chars(items: list[tuple[Any, Any]], ignore_case: bool) -> frozenset[str]:
    negate = False
    chars: set[str] = set()
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            chars.add(chr(av))
        elif op is _c.RANGE:
            lo, hi = av
            chars.update(c for c in _UNIVERSE if lo <= ord(c) <= hi)
        elif op is _c.CATEGORY:
            test = _CATEGORIES.get(av)
            chars.update(_UNIVERSE if test is None else (c for c in _UNIVERSE if test(c)))
    folded = _fold(chars, ignore_case)
    return _UNIVERSE - folded if negate else folded


def _chars(items: Any, ic: bool) -> frozenset[str]:
    """Every character a (sub)pattern can match anywhere."""
    out: set[str] = set()
    for op, av in items:
        if op is _c.LITERAL:
            out |= _fold(chr(av), ic)
        elif op is _c.NOT_LITERAL:
            out |= _UNIVERSE - _fold(chr(av), ic)
        elif op is _c.ANY:
            out |= _UNIVERSE - {"\n"}
        elif op is _c.IN:
            out |= _class_chars(av, ic)
        elif op in _REPEATS:
            out |= _chars(av[2], ic)
        elif op is _c.SUBPATTERN:
            out |= _chars(av[3], ic)
        elif op is _c.BRANCH:
            for alt in av[1]:
                out |= _chars(alt, ic)
        elif op is _c.GROUPREF or op is _c.GROUPREF_EXISTS:
            out |= _UNIVERSE
    return frozenset(out)


def _nullable(items: Any) -> bool:
    """Whether a (sub)pattern can match the empty string."""
    for op, av in items:
        if op in _REPEATS:
            if av[0] > 0 and not _nullable(av[2]):
                return False
        elif op is _c.SUBPATTERN:
            if not _nullable(av[3]):
                return False
        elif op is _c.BRANCH:
            if not any(_nullable(alt) for alt in av[1]):
                return False
        elif op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
            return False
    return True


def _first(items: Any, ic: bool) -> frozenset[str]:
    """The characters a (sub)pattern's match can start with."""
    out: set[str] = set()
    for op, av in items:
        if op in (_c.AT, *_LOOK):
            continue
        if op in _REPEATS:
            out |= _first(av[2], ic)
            if av[0] > 0 and not _nullable(av[2]):
                return frozenset(out)
            continue
        if op is _c.SUBPATTERN:
            out |= _first(av[3], ic)
            if not _nullable(av[3]):
                return frozenset(out)
            continue
        if op is _c.BRANCH:
            for alt in av[1]:
                out |= _first(alt, ic)
            if not any(_nullable(alt) for alt in av[1]):
                return frozenset(out)
            continue
        return frozenset(out | _chars([(op, av)], ic))
    return frozenset(out)


def _flat(items: Any) -> list[tuple[Any, Any]]:
    """A sequence with its plain groups opened ("(a)(b)" -> "ab")."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op is _c.SUBPATTERN:
            out.extend(_flat(av[3]))
        else:
            out.append((op, av))
    return out


def _variable_repeats(items: Any) -> list[Any]:
    """The repeats of varying length inside a (sub)pattern, outside lookarounds."""
    found = []
    for op, av in items:
        if op in _REPEATS:
            if av[0] != av[1]:
                found.append(av)
            found.extend(_variable_repeats(av[2]))
        elif op is _c.SUBPATTERN:
            found.extend(_variable_repeats(av[3]))
        elif op is _c.BRANCH:
            for alt in av[1]:
                found.extend(_variable_repeats(alt))
    return found


def _ambiguous_branch(items: Any, ic: bool) -> bool:
    for op, av in items:
        if op is _c.BRANCH:
            alts = av[1]
            if sum(_nullable(a) for a in alts) > 1:
                return True
            firsts = [_first(a, ic) for a in alts]
            for i, a in enumerate(firsts):
                if any(a & b for b in firsts[i + 1 :]):
                    return True
            if any(_ambiguous_branch(a, ic) for a in alts):
                return True
        elif op is _c.SUBPATTERN and _ambiguous_branch(av[3], ic):
            return True
    return False


def _check(items: Any, ic: bool) -> str | None:
    for op, av in items:
        if op in _REPEATS:
            _, hi, body = av
            if hi == _c.MAXREPEAT or hi > _MANY:
                inner = _variable_repeats(body)
                if inner:
                    taken = frozenset().union(*(_chars(r[2], ic) for r in inner))
                    separated = any(
                        iop in (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY)
                        and not (_chars([(iop, iav)], ic) & taken)
                        for iop, iav in _flat(body)
                    )
                    if not separated:
                        return "nested quantifiers"
                if _ambiguous_branch(body, ic) or (
                    _nullable(body) and body and any(o is _c.BRANCH for o, _ in _flat(body))
                ):
                    return "alternatives that can match the same text"
            reason = _check(body, ic)
            if reason:
                return reason
        elif op is _c.SUBPATTERN or op in _LOOK:
            reason = _check(av[3] if op is _c.SUBPATTERN else av[1], ic)
            if reason:
                return reason
        elif op is _c.BRANCH:
            for alt in av[1]:
                reason = _check(alt, ic)
                if reason:
                    return reason
    return None


def catastrophic_regex(regex: str, flags: int = 0) -> str | None:
    """Why ``regex`` may backtrack for exponential time (the shape, never its text), or
    ``None`` when it has neither shape of the module docstring.

    Examples
    --------
    >>> catastrophic_regex(r"(a+)+"), catastrophic_regex(r"(a|a)*")
    ('nested quantifiers', 'alternatives that can match the same text')
    >>> catastrophic_regex(r"(?:\\d+\\.)+\\d+"), catastrophic_regex(r"\\bE-\\d{6}\\b")
    (None, None)
    """
    parsed = _sre.parse(regex, flags)
    ic = bool((flags | parsed.state.flags) & re.IGNORECASE) or "(?i" in regex
    return _check(list(parsed), ic)
