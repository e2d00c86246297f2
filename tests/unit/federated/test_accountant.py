"""Client-level DP's accountant choice, cross-checked against the exact Gaussian bound.

With every client in every round (``fraction_fit = 1``) nothing is subsampled, so ``rounds``
Gaussian mechanisms of noise multiplier ``z`` compose exactly into one Gaussian mechanism of
``mu = sqrt(rounds) / z`` (Dong, Roth and Su's GDP; the privacy profile of Balle and Wang
2018): ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``. That formula is
independent of Opacus; both accountants must stay within the target by it, and PRV must be
the tighter.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from veil._errors import InputError
from veil.federated import FLConfig
from veil.federated._simulate import client_noise


def exact_epsilon(z: float, rounds: int, delta: float) -> float:
    """The smallest epsilon of ``rounds`` Gaussian mechanisms of multiplier ``z`` at ``delta``."""
    mu = math.sqrt(rounds) / z

    def excess(eps: float) -> float:
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta

    lo, hi = 0.0, 100.0
    if excess(lo) <= 0:
        return 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi


@given(epsilon=st.sampled_from([0.5, 1.0, 3.0, 8.0]), rounds=st.integers(1, 60))
@settings(max_examples=8, deadline=None)
def test_both_accountants_keep_the_exact_gaussian_bound_and_prv_adds_less_noise(
    epsilon: float, rounds: int
) -> None:
    delta = 1e-5
    z_rdp, eps_rdp = client_noise(
        FLConfig(rounds=rounds, dp="client", epsilon=epsilon, delta=delta)
    )
    z_prv, eps_prv = client_noise(
        FLConfig(rounds=rounds, dp="client", epsilon=epsilon, delta=delta, accountant="prv")
    )
    assert eps_rdp <= epsilon and eps_prv <= epsilon
    # each accountant's reported spend is an upper bound of the exact one for its noise
    assert exact_epsilon(z_rdp, rounds, delta) <= eps_rdp + 1e-6
    assert exact_epsilon(z_prv, rounds, delta) <= eps_prv + 1e-6
    # PRV is tight: its noise gives within a few hundredths of the target exactly
    assert exact_epsilon(z_prv, rounds, delta) >= epsilon - 0.05
    assert z_prv < z_rdp


def test_the_accountant_is_checked_and_needs_dp() -> None:
    with pytest.raises(InputError, match="unknown --accountant"):
        FLConfig(dp="client", epsilon=3.0, accountant="gdp").validate()
    with pytest.raises(InputError, match="applies with --dp only"):
        FLConfig(accountant="prv").validate()
    FLConfig(dp="client", epsilon=3.0, accountant="prv").validate()
    FLConfig(dp="sample", epsilon=3.0, accountant="prv").validate()
