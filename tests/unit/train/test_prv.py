"""The cached accounting of a fixed DP-SGD schedule against Opacus' own accountants.

``veil.train._prv`` re-runs Opacus' PRV and RDP computations with the per-step RDP vector
cached; these tests hold it to the very same floats as Opacus' accountants, and hold the
calibration and the per-epoch table to the guarantee (never under the accountant's bound).
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("opacus")

from opacus.accountants import create_accountant
from opacus.accountants.utils import get_noise_multiplier

from veil.train import calibrate_noise, epsilon_after, epsilon_table
from veil.train._accounting import _epsilon_cached
from veil.train._prv import prv_epsilon, rdp_epsilon

# (noise multiplier, sampling rate, steps): Adult's schedule at epsilon 3, and others
# from little noise and many steps to much noise and few.
SCHEDULES = [
    (3.0615234375, 1 / 7, 210),
    (1.1, 0.01, 1000),
    (0.8, 0.05, 37),
    (5.0, 0.2, 3),
    (0.6, 0.1, 1),
]


def _opacus(mechanism: str, sigma: float, q: float, steps: int, delta: float) -> float:
    acc = create_accountant(mechanism=mechanism)
    acc.history = [(sigma, q, steps)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Optimal order", category=UserWarning)
        return float(acc.get_epsilon(delta=delta))


@pytest.mark.parametrize(("sigma", "q", "steps"), SCHEDULES)
@pytest.mark.parametrize("delta", [1e-5, 1e-7])
def test_same_float_as_opacus_accountants(sigma: float, q: float, steps: int, delta: float) -> None:
    assert prv_epsilon(sigma, q, steps, delta) == _opacus("prv", sigma, q, steps, delta)
    assert rdp_epsilon(sigma, q, steps, delta) == _opacus("rdp", sigma, q, steps, delta)
    _epsilon_cached.cache_clear()
    assert epsilon_after(sigma, q, steps, delta) == _opacus("prv", sigma, q, steps, delta)
    assert epsilon_after(sigma, q, steps, delta, "rdp") == _opacus("rdp", sigma, q, steps, delta)


def test_epsilon_after_is_cached_per_schedule() -> None:
    _epsilon_cached.cache_clear()
    first = epsilon_after(2.0, 0.05, 40, 1e-5)
    again = epsilon_after(2.0, 0.05, 40, 1e-5)
    assert first == again
    assert _epsilon_cached.cache_info().hits == 1
    assert epsilon_after(2.0, 0.05, 41, 1e-5) > first  # another schedule: computed, larger


def test_per_epoch_table_never_under_the_accountant() -> None:
    sigma, q = 3.0615234375, 1 / 7
    ends = [7 * k for k in range(1, 31)]
    table = epsilon_table(sigma, q, ends, 1e-5)
    exact = [_opacus("prv", sigma, q, k, 1e-5) for k in ends]
    for got, want in zip(table, exact, strict=True):
        # a looser bound (eps_error 0.02 against 0.01), never a tighter one
        assert want <= got <= want + 0.015
    assert table == sorted(table)
    rdp = epsilon_table(sigma, q, ends[:3], 1e-5, "rdp")
    assert rdp == [_opacus("rdp", sigma, q, k, 1e-5) for k in ends[:3]]


@pytest.mark.parametrize(
    ("epsilon", "q", "steps"), [(3.0, 1 / 7, 210), (1.0, 1 / 7, 210), (8.0, 0.1, 20)]
)
def test_calibration_meets_opacus_criterion_with_no_more_noise(
    epsilon: float, q: float, steps: int
) -> None:
    _epsilon_cached.cache_clear()
    cal = calibrate_noise(epsilon=epsilon, delta=1e-5, sample_rate=q, steps=steps)
    # a handful of PRV evaluations (Opacus' own bisection from [0, 20] takes about a dozen)
    assert _epsilon_cached.cache_info().misses <= 8
    by_opacus = _opacus("prv", cal.noise_multiplier, q, steps, 1e-5)
    # within the target per Opacus' own PRV accountant, and within its 0.01 tolerance
    assert cal.epsilon == by_opacus
    assert epsilon - 0.01 <= by_opacus <= epsilon
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Optimal order", category=UserWarning)
        opacus_sigma = get_noise_multiplier(
            target_epsilon=epsilon, target_delta=1e-5, sample_rate=q, steps=steps, accountant="prv"
        )
    # Opacus' bisection stops within 0.01 too: the two sigmas agree closely
    assert cal.noise_multiplier == pytest.approx(opacus_sigma, rel=0.01)
    assert cal.rdp_noise_multiplier is not None
    assert cal.noise_multiplier <= cal.rdp_noise_multiplier
