"""Local cell suppression: reaches k, touches only at-risk cells, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, PrivacyRequirementNotMet
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame
from veil.tabular._cell_suppression import suppress_cells

QIS = list(ADULT_QUASI_IDENTIFIERS)


@pytest.mark.parametrize("k", [2, 5])
def test_adult_sample_reaches_k_by_plain_groupby(k) -> None:
    df = adult_frame(rows=3000)
    res = suppress_cells(df, QIS, k)
    sizes = res.data.groupby(QIS).size()
    assert sizes.min() >= k
    assert res.classes == len(sizes) and res.min_class_size == sizes.min()
    # every cell not reported suppressed is the original value
    for j, q in enumerate(QIS):
        kept = ~res.mask[:, j]
        assert (res.data[q][kept].astype(str) == df[q][kept].astype(str)).all()
        assert (res.data[q][res.mask[:, j]] == "*").all()
    # records already safe are untouched, except fewer than k taken whole to top up the
    # all-'*' class
    safe = (df.groupby(QIS)[QIS[0]].transform("size") >= k).to_numpy()
    touched = res.mask[safe].any(axis=1)
    assert res.mask[safe][touched].all()
    assert touched.sum() < k
    assert res.cells_suppressed == int(res.mask.sum()) > 0


def test_k_anonymous_table_is_left_alone() -> None:
    df = pd.DataFrame({"a": list("xxyy"), "b": list("1122")})
    res = suppress_cells(df, ["a", "b"], 2)
    assert res.cells_suppressed == 0
    assert res.data.equals(df)


def test_lone_records_are_topped_up_to_k() -> None:
    # One record differs from everything; suppressing all its cells still leaves it alone,
    # so a surplus record of the big class joins it in the all-'*' class.
    df = pd.DataFrame({"a": ["x", "x", "x", "q"], "b": ["1", "1", "1", "9"]})
    res = suppress_cells(df, ["a", "b"], 2)
    sizes = res.data.groupby(["a", "b"]).size()
    assert sizes.min() >= 2
    assert sizes[("*", "*")] == 2
    assert res.records_affected == 2


def test_token_in_the_data_is_not_merged_with_suppressed_cells() -> None:
    df = pd.DataFrame({"a": ["*", "y", "z", "w"]})
    res = suppress_cells(df, ["a"], 2, marker="*")
    # the original '*' stays a value of its own: it is suppressed along with the rest
    assert np.asarray(res.mask).sum() == 4


def test_bad_input() -> None:
    with pytest.raises(PrivacyRequirementNotMet):
        suppress_cells(pd.DataFrame({"a": [1, 2]}), ["a"], 3)
    with pytest.raises(InputError, match="empty"):
        suppress_cells(pd.DataFrame({"a": pd.Series([], dtype=str)}), ["a"], 2)
