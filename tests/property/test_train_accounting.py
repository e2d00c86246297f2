"""Properties of DP-SGD accounting (hypothesis).

- Epsilon grows with the number of steps (for both Opacus accountants).
- The noise multiplier veil calibrates keeps the schedule within the target per the
  accountant that calibrated it, and an independent implementation of the same analysis
  (Microsoft's ``prv_accountant``, the reference code of Gopi et al. 2021) agrees: its upper
  bound is within the target plus its stated error.
- RDP, a different analysis of the same mechanism, never certifies a smaller epsilon than PRV
  (both are upper bounds and PRV is near-tight), and its calibration needs more noise.
- ``max_steps_within`` is the exact boundary: one more step would exceed the budget.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.train import calibrate_noise, epsilon_after, max_steps_within

# PRV evaluations take ~0.1-1 s each; keep example counts small and deadlines off.
_SLOW = settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

sigmas = st.floats(min_value=0.6, max_value=4.0)
rates = st.floats(min_value=0.002, max_value=0.2)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(sigma=sigmas, q=rates, a=st.integers(1, 400), extra=st.integers(1, 400))
def test_rdp_epsilon_grows_with_steps(sigma: float, q: float, a: int, extra: int) -> None:
    assert epsilon_after(sigma, q, a, 1e-5, "rdp") < epsilon_after(sigma, q, a + extra, 1e-5, "rdp")


@_SLOW
@given(sigma=sigmas, q=rates, a=st.integers(5, 200), extra=st.integers(20, 200))
def test_prv_epsilon_grows_with_steps(sigma: float, q: float, a: int, extra: int) -> None:
    assert epsilon_after(sigma, q, a, 1e-5, "prv") <= epsilon_after(
        sigma, q, a + extra, 1e-5, "prv"
    )


@_SLOW
@given(
    epsilon=st.floats(min_value=0.5, max_value=8.0),
    q=st.floats(min_value=0.005, max_value=0.1),
    steps=st.integers(20, 150),
)
def test_calibrated_sigma_meets_target_and_is_cross_checked(
    epsilon: float, q: float, steps: int
) -> None:
    prv_accountant = pytest.importorskip("prv_accountant")
    delta = 1e-5
    cal = calibrate_noise(epsilon=epsilon, delta=delta, sample_rate=q, steps=steps)
    # Per the calibrating accountant (Opacus PRV): within target.
    assert epsilon_after(cal.noise_multiplier, q, steps, delta, "prv") <= epsilon
    assert cal.epsilon <= epsilon
    # Independent implementation of the PRV analysis: its upper bound agrees.
    acc = prv_accountant.PRVAccountant(
        prvs=prv_accountant.PoissonSubsampledGaussianMechanism(
            noise_multiplier=cal.noise_multiplier, sampling_probability=q
        ),
        max_self_compositions=steps,
        eps_error=0.01,
        delta_error=delta / 1000,
    )
    _lower, _estimate, upper = acc.compute_epsilon(delta=delta, num_self_compositions=steps)
    assert upper <= epsilon + 0.02
    # RDP (another analysis): never tighter than PRV beyond PRV's error, and needs more noise.
    assert cal.rdp_epsilon is not None and cal.rdp_noise_multiplier is not None
    assert cal.rdp_epsilon >= cal.epsilon - 0.02
    assert cal.rdp_noise_multiplier >= cal.noise_multiplier
    # The RDP-calibrated sigma is also within target under PRV (more noise, less epsilon).
    assert epsilon_after(cal.rdp_noise_multiplier, q, steps, delta, "prv") <= epsilon


@_SLOW
@given(sigma=st.floats(min_value=0.7, max_value=2.0), q=st.floats(min_value=0.01, max_value=0.1))
def test_max_steps_is_the_budget_boundary(sigma: float, q: float) -> None:
    delta, planned = 1e-5, 300
    target = epsilon_after(sigma, q, 120, delta, "rdp")  # a budget reached mid-schedule
    k = max_steps_within(sigma, q, delta, target, planned, "rdp")
    assert 120 <= k < planned
    assert epsilon_after(sigma, q, k, delta, "rdp") <= target
    assert epsilon_after(sigma, q, k + 1, delta, "rdp") > target
