"""Constraints that every synthetic row must satisfy.

Constraints are enforced by rejection: the synthesizer draws candidate rows, drops those
that break a constraint and draws again, so the rows kept follow the model conditioned on
the constraints. Rejection needs no change to any model and works for every synthesizer;
its cost grows as the model puts less mass on valid rows, and sampling fails with a clear
error when too few valid rows appear (see :func:`enforce`).

Missing values: a constraint involving a missing value is treated as satisfied (SQL's
``CHECK`` semantics), so missing values stay possible where the data had them.

Examples
--------
>>> import pandas as pd
>>> Inequality("start", "end").valid(pd.DataFrame({"start": [1, 3], "end": [2, 2]})).tolist()
[True, False]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil._numeric import coerce_numbers

__all__ = [
    "AllowedCombinations",
    "Constraint",
    "Inequality",
    "Range",
    "check_constraints",
    "constraint_from_dict",
    "enforce",
    "parse_constraint",
]


class Constraint:
    """Base class: ``valid(df)`` returns a boolean mask of rows that satisfy it."""

    kind: ClassVar[str] = ""

    @property
    def columns(self) -> tuple[str, ...]:
        raise NotImplementedError

    def valid(self, df: pd.DataFrame) -> np.ndarray:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _num(s: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(s):
        return s.astype("int64").where(s.notna())
    return coerce_numbers(s)


@dataclass(frozen=True)
class Inequality(Constraint):
    """``low < high`` (or ``low <= high`` when ``strict=False``) on every row."""

    low: str
    high: str
    strict: bool = False
    kind: ClassVar[str] = "inequality"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.low, self.high)

    def valid(self, df: pd.DataFrame) -> np.ndarray:
        a, b = _num(df[self.low]), _num(df[self.high])
        ok = (a < b) if self.strict else (a <= b)
        return np.asarray(ok | a.isna() | b.isna(), dtype=bool)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "low": self.low, "high": self.high, "strict": self.strict}

    def describe(self) -> str:
        return f"{self.low} {'<' if self.strict else '<='} {self.high}"


@dataclass(frozen=True)
class Range(Constraint):
    """``low <= column <= high``; either bound may be ``None`` (unbounded)."""

    column: str
    low: float | None = None
    high: float | None = None
    kind: ClassVar[str] = "range"

    def __post_init__(self) -> None:
        if self.low is None and self.high is None:
            raise InputError(f"range constraint on {self.column!r} needs a low or high bound")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise InputError(f"range constraint on {self.column!r} has low > high")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def valid(self, df: pd.DataFrame) -> np.ndarray:
        x = _num(df[self.column])
        ok = pd.Series(True, index=df.index)
        if self.low is not None:
            ok &= x >= self.low
        if self.high is not None:
            ok &= x <= self.high
        return np.asarray(ok | x.isna(), dtype=bool)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "column": self.column, "low": self.low, "high": self.high}

    def describe(self) -> str:
        lo = "" if self.low is None else f"{self.low:g} <= "
        hi = "" if self.high is None else f" <= {self.high:g}"
        return f"{lo}{self.column}{hi}"


@dataclass(frozen=True)
class AllowedCombinations(Constraint):
    """The values of ``columns`` on a row must be one of ``combinations``.

    The combinations are given by the caller (a public rule such as which ``workclass``
    goes with which ``occupation``); veil never reads them from the data, which would
    publish every combination present.
    """

    column_names: tuple[str, ...]
    combinations: tuple[tuple[Any, ...], ...]
    kind: ClassVar[str] = "allowed"

    def __post_init__(self) -> None:
        if len(self.column_names) < 2:
            raise InputError("an allowed-combinations constraint needs at least two columns")
        if not self.combinations:
            raise InputError("an allowed-combinations constraint needs at least one combination")
        for combo in self.combinations:
            if len(combo) != len(self.column_names):
                raise InputError(f"each allowed combination needs {len(self.column_names)} values")

    @property
    def columns(self) -> tuple[str, ...]:
        return self.column_names

    def valid(self, df: pd.DataFrame) -> np.ndarray:
        sub = df[list(self.column_names)]
        allowed = pd.MultiIndex.from_tuples([tuple(c) for c in self.combinations])
        keys = pd.MultiIndex.from_frame(sub.astype(object))
        ok = keys.isin(allowed)
        return np.asarray(ok | sub.isna().any(axis=1).to_numpy(), dtype=bool)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "columns": list(self.column_names),
            "combinations": [list(c) for c in self.combinations],
        }

    def describe(self) -> str:
        return f"({', '.join(self.column_names)}) in {len(self.combinations)} allowed combinations"


def constraint_from_dict(d: Mapping[str, Any]) -> Constraint:
    """Rebuild a constraint from :meth:`Constraint.to_dict` output (or a JSON file)."""
    kind = d.get("kind")
    try:
        if kind == "inequality":
            return Inequality(str(d["low"]), str(d["high"]), bool(d.get("strict", False)))
        if kind == "range":
            lo, hi = d.get("low"), d.get("high")
            return Range(
                str(d["column"]),
                None if lo is None else float(lo),
                None if hi is None else float(hi),
            )
        if kind == "allowed":
            return AllowedCombinations(
                tuple(str(c) for c in d["columns"]),
                tuple(tuple(c) for c in d["combinations"]),
            )
    except KeyError as exc:
        raise InputError(f"constraint of kind {kind!r} lacks the key {exc.args[0]!r}") from None
    raise InputError(f"unknown constraint kind {kind!r}", hint="use inequality, range or allowed")


_CMP = re.compile(r"^\s*([^<>=\s]+)\s*(<=|<)\s*([^<>=\s]+)\s*(?:(<=|<)\s*([^<>=\s]+)\s*)?$")


def _float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def parse_constraint(text: str) -> Constraint:
    """Parse ``"a <= b"``, ``"a < b"``, ``"0 <= a <= 100"``, ``"a <= 100"`` or ``"18 <= a"``.

    Examples
    --------
    >>> parse_constraint("0 <= age <= 120").describe()
    '0 <= age <= 120'
    """
    m = _CMP.match(text)
    if not m:
        raise InputError(
            "cannot parse the constraint (expected 'a <= b' or 'low <= col <= high')",
            hint="for allowed combinations use a JSON constraints file",
        )
    a, op1, b, _op2, c = m.groups()
    fa, fb = _float(a), _float(b)
    if c is not None:
        fc = _float(c)
        if fa is None or fb is not None or fc is None:
            raise InputError("a two-sided constraint must read 'low <= column <= high'")
        return Range(b, fa, fc)
    if fa is None and fb is None:
        return Inequality(a, b, strict=op1 == "<")
    if fa is None and fb is not None:
        return Range(a, None, fb)
    if fa is not None and fb is None:
        return Range(b, fa, None)
    raise InputError("a constraint must name at least one column")


def check_constraints(df: pd.DataFrame, constraints: Sequence[Constraint]) -> None:
    """Raise :class:`InputError` if the (training) data itself violates a constraint.

    The message gives the constraint and the number of violating rows, never a value.
    """
    for con in constraints:
        missing = [c for c in con.columns if c not in df.columns]
        if missing:
            raise SchemaError(
                f"constraint {con.describe()!r} names column(s) not in the data: "
                f"{', '.join(missing)}"
            )
        bad = int((~con.valid(df)).sum())
        if bad:
            raise InputError(
                f"the training data violates the constraint {con.describe()!r} on {bad} of "
                f"{len(df)} rows",
                hint="fix or drop those rows first, or relax the constraint",
            )


def enforce(
    draw: Callable[[int], pd.DataFrame],
    n: int,
    constraints: Sequence[Constraint],
    *,
    max_rounds: int = 50,
) -> pd.DataFrame:
    """Draw rows with ``draw(k)`` until ``n`` rows satisfy every constraint.

    Raises
    ------
    InputError
        When fewer than ``n`` valid rows appear after ``max_rounds`` draws (the model puts
        almost no mass on rows satisfying the constraints).
    """
    if not constraints:
        return draw(n).reset_index(drop=True)
    kept: list[pd.DataFrame] = []
    have = 0
    rate = 1.0
    for _ in range(max_rounds):
        want = n - have
        k = int(min(max(want / max(rate, 0.01) * 1.1 + 16, want), 20 * n + 1000))
        batch = draw(k)
        ok = np.ones(len(batch), dtype=bool)
        for con in constraints:
            ok &= con.valid(batch)
        rate = max(float(ok.mean()), 1e-3) if len(batch) else rate
        good = batch.loc[ok]
        kept.append(good)
        have += len(good)
        if have >= n:
            return pd.concat(kept, ignore_index=True).iloc[:n].reset_index(drop=True)
    raise InputError(
        f"only {have} of {n} sampled rows satisfy the constraints after {max_rounds} rounds",
        hint="the model rarely produces valid rows; check that the constraints hold in the data",
    )
