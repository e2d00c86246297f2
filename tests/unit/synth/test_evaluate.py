"""Evaluation: ML efficacy and the privacy measures react to what they should."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, SchemaError
from veil.synth._evaluate import evaluate


def _data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)  # test data only
    x = rng.normal(size=n)
    c = rng.choice(["a", "b", "c", "d"], n)
    y = np.where(x + (c == "a") + rng.normal(scale=0.7, size=n) > 0.5, "pos", "neg")
    return pd.DataFrame({"x": x.round(3), "c": c, "k": rng.integers(0, 30, n), "y": y})


def test_copying_the_training_data_is_flagged() -> None:
    real, hold = _data(1500, 0), _data(500, 1)
    fresh = _data(1500, 2)
    copy = evaluate(real, real.copy(), hold, target="y", max_rows=400)
    indep = evaluate(real, fresh, hold, target="y", max_rows=400)
    pc, pi = copy["privacy"], indep["privacy"]
    assert pc["exact_copy_rate"] == 1.0 and pi["exact_copy_rate"] < 0.05
    assert pc["dcr_synthetic"] == 0.0 and pi["dcr_synthetic"] > 0
    assert pc["mia_auc"] > 0.8 and abs(pi["mia_auc"] - 0.5) < 0.1
    # a copy is closer to the training rows whenever its original is in the equal-size sample
    assert pc["share_closer_to_training"] > 0.6 and abs(pi["share_closer_to_training"] - 0.5) < 0.1
    assert pc["nndr_synthetic"] == 0.0
    for r in (copy, indep):
        me = r["ml_efficacy"]
        assert 0.7 < me["real_auc"] <= 1 and 0.7 < me["synthetic_auc"] <= 1
        assert set(r["quality"]) >= {"score", "column_shapes", "column_pair_trends"}


def test_useless_synthetic_data_has_low_ml_efficacy() -> None:
    real, hold = _data(1000, 3), _data(400, 4)
    noise = real.copy()
    noise["y"] = np.random.default_rng(9).permutation(noise["y"].to_numpy())  # test data only
    r = evaluate(real, noise, hold, target="y", max_rows=200)
    assert r["ml_efficacy"]["synthetic_auc"] < 0.65 < r["ml_efficacy"]["real_auc"]


def test_bad_evaluation_input() -> None:
    real = _data(100, 5)
    with pytest.raises(SchemaError):
        evaluate(real, real.drop(columns=["x"]))
    with pytest.raises(InputError, match="holdout"):
        evaluate(real, real, target="y")
    with pytest.raises(SchemaError):
        evaluate(real, real, real, target="nope")
