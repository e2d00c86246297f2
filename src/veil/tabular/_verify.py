"""Independent re-check of a released table with plain pandas group-bys.

This path shares no code with the search: it does not use the frequency table, the
encoders or :mod:`veil.tabular._privacy_models`. It groups the *released* table by its
quasi-identifier columns (suppressed rows excluded) and measures k, l (distinct, entropy,
recursive), t (equal, ordered, hierarchical EMD, against the distribution of the sensitive
column in the *input*) and k-map with a sampling fraction with
:func:`veil.risk._requirements.check_release`, the one definition the report's re-check uses
too; it checks that the suppressed records are within the limit and fully masked. A failure
raises :class:`VerificationError`; the caller then writes nothing.

Two algorithms also promise something about the cells, checked here against the input:

- ``cell_suppression``: a released quasi-identifier cell is ``*`` or the input's value (a
  ``*`` is a value of its own in the group-by above, never a wildcard);
- ``mdav``: a released quasi-identifier value is the mean of the input values of its released
  class (within the rounding of ``round_to``), so classes of equal values are real clusters.
With a population table (delta-presence, k-map), the population is generalized here on its
own: each value is looked up in its hierarchy and replaced by its label at the released
level, the generalized population is grouped by plain pandas, and each released class is
matched to its population group by its labels. Only the lookup of a value's hierarchy row
(:func:`veil.tabular._hierarchy.match_rows`, the spelling rules of hierarchies) is shared
with the engine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import VerificationError
from veil._numeric import coerce_numbers

if TYPE_CHECKING:
    import pandas as pd

    from veil.tabular._anonymize import AnonymizationResult, AnonymizeConfig

__all__ = ["verify_release"]

_TOL = 1e-9


def _fail(what: str) -> VerificationError:
    return VerificationError(
        f"the released table failed its independent re-check: {what}",
        hint="nothing was written; report this as a bug with the policy (not the data)",
    )


def _class_keys(released: pd.DataFrame, qis: list[str]) -> pd.Series:
    """Class number of each row: a plain pandas group-by on the released columns."""
    import pandas as pd

    ids = released.groupby(qis, observed=True, sort=False, dropna=False).ngroup()
    return pd.Series(ids.to_numpy(), index=released.index)


def verify_release(
    original: pd.DataFrame,
    result: AnonymizationResult,
    config: AnonymizeConfig,
    *,
    sensitive_hierarchies: dict[str, Any] | None = None,
    population: pd.DataFrame | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    weights: Any = None,
) -> dict[str, bool]:
    """Re-check ``result`` against ``config``; return model -> True, or raise.

    ``population`` and ``hierarchies`` (the built quasi-identifier hierarchies) are needed
    for delta-presence and k-map against a population table; ``original`` is then the
    subset that was released.

    ``weights``: each row (of ``original`` and of the release alike) stands for that many
    records (the Ray engine's aggregates; k, l and t only, no population, no MDAV or cell
    suppression).
    """
    import pandas as pd

    qis = list(config.quasi_identifiers)
    rel = result.data.reset_index(drop=True)
    orig = original.reset_index(drop=True)
    if len(rel) != len(orig):
        raise _fail("the release does not have one row per input record")
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    if w is not None and (
        w.shape != (len(orig),)
        or config.privacy.uses_population
        or config.search.algorithm in ("mdav", "cell_suppression")
    ):
        raise ValueError("weights: one per row, and k, l and t models only")
    n = len(orig) if w is None else int(w.sum())
    sup = np.asarray(result.suppressed, dtype=bool)
    privacy = config.privacy
    satisfied: dict[str, bool] = {}
    # suppression: within the limit, and the quasi-identifiers of suppressed rows are masked
    limit = math.floor(privacy.suppression_limit * float(n))
    n_sup = int(sup.sum()) if w is None else int(w[sup].sum())
    if n_sup > limit:
        raise _fail(f"{n_sup} records suppressed, the limit allows {limit}")
    if sup.any():
        masked = np.ones(int(sup.sum()), dtype=bool)
        for q in qis:
            masked &= np.asarray(rel[q].to_numpy()[sup] == "*", dtype=bool)
        if not masked.all():
            raise _fail(f"{int((~masked).sum())} suppressed records keep a quasi-identifier")
    keep = ~sup
    kept = rel.loc[keep]
    if len(kept) == 0:
        return {name: True for name in _names(config)}
    cls = _class_keys(kept, qis)
    # k, l, t and k-map with a sampling fraction: one definition, shared with the report
    from veil.risk._requirements import check_release

    requirements = check_release(
        rel,
        qis,
        privacy,
        list(config.sensitive),
        suppressed=sup,
        values=orig,
        reference=orig,
        hierarchies={**config.sensitive_hierarchies, **(sensitive_hierarchies or {})},
        weights=w,
    )
    failed = [r for r in requirements if not r.met]
    if failed:
        raise _fail("; ".join(_failure(r) for r in failed))
    for r in requirements:
        satisfied[r.key] = True
    km = privacy.k_map
    algorithm = config.search.algorithm
    if algorithm == "cell_suppression":
        _check_kept_or_starred(orig.loc[keep], kept, qis)
    elif algorithm == "mdav":
        _check_cluster_means(orig.loc[keep], kept, qis, cls, config.search.round_to)
    if privacy.uses_population:
        _check_population(kept, cls, result, config, population, hierarchies)
        if privacy.delta_presence is not None:
            satisfied["delta_presence"] = True
        if km is not None:
            satisfied["k_map"] = True
    for name in _names(config):
        satisfied.setdefault(name, True)
    _ = pd
    return satisfied


def _failure(r: Any) -> str:
    if r.key == "k_anonymity":
        return f"class(es) smaller than k={r.required} (smallest {r.measured})"
    return r.line()


def _same(original: pd.Series, released: pd.Series) -> np.ndarray:
    """Cell by cell: is the released value the original one (as a string or a number)?"""

    both_missing = original.isna().to_numpy() & released.isna().to_numpy()
    as_text = original.astype(str).to_numpy() == released.astype(str).to_numpy()
    o_num = coerce_numbers(original).to_numpy(dtype=float)
    r_num = coerce_numbers(released).to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        as_number = o_num == r_num
    return np.asarray(both_missing | as_text | as_number, dtype=bool)


def _check_kept_or_starred(orig: pd.DataFrame, rel: pd.DataFrame, qis: list[str]) -> None:
    for q in qis:
        starred = np.asarray(rel[q].astype(object).to_numpy() == "*", dtype=bool)
        changed = ~starred & ~_same(orig[q], rel[q])
        if changed.any():
            raise _fail(
                f"{int(changed.sum())} cell(s) of {q!r} were altered instead of kept or suppressed"
            )


def _check_cluster_means(
    orig: pd.DataFrame, rel: pd.DataFrame, qis: list[str], cls: pd.Series, round_to: int | None
) -> None:

    slack = 0.5 * 10.0 ** (-round_to) if round_to is not None else 0.0
    for q in qis:
        values = coerce_numbers(orig[q]).astype(float)
        released = coerce_numbers(rel[q]).astype(float)
        means = values.groupby(cls.to_numpy()).transform("mean")
        scale = max(1.0, float(values.abs().max()))
        off = (released - means).abs() > slack + 1e-9 * scale
        if off.any() or released.isna().any():
            raise _fail(
                f"{int(off.sum() + released.isna().sum())} released value(s) of {q!r} are not "
                "the mean of their class"
            )


def _population_per_row(
    kept: pd.DataFrame,
    qis: list[str],
    levels: Mapping[str, int],
    population: pd.DataFrame,
    hierarchies: Mapping[str, Any],
) -> np.ndarray:
    """Population size of the class of each kept released row (0 when none matches)."""
    import pandas as pd

    from veil.tabular._hierarchy import match_rows, value_labels

    generalized: dict[str, np.ndarray] = {}
    for q in qis:
        h = hierarchies[q]
        codes, labels = value_labels(population[q])
        rows = match_rows(h, labels.tolist())
        generalized[q] = np.asarray(h.table[rows, levels[q]], dtype=str)[codes]
    counts = pd.DataFrame(generalized).groupby(qis, sort=False).size().rename("__n__")
    keys = pd.DataFrame({q: kept[q].astype(str).to_numpy() for q in qis})
    merged = keys.merge(counts.reset_index(), on=qis, how="left")
    return merged["__n__"].fillna(0).to_numpy(dtype=np.int64)


def _check_population(
    kept: pd.DataFrame,
    cls: pd.Series,
    result: AnonymizationResult,
    config: AnonymizeConfig,
    population: pd.DataFrame | None,
    hierarchies: Mapping[str, Any] | None,
) -> None:
    """delta-presence and k-map of each released class against the generalized population."""
    import pandas as pd

    if population is None or hierarchies is None or result.transformation is None:
        raise _fail("a population model was asked for without the population table")
    qis = list(config.quasi_identifiers)
    pop_row = _population_per_row(kept, qis, result.transformation, population, hierarchies)
    per_class = (
        pd.DataFrame({"c": cls.to_numpy(), "p": pop_row}).groupby("c")["p"].agg(["size", "max"])
    )
    size = per_class["size"].to_numpy(dtype=np.float64)
    pop = per_class["max"].to_numpy(dtype=np.float64)
    if (pop < size).any():
        raise _fail(
            f"{int((pop < size).sum())} class(es) hold more records than the population has in them"
        )
    delta = size / pop
    dp, km = config.privacy.delta_presence, config.privacy.k_map
    if dp is not None:
        off = (delta < dp.delta_min - _TOL) | (delta > dp.delta_max + _TOL)
        if off.any():
            raise _fail(
                f"{int(off.sum())} class(es) fail delta-presence "
                f"[{dp.delta_min:g}, {dp.delta_max:g}]"
            )
    if km is not None and km.sampling_fraction is None and (pop < km.k).any():
        raise _fail(f"{int((pop < km.k).sum())} class(es) fail k-map k={km.k}")
    reported = result.population or {}
    checks = (
        ("min_class_population", float(pop.min())),
        ("delta_min", float(delta.min())),
        ("delta_max", float(delta.max())),
    )
    for key, value in checks:
        if key in reported and not math.isclose(reported[key], value, rel_tol=1e-9):
            raise _fail(f"the reported {key} does not match the release")


def _names(config: AnonymizeConfig) -> list[str]:
    p = config.privacy
    names = []
    for attr in ("k_anonymity", "l_diversity", "t_closeness", "delta_presence", "k_map"):
        if getattr(p, attr) is not None:
            names.append(attr)
    return names
