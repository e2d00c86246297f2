"""Generalization hierarchies: ARX CSV import, builders and validation.

A hierarchy is a table with one row per original value and one column per level: level 0
is the value itself, each further level a coarser label, the last usually ``*``. This is
ARX's format, so ARX hierarchy files load as they are.

Builders make hierarchies from the values of a column: numeric intervals (fixed or growing
widths, explicit cut points, open-ended bottom/top bins), dates (day, month, quarter, year,
decade), masking of codes from the right (or left), categorical taxonomies written in YAML,
and ``auto``. :meth:`Hierarchy.validate` checks that each level coarsens the one before.
Error messages give counts and column names, never values.

Examples
--------
>>> h = Hierarchy.from_rows("zip", [["13053", "1305*", "*"], ["13068", "1306*", "*"]])
>>> h.height
3
>>> mask_hierarchy("zip", ["13053", "13068"]).table[0].tolist()
['13053', '1305*', '130**', '13***', '1****', '*']
"""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError, PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import HierarchyConfig

__all__ = [
    "Hierarchy",
    "auto_hierarchy",
    "build_hierarchy",
    "date_hierarchy",
    "interval_hierarchy",
    "mask_hierarchy",
    "read_arx_hierarchy",
    "taxonomy_hierarchy",
    "value_labels",
]

TOP = "*"


@dataclass(frozen=True)
class Hierarchy:
    """A value generalization hierarchy.

    Parameters
    ----------
    name
        Column it generalizes.
    table
        Object array of strings, shape ``(n_values, n_levels)``; column 0 holds the values.
    """

    name: str
    table: np.ndarray

    @classmethod
    def from_rows(cls, name: str, rows: Sequence[Sequence[str]]) -> Hierarchy:
        if not rows:
            raise InputError(f"the hierarchy of column {name!r} is empty")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise InputError(
                f"the hierarchy of column {name!r} has rows of {len(widths)} different lengths",
                hint="every row needs one entry per level",
            )
        table = np.empty((len(rows), widths.pop()), dtype=object)
        table[:] = [[v if isinstance(v, str) else str(v) for v in r] for r in rows]
        return cls(name, table)

    @property
    def height(self) -> int:
        """Number of levels, level 0 included."""
        return int(self.table.shape[1])

    @property
    def values(self) -> np.ndarray:
        return self.table[:, 0]

    def problems(self) -> list[str]:
        """Every structural problem of the hierarchy (counts only, no values)."""
        import pandas as pd

        out: list[str] = []
        codes = [pd.factorize(self.table[:, j])[0] for j in range(self.height)]
        # a repeated identical row is harmless (ARX accepts it, and counts it in its domain
        # shares); the same value with two different generalizations is ambiguous
        row_key = np.zeros(len(self.table), dtype=np.int64)
        for c in codes[1:]:
            row_key = pd.factorize(row_key * (int(c.max()) + 1) + c)[0]
        differs = _differs_from_first(codes[0], row_key)
        conflicting = len(np.unique(codes[0][differs]))
        if conflicting:
            out.append(
                f"{conflicting} original value(s) appear in several rows with different "
                "generalizations"
            )
        for level in range(1, self.height):
            bad = int(_differs_from_first(codes[level - 1], codes[level]).sum())
            if bad:
                out.append(
                    f"level {level} does not coarsen level {level - 1}: "
                    f"{bad} row(s) map one level-{level - 1} label to several level-{level} labels"
                )
        return out

    def validate(self) -> Hierarchy:
        """Raise :class:`InputError` listing every problem; return self when valid."""
        problems = self.problems()
        if problems:
            raise InputError(
                f"the hierarchy of column {self.name!r} is invalid: " + "; ".join(problems),
                hint="each level must group the labels of the level before it",
            )
        return self

    def check_covers(self, labels: Iterable[str], counts: Iterable[int] | None = None) -> None:
        """Raise :class:`InputError` if some data labels have no row in the hierarchy."""
        match_rows(self, list(labels), None if counts is None else list(counts))


def _differs_from_first(key: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Rows whose ``value`` differs from the value of the first row with the same ``key``."""
    first = np.empty(int(key.max()) + 1 if len(key) else 0, dtype=value.dtype)
    first[key[::-1]] = value[::-1]  # the last write of each key is its first row
    return np.asarray(value != first[key])


# what pandas reads as missing by default; a hierarchy spells a missing value as one of these
_NA_SPELLINGS = (
    "NULL",
    "",
    "NA",
    "N/A",
    "n/a",
    "null",
    "NaN",
    "nan",
    "None",
    "<NA>",
    "#N/A",
    "?",
)


def check_missing(hierarchy: Hierarchy, has_missing: bool) -> None:
    """Refuse missing values when the hierarchy has rows for several spellings of missing.

    A column read by pandas has lost the spelling: ``NA`` (Namibia), ``NULL`` and an empty
    cell all became NaN, and ARX, which reads text, keeps them apart. Guessing one row would
    silently merge them.
    """
    from veil.io._tables import PANDAS_NA

    if not has_missing:
        return
    spellings = set(PANDAS_NA).intersection(hierarchy.table[:, 0].tolist())
    if len(spellings) > 1:
        raise InputError(
            f"column {hierarchy.name!r} has missing values, and its hierarchy has rows for "
            f"{len(spellings)} spellings that a CSV reader turns into a missing value",
            hint="read the column as text: read_table(path, raw_columns=[...]) or pandas' "
            "dtype=str, keep_default_na=False (veil anonymize does so)",
        )


def match_rows(
    hierarchy: Hierarchy, labels: Sequence[str], counts: Sequence[int] | None = None
) -> np.ndarray:
    """Hierarchy row of each data label; raises :class:`InputError` (a count) if any is missing.

    A label matches its exact spelling first. Failing that, and only when the match is unique:
    a label matches the value it spells once surrounding whitespace is ignored (ARX trims
    every value it reads), a number matches a hierarchy value that is the same number spelled
    differently (``1234`` read from ``"01234"``, ``39.0`` for ``"39"``), and a missing value
    matches the hierarchy's spelling of missing (``NULL``, ``NA``, ``""``, ...).
    """
    row_of = {v: i for i, v in enumerate(hierarchy.table[:, 0].tolist())}
    out = np.full(len(labels), -1, dtype=np.int64)
    missing = []
    for i, lab in enumerate(labels):
        r = row_of.get(lab)
        if r is None:
            missing.append(i)
        else:
            out[i] = r
    if missing:
        trimmed: dict[str, list[int]] = {}
        numbers: dict[float, list[int]] = {}
        for v, r in row_of.items():
            trimmed.setdefault(v.strip(), []).append(r)
            try:
                numbers.setdefault(float(v), []).append(r)
            except ValueError:
                continue
        na_rows = [row_of[v] for v in _NA_SPELLINGS if v in row_of]
        still = []
        for i in missing:
            lab = labels[i]
            cand = trimmed.get(lab.strip(), [])
            if not cand and lab == "NULL":
                cand = na_rows
            elif not cand:
                try:
                    cand = numbers.get(float(lab), [])
                except ValueError:
                    cand = []
            if len(cand) == 1:
                out[i] = cand[0]
            else:
                still.append(i)
        if still:
            n_rows = ""
            if counts is not None:
                n_rows = f" ({sum(int(counts[i]) for i in still)} record(s))"
            raise InputError(
                f"{len(still)} distinct value(s) of column {hierarchy.name!r}{n_rows} are "
                "missing from its hierarchy",
                hint="add a row for every value in the data, or use a builder (type: auto)",
            )
    return out


def value_labels(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Factorize a column into codes and string labels, as hierarchies spell values.

    Integral numbers are written without a decimal point (``39.0`` becomes ``"39"``).
    """
    import pandas as pd

    codes, uniques = pd.factorize(series)
    codes = codes.astype(np.int64, copy=False)
    labels = [_label(v) for v in uniques]
    missing = codes < 0
    if missing.any():  # missing values are the value "NULL", as ARX spells them
        if "NULL" in labels:
            codes[missing] = labels.index("NULL")
        else:
            codes[missing] = len(labels)
            labels.append("NULL")
    return codes, np.array(labels, dtype=object)


def _label(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NULL"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


# --------------------------------------------------------------------------- ARX files


def read_arx_hierarchy(
    path: str | Path, name: str, *, separator: str = ";", encoding: str = "utf-8"
) -> Hierarchy:
    """Read an ARX-format hierarchy CSV (no header, one row per value, one column per level).

    As ARX reads it: the whitespace around each value is dropped, blank lines are skipped,
    and a repeated identical row is allowed.
    """
    p = Path(path)
    if not p.is_file():
        raise PolicyError(f"hierarchy file for column {name!r} not found: {p}")
    stat = p.stat()
    try:
        table = _read_table(str(p.resolve()), stat.st_mtime_ns, stat.st_size, separator, encoding)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the hierarchy file of column {name!r} is not valid {encoding} text "
            f"(at byte {exc.start}): {p}",
            hint="set the hierarchy's encoding, e.g. hierarchy: {type: file, encoding: latin-1}",
        ) from None
    except csv.Error:
        raise InputError(
            f"the hierarchy file of column {name!r} is not a readable CSV: {p}",
            hint="check its separator (hierarchy: {type: file, separator: ';'}) and quoting",
        ) from None
    if table is None:
        raise InputError(f"the hierarchy of column {name!r} is empty")
    if isinstance(table, int):
        raise InputError(
            f"the hierarchy of column {name!r} has rows of {table} different lengths",
            hint="every row needs one entry per level",
        )
    return Hierarchy(name, table)


@functools.lru_cache(maxsize=32)
def _read_table(
    path: str, mtime_ns: int, size: int, separator: str, encoding: str
) -> np.ndarray | int | None:
    """The read-only table of a hierarchy file, or the number of row lengths if they differ
    (None if empty). Cached by path and modification, since a policy check reads each file
    before the search reads it again."""
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") == "utf-8" else encoding
    with open(path, newline="", encoding=enc) as fh:
        # ARX's CSV parser trims the whitespace around every value and skips blank lines
        rows = [[v.strip() for v in r] for r in csv.reader(fh, delimiter=separator)]
    rows = [r for r in rows if any(r)]
    # a separator at the end of every line (some exports) is not an extra level
    while rows and len(rows[0]) > 1 and all(len(r) > 1 and r[-1] == "" for r in rows):
        rows = [r[:-1] for r in rows]
    if not rows:
        return None
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        return len(widths)
    table = np.empty((len(rows), widths.pop()), dtype=object)
    table[:] = rows
    table.setflags(write=False)
    return table


# --------------------------------------------------------------------------- builders


def _with_top(name: str, rows: list[list[str]]) -> Hierarchy:
    """Append the top level ``*`` unless the last level already is it."""
    if not rows or any(r[-1] != TOP for r in rows) or len(rows[0]) == 1:
        rows = [[*r, TOP] for r in rows]
    return Hierarchy.from_rows(name, rows)


def _numbers(name: str, labels: Sequence[str]) -> np.ndarray:
    out = np.empty(len(labels), dtype=np.float64)
    bad = 0
    for i, v in enumerate(labels):
        try:
            out[i] = float(v)
        except ValueError:
            bad += 1
    if bad:
        raise InputError(
            f"{bad} distinct value(s) of numeric quasi-identifier {name!r} are not numbers",
            hint="clean the column, or give it a categorical hierarchy",
        )
    return out


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def interval_hierarchy(
    name: str,
    labels: Sequence[str],
    *,
    width: float | None = None,
    growth: float = 2.0,
    levels: int | None = None,
    cuts: Sequence[Sequence[float]] | None = None,
    bottom: float | None = None,
    top: float | None = None,
) -> Hierarchy:
    """Numeric intervals ``[lo, hi)``: fixed width grown by ``growth`` per level, or cut points.

    Values below ``bottom`` go to the open bin ``<bottom``, values at or above ``top`` to
    ``>=top``, at every level.

    Examples
    --------
    >>> interval_hierarchy("age", ["23", "37"], width=10).table.tolist()[0]
    ['23', '[20, 30)', '[20, 40)', '*']
    """
    x = _numbers(name, labels)
    rows = [[lab] for lab in labels]
    lo_open = np.zeros(len(x), dtype=bool) if bottom is None else x < bottom
    hi_open = np.zeros(len(x), dtype=bool) if top is None else x >= top
    inner = ~(lo_open | hi_open)

    def add_level(lab_inner: list[str]) -> None:
        for i, r in enumerate(rows):
            if lo_open[i]:
                r.append(f"<{_fmt(bottom or 0.0)}")
            elif hi_open[i]:
                r.append(f">={_fmt(top or 0.0)}")
            else:
                r.append(lab_inner[i])

    if cuts is not None:
        for level_cuts in cuts:
            c = np.sort(np.asarray(level_cuts, dtype=np.float64))
            idx = np.searchsorted(c, x, side="right")
            labs = []
            for i in idx:
                lo = "-inf" if i == 0 else _fmt(c[i - 1])
                hi = "inf" if i == len(c) else _fmt(c[i])
                labs.append(f"[{lo}, {hi})")
            add_level(labs)
        return _with_top(name, rows).validate()
    assert width is not None
    origin = bottom if bottom is not None else 0.0
    g = max(2, round(growth))
    w = float(width)
    n_levels = 0
    vals = x[inner] if inner.any() else x
    while True:
        b = np.floor((x - origin) / w)
        add_level([f"[{_fmt(origin + k * w)}, {_fmt(origin + (k + 1) * w)})" for k in b])
        n_levels += 1
        spread = np.floor((vals - origin) / w)
        if (levels is not None and n_levels >= levels) or (
            levels is None and (len(spread) == 0 or spread.min() == spread.max())
        ):
            break
        if n_levels > 64:
            break
        w *= g
    return _with_top(name, rows).validate()


_DATE_FORMATS = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}


def date_hierarchy(name: str, labels: Sequence[str], *, levels: Sequence[str]) -> Hierarchy:
    """Dates coarsened to the given levels (day, month, quarter, year, decade), then ``*``.

    Examples
    --------
    >>> date_hierarchy("d", ["2021-05-17"], levels=["month", "quarter", "year"]).table.tolist()
    [['2021-05-17', '2021-05', '2021-Q2', '2021', '*']]
    """
    import pandas as pd

    ts = pd.to_datetime(pd.Series(list(labels), dtype=object), errors="coerce")
    bad = int(ts.isna().sum())
    if bad:
        raise InputError(
            f"{bad} distinct value(s) of date quasi-identifier {name!r} are not dates",
            hint="use ISO dates (YYYY-MM-DD)",
        )
    rows = [[lab] for lab in labels]
    for level in levels:
        if level in _DATE_FORMATS:
            labs = ts.dt.strftime(_DATE_FORMATS[level]).tolist()
        elif level == "quarter":
            labs = [f"{t.year}-Q{t.quarter}" for t in ts]
        elif level == "decade":
            labs = [f"{t.year // 10 * 10}s" for t in ts]
        else:
            raise PolicyError(f"unknown date level {level!r}", key="hierarchy.levels")
        for r, lab in zip(rows, labs, strict=True):
            r.append(lab)
    return _with_top(name, rows).validate()


def mask_hierarchy(
    name: str,
    labels: Sequence[str],
    *,
    from_: str = "right",
    char: str = "*",
    levels: int | None = None,
) -> Hierarchy:
    """Mask one more character per level, from the right (zip codes) or the left."""
    width = max((len(s) for s in labels), default=0)
    n = max(width - 1, 0) if levels is None else min(levels, width)
    rows = []
    for s in labels:
        row = [s]
        for j in range(1, n + 1):
            k = min(j, len(s))
            row.append(s[: len(s) - k] + char * k if from_ == "right" else char * k + s[k:])
        rows.append(row)
    return _with_top(name, rows).validate()


def taxonomy_hierarchy(
    name: str, tree: dict[str, Sequence[str]], labels: Sequence[str] | None = None
) -> Hierarchy:
    """A categorical taxonomy ``{value: [level1, level2, ...]}``, ``*`` added on top."""
    rows = [[str(k), *[str(x) for x in v]] for k, v in tree.items()]
    return _with_top(name, rows).validate()


def auto_hierarchy(name: str, labels: Sequence[str]) -> Hierarchy:
    """A default: intervals for numbers, right masking for equal-length digit codes, else ``*``."""
    same_width = len({len(s) for s in labels}) == 1
    if labels and same_width and len(labels[0]) >= 4 and all(s.isdigit() for s in labels):
        return mask_hierarchy(name, labels)  # zip codes and other fixed-width codes
    try:
        x = _numbers(name, labels)
    except InputError:
        return Hierarchy.from_rows(name, [[s, TOP] for s in labels])
    span = float(x.max() - x.min()) if len(x) else 0.0
    if span <= 0:
        return Hierarchy.from_rows(name, [[s, TOP] for s in labels])
    width = 10.0 ** math.floor(math.log10(span / 10)) if span >= 10 else 1.0
    width = max(width, 1.0) if all(float(v).is_integer() for v in x) else width
    return interval_hierarchy(name, labels, width=width, growth=2)


def build_hierarchy(
    name: str,
    config: HierarchyConfig,
    labels: Sequence[str],
    *,
    base_dir: Path | None = None,
) -> Hierarchy:
    """Build the hierarchy a policy describes for the distinct values ``labels`` of a column."""
    from veil.policy._models import (
        AutoHierarchyConfig,
        DateHierarchyConfig,
        FileHierarchyConfig,
        IntervalHierarchyConfig,
        MaskHierarchyConfig,
        TaxonomyHierarchyConfig,
    )

    def resolve(p: Path) -> Path:
        return p if p.is_absolute() or base_dir is None else base_dir / p

    if isinstance(config, FileHierarchyConfig):
        h = read_arx_hierarchy(
            resolve(config.path), name, separator=config.separator, encoding=config.encoding
        )
        return h.validate()
    if isinstance(config, IntervalHierarchyConfig):
        return interval_hierarchy(
            name,
            labels,
            width=config.width,
            growth=config.growth,
            levels=config.levels,
            cuts=config.cuts,
            bottom=config.bottom,
            top=config.top,
        )
    if isinstance(config, DateHierarchyConfig):
        return date_hierarchy(name, labels, levels=config.levels)
    if isinstance(config, MaskHierarchyConfig):
        return mask_hierarchy(
            name, labels, from_=config.from_, char=config.char, levels=config.levels
        )
    if isinstance(config, TaxonomyHierarchyConfig):
        tree = config.tree
        if tree is None:
            assert config.path is not None
            from veil.policy._loader import load_yaml_located

            path = resolve(config.path)
            if not path.is_file():
                raise PolicyError(f"taxonomy file for column {name!r} not found: {path}")
            # bounded aliases and no duplicated key: the same guards as the policy itself
            loaded, _ = load_yaml_located(path.read_text(encoding="utf-8"), str(path))
            if not isinstance(loaded, dict):
                raise PolicyError(f"taxonomy file for column {name!r} must hold a mapping")
            tree = {str(k): tuple(v if isinstance(v, list) else [v]) for k, v in loaded.items()}
        return taxonomy_hierarchy(name, dict(tree), labels)
    if isinstance(config, AutoHierarchyConfig):
        return auto_hierarchy(name, list(labels))
    raise PolicyError(f"unsupported hierarchy type for column {name!r}")  # pragma: no cover
