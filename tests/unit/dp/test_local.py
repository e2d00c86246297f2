"""Local DP: OpenDP randomized response and the unbiased frequency estimator."""

from __future__ import annotations

import math

import pytest

from veil import InputError
from veil.dp import randomized_response, rr_estimate, rr_probabilities


def test_probabilities_give_exactly_epsilon() -> None:
    p, q = rr_probabilities(1.3, 4)
    assert p + 3 * q == pytest.approx(1.0)
    assert math.log(p / q) == pytest.approx(1.3)


def test_opendp_privacy_map_matches_epsilon() -> None:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    p, _ = rr_probabilities(0.7, 3)
    meas = dp.m.make_randomized_response(["a", "b", "c"], prob=p, T=str)
    assert meas.map(1) == pytest.approx(0.7, rel=1e-9)


def test_estimator_is_unbiased_on_expected_counts() -> None:
    eps, cats, n = 1.0, ["a", "b", "c"], 90_000
    p, q = rr_probabilities(eps, 3)
    truth = {"a": 0.6, "b": 0.3, "c": 0.1}
    # the expected number of reports of each category
    reports = [c for c in cats for _ in range(round(n * (q + truth[c] * (p - q))))]
    est = rr_estimate(reports, cats, epsilon=eps)
    for c in cats:
        assert est.frequency[c] == pytest.approx(truth[c], abs=2e-4)
        pi = q + truth[c] * (p - q)
        assert est.variance[c] == pytest.approx(pi * (1 - pi) / (est.n * (p - q) ** 2), rel=1e-3)


def test_randomized_reports_estimate_the_truth() -> None:
    values = ["yes"] * 1500 + ["no"] * 500
    reports = randomized_response(values, ["yes", "no"], epsilon=2.0)
    assert set(reports) <= {"yes", "no"} and len(reports) == 2000
    assert reports != values  # some were flipped (p = 0.88; all kept has probability 1e-111)
    est = rr_estimate(reports, ["yes", "no"], epsilon=2.0, confidence=0.999999)
    lo, hi = est.interval["yes"]
    assert lo <= 0.75 <= hi


def test_bad_input() -> None:
    with pytest.raises(InputError):
        randomized_response(["x"], ["a", "b"], epsilon=1)
    with pytest.raises(InputError):
        randomized_response(["a"], ["a", "a"], epsilon=1)
    with pytest.raises(InputError):
        rr_probabilities(0, 2)
    with pytest.raises(InputError):
        rr_probabilities(1, 1)
    with pytest.raises(InputError):
        rr_estimate([], ["a", "b"], epsilon=1)
