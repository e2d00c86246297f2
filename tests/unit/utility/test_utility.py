"""Utility measurements: distances, associations, information loss, k sweep, ML utility."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil import InputError
from veil.risk import equivalence_classes
from veil.utility import (
    association_preservation,
    column_distances,
    information_loss,
    k_sweep,
    ml_utility,
)


def test_total_variation_and_ks():
    o = pd.DataFrame({"c": ["a", "a", "b", "b"], "n": [1.0, 2.0, 3.0, 4.0]})
    r = pd.DataFrame({"c": ["a", "a", "a", "b"], "n": [1.0, 2.0, 3.0, 40.0]})
    d = {x["column"]: x for x in column_distances(o, r)}
    assert d["c"]["total_variation"] == pytest.approx(0.25)
    assert d["c"]["ks"] is None
    assert d["n"]["ks"] == pytest.approx(0.25)
    assert d["n"]["profile"]["original"][:2] == [0.25, 0.25]


def test_generalized_columns_are_compared_at_the_released_granularity():
    o = pd.DataFrame({"age": [21, 25, 33, 38]})
    r = pd.DataFrame({"age": ["20-29", "20-29", "30-39", "*"]})
    recode = {"age": {21: "20-29", 25: "20-29", 33: "30-39", 38: "30-39"}}
    d = column_distances(o, r, recode=recode)[0]
    assert d["generalized"] and d["total_variation"] == pytest.approx(0.25)  # the suppressed one


def test_associations():
    o = pd.DataFrame({"a": list("xxyyxxyy"), "b": list("ppqqppqq")})
    same = association_preservation(o, o)
    assert same["mean_abs_change"] == 0.0 and same["pairs"][0]["original"] == pytest.approx(1.0)
    broken = association_preservation(o, o.assign(b=list("pqpqpqpq")))
    assert broken["max_abs_change"] == pytest.approx(1.0)


def test_information_loss_and_sweep():
    orig = pd.DataFrame({"a": ["x", "y", "z", "w"]})
    rel = pd.DataFrame({"a": ["xy", "xy", "zw", "*"]})
    ec = equivalence_classes(rel, ["a"], suppressed=[False, False, False, True])
    loss = information_loss(ec, original=orig, released=rel, quasi_identifiers=["a"], k=1)
    assert loss["discernibility"] == 4 + 1 + 4  # 2^2 + 1^2 + one suppressed row * n
    assert loss["average_class_size"] == 1.5
    # xy -> x or y: 1 bit each (2 rows); zw holds only z: 0 bits; suppressed w: 2 bits
    assert loss["non_uniform_entropy"]["bits"] == pytest.approx(4.0)
    assert loss["non_uniform_entropy"]["normalized"] == pytest.approx(0.5)
    sweep = k_sweep(ec, [1, 2, 3])
    assert [s["suppressed_share"] for s in sweep] == [0.25, 0.5, 1.0]
    assert sweep[1]["highest_risk"] == 0.5 and sweep[2]["highest_risk"] == 0.0


def test_ml_utility_on_identical_data_has_zero_delta_and_detects_damage():
    from veil.data import adult_frame

    df = adult_frame(3000)
    feats = ["age", "education", "marital-status", "sex", "occupation"]
    same = ml_utility(df, df, target="salary-class", features=feats, max_train_rows=1500)
    for m in same["models"].values():
        assert m["accuracy_delta"] == 0.0 and m["auc_delta"] == 0.0
        assert m["original"]["auc"] > 0.7
    damaged = df.copy()
    rng = np.random.default_rng(0)
    for c in feats:  # shuffle every feature: no signal left
        damaged[c] = rng.permutation(damaged[c].to_numpy())
    worse = ml_utility(df, damaged, target="salary-class", features=feats, max_train_rows=1500)
    assert worse["models"]["logistic_regression"]["auc_delta"] < -0.1


def test_ml_utility_input_errors():
    df = pd.DataFrame({"a": list(range(30)), "y": [0, 1] * 15})
    with pytest.raises(InputError):
        ml_utility(df, df.drop(columns="y"), target="y", features=["a"])
    with pytest.raises(InputError):
        ml_utility(df.head(5), df.head(5), target="y", features=["a"])
