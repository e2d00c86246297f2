"""Parsing DP query specs: text and JSON forms, and errors that name keys, never values."""

from __future__ import annotations

import pytest

from veil import InputError
from veil.dp import parse_query
from veil.dp._query import parse_queries


def test_text_and_json_forms_agree() -> None:
    a = parse_query("mean(age, bounds=[17, 90], epsilon=0.5)")
    b = parse_query('{"stat": "mean", "column": "age", "bounds": [17, 90], "epsilon": 0.5}')
    c = parse_query({"stat": "mean", "column": "age", "bounds": [17, 90], "epsilon": 0.5})
    assert a == b == c
    assert (a.stat, a.column, a.bounds, a.epsilon, a.mechanism) == (
        "mean",
        "age",
        (17.0, 90.0),
        0.5,
        "laplace",
    )


def test_quoted_columns_names_and_keywords() -> None:
    q = parse_query(
        'histogram("marital-status", categories=["Never-married", "Divorced"], epsilon=1)'
    )
    assert q.column == "marital-status" and q.categories == ("Never-married", "Divorced")
    g = parse_query(
        "count(by=sex, categories=[Male, Female], mechanism=gaussian, delta=1e-7, epsilon=1)"
    )
    assert (g.by, g.mechanism, g.delta) == ("sex", "gaussian", 1e-7)
    assert parse_query("quantile(age, q=0.9, bounds=[0, 1], epsilon=1)").quantiles == (0.9,)
    assert parse_query("median(age, bounds=[0, 1], epsilon=1)").quantiles == (0.5,)


def test_default_epsilon() -> None:
    assert parse_query("count()", epsilon=0.3).epsilon == 0.3
    with pytest.raises(InputError, match="epsilon"):
        parse_query("count()")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("sum(age, epsilon=1)", "bounds"),
        ("mean(age, bounds=[9, 1], epsilon=1)", "lower < upper"),
        ("count(epsilon=1, mechanism=gaussian)", "delta > 0"),
        ("count(epsilon=1, delta=1e-6)", "only used by mechanism: gaussian"),
        ("count(by=sex, epsilon=1)", "public keys"),
        ("histogram(age, epsilon=1)", "exactly one of"),
        ("histogram(age, bins=[3, 2, 1], epsilon=1)", "increasing"),
        ("quantile(age, bounds=[0, 1], epsilon=1)", "needs q"),
        ("quantile(age, q=1.5, bounds=[0, 1], epsilon=1)", r"\[0, 1\]"),
        ("count(epsilon=1, max_contributions=3)", "id_column"),
        ("count(epsilon=-1)", "greater than 0"),
        ("count(epsilon=1, colour=1)", "colour"),
        ("stddev(age, epsilon=1)", "unknown statistic"),
        ("mean(age) + 1", "one call"),
        ("mean(age, __import__('os'))", "at most one positional|name, number"),
        ("mean(age,, )", "not of the form"),
        ('{"stat": "count"', "JSON"),
        ("mean(age, bounds=[17, 90], epsilon=1, **x)", "not allowed"),
    ],
)
def test_invalid_specs(spec: str, match: str) -> None:
    with pytest.raises(InputError, match=match):
        parse_query(spec)


def test_errors_never_echo_values() -> None:
    with pytest.raises(InputError) as exc:
        parse_query(
            {
                "stat": "histogram",
                "column": "name",
                "categories": ["Alice Secret"],
                "bins": [1, 2],
                "epsilon": 1,
            }
        )
    assert "Alice Secret" not in str(exc.value)


def test_parse_queries_reports_the_index() -> None:
    with pytest.raises(InputError, match="query 1"):
        parse_queries(["count(epsilon=1)", "sum(x, epsilon=1)"])
    assert len(parse_queries("count(epsilon=1)")) == 1
