"""A category list estimated under DP that loses most of a column says so, without values.

The stability histogram keeps a value only when its noisy count passes a threshold set by
the budget; on a small table at epsilon 1 every value of a column can fall under it and
the synthetic column is then all missing (ggplot2's txhousing: 46 cities of 187 rows each
against a threshold near 380). That is the guarantee working, but the operator must hear of
it: the log says how much was lost and how to avoid it, and the fit's domain entry gives
the threshold (a function of the budget only)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from veil.synth import MSTSynthesizer


def _fit(df: pd.DataFrame, caplog: pytest.LogCaptureFixture) -> tuple[MSTSynthesizer, str]:
    with caplog.at_level(logging.INFO, logger="veil.synth"):
        syn = MSTSynthesizer(epsilon=1.0, account=False, seed=0).fit(df)
    return syn, "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


def test_a_column_whose_every_value_falls_under_the_threshold_is_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rng = np.random.default_rng(7)  # test data only
    labels = [f"site-{i:03d}" for i in range(200)]  # 20 rows each, far under the threshold
    df = pd.DataFrame({"site": rng.permutation(np.repeat(labels, 20)), "x": rng.normal(size=4000)})
    syn, warned = _fit(df, caplog)
    entry = syn.fit_info_["domain"]["site"]
    assert entry["categories"] == 0
    assert 100 < entry["keep_above_rows"] < 1000
    assert "column 'site'" in warned and "all missing" in warned and "--categories" in warned
    assert "4000 non-missing rows" in warned
    assert not any(label in warned for label in labels)
    assert syn.sample(500, seed=1)["site"].isna().all()


def test_a_long_tail_of_rare_values_over_5_percent_of_rows_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rng = np.random.default_rng(8)  # test data only
    common = np.repeat(["alpha", "beta", "gamma"], 1500)
    rare = np.repeat([f"rare-{i:03d}" for i in range(100)], 5)  # 500 of 5,000 rows
    df = pd.DataFrame({"kind": rng.permutation(np.concatenate([common, rare]))})
    df["x"] = rng.normal(size=len(df))
    syn, warned = _fit(df, caplog)
    assert syn.fit_info_["domain"]["kind"]["categories"] == 3
    assert "column 'kind'" in warned and "500 of its 5000 non-missing rows" in warned
    assert "all missing" not in warned
    assert not any(v in warned for v in ("alpha", "beta", "gamma", "rare-0"))


def test_a_few_rare_values_stay_out_of_the_warnings(caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(9)  # test data only
    common = np.repeat(["alpha", "beta"], 2000)
    rare = np.repeat([f"rare-{i}" for i in range(10)], 3)  # 30 of 4,030 rows
    df = pd.DataFrame({"kind": rng.permutation(np.concatenate([common, rare]))})
    df["x"] = rng.normal(size=len(df))
    syn, warned = _fit(df, caplog)
    assert syn.fit_info_["domain"]["kind"]["categories"] == 2
    assert "column 'kind'" not in warned
