"""The noise the marginal synthesizers draw, tested against the scale they report.

``test_noise.py`` checks what each measurement *costs*; these tests check what it *draws*:
the Gaussian noise on a marginal against the ``sigma`` asked for (and the ``stddev`` that MST
and AIM hand to the estimator), and the exponential mechanism's choices against its law,
``P(i)`` proportional to ``exp(score_i / scale)`` (report-noisy-max with Gumbel noise). See
``tests/property/noise_checks.py``; OpenDP's sampler cannot be seeded, so thousands of draws
and a rejection only at p < 1e-6.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from noise_checks import assert_categorical, assert_gaussian

from veil.synth._noise import ZCDPBudget


@pytest.mark.parametrize("sigma", [0.7, 4.0, 60.0])
def test_gaussian_on_counts_has_the_sigma_asked_for(sigma: float) -> None:
    rng = np.random.default_rng(3)  # the counts only
    counts = rng.integers(0, 500, size=3000).astype(float)
    budget = ZCDPBudget(10.0)
    noisy = budget.gaussian(counts, sigma=sigma)
    assert budget.spent == pytest.approx(1 / (2 * sigma**2))
    assert_gaussian(noisy - counts, sigma, f"ZCDPBudget.gaussian sigma={sigma}")


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_marginal_measurement_noise_matches_its_reported_stddev(name: str) -> None:
    """The measurement MST/AIM pass to the estimator: its ``stddev`` is the noise drawn."""
    pytest.importorskip("mbi")  # the synth extra; conftest turns this skip into a CI failure
    from veil.synth import AIMSynthesizer, MSTSynthesizer
    from veil.synth._marginal import _marginal, _mbi

    synth = {"mst": MSTSynthesizer, "aim": AIMSynthesizer}[name](epsilon=1.0, delta=1e-6)
    synth.measured_ = []
    rng = np.random.default_rng(5)
    sizes = {"a": 40, "b": 60}
    codes = {c: rng.integers(0, s, size=5000) for c, s in sizes.items()}
    budget = ZCDPBudget(1.0)
    sigma = math.sqrt(2 / (2 * 0.5))  # a 2-way marginal at half the budget
    m = synth._measure(codes, sizes, ("a", "b"), sigma, budget, _mbi())
    exact = _marginal(codes, sizes, ("a", "b")).ravel()
    noise = np.asarray(m.noisy_measurement) - exact
    assert noise.size == 2400
    assert_gaussian(noise, float(m.stddev), f"{name} 2-way marginal")


def test_selection_follows_the_exponential_mechanism() -> None:
    scores = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    rho, sensitivity = 0.5, 1.0
    scale = sensitivity / math.sqrt(2 * rho)  # the scale ZCDPBudget.select reports in its docs
    budget = ZCDPBudget(rho * 3000)
    picks = [budget.select(scores, rho=rho, sensitivity=sensitivity) for _ in range(3000)]
    assert budget.spent == pytest.approx(3000 * rho)
    law = np.exp(scores / scale)
    assert_categorical(picks, law / law.sum(), "ZCDPBudget.select (Gumbel report-noisy-max)")
