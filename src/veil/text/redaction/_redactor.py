"""Detect and replace: a :class:`TextAnalyzer` plus an :class:`Operator`.

Name variants: within one document, a PERSON mention whose words are all words of a
longer PERSON mention ("Smith" and "John" of "John Smith"; titles are never part of a
span, so "Mr. Smith" is "Mr." + "Smith") is linked to it and shares its replacement:
the same number (``<PERSON_1>``), the same hash, and with ``surrogate`` the matching part
of the same fake name ("John Smith" -> "Alan Brown", "Mr. Smith" -> "Mr. Brown"). Mentions
that could belong to two different longer names are linked to the first in the text.

Same value, same fate: once a value is found as PII somewhere in a document, every other
occurrence of exactly that string in the document (as a whole token: no letter or digit on
either side, at least 4 characters) is replaced too, even where its context alone would not
have flagged it ("192.168.0.17 ... version 192.168.0.17"). The added findings carry the
recognizer ``same-value`` and the original's type, score and tier.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from veil.text.detection._analyzer import TextAnalyzer
from veil.text.recognition._finding import Finding
from veil.text.replacement._operators import Operator, SurrogateOperator

__all__ = ["Redaction", "TextRedactor", "link_names"]


@dataclass
class Redaction:
    """A redacted text and the findings that were replaced (offsets into the original)."""

    text: str | None
    findings: list[Finding] = field(default_factory=list)


def _words(name: str) -> list[str]:
    return [w.strip(".,") for w in name.split() if w.strip(".,")]


def link_names(names: Sequence[str]) -> dict[str, str]:
    """Map each PERSON mention to the longest mention it is a variant of (itself if none).

    Examples
    --------
    >>> link_names(["John Smith", "Smith", "John", "Mary Jones", "Jones"])["Smith"]
    'John Smith'
    >>> link_names(["John Smith", "Smith", "John", "Mary Jones", "Jones"])["Jones"]
    'Mary Jones'
    """
    order = list(dict.fromkeys(names))
    full = sorted(order, key=lambda n: -len(_words(n)))
    canon: dict[str, str] = {}
    for name in order:
        ws = {w.casefold() for w in _words(name)}
        best = name
        for cand in full:
            cws = [w.casefold() for w in _words(cand)]
            if len(cws) <= len(ws):
                break
            if ws and ws <= set(cws):
                best = cand
                break
        canon[name] = best
    return canon


log = logging.getLogger(__name__)

_MIN_PROPAGATE = 4  # shorter values ("Al", "12") are too likely to recur by chance
#: characters scanned per document for repeats; past it (a huge document with thousands of
#: distinct findings) the remaining, shortest values are not propagated and a warning says so
PROPAGATE_BUDGET = 500_000_000


def same_value_findings(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` plus every other whole-token occurrence of a found value, in text order."""
    if not findings:
        return list(findings)
    starts = sorted(f.start for f in findings)
    ends = {f.start: f.end for f in findings}
    added: list[Finding] = []
    seen: set[str] = set()
    budget = PROPAGATE_BUDGET
    for f in sorted(findings, key=lambda f: f.start - f.end):  # longest values first
        value = text[f.start : f.end]
        if len(value) < _MIN_PROPAGATE or value in seen or not any(c.isalnum() for c in value):
            continue
        if budget < len(text):
            log.warning("same-value propagation stopped early on a very large document")
            break
        budget -= len(text)
        seen.add(value)
        pos = text.find(value)
        while pos >= 0:
            end = pos + len(value)
            whole = (pos == 0 or not text[pos - 1].isalnum()) and (
                end == len(text) or not text[end].isalnum()
            )
            i = bisect.bisect_left(starts, end)  # spans starting before our end
            free = i == 0 or ends[starts[i - 1]] <= pos
            if whole and free:
                bisect.insort(starts, pos)
                ends[pos] = end
                added.append(dataclasses.replace(f, start=pos, end=end, recognizer="same-value"))
            pos = text.find(value, pos + 1)
    if not added:
        return list(findings)
    return sorted([*findings, *added], key=lambda f: f.start)


class TextRedactor:
    """Replaces what the analyzer finds with what the operator gives.

    Examples
    --------
    >>> from veil.text import TextAnalyzer, make_operator
    >>> r = TextRedactor(TextAnalyzer.from_config(ner=False), make_operator("placeholder"))
    >>> r.redact("Write to jo@example.com").text
    'Write to <EMAIL_ADDRESS>'
    """

    def __init__(self, analyzer: TextAnalyzer, operator: Operator, *, link: bool = True) -> None:
        self.analyzer = analyzer
        self.operator = operator
        self.link = link and operator.links_names
        self.counts: Counter[str] = Counter()

    def apply(self, text: str, findings: Sequence[Finding]) -> str:
        """Replace ``findings`` (non-overlapping, as the analyzer returns them) in ``text``."""
        op = self.operator
        op.reset()
        replacements: dict[int, str] = {}
        persons = [f for f in findings if f.entity_type == "PERSON"]
        if self.link and persons:
            values = [text[f.start : f.end] for f in persons]
            canon = link_names(values)
            if isinstance(op, SurrogateOperator):
                for f, v in zip(persons, values, strict=True):
                    c = canon[v]
                    cws = _words(c)
                    parts = op.person_parts(c, len(cws))
                    index = {w.casefold(): i for i, w in enumerate(cws)}
                    words = v.split()
                    out = []
                    for w in words:
                        core = w.strip(".,")
                        i = index.get(core.casefold())
                        rep = parts[i] if i is not None else op.replace(core, "PERSON")
                        if len(core) == 1 and core.isalpha():
                            rep = rep[:1].upper()  # an initial stays one: "Wulf G Wernecke"
                        elif core.isupper() and len(core) > 1:
                            rep = rep.upper()
                        out.append(w.replace(core, rep) if core else w)
                    replacements[f.start] = " ".join(out)
            else:
                for f, v in zip(persons, values, strict=True):
                    replacements[f.start] = op.replace(canon[v], "PERSON")
        parts_out: list[str] = []
        pos = 0
        for f in findings:
            parts_out.append(text[pos : f.start])
            linked = replacements.get(f.start) if f.entity_type == "PERSON" else None
            parts_out.append(
                linked if linked is not None else op.replace(text[f.start : f.end], f.entity_type)
            )
            pos = f.end
            self.counts[f.entity_type] += 1
        parts_out.append(text[pos:])
        return "".join(parts_out)

    def redact(self, text: str | None) -> Redaction:
        if not text:
            return Redaction(text, [])
        findings = same_value_findings(text, self.analyzer.analyze(text))
        return Redaction(self.apply(text, findings), findings)

    def redact_batch(
        self,
        texts: Sequence[str | None],
        *,
        batch_size: int = 256,
        n_process: int = 1,
        row_terms: Sequence[Sequence[tuple[str, str]]] | None = None,
    ) -> list[Redaction]:
        """Redact many texts; ``None`` and ``""`` are returned unchanged.

        ``row_terms`` gives, per text, ``(value, entity type)`` pairs replaced wherever they
        occur verbatim as whole words (the row's identifiers, see :mod:`veil.text.redaction._row_deny`).
        """
        from veil.text.redaction._row_deny import merge_row_findings, row_findings

        found = self.analyzer.analyze_batch(texts, batch_size=batch_size, n_process=n_process)
        out = []
        for i, (t, fs) in enumerate(zip(texts, found, strict=True)):
            if t and row_terms is not None and row_terms[i]:
                fs = merge_row_findings(fs, row_findings(t, row_terms[i]))
            if t:
                fs = same_value_findings(t, fs)
            out.append(Redaction(self.apply(t, fs) if t else t, fs))
        flush = getattr(self.operator, "flush", None)
        if flush is not None:
            flush()
        return out
