"""Re-identification risk under the prosecutor, journalist and marketer attacker models.

The definitions follow ARX (``RiskModelSampleSummary``, ``RiskModelSampleRisks``), so the
figures a user gets from veil and from ARX on the same release agree. With ``f_j`` the size of
sample class ``j``, ``F_j`` the size of the matching class in the population, ``n`` the
records in classes (suppressed records excluded) and ``C`` the number of classes:

- **prosecutor** (the attacker knows the target is in the release): a record's risk is
  ``1/f_j``. Highest ``1/min f``; average ``C/n``; lowest ``1/max f``.
- **journalist** (the attacker holds a population table and does not know who is in the
  release): a record's risk is ``1/F_j``. Highest ``1/min F``; average
  ``max(C / sum F_j, (1/n) sum f_j/F_j)``. Without population information the release is its
  own population and journalist risk equals prosecutor risk (what ARX does). With only a
  sampling fraction ``pi``, ``F_j`` is estimated as ``f_j / pi`` (at least ``f_j``).
- **marketer** (the attacker wants to re-identify as many as possible): the expected share
  re-identified, ``(1/n) sum_j f_j / F_j``; ``C/n`` without population information.

"Records at highest risk" is the number of records in classes of the smallest size; "records
above the threshold" counts records whose risk exceeds a threshold (ARX's "records at risk").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError
from veil.risk._classes import EquivalenceClasses, check_columns, encode_column

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RISK_BUCKETS",
    "ReidentificationRisk",
    "population_class_sizes",
    "reidentification_risk",
]

# Upper edges of the risk buckets of the risk distribution (records per bucket).
RISK_BUCKETS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 1 / 3, 0.5, 1.0)


@dataclass(frozen=True)
class ReidentificationRisk:
    """Risk figures of a release. ``to_dict()`` gives the JSON form (see the module docstring)."""

    records: int
    classes: int
    threshold: float
    prosecutor: dict[str, float | int]
    journalist: dict[str, Any]
    marketer: dict[str, Any]
    sample_uniques: int
    distribution: list[dict[str, float | int]]
    class_sizes: list[tuple[int, int]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "classes": self.classes,
            "threshold": self.threshold,
            "prosecutor": dict(self.prosecutor),
            "journalist": dict(self.journalist),
            "marketer": dict(self.marketer),
            "sample_uniques": {
                "records": self.sample_uniques,
                "share": self.sample_uniques / self.records if self.records else 0.0,
            },
            "distribution": list(self.distribution),
            "class_sizes": [{"size": s, "classes": c} for s, c in self.class_sizes],
        }


def population_class_sizes(
    classes: EquivalenceClasses,
    released: pd.DataFrame,
    population: pd.DataFrame,
) -> np.ndarray:
    """For each sample class, the number of population rows with the same QI values.

    ``population`` must hold the quasi-identifiers in the release's (generalized) domain.
    A sample class absent from the population gets its sample size (the population contains
    the sample).
    """
    import pandas as pd

    qis = list(classes.quasi_identifiers)
    check_columns(population, qis, "quasi-identifier (population table)")
    keep = classes.retained
    sample = released.loc[:, qis].iloc[keep].reset_index(drop=True)
    pop = population.loc[:, qis].reset_index(drop=True)
    both = pd.concat([sample, pop], ignore_index=True)
    key = np.zeros(len(both), dtype=np.int64)
    for q in qis:
        codes, card = encode_column(both[q], q)
        key, _ = _dense_key(key * max(card, 1) + codes)
    s_key, p_key = key[: len(sample)], key[len(sample) :]
    p_counts = np.bincount(p_key, minlength=int(key.max()) + 1 if len(key) else 0)
    first_row = np.full(classes.n_classes, -1, dtype=np.int64)
    cls = classes.class_of_row[keep]
    first_row[cls[::-1]] = np.arange(len(cls))[::-1]
    sizes_pop = p_counts[s_key[first_row]]
    return np.maximum(sizes_pop, classes.sizes)


def _dense_key(key: np.ndarray) -> tuple[np.ndarray, int]:
    import pandas as pd

    codes, uniques = pd.factorize(key)
    return codes.astype(np.int64), len(uniques)


def _summary(sample: np.ndarray, pop: np.ndarray, threshold: float) -> dict[str, float | int]:
    n = float(sample.sum())
    smallest = pop.min()
    at_highest = int(sample[pop == smallest].sum())
    above = int(sample[1.0 / pop > threshold].sum())
    avg = max(len(sample) / float(pop.sum()), float((sample / pop).sum()) / n)
    return {
        "highest": float(1.0 / smallest),
        "average": float(avg),
        "lowest": float(1.0 / pop.max()),
        "records_at_highest": at_highest,
        "share_at_highest": at_highest / n,
        "records_above_threshold": above,
        "share_above_threshold": above / n,
    }


def _empty_summary() -> dict[str, float | int]:
    return {
        "highest": 0.0,
        "average": 0.0,
        "lowest": 0.0,
        "records_at_highest": 0,
        "share_at_highest": 0.0,
        "records_above_threshold": 0,
        "share_above_threshold": 0.0,
    }


def reidentification_risk(
    classes: EquivalenceClasses,
    *,
    threshold: float = 0.2,
    population_sizes: Sequence[int] | np.ndarray | None = None,
    sampling_fraction: float | None = None,
) -> ReidentificationRisk:
    """Prosecutor, journalist and marketer risk of a release.

    Parameters
    ----------
    classes
        Equivalence classes of the release (suppressed rows excluded).
    threshold
        A record is "at risk" when its risk exceeds this (default 0.2, i.e. classes below 5).
    population_sizes
        Per sample class, the size of the matching population class
        (see :func:`population_class_sizes`).
    sampling_fraction
        Share of the population the release covers, when no population table is at hand.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.risk import equivalence_classes
    >>> ec = equivalence_classes(pd.DataFrame({"a": [1, 1, 2, 2, 2]}), ["a"])
    >>> reidentification_risk(ec).prosecutor["highest"]
    0.5
    """
    if not 0 < threshold <= 1:
        raise InputError(f"the risk threshold must be in (0, 1], got {threshold}")
    if sampling_fraction is not None and not 0 < sampling_fraction <= 1:
        raise InputError(f"the sampling fraction must be in (0, 1], got {sampling_fraction}")
    if population_sizes is not None and sampling_fraction is not None:
        raise InputError("give a population table or a sampling fraction, not both")
    sizes = classes.sizes.astype(float)
    n = classes.n_records
    if n == 0:
        empty = _empty_summary()
        return ReidentificationRisk(
            records=0,
            classes=0,
            threshold=threshold,
            prosecutor=empty,
            journalist={**empty, "population": "none"},
            marketer={"average": 0.0},
            sample_uniques=0,
            distribution=_distribution(sizes, sizes),
            class_sizes=[],
        )
    source = "sample"
    if population_sizes is not None:
        pop = np.asarray(population_sizes, dtype=float)
        if pop.shape != sizes.shape:
            raise InputError(
                f"population sizes have shape {pop.shape}, expected ({classes.n_classes},)"
            )
        pop = np.maximum(pop, sizes)
        source = "population table"
    elif sampling_fraction is not None:
        pop = np.maximum(sizes / sampling_fraction, sizes)
        source = "sampling fraction"
    else:
        pop = sizes
    prosecutor = _summary(sizes, sizes, threshold)
    prosecutor["average"] = classes.n_classes / n  # C/n exactly, as ARX
    journalist: dict[str, Any] = dict(_summary(sizes, pop, threshold))
    journalist["population"] = source
    marketer = {"average": float((sizes / pop).sum() / n), "population": source}
    return ReidentificationRisk(
        records=n,
        classes=classes.n_classes,
        threshold=threshold,
        prosecutor=prosecutor,
        journalist=journalist,
        marketer=marketer,
        sample_uniques=int((classes.sizes == 1).sum()),
        distribution=_distribution(sizes, sizes),
        class_sizes=classes.size_histogram(),
    )


def _distribution(sizes: np.ndarray, pop: np.ndarray) -> list[dict[str, float | int]]:
    """Records per prosecutor-risk bucket ``(lower, upper]``."""
    risk = 1.0 / pop if len(pop) else pop
    out = []
    lower = 0.0
    total = float(sizes.sum()) or 1.0
    for upper in RISK_BUCKETS:
        sel = (risk > lower) & (risk <= upper + 1e-12)
        recs = int(sizes[sel].sum())
        out.append({"lower": lower, "upper": upper, "records": recs, "share": recs / total})
        lower = upper
    return out
