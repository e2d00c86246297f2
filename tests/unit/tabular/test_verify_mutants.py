"""The anonymizer's re-check of a release, on what mutation testing showed untested.

Each test hands :func:`veil.tabular.verify_release` a release built by hand (no search runs)
that passes or fails one check by the smallest margin: the suppression limit, the masking of
suppressed records, a kept-or-starred cell, an MDAV cluster mean, and the report of which
models were met. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil._errors import VerificationError
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, Hierarchy, verify_release
from veil.tabular._anonymize import AnonymizationResult


def _config(
    qis: list[str],
    privacy: dict[str, Any],
    algorithm: str = "optimal",
    round_to: int | None = None,
    sensitive: tuple[str, ...] = (),
) -> AnonymizeConfig:
    search = SearchConfig(algorithm=algorithm, round_to=round_to)
    return AnonymizeConfig(
        tuple(qis), {}, PrivacyConfig.model_validate(privacy), search, sensitive=sensitive
    )


def _result(data: pd.DataFrame, suppressed: list[bool] | None = None) -> AnonymizationResult:
    mask = np.zeros(len(data), dtype=bool) if suppressed is None else np.array(suppressed)
    return AnonymizationResult(
        data=data,
        suppressed=mask,
        transformation=None,
        information_loss={},
        metric="loss",
        suppressed_records=int(mask.sum()),
        equivalence_classes=0,
        min_class_size=0,
        satisfied={},
        search={},
    )


def _check(orig: pd.DataFrame, rel: pd.DataFrame, cfg: AnonymizeConfig, sup=None) -> dict:
    return verify_release(orig, _result(rel, sup), cfg)


# ------------------------------------------------------------------------------ suppression

ORIG = pd.DataFrame({"g": ["a"] * 8 + ["b", "c"], "h": ["x"] * 10})


def _starred(n: int) -> pd.DataFrame:
    """The first 8 rows kept (one class of 8), then ``n`` of the last two suppressed."""
    rel = ORIG.copy()
    rel.loc[8 : 7 + n, ["g", "h"]] = "*"
    return rel


def test_the_suppression_limit_is_rounded_down():
    # 10 records at a limit of 0.15: 1.5 -> 1 record may be suppressed (2 may not)
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 1 + 1}, "suppression_limit": 0.15})
    rel = _starred(2)
    rel.loc[9, ["g", "h"]] = "*"
    with pytest.raises(VerificationError) as info:
        _check(ORIG, rel, cfg, [False] * 8 + [True, True])
    assert "2 records suppressed, the limit allows 1" in info.value.message
    assert info.value.hint == (
        "nothing was written; report this as a bug with the policy (not the data)"
    )


def test_suppression_at_the_limit_passes():
    # 10 records at 0.2: 2 may be suppressed; the other 8 are one class of 8
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 8}, "suppression_limit": 0.2})
    assert _check(ORIG, _starred(2), cfg, [False] * 8 + [True, True]) == {"k_anonymity": True}


@pytest.mark.parametrize("kept_column", ["g", "h"])
def test_a_suppressed_record_keeping_any_quasi_identifier_is_caught(kept_column):
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 8}, "suppression_limit": 0.2})
    rel = _starred(2)
    rel.loc[9, kept_column] = ORIG.loc[9, kept_column]
    with pytest.raises(VerificationError) as info:
        _check(ORIG, rel, cfg, [False] * 8 + [True, True])
    assert info.value.message.endswith("1 suppressed records keep a quasi-identifier")


def test_a_release_with_every_record_suppressed_meets_every_model():
    cfg = _config(
        ["g"],
        {"k_anonymity": {"k": 5}, "l_diversity": {"l": 2}, "suppression_limit": 1.0},
        sensitive=("h",),
    )
    rel = ORIG.assign(g="*")
    assert _check(ORIG, rel, cfg, [True] * 10) == {"k_anonymity": True, "l_diversity": True}


def test_a_release_with_a_row_missing_is_refused():
    cfg = _config(["g"], {"k_anonymity": {"k": 1 + 1}})
    with pytest.raises(VerificationError) as info:
        _check(ORIG, ORIG.iloc[:9], cfg)
    assert info.value.message == (
        "the released table failed its independent re-check: "
        "the release does not have one row per input record"
    )


def test_a_failed_k_names_the_bound_and_the_smallest_class():
    cfg = _config(["g"], {"k_anonymity": {"k": 3}, "suppression_limit": 0.0})
    with pytest.raises(VerificationError) as info:
        _check(ORIG, ORIG, cfg)
    assert info.value.message.endswith("class(es) smaller than k=3 (smallest 1)")


def test_a_failed_l_names_its_line():
    cfg = _config(["h"], {"l_diversity": {"l": 4}}, sensitive=("g",))
    with pytest.raises(VerificationError) as info:
        _check(ORIG, ORIG, cfg)
    assert info.value.message.endswith(
        "distinct l-diversity of column 'g': required every class at least 4 distinct values, "
        "measured 3: NOT met"
    )


def test_every_model_met_is_reported():
    cfg = _config(
        ["h"],
        {
            "k_anonymity": {"k": 10},
            "l_diversity": {"l": 3},
            "t_closeness": {"t": 0.5},
            "k_map": {"k": 20, "sampling_fraction": 0.5},
        },
        sensitive=("g",),
    )
    assert _check(ORIG, ORIG, cfg) == {
        "k_anonymity": True,
        "l_diversity": True,
        "t_closeness": True,
        "k_map": True,
    }


# -------------------------------------------------------------------------- cell suppression

CELLS = pd.DataFrame({"g": ["a", "a", "b", "b"], "n": [1, 1, 2, 2]})


def test_cell_suppression_keeps_a_number_however_it_is_written():
    # 1.0 for 1 and "2" for 2 are the input's values; a missing value stays missing
    orig = CELLS.assign(m=[None, None, "z", "z"])
    rel = orig.astype({"n": object})
    rel.loc[[0, 1], "n"] = 1.0
    rel.loc[[2, 3], "n"] = "2"
    cfg = _config(["g", "n", "m"], {"k_anonymity": {"k": 2}}, algorithm="cell_suppression")
    assert _check(orig, rel, cfg) == {"k_anonymity": True}


def test_cell_suppression_star_is_a_suppressed_cell():
    rel = CELLS.astype({"g": object})
    rel["g"] = "*"
    cfg = _config(["g", "n"], {"k_anonymity": {"k": 2}}, algorithm="cell_suppression")
    assert _check(CELLS, rel, cfg) == {"k_anonymity": True}


def test_cell_suppression_counts_the_altered_cells_of_a_column():
    rel = CELLS.assign(g=["a", "a", "c", "c"])
    cfg = _config(["g", "n"], {"k_anonymity": {"k": 2}}, algorithm="cell_suppression")
    with pytest.raises(VerificationError) as info:
        _check(CELLS, rel, cfg)
    assert info.value.message.endswith(
        "2 cell(s) of 'g' were altered instead of kept or suppressed"
    )


# ------------------------------------------------------------------------------------- MDAV

MDAV = pd.DataFrame({"age": [20.0, 30.0, 100.0, 200.0]})


@pytest.mark.parametrize(
    ("released", "round_to", "ok"),
    [
        ([25.0, 25.0, 150.0, 150.0], None, True),
        ([25.0 + 1e-6, 25.0 + 1e-6, 150.0, 150.0], None, False),
        # means rounded to 0 decimals may be off by up to 0.5
        ([25.5, 25.5, 150.0, 150.0], 0, True),
        ([25.6, 25.6, 150.0, 150.0], 0, False),
        ([25.04, 25.04, 150.0, 150.0], 1, True),
        ([25.048, 25.048, 150.0, 150.0], 1, True),  # 0.048 < 0.05 (not 0.5 / 11)
        ([25.06, 25.06, 150.0, 150.0], 1, False),
    ],
)
def test_an_mdav_value_is_its_class_mean_within_the_rounding(released, round_to, ok):
    cfg = _config(["age"], {"k_anonymity": {"k": 2}}, algorithm="mdav", round_to=round_to)
    rel = pd.DataFrame({"age": released})
    if ok:
        assert _check(MDAV, rel, cfg) == {"k_anonymity": True}
        return
    with pytest.raises(VerificationError) as info:
        _check(MDAV, rel, cfg)
    assert info.value.message.endswith(
        "2 released value(s) of 'age' are not the mean of their class"
    )


def test_the_mean_slack_grows_with_the_magnitude_of_the_values():
    # values near 1e12: a difference within 1e-9 of the largest value (1e-9 * 1e12 = 1000) is
    # float noise; the mean is 1e12 + 1
    orig = pd.DataFrame({"age": [1e12, 1e12 + 2.0]})
    rel = pd.DataFrame({"age": [1e12 + 1.0 + 500.0] * 2})
    cfg = _config(["age"], {"k_anonymity": {"k": 2}}, algorithm="mdav")
    assert _check(orig, rel, cfg) == {"k_anonymity": True}
    rel = pd.DataFrame({"age": [1e12 + 1.0 + 2000.0] * 2})
    with pytest.raises(VerificationError, match="not the mean of their class"):
        _check(orig, rel, cfg)


def test_a_missing_mdav_value_is_not_a_mean():
    orig = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    rel = pd.DataFrame({"age": [np.nan] * 4})
    cfg = _config(["age"], {"k_anonymity": {"k": 2}}, algorithm="mdav")
    with pytest.raises(VerificationError) as info:
        _check(orig, rel, cfg)
    assert info.value.message.endswith(
        ": 4 released value(s) of 'age' are not the mean of their class"
    )


# -------------------------------------------------------------------------------- population

AGE = Hierarchy.from_rows(
    "age", [["30", "30-39", "*"], ["35", "30-39", "*"], ["41", "40-49", "*"], ["47", "40-49", "*"]]
)
SEX = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])
# 40 people: every (age, sex) pair 5 times, so each (decade, sex) class holds 10
POP = pd.DataFrame(
    {
        "age": [["30", "35", "41", "47"][i % 4] for i in range(40)],
        "sex": ["F" if (i // 4) % 2 else "M" for i in range(40)],
    }
)
# released: 3 men in their thirties (delta 3/10) and 5 women in their forties (5/10)
SUB = pd.DataFrame(
    {"age": ["30", "35", "30"] + ["41", "47"] * 2 + ["41"], "sex": ["M"] * 3 + ["F"] * 5}
)
REL = pd.DataFrame({"age": ["30-39"] * 3 + ["40-49"] * 5, "sex": ["M"] * 3 + ["F"] * 5})


def _population_check(privacy: dict[str, Any], reported: dict[str, Any] | None = None, **kw):
    cfg = _config(["age", "sex"], privacy)
    result = _result(kw.pop("released", REL))
    result.transformation = {"age": 1, "sex": 0}
    result.population = reported
    population = kw.pop("population", POP)
    return verify_release(
        kw.pop("original", SUB),
        result,
        cfg,
        population=population,
        hierarchies={"age": AGE, "sex": SEX},
    )


def _dp(lo: float, hi: float) -> dict[str, Any]:
    return {"delta_presence": {"delta_min": lo, "delta_max": hi, "population": "p.csv"}}


def test_delta_presence_at_both_bounds_passes():
    assert _population_check(_dp(0.3, 0.5)) == {"delta_presence": True}
    assert _population_check(_dp(0.3 + 1e-12, 0.5 - 1e-12)) == {"delta_presence": True}


@pytest.mark.parametrize(("lo", "hi"), [(0.31, 0.5), (0.3, 0.49)])
def test_delta_presence_off_by_a_hundredth_fails(lo, hi):
    with pytest.raises(VerificationError) as info:
        _population_check(_dp(lo, hi))
    assert info.value.message.endswith(f"1 class(es) fail delta-presence [{lo:g}, {hi:g}]")


def test_k_map_against_the_population_at_the_bound():
    assert _population_check({"k_map": {"k": 10, "population": "p.csv"}}) == {"k_map": True}
    with pytest.raises(VerificationError) as info:
        _population_check({"k_map": {"k": 11, "population": "p.csv"}})
    assert info.value.message.endswith("2 class(es) fail k-map k=11")


def test_both_population_models_are_reported():
    privacy = {**_dp(0.0, 0.5), "k_map": {"k": 10}}
    assert _population_check(privacy) == {"delta_presence": True, "k_map": True}


def test_a_class_larger_than_its_population_is_caught():
    # 11 men in their thirties released, the population has 10
    released = pd.DataFrame({"age": ["30-39"] * 11, "sex": ["M"] * 11})
    original = pd.DataFrame({"age": ["30"] * 11, "sex": ["M"] * 11})
    with pytest.raises(VerificationError) as info:
        _population_check(_dp(0.0, 1.0), released=released, original=original)
    assert info.value.message.endswith(
        "1 class(es) hold more records than the population has in them"
    )


def test_the_reported_population_figures_must_match_the_release():
    exact = {"min_class_population": 10, "delta_min": 0.3, "delta_max": 0.5}
    assert _population_check(_dp(0.0, 1.0), exact) == {"delta_presence": True}
    for key, wrong in (("min_class_population", 11), ("delta_min", 0.3 * (1 + 1e-6))):
        with pytest.raises(VerificationError) as info:
            _population_check(_dp(0.0, 1.0), {**exact, key: wrong})
        assert info.value.message.endswith(f"the reported {key} does not match the release")


def test_a_population_model_without_the_population_is_refused():
    with pytest.raises(VerificationError) as info:
        _population_check(_dp(0.0, 1.0), population=None)
    assert info.value.message.endswith(
        "a population model was asked for without the population table"
    )


def test_the_mean_slack_is_at_least_1e9_and_reaches_it():
    # values below 1 in magnitude: the slack is 1e-9 (scale 1); a value exactly 1e-9 from
    # the mean is within it, 1.5e-9 is not
    cfg = _config(["age"], {"k_anonymity": {"k": 2}}, algorithm="mdav")
    orig = pd.DataFrame({"age": [0.0, 0.0]})
    assert _check(orig, pd.DataFrame({"age": [1e-9, 1e-9]}), cfg) == {"k_anonymity": True}
    orig = pd.DataFrame({"age": [0.1, 0.2]})
    with pytest.raises(VerificationError, match="not the mean of their class"):
        _check(orig, pd.DataFrame({"age": [0.15 + 1.5e-9] * 2}), cfg)


def test_a_released_text_in_an_mdav_column_is_not_a_mean():
    cfg = _config(["age"], {"k_anonymity": {"k": 2}}, algorithm="mdav")
    rel = pd.DataFrame({"age": ["x", "x", 150.0, 150.0]}, dtype=object)
    with pytest.raises(VerificationError) as info:
        _check(MDAV, rel, cfg)
    assert info.value.message.endswith(
        ": 2 released value(s) of 'age' are not the mean of their class"
    )


def test_cell_suppression_catches_a_missing_value_filled_in():
    orig = CELLS.assign(m=[None, None, "z", "z"])
    rel = orig.assign(m=["y", "y", "z", "z"])
    cfg = _config(["g", "n", "m"], {"k_anonymity": {"k": 2}}, algorithm="cell_suppression")
    with pytest.raises(VerificationError) as info:
        _check(orig, rel, cfg)
    assert info.value.message.endswith(
        "2 cell(s) of 'm' were altered instead of kept or suppressed"
    )


def test_a_class_absent_from_the_population_is_caught():
    # no woman in her forties in this population: the one released has a population of 0
    no_women_40s = POP[~(POP["age"].isin(["41", "47"]) & (POP["sex"] == "F"))]
    released = pd.DataFrame({"age": ["30-39"] * 3 + ["40-49"], "sex": ["M"] * 3 + ["F"]})
    original = pd.DataFrame({"age": ["30", "35", "30", "41"], "sex": ["M"] * 3 + ["F"]})
    with pytest.raises(VerificationError) as info:
        _population_check(
            _dp(0.0, 1.0), released=released, original=original, population=no_women_40s
        )
    assert info.value.message.endswith(
        "1 class(es) hold more records than the population has in them"
    )


def test_a_class_released_whole_is_not_larger_than_its_population():
    # all 10 men in their thirties and 11 women in their forties (the population has 10):
    # delta 1 is allowed, only the second class is too large
    released = pd.DataFrame(
        {"age": ["30-39"] * 10 + ["40-49"] * 11, "sex": ["M"] * 10 + ["F"] * 11}
    )
    original = pd.DataFrame({"age": ["30"] * 10 + ["41"] * 11, "sex": ["M"] * 10 + ["F"] * 11})
    assert _population_check(
        _dp(0.0, 1.0), released=released.iloc[:10], original=original.iloc[:10]
    ) == {"delta_presence": True}
    with pytest.raises(VerificationError) as info:
        _population_check(_dp(0.0, 1.0), released=released, original=original)
    assert info.value.message.endswith(
        ": 1 class(es) hold more records than the population has in them"
    )


def test_delta_presence_at_the_edge_of_its_tolerance():
    # deltas 3/10 and 5/10 exactly; the bounds minus / plus 1e-9 land on them exactly
    assert _population_check(_dp(0.3 + 1e-9, 0.5 - 1e-9)) == {"delta_presence": True}


def test_k_map_counts_only_the_classes_below_k():
    # one man of his thirties less: that class has 9 people, the other 10; k = 10 fails one
    fewer = POP.drop(index=POP.index[(POP["age"] == "30") & (POP["sex"] == "M")][:1])
    with pytest.raises(VerificationError) as info:
        _population_check({"k_map": {"k": 10, "population": "p.csv"}}, population=fewer)
    assert info.value.message.endswith(": 1 class(es) fail k-map k=10")


def test_a_population_model_without_the_release_levels_is_refused():
    cfg = _config(["age", "sex"], _dp(0.0, 1.0))
    result = _result(REL)  # transformation None: not a lattice release
    with pytest.raises(VerificationError) as info:
        verify_release(SUB, result, cfg, population=POP, hierarchies={"age": AGE, "sex": SEX})
    assert info.value.message.endswith(
        "a population model was asked for without the population table"
    )


def test_the_suppressed_records_keeping_a_quasi_identifier_are_counted():
    # 3 suppressed (the limit 0.3 allows 3), one of them keeps its zip
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 7}, "suppression_limit": 0.3})
    rel = ORIG.copy()
    rel.loc[7:, ["g", "h"]] = "*"
    rel.loc[9, "g"] = ORIG.loc[9, "g"]
    with pytest.raises(VerificationError) as info:
        _check(ORIG, rel, cfg, [False] * 7 + [True] * 3)
    assert info.value.message.endswith(": 1 suppressed records keep a quasi-identifier")


def test_a_mask_of_zeros_and_ones_is_read_as_a_mask():
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 8}, "suppression_limit": 0.2})
    result = _result(_starred(2))
    result.suppressed = np.array([0] * 8 + [1, 1])
    assert verify_release(ORIG, result, cfg) == {"k_anonymity": True}


def test_a_single_kept_record_is_still_checked():
    # 9 of 10 suppressed (limit 0.9): the one kept record is a class of 1 < k
    cfg = _config(["g", "h"], {"k_anonymity": {"k": 2}, "suppression_limit": 0.9})
    rel = ORIG.copy()
    rel.loc[1:, ["g", "h"]] = "*"
    with pytest.raises(VerificationError, match="smaller than k=2"):
        _check(ORIG, rel, cfg, [False] + [True] * 9)


def test_the_sensitive_values_are_read_from_the_input():
    # the released sensitive column was rewritten; l is judged on the input's values
    orig = pd.DataFrame({"g": ["x"] * 4, "s": ["a", "b", "a", "b"]})
    rel = orig.assign(s="*")
    cfg = _config(["g"], {"l_diversity": {"l": 2}}, sensitive=("s",))
    assert _check(orig, rel, cfg) == {"l_diversity": True}


def test_every_failed_model_is_named_in_one_message():
    cfg = _config(["h"], {"k_anonymity": {"k": 11}, "l_diversity": {"l": 4}}, sensitive=("g",))
    with pytest.raises(VerificationError) as info:
        _check(ORIG, ORIG, cfg)
    assert info.value.message == (
        "the released table failed its independent re-check: "
        "class(es) smaller than k=11 (smallest 10); "
        "distinct l-diversity of column 'g': required every class at least 4 distinct values, "
        "measured 3: NOT met"
    )


def test_a_missing_released_label_is_a_class_absent_from_the_population():
    # a release whose age label is missing on one row: that row is a class of its own,
    # matched by no population group (0 people), never dropped from the check
    released = REL.astype({"age": object})
    released.loc[0, "age"] = None
    with pytest.raises(VerificationError) as info:
        _population_check(_dp(0.0, 1.0), released=released)
    assert info.value.message.endswith(
        ": 1 class(es) hold more records than the population has in them"
    )
