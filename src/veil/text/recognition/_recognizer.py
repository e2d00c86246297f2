"""Declarative recognizers: patterns, whole-word context words, validate/invalidate hooks.

A :class:`PatternRecognizer` is a list of :class:`Pattern` regexes plus optional context
words and two hooks. ``validate`` returns a rule name when a checksum or a structural rule
proves the candidate (the score becomes 1.0), ``None`` when it has no opinion, and
``invalidate`` returns ``True`` to drop a candidate (a failed checksum, an impossible area
number). Context words raise the score by ``context_boost`` when one of them appears as a
whole word within ``context_window`` characters before the span or ``context_after``
characters after it; "aged" does not match inside "managed". A recognizer with
``context_required=True`` reports only candidates that have context.
"""

from __future__ import annotations

import functools
import re
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _sre  # type: ignore[import-not-found]
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from veil._lazy import lazy_compile, set_scan_gate
from veil._registry import Registry
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._first_chars import with_first_chars, with_start_chars

__all__ = [
    "ContextMatcher",
    "Gate",
    "Pattern",
    "PatternRecognizer",
    "Recognizer",
    "recognizers",
]


class Recognizer:
    """Base of every recognizer: finds spans of one or more entity types in a text."""

    name: ClassVar[str] = "recognizer"
    entities: tuple[str, ...] = ()
    tier: int = 1
    #: a character every match contains; texts without it are skipped (speed)
    requires: str | None = None
    #: every match contains a digit; texts without one are skipped (speed)
    needs_digit: bool = False
    #: letter case carries the match (names): a text written in capitals is given to
    #: ``analyze`` in ordinary case, same length and offsets (``_lexicon.truecase``)
    reads_case: bool = False
    #: stands in for NER where it is off (regex-only mode); not run beside it
    replaces_ner: bool = False

    def analyze(self, text: str) -> list[Finding]:  # pragma: no cover - interface
        raise NotImplementedError

    def wants(self, entities: frozenset[str]) -> bool:
        return any(e in entities for e in self.entities)

    def gate(self) -> Gate | None:
        """What a text must hold for :meth:`analyze` to find anything in it (a provable
        condition, never a guess), or ``None`` to make no claim: the analyzer then calls
        :meth:`analyze` on every text."""
        return None


#: Built-in recognizer classes by name; ``TextAnalyzer`` instantiates what is needed.
recognizers: Registry[type[Recognizer]] = Registry("recognizer")


@dataclass(frozen=True, slots=True)
class Pattern:
    """One regex of a pattern recognizer.

    ``group`` selects the capture group that is the entity (0 = the whole match), so a
    pattern can include its own context ("aged 47" -> "47") without reporting it.
    ``context_required`` reports its matches only with one of the recognizer's context
    words near them, and skips the scan of a text that holds none.
    """

    name: str
    regex: str
    score: float
    group: int = 0
    flags: int = 0
    context_required: bool = False


@dataclass(frozen=True, slots=True)
class Needs:
    """What every match of a regex contains, read off the parsed regex (:func:`needs`).

    A text that lacks any of it cannot match, so the scan is skipped: a provable
    prefilter, not a heuristic, and it holds for policy-declared patterns too.
    """

    digits: int = 0  # at least this many digits (``\d``, ``[0-9]``, literal digits)
    run: int = 0  # ... of which at least this many consecutive
    strings: tuple[str, ...] = ()  # literal substrings, each at least 1 character
    ignorecase: bool = False  # compare ``strings`` with the text lower-cased
    anyof: tuple[tuple[str, ...], ...] = ()  # of each tuple, at least one string
    # a run of at least this many consecutive capitals A-Z and digits ("DE12345678"),
    # claimed only where it says more than ``run`` and no letter is matched in any case
    upper_run: int = 0

    def met_by(self, feats: TextFeatures) -> bool:
        if feats.digits < self.digits or feats.run < self.run:
            return False
        if feats.upper_run < self.upper_run:
            return False
        if self.ignorecase:
            if not feats.ascii:  # "ſ" matches "s" under IGNORECASE; str.lower() disagrees
                return True
            text = feats.lower
        else:
            text = feats.text
        for s in self.strings:  # plain loops, not all(): this runs per pattern and text
            if s not in text:
                return False
        for alternatives in self.anyof:
            for s in alternatives:
                if s in text:
                    break
            else:
                return False
        return True


@dataclass(frozen=True, slots=True)
class TextFeatures:
    """The facts about one text that :class:`Needs` is checked against."""

    text: str
    digits: int
    run: int
    ascii: bool
    lower: str
    upper_run: int = 0  # the longest run of capitals A-Z and digits

    @classmethod
    def of(cls, text: str) -> TextFeatures:
        runs = [len(r) for r in _DIGIT_RUNS.findall(text)]
        ascii_ = text.isascii()
        upper = max(map(len, _UPPER_RUNS.findall(text)), default=0)
        return cls(
            text, sum(runs), max(runs, default=0), ascii_, text.lower() if ascii_ else "", upper
        )


_DIGIT_RUNS = lazy_compile(r"\d+")
_UPPER_RUNS = lazy_compile(r"[A-Z\d]+")
# the last text seen and its features: every recognizer of an analyzer reads the same
# string object in turn, so its features are computed once (one tuple, swapped whole, so
# threads never see one text's features under another's name)
_LAST: tuple[str, TextFeatures] = ("", TextFeatures("", 0, 0, True, ""))
# the text seen before it: a note in capitals is read both as written and in ordinary case
# (``Recognizer.reads_case``), one recognizer after the other
_OTHER: tuple[str, TextFeatures] = _LAST


def scan(rx: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``rx.finditer(text)``, or nothing when the text lacks what every match contains
    (:func:`needs`): for recognizers that run their own regexes."""
    if not _needs_cached(rx.pattern, rx.flags).met_by(text_features(text)):
        return iter(())
    return rx.finditer(text)


def text_features(text: str) -> TextFeatures:
    """The features of ``text``, computed once for it and the text read before it."""
    global _LAST, _OTHER
    last = _LAST
    if last[0] is text:
        return last[1]
    other = _OTHER
    if other[0] is text:
        _OTHER, _LAST = last, other
        return other[1]
    feats = TextFeatures.of(text)
    _OTHER, _LAST = last, (text, feats)
    return feats


def _gated_scans(rx: re.Pattern[str]) -> dict[str, Callable[..., Any]] | None:
    """Stand-ins for ``rx``'s scanning methods (``search``, ``finditer``, ``findall``) that
    answer "no match" at once when the text is one :func:`text_features` last read and
    lacks what every match of ``rx`` contains (:func:`needs`); any other text is scanned as
    ever. ``None`` when every text may hold a match (nothing to gate).

    Installed on every lazily compiled pattern (:func:`veil._lazy.set_scan_gate`): most of
    the rule modules' patterns find nothing in most texts, and a text's features are read
    once while a scan costs the text's length. A match, and so a result, is never lost: a
    text that lacks what every match contains has no match, in whole or in part (``pos``,
    ``endpos``)."""
    # a pattern that starts with a choice of words scans faster with a look-ahead of their
    # first characters, and one that opens with an assertion with the set of characters
    # its matches start with (same matches: :mod:`veil.text.recognition._first_chars`)
    try:  # read once for all
        parsed = _sre.parse(rx.pattern, rx.flags)
    except (re.error, TypeError, ValueError, IndexError):
        return None
    ahead = with_first_chars(rx, parsed)
    fast = with_start_chars(ahead or rx) or ahead
    scans = fast or rx
    search, finditer, findall = scans.search, scans.finditer, scans.findall
    need = needs(rx.pattern, rx.flags, parsed)
    if not (need.digits or need.run or need.strings or need.anyof or need.upper_run):
        if fast is None:
            return None
        return {
            "search": search,
            "finditer": finditer,
            "findall": findall,
            "sub": fast.sub,
            "subn": fast.subn,
            "split": fast.split,
        }

    def gated_search(string: str, *args: Any, **kwargs: Any) -> re.Match[str] | None:
        last = _LAST
        if last[0] is not string:
            last = _OTHER
        if last[0] is string and not need.met_by(last[1]):
            return None
        return search(string, *args, **kwargs)

    def gated_finditer(string: str, *args: Any, **kwargs: Any) -> Iterator[re.Match[str]]:
        last = _LAST
        if last[0] is not string:
            last = _OTHER
        if last[0] is string and not need.met_by(last[1]):
            return iter(())
        return finditer(string, *args, **kwargs)

    def gated_findall(string: str, *args: Any, **kwargs: Any) -> list[Any]:
        last = _LAST
        if last[0] is not string:
            last = _OTHER
        if last[0] is string and not need.met_by(last[1]):
            return []
        return findall(string, *args, **kwargs)

    out: dict[str, Callable[..., Any]] = {
        "search": gated_search,
        "finditer": gated_finditer,
        "findall": gated_findall,
    }
    if fast is not None:
        out.update(sub=fast.sub, subn=fast.subn, split=fast.split)
    return out


@dataclass(slots=True)
class _Req:
    """What one node of a parsed regex forces: digits, the longest forced digit run,
    literal substrings, whether every character it can match is a digit, and its least
    length (to extend a digit run across it)."""

    digits: int = 0
    run: int = 0
    strings: frozenset[str] = frozenset()
    all_digit: bool = False
    min_len: int = 0
    # the literal text the node always is, when it is one fixed string (joins literals)
    literal: str | None = None
    # sets of strings of which each match holds at least one ("Jan|Feb|...|Dec")
    anyof: frozenset[frozenset[str]] = frozenset()
    # the same as ``run`` and ``all_digit`` for capitals A-Z and digits together
    urun: int = 0
    all_upper: bool = False


_ZERO_WIDTH = _Req(all_digit=True, literal="", all_upper=True)
_UNKNOWN = _Req()


def _is_digit_class(items: list[tuple[Any, Any]]) -> bool:
    c = _c
    if not items:
        return False
    for op, av in items:
        if op is c.CATEGORY and av is c.CATEGORY_DIGIT:
            continue
        if op is c.LITERAL and 48 <= av <= 57:
            continue
        if op is c.RANGE and av[0] >= 48 and av[1] <= 57:
            continue
        return False
    return True


def _is_upper_class(items: list[tuple[Any, Any]]) -> bool:
    """Whether every character of a class is a capital A-Z or a digit (``\\d``)."""
    c = _c
    if not items:
        return False
    for op, av in items:
        if op is c.CATEGORY and av is c.CATEGORY_DIGIT:
            continue
        if op is c.LITERAL and (48 <= av <= 57 or 65 <= av <= 90):
            continue
        if op is c.RANGE and ((av[0] >= 48 and av[1] <= 57) or (av[0] >= 65 and av[1] <= 90)):
            continue
        return False
    return True


def _seq(items: Any) -> _Req:
    """Requirements of a sequence of parsed nodes: every node must match, in order."""
    out = _Req(all_digit=True, literal="", all_upper=True)
    run = 0
    urun = 0
    strings: set[str] = set()
    pending = ""  # the literal text of the current stretch of fixed nodes

    def close() -> None:
        nonlocal pending
        if pending:
            strings.add(pending)
        pending = ""

    anyof: set[frozenset[str]] = set()
    for op, av in items:
        r = _node(op, av)
        out.digits += r.digits
        out.min_len += r.min_len
        strings |= r.strings
        anyof |= r.anyof
        if r.literal is not None:
            pending += r.literal
        else:
            close()
        if r.all_digit:
            run += r.min_len
        else:
            out.run = max(out.run, run, r.run)
            run = 0
            out.all_digit = False
        if r.all_upper:
            urun += r.min_len
        else:
            out.urun = max(out.urun, urun, r.urun)
            urun = 0
            out.all_upper = False
        if out.literal is not None:
            out.literal = out.literal + r.literal if r.literal is not None else None
    close()
    out.run = max(out.run, run)
    out.urun = max(out.urun, urun)
    out.strings = frozenset(strings)
    out.anyof = frozenset(anyof)
    return out


def _node(op: Any, av: Any) -> _Req:
    c = _c
    if op is c.LITERAL:
        ch = chr(av)
        digit = ch in "0123456789"
        upper = digit or "A" <= ch <= "Z"
        return _Req(
            int(digit), int(digit), frozenset(), digit, 1, ch, urun=int(upper), all_upper=upper
        )
    if op is c.IN:
        if av and av[0][0] is c.NEGATE:
            return _Req(min_len=1)
        digit = _is_digit_class(av)
        if len(av) == 1 and av[0][0] is c.LITERAL:
            return _node(c.LITERAL, av[0][1])
        upper = _is_upper_class(av)
        return _Req(int(digit), int(digit), frozenset(), digit, 1, urun=int(upper), all_upper=upper)
    if op in (c.ANY, c.NOT_LITERAL):
        return _Req(min_len=1)
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return _ZERO_WIDTH
    if op is c.SUBPATTERN:
        return _seq(av[-1])
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _seq(av)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        lo, _, sub = av
        r = _seq(sub)
        if lo == 0:
            return _Req(all_digit=r.all_digit, all_upper=r.all_upper)
        return _Req(
            digits=lo * r.digits,
            run=lo * r.min_len if r.all_digit else r.run,
            strings=r.strings,
            all_digit=r.all_digit,
            min_len=lo * r.min_len,
            literal=r.literal * lo if r.literal is not None and lo == av[1] else None,
            anyof=r.anyof,
            urun=lo * r.min_len if r.all_upper else r.urun,
            all_upper=r.all_upper,
        )
    if op is c.BRANCH:
        subs = [_seq(b) for b in av[1]]
        # a string is forced when every branch forces it or a string that contains it
        per = [s.strings | ({s.literal} if s.literal else set()) for s in subs]
        strings = frozenset(
            x for x in set().union(*per) if all(any(x in y for y in b) for b in per)
        )
        # and when each branch forces some string, the match holds one of them (the
        # longest of each branch: the rarer in text)
        best = [max(b, key=len, default="") for b in per]
        anyof = frozenset({frozenset(best)}) if all(best) and not strings else frozenset()
        return _Req(
            digits=min(s.digits for s in subs),
            run=min(s.run for s in subs),
            strings=strings,
            all_digit=all(s.all_digit for s in subs),
            min_len=min(s.min_len for s in subs),
            anyof=anyof,
            urun=min(s.urun for s in subs),
            all_upper=all(s.all_upper for s in subs),
        )
    return _UNKNOWN  # back-references, conditionals: no claim


def _local_ignorecase(items: Any) -> bool:
    """Whether any ``(?i:...)`` group sits in the parsed regex."""
    c = _c
    for op, av in items:
        if op is c.SUBPATTERN and av[1] & re.IGNORECASE:
            return True
        subs: list[Any] = []
        if op in (c.SUBPATTERN,):
            subs = [av[-1]]
        elif op is c.BRANCH:
            subs = list(av[1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            subs = [av[2]]
        elif op in (c.ASSERT, c.ASSERT_NOT):
            subs = [av[1]]
        elif op is getattr(c, "ATOMIC_GROUP", None):
            subs = [av]
        if any(_local_ignorecase(sub) for sub in subs):
            return True
    return False


# the only characters that match an ASCII letter under re.IGNORECASE (checked over all of
# Unicode in tests/unit/text/test_prefilter.py)
_FOLDS_TO_ASCII = frozenset("\u0130\u0131\u017f\u212a")  # İ ı ſ K (Kelvin)


_MAX_ANYOF = 24  # alternatives in one set: "Jan|...|Dec" is tested, 80 street types are not


@functools.lru_cache(maxsize=1024)
def _needs_cached(regex: str, flags: int) -> Needs:
    return needs(regex, flags)


def needs(regex: str, flags: int = 0, parsed: Any = None) -> Needs:
    """What every match of ``regex`` contains (a lower bound; never more than is true);
    ``parsed`` is ``regex`` as ``re._parser.parse`` reads it, when the caller has it.

    Examples
    --------
    >>> needs(r"\\b\\d{3}-\\d{2}-\\d{4}\\b")
    Needs(digits=9, run=4, strings=('-',), ignorecase=False, anyof=(), upper_run=0)
    >>> needs(r"\\b[A-Z]{2}\\d{7}\\b").upper_run
    9
    >>> needs(r"(?:Jan|Feb|Mar)\\s+\\d+").anyof
    (('Feb', 'Jan', 'Mar'),)
    >>> needs(r"(?:aged|age of)\\s+(\\d{1,3})", re.IGNORECASE).strings
    ('age',)
    """
    try:
        if parsed is None:
            parsed = _sre.parse(regex, flags)
        r = _seq(list(parsed))
    except (re.error, TypeError, ValueError, IndexError):  # a parse tree of another shape
        # (a future Python's ``re._parser``): claim nothing rather than fail
        return Needs()
    # Letters under IGNORECASE (the whole regex or a ``(?i:...)`` group) are compared
    # lower-cased on both sides, which is also sound for case-sensitive parts. Only ASCII
    # texts are compared so (Needs.met_by): there a non-ASCII letter of the regex can match
    # nothing, except the four that fold to ASCII letters.
    ignorecase = bool(parsed.state.flags & re.IGNORECASE) or _local_ignorecase(parsed)
    if ignorecase:
        # a string with a letter that matches an ASCII letter under IGNORECASE ("ſ" matches
        # "s") cannot be compared lower-cased: left out; dropping one alternative would
        # make the test stricter than the regex, so its whole set goes
        strings = {s.lower() for s in r.strings if _FOLDS_TO_ASCII.isdisjoint(s)}
        anyof = {
            frozenset(s.lower() for s in alts)
            for alts in r.anyof
            if all(_FOLDS_TO_ASCII.isdisjoint(s) for s in alts)
        }
    else:
        strings = set(r.strings)
        anyof = set(r.anyof)
    return Needs(
        r.digits,
        r.run,
        tuple(sorted(strings, key=lambda s: (-len(s), s))),
        ignorecase,
        # a long list costs more to test than the scan it would skip
        tuple(sorted(tuple(sorted(alts)) for alts in anyof if len(alts) <= _MAX_ANYOF)),
        # under IGNORECASE "[A-Z]" matches small letters too; a run no longer than the
        # digit run says nothing more (every digit run is such a run)
        r.urun if not ignorecase and r.urun > r.run else 0,
    )


@dataclass(frozen=True, slots=True)
class Gate:
    """When a :class:`PatternRecognizer` can find something in a text: the text holds
    ``requires`` (when set) and meets at least one of ``needs`` (one per pattern).

    :class:`~veil.text.TextAnalyzer` sorts recognizers out by the needs' digit counts
    once for each distinct pair of a text's digit count and longest digit run, not once
    for each text, and checks the rest on the text.
    """

    requires: str | None
    needs: tuple[Needs, ...]

    def open(self, text: str, feats: TextFeatures) -> bool:
        """Whether ``text`` (whose features are ``feats``) can hold a finding."""
        if self.requires is not None and self.requires not in text:
            return False
        return any(need.met_by(feats) for need in self.needs)


class ContextMatcher:
    """Whole-word, case-insensitive context words near a span.

    Examples
    --------
    >>> m = ContextMatcher(["age", "aged"])
    >>> m.find("patient aged 47", 13, 15)
    ('aged',)
    >>> m.find("she managed 47 staff", 12, 14)
    ()
    """

    def __init__(self, words: Iterable[str], before: int = 48, after: int = 24) -> None:
        self.words = tuple(sorted({w.lower() for w in words}, key=len, reverse=True))
        self.before = before
        self.after = after
        self._re = (
            re.compile(
                r"(?<![\w])(?:" + "|".join(re.escape(w) for w in self.words) + r")(?![\w])",
                re.IGNORECASE,
            )
            if self.words
            else None
        )
        # an ASCII word matches ASCII text, case aside, exactly where it is a substring of
        # the lower-cased text (IGNORECASE maps a non-ASCII "ſ" or "K" to ASCII letters, so
        # a non-ASCII word or text is not tested this way: :meth:`possible` says True)
        self._ascii = all(w.isascii() for w in self.words)

    def anywhere(self, text: str) -> bool:
        """Whether a context word occurs anywhere in ``text``."""
        return self._re is not None and self._re.search(text) is not None

    def possible(self, text: str) -> bool:
        """``False`` only when :meth:`find` finds nothing in ``text`` whatever the span: no
        context word occurs in it, not even inside a longer word (the end of
        :meth:`find`'s window may cut "plates" to "plate")."""
        if self._re is None:
            return False
        if not self._ascii:
            return True
        feats = text_features(text)
        if not feats.ascii:
            return True
        lower = feats.lower
        return any(w in lower for w in self.words)

    def find(self, text: str, start: int, end: int) -> tuple[str, ...]:
        if self._re is None:
            return ()
        lo = max(0, start - self.before)
        hits = [m.group(0).lower() for m in self._re.finditer(text, lo, start)]
        if self.after:
            hits += [m.group(0).lower() for m in self._re.finditer(text, end, end + self.after)]
        return tuple(dict.fromkeys(hits))


def _fast(rx: re.Pattern[str]) -> re.Pattern[str]:
    """``rx``, or the same pattern made to scan faster: with a look-ahead of its first
    characters, and the set of them given to ``re``'s search
    (:func:`~veil.text.recognition._first_chars.with_first_chars`,
    :func:`~veil.text.recognition._first_chars.with_start_chars`)."""
    ahead = with_first_chars(rx) or rx
    return with_start_chars(ahead) or ahead


class PatternRecognizer(Recognizer):
    """Regex recognizer with context words and validation hooks (see the module docstring).

    Subclasses set the class attributes; instances may override them through the
    constructor, which is how policy-declared recognizers are built.

    Examples
    --------
    >>> r = PatternRecognizer(
    ...     entity="EMPLOYEE_ID", patterns=[Pattern("emp", r"\\bE-\\d{6}\\b", 0.6)],
    ...     context=["employee"], name="employee_id")
    >>> [(f.start, f.end, round(f.score, 2)) for f in r.analyze("employee E-123456 left")]
    [(9, 17, 0.95)]
    """

    entity: ClassVar[str] = ""
    #: set ``True`` in a subclass whose ``analyze`` override only filters, trims or
    #: rescores what ``super().analyze`` found: its texts can then be sorted out by the
    #: patterns' needs (:meth:`gate`). An override that finds more (a password near its
    #: word, a card searched digit group by digit group) leaves it unset, and so does
    #: every subclass of it that does not set it again itself.
    pattern_bound: ClassVar[bool] = False
    patterns: Sequence[Pattern] = ()
    context: Sequence[str] = ()
    context_required: bool = False
    context_boost: float = 0.35
    context_window: int = 48
    context_after: int = 24

    def __init__(
        self,
        *,
        entity: str | None = None,
        patterns: Sequence[Pattern] | None = None,
        context: Sequence[str] | None = None,
        context_required: bool | None = None,
        name: str | None = None,
        tier: int | None = None,
    ) -> None:
        if entity is not None:
            self.entity = entity  # type: ignore[misc]
        if patterns is not None:
            self.patterns = tuple(patterns)
        if context is not None:
            self.context = tuple(context)
        if context_required is not None:
            self.context_required = context_required
        if name is not None:
            self.name = name  # type: ignore[misc]
        if tier is not None:
            self.tier = tier
        self.entities = (self.entity,)
        self._compiled = [(p, _needs_cached(p.regex, p.flags)) for p in self.patterns]
        # per pattern: the digit counts its needs ask, and the needs themselves when they
        # ask more than digits (checked inline: most patterns of most texts stop there)
        self._digit_needs = [
            (n.digits, n.run, n if n.strings or n.anyof or n.upper_run else None)
            for _, n in self._compiled
        ]
        # A class's own patterns compile when a text first meets their needs: most never
        # do in a short run, and compiling all of them was a good part of the start-up of
        # 'veil text detect'. Patterns given to the constructor compile here, so that a
        # bad regex fails where it is given.
        given = patterns is not None
        self._regexes: list[re.Pattern[str] | None] = [
            _fast(re.compile(p.regex, p.flags)) if given else None for p in self.patterns
        ]
        self._context = ContextMatcher(self.context, self.context_window, self.context_after)

    # hooks ---------------------------------------------------------------------------
    #: a check digit rule, ``(name, ok)``: a candidate that fails ``ok`` is dropped, one that
    #: passes is proven (score 1.0, ``validation`` = name); subclasses with more to say
    #: override the two hooks below instead
    checksum: ClassVar[tuple[str, Callable[[str], bool]] | None] = None

    def validate(self, value: str) -> str | None:
        """Name of the rule that proves ``value``, or ``None`` (no opinion)."""
        return self.checksum[0] if self.checksum is not None else None

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        """``True`` drops the candidate (failed checksum, impossible value)."""
        return self.checksum is not None and not self.checksum[1](value)

    def trim(self, text: str, start: int, end: int) -> int:
        """The end of the candidate once what the regex took past the value is cut off
        (a word after a grouped number); called before ``invalidate``."""
        return end

    def gate(self) -> Gate | None:
        """The patterns' needs (:class:`Needs`), with ``requires`` and ``needs_digit``:
        ``None`` when a class's ``analyze`` override may find what no pattern matched
        (see :attr:`pattern_bound`)."""
        for cls in type(self).__mro__:
            if cls is PatternRecognizer:
                break
            if "analyze" in cls.__dict__ and not cls.__dict__.get("pattern_bound", False):
                return None
        least = 1 if self.needs_digit else 0
        needs = tuple(
            need
            if need.digits >= least and need.run >= least
            else replace(need, digits=max(need.digits, least), run=max(need.run, least))
            for _, need in self._compiled
        )
        return Gate(self.requires, needs)

    # ----------------------------------------------------------------------------------
    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if self.requires is not None and self.requires not in text:
            return out
        feats = text_features(text)
        digits, run = feats.digits, feats.run
        if self.needs_digit and not digits:
            return out
        if self.context_required and not self._context.possible(text):
            return out  # every finding needs a context word near it, and none is there
        seen: set[tuple[int, int]] = set()
        has_context: bool | None = None
        for i, (least, least_run, need) in enumerate(self._digit_needs):
            # the text lacks what every match contains
            if digits < least or run < least_run or (need is not None and not need.met_by(feats)):
                continue
            pattern = self._compiled[i][0]
            if pattern.context_required:
                if has_context is None:
                    has_context = self._context.possible(text) and self._context.anywhere(text)
                if not has_context:
                    continue
            rx = self._regexes[i]
            if rx is None:
                rx = self._regexes[i] = _fast(re.compile(pattern.regex, pattern.flags))
            for m in rx.finditer(text):
                start, end = m.span(pattern.group)
                if start >= 0:
                    end = self.trim(text, start, end)
                if start < 0 or start == end or (start, end) in seen:
                    continue
                value = text[start:end]
                if self.invalidate(value, text, start, end):
                    continue
                score = pattern.score
                rule = self.validate(value)
                if rule is not None:
                    score = 1.0
                words = self._context.find(text, start, end)
                if (self.context_required or pattern.context_required) and not words:
                    continue
                if words and rule is None:
                    score = min(1.0, score + self.context_boost)
                seen.add((start, end))
                out.append(
                    Finding(
                        start,
                        end,
                        self.entity,
                        score,
                        self.name,
                        self.tier,
                        Explanation(self.name, pattern.name, pattern.score, score, words, rule),
                    )
                )
        return out


set_scan_gate(_gated_scans)
