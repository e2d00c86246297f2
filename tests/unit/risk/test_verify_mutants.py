"""The risk report's anonymity levels, on what mutation testing showed untested.

The report entry of a sensitive attribute (every figure, worked out by hand) and the order
in which the ordered distance reads values: an order the caller gives, missing values last,
and numbers by value. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil import InputError, SchemaError
from veil.risk import verify


def _table() -> pd.DataFrame:
    # class A: flu x3, hiv; class B: flu, cancer; one suppressed row (hiv)
    return pd.DataFrame(
        {
            "zip": ["130"] * 4 + ["148"] * 2 + ["*"],
            "dx": ["flu", "flu", "flu", "hiv", "flu", "cancer", "hiv"],
        }
    )


def test_the_report_entry_of_a_sensitive_attribute():
    # p over the 6 retained rows: cancer 1/6, flu 4/6, hiv 1/6
    # A = (0, 3/4, 1/4), B = (1/2, 1/2, 0) in the order cancer, flu, hiv
    doc = verify(_table(), ["zip"], ["dx"], marker="*").sensitive["dx"].to_dict()
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    flat = {
        "column": doc["column"],
        "distinct_values": doc["distinct_values"],
        "l.distinct": doc["l"]["distinct"],
        "l.entropy": doc["l"]["entropy"],
        "recursive.l": doc["recursive"]["l"],
        "recursive.c": doc["recursive"]["c"],
        "t.equal": doc["t"]["equal"],
        "t.ordered": doc["t"]["ordered"],
        "alpha": doc["alpha"],
        "beta.basic": doc["beta_likeness"]["basic"],
        "beta.enhanced": doc["beta_likeness"]["enhanced"],
        "delta": doc["delta_disclosure"],
    }
    assert set(doc) == {
        "column",
        "distinct_values",
        "l",
        "recursive",
        "t",
        "alpha",
        "beta_likeness",
        "delta_disclosure",
    }
    assert flat == {
        "column": "dx",
        "distinct_values": 3,
        "l.distinct": 2,
        "l.entropy": pytest.approx(math.exp(h)),
        "recursive.l": 2,  # the distinct l reached
        "recursive.c": pytest.approx(3.0),  # A: 3 / 1; B: 1 / 1
        "t.equal": pytest.approx(1 / 3),  # B: (1/6 + 1/6 + 1/3) / 2
        "t.ordered": pytest.approx(1 / 4),  # B: cum (1/3, 1/6, 0) / 2
        "alpha": pytest.approx(0.75),
        "beta.basic": pytest.approx(2.0),  # B cancer: (1/2 - 1/6) / (1/6)
        "beta.enhanced": None,  # 2 > -ln(1/6): no beta works
        "delta": pytest.approx(math.log(3)),  # B cancer: ln((1/2) / (1/6))
    }


def _t_ordered(values: list, order: list | None = None) -> float:
    # two classes: x holds the first half of the values, y the second half
    n = len(values)
    df = pd.DataFrame({"g": ["x"] * (n // 2) + ["y"] * (n - n // 2), "s": values})
    orders = None if order is None else {"s": order}
    return verify(df, ["g"], ["s"], orders=orders).sensitive["s"].t_ordered


def test_numbers_are_ordered_by_value_not_as_text():
    # 9 < 10 < 100: class x = (9, 10), y = (100, 100); p = (1/4, 1/4, 1/2)
    # x: cum q - cum p = (1/4, 1/2, 0) -> 3/4 / 2 = 3/8 (as text 10 < 100 < 9 it differs)
    assert _t_ordered([9, 10, 100, 100]) == pytest.approx(3 / 8)


def test_a_given_order_is_the_order_read():
    df = pd.DataFrame({"g": ["x"] * 2 + ["y"] * 4, "s": ["c", "c", "a", "a", "a", "b"]})
    # p: a 1/2, b 1/6, c 1/3. order (c, a, b): x = (1, 0, 0): cum diff (2/3, 1/6, 0) -> 5/12
    # alphabetical (a, b, c): x = (0, 0, 1): (-1/2, -2/3, 0) -> 7/12
    rep = verify(df, ["g"], ["s"], orders={"s": ["c", "a", "b"]})
    assert rep.sensitive["s"].t_ordered == pytest.approx(5 / 12)
    rep = verify(df, ["g"], ["s"])
    assert rep.sensitive["s"].t_ordered == pytest.approx(7 / 12)


def test_an_order_missing_a_value_is_refused_by_count():
    df = pd.DataFrame({"g": ["x"] * 3, "s": ["a", "b", "SECRET-VALUE"]})
    with pytest.raises(InputError) as info:
        verify(df, ["g"], ["s"], orders={"s": ["a", "b"]})
    assert info.value.message == ("the value order given for column 's' misses 1 row(s)' values")
    assert info.value.hint == "list every value of the column in the order"
    assert "SECRET" not in str(info.value)


def test_missing_values_rank_last():
    # values 1, 2, missing: x = (1, 1), y = (2, missing): p = (1/2, 1/4, 1/4) in the order
    # 1, 2, missing: x cum diff (1/2, 1/4, 0) -> 3/4 / 2 = 3/8 (missing first would read
    # x = (0, 1, 0) vs (1/4, 1/2, 1/4): (-1/4, 1/4, 0) -> 1/4)
    assert _t_ordered([1.0, 1.0, 2.0, np.nan]) == pytest.approx(3 / 8)


def test_the_report_takes_the_worst_level_over_the_sensitive_attributes():
    # dx as above; sx = u, v alternating: p = 1/2 each and every class at p (distances 0,
    # alpha 1/2, beta 0, recursive c 1, entropy l 2). The report takes the smallest l and
    # the largest of every other figure; enhanced beta is None as dx has none.
    df = _table().assign(sx=["u", "v", "u", "v", "u", "v", "u"])
    doc = verify(df, ["zip"], ["dx", "sx"], marker="*").to_dict()
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    flat = {
        key: doc[key]
        for key in (
            "quasi_identifiers",
            "rows",
            "suppressed_rows",
            "classes",
            "k",
            "alpha",
            "recursive_c",
            "delta_disclosure",
            "missing_qi_values",
        )
    }
    flat.update(
        {
            "l.distinct": doc["l"]["distinct"],
            "l.entropy": doc["l"]["entropy"],
            "t.equal": doc["t"]["equal"],
            "t.ordered": doc["t"]["ordered"],
            "beta.basic": doc["beta_likeness"]["basic"],
            "beta.enhanced": doc["beta_likeness"]["enhanced"],
            "sensitive": [s["column"] for s in doc["sensitive"]],
        }
    )
    assert flat == {
        "quasi_identifiers": ["zip"],
        "rows": 7,
        "suppressed_rows": 1,
        "classes": 2,
        "k": 2,
        "alpha": pytest.approx(0.75),
        "recursive_c": pytest.approx(3.0),
        "delta_disclosure": pytest.approx(math.log(3)),
        "missing_qi_values": {"zip": 0},  # no missing zip
        "l.distinct": 2,
        "l.entropy": pytest.approx(math.exp(h)),
        "t.equal": pytest.approx(1 / 3),
        "t.ordered": pytest.approx(1 / 4),
        "beta.basic": pytest.approx(2.0),
        "beta.enhanced": None,
        "sensitive": ["dx", "sx"],
    }
    sx = verify(df, ["zip"], ["sx"], marker="*").to_dict()
    assert sx["beta_likeness"] == {"basic": 0.0, "enhanced": 0.0}
    assert (sx["recursive_c"], sx["l"]["entropy"]) == (pytest.approx(1.0), pytest.approx(2.0))


def test_ordered_distance_over_two_values():
    # x = (a, a), y = (b, b): p = (1/2, 1/2); x: cum diff (1/2, 0) -> 1/2 / (2 - 1)
    df = pd.DataFrame({"g": ["x", "x", "y", "y"], "s": ["a", "a", "b", "b"]})
    assert verify(df, ["g"], ["s"]).sensitive["s"].t_ordered == pytest.approx(1 / 2)


def test_ordered_distance_in_blocks_of_one_class(monkeypatch):
    import veil.risk._verify as verify_mod

    monkeypatch.setattr(verify_mod, "_BLOCK_CELLS", 1)
    rep = verify(_table(), ["zip"], ["dx"], marker="*")
    assert rep.sensitive["dx"].t_ordered == pytest.approx(1 / 4)  # as in one block


def test_the_entry_of_a_table_with_every_row_suppressed():
    df = _table()
    rep = verify(df, ["zip"], ["dx"], suppressed=[True] * len(df), recursive_l=2)
    doc = rep.sensitive["dx"].to_dict()
    assert (doc["column"], doc["distinct_values"], doc["recursive"]) == (
        "dx",
        0,
        {"l": 2, "c": None},
    )


def test_one_attributes_enhanced_beta_is_in_its_entry():
    # every class at p: (q - p) / p = 0 <= -ln(1/2): enhanced beta 0
    df = _table().assign(sx=["u", "v", "u", "v", "u", "v", "u"])
    entry = verify(df, ["zip"], ["sx"], marker="*").sensitive["sx"].to_dict()
    assert entry["beta_likeness"] == {"basic": 0.0, "enhanced": 0.0}


def test_a_missing_sensitive_column_is_named_with_its_role():
    with pytest.raises(SchemaError) as info:
        verify(_table(), ["zip"], ["gone"])
    assert info.value.message == "1 sensitive column(s) not in the table: gone"


def test_columns_with_two_roles_are_all_named():
    df = _table().assign(age="x")
    with pytest.raises(InputError) as info:
        verify(df, ["zip", "age"], ["zip", "age"])
    assert info.value.message == ("column(s) age, zip named both quasi-identifier and sensitive")
    assert info.value.hint == "a column has one role"


def test_no_recursive_c_when_one_attribute_has_none():
    # at l = 2: dx has c = 3; sy has a class of one value (no tail): no c works for it
    df = _table().assign(sy=["u", "u", "u", "u", "u", "v", "u"])
    rep = verify(df, ["zip"], ["dx", "sy"], marker="*", recursive_l=2)
    assert rep.sensitive["dx"].recursive_c == pytest.approx(3.0)
    assert rep.sensitive["sy"].recursive_c is None
    assert rep.to_dict()["recursive_c"] is None


def test_recursive_l_below_one_is_refused():
    with pytest.raises(InputError) as info:
        verify(_table(), ["zip"], ["dx"], marker="*", recursive_l=0)
    assert info.value.message == "recursive l must be at least 1, got 0"


def test_an_order_counts_its_absent_values_wherever_they_sit():
    # order (low, mid, high); the table holds low and mid only. p = (1/2, 1/2, 0), m = 3.
    # class x = (1, 0, 0): cum diff (1/2, 0, 0) -> 1/2 / (m - 1) = 1/4. With m read from the
    # values present (2), the same class would read 1/2: a t-closeness measured twice as far.
    df = pd.DataFrame({"g": ["x", "x", "y", "y"], "s": ["low", "low", "mid", "mid"]})
    levels = verify(df, ["g"], ["s"], orders={"s": ["low", "mid", "high"]}).sensitive["s"]
    assert levels.distinct_values == 3
    assert levels.t_ordered == pytest.approx(0.25)
    # the absent value in the middle of the order counts the same way
    df = df.assign(s=["low", "low", "high", "high"])
    levels = verify(df, ["g"], ["s"], orders={"s": ["low", "mid", "high"]}).sensitive["s"]
    assert levels.distinct_values == 3
    # x = (1, 0, 0): cum diff (1/2, 1/2, 0) -> 1 / 2
    assert levels.t_ordered == pytest.approx(0.5)


def test_a_constant_sensitive_column_is_zero_beta_likely():
    # one value everywhere: p = q = 1, (q - p) / p = 0 and its cap -ln 1 = 0: beta 0 is
    # attained exactly at the cap, so enhanced beta is 0, not "no beta works"
    df = pd.DataFrame({"g": ["x", "x", "y", "y", "y"], "s": ["flu"] * 5})
    levels = verify(df, ["g"], ["s"]).sensitive["s"]
    assert levels.beta_basic == 0.0
    assert levels.beta_enhanced == 0.0
    assert verify(df, ["g"], ["s"]).to_dict()["beta_likeness"] == {"basic": 0.0, "enhanced": 0.0}


def test_unhashable_sensitive_values_are_refused_naming_the_column_not_the_value():
    df = pd.DataFrame({"g": ["x", "x", "y"], "diag": [["SECRET-A"], ["SECRET-B"], ["SECRET-A"]]})
    with pytest.raises(InputError) as info:
        verify(df, ["g"], ["diag"])
    assert info.value.message.startswith("column 'diag' holds unhashable values (list)")
    assert info.value.hint == "convert the column to strings or numbers first"
    assert "SECRET" not in str(info.value)
