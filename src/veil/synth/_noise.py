"""Differential-privacy primitives of the marginal synthesizers, all from OpenDP.

- :func:`rho_for` converts an (epsilon, delta) target into a zero-concentrated DP budget
  ``rho`` with OpenDP's own zCDP -> approximate-DP conversion (binary search on it);
- :class:`ZCDPBudget` hands out noise: the Gaussian mechanism on a vector of counts
  (``make_gaussian``) and the exponential mechanism for selection (``make_noisy_max``,
  Gumbel noise). Each measurement's cost is what OpenDP's privacy map says it is, and the
  budget refuses a measurement that would exceed ``rho``. No noise comes from numpy.

Unit of privacy: one row of the training table (add/remove neighbours). A marginal's L2
sensitivity is then 1, and an L1 error score changes by at most 1 per unit weight.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from veil._deps import require
from veil._errors import PrivacyBudgetExceeded

__all__ = ["ZCDPBudget", "epsilon_for", "rho_for"]


def _dp() -> Any:
    dp = require("opendp.prelude", extra="dp", purpose="differentially private synthesis")
    dp.enable_features("contrib")
    return dp


def epsilon_for(rho: float, delta: float) -> float:
    """The epsilon of a rho-zCDP mechanism at ``delta``, by OpenDP's conversion."""
    dp = _dp()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
    meas = dp.m.make_gaussian(*space, scale=1.0 / math.sqrt(2 * rho))
    return float(dp.c.make_zCDP_to_approxDP(meas).map(1.0).epsilon(delta))


def rho_for(epsilon: float, delta: float) -> float:
    """The largest zCDP ``rho`` whose (epsilon, delta)-DP conversion stays within ``epsilon``."""
    lo, hi = 1e-12, max(epsilon, 1.0)
    while epsilon_for(hi, delta) < epsilon:  # pragma: no cover - epsilon <= 100 keeps hi small
        hi *= 2
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if epsilon_for(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-6:
            break
    return lo


class ZCDPBudget:
    """A rho-zCDP budget that OpenDP measurements draw from.

    Examples
    --------
    >>> budget = ZCDPBudget(0.5)
    >>> noisy = budget.gaussian(np.array([10.0, 20.0]), sigma=5.0)  # doctest: +SKIP
    >>> round(budget.spent, 3)  # doctest: +SKIP
    0.02
    """

    def __init__(self, rho: float) -> None:
        self.rho = float(rho)
        self.spent = 0.0
        self.log: list[dict[str, Any]] = []
        self._dp = _dp()

    @property
    def remaining(self) -> float:
        return max(self.rho - self.spent, 0.0)

    def _charge(self, cost: float, what: str) -> None:
        if self.spent + cost > self.rho * (1 + 1e-9):
            raise PrivacyBudgetExceeded(
                f"the synthesizer's internal budget would be exceeded by {what}",
                hint="this is a bug in the budget split; please report it",
            )
        self.spent += cost
        self.log.append({"what": what, "rho": cost})

    def gaussian(self, counts: np.ndarray, sigma: float, what: str = "marginal") -> np.ndarray:
        """``counts`` plus Gaussian noise of scale ``sigma`` (L2 sensitivity 1)."""
        dp = self._dp
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
        meas = dp.m.make_gaussian(*space, scale=float(sigma))
        self._charge(float(meas.map(1.0)), what)
        flat = np.asarray(counts, dtype=float).ravel()
        return np.asarray(meas(flat.tolist()), dtype=float).reshape(np.shape(counts))

    def select(
        self, scores: np.ndarray, rho: float, sensitivity: float, what: str = "selection"
    ) -> int:
        """Index of a high score by the exponential mechanism costing ``rho``."""
        dp = self._dp
        scale = float(sensitivity) / math.sqrt(2 * rho)
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
        meas = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale)
        self._charge(float(meas.map(float(sensitivity))), what)
        return int(meas([float(s) for s in np.asarray(scores, dtype=float)]))
