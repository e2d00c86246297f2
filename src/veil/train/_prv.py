"""Opacus' PRV and RDP accountants for one fixed DP-SGD schedule, with their shared work cached.

A DP-SGD run is one Poisson-subsampled Gaussian mechanism (sampling rate ``q``, noise
multiplier ``sigma``) composed ``T`` times. Opacus' ``PRVAccountant.get_epsilon`` recomputes,
on every call, the Rényi DP of that mechanism at 150 orders (to size the discretization domain,
Gopi et al. 2021, remark 5.6) before its FFT composition; calibrating the noise and reporting
the spend after every epoch called it about 45 times per ``veil train`` run (most of the run's
accounting time, see ``docs/differential-privacy.md``).

This module performs *the same computation with the same Opacus functions*, in the same order
and with the same arguments: only the per-step RDP vector of ``(q, sigma)`` is computed once
and scaled by the number of steps (``RDPAccountant`` multiplies it by the steps as well, so the
floats are identical). ``tests/unit/train/test_prv.py`` checks that both functions return the
very same float as Opacus' accountants over a grid of schedules. No bound of its own is
derived here: every epsilon is Opacus' upper bound.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["prv_epsilon", "rdp_epsilon"]

_RDP_ALPHA_WARNING = "Optimal order is the largest alpha"


@lru_cache(maxsize=256)
def _rdp_per_step(sample_rate: float, noise_multiplier: float) -> Any:
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis.rdp import compute_rdp

    return compute_rdp(
        q=sample_rate,
        noise_multiplier=noise_multiplier,
        steps=1,
        orders=RDPAccountant.DEFAULT_ALPHAS,
    )


def rdp_epsilon(noise_multiplier: float, sample_rate: float, steps: int, delta: float) -> float:
    """Epsilon of ``RDPAccountant`` with history ``[(noise_multiplier, sample_rate, steps)]``."""
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis.rdp import get_privacy_spent

    rdp = _rdp_per_step(float(sample_rate), float(noise_multiplier)) * int(steps)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_RDP_ALPHA_WARNING, category=UserWarning)
        eps, _ = get_privacy_spent(orders=RDPAccountant.DEFAULT_ALPHAS, rdp=rdp, delta=delta)
    return float(eps)


def prv_epsilon(
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    eps_error: float = 0.01,
) -> float:
    """Epsilon of ``PRVAccountant.get_epsilon(delta, eps_error=eps_error)`` for one schedule.

    The upper bound Opacus returns (``eps_upper``), computed exactly as
    ``PRVAccountant._get_dprv`` and ``_get_domain`` do for a one-entry history.
    """
    from opacus.accountants.analysis.prv import (
        Domain,
        PoissonSubsampledGaussianPRV,
        TruncatedPrivacyRandomVariable,
        compose_heterogeneous,
        discretize,
    )

    sigma, q, t = float(noise_multiplier), float(sample_rate), int(steps)
    delta_error = delta / 1000
    prv = PoissonSubsampledGaussianPRV(q, sigma)
    # compute_safe_domain_size: RDP of the whole schedule and of one step
    big_l = max(
        rdp_epsilon(sigma, q, t, delta_error / 4),
        rdp_epsilon(sigma, q, 1, delta_error / (8 * t)),
    )
    big_l = max(big_l, eps_error) + 3
    mesh_size = eps_error / np.sqrt(t * np.log(12 / delta_error) / 2)
    domain = Domain.create_aligned(-big_l, big_l, mesh_size)
    # at q = 1 (no subsampling: every client in every round) Opacus' PRV takes log(1 - q) =
    # -inf on purpose, in a branch np.where then discards; numpy warns of the division
    with np.errstate(divide="ignore"):
        tprv = TruncatedPrivacyRandomVariable(prv, domain.t_min, domain.t_max)
        dprv = compose_heterogeneous(dprvs=[discretize(tprv, domain)], num_self_compositions=[t])
    _, _, eps_upper = dprv.compute_epsilon(delta, delta_error, eps_error)
    return float(eps_upper)


def prv_epsilon_table(
    noise_multiplier: float,
    sample_rate: float,
    steps: list[int],
    delta: float,
    eps_error: float = 0.05,
) -> list[float]:
    """PRV upper bounds on epsilon after each of ``steps`` steps, from one discretization.

    The spend after every epoch of a fixed schedule. Opacus' ``PRVAccountant`` would size a
    domain and discretize the PRV once per call; here the PRV is discretized once, on the
    domain Opacus sizes for the *largest* step count (a domain at least as wide and a mesh at
    least as fine as each smaller count needs, so Gopi et al.'s error bound, and so Opacus'
    ``eps_upper``, holds for every entry), transformed once, and each ``k``-fold composition is
    Opacus' ``_compose_fourier`` (``irfft(rfft(pmf) ** k)``, then the same roll and shift).
    ``eps_error`` is coarser than the accountant's default (0.05 against 0.01): each entry is
    then a slightly looser upper bound, never a lower one.
    """
    from opacus.accountants.analysis.prv import (
        DiscretePRV,
        Domain,
        PoissonSubsampledGaussianPRV,
        TruncatedPrivacyRandomVariable,
        discretize,
    )
    from scipy.fft import irfft, rfft

    if not steps:
        return []
    sigma, q = float(noise_multiplier), float(sample_rate)
    t_max = int(max(steps))
    delta_error = delta / 1000
    big_l = max(
        rdp_epsilon(sigma, q, t_max, delta_error / 4),
        rdp_epsilon(sigma, q, 1, delta_error / (8 * t_max)),
    )
    big_l = max(big_l, eps_error) + 3
    mesh_size = eps_error / np.sqrt(t_max * np.log(12 / delta_error) / 2)
    domain = Domain.create_aligned(-big_l, big_l, mesh_size)
    with np.errstate(divide="ignore"):  # log(1 - q) at q = 1, as in prv_epsilon
        tprv = TruncatedPrivacyRandomVariable(
            PoissonSubsampledGaussianPRV(q, sigma), domain.t_min, domain.t_max
        )
        dprv = discretize(tprv, domain)
    spectrum = rfft(dprv.pmf)
    out = []
    for k in steps:
        k = int(k)
        if k <= 0:
            out.append(0.0)
            continue
        pmf = irfft(spectrum**k)
        m = k - 1
        if k % 2 == 0:
            m += len(pmf) // 2
        composed = DiscretePRV(
            pmf=np.roll(pmf, m), domain=dprv.domain.shift_right(dprv.domain.shifts * (k - 1))
        )
        _, _, eps_upper = composed.compute_epsilon(delta, delta_error, eps_error)
        out.append(float(eps_upper))
    return out
