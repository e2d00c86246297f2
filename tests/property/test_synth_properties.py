"""Invariants: constraints hold in every sample; quality lies in [0, 1] and is 1 on a copy."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.synth import GaussianCopulaSynthesizer, Inequality, Range
from veil.synth._quality import quality_report


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(30, 120))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)  # test data only
    low = rng.integers(-50, 50, n)
    gap = rng.integers(0, draw(st.integers(1, 40)), n)
    cats = draw(st.lists(st.sampled_from(list("abcdef")), min_size=2, max_size=4, unique=True))
    return pd.DataFrame(
        {
            "low": low,
            "high": low + gap,
            "x": rng.normal(size=n) * draw(st.floats(0.1, 100)),
            "c": rng.choice(cats, n),
        }
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=tables(), seed=st.integers(0, 1000))
def test_constraints_always_hold(df: pd.DataFrame, seed: int) -> None:
    lo, hi = float(df["x"].min()), float(df["x"].max())
    cons = [Inequality("low", "high"), Range("x", lo, hi), Range("low", -50, None)]
    out = GaussianCopulaSynthesizer(constraints=cons, seed=seed).fit(df).sample(200)
    assert len(out) == 200
    assert (out["low"] <= out["high"]).all()
    assert out["x"].between(lo, hi).all() and (out["low"] >= -50).all()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=tables(), b=tables())
def test_quality_in_unit_interval_and_one_for_identical(a: pd.DataFrame, b: pd.DataFrame) -> None:
    q = quality_report(a, b)
    for key in ("score", "column_shapes"):
        assert 0.0 <= q[key] <= 1.0
    if q["column_pair_trends"] is not None:
        assert 0.0 <= q["column_pair_trends"] <= 1.0
    same = quality_report(a, a.copy())
    assert abs(same["score"] - 1.0) < 1e-12


@st.composite
def mixed_tables(draw: st.DrawFn) -> pd.DataFrame:
    """200-600 rows, 3-5 columns: continuous (log-normal), counts (Poisson) and categorical,
    each with at least two distinct values."""
    n = draw(st.integers(200, 600))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))  # test data only
    kinds = draw(st.lists(st.sampled_from(["float", "count", "cat"]), min_size=3, max_size=5))
    cols: dict[str, object] = {}
    for i, kind in enumerate(kinds):
        if kind == "float":
            x = rng.lognormal(0.0, draw(st.floats(0.1, 2.0)), n) * draw(st.floats(0.01, 1e4))
        elif kind == "count":
            x = rng.poisson(draw(st.floats(0.5, 20.0)), n)
        else:
            x = rng.choice([f"k{j}" for j in range(draw(st.integers(2, 6)))], n)
        cols[f"c{i}"] = x
    df = pd.DataFrame(cols)
    for c in df.columns:
        if df[c].nunique() < 2:
            df.loc[0, c] = df[c].iloc[1] + 1 if df[c].dtype.kind in "if" else "other"
    return df


def _near_copy(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The real rows with a tenth of them replaced by rows drawn at random (sampling noise
    in every column and pair, as a good synthesizer would leave)."""
    rng = np.random.default_rng(seed)  # test data only
    idx = np.arange(len(df))
    swap = rng.random(len(df)) < 0.1
    idx[swap] = rng.integers(0, len(df), int(swap.sum()))
    return df.iloc[idx].reset_index(drop=True)


def _corrupt(s: pd.Series) -> pd.Series:
    """One column broken as a synthesizer might break it: a numeric column moved past the
    real range, a categorical column written with a label the real data lacks."""
    if pd.api.types.is_numeric_dtype(s):
        return s + (s.max() - s.min()) + 1
    return pd.Series("broken", index=s.index)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=mixed_tables(), pick=st.integers(0, 4), seed=st.integers(0, 1000))
def test_a_broken_column_is_named_and_lowers_the_mean(
    df: pd.DataFrame, pick: int, seed: int
) -> None:
    """One column of a near copy corrupted: the worst column is that one, the worst pair
    holds it, and veil's every-pair quality drops."""
    syn = _near_copy(df, seed)
    col = str(df.columns[pick % len(df.columns)])
    good = quality_report(df, syn)
    broken = syn.copy()
    broken[col] = _corrupt(broken[col])
    bad = quality_report(df, broken)
    assert bad["worst_column"]["column"] == col
    assert col in bad["worst_pair"]["columns"]
    assert bad["score_all_pairs"] < good["score_all_pairs"]
    assert bad["all_pairs"] < good["all_pairs"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=mixed_tables(), pick=st.integers(0, 4), seed=st.integers(0, 1000))
def test_a_column_lost_whole_scores_zero_and_is_named(
    df: pd.DataFrame, pick: int, seed: int
) -> None:
    """A synthesizer that writes one column all missing (as a DP category list that kept no
    value does) gets 0 for it, not a column left out: it is the worst column, every pair
    holding it scores 0 jointly, and both quality means drop."""
    syn = _near_copy(df, seed)
    col = str(df.columns[pick % len(df.columns)])
    good = quality_report(df, syn)
    lost = syn.copy()
    lost[col] = None
    bad = quality_report(df, lost)
    shape = next(s for s in bad["details"]["column_shapes"] if s["column"] == col)
    assert shape["score"] == 0.0 and shape["reason"] == "no value in the synthetic column"
    assert bad["worst_column"] == {
        "column": col,
        "metric": shape["metric"],
        "score": 0.0,
        "reason": "no value in the synthetic column",
    }
    held = [p for p in bad["details"]["column_pair_trends"] if col in p["columns"]]
    assert held and all(p["joint_score"] == 0.0 for p in held)
    assert col in bad["worst_pair"]["columns"] and bad["worst_pair"]["score"] == 0.0
    assert bad["column_shapes"] < good["column_shapes"]
    assert bad["score_all_pairs"] < good["score_all_pairs"]
    # and the other way round: values where the real column has none
    back = quality_report(lost, syn)
    shape = next(s for s in back["details"]["column_shapes"] if s["column"] == col)
    assert shape["score"] == 0.0 and back["worst_column"]["column"] == col


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=mixed_tables(), pick=st.integers(0, 4), seed=st.integers(0, 1000))
def test_a_broken_pair_is_named_though_every_column_is_intact(
    df: pd.DataFrame, pick: int, seed: int
) -> None:
    """A real table where one column rises with another; the synthetic table keeps every
    column's values but shuffles that one: every column shape is 1, the pairs without it
    stay 1, and the worst pair holds it."""
    col = str(df.columns[pick % len(df.columns)])
    other = str(df.columns[(pick + 1) % len(df.columns)])
    real = df.copy()
    rank = np.argsort(np.argsort(real[other].astype(str).to_numpy(), kind="stable"))
    real[col] = np.sort(real[col].to_numpy())[rank]  # col in the order of other
    syn = real.copy()
    syn[col] = np.random.default_rng(seed).permutation(real[col].to_numpy())  # test data only
    q = quality_report(real, syn)
    assert q["column_shapes"] == 1.0
    pairs = q["details"]["column_pair_trends"]
    assert all(p["joint_score"] == 1.0 for p in pairs if col not in p["columns"])
    assert col in q["worst_pair"]["columns"] and q["worst_pair"]["score"] < 1.0
    assert q["all_pairs"] < 1.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(2, 6),
    rounds=st.integers(1, 3),
    per_round=st.one_of(st.none(), st.integers(1, 8)),
    target=st.one_of(st.none(), st.integers(0, 5)),
    cap=st.one_of(st.none(), st.integers(20, 400)),
    seed=st.integers(0, 1000),
)
def test_aim_spends_its_budget_and_no_more(
    k: int, rounds: int, per_round: int | None, target: int | None, cap: int | None, seed: int
) -> None:
    """AIM's split of the model's rho (one-way marginals, a declared target's round, the
    adaptive rounds' selections and measurements) never charges more than the budget, and
    charges all of it unless the cell cap or the candidates run out first. The model fits
    are stubbed (each compiles a JAX program); the charges are the real OpenDP ones."""
    import pytest

    pytest.importorskip("mbi")
    from veil._progress import NullProgress
    from veil.synth import AIMSynthesizer
    from veil.synth._marginal import _mbi
    from veil.synth._noise import ZCDPBudget

    rng = np.random.default_rng(seed)  # test data only
    cols = [f"c{i}" for i in range(k)]
    sizes = {c: int(rng.integers(2, 6)) for c in cols}
    codes = {c: rng.integers(0, sizes[c], 200) for c in cols}
    t = None if target is None or target >= k else cols[target]
    syn = AIMSynthesizer(rounds=rounds, per_round=per_round, target=t, max_cells=cap, seed=0)
    syn.measured_, syn.one_way_ = [], {}
    fits: list[int] = []

    def estimate(mbi, sizes, ms, warm=None):  # type: ignore[no-untyped-def]
        fits.append(len(ms))
        return object()

    def model_marginals(model, sizes, cands, mbi, rng):  # type: ignore[no-untyped-def]
        return {c: np.ones([sizes[v] for v in c]) for c in cands}

    syn._estimate = estimate  # type: ignore[method-assign]
    syn._model_marginals = model_marginals  # type: ignore[method-assign]
    budget = ZCDPBudget(0.05)
    syn._select_and_measure(codes, sizes, budget, _mbi(), NullProgress())
    assert budget.spent <= budget.rho * (1 + 1e-9)
    pairs = [tuple(m) for m in syn.measured_ if len(m) == 2]
    assert len({frozenset(p) for p in pairs}) == len(pairs)  # no pair measured twice
    if t is not None and cap is None:  # the target's pairs come first, all of them
        assert [frozenset(p) for p in pairs[: k - 1]] == [frozenset((c, t)) for c in cols if c != t]
    all_pairs = k * (k - 1) // 2
    # enough candidates for every round at its full batch (and no cap): all of rho is spent
    batch = per_round or k
    declared = k - 1 if t is not None else 0
    if cap is None and all_pairs - declared >= rounds * batch:
        assert budget.spent == pytest.approx(budget.rho, rel=1e-6)
