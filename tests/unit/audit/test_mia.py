"""Membership-inference attacks: what each attack sees, on simulated signals and real models."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from veil import InputError
from veil.audit import (
    MembershipSignals,
    attack_scores,
    auc,
    balanced_inclusion,
    membership_inference,
    tpr_at_fpr,
)


@settings(max_examples=40, deadline=None)
@given(shadows=st.integers(1, 9), n=st.integers(1, 60), seed=st.integers(0, 2**32 - 1))
def test_every_row_is_in_half_of_the_shadows(shadows: int, n: int, seed: int) -> None:
    m = balanced_inclusion(shadows, n, np.random.default_rng(seed))
    per_row = m.sum(axis=0)
    assert set(per_row.tolist()) <= {shadows // 2, (shadows + 1) // 2}
    if shadows >= 2:
        assert per_row.min() >= 1 and (shadows - per_row).min() >= 1  # IN and OUT for each


def _simulated(seed: int, n: int = 4000, shadows: int = 16) -> MembershipSignals:
    """Rows of very different difficulty; training on a row raises its logit by 1.5.

    The loss attack cannot tell an easy non-member from a member; LiRA, which calibrates
    each row against shadow models, can.
    """
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 3, n)  # per-row difficulty (logit of the true class)

    def model(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logit = base + 1.5 * inside + rng.normal(0, 0.4, n)
        p = 1 / (1 + np.exp(-logit))
        return p, 1 - p

    t_in = np.zeros((1, n), dtype=bool)
    t_in[0, rng.permutation(n)[: n // 2]] = True
    s_in = balanced_inclusion(shadows, n, rng)
    tp, tr = model(t_in[0])
    sp, sr = zip(*(model(s_in[s]) for s in range(shadows)), strict=True)
    return MembershipSignals(tp[None], tr[None], t_in, np.vstack(sp), np.vstack(sr), s_in)


def test_lira_and_rmia_beat_the_loss_attack_at_low_fpr_when_rows_differ_in_difficulty() -> None:
    sig = _simulated(0)
    res = {}
    for attack in ("loss", "lira", "lira-offline", "rmia"):
        s = attack_scores(sig, attack)[0]
        pos, neg = s[sig.target_in[0]], s[~sig.target_in[0]]
        res[attack] = (auc(pos, neg), tpr_at_fpr(pos, neg, 0.01))
    assert res["loss"][0] < 0.7
    assert res["lira"][0] > 0.85 and res["lira"][1] > 5 * max(res["loss"][1], 0.01)
    assert res["lira-offline"][0] > 0.8 and res["lira-offline"][1] > res["loss"][1]
    assert res["rmia"][0] > 0.8 and res["rmia"][1] > res["loss"][1]


def test_no_attack_finds_members_when_training_changes_nothing() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    base = rng.normal(0, 3, n)
    t_in = np.zeros((1, n), dtype=bool)
    t_in[0, rng.permutation(n)[: n // 2]] = True
    s_in = balanced_inclusion(8, n, rng)

    def model() -> tuple[np.ndarray, np.ndarray]:
        p = 1 / (1 + np.exp(-(base + rng.normal(0, 0.4, n))))
        return p, 1 - p

    tp, tr = model()
    sp, sr = zip(*(model() for _ in range(8)), strict=True)
    sig = MembershipSignals(tp[None], tr[None], t_in, np.vstack(sp), np.vstack(sr), s_in)
    for attack in ("loss", "lira", "lira-offline", "rmia"):
        s = attack_scores(sig, attack)[0]
        assert abs(auc(s[t_in[0]], s[~t_in[0]]) - 0.5) < 0.04, attack


def _tree_audit(**kw: object) -> dict[str, dict[str, object]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 3))
    y = (x[:, 0] + rng.normal(0, 1.0, 300) > 0).astype(int)  # noisy labels: trees memorize

    def fit(rows: np.ndarray, seed: int) -> DecisionTreeClassifier:
        return DecisionTreeClassifier(random_state=seed % 2**31).fit(x[rows], y[rows])

    def proba(model: DecisionTreeClassifier, rows: np.ndarray) -> np.ndarray:
        return model.predict_proba(x[rows])

    return membership_inference(300, y, fit, proba, **kw)  # type: ignore[arg-type]


def test_api_on_a_scikit_learn_model_reports_the_interface_keys() -> None:
    res = _tree_audit(attacks=["loss", "lira", "rmia"], shadows=4, n_boot=20)
    for name, r in res.items():
        assert r["attack"] == name
        assert {"auc", "tpr_at_fpr", "members", "nonmembers", "auc_ci"} <= set(r)
        assert r["members"] + r["nonmembers"] == 300
        assert set(r["tpr_at_fpr"]) == {"0.001", "0.01"}
        assert r["auc"] > 0.6  # an unpruned tree on noisy labels leaks membership
    assert res == _tree_audit(attacks=["loss", "lira", "rmia"], shadows=4, n_boot=20)


def test_attacking_a_given_target_model() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 2))
    y = (rng.random(200) < 0.5).astype(int)  # pure noise labels
    members = rng.random(200) < 0.5
    target = DecisionTreeClassifier(random_state=0).fit(x[members], y[members])
    res = membership_inference(
        200,
        y,
        lambda rows, s: DecisionTreeClassifier(random_state=s % 2**31).fit(x[rows], y[rows]),
        lambda m, rows: m.predict_proba(x[rows]),
        attacks=["loss"],
        shadows=0,
        target_model=target,
        target_members=members,
        n_boot=0,
    )["loss"]
    assert res["members"] == int(members.sum())
    # memorized noise: every member is fitted (p = 1), a non-member only by chance (half)
    assert 0.7 < res["auc"] < 0.8


@pytest.mark.parametrize("attack", ["lira", "lira-offline", "rmia"])
def test_fewer_than_two_shadows_is_a_clear_error(attack: str) -> None:
    with pytest.raises(InputError, match="at least 2 shadow models, got 1"):
        _tree_audit(attacks=[attack], shadows=1)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="unknown attack"):
        _tree_audit(attacks=["lora"], shadows=4)
    with pytest.raises(InputError, match="labels has shape"):
        membership_inference(10, [0, 1], lambda r, s: None, attacks=["loss"], shadows=0)
    with pytest.raises(InputError, match="shape"):
        membership_inference(
            10,
            np.zeros(10, dtype=int),
            lambda r, s: None,
            lambda m, rows: np.ones(len(rows)),  # not one row of probabilities per row
            attacks=["loss"],
            shadows=0,
        )
