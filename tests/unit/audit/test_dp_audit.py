"""The one-run DP audit: the paper's bound, its validity on simulated DP runs, its power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil import InputError
from veil.audit import epsilon_lower_bound, one_run_audit, p_value


def test_reproduces_the_figures_printed_in_the_paper() -> None:
    # Steinke, Nasr, Jagielski (arXiv:2305.08846): Appendix D's example (m=1000 canaries,
    # r=100 guesses, v=75 right, delta=1e-4, 95 %) and the figure of Section 7
    # (m=100000, r=1510, v=1439, delta=1e-5), printed as 0.673 and 2.675.
    assert epsilon_lower_bound(1000, 100, 75, delta=1e-4) == pytest.approx(0.673, abs=5e-4)
    assert epsilon_lower_bound(100000, 1510, 1439, delta=1e-5) == pytest.approx(2.675, abs=1e-3)
    # pure DP (delta 0): 75 of 100 right is what eps = log 3 randomized response gives on
    # average, so its p-value is about one half
    assert p_value(100, 100, 75, math.log(3), 0.0) == pytest.approx(0.5535, abs=1e-3)


@settings(max_examples=50, deadline=None)
@given(
    m=st.integers(2, 3000),
    data=st.data(),
    eps=st.floats(0, 8),
    delta=st.sampled_from([0.0, 1e-6, 1e-5, 1e-3]),
)
def test_p_value_grows_with_epsilon_and_the_bound_is_where_it_crosses(
    m: int, data: st.DataObject, eps: float, delta: float
) -> None:
    r = data.draw(st.integers(1, m))
    v = data.draw(st.integers(0, r))
    p0, p1 = p_value(m, r, v, eps, delta), p_value(m, r, v, eps + 0.5, delta)
    assert 0 <= p0 <= p1 + 1e-12 <= 1 + 1e-12
    b = epsilon_lower_bound(m, r, v, delta=delta)
    if b > 0:
        assert p_value(m, r, v, b, delta) < 0.05 <= p_value(m, r, v, b + 1e-6, delta) + 1e-9
    # a delta term can only weaken the bound
    assert epsilon_lower_bound(m, r, v, delta=delta) <= epsilon_lower_bound(m, r, v, delta=0.0)


def _randomized_response(eps: float, m: int, rng: np.random.Generator) -> tuple:
    """An eps-DP mechanism in each canary: reports its inclusion bit, flipped w.p. 1/(1+e^eps)."""
    inc = rng.random(m) < 0.5
    keep = rng.random(m) < math.exp(eps) / (1 + math.exp(eps))
    seen = np.where(keep, inc, ~inc).astype(float)
    return seen + rng.normal(0, 1e-3, m), inc  # ties broken at random


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(0.2, 4), m=st.integers(200, 3000))
def test_bound_never_above_the_claim_of_a_dp_mechanism(seed: int, eps: float, m: int) -> None:
    # the mechanism is eps-DP; the claim audited is 1.5 eps + 0.5, so a bound above it would
    # take an event of probability far below 1e-6
    scores, inc = _randomized_response(eps, m, np.random.default_rng(seed))
    res = one_run_audit(scores, inc, delta=1e-5)
    assert res["epsilon_lower_bound"] <= 1.5 * eps + 0.5


def test_bound_exceeds_the_true_epsilon_in_at_most_5_percent_of_runs() -> None:
    # at the exact epsilon of the mechanism the bound is a 95 % confidence statement:
    # over 300 runs it may exceed eps in about 5 % of them, not more (binomial 99.9 % limit)
    rng = np.random.default_rng(2024)
    eps = 1.0
    over = sum(
        one_run_audit(*_randomized_response(eps, 1000, rng), delta=0.0)["epsilon_lower_bound"] > eps
        for _ in range(300)
    )
    assert over <= 28


def test_the_audit_has_power_on_a_leaky_mechanism() -> None:
    # randomized response at eps = 2 is tight for this test: the bound gets close to 2
    rng = np.random.default_rng(7)
    res = one_run_audit(*_randomized_response(2.0, 5000, rng), delta=1e-5)
    assert 1.5 < res["epsilon_lower_bound"] <= 2.0
    # and on a mechanism that reveals every bit, one run proves a large epsilon
    inc = rng.random(1000) < 0.5
    assert one_run_audit(inc.astype(float), inc, delta=1e-5)["epsilon_lower_bound"] > 4


def test_audit_reports_its_guesses() -> None:
    rng = np.random.default_rng(3)
    res = one_run_audit(*_randomized_response(1.0, 400, rng), delta=1e-5, confidence=0.9)
    assert res["canaries"] == 400 and res["confidence"] == 0.9
    assert {p["k"] for p in res["per_k"]} == {4, 8, 20, 40, 100, 200}
    best = max(res["per_k"], key=lambda p: p["epsilon_lower_bound"])
    assert (res["k"], res["correct"]) == (best["k"], best["correct"])


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (([1.0, 2.0], [True]), "2 scores for 1 canaries"),
        (([1.0], [True]), "at least 2 canaries"),
        (([1.0, np.inf], [True, False]), "not finite"),
        (([1.0, 2.0], [1, 0]), "booleans"),
    ],
)
def test_bad_canary_inputs_are_refused(args: tuple, match: str) -> None:
    with pytest.raises(InputError, match=match):
        one_run_audit(*args, delta=1e-5)


def test_bad_counts_are_refused() -> None:
    with pytest.raises(InputError, match="v <= r <= m"):
        p_value(10, 5, 6, 1.0, 0.0)
    with pytest.raises(InputError, match="confidence"):
        epsilon_lower_bound(10, 5, 5, delta=0.0, confidence=1.0)
