"""The DP query spec: one statistic, its column, its privacy parameters and its public bounds.

A query is written either as a call-like string or as a JSON object (the policy's
``dp.queries`` entries are the object form)::

    count()                                         rows
    count(age)                                      rows where age is not missing
    count(by=sex, categories=["Male", "Female"])    group-by count (public group keys)
    sum(hours, bounds=[0, 99], epsilon=0.5)
    sum(hours, bounds=[0, 99], by=sex, categories=["Male", "Female"], max_groups=1)
    mean(age, bounds=[17, 90], epsilon=0.5)
    variance(age, bounds=[17, 90], epsilon=0.5, size=30162)
    quantile(age, q=[0.25, 0.75], bounds=[17, 90], epsilon=1)
    median(age, bounds=[17, 90], epsilon=1)
    histogram(education, categories=["Bachelors", "Masters"], epsilon=1)
    histogram(age, bins=[17, 30, 45, 60, 90], epsilon=1)

    {"stat": "mean", "column": "age", "bounds": [17, 90], "epsilon": 0.5}

Column names that are not Python identifiers are quoted: ``count("marital-status")``.

Keys (all optional except ``epsilon``, which defaults to 1.0 only in the CLI's examples):

``epsilon``, ``delta``
    The query's privacy parameters; ``delta`` only with ``mechanism: gaussian``.
``mechanism``
    ``laplace`` (pure epsilon-DP; integers get the discrete Laplace, i.e. geometric) or
    ``gaussian`` (rho-zCDP calibrated to (epsilon, delta); integers get the discrete Gaussian).
``bounds``
    Public ``[lower, upper]`` for the values: each value is clamped into it. Required for
    sum, mean, variance and quantiles. Must not be derived from the data.
``by``, ``categories``
    Group-by column and its public keys (required: keys read from the data would leak).
``bins``
    Histogram edges for a numeric column.
``q``, ``candidates``
    Quantile(s) in [0, 1] and the number of grid points between the bounds they are chosen
    from (default 101).
``size``
    The public number of rows, for mean and variance; without it a share ``size_share``
    (default 0.1) of the query's budget estimates it with a DP count.
``id_column``, ``max_contributions``, ``max_groups``
    Unit of privacy: with ``id_column``, a person may own several rows; only their first
    ``max_contributions`` rows are used (and, for group-by sums, their first ``max_groups``
    groups). Without it, each row is one person.
``confidence``
    Of the reported intervals (default 0.95).
``name``
    A label for the answer (default: the query text).
"""

from __future__ import annotations

import ast
import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veil._errors import InputError

__all__ = ["QuerySpec", "parse_queries", "parse_query"]

Scalar = str | int | float | bool
_STATS = ("count", "sum", "mean", "variance", "quantile", "median", "histogram")


class QuerySpec(BaseModel):
    """One DP statistic (see the module docstring for every key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stat: Literal["count", "sum", "mean", "variance", "quantile", "median", "histogram"]
    column: str | None = None
    epsilon: float = Field(gt=0, allow_inf_nan=False)
    delta: float = Field(0.0, ge=0, lt=1)
    mechanism: Literal["laplace", "gaussian"] = "laplace"
    bounds: tuple[float, float] | None = None
    by: str | None = None
    categories: tuple[Scalar, ...] | None = Field(None, min_length=1)
    bins: tuple[float, ...] | None = Field(None, min_length=2)
    q: tuple[float, ...] | None = None
    candidates: int = Field(101, ge=2, le=100_000)
    size: int | None = Field(None, ge=1)
    size_share: float = Field(0.1, gt=0, lt=1)
    id_column: str | None = None
    max_contributions: int = Field(1, ge=1)
    max_groups: int | None = Field(None, ge=1)
    confidence: float = Field(0.95, gt=0, lt=1)
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("q"), int | float):
            data = {**data, "q": (data["q"],)}
        return data

    @model_validator(mode="after")
    def _check(self) -> QuerySpec:
        s = self.stat
        needs_column = s in ("sum", "mean", "variance", "quantile", "median", "histogram")
        if needs_column and not self.column:
            raise ValueError(f"{s} needs a column")
        if s in ("sum", "mean", "variance", "quantile", "median") and self.bounds is None:
            raise ValueError(f"{s} needs public bounds=[lower, upper]")
        if self.bounds is not None:
            lo, hi = self.bounds
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError("bounds must be finite with lower < upper")
        if self.mechanism == "gaussian" and self.delta <= 0:
            raise ValueError("the gaussian mechanism needs delta > 0")
        if self.mechanism == "laplace" and self.delta > 0:
            raise ValueError("delta is only used by mechanism: gaussian (laplace is pure DP)")
        if self.by is not None:
            if s not in ("count", "sum"):
                raise ValueError("'by' (group-by) works with count and sum")
            if self.categories is None:
                raise ValueError(
                    "a group-by needs its public keys in 'categories' "
                    "(keys taken from the data would reveal who is in it)"
                )
        if s == "histogram":
            if (self.categories is None) == (self.bins is None):
                raise ValueError("a histogram needs exactly one of 'categories' or 'bins'")
            if self.bins is not None and list(self.bins) != sorted(set(self.bins)):
                raise ValueError("histogram bins must be strictly increasing edges")
        elif self.bins is not None:
            raise ValueError("'bins' is only for histogram")
        if s == "quantile":
            if not self.q:
                raise ValueError("quantile needs q (a number or list of numbers in [0, 1])")
            if any(not 0 <= x <= 1 for x in self.q):
                raise ValueError("every q must be in [0, 1]")
        elif self.q is not None and s != "median":
            raise ValueError("'q' is only for quantile")
        if self.max_contributions > 1 and self.id_column is None:
            raise ValueError("max_contributions needs id_column (who owns each row)")
        if self.max_groups is not None and not (s == "sum" and self.by):
            raise ValueError("max_groups is only for a group-by sum")
        return self

    @property
    def quantiles(self) -> tuple[float, ...]:
        if self.stat == "median":
            return (0.5,)
        return self.q or ()

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        args = [repr(self.column)] if self.column else []
        if self.by:
            args.append(f"by={self.by!r}")
        if self.stat == "quantile":
            args.append(f"q={list(self.quantiles)}")
        return f"{self.stat}({', '.join(args)})"

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_defaults=True) | {
            "stat": self.stat,
            "epsilon": self.epsilon,
        }


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):  # a bare word: a column name or a keyword like laplace
        return node.id
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e) for e in node.elts]
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise InputError(
            "a query argument must be a name, number, string or list",
            hint="e.g. mean(age, bounds=[17, 90], epsilon=0.5)",
        ) from None


def _from_text(text: str) -> dict[str, Any]:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise InputError(
            "the query is not of the form stat(column, key=value, ...)",
            hint="e.g. mean(age, bounds=[17, 90], epsilon=0.5), or a JSON object",
        ) from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise InputError("the query must be one call like mean(age, bounds=[17, 90], epsilon=0.5)")
    if call.func.id not in _STATS:
        raise InputError(
            f"unknown statistic {call.func.id!r}", hint=f"use one of: {', '.join(_STATS)}"
        )
    out: dict[str, Any] = {"stat": call.func.id}
    if len(call.args) > 1:
        raise InputError("a query takes at most one positional argument (the column)")
    if call.args:
        col = _literal(call.args[0])
        if not isinstance(col, str):
            raise InputError("the column must be a name or a quoted string")
        out["column"] = col
    for kw in call.keywords:
        if kw.arg is None:
            raise InputError("'**' is not allowed in a query")
        out[kw.arg] = _literal(kw.value)
    return out


def parse_query(
    spec: str | dict[str, Any] | QuerySpec, *, epsilon: float | None = None
) -> QuerySpec:
    """Parse a query from its text, JSON text, or dict form.

    Parameters
    ----------
    spec
        ``"mean(age, bounds=[17, 90], epsilon=0.5)"``, ``'{"stat": "mean", ...}'`` or a dict.
    epsilon
        Default epsilon when the spec gives none.

    Examples
    --------
    >>> q = parse_query("mean(age, bounds=[17, 90], epsilon=0.5)")
    >>> q.stat, q.column, q.bounds, q.epsilon
    ('mean', 'age', (17.0, 90.0), 0.5)
    >>> parse_query({"stat": "count", "epsilon": 1}).label
    'count()'
    """
    if isinstance(spec, QuerySpec):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except ValueError:
                raise InputError("the query looks like JSON but does not parse") from None
        else:
            data = _from_text(text)
    elif isinstance(spec, dict):
        data = dict(spec)
    else:
        raise InputError(f"a query is a string or a dict, got {type(spec).__name__}")
    if not isinstance(data, dict):
        raise InputError("a JSON query must be an object")
    if "epsilon" not in data and epsilon is not None:
        data["epsilon"] = epsilon
    try:
        return QuerySpec.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'query'}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(
            f"invalid DP query: {problems}",
            hint="see docs/differential-privacy.md for the query keys",
        ) from None


def parse_queries(specs: Any) -> list[QuerySpec]:
    """Parse a list of queries; every problem is reported with its index."""
    if isinstance(specs, str | dict | QuerySpec):
        specs = [specs]
    out = []
    for i, s in enumerate(specs):
        try:
            out.append(parse_query(s))
        except InputError as exc:
            raise InputError(f"query {i}: {exc.message}", hint=exc.hint) from None
    return out
