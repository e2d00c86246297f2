"""What each column of a table is, as the synthesizers see it, and the checks on bad input.

A :class:`TableSchema` is inferred from the training table (or partly declared by the
caller) and saved with a fitted model. It holds only types, category lists and numeric
bounds, never rows. For the DP synthesizers the *domain* (category lists, bounds) is
public knowledge by assumption; pass ``categories=`` / ``bounds=`` to declare it instead
of reading it from the data (see ``docs/synthetic-data.md``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil._numeric import coerce_numbers

__all__ = ["ColumnSpec", "TableSchema", "infer_schema"]

log = logging.getLogger(__name__)

Kind = Literal["numeric", "integer", "categorical", "datetime", "boolean", "constant", "empty"]
_DECLARABLE = ("numeric", "integer", "categorical", "datetime", "boolean")


@dataclass
class ColumnSpec:
    """One column: its kind, categories or bounds, and whether it has missing values.

    ``constant`` and ``empty`` (all missing) columns are not modelled: they are written
    back as they were (one value, or all missing).
    """

    name: str
    kind: Kind
    categories: list[Any] = field(default_factory=list)
    low: float | None = None
    high: float | None = None
    missing_rate: float = 0.0
    dtype: str = "object"
    decimals: int | None = None

    @property
    def has_missing(self) -> bool:
        return self.missing_rate > 0

    @property
    def modelled(self) -> bool:
        return self.kind not in ("constant", "empty")

    @property
    def continuous(self) -> bool:
        return self.kind in ("numeric", "integer", "datetime")


@dataclass
class TableSchema:
    """The columns of a table, in order, and notes about how bad input was handled."""

    columns: list[ColumnSpec]
    notes: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def modelled(self) -> list[ColumnSpec]:
        return [c for c in self.columns if c.modelled]

    def __getitem__(self, name: str) -> ColumnSpec:
        for c in self.columns:
            if c.name == name:
                return c
        raise SchemaError(f"no column named {name!r} in the fitted schema")

    def to_dict(self) -> dict[str, Any]:
        return {"columns": [asdict(c) for c in self.columns], "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TableSchema:
        return cls(columns=[ColumnSpec(**c) for c in d["columns"]], notes=list(d.get("notes", [])))

    def check_frame(self, df: pd.DataFrame) -> None:
        """Raise :class:`SchemaError` unless ``df`` has exactly the schema's columns."""
        missing = [n for n in self.names if n not in df.columns]
        if missing:
            raise SchemaError(
                f"{len(missing)} column(s) of the model are missing from the data: "
                f"{', '.join(missing)}"
            )


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return value


def _looks_like_identifier(s: pd.Series, n: int) -> bool:
    """Free-form strings with mostly distinct values (names, e-mails, record numbers)."""
    nunique = int(s.nunique(dropna=True))
    return n >= 20 and nunique > max(50, 0.5 * n)


def infer_schema(
    df: pd.DataFrame,
    *,
    declared: Mapping[str, str] | None = None,
    categories: Mapping[str, Sequence[Any]] | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    max_categories: int = 1000,
) -> TableSchema:
    """Infer the :class:`TableSchema` of a training table and check it for bad input.

    Parameters
    ----------
    df
        The training table. Columns meant to be left out must be dropped beforehand.
    declared
        Column -> kind (``numeric``, ``integer``, ``categorical``, ``datetime``,
        ``boolean``) overriding inference. Declaring a high-cardinality string column
        ``categorical`` is how a caller accepts it.
    categories, bounds
        The public domain of columns (category lists; numeric ``(low, high)``). Values
        outside a declared domain are an error.
    max_categories
        More distinct values than this in an undeclared string column is refused.

    Raises
    ------
    InputError
        Empty table, a likely identifier column (mostly distinct strings) that is
        neither dropped nor declared, or data outside a declared domain.

    Examples
    --------
    >>> import pandas as pd
    >>> s = infer_schema(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]}))
    >>> [c.kind for c in s.columns]
    ['integer', 'categorical']
    """
    declared = dict(declared or {})
    categories = dict(categories or {})
    bounds = dict(bounds or {})
    n = len(df)
    if n == 0 or df.shape[1] == 0:
        raise InputError(
            f"cannot fit a synthesizer on an empty table ({n} rows, {df.shape[1]} columns)"
        )
    for name, declared_kind in declared.items():
        if declared_kind not in _DECLARABLE:
            raise InputError(
                f"column {name!r}: unknown declared kind {declared_kind!r}",
                hint=f"use one of {', '.join(_DECLARABLE)}",
            )
    unknown = [c for c in [*declared, *categories, *bounds] if c not in df.columns]
    if unknown:
        raise SchemaError(f"declared column(s) not in the data: {', '.join(sorted(set(unknown)))}")

    specs: list[ColumnSpec] = []
    notes: list[str] = []
    refused: list[str] = []
    for raw_name in df.columns:
        name = str(raw_name)
        s = df[raw_name]
        miss = float(s.isna().mean())
        dtype = str(s.dtype)
        nonnull = s.dropna()
        kind: str | None = declared.get(name)
        if nonnull.empty:
            specs.append(ColumnSpec(name, "empty", missing_rate=1.0, dtype=dtype))
            notes.append(f"column {name!r} is entirely missing: written back as missing")
            continue
        if kind is None:
            if pd.api.types.is_bool_dtype(s):
                kind = "boolean"
            elif pd.api.types.is_datetime64_any_dtype(s):
                kind = "datetime"
            elif pd.api.types.is_integer_dtype(s) or (
                pd.api.types.is_float_dtype(s) and np.all(np.mod(nonnull.to_numpy(), 1) == 0)
            ):
                kind = "integer"
            elif pd.api.types.is_numeric_dtype(s):
                kind = "numeric"
            else:
                kind = "categorical"
                if name not in categories and _looks_like_identifier(nonnull, n):
                    refused.append(name)
                    continue
        if nonnull.nunique() == 1 and name not in categories and name not in bounds:
            specs.append(
                ColumnSpec(
                    name,
                    "constant",
                    categories=[_jsonable(nonnull.iloc[0])],
                    missing_rate=miss,
                    dtype=dtype,
                )
            )
            notes.append(f"column {name!r} has one distinct value: reproduced, not modelled")
            continue
        spec = ColumnSpec(name, kind, missing_rate=miss, dtype=dtype)  # type: ignore[arg-type]
        if kind in ("categorical", "boolean"):
            seen = pd.unique(nonnull)
            if name in categories:
                allowed = list(categories[name])
                outside = int((~nonnull.isin(allowed)).sum())
                if outside:
                    raise InputError(
                        f"column {name!r}: {outside} value(s) outside the declared categories"
                    )
                spec.categories = [_jsonable(v) for v in allowed]
            else:
                if len(seen) > max_categories and declared.get(name) != "categorical":
                    refused.append(name)
                    continue
                try:
                    seen = np.sort(np.asarray(seen))
                except TypeError:
                    seen = np.array(sorted(seen, key=str), dtype=object)
                spec.categories = [_jsonable(v) for v in seen]
        else:
            values = (
                nonnull.astype("int64").to_numpy(dtype=float)
                if kind == "datetime"
                else coerce_numbers(nonnull).to_numpy(dtype=float)
            )
            if np.isnan(values).any() or np.isinf(values).any():
                raise InputError(
                    f"column {name!r} was declared or inferred {kind} but has non-numeric "
                    "or infinite values",
                    hint="declare it categorical, or clean it",
                )
            lo, hi = float(values.min()), float(values.max())
            if (
                kind == "integer"
                and name not in declared
                and n >= 20
                and len(np.unique(values)) == len(values) == n
                and hi - lo + 1 <= 1.1 * n
            ):
                refused.append(name)  # a running number: a row identifier
                continue
            if kind == "integer" and name in declared:
                fractional = int((np.mod(values, 1) != 0).sum())
                if fractional:
                    raise InputError(
                        f"column {name!r} is declared integer but {fractional} of its "
                        f"{len(values)} value(s) have a fractional part",
                        hint="declare it numeric, or round the column first",
                    )
            if kind == "numeric":
                spec.decimals = _decimals(values)
            if name in bounds:
                blo, bhi = (float(b) for b in bounds[name])
                if not blo < bhi:
                    raise InputError(f"column {name!r}: declared bounds need low < high")
                outside = int(((values < blo) | (values > bhi)).sum())
                if outside * 2 > len(values):
                    raise InputError(
                        f"column {name!r}: the declared bounds exclude {outside} of its "
                        f"{len(values)} value(s), more than half",
                        hint="check the bounds (low:high) and the column's unit",
                    )
                if outside:
                    # the note is saved with the model: no exact count read from the data
                    notes.append(
                        f"column {name!r}: values outside the declared bounds are clipped to them"
                    )
                    log.info(
                        "column %r: %d value(s) outside the declared bounds are clipped",
                        name,
                        outside,
                    )
                lo, hi = blo, bhi
            spec.low, spec.high = lo, hi
        specs.append(spec)
    if refused:
        raise InputError(
            f"{len(refused)} column(s) look like identifiers (mostly distinct values): "
            f"{', '.join(refused)}; a synthesizer would copy or garble them",
            hint="drop them (--drop COL) or declare them categorical (--categorical COL)",
        )
    if not any(s.modelled for s in specs):
        raise InputError("no column varies: there is nothing to model")
    for note in notes:
        log.info(note)
    return TableSchema(columns=specs, notes=notes)


def _decimals(values: np.ndarray, most: int = 6) -> int | None:
    """The fewest decimals (at most ``most``) that write every value exactly; None if more."""
    for d in range(most + 1):
        scaled = values * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled))):
            return d
    return None


def clip_to_bounds(df: pd.DataFrame, schema: TableSchema) -> pd.DataFrame:
    """Numeric columns clipped to the schema's bounds (declared bounds may exclude values)."""
    out = df
    for spec in schema.modelled:
        if spec.kind not in ("numeric", "integer") or spec.low is None or spec.high is None:
            continue
        x = coerce_numbers(df[spec.name])
        if ((x < spec.low) | (x > spec.high)).any():
            if out is df:
                out = df.copy()
            out[spec.name] = x.clip(spec.low, spec.high)
    return out


def restore_dtypes(df: pd.DataFrame, schema: TableSchema) -> pd.DataFrame:
    """Cast sampled columns back to the dtypes of the training table where possible."""
    out = {}
    for spec in schema.columns:
        s = df[spec.name]
        if spec.kind == "datetime":
            s = pd.to_datetime(s.astype("float64").round(), unit="ns")
        elif spec.kind == "integer":
            s = s.astype("float64").round()
            if spec.has_missing or s.isna().any():
                s = s.astype("Int64") if spec.dtype.startswith(("Int", "int")) else s
            else:
                try:
                    s = s.astype(pd.api.types.pandas_dtype(spec.dtype))
                except (TypeError, ValueError):
                    s = s.astype("int64")
        elif spec.kind == "numeric" and spec.decimals is not None:
            s = coerce_numbers(s).astype("float64").round(spec.decimals)
        elif spec.kind == "boolean" and not s.isna().any():
            s = s.astype(bool)
        out[spec.name] = s.reset_index(drop=True)
    return pd.DataFrame(out, columns=schema.names)
