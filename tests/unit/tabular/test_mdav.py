"""MDAV microaggregation: cluster sizes, released means, information loss, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError
from veil.tabular._mdav import mdav


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, 503),
            "income": rng.lognormal(10, 1, 503),
            "label": rng.choice(list("xyz"), 503),
        }
    )


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_clusters_have_k_records_except_the_last(table, k) -> None:
    res = mdav(table, ["age", "income"], k)
    sizes = np.bincount(res.groups)
    last = sizes[-1]
    assert (sizes[:-1] == k).all()
    assert k <= last < 2 * k
    assert res.n_groups == sizes.size


def test_released_values_are_the_cluster_means(table) -> None:
    res = mdav(table, ["age", "income"], 4)
    expect = table[["age", "income"]].groupby(res.groups).transform("mean")
    np.testing.assert_allclose(res.data[["age", "income"]].to_numpy(), expect.to_numpy())
    assert (res.data["label"] == table["label"]).all()
    assert res.data.groupby(["age", "income"]).size().min() >= 4
    assert 0 < res.information_loss < 1


def test_one_dimension_groups_neighbours() -> None:
    df = pd.DataFrame({"age": [20, 50, 21, 51, 22, 52]})
    res = mdav(df, ["age"], 3)
    assert res.data["age"].tolist() == [21.0, 51.0, 21.0, 51.0, 21.0, 51.0]


def test_round_to_and_determinism(table) -> None:
    a = mdav(table, ["age"], 5, round_to=0)
    b = mdav(table, ["age"], 5, round_to=0)
    assert (a.groups == b.groups).all()
    assert (a.data["age"] == a.data["age"].round()).all()


def test_bad_input() -> None:
    with pytest.raises(SchemaError) as exc:
        mdav(pd.DataFrame({"a": ["1", "two-secret", "3"]}), ["a"], 2)
    assert "two-secret" not in str(exc.value)
    with pytest.raises(PrivacyRequirementNotMet):
        mdav(pd.DataFrame({"a": [1, 2]}), ["a"], 3)
    with pytest.raises(InputError, match="empty"):
        mdav(pd.DataFrame({"a": pd.Series([], dtype=float)}), ["a"], 2)
