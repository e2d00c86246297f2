"""Each DP statistic as a plan: its budget fixed up front, its OpenDP measurement run later.

A plan is built before anything is spent (all checks happen here), so the ledger can record
the budget of a whole batch first. Running a plan has two steps:

- ``stage()`` does the work that releases nothing: it calibrates the measurement and, where
  the statistic is an OpenDP chain ``transformation >> noise`` (count, sum, mean and
  variance with a public size, histograms, group-by counts and sums with public keys), runs
  the transformation: the exact aggregate, which never leaves the process;
- the function ``stage()`` returns draws the noise with OpenDP's sampler (the chain's own
  second half, so the result and the privacy map are the chain's) and builds the answer.

:func:`veil.dp.dp_query_many` stages while the ledger records the spend, and draws noise
only once the ledger has accepted it. Statistics whose transformation depends on a noisy
value (mean without a public size) or that are measurements as a whole (quantiles, the
thresholded group-by count) do all their work in the second step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from veil._errors import InputError
from veil.dp._mechanisms import (
    _accuracy,
    _bound_contributions,
    _Budget,
    _budget,
    _calibrate,
    _Calibrated,
    _codes,
    _column,
    _domains,
    _mech_name,
    _numeric,
    _values,
)
from veil.dp._query import QuerySpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DPAnswer"]


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


# --------------------------------------------------------------------------- the statistics


Release = Callable[[], DPAnswer]


@dataclass
class _Plan:
    """A query ready to run: its budget is known before anything noisy is computed.

    ``partial`` (statistics that decompose over partitions: counts, histograms, group-by
    counts with public keys, integer sums) computes the exact aggregate of this plan's data
    with the statistic's own OpenDP transformation, nothing noisy: a partition's sufficient
    statistic. Summed over the partitions (:func:`merge_partials`) and passed to
    :func:`_plan` as ``exact``, it replaces the transformation's output on the whole table.
    """

    spec: QuerySpec
    budget: _Budget
    stage: Callable[[], Release]  # non-noisy work; returns the noisy release
    partial: Callable[[], Any] | None = None

    def run(self) -> DPAnswer:
        return self.stage()()


def _whole(run: Release) -> Callable[[], Release]:
    """A plan with nothing to stage: all of it runs once the spend is accepted."""
    return lambda: run


def merge_partials(parts: list[Any]) -> Any:
    """The sum of partitions' exact aggregates (:attr:`_Plan.partial`): integers added,
    lists (histogram cells, group sums) added cell by cell."""
    if isinstance(parts[0], list):
        return [sum(cells) for cells in zip(*parts, strict=True)]
    return sum(parts)


def _plan(dp: Any, df: pd.DataFrame, spec: QuerySpec, *, exact: Any = None) -> _Plan:
    """The plan of ``spec`` on ``df``; with ``exact`` (the merged partials of the table's
    partitions) the noise is drawn on it instead of on ``df``'s aggregate (``df`` then only
    gives the columns' types)."""
    import numpy as np

    data, d_in = _bound_contributions(df, spec)
    budget = _budget(dp, spec)
    gaussian = budget.gaussian
    alpha = 1 - spec.confidence
    sd, vec_i, vec_f, vec_b, vec_i32 = _domains()

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

    def scalar(cal: _Calibrated, exact: Any, integer: bool, **kw: Any) -> DPAnswer:
        """Draw the noise on one exact value; the answer with its interval and spend."""
        raw = cal.noise(exact)
        value = int(raw) if integer else float(raw)
        acc = _accuracy(dp, cal.scale, alpha, integer=integer, gaussian=gaussian)
        used = kw.pop("used", 0.0)
        return answer(
            value,
            [value - acc, value + acc],
            acc,
            integer,
            scale=cal.scale,
            privacy_map=pmap(used + cal.spent),
            **kw,
        )

    stat = spec.stat
    if stat == "count" and spec.by is None:
        n_rows = len(data) if spec.column is None else int(_column(data, spec.column).notna().sum())
        # a count only sees how many elements there are: booleans cross into OpenDP 8x
        # cheaper than int64 (1 byte each), with the same transformation and stability
        arr = np.zeros(n_rows, dtype=bool)

        def count_trans() -> Any:
            return (vec_b, sd) >> dp.t.then_count()

        def stage_count() -> Release:
            cal = _calibrate(dp, count_trans, d_in, budget.unit, gaussian, key=("count",))
            ex = cal.trans(arr) if exact is None else exact
            return lambda: scalar(cal, ex, True)

        return _Plan(spec, budget, stage_count, partial=lambda: count_trans()(arr))

    if spec.thresholded:
        assert spec.by is not None
        keys = _column(data, spec.by).dropna().astype(str).to_numpy()

        def run_threshold() -> DPAnswer:
            vec_s = dp.vector_domain(dp.atom_domain(T=str))
            trans = (vec_s, sd) >> dp.t.then_count_by(TV=dp.i64)
            scale = float(trans.map(d_in)[1]) / spec.epsilon  # L1 sensitivity over epsilon
            threshold = None
            for _attempt in range(4):
                try:
                    threshold = int(
                        dp.binary_search_param(
                            lambda th, s=scale: (
                                trans >> dp.m.then_laplace_threshold(scale=s, threshold=th)
                            ),
                            d_in=d_in,
                            d_out=(spec.epsilon, spec.delta),
                            T=int,
                        )
                    )
                    break
                except Exception:  # noqa: BLE001 - epsilon rounding: a hair more noise
                    scale *= 1 + 1e-9
            if threshold is None:
                raise InputError(
                    f"{spec.label}: no threshold meets epsilon={spec.epsilon:g}, "
                    f"delta={spec.delta:g}",
                    hint="raise delta or epsilon",
                )
            meas = trans >> dp.m.then_laplace_threshold(scale=scale, threshold=threshold)
            eps_used, delta_used = meas.map(d_in)
            counts = {str(k): int(v) for k, v in sorted(meas(keys).items())}
            acc = _accuracy(dp, scale, alpha, integer=True, gaussian=False)
            return answer(
                counts,
                {k: [v - acc, v + acc] for k, v in counts.items()},
                acc,
                True,
                mechanism="discrete_laplace_threshold",
                scale=scale,
                privacy_map={
                    "epsilon": float(eps_used),
                    "delta": float(delta_used),
                    "d_in": d_in,
                    "threshold": threshold,
                },
                notes=[
                    f"only keys whose noisy count reached {threshold} are released; "
                    "delta bounds the chance a rare key is revealed",
                    "intervals hold per released key",
                ],
            )

        return _Plan(spec, budget, _whole(run_threshold))

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
        codes = codes.astype(np.int32)  # category indices and -1: int32 is plenty

        def hist_trans() -> Any:
            mo = dp.L2Distance[int] if gaussian else dp.L1Distance[int]
            return (vec_i32, sd) >> dp.t.then_count_by_categories(
                categories=list(range(n_cat)), null_category=True, MO=mo
            )

        def stage_hist() -> Release:
            cal = _calibrate(
                dp,
                hist_trans,
                d_in,
                budget.unit,
                gaussian,
                key=("count_by_categories", "i32", n_cat),
            )
            ex = cal.trans(codes) if exact is None else exact
            return lambda: release_hist(cal, ex)

        def release_hist(cal: _Calibrated, exact: Any) -> DPAnswer:
            scale = cal.scale
            counts = [int(c) for c in cal.noise(exact)]
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
                privacy_map=pmap(cal.spent),
                notes=[
                    "'__other__' counts values outside the listed categories or bins",
                    "intervals hold per cell",
                ],
            )

        return _Plan(spec, budget, stage_hist, partial=lambda: list(hist_trans()(codes)))

    # Value statistics: numeric column, missing values dropped, public bounds.
    assert spec.column is not None and spec.bounds is not None
    series = _numeric(_column(data, spec.column), spec.column)
    lo, hi = spec.bounds
    integer = series.dtype.kind in "iub" and float(lo).is_integer() and float(hi).is_integer()

    def sum_trans() -> Any:
        if integer:
            return (vec_i, sd) >> dp.t.then_clamp((int(lo), int(hi))) >> dp.t.then_sum()
        return (vec_f, sd) >> dp.t.then_clamp((float(lo), float(hi))) >> dp.t.then_sum()

    sum_key = ("sum", integer, float(lo), float(hi))

    if stat == "sum" and spec.by is None:
        arr_s = _values(series, np.int64 if integer else np.float64)

        def stage_sum() -> Release:
            cal = _calibrate(dp, sum_trans, d_in, budget.unit, gaussian, key=sum_key)
            ex = cal.trans(arr_s) if exact is None else exact
            return lambda: scalar(cal, ex, integer)

        # float sums do not decompose: OpenDP's sensitivity accounts for its own rounding
        return _Plan(
            spec, budget, stage_sum, partial=(lambda: sum_trans()(arr_s)) if integer else None
        )

    if stat == "sum":  # group-by sum with public keys
        assert spec.by is not None and spec.categories is not None
        codes = _codes(_column(data, spec.by), spec.categories)
        mask = series.notna().to_numpy()
        vals_all = series.to_numpy(dtype=np.int64 if integer else np.float64, na_value=0)
        groups = [vals_all[(codes == i) & mask] for i in range(len(spec.categories))]
        m = spec.max_groups or spec.max_contributions

        def stage_group_sum() -> Release:
            # A person touches at most m groups: each group gets 1/m of the budget.
            cal = _calibrate(dp, sum_trans, d_in, budget.unit / m, gaussian, key=sum_key)
            ex = [cal.trans(arr) for arr in groups] if exact is None else exact
            return lambda: release_group_sum(cal, ex)

        def release_group_sum(cal: _Calibrated, exact: list[Any]) -> DPAnswer:
            scale = cal.scale
            acc = _accuracy(dp, scale, alpha, integer=integer, gaussian=gaussian)
            value: dict[str, Any] = {}
            for key, ex in zip(spec.categories or (), exact, strict=True):
                raw = cal.noise(ex)
                value[str(key)] = int(raw) if integer else float(raw)
            interval = {k: [v - acc, v + acc] for k, v in value.items()}
            per = cal.spent
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

        def group_partial() -> list[Any]:
            trans = sum_trans()
            return [trans(arr) for arr in groups]

        return _Plan(spec, budget, stage_group_sum, partial=group_partial if integer else None)

    if stat in ("mean", "variance"):
        arr_f = _values(series, np.float64)
        share = 0.0 if spec.size is not None else spec.size_share

        def moment_chain(size: int) -> Any:
            mid = (lo + hi) / 2.0
            chain = (vec_f, sd) >> dp.t.then_clamp((float(lo), float(hi)))
            chain = chain >> dp.t.then_resize(size=size, constant=mid)
            return chain >> (dp.t.then_mean() if stat == "mean" else dp.t.then_variance())

        def release_moment(cal: _Calibrated, exact: Any, used: float, notes: list[str]) -> DPAnswer:
            notes = [*notes, "the interval covers the clamped, resized statistic"]
            return scalar(cal, exact, False, used=used, notes=notes)

        if spec.size is not None:
            size = spec.size

            def stage_moment() -> Release:
                cal = _calibrate(
                    dp,
                    lambda: moment_chain(size),
                    d_in,
                    budget.unit,
                    gaussian,
                    key=(stat, float(lo), float(hi), size),
                )
                exact = cal.trans(arr_f)
                notes = ["resized to the public size given"]
                return lambda: release_moment(cal, exact, 0.0, notes)

            return _Plan(spec, budget, stage_moment)

        def run_moment() -> DPAnswer:
            # The size is itself a noisy count: everything runs once the spend is accepted.
            counting = _calibrate(
                dp,
                lambda: (vec_f, sd) >> dp.t.then_count(),
                d_in,
                budget.unit * share,
                gaussian,
                key=("count_float",),
            )
            size = max(2, int(counting.meas(arr_f)))
            notes = [f"size estimated with a DP count using {share:.0%} of the query's budget"]
            cal = _calibrate(
                dp,
                lambda: moment_chain(size),
                d_in,
                budget.unit * (1 - share),
                gaussian,
                key=(stat, float(lo), float(hi), size),
            )
            return release_moment(cal, cal.trans(arr_f), counting.spent, notes)

        return _Plan(spec, budget, _whole(run_moment))

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

    return _Plan(spec, budget, _whole(run_quantiles))
