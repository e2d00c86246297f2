"""Privacy models evaluated on equivalence classes, as ARX defines them.

Every model works on arrays describing the equivalence classes of a (generalized or
partitioned) table, never on rows:

``sizes``
    ``int64`` array, the number of records in each class.
``histograms``
    ``{sensitive column: int64 array (n_classes, n_codes)}``: how often each sensitive
    code occurs in each class. Codes index :class:`SensitiveDomain.values`. With a
    population table, ``histograms[POPULATION]`` (shape ``(n_classes, 1)``) holds the
    population size of each class; a class may then hold 0 records of the input (only
    population records): it is not released, and whatever a model says about it suppresses
    no record.

:meth:`PrivacyModel.satisfied` returns one boolean per class. Classes that fail any model
are suppressed (all their quasi-identifiers become ``*``); a release is acceptable when the
suppressed records stay within the suppression limit. This is exactly ARX's semantics: the
models are checked per class, the t-closeness reference distribution is the distribution of
the sensitive attribute over the *whole input* (suppressed records included), and classes
failing l-diversity or t-closeness are suppressed like classes smaller than k.

The same API serves the optimal full-domain search and local recoding (Mondrian):

>>> import numpy as np
>>> from veil.tabular._privacy_models import KAnonymityModel
>>> KAnonymityModel(k=3).satisfied(np.array([5, 2, 3]), {}).tolist()
[True, False, True]
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from veil._errors import PolicyError

if TYPE_CHECKING:
    from veil.policy import PrivacyConfig

__all__ = [
    "POPULATION",
    "DeltaPresenceModel",
    "DistinctLDiversityModel",
    "EntropyLDiversityModel",
    "EqualDistanceTClosenessModel",
    "HierarchicalDistanceTClosenessModel",
    "KAnonymityModel",
    "KMapModel",
    "OrderedDistanceTClosenessModel",
    "PrivacyModel",
    "RecursiveCLDiversityModel",
    "SensitiveDomain",
    "build_models",
    "classes_satisfying",
    "whole_table_failures",
]

Histograms = Mapping[str, np.ndarray]

#: Histogram name of the population size of each class (shape ``(n_classes, 1)``).
POPULATION = "__population__"


@dataclass(frozen=True)
class SensitiveDomain:
    """What a model needs to know about one encoded sensitive attribute.

    Parameters
    ----------
    name
        Column name.
    global_counts
        ``int64`` count of each code over the whole input table (the t-closeness reference).
    order
        For ordered-distance EMD: the codes sorted by value (``order[i]`` is the code of rank i).
    hierarchy
        For hierarchical-distance EMD: one ``int64`` array per level above the leaves, mapping
        each code to its ancestor at that level (level 1 first, the root last).
    """

    name: str
    global_counts: np.ndarray
    order: np.ndarray | None = None
    hierarchy: tuple[np.ndarray, ...] | None = None

    @property
    def n_codes(self) -> int:
        return int(self.global_counts.shape[0])


class PrivacyModel(ABC):
    """A syntactic privacy model checked class by class.

    Attributes
    ----------
    name
        Key used in reports (``satisfied`` maps it to a bool).
    column
        The sensitive column the model reads, or ``None``.
    monotonic_generalization
        Whether a class built by merging classes that satisfy the model satisfies it too
        (so, without suppression, every generalization of a satisfying node satisfies it).
    monotonic_suppression
        Whether that also holds with record suppression: merging a satisfying class with any
        other class yields a satisfying class. Only then may a search prune generalizations
        of a node that satisfies the model within the suppression limit.
    """

    name: ClassVar[str]
    monotonic_generalization: ClassVar[bool] = True
    monotonic_suppression: ClassVar[bool] = False
    column: str | None = None

    @abstractmethod
    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        """One boolean per class: does the class satisfy the model."""

    def check(self, sizes: np.ndarray, histograms: Histograms) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`satisfied`, and per class a lower bound of the share of its records that
        fail the model however the class is split into smaller classes (as any less
        generalized transformation splits it): 1 for a failing class of a model monotonic
        under suppression (every part of it fails too), 0 where nothing is known."""
        ok = np.asarray(self.satisfied(sizes, histograms), dtype=bool)
        if self.monotonic_suppression:
            return ok, (~ok).astype(np.float64)
        return ok, np.zeros(len(ok))

    def minimal_class_size(self) -> int:
        """A class smaller than this can never satisfy the model."""
        return 1

    def describe(self) -> dict[str, Any]:
        """JSON-able parameters (never data values)."""
        return {"model": self.name}

    def _hist(self, histograms: Histograms) -> np.ndarray:
        assert self.column is not None
        try:
            return histograms[self.column]
        except KeyError:
            if self.column == POPULATION:
                raise PolicyError(
                    f"{self.name} needs a population table",
                    key=f"privacy.{self.name}.population",
                ) from None
            raise PolicyError(
                f"{self.name} needs the histogram of sensitive column {self.column!r}"
            ) from None


@dataclass
class KAnonymityModel(PrivacyModel):
    """Every class holds at least ``k`` records."""

    k: int
    name: ClassVar[str] = "k_anonymity"
    monotonic_suppression: ClassVar[bool] = True

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        return np.asarray(sizes) >= self.k

    def minimal_class_size(self) -> int:
        return self.k

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "k": self.k}


@dataclass
class DistinctLDiversityModel(PrivacyModel):
    """Every class holds at least ``l`` distinct sensitive values."""

    l: float  # noqa: E741 - the model's own name
    column: str | None = None
    name: ClassVar[str] = "l_diversity"
    monotonic_suppression: ClassVar[bool] = True

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms)
        return np.count_nonzero(h, axis=1) >= math.ceil(self.l)

    def minimal_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "variant": "distinct", "l": self.l, "column": self.column}


@dataclass
class EntropyLDiversityModel(PrivacyModel):
    """Entropy of the sensitive values in each class is at least ``log(l)`` (Shannon).

    As ARX: a class needs ``ceil(l)`` distinct values and
    ``sum_i f_i ln f_i <= n (ln n - ln l)``.
    """

    l: float  # noqa: E741
    column: str | None = None
    name: ClassVar[str] = "l_diversity"

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms).astype(np.float64)
        n = h.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            flogf = np.where(h > 0, h * np.log(np.where(h > 0, h, 1.0)), 0.0).sum(axis=1)
            bound = n * (np.log(np.where(n > 0, n, 1.0)) - math.log(self.l))
        distinct = np.count_nonzero(h, axis=1) >= math.ceil(self.l)
        # entropy exactly log(l) (l values, equally often) satisfies the model; both sides
        # are sums of logarithms that round differently, so equality is judged to a relative
        # 1e-9, else a class of 2, 2, 2 failed l = 3 while its parts of 1, 1, 1 passed and a
        # search pruning by monotonicity missed them
        slack = 1e-9 * np.maximum(1.0, np.abs(flogf))
        return distinct & ~(bound < flogf - slack)

    def minimal_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "variant": "entropy", "l": self.l, "column": self.column}


@dataclass
class RecursiveCLDiversityModel(PrivacyModel):
    """Recursive (c,l)-diversity: ``r_1 < c (r_l + r_{l+1} + ... + r_m)``.

    ``r_i`` are the sensitive-value counts of a class in descending order (as ARX).
    """

    c: float
    l: int  # noqa: E741
    column: str | None = None
    name: ClassVar[str] = "l_diversity"

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms)
        if h.shape[0] == 0:
            return np.zeros(0, dtype=bool)
        r = -np.sort(-h, axis=1)  # descending
        distinct = np.count_nonzero(h, axis=1)
        tail = r[:, self.l - 1 :].sum(axis=1) if self.l - 1 < r.shape[1] else np.zeros(len(h))
        return (distinct >= self.l) & (r[:, 0] < self.c * tail)

    def minimal_class_size(self) -> int:
        return self.l

    def describe(self) -> dict[str, Any]:
        return {
            "model": self.name,
            "variant": "recursive",
            "c": self.c,
            "l": self.l,
            "column": self.column,
        }


@dataclass
class _TClosenessBase(PrivacyModel):
    t: float
    domain: SensitiveDomain = field(repr=False)
    column: str | None = None
    name: ClassVar[str] = "t_closeness"
    distance: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.column = self.domain.name
        total = float(self.domain.global_counts.sum())
        self._p = self.domain.global_counts / total if total else self.domain.global_counts * 0.0

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "distance": self.distance, "t": self.t, "column": self.column}

    def distances(self, histograms: Histograms) -> np.ndarray:
        """Earth mover's distance of each class to the global distribution."""
        raise NotImplementedError

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        return self.distances(histograms) <= self.t

    #: slack on distances for the share bound of :meth:`check`, against rounding
    SHARE_SLACK = 1e-9

    def check(self, sizes: np.ndarray, histograms: Histograms) -> tuple[np.ndarray, np.ndarray]:
        """Every EMD here is convex in the class distribution and at most 1. A class at
        distance ``d`` split into parts with shares ``w_i`` and distances ``d_i`` has
        ``d <= sum w_i d_i <= W + (1 - W) t``, ``W`` the share of parts farther than ``t``:
        so ``W >= (d - t) / (1 - t)``."""
        d = self.distances(histograms)
        if self.t >= 1.0:
            return d <= self.t, np.zeros(len(d))
        share = np.maximum(d - self.t - self.SHARE_SLACK, 0.0) / (1.0 - self.t)
        return d <= self.t, share


@dataclass
class EqualDistanceTClosenessModel(_TClosenessBase):
    """EMD with equal ground distance: ``0.5 * sum_i |p_i - q_i|`` <= t (categorical)."""

    distance: ClassVar[str] = "equal"

    def distances(self, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms).astype(np.float64)
        n = h.sum(axis=1, keepdims=True)
        q = h / np.where(n > 0, n, 1.0)
        return np.abs(self._p[None, :] - q).sum(axis=1) / 2.0


@dataclass
class OrderedDistanceTClosenessModel(_TClosenessBase):
    """EMD with ordered ground distance (numeric / ordinal values).

    ``sum_i |sum_{j<=i} (q_j - p_j)| / (m - 1)`` over the values in order, as ARX.
    """

    distance: ClassVar[str] = "ordered"

    def distances(self, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms).astype(np.float64)
        order = self.domain.order
        if order is None:
            order = np.arange(h.shape[1])
        m = h.shape[1]
        n = h.sum(axis=1, keepdims=True)
        q = h / np.where(n > 0, n, 1.0)
        diff = (q - self._p[None, :])[:, order]
        d = np.abs(np.cumsum(diff, axis=1)).sum(axis=1)
        return d / (m - 1) if m > 1 else d * 0.0


@dataclass
class HierarchicalDistanceTClosenessModel(_TClosenessBase):
    """EMD with the hierarchical ground distance of Li et al. (as ARX).

    Each inner node at level ``j`` of a hierarchy of height ``H`` costs
    ``j / H * min(positive extra, negative extra)`` of its children. A hierarchy whose top
    level has more than one node gets a root above it (the tree of the ground distance has
    one root; without it, mass moving between top-level groups would cost nothing).
    """

    distance: ClassVar[str] = "hierarchical"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.domain.hierarchy:
            raise PolicyError(
                "hierarchical t-closeness needs a hierarchy for the sensitive column",
                key="privacy.t_closeness.hierarchy",
            )

    def distances(self, histograms: Histograms) -> np.ndarray:
        h = self._hist(histograms).astype(np.int64)
        big_p = int(self.domain.global_counts.sum())
        q_tot = h.sum(axis=1)
        # extra of each leaf: p_i*Q - q_i*P (integers, as ARX, to avoid rounding)
        extra = self.domain.global_counts[None, :] * q_tot[:, None] - h * big_p
        levels = tuple(self.domain.hierarchy or ())
        if not levels or int(levels[-1].max(initial=0)) > 0:
            # a hierarchy whose top level still has several nodes is topped by an implicit
            # root: mass that moves between those nodes travels through it, at full cost
            levels = (*levels, np.zeros(h.shape[1], dtype=np.int64))
        height = float(len(levels))
        cost = np.zeros(h.shape[0], dtype=np.float64)
        prev_map = np.arange(h.shape[1])  # leaf -> node at the previous level
        prev_extra = extra
        for j, leaf_to_node in enumerate(levels, start=1):
            n_nodes = int(leaf_to_node.max()) + 1 if len(leaf_to_node) else 0
            # parent of each previous-level node
            parent = np.zeros(prev_extra.shape[1], dtype=np.int64)
            parent[prev_map] = leaf_to_node
            pos = np.zeros((h.shape[0], n_nodes), dtype=np.int64)
            neg = np.zeros((h.shape[0], n_nodes), dtype=np.int64)
            np.add.at(pos.T, parent, np.maximum(prev_extra, 0).T)
            np.add.at(neg.T, parent, np.maximum(-prev_extra, 0).T)
            cost += (j / height) * np.minimum(pos, neg).sum(axis=1)
            prev_extra = pos - neg
            prev_map = leaf_to_node
        denom = float(big_p) * q_tot.astype(np.float64)
        return cost / np.where(denom > 0, denom, 1.0)


@dataclass
class DeltaPresenceModel(PrivacyModel):
    """delta-presence (Nergiz, Atzori, Clifton 2007), as ARX checks it.

    The released table is a subset of a population table. For every released class,
    ``delta = |class in the subset| / |class in the population|`` must lie in
    ``[delta_min, delta_max]``: whoever knows someone's quasi-identifiers (and that they are
    in the population) learns that they are in the subset with probability at most
    ``delta_max``. Needs ``histograms[POPULATION]``. A class with no subset record is not
    released and is satisfied (ARX: ``delta`` of an empty class is not checked).

    Not monotone (merging classes can bring delta into the range or out of it), so a search
    never prunes with it; ARX marks it the same way.

    >>> import numpy as np
    >>> m = DeltaPresenceModel(delta_min=0.1, delta_max=0.5)
    >>> m.satisfied(np.array([1, 3, 0]), {POPULATION: np.array([[4], [4], [9]])}).tolist()
    [True, False, True]
    """

    delta_min: float
    delta_max: float
    name: ClassVar[str] = "delta_presence"
    monotonic_generalization: ClassVar[bool] = False
    column: str | None = POPULATION

    def deltas(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        """``size / population size`` of each class (0 for a class without population)."""
        pop = self._hist(histograms)[:, 0].astype(np.float64)
        return np.asarray(sizes, dtype=np.float64) / np.where(pop > 0, pop, 1.0)

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        delta = self.deltas(sizes, histograms)
        in_range = (delta >= self.delta_min) & (delta <= self.delta_max)
        return in_range | (np.asarray(sizes) == 0)

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "delta_min": self.delta_min, "delta_max": self.delta_max}


@dataclass
class KMapModel(PrivacyModel):
    """k-map (Sweeney): each released class matches at least ``k`` people of the population.

    With a population table, its class sizes come in ``histograms[POPULATION]`` (exact, as
    ARX's k-map with a research subset). With only a sampling fraction ``f``, the population
    size of a class is estimated as ``size / f`` (a plain scale-up estimate; ARX offers
    statistical estimators instead). Monotone either way: merging classes only grows them.

    >>> import numpy as np
    >>> KMapModel(k=5).satisfied(np.array([1, 2]), {POPULATION: np.array([[7], [3]])}).tolist()
    [True, False]
    """

    k: int
    sampling_fraction: float | None = None
    name: ClassVar[str] = "k_map"
    monotonic_suppression: ClassVar[bool] = True
    column: str | None = None

    def __post_init__(self) -> None:
        self.column = POPULATION if self.sampling_fraction is None else None

    def satisfied(self, sizes: np.ndarray, histograms: Histograms) -> np.ndarray:
        if self.sampling_fraction is not None:
            est = np.asarray(sizes, dtype=np.float64) / self.sampling_fraction
            return est >= self.k
        return self._hist(histograms)[:, 0] >= self.k

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.name, "k": self.k}
        out["sampling_fraction"] = self.sampling_fraction
        if self.sampling_fraction is None:
            out["population"] = "table"
        return out


def classes_satisfying(
    models: Sequence[PrivacyModel], sizes: np.ndarray, histograms: Histograms
) -> np.ndarray:
    """Boolean mask of the classes that satisfy every model (the others are suppressed).

    Examples
    --------
    >>> import numpy as np
    >>> from veil.tabular._privacy_models import DistinctLDiversityModel, KAnonymityModel
    >>> h = {"disease": np.array([[3, 0], [1, 1], [0, 4]])}
    >>> models = [KAnonymityModel(k=2), DistinctLDiversityModel(l=2, column="disease")]
    >>> classes_satisfying(models, np.array([3, 2, 4]), h).tolist()
    [False, True, False]
    """
    ok = np.ones(len(sizes), dtype=bool)
    for model in models:
        ok &= model.satisfied(sizes, histograms)
    return ok


def whole_table_failures(
    models: Sequence[PrivacyModel], domains: Mapping[str, SensitiveDomain]
) -> list[str]:
    """Sensitive columns whose model fails even with the whole input as one class (a column,
    never a value: the hint of a refusal).

    Examples
    --------
    >>> import numpy as np
    >>> doms = {"a": SensitiveDomain("a", np.array([5, 5])), "b": SensitiveDomain("b", np.array([10]))}
    >>> models = [DistinctLDiversityModel(l=2, column=c) for c in doms]
    >>> whole_table_failures(models, doms)
    ['b']
    """
    out: list[str] = []
    for model in models:
        col = model.column
        if col is None or col not in domains or col in out:
            continue
        counts = np.asarray(domains[col].global_counts, dtype=np.int64)[None, :]
        if not model.satisfied(counts.sum(axis=1), {col: counts})[0]:
            out.append(col)
    return out


def build_models(
    privacy: PrivacyConfig,
    domains: Mapping[str, SensitiveDomain],
    *,
    sensitive: Sequence[str] = (),
    default_column: str | None = None,
) -> list[PrivacyModel]:
    """Turn the ``privacy:`` section of a policy into model objects.

    An l-diversity or t-closeness section that names no column gives one model per
    sensitive column, each judged on that column's histogram alone (as ARX attaches a model
    to each sensitive attribute): a class is kept only when every column meets it.

    Parameters
    ----------
    privacy
        The policy's privacy section.
    domains
        Encoded sensitive columns by name.
    sensitive
        The sensitive columns, in policy order: what a model that names no column protects.
    default_column
        Shorthand for ``sensitive=[default_column]`` (a single sensitive column).

    Examples
    --------
    >>> import numpy as np
    >>> from veil.policy import PrivacyConfig
    >>> doms = {c: SensitiveDomain(c, np.array([2, 2])) for c in ("disease", "salary")}
    >>> models = build_models(PrivacyConfig(l_diversity={"l": 2}), doms, sensitive=list(doms))
    >>> [m.column for m in models]
    ['disease', 'salary']
    """
    if not sensitive and default_column is not None:
        sensitive = (default_column,)
    models: list[PrivacyModel] = []
    if privacy.k_anonymity is not None:
        models.append(KAnonymityModel(k=privacy.k_anonymity.k))
    ld = privacy.l_diversity
    if ld is not None:
        cols = ld.applies_to(sensitive)
        if not cols or any(col not in domains for col in cols):
            raise PolicyError("l-diversity needs a sensitive column", key="privacy.l_diversity")
        for col in cols:
            if ld.variant == "distinct":
                models.append(DistinctLDiversityModel(l=ld.l, column=col))
            elif ld.variant == "entropy":
                models.append(EntropyLDiversityModel(l=ld.l, column=col))
            else:
                assert ld.c is not None
                models.append(RecursiveCLDiversityModel(c=ld.c, l=int(ld.l), column=col))
    tc = privacy.t_closeness
    if tc is not None:
        cols = tc.applies_to(sensitive)
        if not cols or any(col not in domains for col in cols):
            raise PolicyError("t-closeness needs a sensitive column", key="privacy.t_closeness")
        cls: type[_TClosenessBase] = {
            "equal": EqualDistanceTClosenessModel,
            "ordered": OrderedDistanceTClosenessModel,
            "hierarchical": HierarchicalDistanceTClosenessModel,
        }[tc.distance]
        models.extend(cls(t=tc.t, domain=domains[col]) for col in cols)
    if privacy.delta_presence is not None:
        dp = privacy.delta_presence
        models.append(DeltaPresenceModel(delta_min=dp.delta_min, delta_max=dp.delta_max))
    if privacy.k_map is not None:
        km = privacy.k_map
        models.append(KMapModel(k=km.k, sampling_fraction=km.sampling_fraction))
    return models
