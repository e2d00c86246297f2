"""Hypothesis: with a population table (delta-presence, k-map), the optimal search equals a
brute-force pass over the whole lattice, every node's suppression agrees with a plain pandas
generalization of subset and population, and every release satisfies its models.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabular_tables import qi_tables

from veil._errors import PrivacyRequirementNotMet
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, anonymize
from veil.tabular._encoding import encode
from veil.tabular._metrics import METRICS
from veil.tabular._privacy_models import build_models
from veil.tabular._search import LatticeSearch, evaluate_node


@st.composite
def problems(draw):
    qis, hier, population = draw(qi_tables(sensitive="abc"))
    n_pop = len(population)
    mask = draw(st.lists(st.booleans(), min_size=n_pop, max_size=n_pop))
    if not any(mask):
        mask[draw(st.integers(0, n_pop - 1))] = True
    subset = population.loc[np.array(mask)].reset_index(drop=True)
    privacy: dict = {}
    if draw(st.booleans()):
        privacy["k_anonymity"] = {"k": draw(st.integers(2, 4))}
    use_delta = draw(st.booleans())
    if use_delta:
        lo = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
        hi = draw(st.sampled_from([0.3, 0.5, 0.75, 1.0]))
        privacy["delta_presence"] = {
            "delta_min": min(lo, hi),
            "delta_max": hi,
            "population": "population.csv",
        }
    if not use_delta or draw(st.booleans()):
        km: dict = {"k": draw(st.integers(2, 8))}
        if not use_delta:
            km["population"] = "population.csv"
        privacy["k_map"] = km
    if draw(st.booleans()):
        privacy["l_diversity"] = {"l": 2}
    privacy["suppression_limit"] = draw(st.sampled_from([0.0, 0.1, 0.3, 1.0]))
    metric = draw(st.sampled_from(["loss", "entropy", "dm", "aecs", "height", "precision"]))
    gs = draw(st.sampled_from([0.5, 0.2, 0.8]))
    return subset, population, qis, hier, privacy, metric, gs


def _config(qis, hier, privacy, metric, gs, population):
    return AnonymizeConfig(
        tuple(qis),
        hier,
        PrivacyConfig.model_validate(privacy),
        SearchConfig.model_validate({"metric": metric, "gs_factor": gs}),
        ("s",),
        population=population,
    )


def _generalize(df: pd.DataFrame, qis, hier, levels) -> pd.DataFrame:
    """Plain pandas: each value replaced by its label at the node's level."""
    out = {}
    for q, lv in zip(qis, levels, strict=True):
        table = hier[q].table
        lookup = dict(zip(table[:, 0].tolist(), table[:, lv].tolist(), strict=True))
        out[q] = df[q].map(lookup)
    return pd.DataFrame(out)


def _pandas_suppressed(subset, population, qis, hier, levels, privacy) -> int:
    """Records a node suppresses, from a plain pandas group-by of subset and population."""
    sub = _generalize(subset, qis, hier, levels)
    sub["s"] = subset["s"].to_numpy()
    pop = _generalize(population, qis, hier, levels).groupby(qis).size().rename("pop")
    groups = sub.groupby(qis).agg(size=("s", "size"), distinct=("s", "nunique")).join(pop)
    ok = pd.Series(True, index=groups.index)
    if "k_anonymity" in privacy:
        ok &= groups["size"] >= privacy["k_anonymity"]["k"]
    if "l_diversity" in privacy:
        ok &= groups["distinct"] >= privacy["l_diversity"]["l"]
    if "delta_presence" in privacy:
        dp = privacy["delta_presence"]
        delta = groups["size"] / groups["pop"]
        ok &= (delta >= dp["delta_min"]) & (delta <= dp["delta_max"])
    if "k_map" in privacy:
        ok &= groups["pop"] >= privacy["k_map"]["k"]
    return int(groups.loc[~ok, "size"].sum())


def _release_ok(result, subset, population, qis, hier, privacy) -> None:
    """The release, checked with plain pandas against the population."""
    n = len(subset)
    sup = result.suppressed
    assert sup.sum() <= math.floor(privacy["suppression_limit"] * n)
    assert len(result.data) == n
    kept = result.data.loc[~sup]
    if len(kept) == 0:
        return
    levels = [result.transformation[q] for q in qis]
    pop = _generalize(population, qis, hier, levels).groupby(qis).size().rename("pop")
    keys = pd.DataFrame({q: kept[q].astype(str).to_numpy() for q in qis})
    groups = keys.groupby(qis).size().rename("size").to_frame().join(pop)
    assert (groups["pop"] >= groups["size"]).all()
    if "k_anonymity" in privacy:
        assert groups["size"].min() >= privacy["k_anonymity"]["k"]
    if "delta_presence" in privacy:
        dp = privacy["delta_presence"]
        delta = groups["size"] / groups["pop"]
        assert delta.min() >= dp["delta_min"] - 1e-12
        assert delta.max() <= dp["delta_max"] + 1e-12
        assert math.isclose(result.population["delta_min"], delta.min())
        assert math.isclose(result.population["delta_max"], delta.max())
    if "k_map" in privacy:
        assert groups["pop"].min() >= privacy["k_map"]["k"]
        assert result.population["min_class_population"] == groups["pop"].min()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(problems())
def test_population_search_equals_brute_force(problem):
    subset, population, qis, hier, privacy, metric_name, gs = problem
    config = _config(qis, hier, privacy, metric_name, gs, population)
    ft = encode(subset, qis, hier, ["s"], population=population)
    models = build_models(config.privacy, ft.domains, default_column="s")
    limit = math.floor(privacy["suppression_limit"] * len(subset))
    best = None
    for levels in itertools.product(*[range(h.height) for h in hier.values()]):
        node = evaluate_node(ft, models, levels)
        expected = _pandas_suppressed(subset, population, qis, hier, levels, privacy)
        assert node.suppressed_records == expected, levels
        if node.suppressed_records > limit:
            continue
        metric = METRICS.get(metric_name)(gs)
        metric.prepare(ft)
        key = (metric.score(node), sum(levels), levels)
        if best is None or key[:2] < best[:2]:
            best = key
    search = LatticeSearch(models, METRICS.get(metric_name)(gs), privacy["suppression_limit"])
    found = search.run(ft)
    k = privacy.get("k_anonymity", {}).get("k", 0)
    if best is None or k > len(subset):
        assert best is not None or found.levels is None
        try:
            anonymize(subset, config)
        except PrivacyRequirementNotMet:
            return
        raise AssertionError("anonymize released a table although no node satisfies the models")
    assert found.levels is not None and found.score is not None
    assert math.isclose(found.score, best[0], rel_tol=1e-9, abs_tol=1e-12)
    assert sum(found.levels) == best[1] or not math.isclose(found.score, best[0], rel_tol=0)
    result = anonymize(subset, config)
    assert tuple(result.transformation[q] for q in qis) == found.levels
    _release_ok(result, subset, population, qis, hier, privacy)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(problems())
def test_population_wide_key_path_equals_brute_force(problem):
    """The same on the path for lattices whose fixed-radix key would overflow (forced)."""
    from veil.tabular import _search

    old = _search._Evaluator.FAST_LIMIT
    _search._Evaluator.FAST_LIMIT = 0
    try:
        test_population_search_equals_brute_force.hypothesis.inner_test(problem)
    finally:
        _search._Evaluator.FAST_LIMIT = old
