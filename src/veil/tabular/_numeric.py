"""Numeric transforms: top/bottom coding, and additive random noise (not differential privacy)."""

from __future__ import annotations

from typing import Self

import numpy as np
import pandas as pd

from veil._errors import InputError, PolicyError
from veil.tabular._base import TRANSFORMS, FieldTransformer, column_label, to_numbers

__all__ = ["AdditiveNoiseTransformer", "TopBottomCodeTransformer"]


def _restore_int(values: pd.Series, original: pd.Series) -> pd.Series:
    """Give integer columns their integer type back when every value is still whole."""
    if not pd.api.types.is_integer_dtype(original.dtype):
        return values
    present = values.notna()
    if not np.all(np.mod(values[present].to_numpy(), 1) == 0):
        return values
    if present.all():
        return values.astype(original.dtype)
    return values.astype("Int64")


@TRANSFORMS.register("top_bottom_code")
class TopBottomCodeTransformer(FieldTransformer):
    """Clip numbers to ``[lower_, upper_]``, given as values or learned as quantiles in ``fit``.

    Quantiles are taken over the non-missing values with ``method="nearest"``, so a learned
    bound is a value of the column. Integer columns stay integer where they can.

    Privacy semantics: hides the extremes (the one very high income, the 104-year-old), which
    are the values most likely to single someone out; everything between the bounds is
    released as is. The bounds themselves are visible in the release (the clipped values).

    Examples
    --------
    >>> s = pd.Series([1, 5, 9, 250], name="income")
    >>> TopBottomCodeTransformer(upper=100).fit_transform(s).tolist()
    [1, 5, 9, 100]
    """

    name = "top_bottom_code"

    def __init__(
        self,
        lower: float | None = None,
        upper: float | None = None,
        lower_quantile: float | None = None,
        upper_quantile: float | None = None,
    ) -> None:
        self.lower = lower
        self.upper = upper
        self.lower_quantile = lower_quantile
        self.upper_quantile = upper_quantile

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        series = self._series(X)
        if self.lower is not None and self.lower_quantile is not None:
            raise PolicyError("top_bottom_code: give 'lower' or 'lower_quantile', not both")
        if self.upper is not None and self.upper_quantile is not None:
            raise PolicyError("top_bottom_code: give 'upper' or 'upper_quantile', not both")
        if all(
            v is None for v in (self.lower, self.upper, self.lower_quantile, self.upper_quantile)
        ):
            raise PolicyError("top_bottom_code: give at least one bound")
        for q in (self.lower_quantile, self.upper_quantile):
            if q is not None and not 0 <= q <= 1:
                raise PolicyError("top_bottom_code: quantiles must be between 0 and 1")
        numbers = to_numbers(series, transform=self.name).dropna().to_numpy()
        needs_data = self.lower_quantile is not None or self.upper_quantile is not None
        if needs_data and numbers.size == 0:
            raise InputError(
                f"column {column_label(series)!r}: no values to learn quantile bounds from"
            )

        def bound(value: float | None, q: float | None) -> float | None:
            if value is not None:
                return float(value)
            if q is not None:
                return float(np.quantile(numbers, q, method="nearest"))
            return None

        self.lower_ = bound(self.lower, self.lower_quantile)
        self.upper_ = bound(self.upper, self.upper_quantile)
        if self.lower_ is not None and self.upper_ is not None and self.lower_ > self.upper_:
            raise PolicyError(
                f"top_bottom_code on {column_label(series)!r}: the lower bound is above the upper"
            )
        return super().fit(X, y)

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("lower_", "upper_")
        series = self._series(X)
        numbers = to_numbers(series, transform=self.name)
        return _restore_int(numbers.clip(self.lower_, self.upper_), series)

    def summarize(self, before: pd.Series, after: pd.Series) -> dict[str, int | float | str]:
        counts = super().summarize(before, after)
        numbers = to_numbers(before, transform=self.name)
        counts["bottom_coded"] = (
            int((numbers < self.lower_).sum()) if self.lower_ is not None else 0
        )
        counts["top_coded"] = int((numbers > self.upper_).sum()) if self.upper_ is not None else 0
        return counts


@TRANSFORMS.register("noise")
class AdditiveNoiseTransformer(FieldTransformer):
    """Add seeded random noise to numbers: ``normal`` (std ``scale``) or ``uniform`` (±``scale``).

    With ``relative`` the scale is a fraction of the column's standard deviation, learned
    in ``fit`` as ``scale_``. ``round_to`` rounds the result (``0`` keeps integer columns
    integer). Noise comes from ``numpy.random.default_rng(seed)``; the same seed and data
    give the same output.

    Privacy semantics: **this is NOT differential privacy** and claims no epsilon. It
    perturbs individual values so an exact match on the column fails, which is all it
    does. Its scale is not calibrated to any sensitivity (with ``relative`` it even depends
    on the data), it comes from a non-cryptographic generator, and it averages out over
    repeated releases and in aggregates; outliers stay outliers. Whoever knows the seed can
    subtract it: omit ``seed`` (fresh OS entropy) for a release, or keep the policy secret.
    For formal guarantees use the dp stage (OpenDP).

    Examples
    --------
    >>> s = pd.Series([30.0, None, 50.0], name="age")
    >>> out = AdditiveNoiseTransformer(scale=2.0, seed=0).fit_transform(s)
    >>> bool(out.isna()[1]), bool(out[0] != 30.0)
    (True, True)
    """

    name = "noise"

    def __init__(
        self,
        scale: float = 1.0,
        distribution: str = "normal",
        relative: bool = False,
        seed: int | None = None,
        round_to: int | None = None,
    ) -> None:
        self.scale = scale
        self.distribution = distribution
        self.relative = relative
        self.seed = seed
        self.round_to = round_to

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        series = self._series(X)
        if self.distribution not in ("normal", "uniform"):
            raise PolicyError("noise: distribution must be 'normal' or 'uniform'")
        if not self.scale > 0:
            raise PolicyError("noise: scale must be above 0")
        if self.round_to is not None and self.round_to < 0:
            raise PolicyError("noise: round_to must be 0 or more")
        numbers = to_numbers(series, transform=self.name)
        if self.relative:
            spread = float(numbers.std(ddof=1))
            if not np.isfinite(spread) or spread == 0.0:
                raise InputError(
                    f"column {column_label(series)!r}: relative noise needs at least two "
                    "different values (the column's standard deviation is 0 or undefined)",
                    hint="set relative: false and give scale in the column's units",
                )
            self.scale_ = float(self.scale) * spread
        else:
            self.scale_ = float(self.scale)
        return super().fit(X, y)

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("scale_")
        series = self._series(X)
        numbers = to_numbers(series, transform=self.name)
        present = numbers.notna().to_numpy()
        rng = np.random.default_rng(self.seed)
        n = int(present.sum())
        if self.distribution == "normal":
            draws = rng.normal(0.0, self.scale_, n)
        else:
            draws = rng.uniform(-self.scale_, self.scale_, n)
        values = numbers.to_numpy(copy=True)
        values[present] += draws
        if self.round_to is not None:
            values = np.round(values, self.round_to)
        out = pd.Series(values, index=series.index, name=series.name)
        if self.round_to == 0:
            out = _restore_int(out, series)
        return out
