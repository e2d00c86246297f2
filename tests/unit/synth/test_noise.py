"""The DP accounting of the marginal synthesizers, re-derived independently of OpenDP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from veil._errors import PrivacyBudgetExceeded
from veil.synth._noise import ZCDPBudget, epsilon_for, rho_for


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-9), (0.3, 1e-6), (8.0, 1e-5)])
def test_rho_for_is_within_the_classical_bound(eps: float, delta: float) -> None:
    rho = rho_for(eps, delta)
    # Bun & Steinke: rho-zCDP implies (rho + 2 sqrt(rho log 1/delta), delta)-DP; OpenDP's
    # conversion is tighter, so the rho we get is at least the classical one.
    classical = (math.sqrt(math.log(1 / delta) + eps) - math.sqrt(math.log(1 / delta))) ** 2
    assert rho >= classical * (1 - 1e-9)
    assert epsilon_for(rho, delta) <= eps * (1 + 1e-6)
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) >= eps * (1 - 1e-6)


def test_budget_costs_match_the_textbook_formulas() -> None:
    budget = ZCDPBudget(1.0)
    counts = np.array([5.0, 10.0, 0.0])
    noisy = budget.gaussian(counts, sigma=4.0)
    assert noisy.shape == counts.shape and not np.allclose(noisy, counts)
    assert budget.spent == pytest.approx(1 / (2 * 16))  # Delta^2 / (2 sigma^2)
    k = budget.select(np.array([0.0, 100.0, 0.0]), rho=0.02, sensitivity=2.0)
    assert k in (0, 1, 2)
    assert budget.spent == pytest.approx(1 / 32 + 0.02)
    with pytest.raises(PrivacyBudgetExceeded):
        budget.gaussian(counts, sigma=0.1)
    assert budget.spent == pytest.approx(1 / 32 + 0.02)


def test_selection_prefers_high_scores() -> None:
    budget = ZCDPBudget(100.0)
    picks = [budget.select(np.array([0.0, 0.0, 50.0]), rho=1.0, sensitivity=1.0) for _ in range(20)]
    assert picks.count(2) >= 18
