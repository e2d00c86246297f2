"""DP statistics: values, intervals, spends, and each mechanism's accounting re-derived with
OpenDP's own privacy maps (an independent construction in the test, from the reported scale)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil import InputError, PrivacyBudgetExceeded, SchemaError
from veil.dp import BudgetLedger, dp_query, dp_query_many, fingerprint_frame

N = 4000


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(7)  # test data only; DP noise never comes from numpy
    return pd.DataFrame(
        {
            "age": rng.integers(17, 91, N),
            "income": rng.uniform(0, 1000, N),
            "sex": rng.choice(["Male", "Female"], N),
            "person": np.repeat(np.arange(N // 4), 4),
        }
    )


@pytest.fixture
def ledger(tmp_path: Path) -> BudgetLedger:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("t", epsilon=100.0, delta=1e-6)
    yield led
    led.close()


def _dp():  # type: ignore[no-untyped-def]
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _gauss_eps(dp, meas_zcdp, d_in: int, delta: float) -> float:  # type: ignore[no-untyped-def]
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas_zcdp), delta)
    return float(approx.map(d_in)[0])


def test_count_laplace_accounting_and_interval(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    a = dp_query(df, "count(epsilon=0.5, confidence=0.999999)", ledger=ledger, dataset="t")
    assert a.mechanism == "discrete_laplace" and isinstance(a.value, int)
    assert a.interval[0] <= N <= a.interval[1]
    # independent: OpenDP's map of count + discrete Laplace at the reported scale
    vec = dp.vector_domain(dp.atom_domain(T=dp.i64))
    m = (vec, dp.symmetric_distance()) >> dp.t.then_count() >> dp.m.then_laplace(scale=a.scale)
    assert m.map(1) <= a.epsilon
    assert a.accuracy == pytest.approx(dp.discrete_laplacian_scale_to_accuracy(a.scale, 1e-6))
    (h,) = ledger.history("t")
    assert (h.id, h.epsilon, h.curve) == (a.spend_id, 0.5, {"type": "pure", "epsilon": 0.5})
    assert ledger.remaining("t")[0] == pytest.approx(99.5)


def test_sum_gaussian_accounting(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    a = dp_query(
        df,
        "sum(income, bounds=[0, 1000], epsilon=1, mechanism=gaussian, delta=1e-7)",
        ledger=ledger,
        dataset="t",
    )
    assert a.mechanism == "gaussian" and a.rho is not None
    vec = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    m = (
        (vec, dp.symmetric_distance())
        >> dp.t.then_clamp((0.0, 1000.0))
        >> dp.t.then_sum()
        >> dp.m.then_gaussian(scale=a.scale)
    )
    assert m.map(1) <= a.rho * (1 + 1e-9)
    assert _gauss_eps(dp, m, 1, 1e-7) <= 1.0 + 1e-9
    (h,) = ledger.history("t")
    assert h.curve == {"type": "zcdp", "rho": a.rho} and h.delta == 1e-7
    assert abs(a.value - df.income.sum()) < 10 * a.accuracy


def test_integer_sum_uses_discrete_noise(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    a = dp_query(df, "sum(age, bounds=[17, 90], epsilon=1)", ledger=ledger, dataset="t")
    assert a.mechanism == "discrete_laplace" and isinstance(a.value, int)
    assert a.scale == pytest.approx(90 / 1.0)  # sensitivity max(|17|, |90|) over epsilon


@pytest.mark.parametrize("stat", ["mean", "variance"])
def test_mean_variance_with_public_size(df: pd.DataFrame, ledger: BudgetLedger, stat: str) -> None:
    dp = _dp()
    a = dp_query(
        df,
        f"{stat}(age, bounds=[17, 90], epsilon=1, size={N}, confidence=0.999999)",
        ledger=ledger,
        dataset="t",
    )
    truth = df.age.mean() if stat == "mean" else df.age.var()
    assert a.interval[0] <= truth <= a.interval[1]
    vec = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    chain = (
        (vec, dp.symmetric_distance())
        >> dp.t.then_clamp((17.0, 90.0))
        >> dp.t.then_resize(size=N, constant=53.5)
        >> (dp.t.then_mean() if stat == "mean" else dp.t.then_variance())
        >> dp.m.then_laplace(scale=a.scale)
    )
    assert chain.map(1) <= 1.0


def test_mean_with_estimated_size_spends_once(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    a = dp_query(df, "mean(age, bounds=[17, 90], epsilon=0.8)", ledger=ledger, dataset="t")
    assert a.privacy_map["epsilon"] <= 0.8 + 1e-12
    assert any("estimated" in n for n in a.notes)
    assert abs(a.value - df.age.mean()) < 2
    assert len(ledger.history("t")) == 1


def test_histogram_and_group_count(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    h = dp_query(
        df,
        'histogram(sex, categories=["Male", "Female"], epsilon=1, confidence=0.999999)',
        ledger=ledger,
        dataset="t",
    )
    truth = df.sex.value_counts()
    for k in ("Male", "Female"):
        lo, hi = h.interval[k]
        assert lo <= truth[k] <= hi
    assert set(h.value) == {"Male", "Female", "__other__"}
    vec = dp.vector_domain(dp.atom_domain(T=dp.i64))
    m = (
        (vec, dp.symmetric_distance())
        >> dp.t.then_count_by_categories(categories=[0, 1])
        >> dp.m.then_laplace(scale=h.scale)
    )
    assert m.map(1) <= 1.0
    g = dp_query(
        df,
        'count(by=sex, categories=["Male", "Female"], epsilon=1, mechanism=gaussian, delta=1e-7)',
        ledger=ledger,
        dataset="t",
    )
    assert g.mechanism == "discrete_gaussian"
    mg = (
        (vec, dp.symmetric_distance())
        >> dp.t.then_count_by_categories(categories=[0, 1], MO=dp.L2Distance[int])
        >> dp.m.then_gaussian(scale=g.scale)
    )
    assert _gauss_eps(dp, mg, 1, 1e-7) <= 1.0 + 1e-9


def test_numeric_histogram_bins(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    a = dp_query(
        df,
        "histogram(age, bins=[17, 40, 60, 90], epsilon=2, confidence=0.999999)",
        ledger=ledger,
        dataset="t",
    )
    assert list(a.value) == ["[17, 40)", "[40, 60)", "[60, 90]", "__other__"]
    truth = ((df.age >= 60) & (df.age <= 90)).sum()
    lo, hi = a.interval["[60, 90]"]
    assert lo <= truth <= hi


def test_group_sum_with_contribution_bounding(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    a = dp_query(
        df,
        'sum(age, by=sex, categories=["Male", "Female"], bounds=[17, 90], epsilon=1, '
        "id_column=person, max_contributions=2, max_groups=2)",
        ledger=ledger,
        dataset="t",
    )
    assert a.privacy_map["d_in"] == 2 and a.privacy_map["max_groups"] == 2
    vec = dp.vector_domain(dp.atom_domain(T=dp.i64))
    per_group = (
        (vec, dp.symmetric_distance())
        >> dp.t.then_clamp((17, 90))
        >> dp.t.then_sum()
        >> dp.m.then_laplace(scale=a.scale)
    )
    # a person changes at most 2 rows in at most 2 groups: 2 x per-group map at d_in=2
    assert 2 * per_group.map(2) <= 1.0 + 1e-12
    # only 2 of each person's 4 rows are used
    assert sum(a.value.values()) < 0.6 * df.age.sum()


def test_count_with_person_bounding(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    a = dp_query(
        df, "count(epsilon=1, id_column=person, max_contributions=2)", ledger=ledger, dataset="t"
    )
    assert a.privacy_map["d_in"] == 2
    assert abs(a.value - N // 2) < 30  # 1000 people x 2 rows kept; scale 2


def test_quantiles_accounting(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    a = dp_query(df, "median(age, bounds=[17, 90], epsilon=1)", ledger=ledger, dataset="t")
    assert a.interval is None and a.mechanism == "exponential"
    assert abs(a.value - df.age.median()) < 8
    grid = [float(x) for x in np.linspace(17, 90, 101)]
    vec = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    m = dp.m.make_private_quantile(
        vec, dp.symmetric_distance(), dp.max_divergence(), candidates=grid, alpha=0.5, scale=a.scale
    )
    assert m.map(1) <= 1.0
    q = dp_query(
        df, "quantile(age, q=[0.1, 0.9], bounds=[17, 90], epsilon=1)", ledger=ledger, dataset="t"
    )
    assert q.value["0.1"] < q.value["0.9"]
    assert q.privacy_map["epsilon"] <= 1.0 + 1e-12


def _watch_noise(
    monkeypatch: pytest.MonkeyPatch,
    on_release: Callable[[str], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> list[str]:
    """Record every plan's noisy step (``release``) as it runs, with optional hooks."""
    import veil.dp._plans as plans_mod
    import veil.dp._stats as stats

    released: list[str] = []
    real_plan = stats._plan

    def plan(dp: Any, data: pd.DataFrame, spec: Any) -> plans_mod._Plan:
        p = real_plan(dp, data, spec)
        real_stage = p.stage

        def stage() -> plans_mod.Release:
            if on_stage is not None:
                on_stage(spec.label)
            release = real_stage()

            def watched() -> plans_mod.DPAnswer:
                released.append(spec.label)
                if on_release is not None:
                    on_release(spec.label)
                return release()

            return watched

        return plans_mod._Plan(p.spec, p.budget, stage)

    monkeypatch.setattr(stats, "_plan", plan)
    return released


QUERIES_STAGED = [
    "count(epsilon=0.6)",
    "sum(income, bounds=[0, 1000], epsilon=0.6)",
    "mean(age, bounds=[17, 90], epsilon=0.6, size=4000)",
    'histogram(sex, categories=["Male", "Female"], epsilon=0.6)',
    "median(age, bounds=[17, 90], epsilon=0.6)",
    "mean(age, bounds=[17, 90], epsilon=0.6)",
]


@pytest.mark.parametrize("query", QUERIES_STAGED)
def test_refused_spend_draws_no_noise(
    df: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    released = _watch_noise(monkeypatch)
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("small", epsilon=1.0)
    with pytest.raises(PrivacyBudgetExceeded):
        dp_query_many(df, [query, query], ledger=led, dataset="small")
    assert released == [] and led.history("small") == []
    dp_query(df, query, ledger=led, dataset="small")  # within budget: released once
    assert len(released) == 1 and len(led.history("small")) == 1
    led.close()


@pytest.mark.parametrize("query", QUERIES_STAGED)
def test_noise_is_drawn_only_after_the_spend_is_durable(
    df: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    url = f"sqlite:///{tmp_path / 'l.sqlite'}"
    led = BudgetLedger(url)
    led.init("t", epsilon=10.0)
    seen: list[list[str]] = []

    def check(_label: str) -> None:
        # Another connection (as another process would) sees the spend committed.
        with BudgetLedger(url) as other:
            seen.append([h.status for h in other.history("t")])

    _watch_noise(monkeypatch, on_release=check)
    dp_query(df, query, ledger=led, dataset="t")
    assert seen == [["committed"]]
    led.close()


def test_failure_while_drawing_noise_removes_the_spend(
    df: pd.DataFrame, ledger: BudgetLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(_label: str) -> None:
        raise MemoryError

    _watch_noise(monkeypatch, on_release=boom)
    with pytest.raises(MemoryError):
        dp_query(df, "count(epsilon=1)", ledger=ledger, dataset="t")
    assert ledger.history("t") == []
    assert ledger.verify("t")["ok"]


def test_failure_while_staging_removes_the_spend(
    df: pd.DataFrame, ledger: BudgetLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(_label: str) -> None:
        raise MemoryError

    released = _watch_noise(monkeypatch, on_stage=boom)
    with pytest.raises(MemoryError):
        dp_query_many(
            df,
            ["count(epsilon=1)", "sum(income, bounds=[0, 9], epsilon=1)"],
            ledger=ledger,
            dataset="t",
        )
    assert released == [] and ledger.history("t") == []
    assert ledger.verify("t")["ok"]


def test_staging_failure_with_a_refused_spend_raises_the_staging_error(
    df: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("small", epsilon=0.5)

    def boom(_label: str) -> None:
        raise MemoryError

    _watch_noise(monkeypatch, on_stage=boom)
    with pytest.raises(MemoryError):
        dp_query(df, "count(epsilon=1)", ledger=led, dataset="small")
    assert led.history("small") == []
    led.close()


def test_in_memory_ledger_records_in_the_calling_thread(df: pd.DataFrame) -> None:
    led = BudgetLedger("sqlite:///:memory:")
    led.init("m", epsilon=1.0)
    dp_query(df, "count(epsilon=0.4)", ledger=led, dataset="m")
    with pytest.raises(PrivacyBudgetExceeded):
        dp_query(df, "count(epsilon=0.7)", ledger=led, dataset="m")
    assert [h.epsilon for h in led.history("m")] == [0.4]
    led.close()


def test_dry_run_spends_nothing(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    assert dp_query_many(df, ["count(epsilon=1)"], ledger=ledger, dataset="t", dry_run=True) == []
    assert ledger.history("t") == []
    with pytest.raises(PrivacyBudgetExceeded):
        dp_query_many(df, ["count(epsilon=1000)"], ledger=ledger, dataset="t", dry_run=True)


def test_fingerprint_binds_budget_to_data(df: pd.DataFrame, tmp_path: Path) -> None:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("fp", epsilon=5, fingerprint=fingerprint_frame(df))
    dp_query(df, "count(epsilon=1)", ledger=led, dataset="fp", fingerprint=fingerprint_frame(df))
    other = df.iloc[:-1]
    with pytest.raises(InputError, match="fingerprint"):
        dp_query(
            other,
            "count(epsilon=1)",
            ledger=led,
            dataset="fp",
            fingerprint=fingerprint_frame(other),
        )
    led.close()


def test_bad_inputs_name_columns_never_values(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    with pytest.raises(SchemaError, match="salary"):
        dp_query(df, "sum(salary, bounds=[0, 1], epsilon=1)", ledger=ledger, dataset="t")
    with pytest.raises(SchemaError) as exc:
        dp_query(df, "sum(sex, bounds=[0, 1], epsilon=1)", ledger=ledger, dataset="t")
    assert "Male" not in str(exc.value) and "Female" not in str(exc.value)
    with pytest.raises(InputError, match="1/n"):
        dp_query(
            df, "count(epsilon=1, mechanism=gaussian, delta=0.001)", ledger=ledger, dataset="t"
        )
    with pytest.raises(InputError, match="dataset"):
        dp_query(df, "count(epsilon=1)", ledger=ledger)
    assert ledger.history("t") == []


def test_no_numpy_noise_in_the_dp_package() -> None:
    src = Path(__file__).resolve().parents[3] / "src" / "veil" / "dp"
    pattern = re.compile(
        r"np\.random|numpy\.random|^\s*import random|^\s*from random|secrets\.", re.M
    )
    offenders = [p.name for p in src.glob("*.py") if pattern.search(p.read_text())]
    assert offenders == []


def test_accuracy_is_openDP_accuracy_at_the_confidence(
    df: pd.DataFrame, ledger: BudgetLedger
) -> None:
    dp = _dp()
    a = dp_query(
        df, "sum(income, bounds=[0, 1000], epsilon=1, confidence=0.9)", ledger=ledger, dataset="t"
    )
    assert a.accuracy == pytest.approx(dp.laplacian_scale_to_accuracy(a.scale, 0.1))
    assert a.interval == pytest.approx([a.value - a.accuracy, a.value + a.accuracy])
    assert math.isfinite(a.accuracy)


def test_group_count_with_keys_from_the_data(df: pd.DataFrame, ledger: BudgetLedger) -> None:
    dp = _dp()
    rare = df.assign(sex=df.sex.where(df.index > 0, "Unique"))  # one person with a rare key
    a = dp_query(rare, "count(by=sex, epsilon=1, delta=1e-7)", ledger=ledger, dataset="t")
    assert a.mechanism == "discrete_laplace_threshold"
    assert set(a.value) == {"Male", "Female"}  # the rare key stays hidden
    # independent: OpenDP's map of count_by + Laplace threshold at the reported parameters
    t = (dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()) >> dp.t.then_count_by(
        TV=dp.i64
    )
    m = t >> dp.m.then_laplace_threshold(scale=a.scale, threshold=a.privacy_map["threshold"])
    eps, delta = m.map(1)
    assert eps <= 1.0 and delta <= 1e-7
    (h,) = ledger.history("t")
    assert (h.epsilon, h.delta, h.curve) == (1.0, 1e-7, None)


def test_recurring_query_reuses_its_calibration_and_other_budgets_do_not(
    df: pd.DataFrame, ledger: BudgetLedger
) -> None:
    from veil.dp._mechanisms import _CALIBRATED

    _CALIBRATED.clear()
    q = "sum(income, bounds=[0, 1000], epsilon={e})"
    a = dp_query(df, q.format(e=0.5), ledger=ledger, dataset="t")
    n_cached = len(_CALIBRATED)
    b = dp_query(df, q.format(e=0.5), ledger=ledger, dataset="t")
    c = dp_query(df, q.format(e=0.25), ledger=ledger, dataset="t")
    d = dp_query(df, "sum(income, bounds=[0, 500], epsilon=0.5)", ledger=ledger, dataset="t")
    assert n_cached == 1 and len(_CALIBRATED) == 3  # b reused a's; c and d are new keys
    assert a.scale == b.scale and c.scale == pytest.approx(2 * a.scale, rel=1e-6)
    assert d.scale == pytest.approx(a.scale / 2, rel=1e-6)
    dp = _dp()  # each scale re-checked with a chain built here, not taken from the cache
    vec = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    for ans, hi, eps in ((a, 1000.0, 0.5), (c, 1000.0, 0.25), (d, 500.0, 0.5)):
        chain = (vec, dp.symmetric_distance()) >> dp.t.then_clamp((0.0, hi)) >> dp.t.then_sum()
        assert (chain >> dp.m.then_laplace(scale=ans.scale)).map(1) <= eps


def test_float_column_with_missing_values_drops_them(ledger: BudgetLedger) -> None:
    vals = np.array([1.0, np.nan, 3.0] * 1000)
    df = pd.DataFrame({"x": vals})
    a = dp_query(df, "count(x, epsilon=5)", ledger=ledger, dataset="t")
    s = dp_query(df, "sum(x, bounds=[0, 4], epsilon=5)", ledger=ledger, dataset="t")
    assert abs(a.value - 2000) < 10 and abs(s.value - 4000) < 10
    assert not math.isnan(s.value)
