"""Release leak scan: is any original identifier value still in what a run releases?

After every stage of a run and before anything is written, every value of every column the
policy declares ``role: identifier`` is searched verbatim in every released column: the main
release and every other released table (the synthetic table). Two ways a value can leak:

* **same row**: the value is in the released row that came from its own input row (a text
  that still names its own patient, an identifier kept in clear);
* **across rows**: the value of some input row is in another released row (a text that names
  someone else in the table, a synthetic table that memorized an e-mail address).

What is searched, per identifier value (never written anywhere, only counted):

* the whole value, stripped of surrounding spaces and punctuation, as a whole-word match in
  a cell (or the cell itself); values shorter than :data:`MIN_LENGTH` characters are not
  scanned and are counted as ``skipped_short`` ("1" or "NY" would match everything);
* a value made only of digits and separators with fewer than :data:`MIN_DIGITS_ACROSS`
  digits (a 4-digit record number, a ZIP code) is searched in its own row only: across rows
  a short number is as likely a year or an amount (counted as ``same_row_only``);
* for name-like identifier columns (a name in the column name, or values that read as
  names), each whitespace part of at least :data:`MIN_NAME_PART` letters as a whole word
  ("Nancy" of "Nancy Smith"), in text columns (``role: text``, in the release and the
  synthetic table), in the same row and across rows. Not in category columns: there a
  surname such as "White" is also a label of ``race``.

An identifier column's own released column is searched only where a value there could not be
a protection's legitimate output: in full when it has no transform (released as is), in the
same row when a hash, token or mask should have changed every value, and not at all after a
generalizing transform (date generalization or shift, geo rounding or displacement, top and
bottom coding, noise), whose output may equal its input by design ("2024" is its own year) and
whose tokens of other rows coincide by chance.

Cells are split into word tokens once and token n-grams are looked up in a hash table of the
identifier values (distinct cells of a column are scanned once), so the scan is linear in
the released text and takes seconds on 50,000 rows.

The result is a JSON-able section: counts per source identifier column and released column,
never a value.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = [
    "MIN_DIGITS_ACROSS",
    "MIN_LENGTH",
    "MIN_NAME_PART",
    "LeakScan",
    "ReleasedTable",
    "check_release",
    "identifier_terms",
    "name_like",
    "scan_release",
]

#: values shorter than this (after stripping spaces and punctuation) are not scanned
MIN_LENGTH = 4
#: a value of digits and separators is searched across rows only with at least this many digits
MIN_DIGITS_ACROSS = 6
#: a part of a name is searched on its own when it has at least this many letters
MIN_NAME_PART = 3

_TOKEN = re.compile(r"\w+")
_EDGE = " \t\r\n\"'`.,;:!?()[]{}<>"
_NUMERIC = re.compile(r"^[\d\s().,:/+\-]+$")
_NAME_COLUMN = re.compile(
    r"(^|_)(first_?|last_?|full_?|given_?|family_?|middle_?|maiden_?|sur)?names?($|_)"
    r"|^(patient|customer|client|person|contact|employee)(_?name)?$"
)
_NAME_VALUE = re.compile(r"^[^\W\d_][^\W\d_'.\-]*(?:[ '\-][^\W\d_][^\W\d_'.\-]*){0,4}\.?$")
# Transforms whose every output value should differ from its input: an equal value in the
# same row means the protection did nothing.
_CHANGING = {"hash", "tokenize", "mask", "drop"}


def name_like(column: str, values: pd.Series) -> bool:
    """Whether an identifier column holds people's names (its name says so, or its values read
    as one to five capitalised words without digits)."""
    lname = column.lower().replace("-", "_").replace(" ", "_")
    if _NAME_COLUMN.search(lname):
        return True
    sample = values.dropna().astype(str).head(200)
    if not len(sample):
        return False
    looks = sample.map(lambda v: bool(_NAME_VALUE.match(v.strip())) and v.strip()[:1].isupper())
    return bool(looks.mean() > 0.8 and sample.str.contains(" ").mean() > 0.5)


def _core(value: str) -> str:
    return value.strip(_EDGE)


def _cell_text(value: Any) -> str | None:
    """The string a released or original cell is compared as (None for a missing value)."""
    import pandas as pd

    if value is None:
        return None
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    if isinstance(value, bytes):
        return None
    return str(value)


def name_parts(value: str) -> list[str]:
    """The whitespace parts of a name with at least :data:`MIN_NAME_PART` letters."""
    out = []
    for w in value.split():
        w = w.strip(_EDGE)
        if sum(c.isalpha() for c in w) >= MIN_NAME_PART and w not in out:
            out.append(w)
    return out


def identifier_terms(value: str, *, name: bool) -> list[tuple[str, str]]:
    """``(term, kind)`` searched for one identifier value: kind ``value`` or ``part``.

    Examples
    --------
    >>> identifier_terms("Nancy Ann Smith", name=True)
    [('Nancy Ann Smith', 'value'), ('Nancy', 'part'), ('Ann', 'part'), ('Smith', 'part')]
    >>> identifier_terms(" 42 ", name=False)
    []
    """
    core = _core(value)
    out: list[tuple[str, str]] = []
    if len(core) >= MIN_LENGTH:
        out.append((core, "value"))
    if name:
        out += [(p, "part") for p in name_parts(value) if p != core]
    return out


@dataclass
class ReleasedTable:
    """A released table and, for each of its rows, the input row it came from (-1: none)."""

    name: str  # "" for the main release, the artifact's file name otherwise
    data: pd.DataFrame
    origin: np.ndarray | None  # input row position per released row; None: no correspondence

    def label(self, column: str) -> str:
        return column if not self.name else f"{self.name}/{column}"


@dataclass
class _Source:
    column: str
    name: bool
    writer: str | None  # transform type that writes this column in the release, or None
    # term -> input row positions holding it, by search scope
    terms: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    across: set[str] = field(default_factory=set)  # terms also searched across rows
    parts: set[str] = field(default_factory=set)
    values: int = 0
    skipped_short: int = 0
    same_row_only: int = 0


@dataclass
class LeakScan:
    """Counts of a release leak scan (see the module docstring); never any value."""

    by_column: dict[str, dict[str, int]]
    same_row: int
    cross_row: int
    rows_with_hits: int
    values_scanned: int
    name_parts_scanned: int
    skipped_short: int
    same_row_only: int
    allowed: dict[str, dict[str, int]]
    tables: list[str]
    seconds: float

    @property
    def hits(self) -> int:
        return self.same_row + self.cross_row

    @property
    def allowed_hits(self) -> int:
        return sum(sum(d.values()) for d in self.allowed.values())

    @property
    def failing(self) -> dict[str, dict[str, int]]:
        """``by_column`` less the pairs the policy allows."""
        out: dict[str, dict[str, int]] = {}
        for src, d in self.by_column.items():
            for rel, n in d.items():
                if rel not in self.allowed.get(src, {}):
                    out.setdefault(src, {})[rel] = n
        return out

    def to_dict(self) -> dict[str, Any]:
        failing = sum(sum(d.values()) for d in self.failing.values())
        return {
            "hits": self.hits,
            "by_column": self.by_column,
            "same_row": self.same_row,
            "cross_row": self.cross_row,
            "rows_with_hits": self.rows_with_hits,
            "allowed": self.allowed_hits,
            "allowed_by_column": self.allowed,
            "failing": failing,
            "values_scanned": self.values_scanned,
            "name_parts_scanned": self.name_parts_scanned,
            "skipped_short": self.skipped_short,
            "same_row_only": self.same_row_only,
            "min_length": MIN_LENGTH,
            "min_digits_across_rows": MIN_DIGITS_ACROSS,
            "min_name_part": MIN_NAME_PART,
            "tables": self.tables,
            "seconds": round(self.seconds, 3),
            "summary": {"leak_scan_hits": self.hits, "leak_scan_failing": failing},
        }


def _writers(policy: Policy) -> dict[str, str]:
    """Released column -> type of the transform that writes it (a geo pair writes two)."""
    out: dict[str, str] = {}
    for column, cfg in policy.columns.items():
        t = cfg.transform
        if t is None:
            continue
        out[column] = t.type
        partner = getattr(t, "longitude_column", None)
        if partner:
            out[str(partner)] = t.type
    return out


def _sources(
    policy: Policy, original: pd.DataFrame, columns: Sequence[str] | None = None
) -> list[_Source]:
    writers = _writers(policy)
    wanted = (
        columns
        if columns is not None
        else [n for n, c in policy.columns.items() if c.role.value == "identifier"]
    )
    out = []
    for col in wanted:
        if col not in original.columns:
            continue
        series = original[col]
        src = _Source(col, name_like(col, series), writers.get(col))
        for pos, raw in enumerate(series.tolist()):
            text = _cell_text(raw)
            if text is None:
                continue
            terms = identifier_terms(text, name=src.name)
            if not terms or terms[0][1] != "value":
                src.skipped_short += 1
            else:
                src.values += 1
            for term, kind in terms:
                src.terms[term].add(pos)
                if kind == "part":
                    src.parts.add(term)
                elif _NUMERIC.match(term) and sum(c.isdigit() for c in term) < MIN_DIGITS_ACROSS:
                    src.same_row_only += 1
                else:
                    src.across.add(term)
        out.append(src)
    return out


class _Index:
    """Token n-gram lookup of every term of every source."""

    def __init__(self, sources: Sequence[_Source]) -> None:
        self.by_tokens: dict[tuple[str, ...], list[tuple[int, str]]] = defaultdict(list)
        self.exact: dict[str, list[tuple[int, str]]] = defaultdict(list)
        sizes: set[int] = set()
        for i, src in enumerate(sources):
            for term in src.terms:
                toks = tuple(_TOKEN.findall(term))
                if toks:
                    self.by_tokens[toks].append((i, term))
                    sizes.add(len(toks))
                else:
                    self.exact[term].append((i, term))
        self.sizes = sorted(sizes)

    def find(self, cell: str) -> set[tuple[int, str]]:
        """(source index, term) of every term found verbatim in ``cell`` as whole words."""
        found: set[tuple[int, str]] = set()
        stripped = _core(cell)
        for hit in self.exact.get(stripped, ()):
            found.add(hit)
        spans = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(cell)]
        if not spans:
            return found
        toks = [s[2] for s in spans]
        for n in self.sizes:
            for i in range(len(toks) - n + 1):
                cands = self.by_tokens.get(tuple(toks[i : i + n]))
                if not cands:
                    continue
                start, end = spans[i][0], spans[i + n - 1][1]
                piece = cell[start:end]
                for cand in cands:
                    term = cand[1]
                    if piece == term or _core(term) == piece:
                        found.add(cand)
                    elif _verbatim_at(cell, term, start):
                        found.add(cand)
        return found


def _verbatim_at(cell: str, term: str, start: int) -> bool:
    """Whether ``term`` (which starts with its first token) occurs at ``start`` of ``cell``."""
    m = _TOKEN.search(term)
    if m is None:
        return False
    at = start - m.start()
    return at >= 0 and cell.startswith(term, at)


def scan_release(
    policy: Policy,
    original: pd.DataFrame,
    tables: Sequence[ReleasedTable],
    *,
    allow: Iterable[tuple[str, str]] = (),
    text_columns: Iterable[str] | None = None,
    sources: Sequence[str] | None = None,
) -> LeakScan:
    """Search every identifier value of ``original`` in every column of ``tables``.

    Parameters
    ----------
    policy
        Says which columns are identifiers (``role: identifier``), which are text and which
        transform writes each released column.
    original
        The input table as read.
    tables
        The released tables; ``origin`` maps each released row to its input row.
    allow
        ``(source column, released column)`` pairs whose hits are counted as allowed.
    text_columns
        Released columns searched for name parts (default: the policy's text columns).
    sources
        Identifier columns to search (default: every ``role: identifier`` column).
    """
    import numpy as np
    import pandas as pd

    t0 = time.perf_counter()
    srcs = _sources(policy, original, sources)
    index = _Index(srcs)
    texts = set(policy.text_columns if text_columns is None else text_columns)
    allowed_pairs = set(allow)
    by_column: dict[str, dict[str, int]] = {}
    same_total = cross_total = 0
    hit_rows: set[tuple[str, int]] = set()
    for table in tables:
        df = table.data
        origin = table.origin
        for col in df.columns:
            col = str(col)
            # which sources may be searched here, and how
            scopes: dict[int, str] = {}
            for i, src in enumerate(srcs):
                if table.name or col != src.column:
                    scopes[i] = "all"
                elif src.writer is None:
                    scopes[i] = "all"
                elif src.writer in _CHANGING:
                    scopes[i] = "same"
            if not scopes:
                continue
            cells = df[col].map(_cell_text) if len(df) else pd.Series([], dtype=object)
            codes, uniques = pd.factorize(cells, use_na_sentinel=True)
            rows_of: dict[int, np.ndarray] | None = None
            label = table.label(col)
            in_text = col in texts
            for u, cell in enumerate(uniques.tolist()):
                found = index.find(str(cell))
                if not found:
                    continue
                if rows_of is None:
                    order = np.argsort(codes, kind="stable")
                    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
                    rows_of = {
                        k: order[bounds[k] : bounds[k + 1]] for k in range(len(uniques))
                    }
                rows = rows_of[u]
                per_source: dict[int, list[str]] = defaultdict(list)
                for i, term in found:
                    if i in scopes and (in_text or term not in srcs[i].parts):
                        per_source[i].append(term)
                for i, terms in per_source.items():
                    src = srcs[i]
                    owners: set[int] = set()
                    crossable = False
                    for term in terms:
                        owners |= src.terms[term]
                        if scopes[i] == "all" and (term in src.across or term in src.parts):
                            crossable = True
                    same = cross = 0
                    for r in rows.tolist():
                        own = int(origin[r]) if origin is not None else -1
                        if own >= 0 and own in owners:
                            same += 1
                        elif crossable:
                            cross += 1
                        else:
                            continue
                        hit_rows.add((table.name, r))
                    if same or cross:
                        d = by_column.setdefault(src.column, {})
                        d[label] = d.get(label, 0) + same + cross
                        same_total += same
                        cross_total += cross
    allowed: dict[str, dict[str, int]] = {}
    for src_col, d in by_column.items():
        for rel, n in d.items():
            if (src_col, rel) in allowed_pairs:
                allowed.setdefault(src_col, {})[rel] = n
    return LeakScan(
        by_column=by_column,
        same_row=same_total,
        cross_row=cross_total,
        rows_with_hits=len(hit_rows),
        values_scanned=sum(s.values for s in srcs),
        name_parts_scanned=sum(len(s.parts) for s in srcs),
        skipped_short=sum(s.skipped_short for s in srcs),
        same_row_only=sum(s.same_row_only for s in srcs),
        allowed=allowed,
        tables=[t.name or "release" for t in tables],
        seconds=time.perf_counter() - t0,
    )


def origin_of(released: pd.DataFrame, original: pd.DataFrame) -> np.ndarray:
    """Input row position of each released row (by index label; -1 where unknown)."""
    import numpy as np

    if original.index.is_unique:
        pos = original.index.get_indexer(released.index)
        if (pos >= 0).all() or len(released) != len(original):
            return np.asarray(pos, dtype=np.int64)
    if len(released) == len(original):
        return np.arange(len(released), dtype=np.int64)
    return np.full(len(released), -1, dtype=np.int64)


def released_tables(
    data: pd.DataFrame, original: pd.DataFrame, artifacts: Mapping[str, Any]
) -> list[ReleasedTable]:
    """The main release and every table among the artifacts (CSV, JSONL or Parquet)."""
    import io

    import pandas as pd

    tables = [ReleasedTable("", data, origin_of(data, original))]
    for name, content in artifacts.items():
        suffix = name.rsplit(".", 1)[-1].lower()
        if suffix not in ("csv", "jsonl", "parquet"):
            continue
        if suffix == "parquet":
            raw = content if isinstance(content, bytes) else str(content).encode()
            df = pd.read_parquet(io.BytesIO(raw))
        elif suffix == "csv":
            df = pd.read_csv(io.StringIO(_as_text(content)), dtype=str, keep_default_na=False)
        else:
            df = pd.read_json(io.StringIO(_as_text(content)), lines=True, dtype=False)
        tables.append(ReleasedTable(name, df, None))
    return tables


def _as_text(content: Any) -> str:
    return content.decode("utf-8") if isinstance(content, bytes) else str(content)


def check_release(ctx: RunContext) -> LeakScan:
    """Scan a run's release (``ctx.data`` and its table artifacts) and record the section.

    Sets ``ctx.report["leak_scan"]``. Raises :class:`~veil.PrivacyRequirementNotMet` (exit 4)
    when a hit is not allowed by ``privacy.leak_scan.allow``; the message names the columns,
    never a value.
    """
    from veil._errors import PrivacyRequirementNotMet

    policy = ctx.policy
    cfg = policy.privacy.leak_scan
    allow = [(a.source, a.released) for a in cfg.allow] if cfg is not None else []
    with ctx.progress.task("release leak scan"):
        scan = scan_release(
            policy,
            ctx.original,
            released_tables(ctx.data, ctx.original, ctx.artifacts),
            allow=allow,
        )
    ctx.report["leak_scan"] = scan.to_dict()
    failing = scan.failing
    if failing:
        pairs = ", ".join(
            f"{src} -> {rel} ({n})" for src, d in failing.items() for rel, n in d.items()
        )
        n = sum(sum(d.values()) for d in failing.values())
        raise PrivacyRequirementNotMet(
            f"the release still carries original identifier values: {n} released cell(s) "
            f"hold a value of an identifier column (identifier -> released column (cells): "
            f"{pairs}); nothing was written",
            hint="redact the text column or drop/transform the released column; to release "
            "them on purpose, list the pair under privacy.leak_scan.allow "
            "({source: IDENTIFIER, released: COLUMN})",
        )
    return scan
