"""Geographic masking of latitude/longitude pairs: grid rounding and donut displacement."""

from __future__ import annotations

import math
from typing import Self

import numpy as np
import pandas as pd

from veil._errors import InputError, PolicyError
from veil.tabular._base import TRANSFORMS, FieldTransformer, to_numbers

__all__ = ["EARTH_RADIUS_M", "GeoDisplaceTransformer", "GeoRoundTransformer", "haversine_m"]

EARTH_RADIUS_M = 6_371_008.8  # mean Earth radius (IUGG), metres


def haversine_m(
    lat1: np.ndarray, lon1: np.ndarray, lat2: np.ndarray, lon2: np.ndarray
) -> np.ndarray:
    """Great-circle distance in metres between points given in degrees."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(lon2 - lon1)
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return np.asarray(2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0))))


def _wrap_lon(lon: np.ndarray) -> np.ndarray:
    outside = (lon < -180.0) | (lon > 180.0)
    return np.where(outside, (lon + 180.0) % 360.0 - 180.0, lon)


class _GeoPair(FieldTransformer):
    multi_column = True

    latitude_column: str
    longitude_column: str

    @property
    def columns_in(self) -> list[str]:
        return [self.latitude_column, self.longitude_column]

    @property
    def columns_out(self) -> list[str]:
        return [self.latitude_column, self.longitude_column]

    def _coords(self, X: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
        frame = self._frame(X)
        if self.latitude_column == self.longitude_column:
            raise PolicyError(
                f"{self.name} on {self.latitude_column!r}: longitude_column must be another column"
            )
        lat = to_numbers(frame[self.latitude_column], transform=self.name)
        lon = to_numbers(frame[self.longitude_column], transform=self.name)
        for series, limit, what in ((lat, 90.0, "latitude"), (lon, 180.0, "longitude")):
            bad = int((series.abs() > limit).sum())
            if bad:
                raise InputError(
                    f"column {series.name!r}: {bad} value(s) are outside the {what} range "
                    f"[-{limit:g}, {limit:g}]",
                    hint="give decimal degrees (WGS84), latitude first",
                )
        return frame, lat, lon


@TRANSFORMS.register("geo_round")
class GeoRoundTransformer(_GeoPair):
    """Snap latitude and longitude to a grid of ``grid`` degrees.

    Each coordinate is rounded to the nearest multiple of ``grid`` independently (a missing
    one stays missing). Latitudes are kept within ±90 and longitudes wrapped into ±180.

    Privacy semantics: every point in a grid cell is released as the cell's centre line
    crossing, so a point is hidden among the people of its cell. Cells are not equal in
    area (a degree of longitude shrinks toward the poles: 0.01° is about 1.1 km north-south
    everywhere but 0.79 km east-west at 45°) and a cell holding one household still
    identifies it. Deterministic and irreversible.

    Examples
    --------
    >>> df = pd.DataFrame({"lat": [48.85661], "lon": [2.35222]})
    >>> GeoRoundTransformer("lat", "lon", grid=0.01).fit_transform(df).iloc[0].tolist()
    [48.86, 2.35]
    """

    name = "geo_round"

    def __init__(
        self,
        latitude_column: str = "latitude",
        longitude_column: str = "longitude",
        grid: float = 0.01,
    ) -> None:
        self.latitude_column = latitude_column
        self.longitude_column = longitude_column
        self.grid = grid

    def fit(self, X: pd.DataFrame, y: object = None) -> Self:
        if not (isinstance(self.grid, int | float) and 0 < self.grid <= 10):
            raise PolicyError("geo_round: grid must be above 0 and at most 10 degrees")
        return super().fit(X, y)

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        self._check_fitted("fitted_")
        frame, lat, lon = self._coords(X)
        g = float(self.grid)
        out = frame.copy()
        lat_r = np.clip(np.round(np.round(lat.to_numpy() / g) * g, 10), -90.0, 90.0)
        lon_r = _wrap_lon(np.round(np.round(lon.to_numpy() / g) * g, 10))
        out[self.latitude_column] = pd.Series(lat_r, index=frame.index)
        out[self.longitude_column] = pd.Series(lon_r, index=frame.index)
        return out


@TRANSFORMS.register("geo_displace")
class GeoDisplaceTransformer(_GeoPair):
    """Move each point a random distance in ``[min_radius_m, max_radius_m]`` (a donut).

    The distance is drawn uniformly over the donut's *area*
    (``r = sqrt(U * (R² - r0²) + r0²)``), the bearing uniformly in ``[0, 2π)``, and the new
    point is computed on the sphere (great-circle destination formula), so the ground
    distance is exact at every latitude. A point that appears in several rows (one
    household) moves to the same place in all of them. A row with either coordinate
    missing gets both missing (counted as ``incomplete`` in the report). Randomness comes
    from ``numpy.random.default_rng(seed)``.

    Privacy semantics: the donut's hole guarantees every point moves at least
    ``min_radius_m`` (it cannot land on the true address); its rim bounds the error. The
    displacement is ordinary pseudo-randomness, not a cryptographic or DP mechanism:
    **whoever knows the seed can recompute and undo it**, so omit ``seed`` (fresh OS
    entropy) for a release, or keep the policy as secret as a key. Displacing the same
    point again with a new seed and averaging the releases recovers it: release once. In a
    sparse area the nearest house to a displaced point may still be the true one.

    Examples
    --------
    >>> df = pd.DataFrame({"lat": [48.8566], "lon": [2.3522]})
    >>> t = GeoDisplaceTransformer("lat", "lon", min_radius_m=100, max_radius_m=500, seed=1)
    >>> moved = t.fit_transform(df)
    >>> d = haversine_m(df.lat.to_numpy(), df.lon.to_numpy(), moved.lat.to_numpy(), moved.lon.to_numpy())
    >>> bool(100 <= d[0] <= 500)
    True
    """

    name = "geo_displace"

    def __init__(
        self,
        latitude_column: str = "latitude",
        longitude_column: str = "longitude",
        min_radius_m: float = 100.0,
        max_radius_m: float = 1000.0,
        seed: int | None = None,
    ) -> None:
        self.latitude_column = latitude_column
        self.longitude_column = longitude_column
        self.min_radius_m = min_radius_m
        self.max_radius_m = max_radius_m
        self.seed = seed

    def fit(self, X: pd.DataFrame, y: object = None) -> Self:
        if not 0 <= self.min_radius_m < self.max_radius_m:
            raise PolicyError("geo_displace: need 0 <= min_radius_m < max_radius_m")
        if self.max_radius_m > math.pi * EARTH_RADIUS_M:
            raise PolicyError("geo_displace: max_radius_m exceeds half the Earth's circumference")
        return super().fit(X, y)

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        self._check_fitted("fitted_")
        frame, lat, lon = self._coords(X)
        ok = (lat.notna() & lon.notna()).to_numpy()
        # One draw per distinct point: a place repeated over rows moves to one place, so
        # averaging the rows of a household cannot recover it.
        points = np.column_stack([lat.to_numpy()[ok], lon.to_numpy()[ok]])
        distinct, which = np.unique(points, axis=0, return_inverse=True)
        which = which.reshape(-1)
        n = len(distinct)
        rng = np.random.default_rng(self.seed)
        r0, r1 = float(self.min_radius_m), float(self.max_radius_m)
        radius = np.sqrt(rng.random(n) * (r1 * r1 - r0 * r0) + r0 * r0)[which]
        bearing = (rng.random(n) * 2.0 * math.pi)[which]
        delta = radius / EARTH_RADIUS_M  # angular distance
        p1 = np.radians(points[:, 0])
        l1 = np.radians(points[:, 1])
        sin_p2 = np.sin(p1) * np.cos(delta) + np.cos(p1) * np.sin(delta) * np.cos(bearing)
        p2 = np.arcsin(np.clip(sin_p2, -1.0, 1.0))
        l2 = l1 + np.arctan2(
            np.sin(bearing) * np.sin(delta) * np.cos(p1), np.cos(delta) - np.sin(p1) * np.sin(p2)
        )
        new_lat = np.full(len(frame), np.nan)
        new_lon = np.full(len(frame), np.nan)
        new_lat[ok] = np.degrees(p2)
        new_lon[ok] = _wrap_lon(np.degrees(l2))
        out = frame.copy()
        out[self.latitude_column] = pd.Series(new_lat, index=frame.index)
        out[self.longitude_column] = pd.Series(new_lon, index=frame.index)
        return out

    def summarize(self, before: pd.DataFrame, after: pd.DataFrame) -> dict[str, int | float | str]:
        counts = super().summarize(before, after)
        lat0 = to_numbers(before[self.latitude_column], transform=self.name).to_numpy()
        lon0 = to_numbers(before[self.longitude_column], transform=self.name).to_numpy()
        lat1 = after[self.latitude_column].to_numpy(dtype=float)
        lon1 = after[self.longitude_column].to_numpy(dtype=float)
        ok = ~(np.isnan(lat0) | np.isnan(lon0))
        counts["incomplete"] = int((~ok & ~(np.isnan(lat0) & np.isnan(lon0))).sum())
        if ok.any():
            d = haversine_m(lat0[ok], lon0[ok], lat1[ok], lon1[ok])
            counts["displacement_m_min"] = round(float(d.min()), 1)
            counts["displacement_m_max"] = round(float(d.max()), 1)
        return counts
