"""Calibrating DP-SGD noise to a target (epsilon, delta) with Opacus' accountants.

DP-SGD with Poisson sampling at rate ``q``, noise multiplier ``sigma`` and ``T`` steps is a
composition of ``T`` Poisson-subsampled Gaussian mechanisms. Its (epsilon, delta) is computed
by an accountant; veil uses Opacus' accountants only and writes none of its own:

- ``"prv"`` (default): numerical composition of privacy loss random variables (Gopi et al.
  2021). It returns an *upper bound* on epsilon that is close to tight, so the noise it
  calibrates is smaller than RDP's for the same guarantee.
- ``"rdp"``: Rényi DP (Mironov 2017), Opacus' historical default. Also an upper bound, looser.

Every function here is data-independent: it reads only the schedule (q, sigma, steps), never
the data, so calling it spends no privacy.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Literal

from veil._deps import require
from veil._errors import InputError

__all__ = [
    "ACCOUNTANTS",
    "NoiseCalibration",
    "calibrate_noise",
    "check_budget",
    "epsilon_after",
    "max_steps_within",
    "sample_rate_for",
]

Accountant = Literal["prv", "rdp"]
ACCOUNTANTS: tuple[str, ...] = ("prv", "rdp")

# Opacus' RDP accountant warns when its best order is the largest of its default orders: the
# bound is valid but could be tighter with more orders. We report "Opacus' default RDP", so
# the warning is expected; it is recorded in the calibration instead of being shown.
_RDP_ALPHA_WARNING = "Optimal order is the largest alpha"


def check_budget(epsilon: float, delta: float, n: int) -> None:
    """Refuse an (epsilon, delta) target that is out of range for a dataset of ``n`` records.

    Parameters
    ----------
    epsilon
        Target epsilon; must be finite and in (0, 100].
    delta
        Target delta; must be in (0, 1) and below ``1 / n`` (a larger delta allows releasing
        a whole record outright).
    n
        Number of records (the unit of privacy) in the training set.

    Examples
    --------
    >>> check_budget(3.0, 1e-5, 30_000)
    >>> check_budget(3.0, 1e-3, 30_000)
    Traceback (most recent call last):
    ...
    veil._errors.InputError: delta must be below 1/n = 3.33e-05 for n = 30000 training records, got 0.001 (hint: pass a smaller --delta, e.g. 1e-5 or 1/(10 n))
    """
    if not isinstance(epsilon, int | float) or not math.isfinite(epsilon) or epsilon <= 0:
        raise InputError(
            f"epsilon must be a positive finite number, got {epsilon!r}",
            hint="typical values are 1 to 10",
        )
    if epsilon > 100:
        raise InputError(
            f"epsilon must be at most 100, got {epsilon!r}",
            hint="an epsilon above 100 gives no meaningful protection",
        )
    if not isinstance(delta, int | float) or not math.isfinite(delta) or not 0 < delta < 1:
        raise InputError(f"delta must be in (0, 1), got {delta!r}", hint="e.g. 1e-5")
    if n < 1:
        raise InputError("the training set is empty (0 records)", hint="check the input table")
    if delta >= 1.0 / n:
        raise InputError(
            f"delta must be below 1/n = {1.0 / n:.3g} for n = {n} training records, got {delta!r}",
            hint="pass a smaller --delta, e.g. 1e-5 or 1/(10 n)",
        )


def sample_rate_for(n: int, batch_size: int) -> float:
    """Poisson sampling rate for an expected batch size: ``1 / ceil(n / batch_size)``.

    This is the rate Opacus derives from a data loader of ``batch_size`` (one epoch is
    ``ceil(n / batch_size)`` steps), so our accounting and Opacus' agree exactly.

    Examples
    --------
    >>> sample_rate_for(1000, 100)
    0.1
    """
    if n < 1:
        raise InputError("the training set is empty (0 records)")
    if batch_size < 1:
        raise InputError(f"batch size must be at least 1, got {batch_size}")
    return 1.0 / math.ceil(n / min(batch_size, n))


def _accountant(name: str) -> Any:
    require("opacus", extra="dp", purpose="DP-SGD accounting")
    from opacus.accountants import create_accountant

    if name not in ACCOUNTANTS:
        raise InputError(
            f"unknown accountant {name!r}", hint=f"use one of: {', '.join(ACCOUNTANTS)}"
        )
    return create_accountant(mechanism=name)


def epsilon_after(
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    accountant: str = "prv",
) -> float:
    """Epsilon of ``steps`` Poisson-subsampled Gaussian steps, per an Opacus accountant.

    Examples
    --------
    >>> round(epsilon_after(1.0, 0.01, 1000, 1e-5, "rdp"), 2)  # doctest: +SKIP
    2.78
    """
    if steps <= 0:
        return 0.0
    acc = _accountant(accountant)
    acc.history = [(float(noise_multiplier), float(sample_rate), int(steps))]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_RDP_ALPHA_WARNING, category=UserWarning)
        return float(acc.get_epsilon(delta=delta))


def max_steps_within(
    noise_multiplier: float,
    sample_rate: float,
    delta: float,
    epsilon: float,
    planned: int,
    accountant: str = "prv",
) -> int:
    """The largest number of steps ``<= planned`` whose epsilon stays ``<= epsilon``.

    Epsilon grows with the number of steps, so a bisection over steps finds it. Training
    stops there: it never takes a step that would exceed the budget.
    """
    if planned <= 0:
        return 0
    if epsilon_after(noise_multiplier, sample_rate, planned, delta, accountant) <= epsilon:
        return planned
    lo, hi = 0, planned  # eps(lo) <= epsilon < eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if epsilon_after(noise_multiplier, sample_rate, mid, delta, accountant) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class NoiseCalibration:
    """The noise multiplier for a schedule and target, and what RDP would have needed.

    Attributes
    ----------
    noise_multiplier
        Sigma (noise std / clipping norm) used for training.
    accountant
        The accountant that calibrated it (``"prv"`` or ``"rdp"``).
    epsilon
        Epsilon of the full schedule at ``noise_multiplier`` per that accountant (<= target).
    rdp_noise_multiplier
        Sigma Opacus' default RDP calibration gives for the same target and schedule.
    rdp_epsilon
        Epsilon RDP certifies for the sigma actually used (>= ``epsilon``: RDP is looser).
    """

    noise_multiplier: float
    accountant: str
    target_epsilon: float
    delta: float
    sample_rate: float
    steps: int
    epsilon: float
    rdp_noise_multiplier: float | None
    rdp_epsilon: float | None

    @property
    def saving_vs_rdp(self) -> float | None:
        """Relative reduction of sigma against RDP, e.g. 0.057 for 5.7 % less noise."""
        if self.rdp_noise_multiplier is None:
            return None
        return 1.0 - self.noise_multiplier / self.rdp_noise_multiplier

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["saving_vs_rdp"] = self.saving_vs_rdp
        return d


def _calibrate(
    epsilon: float, delta: float, sample_rate: float, steps: int, accountant: str
) -> float:
    require("opacus", extra="dp", purpose="DP-SGD noise calibration")
    from opacus.accountants.utils import get_noise_multiplier

    _accountant(accountant)  # validates the name
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_RDP_ALPHA_WARNING, category=UserWarning)
            return float(
                get_noise_multiplier(
                    target_epsilon=epsilon,
                    target_delta=delta,
                    sample_rate=sample_rate,
                    steps=steps,
                    accountant=accountant,
                )
            )
    except ValueError:
        raise InputError(
            f"no noise multiplier reaches epsilon {epsilon} with delta {delta} over {steps} "
            f"steps at sampling rate {sample_rate:.3g}",
            hint="raise epsilon, train fewer epochs or use a smaller batch size",
        ) from None


def calibrate_noise(
    *,
    epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    accountant: str = "prv",
    compare_rdp: bool = True,
) -> NoiseCalibration:
    """Find the smallest noise multiplier whose schedule stays within (epsilon, delta).

    Uses Opacus' ``get_noise_multiplier`` (a bisection with a tolerance of 0.01 in epsilon)
    with the chosen accountant; with ``compare_rdp`` also runs Opacus' default RDP
    calibration for the same target and schedule, for the report.

    Examples
    --------
    >>> cal = calibrate_noise(epsilon=3.0, delta=1e-5, sample_rate=0.01, steps=1000)  # doctest: +SKIP
    >>> cal.noise_multiplier < cal.rdp_noise_multiplier  # doctest: +SKIP
    True
    """
    if steps < 1:
        raise InputError(f"the schedule needs at least one step, got {steps}")
    if not 0 < sample_rate <= 1:
        raise InputError(f"sampling rate must be in (0, 1], got {sample_rate}")
    sigma = _calibrate(epsilon, delta, sample_rate, steps, accountant)
    eps = epsilon_after(sigma, sample_rate, steps, delta, accountant)
    rdp_sigma: float | None = None
    rdp_eps: float | None = None
    if accountant == "rdp":
        rdp_sigma, rdp_eps = sigma, eps
    elif compare_rdp:
        rdp_sigma = _calibrate(epsilon, delta, sample_rate, steps, "rdp")
        rdp_eps = epsilon_after(sigma, sample_rate, steps, delta, "rdp")
    return NoiseCalibration(
        noise_multiplier=sigma,
        accountant=accountant,
        target_epsilon=float(epsilon),
        delta=float(delta),
        sample_rate=float(sample_rate),
        steps=int(steps),
        epsilon=eps,
        rdp_noise_multiplier=rdp_sigma,
        rdp_epsilon=rdp_eps,
    )
