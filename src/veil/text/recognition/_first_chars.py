"""Regexes made to scan faster with the same matches: a look-ahead of the first letters of a
choice of words (:func:`with_first_chars`), and code compiled with the set of characters a
match starts with, case-sensitive first letters and joined alternatives
(:func:`with_start_chars`, see the comment above it).

Python's ``re`` tries a pattern at every position of a text. Where the pattern starts with
an alternation (``\\b(?:daughter|son|wife|...)``), each try enters every alternative in
turn, and under ``re.IGNORECASE`` no alternative can be ruled out by its first character
before it is entered: a scan of a note costs the text's length times the number of words.
:func:`with_first_chars` puts a look-ahead of the characters any match can start with in
front of such a pattern (``(?=[dsw])\\b(?:daughter|son|wife)``): most positions then fail on
one character test. The look-ahead asserts only what every match already holds at its
first character, so the matches, their spans and groups are the same; the first
characters are read off the parsed pattern, and a pattern whose start cannot be read so
(a class by category, a negated class, a back-reference, a match that may be empty) is
left as it is.

Examples
--------
>>> rx = re.compile(r"\\b(?:daughter|son|wife)\\s+(\\w+)", re.IGNORECASE)
>>> fast = with_first_chars(rx)
>>> fast.pattern.startswith("(?=[")
True
>>> [m.span(1) for m in fast.finditer("Spoke to SON Bob")] == [
...     m.span(1) for m in rx.finditer("Spoke to SON Bob")]
True
>>> with_first_chars(re.compile(r"\\d{3}-\\d{4}")) is None  # no alternation at its start
True
>>> with_first_chars(re.compile(r"\\b(?:son|wife)")) is None  # re rules them out already
True
"""

from __future__ import annotations

import _sre as _engine  # type: ignore[import-not-found]
import re
import re._compiler as _compiler  # type: ignore[import-not-found]
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _sre  # type: ignore[import-not-found]
import string
from typing import Any

__all__ = ["with_first_chars", "with_start_chars"]

# a start of at most this many characters and ranges is worth a look-ahead
_MAX_ITEMS = 64
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
# a group that sets or clears flags, IGNORECASE among them: "(?i:", "(?-i:", "(?i)"
_LOCAL_CASE = re.compile(r"\(\?[aiLmsux]*(?:-[aiLmsux]*)?[:)]")


class _Unknown(Exception):
    """The first characters of a part of the pattern cannot be listed."""


def _first(items: Any) -> tuple[set[tuple[int, int]], bool]:
    """The characters (as ranges ``(lo, hi)``) a match of the sequence ``items`` can start
    with, and whether the sequence can match the empty string."""
    out: set[tuple[int, int]] = set()
    for op, av in items:
        chars, nullable = _node(op, av)
        out |= chars
        if not nullable:
            return out, False
    return out, True


def _node(op: Any, av: Any) -> tuple[set[tuple[int, int]], bool]:
    c = _c
    if op is c.LITERAL:
        return {(av, av)}, False
    if op is c.IN:
        if len(av) > _MAX_ITEMS:
            raise _Unknown  # too many to be worth a look-ahead
        listed: set[tuple[int, int]] = set()
        for iop, iav in av:
            if iop is c.LITERAL:
                listed.add((iav, iav))
            elif iop is c.RANGE:
                listed.add((iav[0], iav[1]))
            else:  # NEGATE, CATEGORY: not listed
                raise _Unknown
        return listed, False
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return set(), True  # zero width: the match starts at the next part
    if op is c.SUBPATTERN:
        return _first(av[-1])
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _first(av)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        lo, _, sub = av
        chars, nullable = _first(sub)
        return chars, nullable or lo == 0
    if op is c.BRANCH:
        out: set[tuple[int, int]] = set()
        nullable = False
        for branch in av[1]:
            chars, empty = _first(branch)
            out |= chars
            nullable = nullable or empty
            if len(out) > _MAX_ITEMS:
                raise _Unknown
        return out, nullable
    raise _Unknown  # ANY, NOT_LITERAL, back-references, conditionals


def _starts_with_choice(items: Any, ignorecase: bool) -> bool:
    """Whether the first part that takes a character is an alternation that ``re`` tries
    one alternative at a time: under IGNORECASE, or with an alternative that starts with
    something other than a plain character or class (``re`` rules those out by their first
    character without entering them)."""
    c = _c
    for op, av in items:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        if op is c.SUBPATTERN:
            case = (ignorecase or bool(av[1] & re.IGNORECASE)) and not av[2] & re.IGNORECASE
            return _starts_with_choice(av[-1], case)
        if op is getattr(c, "ATOMIC_GROUP", None):
            return _starts_with_choice(av, ignorecase)
        if op is not c.BRANCH:
            return False
        return ignorecase or any(
            not branch or branch[0][0] not in (c.LITERAL, c.IN) for branch in av[1]
        )
    return False


def _class_item(lo: int, hi: int) -> str:
    def esc(n: int) -> str:
        return f"\\U{n:08x}" if n > 0xFFFF else f"\\u{n:04x}"

    return esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}"


def with_first_chars(rx: re.Pattern[str], parsed: Any = None) -> re.Pattern[str] | None:
    """``rx`` with a look-ahead of the characters its matches start with, or ``None`` when
    it does not start with an alternation or its first characters cannot be listed (see
    the module doc). Under ``re.IGNORECASE`` (the pattern's or a group's) the look-ahead
    ignores case too: a superset of what the pattern's first character can be.
    ``parsed`` is the pattern as ``re._parser.parse`` reads it, when the caller has it."""
    pattern, flags = rx.pattern, rx.flags
    if not isinstance(pattern, str) or "|" not in pattern:
        return None  # no alternation
    try:
        if parsed is None:
            parsed = _sre.parse(pattern, flags)
        if not _starts_with_choice(list(parsed), bool(parsed.state.flags & re.IGNORECASE)):
            return None
        chars, nullable = _first(list(parsed))
    except (_Unknown, re.error, TypeError, ValueError, IndexError, AttributeError):
        return None
    if nullable or not chars or len(chars) > _MAX_ITEMS:
        return None
    cls = "[" + "".join(_class_item(lo, hi) for lo, hi in sorted(chars)) + "]"
    # any IGNORECASE in the pattern: the look-ahead ignores case (a superset)
    if not parsed.state.flags & re.IGNORECASE and any(
        "i" in m.group() for m in _LOCAL_CASE.finditer(pattern)
    ):
        cls = f"(?i:{cls})"
    lead = _GLOBAL_FLAGS.match(pattern)
    at = lead.end() if lead else 0
    try:
        fast = re.compile(f"{pattern[:at]}(?={cls}){pattern[at:]}", flags)
    except re.error:
        return None
    if fast.groups != rx.groups or fast.groupindex != rx.groupindex:
        return None
    return fast


# Start sets (with_start_chars): where a pattern opens with a zero-width assertion (``\b``, ``(?<![\w-])``),
# ``re`` knows no set of characters its matches start with, and its search enters the
# pattern at every position of the text (a C call each); given one in the compiled code's
# info block, the block ``re`` itself writes for a pattern that opens with a class, the
# search steps over the characters outside it in a tight loop and enters the pattern only
# where a match can start. The set is the one ``re`` would read off the first class if the
# assertions were not before it. The same compilation also rewrites choices of words, whose
# alternatives ``re`` tries one after the other at each such position: under IGNORECASE
# each opens with a case-sensitive class of its first letter (:func:`_sensitive_choices`),
# which ``re`` tests without entering the alternative, and those that open with the same
# literal are joined behind it (:func:`_factor`). The pattern is compiled from its parse
# tree so changed, with ``re``'s own compiler.

# the categories a start set may hold: few characters, and none of them has a case
_SET_CATEGORIES = frozenset((_c.CATEGORY_DIGIT, _c.CATEGORY_SPACE))
# the only characters other than ASCII letters that match one under re.IGNORECASE (the
# dotted and dotless i, the long s, the Kelvin sign; tests/unit/text/test_prefilter.py)
_FOLD_TO_ASCII = (0x130, 0x131, 0x17F, 0x212A)


def _start_items(items: Any) -> tuple[list[tuple[Any, Any]], bool]:
    """The class items (``LITERAL``, ``RANGE``, digit or space ``CATEGORY``) of which the
    first character of a match of the sequence ``items`` is one, case aside, and whether
    the sequence can match the empty string."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        got, nullable = _start_node(op, av)
        out += got
        if not nullable:
            return out, False
    return out, True


def _start_node(op: Any, av: Any) -> tuple[list[tuple[Any, Any]], bool]:
    c = _c
    if op is c.LITERAL:
        return [(c.LITERAL, av)], False
    if op is c.IN:
        listed = []
        for iop, iav in av:
            if iop is c.LITERAL or iop is c.RANGE:
                listed.append((iop, iav))
            elif iop is c.CATEGORY and iav in _SET_CATEGORIES:
                listed.append((iop, iav))
            else:  # NEGATE, a class by another category: most characters
                raise _Unknown
        return listed, False
    if op is c.ASSERT and av[0] == 1:
        # a look-ahead that takes a character: the match starts with one it starts with
        try:
            ahead, empty = _start_items(av[1])
        except _Unknown:
            return [], True
        return (ahead, False) if ahead and not empty else ([], True)
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return [], True  # zero width: the match starts at the next part
    if op is c.SUBPATTERN:
        return _start_items(av[-1])
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _start_items(av)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        got, nullable = _start_items(av[2])
        return got, nullable or av[0] == 0
    if op is c.BRANCH:
        out: list[tuple[Any, Any]] = []
        nullable = False
        for branch in av[1]:
            got, empty = _start_items(branch)
            out += got
            nullable = nullable or empty
        return out, nullable
    raise _Unknown  # ANY, NOT_LITERAL, back-references, conditionals


def _any_ignorecase(items: Any) -> bool:
    """Whether a group of the parsed pattern sets IGNORECASE (``(?i:...)``)."""
    c = _c
    for op, av in items:
        if op is c.SUBPATTERN:
            if av[1] & re.IGNORECASE or _any_ignorecase(av[-1]):
                return True
        elif op is c.BRANCH:
            if any(_any_ignorecase(b) for b in av[1]):
                return True
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            if _any_ignorecase(av[2]):
                return True
        elif op in (c.ASSERT, c.ASSERT_NOT):
            if _any_ignorecase(av[1]):
                return True
        elif op is getattr(c, "ATOMIC_GROUP", None) and _any_ignorecase(av):
            return True
    return False


def _caseless(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]] | None:
    """``items`` with every character that matches one of them under IGNORECASE, or
    ``None`` when one is not ASCII (its case partners are not listed here)."""
    c = _c
    more: list[tuple[Any, Any]] = []
    letters = False
    for op, av in items:
        if op is c.CATEGORY:
            continue  # digits and spaces have no case
        lo, hi = (av, av) if op is c.LITERAL else av
        if op is c.LITERAL and av in _FOLD_TO_ASCII:
            # a letter's partner ("ſ" of "s"): the letters it matches, and its fellows
            rx = re.compile(re.escape(chr(av)), re.IGNORECASE)
            more += [(c.LITERAL, ord(a)) for a in string.ascii_letters if rx.fullmatch(a)]
            letters = True
            continue
        if hi > 0x7F:
            return None
        for code in range(lo, hi + 1):
            ch = chr(code)
            if ch.isalpha():
                letters = True
                more.append((c.LITERAL, ord(ch.swapcase())))
    if letters:
        more += [(c.LITERAL, code) for code in _FOLD_TO_ASCII]
    return items + more


def _closure(code: int, flags: int) -> list[int] | None:
    """The characters that the ASCII letter ``code`` matches under IGNORECASE (with the
    pattern's ``re.ASCII``, if set), or ``None`` for any other character."""
    ch = chr(code)
    if not (ch.isascii() and ch.isalpha()):
        return None
    rx = re.compile(re.escape(ch), re.IGNORECASE | (flags & re.ASCII))
    return sorted(
        ord(c) for c in {ch.lower(), ch.upper(), *map(chr, _FOLD_TO_ASCII)} if rx.fullmatch(c)
    )


def _sensitive_choices(items: Any, ignorecase: bool, flags: int, state: Any) -> bool:
    """Give every alternative that opens with a letter under IGNORECASE, in the parsed
    pattern ``items`` (changed in place), a case-sensitive class of the characters that
    letter matches (``(?-i:[gG])randson``): the same characters, but ``re`` tests a
    case-sensitive first character of each alternative before it enters it, where it
    enters every alternative that opens with a letter that ignores case (a jump and a
    save each: a choice of forty words costs forty of them at every word). Whether any
    alternative was changed."""
    c = _c
    changed = False
    for op, av in items:
        if op is c.SUBPATTERN:
            case = (ignorecase or bool(av[1] & re.IGNORECASE)) and not av[2] & re.IGNORECASE
            changed |= _sensitive_choices(av[-1], case, flags, state)
        elif op is c.BRANCH:
            changed |= _factor(av[1], ignorecase, state)
            for branch in av[1]:
                if ignorecase and branch.data and branch.data[0][0] is c.LITERAL:
                    chars = _closure(branch.data[0][1], flags)
                    if chars is not None:
                        listed = _sre.SubPattern(state, [(c.IN, [(c.LITERAL, k) for k in chars])])
                        branch.data[0] = (c.SUBPATTERN, (None, 0, re.IGNORECASE, listed))
                        changed = True
                changed |= _sensitive_choices(branch, ignorecase, flags, state)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            changed |= _sensitive_choices(av[2], ignorecase, flags, state)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            changed |= _sensitive_choices(av[1], ignorecase, flags, state)
        elif op is getattr(c, "ATOMIC_GROUP", None):
            changed |= _sensitive_choices(av, ignorecase, flags, state)
    return changed


def _first_key(branch: Any, ignorecase: bool) -> int | None:
    """What the first character of an alternative is, as a key that two alternatives
    share exactly when a character of the text can match both: its literal's code point
    (case-folded under IGNORECASE, where an ASCII literal matches no character that
    another ASCII literal of a different fold matches), or ``None`` (no literal first, or
    one that is not ASCII under IGNORECASE)."""
    if not branch.data or branch.data[0][0] is not _c.LITERAL:
        return None
    code: int = branch.data[0][1]
    if not ignorecase:
        return code
    return ord(chr(code).lower()) if code < 0x80 else None


def _factor(branches: list[Any], ignorecase: bool, state: Any) -> bool:
    """Alternatives that open with the same character, in ``branches`` (changed in
    place), joined behind it: ``son|wife|sister`` as ``s(?:on|ister)|wife``, so that
    ``re`` tests the character once, not once for each alternative. Alternatives keep
    their order among those that open with the same character, and one that opens with
    another can never match where they do, so the first to match is the same. An
    alternative that opens with no literal (:func:`_first_key`) may match where any other
    does: none is moved across it. Whether any was joined."""
    keys = [_first_key(b, ignorecase) for b in branches]
    if len({k for k in keys if k is not None}) == sum(k is not None for k in keys):
        return False  # no two open with the same literal
    out: list[Any] = []
    groups: dict[int, list[Any]] = {}

    def close() -> None:
        for group in groups.values():
            if len(group) == 1:
                out.append(group[0])
                continue
            rest = [_sre.SubPattern(state, list(b.data[1:])) for b in group]
            out.append(_sre.SubPattern(state, [group[0].data[0], (_c.BRANCH, (None, rest))]))
        groups.clear()

    for key, branch in zip(keys, branches, strict=True):
        if key is None:
            close()
            out.append(branch)
        else:
            groups.setdefault(key, []).append(branch)
    close()
    if len(out) == len(branches):
        return False
    branches[:] = out
    return True


def _start_info(parsed: Any, flags: int, code: list[Any]) -> list[Any] | None:
    """The info block of ``code`` (``parsed`` compiled) with the set of characters its
    matches start with, or ``None`` (see :func:`with_start_chars`)."""
    # INFO, skip, flags (prefix or charset known), least and most length
    if code[0] is not _c.INFO or code[2] or not code[3]:
        return None
    try:
        items, nullable = _start_items(list(parsed))
    except _Unknown:
        return None
    if nullable or not items:
        return None
    if parsed.state.flags & re.IGNORECASE or _any_ignorecase(list(parsed)):
        caseless = _caseless(items)
        if caseless is None:
            return None
        items = caseless
    charset, cased = _compiler._optimize_charset(items)
    if cased:
        return None
    info = [_c.INFO, 0, _c.SRE_INFO_CHARSET, code[3], code[4]]
    _compiler._compile_charset(charset, flags | parsed.state.flags, info)
    info[1] = len(info) - 1
    return info


def with_start_chars(rx: re.Pattern[str]) -> re.Pattern[str] | None:
    """``rx`` compiled to search faster, or ``None`` when nothing is to be gained: with
    the set of characters its matches start with in its info block (see above; not when
    ``re`` has one already, the pattern opening with a literal or a class not repeated,
    nor when a match may be empty or the set cannot be listed: a negated class, ``\\w``,
    ``.``, a character other than ASCII under IGNORECASE), and with case-sensitive first
    characters for its alternatives under IGNORECASE (:func:`_sensitive_choices`). The
    pattern's text, flags and groups are ``rx``'s; the same matches, spans and groups.

    Examples
    --------
    >>> rx = re.compile(r"(?<![\\w-])\\d{3}-\\d{4}(?![\\w-])")
    >>> fast = with_start_chars(rx)
    >>> fast.pattern == rx.pattern, fast.findall("call 555-1234 or x555-1234")
    (True, ['555-1234'])
    >>> with_start_chars(re.compile(r"#\\d+")) is None  # re skips to "#" already
    True
    """
    pattern, flags = rx.pattern, rx.flags
    if not isinstance(pattern, str) or flags & re.LOCALE:
        return None
    try:
        parsed = _sre.parse(pattern, flags)  # its own: the choices are changed in it
        ignorecase = bool(parsed.state.flags & re.IGNORECASE)
        sensitive = _sensitive_choices(parsed, ignorecase, flags | parsed.state.flags, parsed.state)
        code = _compiler._code(parsed, flags)
        info = _start_info(parsed, flags, code)
        if info is None and not sensitive:
            return None
        if info is not None:
            code = info + code[1 + code[1] :]
        groupindex = parsed.state.groupdict
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        fast: re.Pattern[str] = _engine.compile(
            pattern,
            flags | parsed.state.flags,
            code,
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
    except (re.error, TypeError, ValueError, IndexError, AttributeError, RuntimeError):
        return None  # another Python's internals: the pattern as compiled
    if fast.groups != rx.groups or fast.groupindex != rx.groupindex or fast.flags != rx.flags:
        return None
    return fast
