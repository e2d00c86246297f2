"""Target triples on coarse groups (``triples=True`` with a declared ``target``, MST and AIM).

The target with two other columns at once, measured as a linear query that sums fine bins
into a few consecutive groups; the model's clique stays the fine triple. These tests check
the query against aggregating the exact marginal (numpy and, through mbi, jax), the step
size bound mbi derives from it, the group rules, and that a fit spends exactly its budget
and samples valid data.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("mbi")  # the synth extra; conftest turns this skip into a CI failure

from veil.synth import AIMSynthesizer, MSTSynthesizer, load_synthesizer
from veil.synth._coarse import (
    MAX_GROUPS,
    MIN_GROUPS,
    CoarseQuery,
    equal_mass_groups,
    target_triples,
    triple_groups,
)
from veil.synth._marginal import _mbi

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def _loop_aggregate(table: np.ndarray, groups: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """The coarse marginal by brute force: every fine cell added to its coarse cell."""
    out = np.zeros([max(g) + 1 for g in groups])
    for idx in itertools.product(*(range(len(g)) for g in groups)):
        out[tuple(g[i] for g, i in zip(groups, idx, strict=True))] += table[idx]
    return out.ravel()


def _groups(draw: st.DrawFn, size: int) -> tuple[int, ...]:
    """Consecutive groups of ``size`` codes, a random count of them."""
    g = draw(st.integers(1, size))
    if g == 1:
        return (0,) * size
    cuts = sorted(draw(st.sets(st.integers(1, size - 1), min_size=g - 1, max_size=g - 1)))
    return tuple(int(np.searchsorted(cuts, i, side="right")) for i in range(size))


@st.composite
def _coarse_case(draw: st.DrawFn) -> tuple[np.ndarray, CoarseQuery]:
    shape = draw(st.lists(st.integers(1, 7), min_size=1, max_size=3))
    groups = tuple(_groups(draw, s) for s in shape)
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)  # test data only
    attrs = tuple(f"c{i}" for i in range(len(shape)))
    return rng.poisson(5.0, size=shape).astype(float), CoarseQuery(attrs, groups)


@settings(max_examples=60, deadline=None)
@given(_coarse_case())
def test_coarse_query_equals_aggregating_the_exact_marginal(case) -> None:  # type: ignore[no-untyped-def]
    table, query = case
    want = _loop_aggregate(table, query.groups)
    got = query.aggregate(table)
    np.testing.assert_allclose(got, want)
    assert got.sum() == pytest.approx(table.sum())
    # its operator norm is the most fine cells in one coarse cell
    sizes = [int(np.bincount(g).max()) for g in query.groups]
    assert query.op_norm_sq() == float(np.prod(sizes))


def test_coarse_query_through_mbi_matches_numpy_in_any_axis_order() -> None:
    import jax.numpy as jnp

    mbi = _mbi()  # configured as veil uses it (float64, no compile cache)
    Domain, Factor = mbi.Domain, mbi.Factor
    rng = np.random.default_rng(0)  # test data only
    table = rng.poisson(3.0, size=(3, 5, 4)).astype(float)
    query = CoarseQuery(("t", "a", "b"), ((0, 1, 2), (0, 0, 1, 1, 1), (0, 1, 1, 2)))
    want = _loop_aggregate(table, query.groups)
    factor = Factor(Domain(["t", "a", "b"], [3, 5, 4]), jnp.asarray(table))
    np.testing.assert_allclose(np.asarray(query(factor)), want)
    # a factor laid out in another order is transposed to the query's first
    other = factor.transpose(["b", "t", "a"])
    np.testing.assert_allclose(np.asarray(query(other)), want)
    # hashable and equal by value: mbi keeps the query as a static part of the program
    same = CoarseQuery(("t", "a", "b"), ((0, 1, 2), (0, 0, 1, 1, 1), (0, 1, 1, 2)))
    assert hash(same) == hash(query) and same == query


def test_mbi_step_bound_from_the_query_is_not_below_the_true_one() -> None:
    """mbi sets its step size from ``op_norm_sq``; a bound under the true Lipschitz
    constant would make mirror descent diverge."""
    mbi = _mbi()
    Domain, LinearMeasurement = mbi.Domain, mbi.LinearMeasurement
    calculate_l2_lipschitz = mbi.marginal_loss.calculate_l2_lipschitz
    calculate_l2_lipschitz_from_metadata = mbi.marginal_loss.calculate_l2_lipschitz_from_metadata
    from_linear_measurements = mbi.marginal_loss.from_linear_measurements

    domain = Domain(["t", "a", "b"], [3, 6, 5])
    query = CoarseQuery(("t", "a", "b"), ((0, 1, 2), (0, 0, 0, 1, 1, 2), (0, 0, 1, 1, 1)))
    ms = [
        LinearMeasurement(np.zeros(3 * 3 * 2), ("t", "a", "b"), stddev=2.0, query=query),
        LinearMeasurement(np.zeros(3 * 6), ("t", "a"), stddev=1.0),
    ]
    bound = calculate_l2_lipschitz_from_metadata(domain, ms)
    loss = from_linear_measurements(ms, domain)
    true = calculate_l2_lipschitz(domain, list(loss.cliques), loss)
    assert bound is not None
    assert bound >= true * (1 - 1e-6)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(-50, 1000, allow_nan=False), min_size=1, max_size=40),
    st.integers(MIN_GROUPS, MAX_GROUPS),
)
def test_equal_mass_groups_are_consecutive_and_none_empty(counts: list[float], g: int) -> None:
    out = equal_mass_groups(np.array(counts), g)
    assert len(out) == len(counts) and out[0] == 0
    steps = np.diff(out)
    assert set(steps.tolist()) <= {0, 1}  # consecutive codes, no group skipped
    assert out[-1] == min(g, len(counts)) - 1  # every group used


def test_equal_mass_groups_follow_the_mass() -> None:
    # most of the mass in the first two codes: they get groups of their own
    out = equal_mass_groups(np.array([400.0, 400, 10, 10, 10, 10, 10, 10]), 4)
    assert out[:2] == (0, 1) and out[-1] == 3
    assert equal_mass_groups(np.full(12, 5.0), 4) == (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3)


def test_triple_groups_rule() -> None:
    # more noise or a larger target: never more groups; bounded both ways
    seq = [triple_groups(45_000, 5, s) for s in (1.0, 10.0, 50.0, 200.0, 5000.0)]
    assert seq == sorted(seq, reverse=True)
    assert seq[0] == MAX_GROUPS and seq[-1] == MIN_GROUPS
    assert triple_groups(45_000, 2, 50.0) >= triple_groups(45_000, 5, 50.0)
    # the rule itself: the mean coarse cell holds at least 8 noise sd of rows
    g = triple_groups(45_000, 5, 50.0)
    assert 45_000 / (5 * g**2) >= 8 * 50.0 > 45_000 / (5 * (g + 1) ** 2)
    assert triple_groups(-30.0, 5, 50.0) == MIN_GROUPS  # a noisy count below zero


def test_target_triples_skip_pairs_with_the_target() -> None:
    cols = ["a", "b", "y", "c"]
    pairs = [("a", "b"), ("b", "y"), ("a", "c")]
    assert target_triples("y", cols, pairs) == [("y", "a", "b"), ("y", "a", "c")]
    assert target_triples(None, cols, pairs) == []
    assert target_triples("z", cols, pairs) == []


def _table(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """``y`` depends on a and b jointly (their sum), plus a numeric column."""
    rng = np.random.default_rng(seed)  # test data only
    a = rng.integers(0, 5, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 5, n))
    x = a + rng.normal(0, 1, n)
    y = (a + b + rng.normal(0, 1, n)) > 4
    df = pd.DataFrame({"a": [f"a{v}" for v in a], "b": [f"b{v}" for v in b], "x": x})
    df["y"] = np.where(y, "yes", "no")
    return df


@pytest.mark.parametrize(
    ("cls", "kw"),
    [(MSTSynthesizer, {}), (AIMSynthesizer, {"rounds": 1, "per_round": 3})],
)
def test_fit_with_triples_spends_exactly_its_budget_and_samples_valid_data(
    cls, kw, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    df = _table()
    syn = cls(epsilon=1.0, account=False, seed=0, target="y", triples=True, iters=200, **kw)
    syn.fit(df)
    info = syn.fit_info_
    assert info["rho_spent"] == pytest.approx(info["rho"], rel=1e-6)
    triples = info["coarse_triples"]
    assert triples, "a fit with triples=True measured none"
    for t in triples:
        assert t["clique"][0] == "y" and len(t["clique"]) == 3
        assert all(g >= 1 for g in t["groups"])
        assert t["clique"] in info["measurements"]
        # the model's clique is the fine triple: one junction-tree node holds it
        assert any(set(t["clique"]) <= set(nd) for nd in syn.nodes_)
    out = syn.sample(500, seed=1)
    assert list(out.columns) == list(df.columns)
    for c in ("a", "b", "y"):
        assert set(out[c].dropna()) <= set(df[c])
    assert out["x"].between(df["x"].min() - 10, df["x"].max() + 10).all()
    # saved and loaded, ``triples`` stays a parameter and sampling works without mbi's model
    back = load_synthesizer(syn.save(tmp_path / "m.veil"))
    assert type(back) is cls and back.triples is True and back.target == "y"
    assert list(back.sample(20, seed=2).columns) == list(df.columns)


def test_triples_off_measures_no_triple() -> None:
    df = _table(1500)
    syn = MSTSynthesizer(epsilon=1.0, account=False, seed=0, target="y", iters=100).fit(df)
    assert syn.fit_info_["coarse_triples"] == []
    assert all(len(m) <= 2 for m in syn.fit_info_["measurements"])


def test_tan_pairs_make_a_tree_over_the_other_columns() -> None:
    from veil.synth._coarse import tan_pairs as _tan_pairs

    # a spanning tree of y, a..e in which y has three neighbours (a, c, e)
    tree = [("a", "b"), ("y", "a"), ("c", "y"), ("c", "d"), ("e", "y")]
    pairs = _tan_pairs("y", tree)
    assert pairs == [("a", "b"), ("c", "d"), ("a", "c"), ("c", "e")]
    # a tree over the five other columns: 4 edges, connected, so no cycle
    comp = {c: c for c in "abcde"}

    def find(c: str) -> str:
        while comp[c] != c:
            c = comp[c]
        return c

    for a, b in pairs:
        assert find(a) != find(b)
        comp[find(a)] = find(b)
    assert len({find(c) for c in "abcde"}) == 1
    assert _tan_pairs(None, tree) == tree


@pytest.mark.parametrize("cls", [MSTSynthesizer, AIMSynthesizer])
def test_triples_without_a_target_is_refused_not_ignored(cls) -> None:  # type: ignore[no-untyped-def]
    from veil._errors import InputError

    with pytest.raises(InputError, match="no target is declared"):
        cls(epsilon=1.0, account=False, triples=True)


def test_cli_triples_fits_the_targets_triples_and_refuses_bad_combinations(
    tmp_path, capsys
) -> None:  # type: ignore[no-untyped-def]
    from veil.cli._app import main

    data = tmp_path / "t.csv"
    _table(1500).to_csv(data, index=False)
    model = tmp_path / "m.veil"
    base = ["synth", "fit", str(data), "--out", str(model)]
    dp = ["--method", "mst", "--epsilon", "1", "--no-ledger", "--seed", "0"]
    assert main([*base, *dp, "--triples"]) == 2
    assert "--target" in capsys.readouterr().err
    assert main([*base, "--method", "copula", "--target", "y", "--triples"]) == 2
    assert "mst and aim" in capsys.readouterr().err
    assert not model.exists()
    assert main([*base, *dp, "--target", "y", "--triples", "--json"]) == 0
    capsys.readouterr()
    back = load_synthesizer(model)
    assert back.triples is True and back.target == "y"
    triples = back.fit_info_["coarse_triples"]
    assert triples and all(t["clique"][0] == "y" for t in triples)
