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

import functools
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
    "epsilon_table",
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
    _check_target(epsilon, delta)
    if n < 1:
        raise InputError("the training set is empty (0 records)", hint="check the input table")
    if delta >= 1.0 / n:
        raise InputError(
            f"delta must be below 1/n = {1.0 / n:.3g} for n = {n} training records, got {delta!r}",
            hint="pass a smaller --delta, e.g. 1e-5 or 1/(10 n)",
        )


def _check_target(epsilon: float, delta: float) -> None:
    """Refuse an (epsilon, delta) target outside (0, 100] x (0, 1), whatever the data."""
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

    The same float as ``create_accountant(accountant).get_epsilon(delta)`` with history
    ``[(noise_multiplier, sample_rate, steps)]`` (see :mod:`veil.train._prv`), remembered:
    calibration, the stopping rule and the report ask for the same schedule.

    Examples
    --------
    >>> round(epsilon_after(1.0, 0.01, 1000, 1e-5, "rdp"), 2)  # doctest: +SKIP
    2.78
    """
    if steps <= 0:
        return 0.0
    if accountant not in ACCOUNTANTS:
        _accountant(accountant)  # raises the error naming the valid ones
    require("opacus", extra="dp", purpose="DP-SGD accounting")
    return _epsilon_cached(
        float(noise_multiplier), float(sample_rate), int(steps), float(delta), accountant
    )


@functools.lru_cache(maxsize=1024)
def _epsilon_cached(sigma: float, q: float, steps: int, delta: float, accountant: str) -> float:
    from veil.train._prv import prv_epsilon, rdp_epsilon

    if accountant == "rdp":
        return rdp_epsilon(sigma, q, steps, delta)
    return prv_epsilon(sigma, q, steps, delta)


def epsilon_table(
    noise_multiplier: float,
    sample_rate: float,
    steps: list[int],
    delta: float,
    accountant: str = "prv",
) -> list[float]:
    """Upper bounds on epsilon after each of ``steps`` steps of one schedule, at once.

    For ``"rdp"`` each entry is exactly :func:`epsilon_after`. For ``"prv"`` the PRV is
    discretized once for the largest count, at an error of 0.02 in epsilon instead of the
    accountant's 0.01 (:func:`veil.train._prv.prv_epsilon_table`): each entry is an upper
    bound about 0.01 above Opacus' for that count, computed in a fraction of the time.
    """
    if accountant not in ACCOUNTANTS:
        _accountant(accountant)  # raises the error naming the valid ones
    require("opacus", extra="dp", purpose="DP-SGD accounting")
    if accountant == "rdp":
        return [epsilon_after(noise_multiplier, sample_rate, k, delta, "rdp") for k in steps]
    from veil.train._prv import prv_epsilon_table

    return prv_epsilon_table(noise_multiplier, sample_rate, list(steps), delta, eps_error=0.02)


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


_MAX_SIGMA = 1e6  # Opacus' get_noise_multiplier gives up there as well


def _calibrate_from(
    epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    accountant: str,
    start: float,
    tolerance: float = 0.01,
) -> float:
    """Opacus' calibration criterion, reached in fewer accountant calls.

    Returns a sigma whose epsilon (per ``accountant``, :func:`epsilon_after`) is at most
    ``epsilon`` and, as with Opacus' ``get_noise_multiplier``, within ``tolerance`` of it.
    Opacus bisects from [0, 20]: about a dozen PRV evaluations, the first ones at noise
    levels far from the answer, where the PRV domain is widest and slowest. Here the search
    starts from ``start`` (the RDP-calibrated sigma, which PRV needs a few per cent less of),
    brackets the answer in steps of 10 %, and closes the bracket by regula falsi (Illinois
    variant) on log(epsilon): three to five evaluations. Only the bracket's upper end is
    ever returned, and its epsilon was computed: the result is within the target by the
    accountant itself, whatever the interpolation does.
    """

    def eps_of(sigma: float) -> float:
        return epsilon_after(sigma, sample_rate, steps, delta, accountant)

    hi = float(start)
    e_hi = eps_of(hi)
    lo, e_lo = hi, e_hi
    while e_hi > epsilon:  # the start is too small: grow until within the target
        lo, e_lo = hi, e_hi
        hi *= 2
        if hi > _MAX_SIGMA:
            raise ValueError("The privacy budget is too low.")
        e_hi = eps_of(hi)
    if epsilon - e_hi <= tolerance:
        return hi
    if lo == hi:  # find a lower end whose epsilon exceeds the target
        while e_lo <= epsilon:
            hi, e_hi = lo, e_lo
            if epsilon - e_hi <= tolerance:
                return hi
            lo *= 0.9
            e_lo = eps_of(lo)
    side = 0
    for _ in range(100):
        # f(sigma) = log eps - log target is monotone decreasing; interpolate its root
        mid = (lo + hi) / 2
        f_lo = f_hi = 0.0
        if e_lo > 0 and e_hi > 0 and math.isfinite(e_lo):
            f_lo, f_hi = math.log(e_lo / epsilon), math.log(e_hi / epsilon)
            if f_lo != f_hi:
                mid = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        e_mid = eps_of(mid)
        if e_mid <= epsilon:
            hi, e_hi = mid, e_mid
            if epsilon - e_hi <= tolerance:
                return hi
            if side == 1:
                e_lo = epsilon * math.exp(f_lo / 2)  # Illinois: halve the stale end's f
            side = 1
        else:
            lo, e_lo = mid, e_mid
            if side == -1 and e_hi > 0:
                e_hi = epsilon * math.exp(f_hi / 2)
            side = -1
        if hi - lo <= 1e-9 * hi:
            break
    return hi


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

    Runs Opacus' ``get_noise_multiplier`` with the RDP accountant (a bisection with a
    tolerance of 0.01 in epsilon); for ``"prv"`` it then searches down from that sigma with
    the PRV accountant to the same criterion (epsilon at most the target and within 0.01 of
    it, see :func:`_calibrate_from`). ``rdp_noise_multiplier`` is the RDP result, for the
    report.

    Examples
    --------
    >>> cal = calibrate_noise(epsilon=3.0, delta=1e-5, sample_rate=0.01, steps=1000)  # doctest: +SKIP
    >>> cal.noise_multiplier < cal.rdp_noise_multiplier  # doctest: +SKIP
    True
    """
    _check_target(epsilon, delta)
    if steps < 1:
        raise InputError(f"the schedule needs at least one step, got {steps}")
    if not 0 < sample_rate <= 1:
        raise InputError(f"sampling rate must be in (0, 1], got {sample_rate}")
    rdp_sigma: float | None = None
    rdp_eps: float | None = None
    rdp_start = _calibrate(epsilon, delta, sample_rate, steps, "rdp")
    if accountant == "rdp":
        sigma = rdp_start
    else:
        try:
            sigma = _calibrate_from(epsilon, delta, sample_rate, steps, accountant, rdp_start)
        except ValueError:
            raise InputError(
                f"no noise multiplier reaches epsilon {epsilon} with delta {delta} over {steps} "
                f"steps at sampling rate {sample_rate:.3g}",
                hint="raise epsilon, train fewer epochs or use a smaller batch size",
            ) from None
    eps = epsilon_after(sigma, sample_rate, steps, delta, accountant)
    if accountant == "rdp":
        rdp_sigma, rdp_eps = sigma, eps
    elif compare_rdp:
        rdp_sigma = rdp_start
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
