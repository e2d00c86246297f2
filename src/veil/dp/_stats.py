"""Differentially private statistics on a pandas table, built on OpenDP's vetted mechanisms.

Privacy semantics
-----------------
Unit of privacy: one row, or with ``id_column`` one person (all of their rows; only their
first ``max_contributions`` rows are used). Neighbouring tables differ by adding or removing
one unit (OpenDP's symmetric distance, ``d_in = max_contributions``).

Every answer is computed by an OpenDP measurement (``opendp.enable_features("contrib")``):
clamping, summing, resizing and counting are OpenDP transformations whose stability maps
account for floating-point rounding, and the noise comes from OpenDP's samplers (Laplace and
Gaussian over floats via their discretized, floating-point-safe constructions; the discrete
Laplace and discrete Gaussian over integers; the exponential mechanism for quantiles). No
noise is drawn with numpy. The only work done with pandas is deterministic, row-by-row
preparation that is 1-stable: selecting a column, dropping missing values, mapping values to
public category codes, and truncating each person's rows.

The privacy spent is what OpenDP's privacy map says for the calibrated measurement: a query
with ``mechanism: laplace`` is ``epsilon``-DP; with ``gaussian`` it is ``rho``-zCDP with the
``rho`` that OpenDP's zCDP-to-approximate-DP conversion turns into (``epsilon``, ``delta``).
Each query's spend is reserved in the ledger before any noisy value is computed.

Intervals come from OpenDP's accuracy utilities: with probability ``confidence`` the noise
added is within the reported half-width. They cover the *clamped* statistic (values outside
``bounds`` are moved to them; for mean and variance, the table is resized to the public or
estimated size), not the bias that clamping or resizing may add. Histogram and group-by
intervals hold per cell, not simultaneously. Quantiles (the exponential mechanism) have no
closed-form interval; their answers report the candidate grid's spacing instead.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from veil._deps import require
from veil._errors import InputError, SchemaError
from veil.dp._composition import curve_pure, curve_zcdp
from veil.dp._query import QuerySpec, parse_queries

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from veil.dp._ledger import BudgetLedger

__all__ = ["DPAnswer", "dp_query", "dp_query_many", "fingerprint_frame"]

log = logging.getLogger(__name__)


def _opendp() -> Any:
    dp = require("opendp.prelude", extra="dp", purpose="DP statistics")
    # Only "contrib": vetted-in-progress constructions whose proofs account for floating
    # point. veil never enables "floating-point" or "honest-but-curious".
    dp.enable_features("contrib")
    return dp


@dataclass
class DPAnswer:
    """One differentially private answer, its accuracy and what it cost."""

    query: str
    stat: str
    value: Any
    interval: Any
    accuracy: Any
    confidence: float
    mechanism: str
    epsilon: float
    delta: float
    rho: float | None = None
    scale: Any = None
    privacy_map: dict[str, float] = field(default_factory=dict)
    spend_id: str | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "stat": self.stat,
            "value": self.value,
            "interval": self.interval,
            "accuracy": self.accuracy,
            "confidence": self.confidence,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "rho": self.rho,
            "scale": self.scale,
            "privacy_map": self.privacy_map,
            "spend_id": self.spend_id,
            "notes": self.notes,
            "seconds": round(self.seconds, 4),
        }


def fingerprint_frame(df: pd.DataFrame) -> str:
    """A content hash of a table (column names, dtypes and every value), for the ledger.

    Examples
    --------
    >>> import pandas as pd
    >>> a = fingerprint_frame(pd.DataFrame({"x": [1, 2]}))
    >>> a == fingerprint_frame(pd.DataFrame({"x": [1, 2]})), a == fingerprint_frame(pd.DataFrame({"x": [2, 1]}))
    (True, False)
    """
    import hashlib

    import pandas as pd

    h = hashlib.sha256()
    h.update(repr([(str(c), str(t)) for c, t in df.dtypes.items()]).encode())
    h.update(str(len(df)).encode())
    h.update(pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes())
    return "sha256:" + h.hexdigest()


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
    return _Budget(False, spec.epsilon, 0.0, None)


def _noise(dp: Any, gaussian: bool, scale: float) -> Any:
    return dp.m.then_gaussian(scale=scale) if gaussian else dp.m.then_laplace(scale=scale)


def _calibrate(dp: Any, trans: Any, d_in: int, target: float, gaussian: bool) -> tuple[Any, float]:
    """``trans >> noise`` with the smallest scale whose OpenDP privacy map is <= ``target``.

    The scale comes from the transformation's sensitivity (``trans.map(d_in)``); OpenDP's
    own privacy map then confirms it, and a binary search takes over if rounding in the map
    puts it a hair above the target.
    """
    sens = float(trans.map(d_in))
    if sens == 0:
        scale = 1.0
    elif gaussian:
        scale = sens / math.sqrt(2 * target)
    else:
        scale = sens / target
    # The map rounds conservatively: a hair more noise than the closed form usually meets it.
    for bump in (1.0, 1 + 1e-12, 1 + 1e-9, 1 + 1e-6):
        meas = trans >> _noise(dp, gaussian, scale * bump)
        if meas.map(d_in) <= target:
            return meas, scale * bump
    scale = float(
        dp.binary_search_param(lambda s: trans >> _noise(dp, gaussian, s), d_in=d_in, d_out=target)
    )
    return trans >> _noise(dp, gaussian, scale), scale


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
            hint=f"the data has {len(df.columns)} column(s): {', '.join(map(str, df.columns[:20]))}",
        )
    return df[name]


def _numeric(series: pd.Series, name: str) -> pd.Series:
    import pandas as pd

    if pd.api.types.is_bool_dtype(series):
        return series.astype("int64")
    if not pd.api.types.is_numeric_dtype(series):
        try:
            return pd.to_numeric(series, errors="raise")
        except (ValueError, TypeError):
            raise SchemaError(
                f"column {name!r} is not numeric (dtype {series.dtype})",
                hint="use count or histogram(categories=...) for categorical columns",
            ) from None
    return series


def _values(series: pd.Series, dtype: Any) -> np.ndarray:
    """The non-missing values as a numpy array (a view when there is nothing to drop)."""
    if series.hasnans:
        series = series.dropna()
    return series.to_numpy(dtype=dtype)


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


# --------------------------------------------------------------------------- the statistics


@dataclass
class _Plan:
    """A query ready to run: its budget is known before anything noisy is computed."""

    spec: QuerySpec
    budget: _Budget
    run: Callable[[], DPAnswer]


def _plan(dp: Any, df: pd.DataFrame, spec: QuerySpec) -> _Plan:
    import numpy as np

    data, d_in = _bound_contributions(df, spec)
    budget = _budget(dp, spec)
    gaussian = budget.gaussian
    alpha = 1 - spec.confidence
    sd = dp.symmetric_distance()
    vec_i = dp.vector_domain(dp.atom_domain(T=dp.i64))
    vec_f = dp.vector_domain(dp.atom_domain(T=float, nan=False))

    def answer(value: Any, interval: Any, acc: Any, integer: bool, **kw: Any) -> DPAnswer:
        return DPAnswer(
            query=spec.label,
            stat=spec.stat,
            value=value,
            interval=interval,
            accuracy=acc,
            confidence=spec.confidence,
            mechanism=kw.pop("mechanism", _mech_name(gaussian, integer)),
            epsilon=spec.epsilon,
            delta=spec.delta,
            rho=budget.rho,
            **kw,
        )

    def pmap(value: float) -> dict[str, float]:
        return {"rho" if gaussian else "epsilon": float(value), "d_in": d_in}

    stat = spec.stat
    if stat == "count" and spec.by is None:
        rows = data if spec.column is None else data[_column(data, spec.column).notna()]
        arr = np.zeros(len(rows), dtype=np.int64)

        def run_count() -> DPAnswer:
            trans = (vec_i, sd) >> dp.t.then_count()
            meas, scale = _calibrate(dp, trans, d_in, budget.unit, gaussian)
            value = int(meas(arr))
            acc = _accuracy(dp, scale, alpha, integer=True, gaussian=gaussian)
            return answer(
                value,
                [value - acc, value + acc],
                acc,
                True,
                scale=scale,
                privacy_map=pmap(meas.map(d_in)),
            )

        return _Plan(spec, budget, run_count)

    if stat in ("histogram",) or (stat == "count" and spec.by is not None):
        col = spec.column if stat == "histogram" else spec.by
        assert col is not None
        series = _column(data, col)
        if spec.bins is not None:
            edges = np.asarray(spec.bins, dtype=float)
            vals = _numeric(series, col).to_numpy(dtype=float, na_value=np.nan)
            # bin i holds [edges[i], edges[i+1]); the last bin includes its upper edge
            codes = np.searchsorted(edges, vals, side="right") - 1
            codes[vals == edges[-1]] = len(edges) - 2
            codes[(vals < edges[0]) | (vals > edges[-1]) | np.isnan(vals)] = -1
            labels: list[Any] = [f"[{edges[i]:g}, {edges[i + 1]:g})" for i in range(len(edges) - 1)]
            labels[-1] = labels[-1][:-1] + "]"
        else:
            assert spec.categories is not None
            codes = _codes(series, spec.categories)
            labels = list(spec.categories)
        n_cat = len(labels)
        codes = codes.astype(np.int64)

        def run_hist() -> DPAnswer:
            mo = dp.L2Distance[int] if gaussian else dp.L1Distance[int]
            trans = (vec_i, sd) >> dp.t.then_count_by_categories(
                categories=list(range(n_cat)), null_category=True, MO=mo
            )
            meas, scale = _calibrate(dp, trans, d_in, budget.unit, gaussian)
            counts = [int(c) for c in meas(codes)]
            acc = _accuracy(dp, scale, alpha, integer=True, gaussian=gaussian)
            value = {str(k): c for k, c in zip(labels, counts[:n_cat], strict=True)}
            value["__other__"] = counts[n_cat]
            interval = {k: [v - acc, v + acc] for k, v in value.items()}
            return answer(
                value,
                interval,
                acc,
                True,
                scale=scale,
                privacy_map=pmap(meas.map(d_in)),
                notes=[
                    "'__other__' counts values outside the listed categories or bins",
                    "intervals hold per cell",
                ],
            )

        return _Plan(spec, budget, run_hist)

    # Value statistics: numeric column, missing values dropped, public bounds.
    assert spec.column is not None and spec.bounds is not None
    series = _numeric(_column(data, spec.column), spec.column)
    lo, hi = spec.bounds
    integer = series.dtype.kind in "iub" and float(lo).is_integer() and float(hi).is_integer()

    if stat == "sum" and spec.by is None:
        arr_s = _values(series, np.int64 if integer else np.float64)

        def run_sum() -> DPAnswer:
            if integer:
                trans = (vec_i, sd) >> dp.t.then_clamp((int(lo), int(hi))) >> dp.t.then_sum()
            else:
                trans = (vec_f, sd) >> dp.t.then_clamp((float(lo), float(hi))) >> dp.t.then_sum()
            meas, scale = _calibrate(dp, trans, d_in, budget.unit, gaussian)
            raw = meas(arr_s)
            value = int(raw) if integer else float(raw)
            acc = _accuracy(dp, scale, alpha, integer=integer, gaussian=gaussian)
            return answer(
                value,
                [value - acc, value + acc],
                acc,
                integer,
                scale=scale,
                privacy_map=pmap(meas.map(d_in)),
            )

        return _Plan(spec, budget, run_sum)

    if stat == "sum":  # group-by sum with public keys
        assert spec.by is not None and spec.categories is not None
        codes = _codes(_column(data, spec.by), spec.categories)
        mask = series.notna().to_numpy()
        vals_all = series.to_numpy(dtype=np.int64 if integer else np.float64, na_value=0)
        groups = [vals_all[(codes == i) & mask] for i in range(len(spec.categories))]
        m = spec.max_groups or spec.max_contributions

        def run_group_sum() -> DPAnswer:
            if integer:
                trans = (vec_i, sd) >> dp.t.then_clamp((int(lo), int(hi))) >> dp.t.then_sum()
            else:
                trans = (vec_f, sd) >> dp.t.then_clamp((float(lo), float(hi))) >> dp.t.then_sum()
            # A person touches at most m groups: each group gets 1/m of the budget.
            meas, scale = _calibrate(dp, trans, d_in, budget.unit / m, gaussian)
            acc = _accuracy(dp, scale, alpha, integer=integer, gaussian=gaussian)
            value: dict[str, Any] = {}
            for key, arr in zip(spec.categories or (), groups, strict=True):
                raw = meas(arr)
                value[str(key)] = int(raw) if integer else float(raw)
            interval = {k: [v - acc, v + acc] for k, v in value.items()}
            per = float(meas.map(d_in))
            return answer(
                value,
                interval,
                acc,
                integer,
                scale=scale,
                privacy_map={**pmap(per * m), "per_group": per, "max_groups": m},
                notes=[
                    f"each person contributes to at most {m} group(s); each group's sum "
                    f"is calibrated to 1/{m} of the budget",
                    "intervals hold per group",
                ],
            )

        return _Plan(spec, budget, run_group_sum)

    if stat in ("mean", "variance"):
        arr_f = _values(series, np.float64)
        share = 0.0 if spec.size is not None else spec.size_share

        def run_moment() -> DPAnswer:
            notes = []
            used = 0.0
            if spec.size is not None:
                size = spec.size
                notes.append("resized to the public size given")
            else:
                count_t = (vec_f, sd) >> dp.t.then_count()
                count_m, _ = _calibrate(dp, count_t, d_in, budget.unit * share, gaussian)
                size = max(2, int(count_m(arr_f)))
                used += float(count_m.map(d_in))
                notes.append(
                    f"size estimated with a DP count using {share:.0%} of the query's budget"
                )
            mid = (lo + hi) / 2.0
            chain = (vec_f, sd) >> dp.t.then_clamp((float(lo), float(hi)))
            chain = chain >> dp.t.then_resize(size=size, constant=mid)
            chain = chain >> (dp.t.then_mean() if stat == "mean" else dp.t.then_variance())
            meas, scale = _calibrate(dp, chain, d_in, budget.unit * (1 - share), gaussian)
            used += float(meas.map(d_in))
            value = float(meas(arr_f))
            acc = _accuracy(dp, scale, alpha, integer=False, gaussian=gaussian)
            notes.append("the interval covers the clamped, resized statistic")
            return answer(
                value,
                [value - acc, value + acc],
                acc,
                False,
                scale=scale,
                privacy_map=pmap(used),
                notes=notes,
            )

        return _Plan(spec, budget, run_moment)

    # quantile / median: the exponential mechanism over a public grid of candidates
    arr_q = _values(series, np.float64)
    grid = [float(x) for x in np.linspace(lo, hi, spec.candidates)]
    qs = spec.quantiles
    measure = dp.zero_concentrated_divergence() if gaussian else dp.max_divergence()

    def run_quantiles() -> DPAnswer:
        values, used, scales = [], 0.0, []
        for qv in qs:
            target = budget.unit / len(qs)

            def make(scale: float, qv: float = qv) -> Any:
                return dp.m.make_private_quantile(
                    vec_f, sd, measure, candidates=grid, alpha=qv, scale=scale
                )

            scale = float(dp.binary_search_param(make, d_in=d_in, d_out=target))
            meas = make(scale)
            used += float(meas.map(d_in))
            scales.append(scale)
            values.append(float(meas(arr_q)))
        value: Any = (
            values[0]
            if stat == "median" or len(qs) == 1
            else dict(zip([f"{x:g}" for x in qs], values, strict=True))
        )
        return answer(
            value,
            None,
            {"grid_spacing": (hi - lo) / (spec.candidates - 1)},
            False,
            mechanism="exponential" if not gaussian else "exponential_zcdp",
            scale=scales[0] if len(scales) == 1 else scales,
            privacy_map=pmap(used),
            notes=[
                "no closed-form interval for the exponential mechanism; the answer is a "
                "point of the public candidate grid"
            ],
        )

    return _Plan(spec, budget, run_quantiles)


# --------------------------------------------------------------------------- entry points


def _check_delta(spec: QuerySpec, n_rows: int) -> None:
    if spec.delta > 0 and n_rows > 0 and spec.delta >= 1.0 / n_rows:
        raise InputError(
            f"{spec.label}: delta must be below 1/n for a table of {n_rows} rows",
            hint="a delta of 1/n or more allows releasing a whole row; use e.g. 1e-7",
        )


def dp_query_many(
    data: pd.DataFrame,
    queries: Sequence[str | dict[str, Any] | QuerySpec],
    *,
    ledger: BudgetLedger | None,
    dataset: str | None = None,
    fingerprint: str | None = None,
    who: str | None = None,
    dry_run: bool = False,
) -> list[DPAnswer]:
    """Answer several DP queries; their spends are reserved together before any is computed.

    Parameters
    ----------
    data
        The table (never modified).
    queries
        Query strings, JSON strings, dicts or :class:`QuerySpec` (see
        :mod:`veil.dp._query`).
    ledger, dataset
        Where to spend. ``ledger=None`` skips accounting: only when the caller's user asked
        for that explicitly.
    fingerprint
        The data's :func:`fingerprint_frame`; refused if the ledger recorded another.
    dry_run
        Check the budget and the queries; compute and record nothing (answers are empty).

    Raises
    ------
    PrivacyBudgetExceeded
        Before anything noisy is computed; nothing is recorded.
    """
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise InputError(f"DP queries run on a pandas DataFrame, got {type(data).__name__}")
    specs = parse_queries(list(queries))
    if ledger is not None and not dataset:
        raise InputError("spending from a ledger needs a dataset name", hint="pass --dataset")
    dp = _opendp()
    for spec in specs:
        _check_delta(spec, len(data))
    plans = [_plan(dp, data, spec) for spec in specs]  # everything checked before spending
    if dry_run:
        if ledger is not None:
            assert dataset is not None
            with ledger.charge_many(
                dataset, _requests(plans, who), fingerprint=fingerprint, dry_run=True
            ):
                pass
        return []
    if ledger is None:
        log.warning("DP queries answered without a ledger: nothing was recorded")
        return [_timed(p) for p in plans]
    assert dataset is not None
    with ledger.charge_many(dataset, _requests(plans, who), fingerprint=fingerprint) as spends:
        answers = [_timed(p) for p in plans]
    for a, s in zip(answers, spends, strict=True):
        a.spend_id = s.id
    return answers


def _timed(plan: _Plan) -> DPAnswer:
    t0 = time.perf_counter()
    a = plan.run()
    a.seconds = time.perf_counter() - t0
    return a


def _requests(plans: list[_Plan], who: str | None) -> list[Any]:
    from veil.dp._ledger import SpendRequest

    out = []
    for p in plans:
        b = p.budget
        curve = curve_zcdp(b.rho) if b.gaussian and b.rho is not None else curve_pure(b.epsilon)
        out.append(
            SpendRequest(
                epsilon=b.epsilon,
                delta=b.delta,
                what=f"dp {p.spec.label}",
                mechanism=f"opendp-{p.spec.mechanism}",
                who=who,
                curve=curve,
            )
        )
    return out


def dp_query(
    data: pd.DataFrame,
    query: str | dict[str, Any] | QuerySpec,
    *,
    ledger: BudgetLedger | None,
    dataset: str | None = None,
    fingerprint: str | None = None,
    who: str | None = None,
) -> DPAnswer:
    """Answer one DP query, spending its budget from ``ledger`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dp import BudgetLedger
    >>> ledger = BudgetLedger("sqlite:///:memory:")
    >>> ledger.init("people", epsilon=1.0)
    >>> df = pd.DataFrame({"age": [23, 35, 47, 51, 62] * 200})
    >>> a = dp_query(df, "mean(age, bounds=[0, 100], epsilon=0.5)", ledger=ledger,
    ...              dataset="people")
    >>> a.mechanism, a.epsilon, ledger.remaining("people")[0]
    ('laplace', 0.5, 0.5)
    >>> a.interval[0] <= a.value <= a.interval[1]
    True
    """
    (answer,) = dp_query_many(
        data, [query], ledger=ledger, dataset=dataset, fingerprint=fingerprint, who=who
    )
    return answer
