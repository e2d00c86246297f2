"""The field-transformer contract shared by every column transform, and its registry.

A field transformer follows the scikit-learn estimator contract: ``__init__`` only stores
its parameters, :meth:`~FieldTransformer.fit` learns state into attributes ending in
``_``, :meth:`~FieldTransformer.transform` applies it, and reversible transformers offer
``inverse_transform``. A single-column transformer takes and returns a
:class:`pandas.Series`; a multi-column one (date shift, geo masking) takes a frame holding
:attr:`~FieldTransformer.columns_in` and returns it with :attr:`columns_out` replaced.

Missing values pass through as missing. Errors name the column and count the offending
values; they never quote one.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError, VeilError
from veil._numeric import coerce_numbers
from veil._registry import Registry
from veil.tabular._keys import Purpose, Secret, resolve_key

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["TRANSFORMS", "FieldTransformer", "canonical_text", "column_label", "to_numbers"]

TRANSFORMS: Registry[type[FieldTransformer]] = Registry("transform")


def column_label(series: pd.Series) -> str:
    """The column's name for messages ("<unnamed>" for an anonymous series)."""
    return "<unnamed>" if series.name is None else str(series.name)


def _canon_one(value: Any) -> str:
    if (
        isinstance(value, float | np.floating)
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        return str(int(value))
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    return str(value)


def canonical_text(values: pd.Series) -> pd.Series:
    """Text form of non-missing values: ``12``, ``12.0`` and ``"12"`` all become ``"12"``.

    Integer columns that gained a missing value are read by pandas as floats; keyed
    transforms must still map the same id to the same output, so integral floats lose
    their ``.0``. Call on non-missing values only.

    Examples
    --------
    >>> canonical_text(pd.Series([12.0, 7, "x"])).tolist()
    ['12', '7', 'x']
    """
    if pd.api.types.is_integer_dtype(values.dtype):
        return values.astype(str)
    return values.map(_canon_one).astype(object)


def to_numbers(series: pd.Series, *, transform: str) -> pd.Series:
    """Numeric view of a column; a non-numeric value is an error that counts, never quotes."""
    if pd.api.types.is_bool_dtype(series.dtype):
        raise InputError(
            f"column {column_label(series)!r}: the {transform!r} transform needs numbers, "
            "got booleans",
            hint="use it on a numeric column",
        )
    missing = series.isna()
    numbers = coerce_numbers(series)
    bad = int((numbers.isna() & ~missing).sum())
    if bad:
        raise InputError(
            f"column {column_label(series)!r}: {bad} of {len(series)} value(s) are not numbers; "
            f"the {transform!r} transform needs a numeric column",
            hint="clean the column, or choose a transform for text",
        ) from None
    return numbers.astype("float64")


class FieldTransformer:
    """Base of every column transform (see the module docstring for the contract)."""

    name: ClassVar[str] = ""
    #: whether ``inverse_transform`` recovers the input (with the key)
    reversible: ClassVar[bool] = False
    #: whether the transformer takes a frame of several columns rather than one series
    multi_column: ClassVar[bool] = False
    #: whether the transform removes its column from the release
    drops_column: ClassVar[bool] = False
    #: constructor parameters that hold secrets: hidden from ``repr`` and ``get_params``
    _secret_params: ClassVar[tuple[str, ...]] = ()

    # -- scikit-learn conveniences -----------------------------------------------------

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor parameters (secrets shown as their ``repr``, never their bytes)."""
        return {p: getattr(self, p) for p in self._param_names()}

    def __repr__(self) -> str:
        parts = []
        for p in self._param_names():
            value = getattr(self, p)
            shown = "<secret>" if p in self._secret_params and value is not None else repr(value)
            parts.append(f"{p}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"

    # -- building from the policy ---------------------------------------------------------

    #: what the ``key`` parameter is used for ("hmac" or "aes"); ``None``: no key
    key_purpose: ClassVar[Purpose | None] = None

    @classmethod
    def from_config(
        cls,
        config: BaseModel,
        *,
        column: str,
        base_dir: Path | None = None,
        environ: dict[str, str] | None = None,
    ) -> Self:
        """Build the transformer a policy's ``transform:`` describes for ``column``.

        Parameters named like the config's fields are copied; ``column`` (or
        ``latitude_column``) is the policy column; ``key`` is resolved from the config's
        ``key_env``/``key_file`` (so a missing key fails here, before data is read).
        """
        params = cls._param_names()
        fields = type(config).model_fields
        kwargs: dict[str, Any] = {p: getattr(config, p) for p in params if p in fields}
        for p in ("column", "latitude_column"):
            if p in params:
                kwargs[p] = column
        if "key" in params and cls.key_purpose is not None:
            kwargs["key"] = resolve_key(
                key_env=getattr(config, "key_env", None),
                key_file=getattr(config, "key_file", None),
                column=column,
                transform=cls.name,
                purpose=cls.key_purpose,
                base_dir=base_dir,
                environ=environ,
            )
        return cls(**kwargs)

    def key_checks(self) -> dict[str, str]:
        """Check values of the secrets this transform uses (``{"key_check": ...}``; empty
        when unkeyed), recorded with the release so a wrong key can be told later."""
        key = getattr(self, "key", None) if self.key_purpose is not None else None
        if key is None:
            return {}
        secret = key if isinstance(key, Secret) else Secret(bytes(key))
        return {"key_check": secret.check_value()}

    # -- columns -----------------------------------------------------------------------

    @property
    def columns_in(self) -> list[str]:
        """Columns read by a multi-column transformer (its constructor names them)."""
        return []

    @property
    def columns_out(self) -> list[str]:
        """Columns a multi-column transformer replaces."""
        return []

    def _series(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        if isinstance(X, pd.DataFrame):
            if X.shape[1] != 1:
                raise InputError(
                    f"the {self.name!r} transform takes one column, got a frame of {X.shape[1]}",
                    hint="pass a Series, or select the one column",
                )
            return X.iloc[:, 0]
        if not isinstance(X, pd.Series):
            raise InputError(
                f"the {self.name!r} transform takes a pandas Series, got {type(X).__name__}"
            )
        return X

    def _frame(self, X: pd.DataFrame) -> pd.DataFrame:
        if not isinstance(X, pd.DataFrame):
            raise InputError(
                f"the {self.name!r} transform takes a DataFrame with columns "
                f"{', '.join(self.columns_in)}, got {type(X).__name__}"
            )
        missing = [c for c in self.columns_in if c not in X.columns]
        if missing:
            raise SchemaError(
                f"the {self.name!r} transform needs column(s) {', '.join(missing)}, "
                "which the data lacks",
                hint="check the column names in the policy",
            )
        return X

    def _check_fitted(self, *attrs: str) -> None:
        for attr in attrs:
            if not hasattr(self, attr):
                raise VeilError(
                    f"this {type(self).__name__} is not fitted yet",
                    hint="call fit (or fit_transform) first",
                )

    # -- the contract ------------------------------------------------------------------

    def fit(self, X: Any, y: object = None) -> Self:
        """Learn what the transform needs from the column; returns ``self``."""
        if self.multi_column:
            self._frame(X)
        else:
            self._series(X)
        self.fitted_ = True
        return self

    def transform(self, X: Any) -> Any:
        raise NotImplementedError

    def fit_transform(self, X: Any, y: object = None) -> Any:
        return self.fit(X, y).transform(X)

    def summarize(self, before: Any, after: Any) -> dict[str, int | float | str]:
        """Counts for the report (never values): rows, missing and changed cells."""
        if self.multi_column:
            cols = self.columns_out
            b, a = before[cols], after[cols]
            missing = int(b.isna().any(axis=1).sum())
            changed = int(((b != a) & ~(b.isna() & a.isna())).any(axis=1).sum())
            return {"rows": len(b), "missing": missing, "changed": changed}
        b, a = before, after
        missing = int(b.isna().sum())
        if self.drops_column:
            return {"rows": len(b), "missing": missing}
        changed = int(((b.astype(object) != a.astype(object)) & ~b.isna()).sum())
        return {"rows": len(b), "missing": missing, "changed": changed}
