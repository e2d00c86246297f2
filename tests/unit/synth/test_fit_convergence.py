"""The model fit of MST and AIM reaches its measurements (issue 28, "fit convergence").

A fitted model should leave each noisy measurement about as far as its noise: here, on a
small generated table with declared domains, within ``WITHIN_SD`` noise sd in every cell
(``fit_residuals``). The same check with a fixed step a thousand times too small must fail
it, so the check can tell a fit stopped short. The noise is seeded (``seeded_bounds_noise``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("mbi")  # the synth extra; conftest turns this skip into a CI failure

import veil.synth._marginal as marginal
from veil.synth import AIMSynthesizer, MSTSynthesizer

pytestmark = pytest.mark.usefixtures("seeded_bounds_noise")

WITHIN_SD = 5.0
CATS = {"a": list("pqrst"), "b": list("wxyz"), "c": list("uvk"), "d": ["0", "1"]}


def _table(n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(0, 2, n)) % 4
    c = (b + (rng.random(n) < 0.2)) % 3
    d = ((a + c) % 2 == 0) ^ (rng.random(n) < 0.1)
    codes = {"a": a, "b": b, "c": c, "d": d.astype(int)}
    return pd.DataFrame({k: [CATS[k][i] for i in v] for k, v in codes.items()})


def _final_fit(mp: pytest.MonkeyPatch, cls: type, **kw: Any) -> list[dict[str, Any]]:
    """Fit and return the residuals of the last model fit (AIM re-fits once a round)."""
    fits: list[list[dict[str, Any]]] = []
    original = marginal._MarginalSynthesizer._estimate

    def estimate(self: Any, mbi: Any, sizes: Any, ms: Any, warm: Any = None) -> Any:
        model = original(self, mbi, sizes, ms, warm)
        fits.append(marginal.fit_residuals(model, ms))
        return model

    mp.setattr(marginal._MarginalSynthesizer, "_estimate", estimate)
    cls(epsilon=1.0, account=False, seed=0, **kw).fit(_table(), categories=CATS)
    return fits[-1]


@pytest.mark.parametrize("cls", [MSTSynthesizer, AIMSynthesizer])
def test_the_default_fit_reaches_every_measurement_within_a_few_sd(cls: type) -> None:
    with pytest.MonkeyPatch.context() as mp:
        res = _final_fit(mp, cls)
    worst = max(r["max_sd"] for r in res)
    assert worst <= WITHIN_SD, f"{cls.__name__}: the fit misses a measurement by {worst} sd"


def test_a_fixed_step_far_too_small_misses_them() -> None:
    """The check above fails on a fit that stopped short (step 1,000 times too small)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(marginal, "FIT_STEP", "fixed")
        mp.setattr(marginal, "FIXED_STEP", marginal.FIXED_STEP / 1000)
        res = _final_fit(mp, MSTSynthesizer, iters=500)
    assert max(r["max_sd"] for r in res) > WITHIN_SD
