"""ROC figures of a membership test: AUC, TPR at low FPR, bootstrap intervals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from veil import InputError
from veil.audit import auc, roc_curve, roc_summary, tpr_at_fpr

scores = st.lists(
    st.floats(-5, 5, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 1)),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(pos=scores, neg=scores)
def test_auc_matches_sklearn_and_is_antisymmetric(pos: list[float], neg: list[float]) -> None:
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    assert auc(pos, neg) == pytest.approx(roc_auc_score(y, np.r_[pos, neg]))
    assert auc(pos, neg) + auc(neg, pos) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(pos=scores, neg=scores, f=st.floats(0, 1))
def test_tpr_at_fpr_is_the_best_threshold_within_the_fpr(
    pos: list[float], neg: list[float], f: float
) -> None:
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    fpr, tpr, _ = sk_roc_curve(y, np.r_[pos, neg], drop_intermediate=False)
    expected = max(t for a, t in zip(fpr, tpr, strict=True) if a <= f + 1e-12)
    assert tpr_at_fpr(pos, neg, f) == pytest.approx(expected)
    # more false positives allowed never lowers the TPR
    assert tpr_at_fpr(pos, neg, min(1.0, f + 0.1)) >= tpr_at_fpr(pos, neg, f)


def test_roc_curve_runs_from_origin_to_one() -> None:
    f, t = roc_curve([3.0, 2.0, 2.0], [2.0, 1.0])
    assert (f[0], t[0], f[-1], t[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.all(np.diff(f) >= 0) and np.all(np.diff(t) >= 0)


def test_low_fpr_below_resolution_reads_as_no_false_positive() -> None:
    # 10 non-members: an FPR of 0.1 % allows none of them above the threshold
    rng = np.random.default_rng(0)
    neg = rng.normal(size=10)
    pos = np.r_[np.full(5, 10.0), neg.min() - 1 - np.arange(15.0)]
    s = roc_summary(pos, neg, n_boot=0)
    assert s["tpr_at_fpr"]["0.001"] == pytest.approx(5 / 20)
    assert s["fpr_resolution"] == pytest.approx(0.1)


def test_summary_keys_and_bootstrap_interval_brackets_the_estimate() -> None:
    rng = np.random.default_rng(1)
    pos, neg = rng.normal(0.5, 1, 2000), rng.normal(0, 1, 2000)
    s = roc_summary(pos, neg, n_boot=100, seed=3)
    assert {"auc", "tpr_at_fpr", "members", "nonmembers", "auc_ci", "tpr_at_fpr_ci"} <= set(s)
    assert set(s["tpr_at_fpr"]) == {"0.001", "0.01"}
    lo, hi = s["auc_ci"]
    assert lo < s["auc"] < hi and hi - lo < 0.06
    # the true AUC of N(0.5, 1) vs N(0, 1) is Phi(0.5 / sqrt 2) = 0.638
    assert lo < 0.638 < hi
    for lv in ("0.001", "0.01"):
        a, b = s["tpr_at_fpr_ci"][lv]
        assert a <= s["tpr_at_fpr"][lv] <= b
    assert s == roc_summary(pos, neg, n_boot=100, seed=3)  # seeded


@pytest.mark.parametrize(
    ("pos", "neg", "match"),
    [([], [1.0], "no member"), ([1.0], [], "no non-member"), ([np.nan], [1.0], "not finite")],
)
def test_bad_scores_are_refused(pos: list[float], neg: list[float], match: str) -> None:
    with pytest.raises(InputError, match=match):
        roc_summary(pos, neg)


def test_bad_levels_are_refused() -> None:
    with pytest.raises(InputError, match="fpr must be in"):
        tpr_at_fpr([1.0], [0.0], 2.0)
    with pytest.raises(InputError, match="confidence"):
        roc_summary([1.0], [0.0], confidence=1.5)


def test_synthetic_table_attack_reports_the_same_roc_figures() -> None:
    # veil synth evaluate's distance attack goes through roc_summary: a "synthesizer" that
    # copies its training rows is caught at low FPR, with the interface's keys
    import pandas as pd

    from veil.synth import privacy_metrics

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=400), "b": rng.choice(list("xyz"), 400)})
    real, holdout = df.iloc[:200], df.iloc[200:]
    pm = privacy_metrics(real, real.copy(), holdout, seed=0)
    assert set(pm["mia_tpr_at_fpr"]) == {"0.001", "0.01"}
    assert pm["mia_members"] == pm["mia_nonmembers"] == 200
    assert pm["mia_tpr_at_fpr"]["0.001"] == 1.0 and pm["mia_auc"] == 1.0
