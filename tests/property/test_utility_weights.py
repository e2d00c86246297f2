"""The utility section from weighted distinct rows equals the one measured on the records.

The Ray engine measures utility on an aggregate of input and release: each distinct row of
the compared columns (input values, released values, suppression) once, with its count, in
the order of its first record; and ML utility on the split's training rows and the test
rows as weighted distinct rows. Here the aggregate is built by independent code (pandas
factorize over the whole row) from records drawn by hypothesis, and every figure of
:func:`veil.utility.measure_utility` must come out the same, bit for bit: distances, KS,
binned and numeric-text columns, Cramér's V, information loss (entropy included), the k
sweep, and both models' accuracy and AUC.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.risk import equivalence_classes
from veil.utility import measure_utility
from veil.utility._ml import MLRows, split_rows

QIS = ["a", "age"]
COLS = ["a", "age", "num", "money", "label"]
MAX_TRAIN = 60  # below the rows' number: the training rows are a prefix of the split

template = st.tuples(
    st.sampled_from(["x1", "x2", "y", "z"]),  # a: generalized x1, x2 -> X
    st.integers(17, 90),  # age: released in decades
    st.integers(0, 10_000),  # num: many values (KS, quantile bins)
    st.integers(0, 200),  # money: numeric text, "$1,234.50"
    st.sampled_from(["<=50K", ">50K"]),
    st.booleans(),  # suppressed
    st.integers(1, 6),  # records with this row
)


def _records(templates: list[tuple], seed: int) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    rows = [t[:6] for t in templates for _ in range(t[6])]
    order = np.random.default_rng(seed).permutation(len(rows))
    df = pd.DataFrame([rows[i] for i in order], columns=[*COLS, "sup"])
    original = df[COLS].assign(num=df["num"] / 7.0, money=[f"${m * 13:,}.50" for m in df["money"]])
    sup = df["sup"].to_numpy(dtype=bool)
    released = original.copy()
    released["a"] = original["a"].map({"x1": "X", "x2": "X", "y": "y", "z": "z"})
    released["age"] = [f"[{a // 10 * 10}-{a // 10 * 10 + 10})" for a in original["age"]]
    for q in QIS:
        released.loc[sup, q] = "*"
    return original, released, sup


def _weighted(frame: pd.DataFrame, order: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    """Distinct rows of ``frame`` taken in ``order``, by first appearance, with counts."""
    taken = frame.iloc[order].reset_index(drop=True)
    key = taken.astype(str).agg("\x1f".join, axis=1)
    codes, _ = pd.factorize(key)
    _, first = np.unique(codes, return_index=True)
    return taken.iloc[first].reset_index(drop=True), np.bincount(codes)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    templates=st.lists(template, min_size=30, max_size=70),
    seed=st.integers(0, 2**16),
)
def test_utility_from_weighted_rows_is_the_records_utility(templates, seed) -> None:
    original, released, sup = _records(templates, seed)
    n = len(original)
    kwargs = {"quasi_identifiers": QIS, "columns": COLS, "target": "label", "k": 2}
    rows = measure_utility(
        original,
        released,
        classes=equivalence_classes(released, QIS, suppressed=sup),
        suppressed=sup,
        max_train_rows=MAX_TRAIN,
        **kwargs,
    )

    both = pd.concat(
        [original.add_prefix("o:"), released.add_prefix("r:"), pd.Series(sup, name="sup")],
        axis=1,
    )
    agg, w = _weighted(both, np.arange(n))
    orig_w = agg.filter(like="o:").rename(columns=lambda c: c[2:])
    rel_w = agg.filter(like="r:").rename(columns=lambda c: c[2:])
    sup_w = agg["sup"].to_numpy(dtype=bool)
    perm, n_test = split_rows(n)
    train = perm[n_test:]
    test, test_w = _weighted(original, perm[:n_test])
    ml_rows = MLRows(
        rows=n,
        train_original=original.iloc[train[:MAX_TRAIN]],
        train_released=released.iloc[train[~sup[train]][:MAX_TRAIN]],
        test=test,
        test_weights=test_w,
        values=orig_w,
    )
    weighted = measure_utility(
        orig_w,
        rel_w,
        classes=equivalence_classes(rel_w, QIS, suppressed=sup_w, weights=w),
        suppressed=sup_w,
        weights=w,
        ml_rows=ml_rows,
        **kwargs,
    )
    assert len(agg) < n or n == len(set(map(tuple, both.astype(str).to_numpy())))
    reduced = weighted["associations"]["reduced"]
    assert reduced.get("money") == "numeric_text_bins" or orig_w["money"].nunique() <= 50
    assert weighted["ml"] is not None and weighted["ml"]["test_rows"] == n_test
    assert weighted == rows


def test_weights_must_count_records() -> None:
    df = pd.DataFrame({"a": ["x", "y"]})
    for bad in ([1], [1, 0]):
        try:
            measure_utility(df, df, columns=["a"], ml=False, weights=np.array(bad))
        except ValueError as exc:
            assert "weights" in str(exc)
        else:  # pragma: no cover - the check is the point
            raise AssertionError(f"weights {bad} were accepted")
