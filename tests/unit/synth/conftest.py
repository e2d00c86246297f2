"""Fixtures shared by the synthesizer unit tests."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np
import pytest

from veil.synth._noise import ZCDPBudget


@pytest.fixture(scope="module")
def seeded_bounds_noise() -> Iterator[None]:
    """The noise as OpenDP draws it (Gaussian of the same scale, the budget charged the
    same), but seeded by the noisy counts' input. For the modules that check what the
    bounds and bin rules do with noise (``pytestmark = usefixtures(...)``): OpenDP's
    unseeded draws made one in a few hundred runs land a false bin at 4.5 sd and fail
    them at random."""
    real = ZCDPBudget.gaussian

    def gaussian(self: ZCDPBudget, counts: np.ndarray, sigma: float, what: str = "marginal"):
        real(self, np.zeros(1), sigma, what)  # the charge does not depend on the length
        flat = np.asarray(counts, dtype=float)
        seed = zlib.crc32(flat.tobytes() + repr(float(sigma)).encode())
        return flat + np.random.default_rng(seed).normal(0.0, sigma, flat.shape)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ZCDPBudget, "gaussian", gaussian)
        yield
