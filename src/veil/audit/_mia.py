"""Membership-inference attacks on a trained classifier: loss, LiRA (online, offline), RMIA.

The audit asks: given a model and a row, can an attacker tell whether the row was in the
model's training data? It trains ``targets`` target models, each on a random half of the
rows (its *members*; the other half are its *non-members*), and scores every row against
every target with the chosen attack. What it reports is the ROC of telling members from
non-members (:mod:`veil.audit._roc`): AUC and, above all, the true-positive rate at a low
false-positive rate (0.1 %, 1 %), where an attack that confidently identifies a few
members shows up and an average-case AUC hides it.

Attacks (a score is higher for rows judged members):

``loss``
    The log-probability the target gives the row's true class (minus the cross-entropy
    loss; Yeom et al. 2018). Needs no shadow models.
``lira`` (online) and ``lira-offline``
    Carlini et al., "Membership Inference Attacks From First Principles" (S&P 2022).
    ``shadows`` shadow models are trained the same way as the target, on random halves
    chosen so that every row is in exactly half of them (one more or less when
    ``shadows`` is odd). A model's signal on a row is the logit-scaled confidence
    ``log p_y - log sum_{j != y} p_j``. For each row, Gaussians are fitted to the signals of
    the shadows that trained on it (IN) and of those that did not (OUT); the variance is
    pooled over rows when there are fewer than 64 shadows (the paper's advice for few
    shadows), else per row. Online score: the log-likelihood ratio of the target's signal
    under IN versus OUT. Offline score: the one-sided ``log Phi((s - mu_out) / sigma_out)``
    using OUT shadows only.
``rmia``
    Zarifzadeh et al., "Low-Cost High-Power Membership Inference Attacks" (ICML 2024),
    online: ``Pr(x) `` is the mean over all shadows (reference models, half of which
    trained on x) of the probability of x's true class; a row's likelihood ratio is
    ``p_target(x) / Pr(x)``, and its score is the share of population samples ``z`` (every
    row, members and non-members alike; the attacker does not know which is which) whose
    own ratio it exceeds by a factor ``gamma`` (default 1).

Privacy semantics: the audit itself is not private. It trains many models on the data and
reports measurements about it; its outputs contain no data value (only scores' summaries),
but keep them with the data owner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._errors import InputError
from veil._progress import NullProgress, Progress
from veil.audit._roc import roc_summary

__all__ = [
    "ATTACKS",
    "MIN_SHADOWS",
    "MembershipSignals",
    "attack_scores",
    "balanced_inclusion",
    "check_attack",
    "collect_signals",
    "logit_confidence",
    "membership_inference",
]

ATTACKS = ("loss", "lira", "lira-offline", "rmia")
MIN_SHADOWS = 2
_PER_ROW_VARIANCE_FROM = 64  # shadows; below, one pooled variance (Carlini et al. 2022)
_TINY = 1e-300


def check_attack(attack: str, shadows: int) -> None:
    """Refuse an unknown attack, or too few shadow models for one that needs them."""
    if attack not in ATTACKS:
        raise InputError(f"unknown attack {attack!r}", hint=f"use one of: {', '.join(ATTACKS)}")
    if attack != "loss" and shadows < MIN_SHADOWS:
        raise InputError(
            f"the {attack} attack needs at least {MIN_SHADOWS} shadow models, got {shadows}",
            hint="pass --shadows 2 or more (LiRA's power grows with shadows: 16 or more is usual)",
        )


def _true_class(proba: Any, labels: np.ndarray, who: str) -> tuple[np.ndarray, np.ndarray]:
    """(p_y, sum of the other classes' probabilities) per row, in float64."""
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != len(labels):
        raise InputError(
            f"{who} returned probabilities of shape {p.shape}; expected ({len(labels)}, classes)",
            hint="predict_proba must return one row of class probabilities per input row",
        )
    if labels.max(initial=0) >= p.shape[1]:
        raise InputError(
            f"a label index is {int(labels.max())} but {who} returned {p.shape[1]} classes"
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InputError(f"{who} returned probabilities that are negative or not finite")
    rows = np.arange(len(labels))
    py = p[rows, labels]
    rest = p.sum(axis=1) - py
    other = p.copy()
    other[rows, labels] = 0.0
    rest = np.where(rest < 1e-6, other.sum(axis=1), rest)  # keep tiny values exact
    return py, rest


def logit_confidence(py: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """``log p_y - log sum_{j != y} p_j``: the logit-scaled confidence LiRA fits Gaussians to.

    Examples
    --------
    >>> import numpy as np
    >>> logit_confidence(np.array([0.5, 0.9]), np.array([0.5, 0.1])).round(3).tolist()
    [0.0, 2.197]
    """
    return np.log(np.maximum(py, _TINY)) - np.log(np.maximum(rest, _TINY))


@dataclass
class MembershipSignals:
    """What the attacks need: every model's confidence on every row, and who trained on what.

    ``target_p`` (T, n) and ``target_rest`` (T, n): the true class's probability and the
    rest under each target model; ``target_in`` (T, n) bool: the targets' members.
    ``shadow_p``, ``shadow_rest`` (S, n) and ``shadow_in`` (S, n) likewise for the shadows.
    """

    target_p: np.ndarray
    target_rest: np.ndarray
    target_in: np.ndarray
    shadow_p: np.ndarray
    shadow_rest: np.ndarray
    shadow_in: np.ndarray

    @property
    def shadows(self) -> int:
        return int(self.shadow_p.shape[0])


def balanced_inclusion(shadows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(shadows, n) bool: each row in exactly half of the shadows (+-1 when odd).

    Examples
    --------
    >>> import numpy as np
    >>> m = balanced_inclusion(4, 6, np.random.default_rng(0))
    >>> m.sum(axis=0).tolist()
    [2, 2, 2, 2, 2, 2]
    """
    if shadows == 0:
        return np.zeros((0, n), dtype=bool)
    k = np.full(n, shadows // 2)
    if shadows % 2:
        k += np.arange(n) % 2  # alternate, so each shadow trains on about half the rows
        k = k[rng.permutation(n)]
    ranks = rng.random((shadows, n)).argsort(axis=0).argsort(axis=0)
    return ranks < k[None, :]


def collect_signals(
    n_rows: int,
    labels: Any,
    train: Callable[[np.ndarray, int], Any],
    predict_proba: Callable[[Any, np.ndarray], Any],
    *,
    shadows: int,
    targets: int = 1,
    seed: int = 0,
    target_model: Any = None,
    target_members: Any = None,
    progress: Progress | None = None,
) -> MembershipSignals:
    """Train the target(s) and shadows and record their confidence on every row.

    Parameters
    ----------
    n_rows
        The rows are ``0 .. n_rows - 1``; the caller's functions map indices to data.
    labels
        True class index of each row (the column of ``predict_proba``'s output).
    train
        ``train(rows, seed) -> model``: fit a fresh model on the rows at those indices.
    predict_proba
        ``predict_proba(model, rows) -> array (len(rows), classes)``.
    shadows, targets
        How many shadow models, and how many target models (each on its own random half;
        their scores are pooled, which multiplies the members and non-members scored).
    target_model, target_members
        Attack this already trained model instead, with a boolean mask (or row indices) of
        the rows it trained on; ``targets`` must then be 1.
    """
    progress = progress or NullProgress()
    y = np.asarray(labels)
    if y.ndim != 1 or len(y) != n_rows:
        raise InputError(f"labels has shape {y.shape}; expected ({n_rows},)")
    if not np.issubdtype(y.dtype, np.integer) or (len(y) and y.min() < 0):
        raise InputError("labels must be non-negative class indices (integers)")
    if n_rows < 4:
        raise InputError(f"a membership audit needs at least 4 rows, got {n_rows}")
    if not isinstance(shadows, int) or shadows < 0:
        raise InputError(f"shadows must be a non-negative integer, got {shadows!r}")
    if not isinstance(targets, int) or targets < 1:
        raise InputError(f"targets must be a positive integer, got {targets!r}")
    rng = np.random.default_rng(seed)
    ss = np.random.SeedSequence(seed)
    model_seeds = [int(s.generate_state(1)[0]) for s in ss.spawn(targets + shadows)]
    everyone = np.arange(n_rows)

    t_in: list[np.ndarray] = []
    t_models: list[Any] = []
    if target_model is not None:
        if targets != 1:
            raise InputError("a given target model is one target: leave targets at 1")
        mask = np.zeros(n_rows, dtype=bool)
        tm = np.asarray(target_members)
        if tm.dtype == bool:
            if tm.shape != (n_rows,):
                raise InputError(f"target_members has shape {tm.shape}; expected ({n_rows},)")
            mask = tm.copy()
        else:
            mask[tm.astype(int)] = True
        if mask.all() or not mask.any():
            raise InputError("the target needs both members and non-members among the rows")
        t_in.append(mask)
        t_models.append(target_model)
    inclusion = balanced_inclusion(shadows, n_rows, rng)
    total = shadows + (targets if target_model is None else 0)
    tp, tr, sp, sr = [], [], [], []
    with progress.task("membership audit: training models", total=total) as task:
        if target_model is None:
            for t in range(targets):
                mask = np.zeros(n_rows, dtype=bool)
                mask[rng.permutation(n_rows)[: n_rows // 2]] = True
                t_in.append(mask)
                t_models.append(train(everyone[mask], model_seeds[t]))
                task.advance()
        for m in t_models:
            p, r = _true_class(predict_proba(m, everyone), y, "the target's predict_proba")
            tp.append(p)
            tr.append(r)
        for s in range(shadows):
            model = train(everyone[inclusion[s]], model_seeds[targets + s])
            p, r = _true_class(predict_proba(model, everyone), y, "a shadow's predict_proba")
            sp.append(p)
            sr.append(r)
            task.advance()
    empty = np.zeros((0, n_rows))
    return MembershipSignals(
        target_p=np.vstack(tp),
        target_rest=np.vstack(tr),
        target_in=np.vstack(t_in),
        shadow_p=np.vstack(sp) if sp else empty,
        shadow_rest=np.vstack(sr) if sr else empty,
        shadow_in=inclusion,
    )


def _gauss_fit(phi: np.ndarray, mask: np.ndarray, per_row: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-row mean of ``phi`` where ``mask``; per-row or pooled standard deviation."""
    cnt = mask.sum(axis=0)
    total = np.where(mask, phi, 0.0).sum(axis=0)
    pooled_mean = total.sum() / max(cnt.sum(), 1)
    mu = np.where(cnt > 0, total / np.maximum(cnt, 1), pooled_mean)
    resid = np.where(mask, phi - mu[None, :], 0.0)
    if per_row:
        sd = np.sqrt((resid**2).sum(axis=0) / np.maximum(cnt - 1, 1))
    else:
        dof = max(int(cnt.sum() - (cnt > 0).sum()), 1)
        sd = np.full(phi.shape[1], np.sqrt((resid**2).sum() / dof))
    return mu, np.maximum(sd, 1e-6)


def attack_scores(signals: MembershipSignals, attack: str, *, gamma: float = 1.0) -> np.ndarray:
    """(T, n) membership scores of every row under every target (higher = member)."""
    from scipy.stats import norm

    check_attack(attack, signals.shadows)
    if attack == "loss":
        return np.log(np.maximum(signals.target_p, _TINY))
    if attack in ("lira", "lira-offline"):
        phi_s = logit_confidence(signals.shadow_p, signals.shadow_rest)
        phi_t = logit_confidence(signals.target_p, signals.target_rest)
        per_row = signals.shadows >= _PER_ROW_VARIANCE_FROM
        mu_out, sd_out = _gauss_fit(phi_s, ~signals.shadow_in, per_row)
        if attack == "lira-offline":
            return np.asarray(norm.logcdf((phi_t - mu_out) / sd_out))
        mu_in, sd_in = _gauss_fit(phi_s, signals.shadow_in, per_row)
        return np.asarray(norm.logpdf(phi_t, mu_in, sd_in) - norm.logpdf(phi_t, mu_out, sd_out))
    # rmia (online): Pr(x) over every reference model, IN and OUT
    if not gamma > 0:
        raise InputError(f"gamma must be positive, got {gamma!r}")
    pr_x = np.maximum(signals.shadow_p.mean(axis=0), _TINY)
    out = np.empty_like(signals.target_p)
    for t in range(signals.target_p.shape[0]):
        ratio = np.maximum(signals.target_p[t], _TINY) / pr_x
        z = np.sort(ratio)
        # share of population samples z with ratio_x / ratio_z > gamma
        out[t] = np.searchsorted(z, ratio / gamma, side="left") / len(z)
    return out


def _split_scores(signals: MembershipSignals, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return scores[signals.target_in], scores[~signals.target_in]


def membership_inference(
    n_rows: int,
    labels: Any,
    train: Callable[[np.ndarray, int], Any],
    predict_proba: Callable[[Any, np.ndarray], Any] | None = None,
    *,
    attacks: Sequence[str] = ("lira",),
    shadows: int = 8,
    targets: int = 1,
    seed: int = 0,
    gamma: float = 1.0,
    n_boot: int = 200,
    target_model: Any = None,
    target_members: Any = None,
    progress: Progress | None = None,
) -> dict[str, dict[str, Any]]:
    """Run membership-inference attacks on any model with a predict-probability function.

    Parameters
    ----------
    n_rows, labels, train, target_model, target_members
        See :func:`collect_signals`. ``predict_proba`` defaults to
        ``model.predict_proba(rows)``, which suits a model that takes row indices; give a
        function to map indices to your data.
    attacks
        Any of ``"loss"``, ``"lira"``, ``"lira-offline"``, ``"rmia"``; they share the
        trained models.
    shadows
        Shadow (reference) models; at least 2 for every attack but ``loss``.
    gamma
        RMIA's threshold on the likelihood ratio.
    n_boot
        Bootstrap resamples of the confidence intervals (0: none).

    Returns
    -------
    dict
        attack name -> ``{attack, auc, tpr_at_fpr: {"0.001": x, "0.01": y}, members,
        nonmembers, auc_ci, tpr_at_fpr_ci, ..., roc, shadows, targets}``.

    Examples
    --------
    A scikit-learn model on a toy table (rows are indices into ``X``):

    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, 200)
    >>> def fit(rows, seed):
    ...     return DecisionTreeClassifier(random_state=seed).fit(X[rows], y[rows])
    >>> def proba(model, rows):
    ...     return model.predict_proba(X[rows])
    >>> res = membership_inference(200, y, fit, proba, attacks=["loss"], shadows=0, n_boot=0)
    >>> res["loss"]["auc"] > 0.7  # a fully grown tree memorizes its noisy labels
    True
    """
    attacks = list(attacks)
    if not attacks:
        raise InputError("no attack given", hint=f"use one of: {', '.join(ATTACKS)}")
    needs_shadows = any(a != "loss" for a in attacks)
    for a in attacks:
        check_attack(a, shadows)

    def default_predict(model: Any, rows: np.ndarray) -> Any:
        return model.predict_proba(rows)

    signals = collect_signals(
        n_rows,
        labels,
        train,
        predict_proba or default_predict,
        shadows=shadows if needs_shadows else 0,
        targets=targets,
        seed=seed,
        target_model=target_model,
        target_members=target_members,
        progress=progress,
    )
    out: dict[str, dict[str, Any]] = {}
    for a in attacks:
        pos, neg = _split_scores(signals, attack_scores(signals, a, gamma=gamma))
        summary = roc_summary(pos, neg, n_boot=n_boot, seed=seed)
        out[a] = {
            "attack": a,
            **summary,
            "shadows": signals.shadows,
            "targets": int(signals.target_p.shape[0]),
        }
        if a == "rmia":
            out[a]["gamma"] = gamma
    return out
