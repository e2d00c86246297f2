"""Pydantic models of the field transforms a policy column may name (``transform: {type: ...}``).

Each is frozen and forbids unknown keys (:class:`veil.policy._base._Model`); a keyed transform
names its key by environment variable or key file, never by value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from veil.policy._base import _Model

__all__ = [
    "DateGeneralizeTransform",
    "DateShiftTransform",
    "DropTransform",
    "GeoDisplaceTransform",
    "GeoRoundTransform",
    "HashTransform",
    "KeepTransform",
    "MaskTransform",
    "NoiseTransform",
    "TokenizeTransform",
    "TopBottomCodeTransform",
    "TransformConfig",
]


class _KeyedMixin(_Model):
    key_env: str | None = Field(None, description="environment variable holding the key")
    key_file: Path | None = Field(None, description="file holding the key")


class DropTransform(_Model):
    """Remove the column from the release."""

    type: Literal["drop"] = "drop"


class KeepTransform(_Model):
    """Keep the column as is (only sensible for non-identifiers)."""

    type: Literal["keep"] = "keep"


class MaskTransform(_Model):
    """Replace characters with a mask character, keeping the first/last N."""

    type: Literal["mask"] = "mask"
    keep_first: int = Field(0, ge=0)
    keep_last: int = Field(4, ge=0)
    char: str = Field("*", min_length=1, max_length=1)


class HashTransform(_KeyedMixin):
    """Keyed hash (HMAC-SHA256), hex output truncated to ``length`` characters."""

    type: Literal["hash"] = "hash"
    key_env: str | None = "VEIL_HMAC_KEY"
    length: int = Field(16, ge=8, le=64)


class TokenizeTransform(_KeyedMixin):
    """Format-preserving tokenization with FF3-1 (AES); reversible with the key."""

    type: Literal["tokenize"] = "tokenize"
    key_env: str | None = "VEIL_FPE_KEY"
    tweak_env: str | None = "VEIL_FPE_TWEAK"
    alphabet: Literal["digits", "lower", "upper", "alnum", "letters"] = "digits"
    keep_format: bool = Field(True, description="leave characters outside the alphabet in place")


class DateGeneralizeTransform(_Model):
    """Truncate dates to a day, month, quarter or year."""

    type: Literal["date_generalize"] = "date_generalize"
    level: Literal["day", "month", "quarter", "year"] = "month"


class DateShiftTransform(_KeyedMixin):
    """Shift dates by a keyed per-entity offset in [-max_days, max_days]."""

    type: Literal["date_shift"] = "date_shift"
    key_env: str | None = "VEIL_HMAC_KEY"
    entity_column: str
    max_days: int = Field(30, ge=1, le=3650)


class GeoRoundTransform(_Model):
    """Snap coordinates to a grid of ``grid`` degrees (applies to this column and its partner)."""

    type: Literal["geo_round"] = "geo_round"
    longitude_column: str
    grid: float = Field(0.01, gt=0, le=10)


class GeoDisplaceTransform(_Model):
    """Move each point a random distance in [min_radius_m, max_radius_m] (a donut), seeded."""

    type: Literal["geo_displace"] = "geo_displace"
    longitude_column: str
    min_radius_m: float = Field(100.0, ge=0)
    max_radius_m: float = Field(1000.0, gt=0)
    seed: int | None = None

    @model_validator(mode="after")
    def _radii(self) -> GeoDisplaceTransform:
        if self.min_radius_m >= self.max_radius_m:
            raise ValueError("min_radius_m must be below max_radius_m")
        return self


class TopBottomCodeTransform(_Model):
    """Clip numbers to [lower, upper], given as values or learned quantiles."""

    type: Literal["top_bottom_code"] = "top_bottom_code"
    lower: float | None = None
    upper: float | None = None
    lower_quantile: float | None = Field(None, ge=0, le=1)
    upper_quantile: float | None = Field(None, ge=0, le=1)

    @model_validator(mode="after")
    def _bounds(self) -> TopBottomCodeTransform:
        if self.lower is not None and self.lower_quantile is not None:
            raise ValueError("give 'lower' or 'lower_quantile', not both")
        if self.upper is not None and self.upper_quantile is not None:
            raise ValueError("give 'upper' or 'upper_quantile', not both")
        if all(
            v is None for v in (self.lower, self.upper, self.lower_quantile, self.upper_quantile)
        ):
            raise ValueError("give at least one bound")
        return self


class NoiseTransform(_Model):
    """Additive random noise, seeded. NOT differential privacy: no epsilon is claimed."""

    type: Literal["noise"] = "noise"
    distribution: Literal["normal", "uniform"] = "normal"
    scale: float = Field(gt=0, description="standard deviation (normal) or half-width (uniform)")
    relative: bool = Field(False, description="scale is a fraction of the column's std")
    seed: int | None = None
    round_to: int | None = Field(None, ge=0, description="decimals to round to, e.g. 0 for ints")


TransformConfig = Annotated[
    DropTransform
    | KeepTransform
    | MaskTransform
    | HashTransform
    | TokenizeTransform
    | DateGeneralizeTransform
    | DateShiftTransform
    | GeoRoundTransform
    | GeoDisplaceTransform
    | TopBottomCodeTransform
    | NoiseTransform,
    Field(discriminator="type"),
]
