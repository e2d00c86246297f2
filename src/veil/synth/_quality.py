"""Quality of a synthetic table: column shapes and column-pair trends.

The definitions are those of sdmetrics' single-table ``QualityReport`` (version 0.32),
re-implemented here because sdmetrics (MIT) requires ``copulas``, which is under the
Business Source License since 2023; veil must not pull it in. A test compares our numbers
with sdmetrics' on several tables whenever sdmetrics is installed.

- **Column shapes** (per column): numeric and dates, ``1 - KS`` (two-sample Kolmogorov-
  Smirnov statistic, missing values dropped, values rounded to 14 decimals); categorical
  and boolean, ``1 - TVD`` over the real categories (a synthetic-only category counts
  with a real frequency of 1e-6, as in sdmetrics).
- **Column pair trends** (per pair): both continuous, ``1 - |r_real - r_syn| / 2`` with
  Pearson's r; otherwise ``1 - TVD`` of the two-way contingency table, continuous columns
  first cut into the 10 ``numpy.histogram_bin_edges`` bins of *each* table (as sdmetrics
  does). Only pairs that are associated in the real data count: ``|r_real| > 0.5``, or
  Cramer's V of the real contingency table above 0.3.
- **Score**: the mean of the two property averages (a property with no scored item is
  left out).

A mean can hide a broken column, and sdmetrics scores only associated pairs and cuts a
numeric column between *each table's own* minimum and maximum (one synthetic maximum past
the real one moves every bin: ``benchmarks/synth_max_sensitivity.py``), so veil's own
figures beside it are:

- **every pair** gets a joint score, ``joint_score``: ``1 - TVD`` of the pair's two-way
  table, a continuous column cut into ``JOINT_BINS`` (10) **quantile bins of the real
  column** that both tables share (values past the real range fall in the outer bins;
  equal quantiles merge, so a column of few values has at most a bin per value; missing
  values are a value), whether or not the pair is associated: a column with no value in
  one table (a synthesizer that lost it) scores as far as its missing values lie from the
  other table's values, 0 when the other has none missing. ``all_pairs`` is their
  mean and ``score_all_pairs`` the mean of ``column_shapes`` and ``all_pairs``: veil's
  quality, with no pair left out (``score`` stays sdmetrics' number, the peer figure);
- ``worst_column`` and ``worst_pair``: the lowest column-shape score and the lowest joint
  score, with the column names, so one broken column or pair shows whatever the mean.

A column with values in one table and none in the other has shape score 0 and a
``reason``: both complements drop missing values, which leaves nothing to compare, and a
column left unscored would drop out of the mean and of ``worst_column``, so a synthesizer
that lost a whole column would look better for it. A column empty in both has None.

Every number lies in [0, 1]; identical tables score 1.
"""

from __future__ import annotations

import itertools
import math
import sys
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp, pearsonr

from veil._errors import SchemaError
from veil._numeric import coerce_numbers

__all__ = ["quality_report", "sdtypes"]

CORRELATION_THRESHOLD = 0.5
ASSOCIATION_THRESHOLD = 0.3
SUBSAMPLE = 50_000
JOINT_BINS = 10
_DECIMALS = sys.float_info.dig - 1


def sdtypes(df: pd.DataFrame) -> dict[str, str]:
    """``numerical``, ``datetime``, ``boolean`` or ``categorical`` per column (by dtype)."""
    out = {}
    for c in df.columns:
        s = df[c]
        if pd.api.types.is_bool_dtype(s):
            out[str(c)] = "boolean"
        elif pd.api.types.is_datetime64_any_dtype(s):
            out[str(c)] = "datetime"
        elif pd.api.types.is_numeric_dtype(s):
            out[str(c)] = "numerical"
        else:
            out[str(c)] = "categorical"
    return out


def _continuous(t: str) -> bool:
    return t in ("numerical", "datetime")


def _to_num(s: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(s):
        return pd.Series(np.where(s.isna(), np.nan, s.astype("int64").astype(float)), index=s.index)
    return coerce_numbers(s).astype(float)


def ks_complement(real: pd.Series, synthetic: pd.Series) -> float:
    r = _to_num(real.dropna()).round(_DECIMALS)
    s = _to_num(synthetic.dropna()).round(_DECIMALS)
    if len(r) == 0 or len(s) == 0:
        return math.nan
    # only the statistic is used: the asymptotic p-value spares the exact one, which warns
    # (and is slow) for disjoint samples, e.g. a synthetic column past the real range
    return float(1 - ks_2samp(r.to_numpy(), s.to_numpy(), method="asymp").statistic)


def tv_complement(real: pd.Series, synthetic: pd.Series) -> float:
    r = real.dropna()
    s = synthetic.dropna()
    if len(r) == 0 or len(s) == 0:
        return math.nan
    rc = r.value_counts().astype(float)
    sc = s.value_counts().astype(float)
    extra = sc.index.difference(rc.index)
    if len(extra):
        rc = pd.concat([rc, pd.Series(1e-6, index=extra)])
    f_exp = rc / rc.sum()
    f_obs = sc.reindex(rc.index, fill_value=0.0) / sc.sum()
    return _unit(1 - 0.5 * np.abs(f_obs.to_numpy() - f_exp.to_numpy()).sum())


def _discretize(s: pd.Series) -> pd.Series:
    x = _to_num(s)
    edges = np.histogram_bin_edges(x.dropna())
    return pd.Series(np.digitize(x.to_numpy(), bins=edges), index=s.index)


def _quantile_codes(s: pd.Series, real: pd.Series) -> pd.Series:
    """``s`` cut into the ``JOINT_BINS`` quantile bins of the *real* column: the edges are
    the real column's distinct quantiles at 1/10 ... 9/10, a bin reaches from one edge up
    to the next (values below the first edge, or past the real range, fall in the outer
    bins); missing values keep NaN (counted as a value by the joint score). Equal quantiles
    merge, so a column of few distinct values gets at most one bin per value."""
    x = _to_num(real).dropna().to_numpy()
    inner = (
        np.unique(np.quantile(x, np.linspace(0.0, 1.0, JOINT_BINS + 1)[1:-1]))
        if len(x)
        else np.empty(0)
    )
    v = _to_num(s).to_numpy()
    codes = np.searchsorted(inner, v, side="right").astype(float)
    codes[np.isnan(v)] = np.nan
    return pd.Series(codes, index=s.index)


def _cramers_v_sparse(counts: pd.Series) -> float:
    """Cramer's V (no continuity correction, as ``scipy.stats.contingency.association``) from
    the non-zero cells of a two-way table: a dense table of two near-unique columns has
    distinct x distinct cells (gigabytes), this needs memory linear in the rows.
    ``nan`` when the table is empty or has a single row or column."""
    n = float(counts.sum())
    rows = counts.groupby(level=0, dropna=False).transform("sum").to_numpy(dtype=float)
    cols = counts.groupby(level=1, dropna=False).transform("sum").to_numpy(dtype=float)
    k = min(
        counts.index.get_level_values(0).nunique(dropna=False),
        counts.index.get_level_values(1).nunique(dropna=False),
    )
    if n == 0 or k < 2:
        return math.nan
    obs = counts.to_numpy(dtype=float)
    # chi2 = sum (O - E)^2 / E over every cell; the empty cells add sum E = n - sum E(non-empty)
    expected = rows * cols / n
    chi2 = float(((obs - expected) ** 2 / expected).sum() + (n - expected.sum()))
    return math.sqrt(max(chi2, 0.0) / (n * (k - 1)))


def _unit(x: float) -> float:
    """``x`` rounded to 12 decimals, in [0, 1]: a sum of shares carries float rounding,
    so tables as far apart as can be would score 1e-16, or -2e-16, not 0."""
    return min(1.0, max(0.0, round(float(x), 12)))


def joint_similarity(real: pd.DataFrame, synthetic: pd.DataFrame) -> float:
    """``1 - TVD`` of the two-way tables of two (already discretized) columns; NaN when a
    table has no complete row. Missing values count as a value."""
    cols = list(real.columns[:2])
    if len(real) == 0 or len(synthetic) == 0:
        return math.nan
    pr = real.groupby(cols, dropna=False).size() / len(real)
    ps = synthetic.groupby(cols, dropna=False).size() / len(synthetic)
    idx = pr.index.union(ps.index, sort=False).drop_duplicates()
    diff = (pr.reindex(idx, fill_value=0) - ps.reindex(idx, fill_value=0)).abs().fillna(0)
    return _unit(1 - diff.sum() / 2)


def contingency_similarity(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[float, float]:
    """(score, Cramer's V of the real table) for a two-column frame."""
    cols = list(real.columns[:2])
    real_counts = real.groupby(cols, dropna=False).size()
    v = _cramers_v_sparse(real_counts)
    if math.isnan(v):
        return math.nan, math.nan
    if v <= ASSOCIATION_THRESHOLD:
        return math.nan, v
    pr = real_counts / len(real)
    ps = synthetic.groupby(cols, dropna=False).size() / len(synthetic)
    idx = pr.index.union(ps.index, sort=False).drop_duplicates()
    diff = (pr.reindex(idx, fill_value=0) - ps.reindex(idx, fill_value=0)).abs().fillna(0)
    return _unit(1 - diff.sum() / 2), v


def correlation_similarity(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[float, float]:
    """(score, Pearson r of the real pair); NaN score when |r| <= 0.5 or undefined."""
    a, b = real.columns[:2]
    for frame in (real, synthetic):
        if (frame.nunique() == 1).any():
            return math.nan, math.nan  # sdmetrics refuses constant data (an error -> NaN)
    r = real[[a, b]].dropna()
    s = synthetic[[a, b]].dropna()
    if len(r) < 2 or len(s) < 2:
        return math.nan, math.nan
    rr = float(pearsonr(_to_num(r[a]), _to_num(r[b]))[0])
    if not abs(rr) > CORRELATION_THRESHOLD:
        return math.nan, rr
    rs = float(pearsonr(_to_num(s[a]), _to_num(s[b]))[0])
    if math.isnan(rr) or math.isnan(rs):
        return math.nan, rr
    return 1 - abs(rr - rs) / 2, rr


def quality_report(
    real: pd.DataFrame, synthetic: pd.DataFrame, *, types: dict[str, str] | None = None
) -> dict[str, Any]:
    """Column-shape and column-pair-trend similarity, as in sdmetrics' QualityReport.

    Parameters
    ----------
    real, synthetic
        Tables with the same columns.
    types
        Column -> ``numerical``/``datetime``/``categorical``/``boolean``; inferred from
        the real table's dtypes when not given.

    Returns
    -------
    dict
        ``score``, ``column_shapes``, ``column_pair_trends`` (floats in [0, 1]) and the
        per-column and per-pair details (column names, metric, score; no data values).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2, 3, 4], "b": ["x", "y", "x", "y"]})
    >>> quality_report(df, df)["score"]
    1.0
    """
    missing = [c for c in real.columns if c not in synthetic.columns]
    if missing:
        raise SchemaError(
            f"the synthetic table lacks {len(missing)} column(s): {', '.join(map(str, missing))}"
        )
    types = dict(types or sdtypes(real))
    cols = [str(c) for c in real.columns]
    real = real.copy()
    synthetic = synthetic[real.columns].copy()
    real.columns = cols
    synthetic.columns = cols
    shapes: list[dict[str, Any]] = []
    for c in cols:
        metric = "KSComplement" if _continuous(types[c]) else "TVComplement"
        score = (
            ks_complement(real[c], synthetic[c])
            if _continuous(types[c])
            else tv_complement(real[c], synthetic[c])
        )
        shape: dict[str, Any] = {"column": c, "metric": metric, "score": score}
        r_empty, s_empty = real[c].isna().all(), synthetic[c].isna().all()
        if r_empty != s_empty:  # the worst a column can be, not a column left unscored
            shape["score"] = 0.0
            shape["reason"] = (
                "no value in the synthetic column"
                if s_empty
                else "values in the synthetic column where the real one has none"
            )
        elif r_empty:
            shape["reason"] = "no value in either table"
        shapes.append(shape)

    rnum = {c: _to_num(real[c]) for c in cols if _continuous(types[c])}
    snum = {c: _to_num(synthetic[c]) for c in cols if _continuous(types[c])}
    rdisc = {c: _discretize(real[c]) for c in rnum}
    sdisc = {c: _discretize(synthetic[c]) for c in snum}
    rjoint = {c: _quantile_codes(real[c], real[c]) for c in rnum}
    sjoint = {c: _quantile_codes(synthetic[c], real[c]) for c in snum}
    pairs: list[dict[str, Any]] = []
    rng = np.random.default_rng(0)
    r_keep = rng.permutation(len(real))[: min(SUBSAMPLE, len(real))]
    s_keep = rng.permutation(len(synthetic))[: min(SUBSAMPLE, len(synthetic))]
    for a, b in itertools.combinations(cols, 2):
        ca, cb = _continuous(types[a]), _continuous(types[b])
        ra = rdisc[a] if ca else real[a]
        rb = rdisc[b] if cb else real[b]
        sa = sdisc[a] if ca else synthetic[a]
        sb = sdisc[b] if cb else synthetic[b]
        rf = pd.DataFrame({a: ra, b: rb})
        sf = pd.DataFrame({a: sa, b: sb})
        if max(len(rf), len(sf)) > SUBSAMPLE:
            rf, sf = rf.iloc[r_keep], sf.iloc[s_keep]
        if ca and cb:
            score, strength = correlation_similarity(
                pd.DataFrame({a: rnum[a], b: rnum[b]}), pd.DataFrame({a: snum[a], b: snum[b]})
            )
            metric = "CorrelationSimilarity"
        else:
            score, strength = contingency_similarity(rf, sf)
            metric = "ContingencySimilarity"
        empty = [c for c in (a, b) if real[c].isna().all() or synthetic[c].isna().all()]
        # the joint score cuts both tables at the real column's quantiles (sdmetrics cuts
        # each table at its own equal bins, so one stray synthetic value moves every bin)
        jr = pd.DataFrame({a: rjoint[a] if ca else real[a], b: rjoint[b] if cb else real[b]})
        js = pd.DataFrame(
            {a: sjoint[a] if ca else synthetic[a], b: sjoint[b] if cb else synthetic[b]}
        )
        if len(jr) > SUBSAMPLE:
            jr = jr.iloc[r_keep]
        if len(js) > SUBSAMPLE:
            js = js.iloc[s_keep]
        # missing values are a value here, so a column empty in one table only scores
        # as far from the other as it is (0 when the other has no missing value)
        joint = joint_similarity(jr, js)
        item: dict[str, Any] = {
            "columns": [a, b],
            "metric": metric,
            "score": None if math.isnan(score) else score,
            "real_strength": None if math.isnan(strength) else strength,
            "joint_score": None if math.isnan(joint) else joint,
        }
        if empty:
            item["reason"] = f"no value in column(s) {', '.join(empty)} of one table"
        elif item["score"] is None:
            item["reason"] = (
                "not associated in the real data (|r| <= 0.5 or Cramer's V <= 0.3): "
                "left out of the sdmetrics pair score, scored jointly"
            )
        pairs.append(item)
    shape_scores = [
        s["score"] for s in shapes if s["score"] is not None and not math.isnan(s["score"])
    ]
    pair_scores = [p["score"] for p in pairs if p["score"] is not None]
    col_shapes = float(np.mean(shape_scores)) if shape_scores else math.nan
    col_pairs = float(np.mean(pair_scores)) if pair_scores else math.nan
    parts = [x for x in (col_shapes, col_pairs) if not math.isnan(x)]
    score = float(np.mean(parts)) if parts else math.nan
    jointly = [p for p in pairs if p["joint_score"] is not None]
    all_pairs = float(np.mean([p["joint_score"] for p in jointly])) if jointly else math.nan
    parts_all = [x for x in (col_shapes, all_pairs) if not math.isnan(x)]
    scored_shapes = [s for s in shapes if s["score"] is not None and not math.isnan(s["score"])]
    worst_col = min(scored_shapes, key=lambda s: s["score"]) if scored_shapes else None
    worst_pair = min(jointly, key=lambda p: p["joint_score"]) if jointly else None
    return {
        "score": score,
        "column_shapes": col_shapes,
        "column_pair_trends": None if math.isnan(col_pairs) else col_pairs,
        "all_pairs": None if math.isnan(all_pairs) else all_pairs,
        "score_all_pairs": float(np.mean(parts_all)) if parts_all else None,
        "worst_column": None
        if worst_col is None
        else {
            "column": worst_col["column"],
            "metric": worst_col["metric"],
            "score": worst_col["score"],
            **({"reason": worst_col["reason"]} if "reason" in worst_col else {}),
        },
        "worst_pair": None
        if worst_pair is None
        else {"columns": worst_pair["columns"], "score": worst_pair["joint_score"]},
        "pairs_total": len(pairs),
        "pairs_scored": len(pair_scores),
        "details": {"column_shapes": shapes, "column_pair_trends": pairs},
        "definition": "sdmetrics 0.32 QualityReport (re-implemented; thresholds 0.5 / 0.3)",
    }
