"""``anonymize(df, config)``: release a table that satisfies the privacy models.

The optimal full-domain path: build the hierarchies, encode the table once into a frequency
table, search the lattice for the transformation with the least information loss (ARX's
semantics and metrics), apply it to the whole table in one vectorized pass, suppress the
records of the classes that fail the models (their quasi-identifiers all become ``*``, the
row stays, as ARX does) and re-check the release with an independent group-by.

``search: {algorithm: mondrian}`` dispatches to local recoding (:mod:`veil.tabular._mondrian`);
``mdav`` (microaggregation) and ``cell_suppression`` (local cell suppression) to
:mod:`veil.tabular._anonymize_sdc`. Every algorithm's release goes through the same re-check.
With delta-presence or k-map against a population (:mod:`veil.tabular._population`), the
population is encoded into the same frequency table (its count per combination), the release
is the subset only, and the re-check generalizes the population independently.

``search: {algorithm: mondrian}`` dispatches to local recoding (:mod:`veil.tabular._mondrian`).

Examples
--------
>>> from veil.data import adult_frame, adult_hierarchy_path, ADULT_QUASI_IDENTIFIERS
>>> from veil.tabular import AnonymizeConfig, anonymize, read_arx_hierarchy
>>> df = adult_frame()
>>> qis = list(ADULT_QUASI_IDENTIFIERS)
>>> config = AnonymizeConfig.build(
...     qis,
...     {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in qis},
...     k=5,
... )
>>> result = anonymize(df, config)
>>> result.transformation["age"], round(result.information_loss["loss"], 6)
(4, 0.542211)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import (
    InputError,
    PolicyError,
    PrivacyRequirementNotMet,
    SchemaError,
    StageUnavailableError,
)
from veil._numeric import coerce_numbers
from veil._progress import NullProgress, Progress
from veil.tabular._encoding import FrequencyTable, encode
from veil.tabular._hierarchy import Hierarchy, build_hierarchy, value_labels
from veil.tabular._metrics import METRICS, NodeClasses
from veil.tabular._population import Population, check_contained, split_population
from veil.tabular._privacy_models import (
    POPULATION,
    PrivacyModel,
    build_models,
    whole_table_failures,
)
from veil.tabular._search import LatticeSearch, SearchResult, evaluate_node

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import HierarchyConfig, Policy, PrivacyConfig, SearchConfig

__all__ = ["AnonymizationResult", "AnonymizeConfig", "anonymize"]

SUPPRESSED = "*"


@dataclass(frozen=True)
class AnonymizeConfig:
    """What to protect and how.

    Parameters
    ----------
    quasi_identifiers
        Columns an attacker may know, in lattice order.
    hierarchies
        Column -> :class:`Hierarchy` or a policy hierarchy config (built from the data).
    privacy
        The policy's privacy section (k, l, t, delta-presence, k-map, suppression limit).
    search
        Algorithm (``optimal``, ``mondrian``, ``mdav`` or ``cell_suppression``), metric and
        gs-factor (optimal only), ``round_to`` (mdav only).
    sensitive
        Sensitive columns. An l-diversity or t-closeness model that names no column
        protects every one of them, each on its own.
    numeric
        Quasi-identifiers that must hold numbers (checked; ranges in Mondrian).
    sensitive_hierarchies
        Hierarchies of sensitive columns, for hierarchical t-closeness.
    base_dir
        Folder that relative hierarchy and population paths are resolved against.
    population
        The population table of delta-presence / k-map, given in Python; without it the
        file the privacy section names is read (relative to ``base_dir``).
    read_options
        How to read that file (``separator``, ``encoding``, ... of :func:`veil.io.read_table`);
        a policy passes its input's options.
    """

    quasi_identifiers: tuple[str, ...]
    hierarchies: Mapping[str, Hierarchy | HierarchyConfig]
    privacy: PrivacyConfig
    search: SearchConfig
    sensitive: tuple[str, ...] = ()
    numeric: frozenset[str] = frozenset()
    sensitive_hierarchies: Mapping[str, Hierarchy | HierarchyConfig] = field(default_factory=dict)
    base_dir: Path | None = None
    population: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    read_options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        quasi_identifiers: Sequence[str],
        hierarchies: Mapping[str, Hierarchy | HierarchyConfig],
        *,
        k: int | None = None,
        l: float | None = None,  # noqa: E741
        t: float | None = None,
        sensitive: Sequence[str] = (),
        suppression_limit: float = 0.0,
        metric: str = "loss",
        algorithm: str = "optimal",
        round_to: int | None = None,
    ) -> AnonymizeConfig:
        """A config from plain arguments (distinct l-diversity, equal-distance t-closeness)."""
        from veil.policy import PrivacyConfig, SearchConfig

        privacy: dict[str, Any] = {"suppression_limit": suppression_limit}
        if k is not None:
            privacy["k_anonymity"] = {"k": k}
        if l is not None:
            privacy["l_diversity"] = {"l": l}
        if t is not None:
            privacy["t_closeness"] = {"t": t}
        return cls(
            tuple(quasi_identifiers),
            dict(hierarchies),
            PrivacyConfig.model_validate(privacy),
            SearchConfig.model_validate(
                {"metric": metric, "algorithm": algorithm, "round_to": round_to}
            ),
            tuple(sensitive),
        )

    @classmethod
    def from_policy(cls, policy: Policy) -> AnonymizeConfig:
        """The anonymization part of a policy."""
        qis = tuple(policy.quasi_identifiers)
        hier: dict[str, Hierarchy | HierarchyConfig] = {}
        for q in qis:
            h = policy.columns[q].hierarchy
            if h is not None:  # the optimal search builds 'auto' for the others
                hier[q] = h
        numeric = frozenset(q for q in qis if policy.columns[q].dtype == "numeric")
        sens_h: dict[str, Hierarchy | HierarchyConfig] = {}
        tc = policy.privacy.t_closeness
        th = getattr(tc, "hierarchy", None) if tc is not None else None
        if tc is not None and th is not None:
            # one column: the policy refuses a hierarchy with several and no 'column'
            for col in tc.applies_to(policy.sensitive)[:1]:
                sens_h[col] = th
        data = policy.data
        read_options: dict[str, Any] = {}
        if data.path is not None:
            read_options = {
                "separator": data.separator,
                "encoding": data.encoding,
                "quotechar": data.quotechar,
                "quoting": data.quoting,
                "na_values": data.na_values,
                # a population table is read as the pipeline reads the input
                "raw_columns": raw_columns(policy),
            }
        return cls(
            qis,
            hier,
            policy.privacy,
            policy.search,
            tuple(policy.sensitive),
            numeric,
            sens_h,
            policy.base_dir,
            read_options=read_options,
        )


def raw_columns(policy: Policy) -> list[str]:
    """Columns the optimal search reads from a CSV input as ARX does: as text, not as numbers
    or missing values.

    These are the quasi-identifiers with an ARX hierarchy file (and no field transform) and
    the sensitive columns. ARX reads every value as a string, so ``01`` and ``1``, or ``NA``
    (a country code), ``NULL`` and an empty cell, are different values; pandas would read
    them as the same number or as one missing value, and the search would then group
    records ARX keeps apart. Other stages still see the columns as pandas types them.
    """
    from veil.policy._models import FileHierarchyConfig, KeepTransform

    if policy.search.algorithm != "optimal" or not policy.privacy.any_model:
        return []
    out = []
    for name, col in policy.columns.items():
        if not isinstance(col.transform, KeepTransform | None):
            continue
        if name in policy.sensitive or (
            name in policy.quasi_identifiers and isinstance(col.hierarchy, FileHierarchyConfig)
        ):
            out.append(name)
    return out


@dataclass
class AnonymizationResult:
    """A release and what it cost.

    Attributes
    ----------
    data
        The released table: same rows and order; generalized quasi-identifiers; suppressed
        records keep their row with every quasi-identifier set to ``*``.
    suppressed
        Boolean mask of the suppressed records.
    transformation
        Quasi-identifier -> hierarchy level (optimal search), or None (other algorithms).
    information_loss
        Metric name -> value on ARX's scale (see :mod:`veil.tabular._metrics`); ``ncp`` for
        Mondrian and cell suppression, ``sse`` (SSE/SST) for MDAV.
    details
        What a non-lattice algorithm did, in counts (MDAV: clusters; cell suppression: cells
        suppressed); empty for the optimal search and Mondrian.
    """

    data: pd.DataFrame
    suppressed: np.ndarray
    transformation: dict[str, int] | None
    information_loss: dict[str, float]
    metric: str
    suppressed_records: int
    equivalence_classes: int
    min_class_size: int
    satisfied: dict[str, bool]
    search: dict[str, Any]
    models: list[dict[str, Any]] = field(default_factory=list)
    k_sweep: list[dict[str, Any]] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    population: dict[str, Any] | None = None
    records: int | None = None  # records ``data`` stands for, when its rows are weighted

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (no data values)."""
        return {
            "transformation": self.transformation,
            "information_loss": self.information_loss,
            "metric": self.metric,
            "score": self.information_loss.get(self.metric),
            "suppressed_records": self.suppressed_records,
            "equivalence_classes": self.equivalence_classes,
            "min_class_size": self.min_class_size,
            "satisfied": self.satisfied,
            "search": self.search,
            "models": self.models,
            "rows": len(self.data) if self.records is None else self.records,
            **({"k_sweep": self.k_sweep} if self.k_sweep is not None else {}),
            **({"details": self.details} if self.details else {}),
            **({"population": self.population} if self.population is not None else {}),
        }


def _check_table(df: pd.DataFrame, config: AnonymizeConfig, n: int | None = None) -> None:
    if len(config.quasi_identifiers) == 0:
        raise InputError("no quasi-identifier given", hint="mark columns role: quasi_identifier")
    missing = [c for c in (*config.quasi_identifiers, *config.sensitive) if c not in df.columns]
    if missing:
        raise SchemaError(
            f"{len(missing)} column(s) named by the policy are not in the data: "
            + ", ".join(missing)
        )
    n = len(df) if n is None else n
    if n == 0:
        raise InputError("the table is empty: there is nothing to anonymize")
    k = config.privacy.k_anonymity.k if config.privacy.k_anonymity else None
    if k is not None and k > n:
        raise PrivacyRequirementNotMet(
            f"k={k} is larger than the table ({n} records): no release can satisfy it",
            hint=f"the largest k that works is {n}",
        )
    _check_numeric(df, config, "")


def _check_numeric(df: pd.DataFrame, config: AnonymizeConfig, where: str) -> None:
    import pandas as pd

    from veil.tabular._hierarchy import _NA_SPELLINGS

    for q in config.numeric:
        col = df[q]
        if not pd.api.types.is_numeric_dtype(col):
            # a missing value is not stray text, however it is spelled (a column read as
            # written keeps 'NULL' or an empty cell)
            missing = col.isna() | col.astype(str).str.strip().isin(_NA_SPELLINGS)
            bad = int((coerce_numbers(col).isna() & ~missing).sum())
            if bad:
                raise InputError(
                    f"{where}{bad} value(s) of numeric quasi-identifier {q!r} are not numbers",
                    hint="clean the column or declare another dtype",
                )


def _labels(df: pd.DataFrame, q: str, population: Population | None) -> list[str]:
    """Distinct values of ``q`` as hierarchies spell them (with the population's, if any)."""
    _, labels = value_labels(df[q])
    out: list[str] = labels.tolist()
    if population is not None:
        seen = set(out)
        _, pop_labels = value_labels(population.table[q])
        out.extend(v for v in pop_labels.tolist() if v not in seen)
    return out


def _hierarchies(
    df: pd.DataFrame, config: AnonymizeConfig, population: Population | None = None
) -> dict[str, Hierarchy]:
    out: dict[str, Hierarchy] = {}
    for q in config.quasi_identifiers:
        h = config.hierarchies.get(q)
        if isinstance(h, Hierarchy):
            out[q] = h.validate()
            continue
        if h is None:
            from veil.policy._models import AutoHierarchyConfig

            h = AutoHierarchyConfig()
        out[q] = build_hierarchy(q, h, _labels(df, q, population), base_dir=config.base_dir)
    return out


def _sensitive_hierarchies(df: pd.DataFrame, config: AnonymizeConfig) -> dict[str, Hierarchy]:
    out: dict[str, Hierarchy] = {}
    for col, h in config.sensitive_hierarchies.items():
        if isinstance(h, Hierarchy):
            out[col] = h.validate()
        else:
            _, labels = value_labels(df[col])
            out[col] = build_hierarchy(col, h, labels.tolist(), base_dir=config.base_dir)
    return out


def _not_met(
    config: AnonymizeConfig,
    ft: FrequencyTable,
    models: Sequence[PrivacyModel],
    found: SearchResult,
) -> PrivacyRequirementNotMet:
    n = ft.n_rows
    top = evaluate_node(ft, models, [h - 1 for h in ft.heights])
    least = top.suppressed_records
    if found.min_suppressed is not None:
        least = min(least, found.min_suppressed)
    limit = config.privacy.suppression_limit
    dp, km = config.privacy.delta_presence, config.privacy.k_map
    pop_rows = int(ft.population_counts.sum()) if ft.population_counts is not None else None
    if least >= n and km is not None and pop_rows is not None and pop_rows < km.k:
        hint = f"the population has {pop_rows} records, fewer than the k-map k={km.k}"
    elif least >= n and dp is not None and pop_rows is not None:
        share = n / max(pop_rows, 1)
        hint = (
            f"the subset is {share:.4g} of the population, and delta-presence needs every "
            f"class's share within [{dp.delta_min:g}, {dp.delta_max:g}]: widen that range"
        )
    elif least >= n:
        cols = whole_table_failures(models, ft.domains)
        which = f" of sensitive column(s) {', '.join(map(repr, cols))}" if cols else ""
        hint = (
            f"even the whole table as one class fails the models{which}: lower l (or raise "
            "t); a model with no column applies to every sensitive column, so name one "
            "with 'column' if the others need no l or t"
        )
    else:
        need = math.ceil(least / n * 1e6) / 1e6
        hint = f"the smallest suppression limit that works is about {need:.6g}"
        if config.privacy.k_anonymity is not None:
            hint += " (or lower k / l, or raise t)"
    return PrivacyRequirementNotMet(
        f"no transformation satisfies the privacy models within the suppression limit "
        f"{limit:g} ({math.floor(limit * n)} of {n} records)",
        hint=hint,
    )


def _release(
    df: pd.DataFrame, ft: FrequencyTable, node: NodeClasses
) -> tuple[pd.DataFrame, np.ndarray]:
    import pandas as pd

    assert node.combo_class is not None
    combo_sup = ~node.kept[node.combo_class]
    row_sup = combo_sup[ft.row_combo]
    out = df.copy(deep=False)
    for j, (q, lv) in enumerate(zip(ft.qis, node.levels, strict=True)):
        labels = list(q.level_labels[lv])
        if SUPPRESSED in labels:
            star = labels.index(SUPPRESSED)
        else:
            star = len(labels)
            labels.append(SUPPRESSED)
        combo_codes = q.level_codes[lv][ft.combos[:, j]]
        combo_codes = np.where(combo_sup, star, combo_codes)
        codes = combo_codes[ft.row_combo]
        out[q.name] = pd.Categorical.from_codes(codes, categories=pd.Index(labels))
    return out, row_sup


def anonymize(
    df: pd.DataFrame,
    config: AnonymizeConfig,
    *,
    progress: Progress | None = None,
    sweep: Sequence[int] | None = None,
    sweep_seconds: float = 2.0,
    weights: np.ndarray | None = None,
) -> AnonymizationResult:
    """Release ``df`` under ``config`` with the least information loss.

    ``weights`` (optimal search without a population only): each row of ``df`` stands for
    that many records, ``df`` holding the distinct rows in the order of their first record
    (the Ray engine's aggregate). The search, its optimum, the metrics, the k sweep and the
    re-check are then the records' own; ``result.data`` and ``result.suppressed`` describe
    the aggregate's rows.

    ``sweep`` (optimal search only): also find the optimum for each of these k, the other
    models and the suppression limit unchanged, on the same frequency table, and record the
    risk-utility trade-off in ``result.k_sweep`` (stops once ``sweep_seconds`` are spent).

    Raises
    ------
    InputError
        Empty table, a non-numeric value in a numeric quasi-identifier, values missing from
        a hierarchy, a hierarchy whose levels do not coarsen.
    PrivacyRequirementNotMet
        No transformation satisfies the models within the suppression limit (the hint says
        what would), or k is larger than the table.
    VerificationError
        The independent re-check of the release failed.
    """
    progress = progress or NullProgress()
    if config.search.algorithm == "mondrian" and config.privacy.uses_population:
        raise InputError(
            "delta-presence and k-map against a population table need the optimal search; "
            "Mondrian supports k-map only with a sampling fraction",
            hint="set search: {algorithm: optimal}",
        )
    started = time.perf_counter()
    if weights is not None and (
        config.search.algorithm != "optimal" or config.privacy.uses_population
    ):
        raise ValueError("weighted rows need the optimal search without a population table")
    with progress.task("reading the population"):
        df, population = split_population(
            df,
            config.privacy,
            config.quasi_identifiers,
            table=config.population,
            base_dir=config.base_dir,
            read_options=config.read_options,
        )
    n_rows = len(df) if weights is None else int(np.asarray(weights, dtype=np.int64).sum())
    _check_table(df, config, n_rows)
    if config.search.algorithm == "mondrian":
        return _mondrian(df, config, progress)
    if config.search.algorithm in ("mdav", "cell_suppression"):
        from veil.tabular import _anonymize_sdc

        if config.search.algorithm == "mdav":
            return _anonymize_sdc.anonymize_mdav(df, config, progress)
        return _anonymize_sdc.anonymize_cell_suppression(df, config, progress)
    if population is not None:
        _check_numeric(population.table, config, "population table: ")
    with progress.task("building hierarchies"):
        hier = _hierarchies(df, config, population)
        sens_h = _sensitive_hierarchies(df, config)
    with progress.task("encoding"):
        ft = encode(
            df,
            config.quasi_identifiers,
            hier,
            config.sensitive,
            sensitive_hierarchies=sens_h,
            population=None if population is None else population.table,
            weights=weights,
        )
        if population is not None and population.source == "table":
            check_contained(ft)
    # a model that names no column: one per sensitive column
    models = build_models(config.privacy, ft.domains, sensitive=config.sensitive)
    metric = METRICS.get(config.search.metric)(config.search.gs_factor)
    search = LatticeSearch(models, metric, config.privacy.suppression_limit)
    with progress.task("searching the lattice"):
        if config.search.transformation is None:
            found = search.run(ft)
        else:
            found = _chosen(ft, config, models, metric, search)
    if found.levels is None or found.node is None:
        raise _not_met(config, ft, models, found)
    node = found.node
    released, row_sup = _release(df, ft, node)
    info: dict[str, float] = {}
    for name in METRICS.names():
        m = METRICS.get(name)(config.search.gs_factor)
        m.prepare(ft)
        info[name] = float(m.score(node))
    kept = node.kept & (node.sizes > 0)
    result = AnonymizationResult(
        data=released,
        suppressed=row_sup,
        transformation=dict(zip(config.quasi_identifiers, found.levels, strict=True)),
        information_loss=info,
        metric=config.search.metric,
        suppressed_records=int(node.suppressed_records),
        equivalence_classes=int(kept.sum()),
        min_class_size=int(node.sizes[kept].min()) if kept.any() else 0,
        satisfied={m.name: True for m in models},
        search={
            "algorithm": "optimal",
            "metric": config.search.metric,
            "checked": found.checked,
            "lattice_size": found.lattice_size,
            **({"chosen": True} if config.search.transformation is not None else {}),
            "seconds": round(found.seconds, 6),
            "total_seconds": round(time.perf_counter() - started, 6),
        },
        models=[m.describe() for m in models],
        records=None if weights is None else n_rows,
    )
    if population is not None:
        result.population = _population_summary(ft, node, population)
    from veil.tabular._verify import verify_release

    result.satisfied = verify_release(
        df,
        result,
        config,
        sensitive_hierarchies=dict(sens_h),
        population=None if population is None else population.table,
        hierarchies=hier,
        weights=weights,
    )
    if sweep:
        with progress.task("risk-utility sweep over k"):
            result.k_sweep = _k_sweep(ft, config, metric, n_rows, sweep, sweep_seconds)
    return result


def _chosen(
    ft: FrequencyTable,
    config: AnonymizeConfig,
    models: Sequence[Any],
    metric: Any,
    search: Any,
) -> Any:
    """The transformation the policy names (``search.transformation``), evaluated as the
    search evaluates a node; :class:`PrivacyRequirementNotMet` when it suppresses more
    records than the limit allows."""
    chosen = dict(config.search.transformation or {})
    qis = list(config.quasi_identifiers)
    if sorted(chosen) != sorted(qis):
        raise PolicyError(
            "search.transformation must give a level for every quasi-identifier, and only them",
            key="search.transformation",
            hint="quasi-identifiers: " + ", ".join(qis),
        )
    for q, h in zip(qis, ft.heights, strict=True):
        if chosen[q] >= h:
            raise PolicyError(
                f"search.transformation: level {chosen[q]} of {q!r} is above its hierarchy "
                f"(levels 0 to {h - 1})",
                key="search.transformation",
            )
    started = time.perf_counter()
    levels = tuple(int(chosen[q]) for q in qis)
    metric.prepare(ft)
    node = evaluate_node(ft, models, levels)
    limit = search.max_outliers(ft.n_rows)
    if node.suppressed_records > limit:
        raise PrivacyRequirementNotMet(
            f"the chosen transformation would suppress {node.suppressed_records} records; "
            f"the suppression limit allows {limit}",
            hint="choose a transformation marked as meeting the models, or remove "
            "search.transformation to release the optimum",
        )
    return SearchResult(
        levels=levels,
        score=float(metric.score(node)),
        node=node,
        checked=1,
        lattice_size=int(np.prod(ft.heights, dtype=np.int64)),
        seconds=time.perf_counter() - started,
    )


def _population_summary(
    ft: FrequencyTable, node: NodeClasses, population: Population
) -> dict[str, Any]:
    """Population counts of the release: sizes and the delta reached by its classes."""
    assert node.combo_class is not None
    pop = ft.histograms(node.combo_class, len(node.sizes))[POPULATION][:, 0]
    kept = node.kept & (node.sizes > 0)
    out: dict[str, Any] = {
        "source": population.source,
        "rows": population.rows,
        "subset_rows": ft.n_rows,
        "min_class_population": int(pop[kept].min()) if kept.any() else None,
    }
    delta = node.sizes[kept] / np.maximum(pop[kept], 1)
    out["delta_min"] = float(delta.min()) if len(delta) else None
    out["delta_max"] = float(delta.max()) if len(delta) else None
    return out


def _k_sweep(
    ft: FrequencyTable,
    config: AnonymizeConfig,
    metric: Any,
    n_rows: int,
    ks: Sequence[int],
    budget: float,
) -> list[dict[str, Any]]:
    """The optimal release's cost and risk for each k (the trade-off curve of the report).

    Each point is a full optimal search with k replaced and everything else as configured;
    risk is the prosecutor risk of the retained records (highest 1/min class size, average
    classes/records). Points past the time budget are left out and the last one says so.
    """
    from veil.policy._models import KAnonymityConfig

    out: list[dict[str, Any]] = []
    started = time.perf_counter()
    for k in sorted({int(k) for k in ks if 2 <= int(k) <= n_rows}):
        if time.perf_counter() - started > budget:
            out.append({"k": k, "skipped": "time budget spent"})
            break
        privacy = config.privacy.model_copy(update={"k_anonymity": KAnonymityConfig(k=k)})
        models = build_models(privacy, ft.domains, sensitive=config.sensitive)
        found = LatticeSearch(models, metric, privacy.suppression_limit).run(ft)
        if found.node is None or found.levels is None:
            out.append({"k": k, "feasible": False})
            continue
        node = found.node
        kept = node.kept & (node.sizes > 0)
        records = int(node.sizes[kept].sum())
        out.append(
            {
                "k": k,
                "feasible": True,
                "levels": list(found.levels),
                "information_loss": float(metric.score(node)),
                "suppressed_share": int(node.suppressed_records) / n_rows,
                "classes": int(kept.sum()),
                "highest_risk": float(1.0 / node.sizes[kept].min()) if records else 0.0,
                "average_risk": float(kept.sum() / records) if records else 0.0,
            }
        )
    return out


def _mondrian(df: pd.DataFrame, config: AnonymizeConfig, progress: Progress) -> AnonymizationResult:
    try:
        from veil.tabular._mondrian import mondrian
    except ModuleNotFoundError as exc:
        if exc.name == "veil.tabular._mondrian":
            raise StageUnavailableError(
                "search: {algorithm: mondrian} is not available in this version of veil",
                hint="use search: {algorithm: optimal}",
            ) from None
        raise
    import pandas as pd

    started = time.perf_counter()
    numeric = set(config.numeric) | {
        q for q in config.quasi_identifiers if pd.api.types.is_numeric_dtype(df[q])
    }
    from veil.policy._models import AutoHierarchyConfig

    # explicit hierarchies only: without one Mondrian releases sets of values, not '*'
    hier: dict[str, Any] = {}
    for q in config.quasi_identifiers:
        h = config.hierarchies.get(q)
        if h is None or isinstance(h, AutoHierarchyConfig) or q in numeric:
            continue
        if isinstance(h, Hierarchy):
            hier[q] = h.validate()
        else:
            _, labels = value_labels(df[q])
            hier[q] = build_hierarchy(q, h, labels.tolist(), base_dir=config.base_dir)
    hier.update(_sensitive_hierarchies(df, config))
    res = mondrian(
        df,
        list(config.quasi_identifiers),
        config.privacy,
        list(config.sensitive),
        numeric=numeric,
        hierarchies=hier or None,
        progress=progress,
    )
    suppressed = np.asarray(res.suppressed, dtype=bool)
    result = AnonymizationResult(
        data=res.data,
        suppressed=suppressed,
        transformation=None,
        information_loss={"ncp": float(res.ncp)},
        metric="ncp",
        suppressed_records=int(suppressed.sum()),
        equivalence_classes=int(res.classes),
        min_class_size=int(res.min_class_size),
        satisfied={},
        search={
            "algorithm": "mondrian",
            "checked": int(getattr(res, "partitions", 0)),
            "seconds": round(float(res.seconds), 6),
            "total_seconds": round(time.perf_counter() - started, 6),
        },
    )
    from veil.tabular._verify import verify_release

    result.satisfied = verify_release(
        df, result, config, sensitive_hierarchies=_sensitive_hierarchies(df, config)
    )
    return result
