"""The optimal search on weighted distinct rows (the Ray engine's aggregate) is the search on
the records: the same optimum, metrics, k sweep, counts and re-check, and the release of each
record is the release of its distinct row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import VeilError
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.tabular import AnonymizeConfig, anonymize, read_arx_hierarchy

QIS = list(ADULT_QUASI_IDENTIFIERS)


def _aggregate(df: pd.DataFrame, cols: list[str]) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Distinct rows of ``cols`` in order of their first record, their counts, and the
    distinct row of each record."""
    ids = df.groupby(cols, dropna=False, sort=False).ngroup().to_numpy()
    _, first = np.unique(ids, return_index=True)
    return df.iloc[first][cols].reset_index(drop=True), np.bincount(ids), ids


def _figures(result: Any) -> dict[str, Any]:
    d = result.to_dict()
    for key in ("seconds", "total_seconds"):
        d["search"].pop(key)
    return d


def assert_same(df: pd.DataFrame, config: AnonymizeConfig, cols: list[str], sweep: Any) -> None:
    whole = anonymize(df, config, sweep=sweep, sweep_seconds=60)
    agg, weights, ids = _aggregate(df, cols)
    weighted = anonymize(agg, config, sweep=sweep, sweep_seconds=60, weights=weights)
    assert _figures(weighted) == _figures(whole)
    assert weighted.to_dict()["rows"] == len(df)
    for q in config.quasi_identifiers:
        rel = weighted.data[q].astype(str).to_numpy()[ids]
        assert (rel == whole.data[q].astype(str).to_numpy()).all()
    assert (weighted.suppressed[ids] == whole.suppressed).all()


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return adult_frame().iloc[:4000]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 5},
        {"k": 5, "l": 2, "sensitive": ["occupation"], "suppression_limit": 0.05},
        {"k": 10, "t": 0.3, "sensitive": ["occupation"], "suppression_limit": 0.02},
    ],
)
def test_adult_weighted_aggregate_is_the_records(adult: pd.DataFrame, kwargs: dict) -> None:
    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    config = AnonymizeConfig.build(QIS, hier, **kwargs)
    cols = QIS + [s for s in kwargs.get("sensitive", []) if s not in QIS]
    assert_same(adult, config, cols, (2, 5, 10))


_ROW = st.tuples(
    st.integers(18, 40), st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["x", "y", "z"])
)


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(_ROW, min_size=6, max_size=80), k=st.integers(2, 4))
def test_any_table_weighted_aggregate_is_the_records(rows: list[tuple], k: int) -> None:
    from veil.policy._models import AutoHierarchyConfig

    df = pd.DataFrame(rows, columns=["age", "zip", "dx"])
    config = AnonymizeConfig.build(
        ["age", "zip"],
        {"age": AutoHierarchyConfig(), "zip": AutoHierarchyConfig()},
        k=k,
        l=2,
        sensitive=["dx"],
        suppression_limit=1.0,
    )
    try:
        anonymize(df, config)
    except VeilError as exc:  # no release at all: the weighted run must refuse it too
        agg, weights, _ = _aggregate(df, ["age", "zip", "dx"])
        with pytest.raises(type(exc)):
            anonymize(agg, config, weights=weights)
        return
    assert_same(df, config, ["age", "zip", "dx"], (2, 3))


def test_weights_need_the_optimal_search(adult: pd.DataFrame) -> None:
    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    config = AnonymizeConfig.build(QIS, hier, k=5, algorithm="mondrian")
    agg, weights, _ = _aggregate(adult, QIS)
    with pytest.raises(ValueError, match="optimal search"):
        anonymize(agg, config, weights=weights)
