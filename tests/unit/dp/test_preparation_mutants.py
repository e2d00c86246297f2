"""The data preparation of the DP statistics, on what mutation testing showed untested.

What reaches the noisy measurement decides the sensitivity: each person's rows bounded to
``max_contributions`` (and ``max_groups``), missing values dropped, a column read as
numbers or refused, and categories matched exactly. Checked on the helpers directly, with
figures worked out by hand. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil import InputError, SchemaError
from veil.dp._mechanisms import _bound_contributions, _codes, _column, _numeric, _values
from veil.dp._query import QuerySpec


def _spec(**kw: object) -> QuerySpec:
    if "max_groups" in kw:  # a group bound is for a group-by sum
        kw = {"stat": "sum", "column": "x", "bounds": (0.0, 10.0), **kw}
    return QuerySpec(**{"stat": "count", "epsilon": 1.0, **kw})  # type: ignore[arg-type]


def test_the_hint_lists_at_most_20_column_names() -> None:
    from veil._errors import column_names

    df = pd.DataFrame({f"c{i}": [1] for i in range(25)})
    with pytest.raises(SchemaError) as info:
        _column(df, "salary")
    assert info.value.hint == f"the data has {column_names(df.columns, 20)}"
    assert info.value.hint != f"the data has {column_names(df.columns, 21)}"


def test_a_missing_column_is_named_with_the_columns_there_are() -> None:
    df = pd.DataFrame({"age": [1], "zip": [2]})
    assert _column(df, "age").tolist() == [1]
    with pytest.raises(SchemaError) as info:
        _column(df, "salary")
    assert info.value.message == "the query names column 'salary', which the data does not have"
    assert info.value.hint == "the data has age, zip"


def test_numbers_booleans_and_numeric_text_are_read_text_is_refused() -> None:
    assert _numeric(pd.Series([True, False, True]), "b").tolist() == [1, 0, 1]
    assert _numeric(pd.Series([True, False]), "b").dtype == np.int64
    assert _numeric(pd.Series(["1.5", "2"]), "t").tolist() == [1.5, 2.0]
    ints = pd.Series([3, 4])
    assert _numeric(ints, "i") is ints
    with pytest.raises(SchemaError) as info:
        _numeric(pd.Series(["1", "SECRET-x"], name="pay"), "pay")
    assert info.value.message == "column 'pay' is not numeric (dtype object)"
    assert info.value.hint == "use count or histogram(categories=...) for categorical columns"
    assert "SECRET" not in str(info.value)


def test_values_drop_missing_ones_whatever_the_dtype() -> None:
    assert _values(pd.Series([1, 2, 3]), np.float64).tolist() == [1.0, 2.0, 3.0]
    assert _values(pd.Series([True, False]), np.int64).tolist() == [1, 0]
    assert _values(pd.Series([1.5, np.nan, 2.5]), np.float64).tolist() == [1.5, 2.5]
    assert _values(pd.Series([np.nan, 1.0]), np.int64).tolist() == [1]
    assert _values(pd.Series([1.5, 2.5]), np.int64).dtype == np.int64
    assert _values(pd.Series([], dtype=np.float64), np.float64).tolist() == []
    assert _values(pd.Series([1, None, 3], dtype="Int64"), np.int64).tolist() == [1, 3]
    # a nullable column comes out in the dtype the measurement takes, not as objects
    assert _values(pd.Series([1, None, 3], dtype="Int64"), np.int64).dtype == np.int64
    floats = _values(pd.Series([1.5, None, 2.5], dtype=object), np.float64)
    assert floats.dtype == np.float64 and floats.tolist() == [1.5, 2.5]
    assert _values(pd.Series(["a", None, "b"]), object).tolist() == ["a", "b"]


def test_without_an_id_column_each_row_is_one_person() -> None:
    df = pd.DataFrame({"x": [1, 2]})
    out, bound = _bound_contributions(df, _spec())
    assert out is df and bound == 1


def test_each_person_keeps_only_their_first_rows() -> None:
    df = pd.DataFrame({"pid": ["a", "a", "b", "a", "b", "c"], "x": [1, 2, 3, 4, 5, 6]})
    out, bound = _bound_contributions(df, _spec(id_column="pid", max_contributions=2))
    assert bound == 2
    assert out["x"].tolist() == [1, 2, 3, 5, 6]
    out, bound = _bound_contributions(df, _spec(id_column="pid"))
    assert (out["x"].tolist(), bound) == ([1, 3, 6], 1)


def test_each_person_keeps_only_their_first_groups() -> None:
    # a: groups g1, g2, g1, g3 (g3 is a's third group); b: g2, g2
    df = pd.DataFrame(
        {
            "pid": ["a", "a", "b", "a", "a", "b"],
            "g": ["g1", "g2", "g2", "g1", "g3", "g2"],
            "x": [1, 2, 3, 4, 5, 6],
        }
    )
    spec = _spec(
        id_column="pid", by="g", categories=("g1", "g2", "g3"), max_groups=2, max_contributions=5
    )
    out, bound = _bound_contributions(df, spec)
    assert bound == 5
    assert out["x"].tolist() == [1, 2, 3, 4, 6]  # a's row in g3 is dropped
    spec = _spec(
        id_column="pid", by="g", categories=("g1", "g2", "g3"), max_groups=1, max_contributions=5
    )
    out, _ = _bound_contributions(df, spec)
    assert out["x"].tolist() == [1, 3, 4, 6]
    # the group bound first, then the row bound on the rows left
    spec = _spec(
        id_column="pid", by="g", categories=("g1", "g2", "g3"), max_groups=2, max_contributions=1
    )
    out, _ = _bound_contributions(df, spec)
    assert out["x"].tolist() == [1, 3]


def test_a_group_by_without_a_group_bound_bounds_rows_only() -> None:
    df = pd.DataFrame(
        {"pid": ["a", "a", "a", "b"], "g": ["g1", "g2", "g3", "g1"], "x": [1, 2, 3, 4]}
    )
    spec = _spec(id_column="pid", by="g", categories=("g1", "g2", "g3"), max_contributions=2)
    out, bound = _bound_contributions(df, spec)
    assert (out["x"].tolist(), bound) == ([1, 2, 4], 2)


def test_an_id_column_with_missing_owners_is_refused() -> None:
    df = pd.DataFrame({"pid": ["a", None], "x": [1, 2]})
    with pytest.raises(InputError) as info:
        _bound_contributions(df, _spec(id_column="pid"))
    assert info.value.message == ("id_column 'pid' has missing values; every row needs an owner")


def test_codes_match_categories_exactly_or_as_text() -> None:
    # numbers: by value (2 and 2.0 are one category); missing and unlisted values: -1
    assert _codes(pd.Series([2.0, 3, np.nan, 7]), [1, 2, 3]).tolist() == [1, 2, -1, -1]
    # text against text: exact, no conversion
    assert _codes(pd.Series(["b", "a", None, "B"]), ["a", "b"]).tolist() == [1, 0, -1, -1]
    assert _codes(pd.Series(["b", "a"], dtype="string"), ["a", "b"]).tolist() == [1, 0]
    assert _codes(pd.Series(["b", "a"], dtype="category"), ["a", "b"]).tolist() == [1, 0]
    # typed differently (the CLI's categories are text): compared as text
    assert _codes(pd.Series([1, 2, 5]), ["2", "1"]).tolist() == [1, 0, -1]
    assert _codes(pd.Series(["1", "2"]), [2, 1]).tolist() == [1, 0]
    assert _codes(pd.Series([True, False]), [True]).tolist() == [0, -1]
    assert _codes(pd.Series([1]), [1]).dtype == np.int64
    # numbers against categories that are not all numbers (and the reverse): as text, never
    # a failed conversion to float
    assert _codes(pd.Series([1, 2]), ["a", "1"]).tolist() == [1, -1]
    assert _codes(pd.Series(["1", "x"]), [1, 2]).tolist() == [0, -1]
    # text categories against an object column: exact, so the number 1 is not the text "1"
    mixed = pd.Series([1, "1", "a"], dtype=object)
    assert _codes(mixed, ["1", "a"]).tolist() == [-1, 0, 1]


@pytest.mark.parametrize("cats", [["a", "a"], [1, 1], [1, "1"]])
def test_repeated_categories_are_refused(cats: list[object]) -> None:
    with pytest.raises(InputError) as info:
        _codes(pd.Series(["1", "a"]), cats)
    assert info.value.message == "categories must not repeat"
