"""A zCDP budget whose Gaussian noise is seeded, for replaying the numeric stages in tests.

OpenDP's sampler cannot be seeded, so tests of rules that read noisy counts (DP bounds,
tails) would otherwise be statistical. This stand-in draws the same scale from numpy's
seeded generator; it exists in the tests only, never in ``src``: a seeded release is not DP.
"""

from __future__ import annotations

import numpy as np

from veil.synth._noise import ZCDPBudget

__all__ = ["SeededBudget"]


class SeededBudget(ZCDPBudget):
    """OpenDP's Gaussian replaced by a seeded one of the same scale (tests only)."""

    def __init__(self, seed: int) -> None:
        super().__init__(1e6)
        self._rng = np.random.default_rng(seed)

    def gaussian(self, counts: np.ndarray, sigma: float, what: str = "marginal") -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        return c + self._rng.normal(0.0, sigma, c.shape)
