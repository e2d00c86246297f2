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
from dataclasses import dataclass
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
    r"|^(patient|customer|client|person|employee)(_?name)?$"
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


@dataclass
class _Source:
    """One identifier column's terms: ``terms[k]`` held by input rows ``owners(k)``."""

    column: str
    name: bool
    writer: str | None  # transform type that writes this column in the release, or None
    terms: list[str]
    across: np.ndarray  # bool per term: also searched across rows
    part: np.ndarray  # bool per term: a part of a name only (searched in text columns)
    order: np.ndarray  # rows sorted by term id
    bounds: np.ndarray  # order[bounds[k]:bounds[k+1]] are the rows of term k
    values: int
    skipped_short: int
    same_row_only: int

    def __post_init__(self) -> None:
        self.across_list: list[bool] = self.across.tolist()
        self.part_list: list[bool] = self.part.tolist()

    def owners(self, k: int) -> np.ndarray:
        return self.order[self.bounds[k] : self.bounds[k + 1]]


def _source(column: str, series: pd.Series, writer: str | None) -> _Source:
    import numpy as np
    import pandas as pd

    name = name_like(column, series)
    series = series.reset_index(drop=True)  # positions; the input's labels may repeat
    present = series.notna().to_numpy()
    text = series[present].astype(str)
    rows = np.flatnonzero(present)
    core = text.str.strip(_EDGE)
    long = (core.str.len() >= MIN_LENGTH).to_numpy()
    values = int(long.sum())
    term_list = [core[long]]
    row_list = [rows[long]]
    kinds = [np.zeros(values, dtype=np.int8)]  # 0 value, 1 part
    if name:
        words = text.str.split().explode().dropna().astype(str).str.strip(_EDGE)
        letters = words.str.count(r"[^\W\d_]")
        pos = pd.Series(rows, index=text.index).reindex(words.index).to_numpy()
        same = words.to_numpy() == core.reindex(words.index).to_numpy()
        keep = (letters >= MIN_NAME_PART).to_numpy() & ~same
        term_list.append(words[keep])
        row_list.append(pos[keep])
        kinds.append(np.ones(int(keep.sum()), dtype=np.int8))
    terms_s = pd.concat(term_list, ignore_index=True)
    term_rows = np.concatenate(row_list).astype(np.int64)
    kind = np.concatenate(kinds)
    codes, uniques = pd.factorize(terms_s)
    n = len(uniques)
    is_value = np.zeros(n, dtype=bool)
    is_value[codes[kind == 0]] = True
    uniq = pd.Series(uniques, dtype=object).astype(str)
    short_number = (uniq.str.fullmatch(_NUMERIC.pattern.strip("^$"))) & (
        uniq.str.count(r"\d") < MIN_DIGITS_ACROSS
    )
    short_number_arr = short_number.to_numpy(dtype=bool)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n + 1))
    return _Source(
        column=column,
        name=name,
        writer=writer,
        terms=uniq.tolist(),
        across=~(is_value & short_number_arr) | ~is_value,
        part=~is_value,
        order=term_rows[order],
        bounds=bounds,
        values=values,
        skipped_short=int(len(rows) - values),
        same_row_only=int((is_value & short_number_arr)[codes[kind == 0]].sum()),
    )


def _sources(
    policy: Policy, original: pd.DataFrame, columns: Sequence[str] | None = None
) -> list[_Source]:
    writers = _writers(policy)
    wanted = (
        columns
        if columns is not None
        else [n for n, c in policy.columns.items() if c.role.value == "identifier"]
    )
    return [_source(c, original[c], writers.get(c)) for c in wanted if c in original.columns]


class _Index:
    """Lookup of every term of every source by its first word token, then its token tuple."""

    def __init__(self, sources: Sequence[_Source]) -> None:
        # first token -> number of tokens -> token tuple -> [(source index, term id)]
        self.by_first: dict[str, dict[int, dict[tuple[str, ...], list[tuple[int, int]]]]] = {}
        self.exact: dict[str, list[tuple[int, int]]] = defaultdict(list)
        findall = _TOKEN.findall
        for i, src in enumerate(sources):
            for k, term in enumerate(src.terms):
                toks = tuple(findall(term))
                if not toks:
                    self.exact[term].append((i, k))
                    continue
                by_n = self.by_first.setdefault(toks[0], {})
                by_n.setdefault(len(toks), {}).setdefault(toks, []).append((i, k))

    def find(self, cell: str, sources: Sequence[_Source]) -> set[tuple[int, int]]:
        """(source index, term id) of every term found verbatim in ``cell`` as whole words."""
        found: set[tuple[int, int]] = set(self.exact.get(_core(cell), ()))
        toks = _TOKEN.findall(cell)
        by_first = self.by_first
        spans: list[tuple[int, int]] | None = None
        for i, tok in enumerate(toks):
            by_n = by_first.get(tok)
            if by_n is None:
                continue
            for n, table in by_n.items():
                cands = table.get(tuple(toks[i : i + n]))
                if not cands:
                    continue
                if spans is None:
                    spans = [m.span() for m in _TOKEN.finditer(cell)]
                start, end = spans[i][0], spans[i + n - 1][1]
                piece = cell[start:end]
                for cand in cands:
                    term = sources[cand[0]].terms[cand[1]]
                    if piece == term or _verbatim_at(cell, term, start):
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
        origin_list: list[int] = table.origin.tolist() if table.origin is not None else []
        for col in df.columns:
            col = str(col)
            # which sources may be searched here, and how
            scopes: dict[int, str] = {}
            for i, src in enumerate(srcs):
                if table.name or col != src.column or src.writer is None:
                    scopes[i] = "all"
                elif src.writer in _CHANGING:
                    scopes[i] = "same"
            if not scopes or not len(df):
                continue
            codes, uniques = pd.factorize(df[col], use_na_sentinel=True)
            if not len(uniques):
                continue
            label = table.label(col)
            in_text = col in texts
            order: np.ndarray | None = None
            bounds: np.ndarray | None = None
            for u, value in enumerate(uniques.tolist()):
                if isinstance(value, bytes):
                    continue
                found = index.find(str(value), srcs)
                if not found:
                    continue
                per_source: dict[int, list[int]] = defaultdict(list)
                for i, k in found:
                    if i in scopes and (in_text or not srcs[i].part_list[k]):
                        per_source[i].append(k)
                if not per_source:
                    continue
                if order is None or bounds is None:
                    order = np.argsort(codes, kind="stable")
                    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
                rows = order[bounds[u] : bounds[u + 1]].tolist()
                for i, ks in per_source.items():
                    src = srcs[i]
                    owners: set[int] = set()
                    for k in ks:
                        owners.update(src.owners(k).tolist())
                    crossable = scopes[i] == "all" and any(src.across_list[k] for k in ks)
                    same_rows = [r for r in rows if origin_list[r] in owners] if origin_list else []
                    same = len(same_rows)
                    cross = len(rows) - same if crossable else 0
                    hit_rows.update((table.name, r) for r in (rows if crossable else same_rows))
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
        name_parts_scanned=sum(int(s.part.sum()) for s in srcs),
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
