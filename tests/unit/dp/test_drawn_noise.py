"""The noise each DP statistic actually draws, tested against the scale its answer reports.

``test_stats.py`` re-derives every mechanism's privacy from the *reported* scale; these tests
look at the noise itself: many answers to one query on a fixed table, ``value - exact`` tested
against the reported law (see ``tests/property/noise_checks.py``). A release whose noise is
drawn at a tenth (or ten times) of the scale it reports fails here. OpenDP's sampler cannot be
seeded: the tests use thousands of draws and reject only at p < 1e-6.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from noise_checks import (
    assert_categorical,
    assert_discrete_gaussian,
    assert_discrete_laplace,
    assert_gaussian,
    assert_laplace,
)

from veil.dp import dp_query_many, randomized_response, rr_probabilities
from veil.dp._query import parse_query

N = 1000
DRAWS = 2000


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(11)  # the table only; the noise is OpenDP's
    return pd.DataFrame(
        {
            "age": rng.integers(17, 91, N),
            "income": rng.uniform(0, 1000, N),
            "sex": rng.choice(["Male", "Female", "Other"], N),
            "mid": np.full(N, 50.0),  # every value at the middle of bounds [0, 100]
        }
    )


def _answers(df: pd.DataFrame, query: str, draws: int = DRAWS) -> list[Any]:
    """``draws`` independent answers to one query (no ledger: nothing is recorded)."""
    spec = parse_query(query)
    answers = dp_query_many(df, [spec] * draws, ledger=None)
    assert len(answers) == draws
    return answers


def _one_scale(answers: list[Any]) -> float:
    scales = {a.scale for a in answers}
    assert len(scales) == 1, "one query on one table is calibrated to one scale"
    (scale,) = scales
    assert isinstance(scale, float) and scale > 0
    return scale


def test_count_discrete_laplace(df: pd.DataFrame) -> None:
    answers = _answers(df, "count(epsilon=0.5)")
    assert {a.mechanism for a in answers} == {"discrete_laplace"}
    scale = _one_scale(answers)
    assert_discrete_laplace([a.value - N for a in answers], scale, "count, laplace")


def test_count_discrete_gaussian(df: pd.DataFrame) -> None:
    answers = _answers(df, "count(epsilon=0.5, mechanism=gaussian, delta=1e-7)")
    assert {a.mechanism for a in answers} == {"discrete_gaussian"}
    scale = _one_scale(answers)
    assert_discrete_gaussian([a.value - N for a in answers], scale, "count, gaussian")


def test_integer_sum_discrete_laplace(df: pd.DataFrame) -> None:
    answers = _answers(df, "sum(age, bounds=[17, 90], epsilon=2)")
    assert {a.mechanism for a in answers} == {"discrete_laplace"}
    exact = int(df.age.clip(17, 90).sum())
    assert_discrete_laplace([a.value - exact for a in answers], _one_scale(answers), "int sum")


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_float_sum(df: pd.DataFrame, mechanism: str) -> None:
    extra = ", mechanism=gaussian, delta=1e-7" if mechanism == "gaussian" else ""
    answers = _answers(df, f"sum(income, bounds=[0, 1000], epsilon=1{extra})")
    assert {a.mechanism for a in answers} == {mechanism}
    exact = float(df.income.clip(0, 1000).sum())
    noise = [a.value - exact for a in answers]
    check = assert_gaussian if mechanism == "gaussian" else assert_laplace
    check(noise, _one_scale(answers), f"float sum, {mechanism}")


@pytest.mark.parametrize("stat", ["mean", "variance"])
def test_moments_with_public_size(df: pd.DataFrame, stat: str) -> None:
    answers = _answers(df, f"{stat}(income, bounds=[0, 1000], epsilon=1, size={N})")
    exact = float(df.income.mean() if stat == "mean" else df.income.var(ddof=1))
    assert_laplace([a.value - exact for a in answers], _one_scale(answers), stat)


def test_mean_with_estimated_size(df: pd.DataFrame) -> None:
    # Without a public size the size is a noisy count, so the scale differs between answers;
    # every value sits at the middle of the bounds, so the exact resized mean is always 50.
    answers = _answers(df, "mean(mid, bounds=[0, 100], epsilon=1)", 1000)
    z = [(a.value - 50.0) / a.scale for a in answers]
    assert_laplace(z, 1.0, "mean with an estimated size (standardized by each answer's scale)")


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_histogram_cells(df: pd.DataFrame, mechanism: str) -> None:
    extra = ", mechanism=gaussian, delta=1e-7" if mechanism == "gaussian" else ""
    answers = _answers(
        df, f'histogram(sex, categories=["Male", "Female"], epsilon=1{extra})', DRAWS // 3
    )
    exact = {
        "Male": int((df.sex == "Male").sum()),
        "Female": int((df.sex == "Female").sum()),
        "__other__": int((df.sex == "Other").sum()),
    }
    noise = [a.value[k] - v for a in answers for k, v in exact.items()]
    check = assert_discrete_gaussian if mechanism == "gaussian" else assert_discrete_laplace
    check(noise, _one_scale(answers), f"histogram cells, {mechanism}")


def test_group_by_sum_with_public_keys(df: pd.DataFrame) -> None:
    answers = _answers(
        df, 'sum(income, bounds=[0, 1000], by=sex, categories=["Male", "Female"], epsilon=1)', 1000
    )
    clamped = df.income.clip(0, 1000)
    exact = {k: float(clamped[df.sex == k].sum()) for k in ("Male", "Female")}
    noise = [a.value[k] - v for a in answers for k, v in exact.items()]
    assert_laplace(noise, _one_scale(answers), "group-by sum")


def test_thresholded_group_by_count() -> None:
    # 100 keys of 200 rows each: far above the threshold, so every key is released (each
    # answer searches its threshold anew, so fewer answers with more keys)
    keys = [f"k{i:03d}" for i in range(100)]
    data = pd.DataFrame({"g": np.repeat(keys, 200)})
    answers = _answers(data, "count(by=g, epsilon=1, delta=1e-6)", 20)
    assert {a.mechanism for a in answers} == {"discrete_laplace_threshold"}
    assert all(set(a.value) == set(keys) for a in answers)
    noise = [a.value[k] - 200 for a in answers for k in keys]
    assert_discrete_laplace(noise, _one_scale(answers), "thresholded group-by count")


@pytest.mark.parametrize(("epsilon", "k"), [(0.5, 2), (1.0, 4), (3.0, 6)])
def test_randomized_response_frequencies(epsilon: float, k: int) -> None:
    cats = [f"c{i}" for i in range(k)]
    reports = randomized_response(["c1"] * 4000, cats, epsilon=epsilon)
    # the law in the module docstring, computed here and not taken from the module
    e = math.exp(epsilon)
    expected = [1 / (e + k - 1)] * k
    expected[1] = e / (e + k - 1)
    assert rr_probabilities(epsilon, k) == pytest.approx((expected[1], expected[0]))
    assert_categorical([cats.index(r) for r in reports], expected, f"RR eps={epsilon} k={k}")
