"""Shared hypothesis strategy: random quasi-identifiers, ARX-style hierarchies and a table.

Used by the search, evaluator and population property tests (imported through pytest's
``pythonpath``; the module name does not start with ``test_``, so it is not collected).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd
from hypothesis import strategies as st

from veil.tabular import Hierarchy


@st.composite
def qi_tables(
    draw: Any,
    *,
    rows: tuple[int, int] = (3, 40),
    values: tuple[int, int] = (2, 6),
    sensitive: Sequence[str] = ("a", "b", "c", "d"),
) -> tuple[list[str], dict[str, Hierarchy], pd.DataFrame]:
    """1-3 quasi-identifiers ``q0..``, each with a random hierarchy of height 2-4 (random
    groupings, ``*`` on top), and a table of ``rows`` records over them plus a sensitive
    column ``s``. Returns (quasi-identifiers, hierarchies, table)."""
    n_qi = draw(st.integers(1, 3))
    n = draw(st.integers(*rows))
    qis: list[str] = []
    hier: dict[str, Hierarchy] = {}
    data: dict[str, list[str]] = {}
    for i in range(n_qi):
        name = f"q{i}"
        vals = [f"v{i}_{j}" for j in range(draw(st.integers(*values)))]
        table = [[v] for v in vals]
        labels = list(vals)
        for level in range(1, draw(st.integers(2, 4)) - 1):
            groups = max(1, math.ceil(len(set(labels)) / 2))
            parent = {
                lab: f"g{level}_{draw(st.integers(0, groups - 1))}" for lab in sorted(set(labels))
            }
            labels = [parent[lab] for lab in labels]
            for r, lab in zip(table, labels, strict=True):
                r.append(lab)
        for r in table:
            r.append("*")
        qis.append(name)
        hier[name] = Hierarchy.from_rows(name, table)
        data[name] = draw(st.lists(st.sampled_from(vals), min_size=n, max_size=n))
    data["s"] = draw(st.lists(st.sampled_from(list(sensitive)), min_size=n, max_size=n))
    return qis, hier, pd.DataFrame(data)
