"""Schema inference, bad-input handling and constraints of the synthesizers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, SchemaError
from veil.synth import (
    AllowedCombinations,
    GaussianCopulaSynthesizer,
    Inequality,
    Range,
    infer_schema,
    parse_constraint,
)
from veil.synth._constraints import constraint_from_dict, enforce


def _frame(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(0)  # test data only
    start = rng.integers(0, 50, n)
    return pd.DataFrame(
        {
            "start": start,
            "end": start + rng.integers(0, 10, n),
            "x": rng.normal(size=n),
            "c": rng.choice(["a", "b", "c"], n),
            "d": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 400, n), unit="D"),
            "flag": rng.random(n) < 0.3,
        }
    )


def test_kinds_are_inferred() -> None:
    kinds = {c.name: c.kind for c in infer_schema(_frame()).columns}
    assert kinds == {
        "start": "integer",
        "end": "integer",
        "x": "numeric",
        "c": "categorical",
        "d": "datetime",
        "flag": "boolean",
    }


def test_constant_and_empty_columns_are_reproduced_not_modelled() -> None:
    df = _frame()
    df["const"] = "same"
    df["empty"] = np.nan
    schema = infer_schema(df)
    assert schema["const"].kind == "constant" and schema["empty"].kind == "empty"
    assert len(schema.notes) == 2 and "same" not in " ".join(schema.notes)
    out = GaussianCopulaSynthesizer(seed=1).fit(df).sample(50)
    assert (out["const"] == "same").all()
    assert out["empty"].isna().all()
    assert list(out.columns) == list(df.columns)


def test_identifier_like_column_is_refused_unless_declared() -> None:
    df = _frame()
    df["email"] = [f"person{i}@example.org" for i in range(len(df))]
    with pytest.raises(InputError) as err:
        infer_schema(df)
    assert "email" in str(err.value) and "person1@" not in str(err.value)
    assert "drop" in (err.value.hint or "")
    schema = infer_schema(df, declared={"email": "categorical"})
    assert schema["email"].kind == "categorical"


def test_running_number_is_refused_as_an_identifier() -> None:
    df = _frame()
    df["record"] = np.arange(1000, 1000 + len(df))
    with pytest.raises(InputError, match="record"):
        infer_schema(df)
    assert infer_schema(df, declared={"record": "integer"})["record"].kind == "integer"
    assert infer_schema(df.drop(columns=["record"])).names == list(_frame().columns)


def test_all_constant_table_and_empty_table_are_refused() -> None:
    with pytest.raises(InputError, match="nothing to model"):
        infer_schema(pd.DataFrame({"a": [1] * 10, "b": ["x"] * 10}))
    with pytest.raises(InputError, match="empty"):
        infer_schema(pd.DataFrame({"a": []}))


def test_declared_domain_is_enforced_without_echoing_values() -> None:
    df = pd.DataFrame({"c": ["secret-value", "b"] * 10, "n": [1, 500] * 10})
    with pytest.raises(InputError) as err:
        infer_schema(df, categories={"c": ["b"]})
    assert "secret-value" not in str(err.value)
    # bounds that exclude more than half of the values are an error naming the count;
    # fewer are clipped, and the notes say so without the count: notes are saved with the
    # model, and an exact count of the data is outside the DP guarantee (the log has it)
    with pytest.raises(InputError, match=r"exclude 20 of its 20 value\(s\)") as err:
        infer_schema(df, bounds={"n": (600, 700)})
    assert "500" not in str(err.value)
    clipped = infer_schema(df, bounds={"n": (0, 100)})
    assert any("outside the declared bounds are clipped" in n for n in clipped.notes)
    assert not any("10" in n for n in clipped.notes)
    schema = infer_schema(df, bounds={"n": (0, 1000)})
    assert (schema["n"].low, schema["n"].high) == (0.0, 1000.0)


def test_parse_constraint_forms() -> None:
    assert parse_constraint("start <= end") == Inequality("start", "end")
    assert parse_constraint("start < end") == Inequality("start", "end", strict=True)
    assert parse_constraint("0 <= x <= 5") == Range("x", 0.0, 5.0)
    assert parse_constraint("x <= 5") == Range("x", None, 5.0)
    assert parse_constraint("1 <= x") == Range("x", 1.0, None)
    for bad in ("x == 3", "1 <= 2", "a <= b <= c"):
        with pytest.raises(InputError):
            parse_constraint(bad)


def test_constraint_roundtrip_through_dict() -> None:
    cons = [
        Inequality("a", "b", strict=True),
        Range("a", 0.0, None),
        AllowedCombinations(("c", "e"), (("a", 1), ("b", 2))),
    ]
    for con in cons:
        assert constraint_from_dict(con.to_dict()) == con
    with pytest.raises(InputError):
        constraint_from_dict({"kind": "nope"})


def test_data_violating_a_constraint_is_refused_with_a_count() -> None:
    df = _frame()
    with pytest.raises(InputError) as err:
        GaussianCopulaSynthesizer(constraints=[Inequality("end", "start")]).fit(df)
    msg = str(err.value)
    assert "violates" in msg and "end <= start" in msg
    with pytest.raises(SchemaError):
        GaussianCopulaSynthesizer(constraints=[Range("nope", 0, 1)]).fit(df)


def test_constraints_hold_in_samples() -> None:
    df = _frame()
    combos = tuple((c, f) for c in "abc" for f in (True, False) if (c, f) != ("c", True))
    df = df[~((df["c"] == "c") & df["flag"])]
    cons = [
        Inequality("start", "end"),
        Range("x", -1.0, 1.0),
        AllowedCombinations(("c", "flag"), combos),
    ]
    df = df[(df["x"] >= -1) & (df["x"] <= 1)]
    out = GaussianCopulaSynthesizer(constraints=cons, seed=3).fit(df).sample(500)
    assert len(out) == 500
    for con in cons:
        assert con.valid(out).all()


def test_enforce_gives_up_with_a_clear_error() -> None:
    def draw(k: int) -> pd.DataFrame:
        return pd.DataFrame({"a": np.ones(k), "b": np.zeros(k)})

    with pytest.raises(InputError, match="satisfy the constraints"):
        enforce(draw, 10, [Inequality("a", "b")], max_rounds=3)


def test_missing_values_are_allowed_by_constraints() -> None:
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [2.0, 0.0, np.nan]})
    assert Inequality("a", "b").valid(df).tolist() == [True, True, True]
