"""AIM's model-size cap holds for the model it fits, so each mirror-descent step stays small.

The regression (issue 28 follow-up): the cap was checked per candidate at the start of a
round, so one round could pick every pair of five 32-bin columns; together they triangulate
into one clique over all five columns (33^4 x 6 = 7.1 million cells), and each of the 5,000
mirror-descent iterations then worked on that table (a 1,400-row fit did not finish in 20
minutes). These tests bound the fitted model's size, which is what every iteration costs,
independent of how fast the machine is. They use few ``iters``: the size does not depend on it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("mbi")  # the synth extra; conftest turns this skip into a CI failure

from veil.synth import AIMSynthesizer
from veil.synth._aim import CELLS_PER_ROW

BOUNDS = {"a": (-10.0, 10.0), "b": (-10.0, 10.0), "c": (-10.0, 10.0), "d": (0.0, 100.0)}
GROUPS = ["g0", "g1", "g2", "g3", "g4"]


def _table(n: int, seed: int = 0) -> pd.DataFrame:
    """Five correlated columns (like the Gapminder table: one category, four numerics)."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 5, size=n)
    a = g + rng.normal(size=n)
    b = a + rng.normal(size=n)
    c = b - g + rng.normal(size=n)
    d = np.clip(np.exp(1 + 0.4 * c + rng.normal(scale=0.3, size=n)), 0, 100)
    return pd.DataFrame({"g": [GROUPS[i] for i in g], "a": a, "b": b, "c": c, "d": d})


def _cells(syn: AIMSynthesizer) -> int:
    return int(sum(np.prod([syn.disc_.sizes[v] for v in nd]) for nd in syn.nodes_))


def _fit(n: int, **kw: object) -> AIMSynthesizer:
    syn = AIMSynthesizer(epsilon=1.0, account=False, seed=0, iters=20, **kw)  # type: ignore[arg-type]
    return syn.fit(_table(n), bounds=BOUNDS, categories={"g": GROUPS})


def test_default_cap_follows_the_rows_and_holds_for_the_whole_batch() -> None:
    n = 1400
    syn = _fit(n)
    cells = _cells(syn)
    # all ten pairs were candidates; without the within-round check the tree was one
    # 7-million-cell clique
    assert cells <= CELLS_PER_ROW * n
    assert syn.model_cells_ == cells
    # (no bound on a clique's width: DP-estimated bins can make a 4-column clique fit the cap)
    pairs = [m for m in syn.measured_ if len(m) == 2]
    assert 4 <= len(pairs) < 10  # it still measures pairs, just not all of them
    # stopping a batch early moves its unspent selection budget to the measurements
    assert syn.rho_spent_ == pytest.approx(syn.rho_, rel=1e-6)


def test_explicit_max_cells_is_a_hard_bound() -> None:
    syn = _fit(600, max_cells=2500)
    assert _cells(syn) <= 2500
    assert any(len(m) == 2 for m in syn.measured_)
