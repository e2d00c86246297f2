"""The policy's privacy models, re-checked on a release with one definition: ARX's.

The anonymizer (:mod:`veil.tabular._privacy_models`) decides which classes to suppress; this
module judges the release it produced, with code of its own (plain pandas group-bys and
numpy), and is what both re-checks call: the anonymizer's (:func:`veil.tabular.verify_release`,
which refuses to return a release that fails) and the report's (the ``risk`` stage, whose
``risk.requirements`` and ``anonymize.satisfied`` it fills). One definition per model, so
the report cannot contradict the release.

Definitions (as ARX 3.9; a class is the set of released, non-suppressed rows that share
every quasi-identifier; ``q`` is a class's distribution of the sensitive value, ``p`` the
**reference distribution**: the sensitive column over the whole input, suppressed records
included, which is what ARX's ``DataManager.getDistribution`` computes for t-closeness):

- **k-anonymity**: every class has at least ``k`` rows. Measured: the smallest class.
- **distinct l-diversity**: every class has at least ``l`` distinct sensitive values.
  Measured: the fewest distinct values in a class.
- **entropy l-diversity**: every class has ``ceil(l)`` distinct values and Shannon entropy
  (natural log) ``>= ln l`` (equality to a relative 1e-9). Measured: ``exp`` of the lowest
  class entropy.
- **recursive (c,l)-diversity**: with a class's counts ``r1 >= r2 >= ... >= rm``,
  ``r1 < c * (r_l + ... + r_m)`` at the **policy's** ``l``. Measured: the largest
  ``r1 / (r_l + ... + r_m)`` (``None`` when a class has fewer than ``l`` values).
- **t-closeness** (measured: the largest distance of a class to ``p``):
  equal distance ``1/2 sum |q_i - p_i|``; ordered distance
  ``sum_i |sum_{j<=i} (q_j - p_j)| / (m - 1)`` over the ``m`` values in numeric order (text
  order when a value is not a number); hierarchical distance (Li et al.): each inner node at
  level ``j`` of a tree of height ``H`` costs ``j / H * min(extra +, extra -)`` of its
  children, a hierarchy whose top level has several nodes being topped by a root.
- **k-map with a sampling fraction** ``f``: every class has ``size / f >= k``.

An l-diversity or t-closeness model that names no ``column`` applies to **every** sensitive
column, each judged on its own (as ARX attaches a model to each sensitive attribute): one
requirement per column, so a second sensitive column is never released without its l or t.

Delta-presence and k-map against a population table need the population; the anonymizer's
re-check measures them there and the report carries its figures (see
:func:`population_requirements`).

>>> import pandas as pd
>>> from veil.policy import PrivacyConfig
>>> rel = pd.DataFrame({"zip": ["13*"] * 4, "disease": ["flu", "flu", "flu", "hiv"]})
>>> privacy = PrivacyConfig(k_anonymity={"k": 4}, l_diversity={"l": 2, "c": 2, "variant": "recursive"})
>>> [(r.model, r.measured, r.met) for r in check_release(rel, ["zip"], privacy, ["disease"])]
[('k-anonymity', 4, True), ('recursive (c,l)-diversity', 3.0, False)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import PrivacyConfig

__all__ = [
    "Requirement",
    "check_release",
    "failure_lines",
    "population_requirements",
    "spelled",
]

#: Absolute slack on distances: the anonymizer and this module sum in different orders.
TOLERANCE = 1e-9
# classes per block of a dense class-by-value matrix (bounds memory on wide domains)
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class Requirement:
    """One privacy model of the policy, measured on a release.

    ``key`` is the model's key in ``anonymize.satisfied``; ``required`` and ``measured`` are
    numbers (never data values; recursive (c,l): ``c``, with ``l`` beside them); ``measured`` is ``None`` where no value can be given (no
    class, or a recursive (c,l) class with fewer than ``l`` values).
    """

    model: str
    key: str
    required: Any
    measured: Any
    met: bool
    column: str | None = None
    condition: str = ""
    note: str | None = None
    l: int | None = None  # noqa: E741 - recursive (c,l): the l at which c is measured

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model}
        if self.column is not None:
            out["column"] = self.column
        out.update(required=self.required, measured=self.measured, met=bool(self.met))
        if self.l is not None:
            out["l"] = self.l
        if self.condition:
            out["condition"] = self.condition
        if self.note:
            out["note"] = self.note
        return out

    def line(self) -> str:
        """One terminal line: which model, what it required, what the release reached."""
        where = f" of column {self.column!r}" if self.column is not None else ""
        measured = "none" if self.measured is None else _fmt(self.measured)
        status = "met" if self.met else "NOT met"
        return (
            f"{self.model}{where}: required {self.condition or _fmt(self.required)}, "
            f"measured {measured}: {status}"
        )


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def failure_lines(requirements: Sequence[Requirement]) -> list[str]:
    """The terminal lines of the requirements that are not met."""
    return [r.line() for r in requirements if not r.met]


def spelled(values: pd.Series) -> np.ndarray:
    """Each value as the text it is compared by (missing values are ``NULL``, as in ARX)."""
    from veil.tabular._hierarchy import value_labels

    codes, labels = value_labels(values.reset_index(drop=True))
    return np.asarray(labels, dtype=object)[codes] if len(codes) else np.array([], dtype=object)


def check_release(
    released: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    privacy: PrivacyConfig,
    sensitive: Sequence[str] = (),
    *,
    suppressed: Any = None,
    values: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    weights: Any = None,
) -> list[Requirement]:
    """Measure every model of ``privacy`` (but the population ones) on a release.

    Parameters
    ----------
    released
        The released table; its quasi-identifier columns form the classes.
    quasi_identifiers, sensitive
        Column names. An l-diversity or t-closeness model that names no column is
        measured on every sensitive column, one :class:`Requirement` per column, as the
        anonymizer applies it.
    suppressed
        Boolean mask of the suppressed rows (in no class); ``None``: none.
    values
        The sensitive values of each released row, aligned by position (default: the
        released table's own columns).
    reference
        The table whose sensitive columns give the t-closeness reference distribution: the
        whole input, suppressed records included (default: ``values``, every row).
    hierarchies
        Built hierarchy (:class:`veil.tabular.Hierarchy`) of a sensitive column, for the
        hierarchical distance.
    weights
        Records each row stands for (rows of ``released``, ``values`` and ``reference``
        alike, which must then be one table's rows): the Ray engine's aggregates.
    """
    import pandas as pd

    n = len(released)
    sup = np.zeros(n, dtype=bool) if suppressed is None else np.asarray(suppressed, dtype=bool)
    if sup.shape != (n,):
        raise InputError(f"the suppression mask has {sup.size} entries for {n} rows")
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    if w is not None and w.shape != (n,):
        raise InputError(f"{w.size} weights for {n} rows")
    values = released if values is None else values
    reference = values if reference is None else reference
    keep = ~sup
    kept = released.loc[keep] if not keep.all() else released
    qis = list(quasi_identifiers)
    if len(kept) and qis:
        ids = kept.groupby(qis, observed=True, sort=False, dropna=False).ngroup().to_numpy()
    else:
        ids = np.zeros(len(kept), dtype=np.int64)
    w_kept = None if w is None else w[keep]
    if not len(ids):
        sizes = np.zeros(0, dtype=np.int64)
    elif w_kept is None:
        sizes = np.bincount(ids)
    else:
        sizes = np.bincount(ids, weights=w_kept).astype(np.int64)
    out: list[Requirement] = []
    if privacy.k_anonymity is not None:
        k = privacy.k_anonymity.k
        smallest = int(sizes.min()) if len(sizes) else None
        out.append(
            Requirement(
                "k-anonymity",
                "k_anonymity",
                k,
                smallest,
                smallest is None or smallest >= k,
                condition=f"every class at least {k} rows",
            )
        )

    def counts_of(col: str) -> tuple[_Cells, np.ndarray, pd.Index]:
        """Class-by-value counts (sparse) over the values of the release and the reference,
        the reference distribution over them, and the values (as spelled)."""
        rel_txt = spelled(values[col])[keep]
        ref_txt = spelled(reference[col])
        domain = pd.Index(pd.unique(np.concatenate([ref_txt, rel_txt]).astype(str)))
        ref_codes = domain.get_indexer(pd.Index(ref_txt.astype(str)))
        rel_codes = domain.get_indexer(pd.Index(rel_txt.astype(str)))
        p = np.bincount(ref_codes, weights=w, minlength=len(domain)).astype(np.float64)
        p /= max(p.sum(), 1.0)
        return _Cells.of(ids, rel_codes, len(sizes), len(domain), w_kept), p, domain

    # a model that names no column protects every sensitive column: one requirement each
    ld = privacy.l_diversity
    if ld is not None:
        l_cols = [ld.column] if ld.column is not None else list(sensitive)
        if not l_cols:
            raise InputError("l-diversity needs a sensitive column")
        for col in l_cols:
            if col not in values.columns:
                out.append(_not_released(f"{ld.variant} l-diversity", "l_diversity", ld.l, col))
            else:
                counts, _, _ = counts_of(col)
                out.append(_l_requirement(counts, ld.variant, ld.l, ld.c, col))
    tc = privacy.t_closeness
    if tc is not None:
        t_cols = [tc.column] if tc.column is not None else list(sensitive)
        if not t_cols:
            raise InputError("t-closeness needs a sensitive column")
        model = f"t-closeness ({tc.distance} distance)"
        for col in t_cols:
            if col not in values.columns:
                out.append(_not_released(model, "t_closeness", tc.t, col))
                continue
            counts, p, domain = counts_of(col)
            hier = (hierarchies or {}).get(col)
            dist = _t_distances(counts, p, list(domain), tc.distance, hier, col)
            worst = float(dist.max()) if len(dist) else None
            out.append(
                Requirement(
                    model,
                    "t_closeness",
                    tc.t,
                    worst,
                    worst is None or worst <= tc.t + TOLERANCE,
                    column=col,
                    condition=f"t <= {tc.t:g}",
                    note="against the sensitive column over the whole input (as ARX)",
                )
            )
    km = privacy.k_map
    if km is not None and km.sampling_fraction is not None:
        f = km.sampling_fraction
        smallest_est = float(sizes.min()) / f if len(sizes) else None
        out.append(
            Requirement(
                "k-map",
                "k_map",
                km.k,
                smallest_est,
                smallest_est is None or smallest_est >= km.k,
                condition=f"every class at least {km.k} people (size / {f:g})",
                note="population sizes estimated as class size / sampling fraction",
            )
        )
    return out


def _not_released(model: str, key: str, required: Any, col: str) -> Requirement:
    return Requirement(
        model, key, required, None, True, column=col, note="the release drops this column"
    )


@dataclass(frozen=True)
class _Cells:
    """Nonzero class-by-value counts, sorted by class then value (memory: one entry per
    pair present, never classes x values)."""

    cls: np.ndarray
    val: np.ndarray
    cnt: np.ndarray
    n_cls: int
    m: int

    @classmethod
    def of(
        cls, ids: np.ndarray, codes: np.ndarray, n_cls: int, m: int, weights: Any = None
    ) -> _Cells:
        key = ids.astype(np.int64) * max(m, 1) + codes
        if weights is None:
            pair, cnt = np.unique(key, return_counts=True)
        else:
            pair, inverse = np.unique(key, return_inverse=True)
            cnt = np.bincount(inverse.ravel(), weights=weights, minlength=len(pair))
        return cls(pair // max(m, 1), pair % max(m, 1), cnt.astype(np.int64), n_cls, m)

    def dense(self, lo: int, hi: int) -> np.ndarray:
        """Counts of classes ``lo..hi-1`` as a dense block."""
        a, b = np.searchsorted(self.cls, [lo, hi])
        out = np.zeros((hi - lo, self.m), dtype=np.float64)
        out[self.cls[a:b] - lo, self.val[a:b]] = self.cnt[a:b]
        return out


def _l_requirement(
    cells: _Cells, variant: str, l_value: float, c: float | None, col: str
) -> Requirement:
    n_cls = cells.n_cls
    distinct = np.bincount(cells.cls, minlength=n_cls)
    need = math.ceil(l_value)
    if variant == "distinct":
        fewest = int(distinct.min()) if len(distinct) else None
        return Requirement(
            "distinct l-diversity",
            "l_diversity",
            l_value,
            fewest,
            fewest is None or fewest >= need,
            column=col,
            condition=f"every class at least {need} distinct values",
        )
    if variant == "entropy":
        if not n_cls:
            return Requirement("entropy l-diversity", "l_diversity", l_value, None, True, col)
        size = np.bincount(cells.cls, weights=cells.cnt, minlength=n_cls)
        share = cells.cnt / size[cells.cls]
        entropy = -np.bincount(cells.cls, weights=share * np.log(share), minlength=n_cls)
        low = float(entropy.min())
        target = math.log(l_value)
        ok = (distinct >= need) & (entropy >= target - 1e-9 * max(1.0, target))
        return Requirement(
            "entropy l-diversity",
            "l_diversity",
            l_value,
            float(math.exp(low)),
            bool(ok.all()),
            column=col,
            condition=f"every class entropy >= ln {l_value:g}",
        )
    assert c is not None
    li = int(l_value)
    by_count = np.lexsort((-cells.cnt, cells.cls))  # each class's counts, largest first
    cls, cnt = cells.cls[by_count], cells.cnt[by_count].astype(np.float64)
    starts = np.searchsorted(cls, np.arange(n_cls))
    rank = np.arange(len(cls)) - starts[cls]
    r1 = cnt[starts] if n_cls else np.zeros(0)
    tail = np.bincount(cls, weights=np.where(rank >= li - 1, cnt, 0.0), minlength=n_cls)
    enough = distinct >= li
    ok = enough & (r1 < c * tail)
    measured: float | None = None
    if n_cls and enough.all():
        measured = float((r1 / tail).max())
    return Requirement(
        "recursive (c,l)-diversity",
        "l_diversity",
        c,
        measured,
        bool(ok.all()),
        column=col,
        condition=f"every class r1 < {c:g} * (r{li} + ... + rm)",
        note=f"required and measured are c: the largest r1 / (r{li} + ... + rm), at the "
        f"policy's l = {li}",
        l=li,
    )


def _t_distances(
    cells: _Cells, p: np.ndarray, domain: list[str], distance: str, hier: Any, col: str
) -> np.ndarray:
    n_cls, m = cells.n_cls, cells.m
    if distance == "ordered":
        try:
            keys: Any = np.array([float(v) for v in domain])
        except ValueError:
            keys = np.array(domain, dtype=str)
        perm = np.argsort(keys, kind="stable")
        p_cum = np.cumsum(p[perm])
    elif distance == "hierarchical":
        parents = _tree(hier, domain, col)
    out = np.zeros(n_cls)
    block = max(1, _BLOCK_CELLS // max(m, 1))
    for lo in range(0, n_cls, block):
        c = cells.dense(lo, min(lo + block, n_cls))
        q = c / c.sum(axis=1, keepdims=True)
        if distance == "equal":
            d = 0.5 * np.abs(q - p[None, :]).sum(axis=1)
        elif distance == "ordered":
            d = np.abs(np.cumsum(q[:, perm], axis=1) - p_cum[None, :]).sum(axis=1)
            d = d / (m - 1) if m > 1 else d * 0.0
        else:
            d = _hierarchical(q, p, parents)
        out[lo : lo + block] = d
    return out


def _tree(hier: Any, domain: list[str], col: str) -> list[np.ndarray]:
    """For each level above the leaves, the node of each node of the level below."""
    import pandas as pd

    from veil.tabular._hierarchy import Hierarchy, match_rows

    if not isinstance(hier, Hierarchy):
        raise InputError(
            f"hierarchical t-closeness of column {col!r} was re-checked without its hierarchy",
            hint="give privacy.t_closeness.hierarchy",
        )
    table = np.asarray(hier.table, dtype=object)
    rows = match_rows(hier, domain)
    labels = table[rows]  # (m, levels): each domain value's ancestors, level 0 first
    parents: list[np.ndarray] = []
    below = np.arange(len(domain))  # node id of each value at the level below
    for level in range(1, labels.shape[1]):
        node, _ = pd.factorize(pd.Series(labels[:, level].astype(str)))
        parent = np.zeros(int(below.max()) + 1 if len(below) else 0, dtype=np.int64)
        parent[below] = node
        parents.append(parent)
        below = node
    # several top nodes in the hierarchy: a root above them, whatever nodes the data reaches
    # (the height is the hierarchy's, as the anonymizer measures it)
    if len(below) and len(pd.unique(pd.Series(table[:, -1].astype(str)))) > 1:
        parents.append(np.zeros(int(below.max()) + 1, dtype=np.int64))
    return parents


def _hierarchical(q: np.ndarray, p: np.ndarray, parents: list[np.ndarray]) -> np.ndarray:
    height = float(len(parents))
    extra = p[None, :] - q  # what each leaf lacks (+) or has too much of (-)
    cost = np.zeros(len(q))
    for j, parent in enumerate(parents, start=1):
        # children sorted by their node; every node has a child, so each node is one run
        by_node = np.argsort(parent, kind="stable")
        starts = np.flatnonzero(np.diff(parent[by_node], prepend=-1))
        pos = np.add.reduceat(np.maximum(extra, 0.0)[:, by_node], starts, axis=1)
        neg = np.add.reduceat(np.maximum(-extra, 0.0)[:, by_node], starts, axis=1)
        cost += (j / height) * np.minimum(pos, neg).sum(axis=1)
        extra = pos - neg
    return cost


def population_requirements(privacy: PrivacyConfig, anonymize: Any) -> list[Requirement]:
    """delta-presence and k-map against a population: the released table alone cannot show
    them, so these carry the figures the anonymizer's re-check measured on the population."""
    population = anonymize.get("population") if isinstance(anonymize, dict) else None
    if not isinstance(population, dict):
        return []
    note = "re-checked by the anonymize stage against the population table"
    out: list[Requirement] = []
    dp, km = privacy.delta_presence, privacy.k_map
    lo, hi = population.get("delta_min"), population.get("delta_max")
    if dp is not None:
        measured = None if lo is None or hi is None else f"{lo:.4g} to {hi:.4g}"
        met = lo is None or hi is None or (dp.delta_min - 1e-9 <= lo and hi <= dp.delta_max + 1e-9)
        out.append(
            Requirement(
                "delta-presence",
                "delta_presence",
                f"{dp.delta_min:g} to {dp.delta_max:g}",
                measured,
                bool(met),
                note=note,
            )
        )
    if km is not None and km.sampling_fraction is None:
        smallest = population.get("min_class_population")
        out.append(
            Requirement(
                "k-map",
                "k_map",
                km.k,
                smallest,
                smallest is None or smallest >= km.k,
                note=note,
            )
        )
    return out
