"""Verification of anonymity levels: k, l (distinct, entropy, recursive), t, alpha, beta, delta.

Every level is computed from the equivalence classes (see :mod:`veil.risk._classes`) and, for
a sensitive attribute, from a sparse class-by-value count table built with one sort of
integer pair keys. Suppressed rows are in no class and do not count in the distribution of
the sensitive attribute either: levels describe the records a reader of the release can link.

Definitions (per sensitive attribute; ``q`` is a class's distribution of the sensitive value,
``p`` the distribution over every retained row of the table checked, ``m`` its number of
distinct values; with a value order given, ``m`` counts every value the order names, held
by a row or not):

- **k**: size of the smallest class.
- **distinct l**: fewest distinct sensitive values in a class.
- **entropy l**: ``min over classes of exp(H(q))`` with the natural logarithm; a class is
  entropy-l-diverse for every ``l <= exp(H(q))``. (pycanon floors this to an integer.)
- **recursive (c, l)**: a class with sorted counts ``r1 >= r2 >= ... >= rm`` satisfies it
  when ``r1 < c * (r_l + ... + r_m)``. Reported as ``c``: the largest ``r1 / (r_l + ...)`` over
  the classes, so the table satisfies recursive (c', l) for every ``c' > c``; ``None`` when some
  class has fewer than ``l`` values (no ``c`` works).
- **t, equal distance**: ``max over classes of 1/2 * sum |q - p|``.
- **t, ordered distance**: ``max over classes of 1/(m-1) * sum_i |sum_{j<=i} (q_j - p_j)|``
  with values in their natural order (numbers by value, text lexicographically, or an order
  given by the caller).
- **alpha** of (alpha, k)-anonymity: the largest share of one sensitive value in a class.
- **basic beta-likeness**: ``max over classes and values of (q - p) / p``.
- **enhanced beta-likeness**: the smallest ``beta`` with ``q <= p * (1 + min(beta, -ln p))``
  for every class and value: equal to basic beta when attainable, ``None`` when some class
  exceeds ``-ln p`` for a value (then no ``beta`` works).
- **delta-disclosure**: ``max over classes and values present in the class of |ln(q / p)|``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError
from veil.risk._classes import EquivalenceClasses, check_columns, encode_column, equivalence_classes

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SensitiveLevels", "VerificationReport", "sensitive_levels", "verify"]

# Classes per block when a dense class-by-value matrix is needed (ordered distance).
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class _Counts:
    """Sparse class-by-value counts of one sensitive attribute, sorted by class."""

    cls: np.ndarray  # class id of each nonzero cell
    val: np.ndarray  # value code (in the attribute's order) of each cell
    cnt: np.ndarray  # count of each cell
    p: np.ndarray  # distribution over all retained rows, by value code
    sizes: np.ndarray  # class sizes
    starts: np.ndarray  # offset of each class's first cell (cells sorted by class)


def _value_order(values: pd.Series, order: Sequence[Any] | None) -> tuple[np.ndarray, int]:
    """Codes whose integer order is the natural order of the values."""
    import pandas as pd

    if order is not None:
        cat = pd.Categorical(values, categories=list(order), ordered=True)
        if (cat.codes < 0).any() and values.notna().any():
            raise InputError(
                f"the value order given for column {values.name!r} misses "
                f"{int(((cat.codes < 0) & values.notna().to_numpy()).sum())} row(s)' values",
                hint="list every value of the column in the order",
            )
        return cat.codes.astype(np.int64), len(order)
    try:
        codes, uniques = pd.factorize(values)  # missing -> -1, ranked last below
    except TypeError:
        encode_column(values, str(values.name))  # raises the clear error
        raise
    try:
        ranks = np.argsort(np.argsort(np.asarray(_sort_key(uniques)), kind="stable"), kind="stable")
    except TypeError:  # mixed types: compare as strings
        ranks = np.argsort(np.argsort(np.asarray([str(u) for u in uniques])), kind="stable")
    m = len(uniques)
    codes = np.asarray(codes, dtype=np.int64)
    if (codes < 0).any():
        ranks = np.append(ranks, m)
        m += 1
    return ranks[codes].astype(np.int64), m


def _sort_key(uniques: Any) -> Any:
    import pandas as pd

    arr = pd.Series(uniques)
    if pd.api.types.is_numeric_dtype(arr):
        return arr.to_numpy(dtype=float, na_value=np.inf)
    return np.asarray(["\uffff" if pd.isna(u) else str(u) for u in uniques])


def _counts(classes: EquivalenceClasses, column: pd.Series, order: Sequence[Any] | None) -> _Counts:
    keep = classes.retained
    values = column.iloc[keep] if not keep.all() else column
    codes, m = _value_order(values.reset_index(drop=True), order)
    cls_ids = classes.class_of_row[keep]
    pair = cls_ids * m + codes
    w = classes.retained_weights()
    if w is None:
        uniq, cnt = np.unique(pair, return_counts=True)  # sorted: by class, then value
        p = np.bincount(codes, minlength=m) / max(len(codes), 1)
    else:  # weighted rows: the records' counts
        uniq, inverse = np.unique(pair, return_inverse=True)
        cnt = np.bincount(inverse.ravel(), weights=w, minlength=len(uniq))
        p = np.bincount(codes, weights=w, minlength=m) / max(float(w.sum()), 1.0)
    cls = uniq // m
    val = uniq % m
    starts = np.searchsorted(cls, np.arange(classes.n_classes))
    return _Counts(
        cls=cls, val=val, cnt=cnt.astype(np.int64), p=p, sizes=classes.sizes, starts=starts
    )


@dataclass(frozen=True)
class SensitiveLevels:
    """The levels one sensitive attribute reaches in a table (see the module docstring)."""

    column: str
    distinct_values: int
    l_distinct: int | None
    l_entropy: float | None
    recursive_l: int | None
    recursive_c: float | None
    t_equal: float | None
    t_ordered: float | None
    alpha: float | None
    beta_basic: float | None
    beta_enhanced: float | None
    delta_disclosure: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "distinct_values": self.distinct_values,
            "l": {"distinct": self.l_distinct, "entropy": _r(self.l_entropy)},
            "recursive": {"l": self.recursive_l, "c": _r(self.recursive_c)},
            "t": {"equal": _r(self.t_equal), "ordered": _r(self.t_ordered)},
            "alpha": _r(self.alpha),
            "beta_likeness": {"basic": _r(self.beta_basic), "enhanced": _r(self.beta_enhanced)},
            "delta_disclosure": _r(self.delta_disclosure),
        }


def _r(x: float | None) -> float | None:
    if x is None or not np.isfinite(x):
        return None
    return float(x)


def sensitive_levels(
    classes: EquivalenceClasses,
    column: pd.Series,
    *,
    recursive_l: int | None = None,
    order: Sequence[Any] | None = None,
) -> SensitiveLevels:
    """Levels of one sensitive attribute over given classes.

    ``column`` is aligned with the table by position. ``recursive_l`` is the ``l`` of recursive
    (c, l)-diversity; by default the distinct l the table reaches.
    """
    name = str(column.name)
    if classes.n_classes == 0:
        return SensitiveLevels(
            name, 0, None, None, recursive_l, None, None, None, None, None, None, None
        )
    c = _counts(classes, column, order)
    n_cls = classes.n_classes
    q = c.cnt / c.sizes[c.cls]
    p_cell = c.p[c.val]
    # l: distinct and entropy
    distinct = np.bincount(c.cls, minlength=n_cls)
    entropy = -np.bincount(c.cls, weights=q * np.log(q), minlength=n_cls)
    l_distinct = int(distinct.min())
    l_entropy = float(np.exp(entropy.min()))
    # recursive (c, l)
    rl = recursive_l if recursive_l is not None else l_distinct
    rec_c = _recursive_c(c, n_cls, rl)
    # alpha, beta, delta
    alpha = float(np.maximum.reduceat(q, c.starts).max())
    rel = (q - p_cell) / p_cell
    beta = float(rel.max())
    with np.errstate(divide="ignore"):
        cap = -np.log(p_cell)
    beta_enh: float | None = beta if bool((rel <= cap + 1e-12).all()) else None
    delta = float(np.abs(np.log(q / p_cell)).max())
    # t: equal distance from the sparse cells (absent values contribute p)
    eq = 0.5 * (np.bincount(c.cls, weights=np.abs(q - p_cell) - p_cell, minlength=n_cls) + 1.0)
    t_equal = float(max(eq.max(), 0.0))
    t_ordered = _ordered_emd(c, n_cls)
    return SensitiveLevels(
        column=name,
        distinct_values=len(c.p),
        l_distinct=l_distinct,
        l_entropy=l_entropy,
        recursive_l=rl,
        recursive_c=rec_c,
        t_equal=t_equal,
        t_ordered=t_ordered,
        alpha=alpha,
        beta_basic=beta,
        beta_enhanced=beta_enh,
        delta_disclosure=delta,
    )


def _recursive_c(c: _Counts, n_cls: int, l_: int) -> float | None:
    if l_ < 1:
        raise InputError(f"recursive l must be at least 1, got {l_}")
    # Rank the cells of each class by decreasing count.
    order = np.lexsort((-c.cnt, c.cls))
    cls = c.cls[order]
    cnt = c.cnt[order].astype(float)
    rank = np.arange(len(cls)) - c.starts[cls]
    r1 = cnt[c.starts]
    tail = np.bincount(cls, weights=np.where(rank >= l_ - 1, cnt, 0.0), minlength=n_cls)
    if (tail <= 0).any():
        return None
    return float((r1 / tail).max())


def _ordered_emd(c: _Counts, n_cls: int) -> float:
    m = len(c.p)
    if m <= 1:
        return 0.0
    block = max(1, _BLOCK_CELLS // m)
    cum_p = np.cumsum(c.p)
    best = 0.0
    for lo in range(0, n_cls, block):
        hi = min(n_cls, lo + block)
        a, b = c.starts[lo], (c.starts[hi] if hi < n_cls else len(c.cls))
        dense = np.zeros((hi - lo, m))
        dense[c.cls[a:b] - lo, c.val[a:b]] = c.cnt[a:b]
        dense /= c.sizes[lo:hi, None]
        emd = np.abs(np.cumsum(dense, axis=1) - cum_p).sum(axis=1) / (m - 1)
        best = max(best, float(emd.max()))
    return best


@dataclass(frozen=True)
class VerificationReport:
    """Anonymity levels a table reaches. ``to_dict()`` gives the JSON form.

    ``k`` is ``None`` when every row is suppressed (no class exists); levels of sensitive
    attributes are then ``None`` too.
    """

    quasi_identifiers: tuple[str, ...]
    n_rows: int
    n_suppressed: int
    n_classes: int
    k: int | None
    sensitive: dict[str, SensitiveLevels] = field(default_factory=dict)
    missing_qi_values: dict[str, int] = field(default_factory=dict)

    @property
    def l_distinct(self) -> int | None:
        vals = [s.l_distinct for s in self.sensitive.values() if s.l_distinct is not None]
        return min(vals) if vals else None

    @property
    def l_entropy(self) -> float | None:
        vals = [s.l_entropy for s in self.sensitive.values() if s.l_entropy is not None]
        return min(vals) if vals else None

    def _worst(self, attr: str) -> float | None:
        vals = [getattr(s, attr) for s in self.sensitive.values()]
        if (
            any(v is None for v in vals)
            and self.n_classes
            and attr in ("beta_enhanced", "recursive_c")
        ):
            return None
        vals = [v for v in vals if v is not None]
        return max(vals) if vals else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "rows": self.n_rows,
            "suppressed_rows": self.n_suppressed,
            "classes": self.n_classes,
            "k": self.k,
            "l": {"distinct": self.l_distinct, "entropy": _r(self.l_entropy)},
            "t": {"equal": _r(self._worst("t_equal")), "ordered": _r(self._worst("t_ordered"))},
            "alpha": _r(self._worst("alpha")),
            "recursive_c": _r(self._worst("recursive_c")),
            "beta_likeness": {
                "basic": _r(self._worst("beta_basic")),
                "enhanced": _r(self._worst("beta_enhanced")),
            },
            "delta_disclosure": _r(self._worst("delta_disclosure")),
            "sensitive": [s.to_dict() for s in self.sensitive.values()],
            "missing_qi_values": dict(self.missing_qi_values),
        }


def verify(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    suppressed: Any = None,
    marker: str | None = None,
    recursive_l: int | None = None,
    orders: Mapping[str, Sequence[Any]] | None = None,
    classes: EquivalenceClasses | None = None,
    weights: Any = None,
) -> VerificationReport:
    """Measure the anonymity levels of a table.

    Parameters
    ----------
    df
        The released table (any index, any row order).
    quasi_identifiers, sensitive
        Column names.
    suppressed, marker
        Which rows are suppressed (see :func:`equivalence_classes`).
    recursive_l
        ``l`` of recursive (c, l)-diversity; default: the distinct l reached.
    orders
        Per sensitive column, the order of its values for the ordered distance.
    classes
        Precomputed classes of ``df`` (saves the group-by when already done).
    weights
        Records each row stands for (see :func:`equivalence_classes`); with ``classes``
        given, theirs are used.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["13*"] * 4, "age": ["<30"] * 4, "disease": ["flu", "flu", "hiv", "flu"]})
    >>> rep = verify(df, ["zip", "age"], ["disease"])
    >>> rep.k, rep.l_distinct
    (4, 2)
    """
    sens = [str(s) for s in sensitive]
    check_columns(df, sens, "sensitive")
    overlap = set(sens) & {str(q) for q in quasi_identifiers}
    if overlap:
        raise InputError(
            f"column(s) {', '.join(sorted(overlap))} named both quasi-identifier and sensitive",
            hint="a column has one role",
        )
    if classes is None:
        classes = equivalence_classes(
            df, quasi_identifiers, suppressed=suppressed, marker=marker, weights=weights
        )
    levels = {
        s: sensitive_levels(classes, df[s], recursive_l=recursive_l, order=(orders or {}).get(s))
        for s in sens
    }
    return VerificationReport(
        quasi_identifiers=classes.quasi_identifiers,
        n_rows=classes.n_rows,
        n_suppressed=classes.n_suppressed,
        n_classes=classes.n_classes,
        k=classes.k,
        sensitive=levels,
        missing_qi_values=classes.missing_values,
    )
