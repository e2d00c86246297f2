"""OpenDP building blocks for the DP statistics: calibration, accuracy, column preparation.

Everything noisy is OpenDP's; this module only chooses scales (from OpenDP's own stability
and privacy maps) and prepares columns with deterministic, 1-stable pandas operations.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from veil._deps import require
from veil._errors import InputError, SchemaError, column_names

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from veil.dp._query import QuerySpec


def _opendp() -> Any:
    dp = require("opendp.prelude", extra="dp", purpose="DP statistics")
    # Only "contrib": vetted-in-progress constructions whose proofs account for floating
    # point. veil never enables "floating-point" or "honest-but-curious".
    dp.enable_features("contrib")
    return dp


# --------------------------------------------------------------------------- calibration


@dataclass
class _Budget:
    """A query's budget in the unit its mechanism is calibrated in (epsilon or rho)."""

    gaussian: bool
    epsilon: float
    delta: float
    rho: float | None  # zCDP, for gaussian

    @property
    def unit(self) -> float:
        return self.rho if self.gaussian and self.rho is not None else self.epsilon


@functools.lru_cache(maxsize=64)
def _rho_for(epsilon: float, delta: float) -> float:
    """The largest rho whose zCDP-to-(epsilon, delta) conversion in OpenDP meets the target."""
    dp = _opendp()
    dom, met = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)

    def approx(scale: float) -> Any:
        return dp.c.make_fix_delta(
            dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(dom, met, scale=scale)), delta
        )

    scale = dp.binary_search_param(approx, d_in=1.0, d_out=(epsilon, delta))
    return float(dp.m.make_gaussian(dom, met, scale=scale).map(1.0))


def _budget(dp: Any, spec: QuerySpec) -> _Budget:
    if spec.mechanism == "gaussian":
        return _Budget(True, spec.epsilon, spec.delta, _rho_for(spec.epsilon, spec.delta))
    return _Budget(False, spec.epsilon, spec.delta, None)


def _noise(dp: Any, gaussian: bool, scale: float) -> Any:
    return dp.m.then_gaussian(scale=scale) if gaussian else dp.m.then_laplace(scale=scale)


class _Calibrated(NamedTuple):
    """A transformation, its calibrated ``trans >> noise`` chain and what the chain spends."""

    trans: Any
    meas: Any
    scale: float
    noise: Any  # the chain's second half: the noise measurement on trans' output
    spent: float  # the chain's privacy map at d_in (epsilon, or rho for gaussian)


# Calibrations of recurring queries (same statistic, bounds, d_in and budget). OpenDP's
# transformations and measurements are immutable, so one may be reused and shared.
_CALIBRATED: OrderedDict[tuple[Any, ...], _Calibrated] = OrderedDict()
_CALIBRATED_MAX = 256
_CALIBRATED_LOCK = threading.Lock()


def _calibrate(
    dp: Any,
    make_trans: Callable[[], Any],
    d_in: int,
    target: float,
    gaussian: bool,
    *,
    key: tuple[Any, ...] | None = None,
) -> _Calibrated:
    """``trans >> noise`` with the smallest scale whose OpenDP privacy map is <= ``target``.

    ``make_trans`` builds the transformation; ``key``, when given, must identify it fully
    (statistic, types, bounds, size): the calibration is then cached under ``key`` plus
    ``d_in``, ``target`` and the noise family.

    Also returned: the noise measurement alone (on the transformation's output domain and
    metric). The chain's function is the noise applied to the transformation's output, so a
    caller may run ``trans`` first and ``noise`` later (see :mod:`veil.dp._plans`); the
    privacy map is the chain's either way.

    The scale comes from the transformation's sensitivity (``trans.map(d_in)``); OpenDP's
    own privacy map then confirms it, and a binary search takes over if rounding in the map
    puts it a hair above the target.
    """
    full = None if key is None else (*key, d_in, target, gaussian)
    if full is not None:
        with _CALIBRATED_LOCK:
            hit = _CALIBRATED.get(full)
            if hit is not None:
                _CALIBRATED.move_to_end(full)
                return hit
    trans = make_trans()
    sens = float(trans.map(d_in))
    if sens == 0:
        scale = 1.0
    elif gaussian:
        scale = sens / math.sqrt(2 * target)
    else:
        scale = sens / target

    def chain(s: float) -> tuple[Any, Any]:
        noise = _noise(dp, gaussian, s)(trans.output_domain, trans.output_metric)
        return trans >> noise, noise

    found = None
    # The map rounds conservatively: a hair more noise than the closed form usually meets it.
    for bump in (1.0, 1 + 1e-12, 1 + 1e-9, 1 + 1e-6):
        meas, noise = chain(scale * bump)
        spent = float(meas.map(d_in))
        if spent <= target:
            found = _Calibrated(trans, meas, scale * bump, noise, spent)
            break
    if found is None:
        scale = float(dp.binary_search_param(lambda s: chain(s)[0], d_in=d_in, d_out=target))
        meas, noise = chain(scale)
        found = _Calibrated(trans, meas, scale, noise, float(meas.map(d_in)))
    if full is not None:
        with _CALIBRATED_LOCK:
            _CALIBRATED[full] = found
            while len(_CALIBRATED) > _CALIBRATED_MAX:
                _CALIBRATED.popitem(last=False)
    return found


def _accuracy(dp: Any, scale: float, alpha: float, *, integer: bool, gaussian: bool) -> float:
    if gaussian:
        fn = dp.discrete_gaussian_scale_to_accuracy if integer else dp.gaussian_scale_to_accuracy
    else:
        fn = dp.discrete_laplacian_scale_to_accuracy if integer else dp.laplacian_scale_to_accuracy
    return float(fn(scale, alpha))


def _mech_name(gaussian: bool, integer: bool) -> str:
    base = "gaussian" if gaussian else "laplace"
    return f"discrete_{base}" if integer else base


# --------------------------------------------------------------------------- data preparation


def _column(df: pd.DataFrame, name: str) -> pd.Series:
    if name not in df.columns:
        raise SchemaError(
            f"the query names column {name!r}, which the data does not have",
            hint=f"the data has {column_names(df.columns, 20)}",
        )
    return df[name]


def _numeric(series: pd.Series, name: str) -> pd.Series:
    import pandas as pd

    if pd.api.types.is_bool_dtype(series):
        return series.astype("int64")
    if not pd.api.types.is_numeric_dtype(series):
        from veil._numeric import coerce_numbers

        numbers = coerce_numbers(series)
        if bool((numbers.isna() & series.notna()).any()):
            raise SchemaError(
                f"column {name!r} is not numeric (dtype {series.dtype})",
                hint="use count or histogram(categories=...) for categorical columns",
            )
        return numbers
    return series


def _values(series: pd.Series, dtype: Any) -> np.ndarray:
    """The non-missing values as a numpy array (a view when there is nothing to drop)."""
    import numpy as np

    kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else None
    if kind in ("i", "u", "b"):  # numpy integers and booleans cannot be missing
        return series.to_numpy(dtype=dtype)
    if kind == "f":
        arr = series.to_numpy()
        # min propagates NaN: one vectorized pass, no mask unless something is missing
        if arr.size and np.isnan(arr.min()):
            arr = arr[~np.isnan(arr)]
        return arr.astype(dtype, copy=False)
    if series.hasnans:
        series = series.dropna()
    return series.to_numpy(dtype=dtype)


@functools.lru_cache(maxsize=1)
def _domains() -> tuple[Any, Any, Any, Any, Any]:
    """OpenDP's symmetric distance and the int64, float (no NaN), bool and int32 vector
    domains (int32 for category codes: half the bytes to hand over)."""
    dp = _opendp()
    return (
        dp.symmetric_distance(),
        dp.vector_domain(dp.atom_domain(T=dp.i64)),
        dp.vector_domain(dp.atom_domain(T=float, nan=False)),
        dp.vector_domain(dp.atom_domain(T=bool)),
        dp.vector_domain(dp.atom_domain(T=dp.i32)),
    )


def _bound_contributions(df: pd.DataFrame, spec: QuerySpec) -> tuple[pd.DataFrame, int]:
    """Keep each person's first ``max_contributions`` rows (and first ``max_groups`` groups)."""
    if spec.id_column is None:
        return df, 1
    ids = _column(df, spec.id_column)
    if ids.isna().any():
        raise InputError(
            f"id_column {spec.id_column!r} has missing values; every row needs an owner"
        )
    if spec.max_groups is not None and spec.by is not None:
        key = df[[spec.id_column, spec.by]]
        first = ~key.duplicated()
        group_rank = first.astype("int64").groupby(ids, sort=False).cumsum()
        # rank of the row's group among the person's groups, in order of first appearance
        pair_rank = group_rank.where(first).groupby([ids, df[spec.by]], sort=False).transform("max")
        df = df[pair_rank <= spec.max_groups]
        ids = df[spec.id_column]
    keep = ids.groupby(ids, sort=False).cumcount() < spec.max_contributions
    return df[keep.to_numpy()], spec.max_contributions


def _codes(series: pd.Series, categories: Sequence[Any]) -> np.ndarray:
    """Public category index of each value; -1 for missing values and values not listed."""
    import numpy as np
    import pandas as pd

    cats = list(categories)
    if len({(type(c).__name__, c) for c in cats}) != len(cats):
        raise InputError("categories must not repeat")
    numeric_cats = all(isinstance(c, int | float) and not isinstance(c, bool) for c in cats)
    text_cats = all(isinstance(c, str) for c in cats)
    if numeric_cats and pd.api.types.is_numeric_dtype(series):
        codes = pd.Index(cats, dtype="float64").get_indexer(pd.Index(series.astype("float64")))
    elif text_cats and (
        series.dtype == object or isinstance(series.dtype, pd.StringDtype | pd.CategoricalDtype)
    ):
        codes = pd.Index(cats).get_indexer(pd.Index(series))  # exact text match, no conversion
    else:  # compare as text: the CLI's categories are often typed differently from the data
        idx = pd.Index([str(c) for c in cats], dtype="string")
        if not idx.is_unique:
            raise InputError("categories must not repeat")
        codes = idx.get_indexer(pd.Index(series.astype("string")))
    return np.asarray(codes, dtype=np.int64)
