"""The re-check on weighted rows (the Ray engine's aggregates) measures what it measures on
the records they stand for: every model, every variant, suppression included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.policy import PrivacyConfig
from veil.risk._requirements import check_release
from veil.tabular import Hierarchy

TREE = {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"]}
HIER = Hierarchy.from_rows("s", [[v, *up] for v, up in TREE.items()])

MODELS: list[dict[str, Any]] = [
    {"k_anonymity": {"k": 3}},
    {"l_diversity": {"l": 2}},
    {"l_diversity": {"l": 2, "variant": "entropy"}},
    {"l_diversity": {"l": 2, "variant": "recursive", "c": 2.0}},
    {"t_closeness": {"t": 0.3}},
    {"t_closeness": {"t": 0.3, "distance": "ordered"}, "column": "n"},
    {
        "t_closeness": {
            "t": 0.3,
            "distance": "hierarchical",
            "hierarchy": {"type": "taxonomy", "tree": TREE},
        }
    },
]

_RECORD = st.tuples(
    st.sampled_from(["g0", "g1", "g2", "g3"]),
    st.sampled_from(list("abcd")),
    st.integers(1, 4),
    st.booleans(),
)


def _privacy(model: dict[str, Any]) -> tuple[PrivacyConfig, str]:
    model = dict(model)
    column = model.pop("column", "s")
    return PrivacyConfig.model_validate({**model, "suppression_limit": 1.0}), column


def _measure(df: pd.DataFrame, model: dict[str, Any], weights: Any = None) -> list[tuple]:
    cfg, column = _privacy(model)
    released = df.assign(g=np.where(df["sup"], "*", df["g"]))
    reqs = check_release(
        released[["g", column]],
        ["g"],
        cfg,
        [column],
        suppressed=df["sup"].to_numpy(),
        hierarchies={"s": HIER},
        weights=weights,
    )
    return [(r.key, r.measured, r.met) for r in reqs]


@settings(max_examples=60, deadline=None)
@given(records=st.lists(_RECORD, min_size=1, max_size=60), which=st.integers(0, len(MODELS) - 1))
def test_weighted_rows_measure_as_their_records(records: list[tuple], which: int) -> None:
    model = MODELS[which]
    df = pd.DataFrame(records, columns=["g", "s", "n", "sup"])
    # the aggregate: one row per distinct record, in order of first appearance, with its count
    agg = df.groupby(["g", "s", "n", "sup"], sort=False).size().reset_index(name="w")
    expected = _measure(df, model)
    got = _measure(agg.drop(columns="w"), model, weights=agg["w"].to_numpy())
    assert len(got) == len(expected)
    for (k1, m1, ok1), (k2, m2, ok2) in zip(got, expected, strict=True):
        assert k1 == k2 and ok1 is ok2
        assert type(m1) is type(m2)  # a k of 3, not 3.0, in the report either way
        if m2 is None:
            assert m1 is None
        else:
            assert m1 == pytest.approx(m2, rel=1e-9, abs=1e-12)


def test_weights_that_do_not_match_the_rows_are_refused() -> None:
    df = pd.DataFrame({"g": ["g0", "g0"], "s": ["a", "b"]})
    cfg = PrivacyConfig.model_validate({"k_anonymity": {"k": 2}})
    with pytest.raises(InputError, match="3 weights for 2 rows"):
        check_release(df, ["g"], cfg, ["s"], weights=[1, 2, 3])
