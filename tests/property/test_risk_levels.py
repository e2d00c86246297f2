"""Invariants of the risk measurements (hypothesis)."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.risk import assess, equivalence_classes, verify

rows = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["x", "y", "z", "w"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=40,
)


def _frame(data):
    df = pd.DataFrame(data, columns=["q1", "q2", "s", "sup"])
    return df


@settings(max_examples=60, deadline=None)
@given(rows)
def test_k_is_the_smallest_class_by_brute_force(data):
    df = _frame(data)
    sup = df["sup"].to_numpy()
    ec = equivalence_classes(df, ["q1", "q2"], suppressed=sup)
    groups = {}
    for q1, q2, suppressed in zip(df.q1, df.q2, sup, strict=True):
        if not suppressed:
            groups[(q1, q2)] = groups.get((q1, q2), 0) + 1
    assert ec.k == (min(groups.values()) if groups else None)
    assert ec.n_classes == len(groups)
    assert int(ec.sizes.sum()) == int((~sup).sum())


@settings(max_examples=40, deadline=None)
@given(rows, st.randoms(use_true_random=False))
def test_row_order_and_index_do_not_change_anything(data, rnd):
    df = _frame(data)
    base = assess(df, ["q1", "q2"], ["s"], suppressed=df["sup"].to_numpy()).to_dict()
    order = list(range(len(df)))
    rnd.shuffle(order)
    shuffled = df.iloc[order]
    shuffled.index = [rnd.randint(-1000, 1000) for _ in order]  # duplicates allowed
    other = assess(shuffled, ["q1", "q2"], ["s"], suppressed=shuffled["sup"].to_numpy()).to_dict()
    assert other == base


@settings(max_examples=40, deadline=None)
@given(rows)
def test_levels_are_in_range(data):
    df = _frame(data)
    rep = verify(df, ["q1", "q2"], ["s"])
    s = rep.sensitive["s"]
    assert 1 <= s.l_distinct <= s.distinct_values
    assert 1 - 1e-9 <= s.l_entropy <= s.l_distinct + 1e-9  # exp(H) never exceeds the count
    assert 0 <= s.t_ordered <= 1 + 1e-12 and 0 <= s.t_equal <= 1 + 1e-12
    assert 1 / s.l_distinct - 1e-12 <= s.alpha <= 1
    risk = assess(df, ["q1", "q2"], ["s"]).risk
    assert risk.prosecutor["highest"] == 1 / rep.k
    assert risk.prosecutor["lowest"] <= risk.prosecutor["average"] <= risk.prosecutor["highest"]
