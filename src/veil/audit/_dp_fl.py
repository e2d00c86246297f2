"""One-run DP audit of federated training with client-level DP (``veil fl simulate --dp client``).

The same test as :mod:`veil.audit._dp_audit` (Steinke, Nasr, Jagielski, NeurIPS 2023), run on
one federated simulation: ``m`` training rows, drawn at random among all the clients' rows,
get a wrong label (another class) and each stays in its client's data with probability 1/2;
Flower simulates the run once (DP-FedAvg: each client's update clipped, Gaussian noise on the
sum, the noise calibrated to ``--epsilon`` over the rounds); the final global model scores
every canary by minus its loss; the guesses give a lower bound on epsilon.

Why the bound is valid here: client-level (epsilon, delta)-DP holds for any two runs whose
data differ in *one client's data*, however much; including or excluding one canary changes
only the data of the client holding it, so the run is (epsilon, delta)-DP with respect to each
canary, which is what the theorem needs. Client sampling (``fraction_fit``) does not depend on
the data. A bound above the claim is therefore a bug (wrong noise, clipping or accounting).
Like any one-run bound from black-box scores it is usually far below the claim: client-level
noise drowns one row's effect.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError
from veil._progress import NullProgress, Progress

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["audit_dp_federated"]


def audit_dp_federated(
    frame: pd.DataFrame,
    target: str,
    *,
    epsilon: float | None,
    delta: float = 1e-5,
    canaries: int = 500,
    seed: int = 0,
    confidence: float = 0.95,
    clients: int = 10,
    rounds: int = 20,
    local_epochs: int = 1,
    clip_norm: float = 1.0,
    strategy: str = "fedavg",
    drop: Sequence[str] = (),
    workers: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """One-run audit of a federated simulation (``--dp client`` at ``epsilon``, or without
    DP when ``epsilon`` is None). Returns the keys of
    :func:`veil.audit.audit_dp_training` (``epsilon_claimed``, ``epsilon_lower_bound``,
    ``confidence``, ``canaries``, ``bound_exceeds_claim``, ...) with ``federated`` settings."""
    import torch

    from veil.audit._dp_audit import check_canaries, claim_audit
    from veil.federated._model import fresh_model, prepare, set_weights
    from veil.federated._simulate import FLConfig, _run_flower, client_noise

    t0 = time.perf_counter()
    progress = progress or NullProgress()
    check_canaries(canaries)
    config = FLConfig(
        clients=clients,
        rounds=rounds,
        local_epochs=local_epochs,
        strategy=strategy,
        seed=seed,
        dp=None if epsilon is None else "client",
        epsilon=epsilon,
        delta=delta,
        clip_norm=clip_norm,
        workers=workers,
    )
    config.validate()
    sigma = eps_spent = None
    if epsilon is not None:
        sigma, eps_spent = client_noise(config)  # refuses a bad (epsilon, delta) first
    data = prepare(frame, target, config, drop)
    sizes = [len(p[2]) for p in data.parts]
    n = sum(sizes)
    if canaries > n // 2:
        raise InputError(
            f"{canaries} canaries is more than half of the {n} training rows",
            hint="use fewer canaries (--canaries), at most half the rows",
        )
    rng = np.random.default_rng(seed)
    k = data.arch[2]
    if k < 2:
        raise InputError("the target has one class: a canary needs another label")
    picked = np.sort(rng.choice(n, size=canaries, replace=False))
    wrong = rng.integers(1, k, canaries)
    included = rng.random(canaries) < 0.5
    owner = np.searchsorted(np.cumsum(sizes), picked, side="right")  # the canary's client
    start = np.r_[0, np.cumsum(sizes)[:-1]]
    canary_x: list[tuple[Any, Any]] = []
    canary_y = []
    parts = [list(p) for p in data.parts]
    keep = [np.ones(s, dtype=bool) for s in sizes]
    for i, (row, c) in enumerate(zip(picked, owner, strict=True)):
        local = int(row - start[c])
        xc, xn, y = parts[c]
        label = (int(y[local]) + int(wrong[i])) % k
        canary_x.append((xc[local], xn[local]))
        canary_y.append(label)
        y = y.clone()
        y[local] = label
        parts[c][2] = y
        if not included[i]:
            keep[c][local] = False
    for c, mask in enumerate(keep):
        if not mask.any():
            raise InputError(
                f"client {c} would hold no row without its excluded canaries",
                hint="use fewer canaries or fewer clients",
            )
        m = torch.from_numpy(mask)
        parts[c] = [t[m] for t in parts[c]]
    data.parts = [tuple(p) for p in parts]  # type: ignore[misc]
    with progress.task("one-run audit: federated training with canaries", total=1) as task:
        run = _run_flower(data, config, sigma, progress, None)
        task.advance()
    model = fresh_model(data.arch, data.init_seed)
    set_weights(model, run.weights)
    model.eval()
    xc = torch.stack([a for a, _ in canary_x])
    xn = torch.stack([b for _, b in canary_x])
    with torch.no_grad():
        losses = torch.nn.functional.cross_entropy(
            model(xc, xn), torch.tensor(canary_y), reduction="none"
        )
    scores = -losses.double().numpy()
    return {
        **claim_audit(scores, included, epsilon=epsilon, delta=delta, confidence=confidence),
        "canary_kind": "mislabelled training rows (a random other class), spread over the clients",
        "score": "minus the canary's cross-entropy loss under the final global model",
        "federated": {
            "dp": config.dp,
            "unit": "one client" if config.dp else None,
            "clients": clients,
            "rounds": rounds,
            "local_epochs": local_epochs,
            "strategy": strategy,
            "clip_norm": clip_norm,
            "noise_multiplier": sigma,
            "epsilon_accountant": eps_spent,
            "accuracy": run.rounds[-1]["accuracy"] if run.rounds else None,
        },
        "rows": n,
        "seed": seed,
        "seconds": time.perf_counter() - t0,
    }
