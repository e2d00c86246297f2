"""DP-SGD accounting, on what mutation testing showed untested.

The budget checks' messages and edges, the sampling rate, the step search's boundary, the
calibration's criterion from any start, and what a calibration records, with Opacus' own
accountants as the oracle. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import math
import warnings

import pytest

pytest.importorskip("opacus")

from opacus.accountants import create_accountant

from veil import InputError
from veil.train import (
    NoiseCalibration,
    calibrate_noise,
    check_budget,
    epsilon_after,
    epsilon_table,
    max_steps_within,
    sample_rate_for,
)
from veil.train._accounting import _calibrate, _calibrate_from

# a search that never ends fails the test (tests/unit/train/conftest.py)
pytestmark = [
    pytest.mark.filterwarnings("ignore:Optimal order:UserWarning"),
    pytest.mark.usefixtures("searches_end"),
]


def _opacus(mechanism: str, sigma: float, q: float, steps: int, delta: float) -> float:
    acc = create_accountant(mechanism=mechanism)
    acc.history = [(sigma, q, steps)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Optimal order", category=UserWarning)
        return float(acc.get_epsilon(delta=delta))


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (
            (0, 1e-5, 10),
            "epsilon must be a positive finite number, got 0",
            "typical values are 1 to 10",
        ),
        (
            ("1", 1e-5, 10),
            "epsilon must be a positive finite number, got '1'",
            "typical values are 1 to 10",
        ),
        (
            (100.5, 1e-5, 10),
            "epsilon must be at most 100, got 100.5",
            "an epsilon above 100 gives no meaningful protection",
        ),
        ((1.0, "x", 10), "delta must be in (0, 1), got 'x'", "e.g. 1e-5"),
        ((1.0, math.nan, 10), "delta must be in (0, 1), got nan", "e.g. 1e-5"),
        ((1.0, 0.0, 10), "delta must be in (0, 1), got 0.0", "e.g. 1e-5"),
        ((1.0, 1.0, 1), "delta must be in (0, 1), got 1.0", "e.g. 1e-5"),
        ((1.0, 1.5, 1), "delta must be in (0, 1), got 1.5", "e.g. 1e-5"),
        ((1.0, 1e-5, 0), "the training set is empty (0 records)", "check the input table"),
        (
            (1.0, 0.25, 4),
            "delta must be below 1/n = 0.25 for n = 4 training records, got 0.25",
            "pass a smaller --delta, e.g. 1e-5 or 1/(10 n)",
        ),
    ],
)
def test_check_budget_says_what_and_how(args: tuple, message: str, hint: str) -> None:
    with pytest.raises(InputError) as info:
        check_budget(*args)
    assert info.value.message == message
    assert info.value.hint == hint


def test_check_budget_edges() -> None:
    check_budget(100, 0.2499, 4)  # epsilon 100 and delta just below 1/n are allowed
    check_budget(1e-9, 1e-300, 1)


def test_sample_rate_for_each_batch_size() -> None:
    assert sample_rate_for(1000, 300) == 0.25  # ceil(1000 / 300) = 4 steps an epoch
    assert sample_rate_for(10, 50) == 1.0  # a batch larger than the data: one step
    assert sample_rate_for(10, 10) == 1.0
    assert sample_rate_for(10, 1) == 0.1
    assert sample_rate_for(1, 5) == 1.0  # one record: still a training set
    with pytest.raises(InputError) as info:
        sample_rate_for(0, 5)
    assert info.value.message == "the training set is empty (0 records)"
    with pytest.raises(InputError) as info:
        sample_rate_for(10, 0)
    assert info.value.message == "batch size must be at least 1, got 0"


def test_unknown_accountant_names_the_valid_ones() -> None:
    for call in (
        lambda: epsilon_after(1.0, 0.1, 10, 1e-5, "gdp"),
        lambda: epsilon_table(1.0, 0.1, [10], 1e-5, "gdp"),
        lambda: _calibrate(1.0, 1e-5, 0.1, 10, "gdp"),
    ):
        with pytest.raises(InputError) as info:
            call()
        assert info.value.message == "unknown accountant 'gdp'"
        assert info.value.hint == "use one of: prv, rdp"


def test_epsilon_after_no_step_is_zero_and_one_step_is_the_accountant() -> None:
    assert epsilon_after(1.0, 0.1, 0, 1e-5) == 0.0
    assert epsilon_after(1.0, 0.1, -3, 1e-5, "rdp") == 0.0
    assert epsilon_after(1.0, 0.1, 1, 1e-5) == _opacus("prv", 1.0, 0.1, 1, 1e-5)
    assert epsilon_after(2, 1, 5, 1e-5, "rdp") == _opacus("rdp", 2.0, 1.0, 5, 1e-5)


def test_max_steps_within_is_the_last_step_within_the_budget() -> None:
    sigma, q, delta = 1.0, 0.05, 1e-5
    eps = epsilon_after(sigma, q, 60, delta, "rdp")
    got = max_steps_within(sigma, q, delta, eps, 200, "rdp")
    assert got == 60  # eps(60) is exactly the budget: the boundary step is allowed
    assert epsilon_after(sigma, q, 61, delta, "rdp") > eps
    below = max_steps_within(sigma, q, delta, eps * (1 - 1e-9), 200, "rdp")
    assert below == 59
    assert max_steps_within(sigma, q, delta, eps, 60, "rdp") == 60
    assert max_steps_within(sigma, q, delta, eps, 37, "rdp") == 37
    assert max_steps_within(sigma, q, delta, eps, 0, "rdp") == 0
    assert max_steps_within(sigma, q, delta, eps, 1, "rdp") == 1  # one step that fits
    # the accountant asked for judges the planned steps too: between PRV's epsilon of 200
    # steps and RDP's (RDP is the looser), RDP stops before 200
    e_prv, e_rdp = epsilon_after(sigma, q, 200, delta), epsilon_after(sigma, q, 200, delta, "rdp")
    assert e_prv < e_rdp
    assert max_steps_within(sigma, q, delta, (e_prv + e_rdp) / 2, 200, "rdp") < 200
    assert max_steps_within(sigma, q, delta, 1e-9, 200, "rdp") == 0
    prv = max_steps_within(sigma, q, delta, 2.0, 400)
    assert epsilon_after(sigma, q, prv, delta) <= 2.0 < epsilon_after(sigma, q, prv + 1, delta)


@pytest.mark.parametrize("factor", [0.2, 1.0, 3.0])
def test_calibration_from_any_start_meets_the_criterion(factor: float) -> None:
    target, delta, q, steps = 2.0, 1e-5, 0.05, 100
    start = 1.0 * factor
    sigma = _calibrate_from(target, delta, q, steps, "prv", start)
    eps = _opacus("prv", sigma, q, steps, delta)
    assert target - 0.01 <= eps <= target
    tight = _calibrate_from(target, delta, q, steps, "prv", start, tolerance=1e-4)
    assert target - 1e-4 <= _opacus("prv", tight, q, steps, delta) <= target


def test_calibration_gives_up_past_the_largest_sigma() -> None:
    with pytest.raises(ValueError) as info:
        _calibrate_from(1e-6, 1e-5, 1.0, 10, "rdp", 1e5)
    assert str(info.value) == "The privacy budget is too low."


def test_calibration_records_the_schedule_and_rdp() -> None:
    cal = calibrate_noise(epsilon=3, delta=1e-5, sample_rate=0.1, steps=50)
    assert (cal.accountant, cal.target_epsilon, cal.delta, cal.sample_rate, cal.steps) == (
        "prv",
        3.0,
        1e-5,
        0.1,
        50,
    )
    assert cal.epsilon == _opacus("prv", cal.noise_multiplier, 0.1, 50, 1e-5)
    assert 2.99 <= cal.epsilon <= 3.0
    assert cal.rdp_noise_multiplier is not None and cal.rdp_epsilon is not None
    assert cal.rdp_epsilon == _opacus("rdp", cal.noise_multiplier, 0.1, 50, 1e-5)
    assert cal.rdp_epsilon >= cal.epsilon
    assert 2.99 <= _opacus("rdp", cal.rdp_noise_multiplier, 0.1, 50, 1e-5) <= 3.0
    assert cal.saving_vs_rdp == 1.0 - cal.noise_multiplier / cal.rdp_noise_multiplier
    assert cal.saving_vs_rdp > 0
    d = cal.to_dict()
    assert d["saving_vs_rdp"] == cal.saving_vs_rdp and d["noise_multiplier"] == cal.noise_multiplier
    assert set(d) == {
        "noise_multiplier",
        "accountant",
        "target_epsilon",
        "delta",
        "sample_rate",
        "steps",
        "epsilon",
        "rdp_noise_multiplier",
        "rdp_epsilon",
        "saving_vs_rdp",
    }


def test_calibration_with_rdp_or_without_the_comparison() -> None:
    rdp = calibrate_noise(epsilon=3.0, delta=1e-5, sample_rate=0.1, steps=50, accountant="rdp")
    assert rdp.accountant == "rdp"
    assert rdp.rdp_noise_multiplier == rdp.noise_multiplier and rdp.saving_vs_rdp == 0.0
    assert rdp.rdp_epsilon == rdp.epsilon == _opacus("rdp", rdp.noise_multiplier, 0.1, 50, 1e-5)
    plain = calibrate_noise(epsilon=3.0, delta=1e-5, sample_rate=0.1, steps=50, compare_rdp=False)
    assert plain.rdp_noise_multiplier is None and plain.rdp_epsilon is None
    assert plain.saving_vs_rdp is None
    assert plain.noise_multiplier < rdp.noise_multiplier


def test_calibration_refuses_a_bad_schedule_or_target() -> None:
    with pytest.raises(InputError) as info:
        calibrate_noise(epsilon=1.0, delta=1e-5, sample_rate=0.1, steps=0)
    assert info.value.message == "the schedule needs at least one step, got 0"
    for q in (0.0, 1.5):
        with pytest.raises(InputError) as info:
            calibrate_noise(epsilon=1.0, delta=1e-5, sample_rate=q, steps=1)
        assert info.value.message == f"sampling rate must be in (0, 1], got {q}"
    cal = calibrate_noise(epsilon=5.0, delta=1e-5, sample_rate=1.0, steps=1, accountant="rdp")
    assert cal.epsilon <= 5.0
    with pytest.raises(InputError) as info:
        calibrate_noise(epsilon=1e-6, delta=1e-10, sample_rate=1.0, steps=1000, accountant="rdp")
    assert info.value.message == (
        "no noise multiplier reaches epsilon 1e-06 with delta 1e-10 over 1000 steps at "
        "sampling rate 1"
    )
    assert info.value.hint == "raise epsilon, train fewer epochs or use a smaller batch size"


def test_noise_calibration_without_rdp_has_no_saving() -> None:
    cal = NoiseCalibration(1.0, "prv", 1.0, 1e-5, 0.1, 10, 0.9, None, None)
    assert cal.saving_vs_rdp is None
    assert NoiseCalibration(1.0, "prv", 1.0, 1e-5, 0.1, 10, 0.9, 4.0, 1.0).saving_vs_rdp == 0.75


def test_epsilon_table_is_each_count_of_one_schedule() -> None:
    sigma, q, delta, steps = 1.0, 0.05, 1e-5, [10, 40]
    rdp = epsilon_table(sigma, q, steps, delta, "rdp")
    assert rdp == [epsilon_after(sigma, q, k, delta, "rdp") for k in steps]
    from veil.train._prv import prv_epsilon_table

    prv = epsilon_table(sigma, q, steps, delta)
    assert prv == prv_epsilon_table(sigma, q, steps, delta, eps_error=0.02)
    for k, e in zip(steps, prv, strict=True):  # an upper bound, about 0.01 above Opacus'
        assert (
            _opacus("prv", sigma, q, k, delta) - 1e-6
            <= e
            <= _opacus("prv", sigma, q, k, delta) + 0.03
        )
    assert prv[0] < prv[1]
