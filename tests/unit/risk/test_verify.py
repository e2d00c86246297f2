"""Anonymity levels against hand-computed values and a brute-force reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil import InputError, SchemaError
from veil.risk import equivalence_classes, verify


def _table() -> pd.DataFrame:
    # class A: 4 rows (flu x3, hiv x1); class B: 2 rows (flu, cancer); one suppressed row
    return pd.DataFrame(
        {
            "zip": ["130", "130", "130", "130", "148", "148", "*"],
            "age": ["<30", "<30", "<30", "<30", "3*", "3*", "*"],
            "dx": ["flu", "flu", "flu", "hiv", "flu", "cancer", "hiv"],
        }
    )


def test_levels_by_hand():
    rep = verify(_table(), ["zip", "age"], ["dx"], marker="*")
    assert rep.k == 2
    assert rep.n_suppressed == 1 and rep.n_classes == 2
    s = rep.sensitive["dx"]
    assert s.l_distinct == 2
    # entropy of (3/4, 1/4) and of (1/2, 1/2): the smaller is the first
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert s.l_entropy == pytest.approx(math.exp(h))
    # p over the 6 retained rows: flu 4/6, hiv 1/6, cancer 1/6
    p = {"cancer": 1 / 6, "flu": 4 / 6, "hiv": 1 / 6}
    qa = {"cancer": 0, "flu": 0.75, "hiv": 0.25}
    qb = {"cancer": 0.5, "flu": 0.5, "hiv": 0}
    eq = max(0.5 * sum(abs(q[v] - p[v]) for v in p) for q in (qa, qb))
    assert s.t_equal == pytest.approx(eq)

    # ordered: values sorted cancer < flu < hiv, m = 3
    def ordered(q):
        cum, tot = 0.0, 0.0
        for v in sorted(p):
            cum += q[v] - p[v]
            tot += abs(cum)
        return tot / 2

    assert s.t_ordered == pytest.approx(max(ordered(qa), ordered(qb)))
    assert s.alpha == pytest.approx(0.75)
    assert s.beta_basic == pytest.approx(max((0.5 - 1 / 6) / (1 / 6), (0.25 - 1 / 6) / (1 / 6)))
    assert s.delta_disclosure == pytest.approx(
        max(abs(math.log(0.5 / (1 / 6))), abs(math.log(0.75 / (4 / 6))))
    )
    # recursive (c, 2): class A r1=3, tail=1 -> 3; class B r1=1, tail=1 -> 1
    assert s.recursive_c == pytest.approx(3.0)


def test_recursive_c_none_when_a_class_has_fewer_than_l_values():
    rep = verify(_table(), ["zip", "age"], ["dx"], marker="*", recursive_l=3)
    assert rep.sensitive["dx"].recursive_c is None


def test_suppressed_rows_are_not_a_class():
    with_mask = verify(_table(), ["zip", "age"], ["dx"], suppressed=[False] * 6 + [True])
    as_class = verify(_table(), ["zip", "age"], ["dx"])
    assert with_mask.k == 2
    assert as_class.k == 1  # without the marker, '*' is a class of one (pycanon's miscount)


def test_index_and_row_order_do_not_matter():
    df = _table()
    base = verify(df, ["zip", "age"], ["dx"], marker="*").to_dict()
    shuffled = df.sample(frac=1.0, random_state=3)
    shuffled.index = [f"r{i}" for i in range(len(df))]
    assert verify(shuffled, ["zip", "age"], ["dx"], marker="*").to_dict() == base
    assert verify(df.sort_values("dx"), ["zip", "age"], ["dx"], marker="*").to_dict() == base


def test_numeric_ordered_distance_uses_numeric_order():
    df = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": [2, 10, 2, 10]})
    # lexical order would put 10 before 2; with numbers the result is the same either way
    # here because both classes equal the table distribution
    assert verify(df, ["q"], ["s"]).sensitive["s"].t_ordered == pytest.approx(0.0)
    df2 = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": [1, 2, 9, 10]})
    # class a = {1,2}, class b = {9,10}: cumulative gap 1/4, 1/2, 1/4 over m-1 = 3
    assert verify(df2, ["q"], ["s"]).sensitive["s"].t_ordered == pytest.approx(1.0 / 3)


def test_explicit_order():
    df = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["lo", "mid", "hi", "hi"]})
    rep = verify(df, ["q"], ["s"], orders={"s": ["lo", "mid", "hi"]})
    # p = (1/4, 1/4, 1/2); class a = (1/2, 1/2, 0): gaps 1/4, 1/2 -> 3/4 / 2
    assert rep.sensitive["s"].t_ordered == pytest.approx(0.375)
    with pytest.raises(InputError):
        verify(df, ["q"], ["s"], orders={"s": ["lo", "hi"]})


def test_brute_force_k_and_l_on_random_tables():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        df = pd.DataFrame(
            {
                "a": rng.integers(0, 3, n),
                "b": rng.choice(["x", "y"], n),
                "s": rng.choice(["p", "q", "r", "t"], n),
            }
        )
        rep = verify(df, ["a", "b"], ["s"])
        groups = {}
        for a, b, s in zip(df.a, df.b, df.s, strict=True):
            groups.setdefault((a, b), []).append(s)
        assert rep.k == min(len(g) for g in groups.values())
        assert rep.sensitive["s"].l_distinct == min(len(set(g)) for g in groups.values())
        assert rep.n_classes == len(groups)


def test_all_rows_suppressed_gives_undefined_levels():
    df = pd.DataFrame({"a": ["*", "*"], "s": ["x", "y"]})
    rep = verify(df, ["a"], ["s"], marker="*")
    assert rep.k is None and rep.n_classes == 0
    d = rep.to_dict()
    assert d["l"]["distinct"] is None and d["t"]["equal"] is None


def test_single_row():
    rep = verify(pd.DataFrame({"a": [1], "s": ["x"]}), ["a"], ["s"])
    assert rep.k == 1 and rep.sensitive["s"].l_distinct == 1
    assert rep.sensitive["s"].t_equal == 0.0 and rep.sensitive["s"].t_ordered == 0.0


def test_missing_columns_named_without_values():
    df = _table()
    with pytest.raises(SchemaError, match="nope") as err:
        verify(df, ["zip", "nope"], ["dx"])
    assert "130" not in str(err.value)
    with pytest.raises(SchemaError, match="sensitive"):
        verify(df, ["zip"], ["diagnosis"])
    with pytest.raises(InputError, match="both"):
        verify(df, ["zip", "dx"], ["dx"])


def test_unhashable_values_are_a_clear_error_without_the_value():
    df = pd.DataFrame({"a": [["secret-list"], ["x"]], "s": [1, 2]})
    with pytest.raises(InputError, match="unhashable") as err:
        equivalence_classes(df, ["a"])
    assert "secret" not in str(err.value)
    assert "list" in str(err.value)


def test_nan_in_quasi_identifiers_is_its_own_value_and_counted():
    df = pd.DataFrame({"a": [1.0, np.nan, np.nan, 1.0], "s": ["x", "y", "x", "y"]})
    ec = equivalence_classes(df, ["a"])
    assert ec.n_classes == 2 and ec.k == 2
    assert ec.missing_values == {"a": 2}
