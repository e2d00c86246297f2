"""One-run DP auditing: an empirical lower bound on epsilon from canaries in one training run.

Steinke, Nasr and Jagielski, "Privacy Auditing with One (1) Training Run" (NeurIPS 2023,
arXiv:2305.08846). ``m`` canaries are each included in the training data independently with
probability 1/2 (``S_i`` in {-1, +1}); after training, each canary gets a score (here minus
its loss: a canary the model fits well was probably trained on). The auditor guesses
"included" for the ``k+`` highest scores, "excluded" for the ``k-`` lowest and abstains on
the rest: ``r = k+ + k-`` guesses, ``v`` of them correct.

If training is (epsilon, delta)-DP with respect to each canary, Theorem 5.2 / Corollary 5.4
of the paper bound the chance of ``v`` or more correct guesses:

    P[W >= v] <= P[Binomial(r, q) >= v] + 2 m delta max_{i = 1..v} P[v - i <= Binomial(r, q) < v] / i,
    q = e^eps / (1 + e^eps).

:func:`p_value` is that right-hand side (capped at 1), and :func:`epsilon_lower_bound` the
largest epsilon it rejects at level ``beta = 1 - confidence``, found as Appendix D of the
paper does (an upper bracket stepped by 1, then 30 bisection steps, returning the low end).
:func:`one_run_audit` tries a few numbers of guesses ``k = k+ = k-`` (a fixed grid of
fractions of ``m``) and, to stay valid after picking the best, tests each at
``beta / len(grid)`` (Bonferroni): the reported bound is a lower bound on the true epsilon
with at least the stated confidence.

What the bound means: a lower bound **above** the claimed epsilon is evidence, at that
confidence, that the implementation does not deliver its claim (a bug: wrong noise, wrong
accounting, a sampling rate that depends on the data). A bound below the claim proves
nothing about tightness; one-run bounds on DP-SGD with black-box scores are usually far
below the claim (the paper's own are).

Canaries for veil's tabular model (:func:`audit_dp_training`) are real rows with a wrong
label (another class, chosen at random): the model can only fit such a row by memorizing it.
The sampling rate of DP-SGD is kept the same whichever canaries are in (the batch size is
chosen so that ``ceil(n / batch)`` does not depend on how many are), so the run is DP in each
canary as the theorem requires.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError, VeilError
from veil._progress import NullProgress, Progress

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "GUESS_FRACTIONS",
    "DPAuditFailed",
    "audit_dp_training",
    "epsilon_lower_bound",
    "one_run_audit",
    "p_value",
]

GUESS_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.25, 0.5)


class DPAuditFailed(VeilError, AssertionError):
    """The one-run audit's lower bound is above the claimed epsilon: the DP claim is false.

    Exit code 4, like every privacy requirement not met. Raised after the report is written:
    the report is the evidence.
    """

    exit_code = 4


def _check_counts(m: int, r: int, v: int) -> None:
    for name, x in (("m", m), ("r", r), ("v", v)):
        if not isinstance(x, int | np.integer) or x < 0:
            raise InputError(f"{name} must be a non-negative integer, got {x!r}")
    if not v <= r <= m:
        raise InputError(f"need v <= r <= m, got v={v}, r={r}, m={m}")


def p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """Probability of ``v`` or more correct guesses out of ``r`` under (epsilon, delta)-DP.

    Corollary 5.4 of Steinke, Nasr and Jagielski (2023); ``m`` canaries in all.

    Examples
    --------
    >>> round(p_value(100, 100, 75, math.log(3), 0.0), 3)
    0.553
    """
    from scipy.stats import binom

    _check_counts(m, r, v)
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise InputError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if not 0 <= delta <= 1:
        raise InputError(f"delta must be in [0, 1], got {delta!r}")
    q = 1 / (1 + math.exp(-epsilon))
    beta = float(binom.sf(v - 1, r, q))  # P[Binomial(r, q) >= v]
    if delta == 0 or v == 0:
        return min(beta, 1.0)
    # P[v - i <= Binomial(r, q) < v] for i = 1..v, each divided by i
    window = np.cumsum(binom.pmf(np.arange(v - 1, -1, -1), r, q))
    alpha = float(np.max(window / np.arange(1, v + 1)))
    return min(beta + alpha * delta * 2 * m, 1.0)


def epsilon_lower_bound(m: int, r: int, v: int, *, delta: float, confidence: float = 0.95) -> float:
    """The largest epsilon that ``v`` correct guesses out of ``r`` reject at ``confidence``.

    0 when the guesses reject nothing. Appendix D's search: step an upper bracket by 1
    until it is not rejected, then 30 bisection steps; the low (rejected) end is returned.

    Examples
    --------
    >>> round(epsilon_lower_bound(1000, 100, 75, delta=1e-4), 3)
    0.673
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence!r}")
    beta = 1 - confidence
    _check_counts(m, r, v)
    lo, hi = 0.0, 1.0
    if p_value(m, r, v, 0.0, delta) >= beta:
        return 0.0
    while p_value(m, r, v, hi, delta) < beta:
        lo, hi = hi, hi + 1
        if hi > 1e4:  # pragma: no cover - only for degenerate inputs (delta 0, r huge)
            return lo
    for _ in range(30):
        mid = (lo + hi) / 2
        if p_value(m, r, v, mid, delta) < beta:
            lo = mid
        else:
            hi = mid
    return lo


def one_run_audit(
    scores: Any,
    included: Any,
    *,
    delta: float,
    confidence: float = 0.95,
    fractions: Sequence[float] = GUESS_FRACTIONS,
) -> dict[str, Any]:
    """The epsilon lower bound from canary scores (higher = judged included).

    Parameters
    ----------
    scores
        One score per canary.
    included
        Whether each canary was in the training data (bool per canary).
    delta
        The delta of the claim being audited.
    fractions
        Numbers of guesses tried, as fractions of the canaries: ``k = ceil(f * m)`` top
        scores guessed in and ``k`` bottom guessed out (``k <= m / 2``). Each is tested at
        ``(1 - confidence) / len(fractions)``.

    Returns
    -------
    dict
        ``epsilon_lower_bound``, ``confidence``, ``canaries``, ``included`` (how many were),
        ``guesses`` and ``correct`` of the best k, ``k``, and ``per_k`` (every k tried).

    Examples
    --------
    Perfect guesses on 1000 canaries:

    >>> import numpy as np
    >>> s = np.r_[np.ones(500), np.zeros(500)]
    >>> one_run_audit(s, s > 0, delta=1e-5)["epsilon_lower_bound"] > 4
    True
    """
    s = np.asarray(scores, dtype=float).ravel()
    inc = np.asarray(included).ravel()
    if inc.dtype != bool:
        raise InputError("included must be booleans (one per canary)")
    if len(s) != len(inc):
        raise InputError(f"{len(s)} scores for {len(inc)} canaries")
    if len(s) < 2:
        raise InputError("the one-run audit needs at least 2 canaries")
    if not np.all(np.isfinite(s)):
        raise InputError(f"{int((~np.isfinite(s)).sum())} canary score(s) are not finite")
    if not fractions or any(not 0 < f <= 0.5 for f in fractions):
        raise InputError("each guess fraction must be in (0, 0.5]")
    m = len(s)
    order = np.argsort(-s, kind="mergesort")
    truth = inc[order]
    per_k = []
    level = confidence + (1 - confidence) * (1 - 1 / len(fractions))  # Bonferroni
    for k in sorted({max(1, min(m // 2, math.ceil(f * m))) for f in fractions}):
        v = int(truth[:k].sum() + (~truth[m - k :]).sum())
        eps = epsilon_lower_bound(m, 2 * k, v, delta=delta, confidence=level)
        per_k.append({"k": k, "guesses": 2 * k, "correct": v, "epsilon_lower_bound": eps})
    best = max(per_k, key=lambda d: d["epsilon_lower_bound"])
    return {
        "epsilon_lower_bound": best["epsilon_lower_bound"],
        "confidence": confidence,
        "canaries": m,
        "included": int(inc.sum()),
        "k": best["k"],
        "guesses": best["guesses"],
        "correct": best["correct"],
        "per_k": per_k,
        "delta": delta,
        "method": "Steinke, Nasr, Jagielski 2023, Corollary 5.4; top/bottom-k guesses, "
        f"{len(per_k)} k tried with a Bonferroni correction",
    }


def check_canaries(canaries: Any) -> None:
    """Refuse a canary count the one-run audit cannot use (before any training)."""
    if not isinstance(canaries, int) or canaries < 2:
        raise InputError(f"--canaries must be an integer >= 2, got {canaries!r}")


def claim_audit(
    scores: Any, included: Any, *, epsilon: float | None, delta: float, confidence: float
) -> dict[str, Any]:
    """:func:`one_run_audit` of the canaries' scores set against the claimed ``epsilon``
    (None: trained without DP): the leading keys of every one-run audit's result."""
    audit = one_run_audit(scores, included, delta=delta, confidence=confidence)
    bound = audit["epsilon_lower_bound"]
    return {
        "epsilon_claimed": epsilon,
        "epsilon_lower_bound": bound,
        "confidence": confidence,
        "canaries": audit["canaries"],
        "bound_exceeds_claim": epsilon is not None and bound > epsilon,
        **{
            k: v
            for k, v in audit.items()
            if k not in ("epsilon_lower_bound", "confidence", "canaries")
        },
    }


def _fixed_rate_batch(n_base: int, m: int, batch: int | None) -> int:
    """A batch size whose ``ceil(n / batch)`` is the same for every n in [n_base, n_base + m]."""
    target = batch if batch is not None else max(1, min(4096, (n_base + m // 2) // 6))
    k = max(1, math.ceil((n_base + m) / target))
    while k > 1:
        b = math.ceil((n_base + m) / k)
        if math.ceil(n_base / b) == k:
            return b
        k -= 1
    return n_base + m


def audit_dp_training(
    frame: pd.DataFrame,
    target: str,
    *,
    epsilon: float | None,
    delta: float = 1e-5,
    canaries: int = 500,
    seed: int = 0,
    confidence: float = 0.95,
    epochs: int = 30,
    batch_size: int | None = None,
    learning_rate: float = 5e-3,
    hidden: Sequence[int] = (128,),
    max_grad_norm: float = 1.0,
    drop: Sequence[str] = (),
    progress: Progress | None = None,
) -> dict[str, Any]:
    """One-run audit of veil's DP-SGD training of its tabular classifier.

    ``canaries`` rows are drawn at random, given a wrong label, and each kept in the
    training data with probability 1/2; one model is trained (DP-SGD at ``epsilon``, or
    without DP when ``epsilon`` is None) and the canaries scored by minus their loss.

    Returns
    -------
    dict
        ``epsilon_claimed`` (None without DP), ``epsilon_lower_bound``, ``confidence``,
        ``canaries``, ``bound_exceeds_claim``, the details of :func:`one_run_audit`, and the
        training settings.
    """
    from veil.audit._tabular import audit_model

    t0 = time.perf_counter()
    progress = progress or NullProgress()
    check_canaries(canaries)
    model = audit_model(
        frame,
        target,
        epsilon=epsilon,
        delta=delta,
        epochs=epochs,
        batch_size=None,  # set below, once the canaries are drawn
        learning_rate=learning_rate,
        hidden=hidden,
        max_grad_norm=max_grad_norm,
        drop=drop,
    )
    n = model.n_rows
    if canaries > n // 2:
        raise InputError(
            f"{canaries} canaries is more than half of the {n} rows with a target",
            hint="use fewer canaries (--canaries), at most half the rows",
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    canary_rows, base_rows = order[:canaries], order[canaries:]
    labels = model.labels.copy()
    k = model.n_classes
    # a wrong label for each canary: another class, uniformly
    labels[canary_rows] = (labels[canary_rows] + rng.integers(1, k, canaries)) % k
    included = rng.random(canaries) < 0.5
    model.batch_size = _fixed_rate_batch(len(base_rows), canaries, batch_size)
    rows = np.sort(np.r_[base_rows, canary_rows[included]])
    with progress.task("one-run audit: training with canaries", total=1) as task:
        trained = model.train(rows, int(rng.integers(2**62)), labels=labels)
        task.advance()
    scores = -model.loss(trained, canary_rows, labels)
    out: dict[str, Any] = {
        **claim_audit(scores, included, epsilon=epsilon, delta=delta, confidence=confidence),
        "canary_kind": "mislabelled rows (a random other class)",
        "score": "minus the canary's cross-entropy loss",
        "training": {**model.settings(), "batch_size": model.batch_size, **model.last_privacy_},
        "rows": n,
        "seed": seed,
        "seconds": time.perf_counter() - t0,
    }
    return out
