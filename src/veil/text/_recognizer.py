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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from veil._registry import Registry
from veil.text._finding import Explanation, Finding

__all__ = [
    "ContextMatcher",
    "Pattern",
    "PatternRecognizer",
    "Recognizer",
    "recognizers",
]


_DIGIT = re.compile(r"\d")


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

    def analyze(self, text: str) -> list[Finding]:  # pragma: no cover - interface
        raise NotImplementedError

    def wants(self, entities: frozenset[str]) -> bool:
        return any(e in entities for e in self.entities)


#: Built-in recognizer classes by name; ``TextAnalyzer`` instantiates what is needed.
recognizers: Registry[type[Recognizer]] = Registry("recognizer")


@dataclass(frozen=True, slots=True)
class Pattern:
    """One regex of a pattern recognizer.

    ``group`` selects the capture group that is the entity (0 = the whole match), so a
    pattern can include its own context ("aged 47" -> "47") without reporting it.
    """

    name: str
    regex: str
    score: float
    group: int = 0
    flags: int = 0


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

    def find(self, text: str, start: int, end: int) -> tuple[str, ...]:
        if self._re is None:
            return ()
        lo = max(0, start - self.before)
        hits = [m.group(0).lower() for m in self._re.finditer(text, lo, start)]
        if self.after:
            hits += [m.group(0).lower() for m in self._re.finditer(text, end, end + self.after)]
        return tuple(dict.fromkeys(hits))


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
        self._compiled = [(p, re.compile(p.regex, p.flags)) for p in self.patterns]
        self._context = ContextMatcher(self.context, self.context_window, self.context_after)

    # hooks ---------------------------------------------------------------------------
    def validate(self, value: str) -> str | None:
        """Name of the rule that proves ``value``, or ``None`` (no opinion)."""
        return None

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        """``True`` drops the candidate (failed checksum, impossible value)."""
        return False

    # ----------------------------------------------------------------------------------
    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if self.requires is not None and self.requires not in text:
            return out
        if self.needs_digit and _DIGIT.search(text) is None:
            return out
        seen: set[tuple[int, int]] = set()
        for pattern, rx in self._compiled:
            for m in rx.finditer(text):
                start, end = m.span(pattern.group)
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
                if self.context_required and not words:
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
