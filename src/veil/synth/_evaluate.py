"""Evaluating a synthetic table: quality, ML efficacy and privacy, against a real holdout.

- **quality**: :func:`veil.synth._quality.quality_report` (sdmetrics' definitions).
- **ML efficacy**: a gradient-boosted classifier trained on the synthetic table and one
  trained on the real training table, both tested on the real holdout; the AUC of each
  (one-vs-rest macro AUC for more than two classes).
- **privacy** (distances are Gower-style: numeric gaps divided by the real range, plus 1
  per differing categorical value, plus 1 per differing missingness):
  - ``dcr_synthetic`` / ``dcr_holdout``: median distance from a synthetic row, and from a
    real holdout row, to the closest real training row. A synthesizer that copies records
    puts synthetic rows closer than fresh real rows are;
  - ``share_closer_to_training``: among synthetic rows, the share closer to the training
    rows than to an equally large sample of holdout rows (0.5 means no memorisation);
  - ``nndr_synthetic`` / ``nndr_holdout``: median ratio of the nearest to the second nearest
    training-row distance (small means a row sits on top of one particular training row);
  - ``exact_copy_rate``: share of synthetic rows equal to some training row, beside
    ``real_duplicate_rate``, the same share for holdout rows (what chance alone gives);
  - ``mia_auc``: a distance-based membership-inference attack against the synthesizer:
    training rows (members) and holdout rows (non-members) are scored by how close the
    nearest synthetic row is; the AUC of telling them apart (0.5 = no leakage signal);
  - ``mia_tpr_at_fpr``: the same attack's true-positive rate at 0.1 % and 1 % false-positive
    rate (:func:`veil.audit.roc_summary`, the code of ``veil audit mia``), beside
    ``mia_members`` / ``mia_nonmembers`` (with n non-members, FPRs below 1/n read as 0).

No figure contains a data value: only scores, rates and column names.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil._numeric import coerce_numbers
from veil._progress import NullProgress, Progress
from veil.audit._roc import roc_summary
from veil.synth._quality import quality_report, sdtypes

__all__ = ["column_histograms", "evaluate", "ml_efficacy", "privacy_metrics"]


def _as_num(s: pd.Series) -> np.ndarray:
    if pd.api.types.is_datetime64_any_dtype(s):
        return np.where(s.isna(), np.nan, s.astype("int64").astype(float))
    return coerce_numbers(s).to_numpy(dtype=float)


class _Encoder:
    """Rows as (numeric matrix scaled by the real range, categorical code matrix)."""

    def __init__(self, real: pd.DataFrame, types: dict[str, str]) -> None:
        self.num = [c for c in real.columns if types[c] in ("numerical", "datetime")]
        self.cat = [c for c in real.columns if c not in self.num]
        self.lo: dict[str, float] = {}
        self.span: dict[str, float] = {}
        for c in self.num:
            x = _as_num(real[c])
            ok = x[~np.isnan(x)]
            self.lo[c] = float(ok.min()) if len(ok) else 0.0
            self.span[c] = float(ok.max() - ok.min()) if len(ok) and ok.max() > ok.min() else 1.0
        self.cats = {c: pd.Index(pd.unique(real[c].dropna().astype(str))) for c in self.cat}

    def __call__(self, df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        nums = np.zeros((len(df), len(self.num)), dtype=np.float32)
        for j, c in enumerate(self.num):
            x = (_as_num(df[c]) - self.lo[c]) / self.span[c]
            nums[:, j] = np.where(np.isnan(x), -1e3, x)  # missing: far from every value
        cats = np.zeros((len(df), len(self.cat)), dtype=np.int32)
        for j, c in enumerate(self.cat):
            s = df[c]
            codes = self.cats[c].get_indexer(pd.Index(s.astype(str)))
            codes = np.where(codes < 0, len(self.cats[c]) + 1, codes)
            codes = np.where(s.isna().to_numpy(), len(self.cats[c]), codes)
            cats[:, j] = codes
        return nums, cats


def _two_nearest(
    q: tuple[np.ndarray, np.ndarray], t: tuple[np.ndarray, np.ndarray], chunk: int = 128
) -> np.ndarray:
    """(n_q, 2) distances to the nearest and second nearest row of ``t``."""
    qn, qc = q
    tn, tc = t
    out = np.empty((len(qn), 2), dtype=np.float64)
    for s in range(0, len(qn), chunk):
        e = min(s + chunk, len(qn))
        d = np.zeros((e - s, len(tn)), dtype=np.float32)
        for j in range(qn.shape[1]):
            d += np.minimum(np.abs(qn[s:e, j, None] - tn[None, :, j]), 1.0)
        for j in range(qc.shape[1]):
            d += qc[s:e, j, None] != tc[None, :, j]
        if d.shape[1] >= 2:
            part = np.partition(d, 1, axis=1)[:, :2]
            out[s:e] = np.sort(part, axis=1)
        else:
            out[s:e, 0] = d[:, 0]
            out[s:e, 1] = np.inf
    return out


def _sub(df: pd.DataFrame, k: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(df) <= k:
        return df
    return df.iloc[np.sort(rng.choice(len(df), size=k, replace=False))]


def privacy_metrics(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame,
    *,
    max_rows: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Distance- and copy-based privacy measures (see the module docstring)."""
    rng = np.random.default_rng(seed)
    types = sdtypes(real)
    enc = _Encoder(real, types)
    train = enc(real)
    syn_q = _sub(synthetic, max_rows, rng)
    hold_q = _sub(holdout, max_rows, rng)
    d_syn = _two_nearest(enc(syn_q), train)
    d_hold = _two_nearest(enc(hold_q), train)
    # closer to training than to a same-size holdout sample?
    train_eq = enc(_sub(real, len(holdout), rng))
    d_syn_hold = _two_nearest(enc(syn_q), enc(holdout))[:, 0]
    d_syn_train_eq = _two_nearest(enc(syn_q), train_eq)[:, 0]
    closer = float(
        np.mean(d_syn_train_eq < d_syn_hold) + 0.5 * np.mean(d_syn_train_eq == d_syn_hold)
    )
    # membership inference: members vs non-members scored by closeness to the synthetic data
    m = min(max_rows, len(holdout), len(real))
    members = _sub(real, m, rng)
    non_members = _sub(holdout, m, rng)
    syn_all = enc(_sub(synthetic, max(10 * max_rows, 20000), rng))
    s_in = -_two_nearest(enc(members), syn_all)[:, 0]
    s_out = -_two_nearest(enc(non_members), syn_all)[:, 0]
    # the same ROC code as the attacks on models (veil audit mia)
    mia = roc_summary(s_in, s_out, n_boot=0)

    def _ratio(d: np.ndarray) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(d[:, 1] > 0, d[:, 0] / d[:, 1], np.where(d[:, 0] > 0, 1.0, 0.0))
        return float(np.median(r))

    key = [str(c) for c in real.columns]
    train_rows = set(map(tuple, real[key].astype(str).to_numpy()))
    copies = float(np.mean([tuple(r) in train_rows for r in synthetic[key].astype(str).to_numpy()]))
    dup = float(np.mean([tuple(r) in train_rows for r in holdout[key].astype(str).to_numpy()]))
    return {
        "dcr_synthetic": float(np.median(d_syn[:, 0])),
        "dcr_holdout": float(np.median(d_hold[:, 0])),
        "dcr_synthetic_p5": float(np.percentile(d_syn[:, 0], 5)),
        "dcr_holdout_p5": float(np.percentile(d_hold[:, 0], 5)),
        "share_closer_to_training": closer,
        "nndr_synthetic": _ratio(d_syn),
        "nndr_holdout": _ratio(d_hold),
        "exact_copy_rate": copies,
        "real_duplicate_rate": dup,
        "mia_auc": mia["auc"],
        "mia_tpr_at_fpr": mia["tpr_at_fpr"],
        "mia_members": mia["members"],
        "mia_nonmembers": mia["nonmembers"],
        "rows_compared": len(syn_q),
    }


def _design(frames: list[pd.DataFrame], target: str, types: dict[str, str]) -> list[pd.DataFrame]:
    cols = [c for c in frames[0].columns if c != target]
    out = []
    cats = {
        c: sorted({str(v) for f in frames for v in f[c].dropna().unique()})
        for c in cols
        if types[c] in ("categorical", "boolean")
    }
    for f in frames:
        x = pd.DataFrame(index=f.index)
        for c in cols:
            if c in cats:
                x[c] = pd.Categorical(f[c].astype(str).where(f[c].notna()), categories=cats[c])
            else:
                x[c] = _as_num(f[c])
        out.append(x)
    return out


def ml_efficacy(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame,
    target: str,
    *,
    seed: int = 0,
    threads: int = 1,
) -> dict[str, Any]:
    """Train on synthetic vs train on real, both tested on the real holdout (AUC)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    for name, f in (("real", real), ("synthetic", synthetic), ("holdout", holdout)):
        if target not in f.columns:
            raise SchemaError(f"the target column {target!r} is not in the {name} table")
    types = sdtypes(real)
    y_real = real[target].astype(str).where(real[target].notna(), "<missing>")
    y_syn = synthetic[target].astype(str).where(synthetic[target].notna(), "<missing>")
    y_hold = holdout[target].astype(str).where(holdout[target].notna(), "<missing>")
    classes = sorted(set(y_real))
    if len(classes) < 2:
        raise InputError(
            f"the target column {target!r} has fewer than two classes in the real data"
        )
    if len(classes) > 50:
        raise InputError(
            f"the target column {target!r} has {len(classes)} classes; ML efficacy needs a "
            "categorical target with at most 50"
        )
    x_real, x_syn, x_hold = _design([real, synthetic, holdout], target, types)

    def fit_auc(x: pd.DataFrame, y: pd.Series) -> float:
        if len(set(y)) < 2:
            return 0.5
        model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=seed)
        model.fit(x, y)
        proba = model.predict_proba(x_hold)
        known = list(model.classes_)
        if len(classes) == 2:
            pos = classes[1]
            score = proba[:, known.index(pos)] if pos in known else np.zeros(len(x_hold))
            return float(roc_auc_score((y_hold == pos).astype(int), score))
        full = np.zeros((len(x_hold), len(classes)))
        for j, c in enumerate(classes):
            if c in known:
                full[:, j] = proba[:, known.index(c)]
        keep = y_hold.isin(classes).to_numpy()
        full = full / np.clip(full.sum(axis=1, keepdims=True), 1e-12, None)
        return float(
            roc_auc_score(
                y_hold[keep], full[keep], multi_class="ovr", average="macro", labels=classes
            )
        )

    from threadpoolctl import threadpool_limits

    # One OpenMP thread: on a busy machine the default spin-waiting threads of the booster
    # can be 30x slower than one thread.
    with threadpool_limits(limits=threads):
        synthetic_auc = fit_auc(x_syn, y_syn)
        real_auc = fit_auc(x_real, y_real)
    return {
        "target": target,
        "model": "HistGradientBoostingClassifier",
        "synthetic_auc": synthetic_auc,
        "real_auc": real_auc,
        "positive_class_rank": 1 if len(classes) == 2 else None,
    }


def column_histograms(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Any,
    *,
    public: set[str] | None = None,
    bins: int = 20,
    top: int = 20,
) -> list[dict[str, Any]]:
    """Real and synthetic shares per bin of every modelled column, for the report's plots.

    Numeric columns: ``bins`` equal bins between the model's bounds; categorical columns:
    the model's categories (at most ``top``, by real share, the rest summed). Labels name
    the bins only for columns in ``public`` (a declared or DP domain); other columns are
    labelled by position, so the report holds shares, never a value from the data.
    """
    public = set(public or ())
    out: list[dict[str, Any]] = []
    for spec in schema.modelled:
        name = spec.name
        if name not in real.columns or name not in synthetic.columns:
            continue
        shown = name in public
        if spec.continuous:
            lo, hi = float(spec.low or 0.0), float(spec.high or 0.0)
            if not hi > lo:
                continue
            edges = np.linspace(lo, hi, bins + 1)

            def shares(s: pd.Series, edges: np.ndarray = edges) -> list[float]:
                x = _as_num(s)
                x = np.clip(x[~np.isnan(x)], edges[0], edges[-1])
                h = np.histogram(x, bins=edges)[0].astype(float)
                return [float(v) for v in (h / h.sum() if h.sum() else h)]

            labels = (
                [f"{edges[i]:.4g}" for i in range(bins)]
                if shown and spec.kind != "datetime"
                else [str(i + 1) for i in range(bins)]
            )
            out.append(
                {
                    "column": name,
                    "kind": "numeric",
                    "labels": labels,
                    "labels_are_values": shown and spec.kind != "datetime",
                    "real": shares(real[name]),
                    "synthetic": shares(synthetic[name]),
                }
            )
        else:
            cats = list(spec.categories)
            r = real[name].astype(str).value_counts(normalize=True)
            sy = synthetic[name].astype(str).value_counts(normalize=True)
            keys = [str(c) for c in cats]
            order = sorted(keys, key=lambda k: -float(r.get(k, 0.0)))
            head, rest = order[:top], order[top:]
            rv = [float(r.get(k, 0.0)) for k in head]
            sv = [float(sy.get(k, 0.0)) for k in head]
            labels = head if shown else [f"#{i + 1}" for i in range(len(head))]
            if rest:
                rv.append(float(sum(r.get(k, 0.0) for k in rest)))
                sv.append(float(sum(sy.get(k, 0.0) for k in rest)))
                labels.append("others")
            out.append(
                {
                    "column": name,
                    "kind": "categorical",
                    "labels": labels,
                    "labels_are_values": shown,
                    "real": rv,
                    "synthetic": sv,
                }
            )
    return out


def evaluate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    *,
    target: str | None = None,
    max_rows: int = 2000,
    seed: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """All the measures of a synthetic table against the real training data (and holdout).

    Returns
    -------
    dict
        ``quality`` {score, column_shapes, column_pair_trends, details}, ``ml_efficacy``
        {synthetic_auc, real_auc, ...} when a holdout and a target are given, ``privacy``
        {dcr_synthetic, dcr_holdout, exact_copy_rate, mia_auc, ...} when a holdout is given.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2, 3, 4] * 10, "b": ["x", "y"] * 20})
    >>> round(evaluate(df, df)["quality"]["score"], 3)
    1.0
    """
    progress = progress or NullProgress()
    missing = [c for c in real.columns if c not in synthetic.columns]
    if missing:
        raise SchemaError(
            f"the synthetic table lacks {len(missing)} column(s): {', '.join(map(str, missing))}"
        )
    synthetic = synthetic[list(real.columns)]
    out: dict[str, Any] = {"rows": {"real": len(real), "synthetic": len(synthetic)}}
    with progress.task("evaluating: quality", total=1) as t:
        out["quality"] = quality_report(real, synthetic)
        t.advance()
    if holdout is not None:
        bad = [c for c in real.columns if c not in holdout.columns]
        if bad:
            raise SchemaError(
                f"the holdout table lacks {len(bad)} column(s): {', '.join(map(str, bad))}"
            )
        holdout = holdout[list(real.columns)]
        out["rows"]["holdout"] = len(holdout)
        if target is not None:
            with progress.task("evaluating: ML efficacy", total=1) as t:
                out["ml_efficacy"] = ml_efficacy(real, synthetic, holdout, target, seed=seed)
                t.advance()
        with progress.task("evaluating: privacy", total=1) as t:
            out["privacy"] = privacy_metrics(real, synthetic, holdout, max_rows=max_rows, seed=seed)
            t.advance()
    elif target is not None:
        raise InputError("ML efficacy needs a real holdout table", hint="pass --holdout")
    q = out["quality"]
    for key in ("score", "column_shapes", "column_pair_trends"):
        v = q.get(key)
        if isinstance(v, float) and math.isnan(v):
            q[key] = None
    return out
