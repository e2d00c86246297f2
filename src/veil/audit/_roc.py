"""ROC curves of a membership test: AUC, TPR at a fixed low FPR, bootstrap intervals.

Convention: a *score* is higher for rows the attack believes are members. ``members`` are
the scores of rows that were in the training data, ``nonmembers`` of rows that were not.

- **AUC** is the Mann-Whitney statistic (ties count one half).
- **TPR at FPR f** is the largest true-positive rate among thresholds whose false-positive
  rate is at most ``f`` (the convention of Carlini et al. 2022). With ``n`` non-members
  the smallest FPR that can be told apart from 0 is ``1 / n``: below that, the figure is the
  TPR at zero false positives, and ``fpr_resolution`` says so.
- **Confidence intervals** are stratified percentile bootstrap intervals (members and
  non-members resampled separately, ``n_boot`` resamples, seeded): they cover the
  threshold's own uncertainty, which a Clopper-Pearson interval on the TPR at a fixed
  threshold would not. At FPR 0.1 % with a few thousand non-members they are wide, as
  they should be.

Every function returns plain floats and lists, no data values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from veil._errors import InputError

__all__ = ["FPR_LEVELS", "auc", "roc_curve", "roc_summary", "tpr_at_fpr"]

FPR_LEVELS = (0.001, 0.01)


def _scores(name: str, x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0:
        raise InputError(f"no {name} scores", hint=f"the attack needs at least one {name} row")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{int((~np.isfinite(a)).sum())} {name} score(s) are not finite")
    return a


def auc(members: Any, nonmembers: Any) -> float:
    """Area under the ROC curve (Mann-Whitney, ties one half).

    Examples
    --------
    >>> auc([3.0, 4.0], [1.0, 2.0])
    1.0
    >>> auc([1.0], [1.0])
    0.5
    """
    from scipy.stats import rankdata

    pos, neg = _scores("member", members), _scores("non-member", nonmembers)
    ranks = rankdata(np.concatenate([pos, neg]))
    n1, n0 = len(pos), len(neg)
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def roc_curve(members: Any, nonmembers: Any) -> tuple[np.ndarray, np.ndarray]:
    """(fpr, tpr) at every distinct threshold, from (0, 0) to (1, 1), FPR non-decreasing."""
    pos, neg = _scores("member", members), _scores("non-member", nonmembers)
    scores = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], labels[order]
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]  # last index of each distinct score
    tp = np.cumsum(y)[last]
    fp = (last + 1) - tp
    tpr = np.r_[0.0, tp / len(pos)]
    fpr = np.r_[0.0, fp / len(neg)]
    return fpr, tpr


def tpr_at_fpr(members: Any, nonmembers: Any, fpr: float) -> float:
    """The largest TPR among thresholds with false-positive rate at most ``fpr``.

    Examples
    --------
    >>> tpr_at_fpr([5.0, 4.0, 0.5], [1.0, 0.0, 2.0], 0.0)
    0.6666666666666666
    """
    if not 0 <= fpr <= 1:
        raise InputError(f"fpr must be in [0, 1], got {fpr!r}")
    f, t = roc_curve(members, nonmembers)
    return float(t[f <= fpr + 1e-12].max())


def _bootstrap(
    pos: np.ndarray, neg: np.ndarray, levels: Sequence[float], n_boot: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """AUC and TPR@levels of ``n_boot`` stratified resamples."""
    rng = np.random.default_rng(seed)
    aucs = np.empty(n_boot)
    tprs = np.empty((n_boot, len(levels)))
    for b in range(n_boot):
        p = pos[rng.integers(0, len(pos), len(pos))]
        q = neg[rng.integers(0, len(neg), len(neg))]
        aucs[b] = auc(p, q)
        f, t = roc_curve(p, q)
        for j, lv in enumerate(levels):
            tprs[b, j] = t[f <= lv + 1e-12].max()
    return aucs, tprs


def _curve_points(fpr: np.ndarray, tpr: np.ndarray, max_points: int = 400) -> list[list[float]]:
    """The ROC's corner points, thinned evenly on a log FPR scale for plotting."""
    if len(fpr) <= max_points:
        return [[float(a), float(b)] for a, b in zip(fpr, tpr, strict=True)]
    lo = max(float(fpr[fpr > 0].min()) if np.any(fpr > 0) else 1e-6, 1e-6)
    grid = np.unique(np.r_[0.0, np.geomspace(lo, 1.0, max_points - 1)])
    idx = np.searchsorted(fpr, grid, side="right") - 1
    return [[float(g), float(tpr[i])] for g, i in zip(grid, idx, strict=True)]


def roc_summary(
    members: Any,
    nonmembers: Any,
    *,
    levels: Sequence[float] = FPR_LEVELS,
    confidence: float = 0.95,
    n_boot: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """AUC and TPR at each FPR level, with bootstrap intervals and the ROC curve.

    Returns
    -------
    dict
        ``auc``, ``tpr_at_fpr`` {"0.001": x, "0.01": y}, ``auc_ci`` [lo, hi],
        ``tpr_at_fpr_ci`` {"0.001": [lo, hi], ...}, ``ci_method``, ``confidence``,
        ``fpr_resolution`` (1 / non-members), ``members``, ``nonmembers`` and ``roc``
        (a list of [fpr, tpr] points).

    Examples
    --------
    >>> s = roc_summary([2.0, 3.0, 4.0], [0.0, 1.0, 2.5], n_boot=20)
    >>> round(s["auc"], 3), s["members"], s["nonmembers"]
    (0.889, 3, 3)
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence!r}")
    pos, neg = _scores("member", members), _scores("non-member", nonmembers)
    fpr, tpr = roc_curve(pos, neg)
    out: dict[str, Any] = {
        "auc": auc(pos, neg),
        "tpr_at_fpr": {str(lv): float(tpr[fpr <= lv + 1e-12].max()) for lv in levels},
        "members": len(pos),
        "nonmembers": len(neg),
    }
    alpha = (1 - confidence) / 2
    if n_boot > 0:
        aucs, tprs = _bootstrap(pos, neg, levels, n_boot, seed)
        out["auc_ci"] = [float(np.quantile(aucs, alpha)), float(np.quantile(aucs, 1 - alpha))]
        out["tpr_at_fpr_ci"] = {
            str(lv): [
                float(np.quantile(tprs[:, j], alpha)),
                float(np.quantile(tprs[:, j], 1 - alpha)),
            ]
            for j, lv in enumerate(levels)
        }
        out["ci_method"] = f"stratified percentile bootstrap, {n_boot} resamples"
        out["confidence"] = confidence
    out["fpr_resolution"] = 1 / len(neg)
    out["roc"] = _curve_points(fpr, tpr)
    return out
