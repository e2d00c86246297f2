"""Date transforms: generalization to a coarser period, and keyed per-entity date shifting."""

from __future__ import annotations

import hashlib
import hmac
import warnings
from typing import Self

import pandas as pd

from veil._errors import InputError, KeyMissingError, PolicyError
from veil.tabular._base import TRANSFORMS, FieldTransformer, canonical_text, column_label
from veil.tabular._basic import _as_secret
from veil.tabular._keys import HMAC_MIN_BYTES, Secret, derive_subkey, require_strong

__all__ = ["DateGeneralizeTransformer", "DateShiftTransformer", "to_dates"]

_PERIODS = {"day": "D", "month": "M", "quarter": "Q", "year": "Y"}


def to_dates(series: pd.Series, *, transform: str) -> pd.Series:
    """Parse a column as dates (``datetime64``); a value that is not a date is an error.

    Datetime columns are used as they are. Text is read as ISO 8601 first, then, for what
    is left, by ``dateutil``. Mixed UTC offsets are converted to UTC. The error counts the
    values that failed and never quotes one.
    """
    col = column_label(series)
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return series
    missing = series.isna()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dates = pd.to_datetime(series, format="ISO8601", errors="coerce")
            if not pd.api.types.is_datetime64_any_dtype(dates.dtype):
                dates = pd.to_datetime(series, format="ISO8601", errors="coerce", utc=True)
            retry = dates.isna() & ~missing
            if retry.any():
                again = pd.to_datetime(series[retry], format="mixed", errors="coerce")
                if not pd.api.types.is_datetime64_any_dtype(again.dtype) or (
                    getattr(again.dt, "tz", None) != getattr(dates.dt, "tz", None)
                ):
                    raise ValueError("mixed time zones")
                dates[retry] = again
        except (ValueError, TypeError, OverflowError):
            raise InputError(
                f"column {col!r}: cannot be read as dates (mixed types or time zones)",
                hint=f"give the {transform!r} transform ISO dates such as 2024-01-31",
            ) from None
    bad = int((dates.isna() & ~missing).sum())
    if bad:
        raise InputError(
            f"column {col!r}: {bad} of {len(series)} value(s) are not dates; the "
            f"{transform!r} transform needs a date column",
            hint="clean the column, or use ISO dates such as 2024-01-31",
        )
    return dates


@TRANSFORMS.register("date_generalize")
class DateGeneralizeTransformer(FieldTransformer):
    """Truncate dates to their day, month, quarter or year; output labels as text.

    Labels: ``2024-03-09`` (day), ``2024-03`` (month), ``2024Q1`` (quarter), ``2024``
    (year). Times and time zones are dropped (the local calendar date is kept).

    Privacy semantics: removes precision uniformly; a coarser date matches more people.
    It does not by itself bound how many share a value: combine it with k-anonymity for
    that. A rare year still singles someone out.

    Examples
    --------
    >>> s = pd.Series(["2024-03-09", None, "2023-12-31"], name="birth")
    >>> DateGeneralizeTransformer("quarter").fit_transform(s).tolist()
    ['2024Q1', None, '2023Q4']
    """

    name = "date_generalize"

    def __init__(self, level: str = "month") -> None:
        self.level = level

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        if self.level not in _PERIODS:
            raise PolicyError(
                f"date_generalize: unknown level {self.level!r}",
                hint=f"use one of: {', '.join(_PERIODS)}",
            )
        return super().fit(X, y)

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("fitted_")
        series = self._series(X)
        dates = to_dates(series, transform=self.name)
        if getattr(dates.dt, "tz", None) is not None:
            dates = dates.dt.tz_localize(None)
        out = series.astype(object).copy()  # missing values keep their marker
        present = dates.notna()
        out[present] = dates[present].dt.to_period(_PERIODS[self.level]).astype(str)
        return out


@TRANSFORMS.register("date_shift")
class DateShiftTransformer(FieldTransformer):
    """Shift each entity's dates by one keyed offset in ``[-max_days, max_days]`` days.

    The offset of an entity is ``HMAC-SHA256(k, id) mod (2 * max_days + 1) - max_days``
    where ``k`` is a subkey derived from the key for this purpose only (so a released keyed
    hash of the id says nothing about the offset) and ``id`` is the entity column's value as
    text. The same person therefore moves by the same number of days in every row, column,
    table and run made with the same key: intervals within a person are exact. Rows whose
    entity is missing get a missing date (counted in the report), since no consistent offset
    exists for them. Output is ``datetime64``; the time of day is kept.

    Privacy semantics: hides calendar dates (seasonality, linkage on an exact date such as
    an admission) up to ``max_days``; keeps durations, ages to within the shift and
    ordering within an entity. Anyone with the key can undo it (:meth:`inverse_transform`);
    an outside source that knows one true date of a person learns that person's offset, and
    with it all their dates.

    Examples
    --------
    >>> import secrets
    >>> from veil.tabular import Secret
    >>> df = pd.DataFrame({"visit": ["2024-01-01", "2024-01-11"], "pid": [7, 7]})
    >>> key = Secret(secrets.token_bytes(32))
    >>> t = DateShiftTransformer(key, column="visit", entity_column="pid")
    >>> out = t.fit_transform(df)
    >>> int((out["visit"][1] - out["visit"][0]).days)
    10
    """

    name = "date_shift"
    reversible = True
    multi_column = True
    key_purpose = "hmac"
    _secret_params = ("key",)

    def __init__(
        self,
        key: Secret | bytes | None = None,
        column: str = "date",
        entity_column: str = "id",
        max_days: int = 30,
    ) -> None:
        self.key = key
        self.column = column
        self.entity_column = entity_column
        self.max_days = max_days

    @property
    def columns_in(self) -> list[str]:
        return [self.column, self.entity_column]

    @property
    def columns_out(self) -> list[str]:
        return [self.column]

    def fit(self, X: pd.DataFrame, y: object = None) -> Self:
        key = _as_secret(self.key, transform=self.name, column=self.column)
        if key.nbytes < HMAC_MIN_BYTES:
            raise KeyMissingError(
                f"column {self.column!r}: the 'date_shift' key is {key.nbytes} bytes; an HMAC "
                f"key needs at least {HMAC_MIN_BYTES}",
                hint="make one with 'veil keygen --out FILE'",
            )
        require_strong(key, column=self.column, transform=self.name)
        if self.column == self.entity_column:
            raise PolicyError(
                f"date_shift on {self.column!r}: entity_column must be another column"
            )
        if not 1 <= self.max_days <= 3650:
            raise PolicyError("date_shift: max_days must be between 1 and 3650")
        self.offset_key_ = derive_subkey(key, "date_shift offset")
        return super().fit(X, y)

    def offsets(self, entities: pd.Series) -> pd.Series:
        """The offset in days of each row's entity (``<NA>`` where the entity is missing)."""
        self._check_fitted("offset_key_")
        key, span = self.offset_key_.reveal(), 2 * self.max_days + 1
        present = entities.notna()
        ids = canonical_text(entities[present])
        table = {
            v: int.from_bytes(
                hmac.new(key, v.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()[:8],
                "big",
            )
            % span
            - self.max_days
            for v in pd.unique(ids)
        }
        out = pd.Series(pd.NA, index=entities.index, dtype="Int64")
        out[present] = ids.map(table).astype("int64")
        return out

    def _shift(self, X: pd.DataFrame, sign: int) -> pd.DataFrame:
        self._check_fitted("offset_key_")
        frame = self._frame(X)
        dates = to_dates(frame[self.column], transform=self.name)
        days = self.offsets(frame[self.entity_column])
        delta = pd.to_timedelta(days.astype("float64") * sign, unit="D")
        out = frame.copy()
        try:
            out[self.column] = dates + delta  # a missing entity gives NaT
        except (OverflowError, pd.errors.OutOfBoundsDatetime):  # messages quote the date
            raise InputError(
                f"column {self.column!r}: shifting moves a date outside the supported range "
                "(years 1677 to 2262)",
                hint="check the column for placeholder dates such as 9999-12-31",
            ) from None
        return out

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        return self._shift(X, +1)

    def inverse_transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """Undo the shift (needs the key and the original entity ids)."""
        return self._shift(X, -1)

    def summarize(self, before: pd.DataFrame, after: pd.DataFrame) -> dict[str, int | float | str]:
        counts = super().summarize(before, after)
        offsets = self.offsets(before[self.entity_column])
        dated = before[self.column].notna()
        counts["changed"] = int((dated & offsets.notna() & (offsets != 0)).sum())
        counts["entity_missing"] = int(
            (before[self.entity_column].isna() & before[self.column].notna()).sum()
        )
        counts["entities"] = int(before[self.entity_column].nunique())
        return counts
