"""One call for the whole measurement of a release: levels, risk, uniqueness, inference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veil.risk._attacks import attribute_inference
from veil.risk._classes import EquivalenceClasses, equivalence_classes
from veil.risk._reid import ReidentificationRisk, population_class_sizes, reidentification_risk
from veil.risk._uniqueness import PopulationUniqueness, population_uniqueness
from veil.risk._verify import VerificationReport, verify

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

__all__ = ["RiskAssessment", "assess"]


@dataclass(frozen=True)
class RiskAssessment:
    """What :func:`assess` measured. ``to_dict()`` is the JSON of ``veil risk --json``."""

    classes: EquivalenceClasses
    levels: VerificationReport
    risk: ReidentificationRisk
    uniqueness: PopulationUniqueness | None
    inference: dict[str, dict[str, float]]

    def to_dict(self) -> dict[str, Any]:
        out = self.levels.to_dict()
        out["risk"] = self.risk.to_dict()
        out["population_uniqueness"] = self.uniqueness.to_dict() if self.uniqueness else None
        out["attribute_inference"] = self.inference
        if self.classes.n_records == 0:
            out["note"] = "every row is suppressed: no class exists, levels are undefined"
        return out

    def __rich__(self) -> RenderableType:
        from rich.table import Table

        d = self.to_dict()
        table = Table(title="veil risk", show_header=True, header_style="bold")
        table.add_column("measure")
        table.add_column("value", justify="right")

        def row(name: str, value: Any) -> None:
            if isinstance(value, float):
                value = f"{value:.6g}"
            table.add_row(name, "-" if value is None else str(value))

        row("rows", d["rows"])
        row("suppressed rows", d["suppressed_rows"])
        row("equivalence classes", d["classes"])
        row("k", d["k"])
        if d["sensitive"]:
            row("l (distinct)", d["l"]["distinct"])
            row("l (entropy)", d["l"]["entropy"])
            row("t (equal distance)", d["t"]["equal"])
            row("t (ordered distance)", d["t"]["ordered"])
            row("alpha", d["alpha"])
            row("beta (basic)", d["beta_likeness"]["basic"])
            row("delta-disclosure", d["delta_disclosure"])
        r = d["risk"]
        row("prosecutor risk, highest", r["prosecutor"]["highest"])
        row("prosecutor risk, average", r["prosecutor"]["average"])
        row("records at highest risk", r["prosecutor"]["records_at_highest"])
        row(f"records above risk {r['threshold']:g}", r["prosecutor"]["records_above_threshold"])
        row("journalist risk, highest", r["journalist"]["highest"])
        row("journalist risk, average", r["journalist"]["average"])
        row("marketer risk", r["marketer"]["average"])
        row("sample uniques", r["sample_uniques"]["records"])
        pu = d["population_uniqueness"]
        if pu:
            for name, est in pu["estimates"].items():
                row(f"population uniques ({name})", est["uniques"])
        for s, inf in d["attribute_inference"].items():
            row(f"homogeneous classes' records ({s})", inf["homogeneous"])
        return table


def assess(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    suppressed: Any = None,
    marker: str | None = None,
    threshold: float = 0.2,
    population: pd.DataFrame | None = None,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    recursive_l: int | None = None,
    orders: Mapping[str, Sequence[Any]] | None = None,
    weights: Any = None,
) -> RiskAssessment:
    """Measure a release: levels, re-identification risk, uniqueness, attribute inference.

    Parameters
    ----------
    df
        The release; any index and row order.
    quasi_identifiers, sensitive
        Column names.
    suppressed, marker
        Suppressed rows: a boolean mask, or a marker every QI of such a row equals.
    threshold
        Risk above which a record counts as at risk (default 0.2).
    population
        A population table over the same (generalized) quasi-identifiers, for journalist and
        marketer risk.
    sampling_fraction, population_size
        Alternatively, the share of the population in the release, or the population size;
        either one also enables the population-uniqueness estimates.
    weights
        Records each row stands for: a release given as its distinct rows with their
        counts (the Ray engine's aggregate) measures as the records would.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": ["<30"] * 3 + [">=30"] * 2, "dx": ["a", "b", "a", "a", "c"]})
    >>> a = assess(df, ["age"], ["dx"])
    >>> a.levels.k, a.risk.prosecutor["highest"]
    (2, 0.5)
    """
    classes = equivalence_classes(
        df, quasi_identifiers, suppressed=suppressed, marker=marker, weights=weights
    )
    levels = verify(
        df, quasi_identifiers, sensitive, recursive_l=recursive_l, orders=orders, classes=classes
    )
    pop_sizes = population_class_sizes(classes, df, population) if population is not None else None
    frac = sampling_fraction
    if population_size is not None and classes.n_records:
        frac = min(1.0, classes.n_records / population_size)
    risk = reidentification_risk(
        classes, threshold=threshold, population_sizes=pop_sizes, sampling_fraction=frac
    )
    uniq = None
    if classes.n_records and (sampling_fraction is not None or population_size is not None):
        uniq = population_uniqueness(
            classes.sizes,
            population_size=population_size,
            sampling_fraction=None if population_size is not None else sampling_fraction,
        )
    inference = attribute_inference(classes, df, [str(s) for s in sensitive])
    return RiskAssessment(classes, levels, risk, uniq, inference)
