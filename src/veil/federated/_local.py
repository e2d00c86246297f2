"""What one client does in a round: local training from the global weights, then its update.

Runs inside the Flower ClientApp (a Ray worker in simulation). The update returned is
``local - global``; FedProx adds ``mu/2 ||w - w_global||^2`` to the loss; SCAFFOLD corrects
each gradient by ``c - c_i`` and returns the change of its control variate. With client-level
DP the update is clipped to L2 norm ``clip`` here, before it leaves the client.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["LocalResult", "clip_update", "local_train"]


@dataclass
class LocalResult:
    delta: list[Any]
    n_examples: int
    loss: float
    control_delta: list[Any] | None = None
    norm: float = 0.0


def clip_update(delta: list[Any], clip: float) -> tuple[list[Any], float]:
    """Scale ``delta`` to L2 norm at most ``clip``; a zero update is returned as is.

    Flower's ``fixedclipping_mod`` divides by the norm and turns a zero update into NaNs;
    here the scale is ``min(1, clip / norm)`` and only computed when the norm is positive.
    """
    import numpy as np

    norm = math.sqrt(sum(float(np.sum(np.square(d, dtype=np.float64))) for d in delta))
    if norm <= clip or norm == 0.0:
        return delta, norm
    scale = clip / norm
    return [d * scale for d in delta], norm


def local_train(
    model: Any,
    data: tuple[Any, Any, Any],
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    proximal_mu: float = 0.0,
    control: tuple[list[Any], list[Any]] | None = None,
    clip: float | None = None,
) -> LocalResult:
    """Train ``model`` (holding the global weights) on one client's rows with SGD.

    ``control`` is SCAFFOLD's ``(c, c_i)``. Returns the update and, for SCAFFOLD, the change
    of the client's control variate (option II: ``c_i+ = c_i - c + (x - y) / (K lr)``).
    """
    import numpy as np
    import torch
    from torch import nn

    xc, xn, y = data
    params = list(model.parameters())
    start = [p.detach().clone() for p in params]
    opt = torch.optim.SGD(params, lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    c_t = ci_t = None
    if control is not None:
        c_t = [torch.as_tensor(a) for a in control[0]]
        ci_t = [torch.as_tensor(a) for a in control[1]]
    n = len(y)
    steps = 0
    total, count = 0.0, 0
    model.train()
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        for b in order.split(batch_size):
            opt.zero_grad()
            loss = loss_fn(model(xc[b], xn[b]), y[b])
            total += float(loss.detach()) * len(b)
            count += len(b)
            if proximal_mu > 0:
                prox = sum(torch.sum((p - s) ** 2) for p, s in zip(params, start, strict=True))
                loss = loss + 0.5 * proximal_mu * prox
            loss.backward()
            if c_t is not None and ci_t is not None:
                with torch.no_grad():
                    for p, c, ci in zip(params, c_t, ci_t, strict=True):
                        if p.grad is not None:
                            p.grad += c - ci
            opt.step()
            steps += 1
    delta = [(p.detach() - s).numpy() for p, s in zip(params, start, strict=True)]
    control_delta = None
    if control is not None:
        # c_i+ - c_i = -c + (x - y) / (K lr) = -c - delta / (K lr)
        k = max(steps, 1)
        control_delta = [
            -np.asarray(c) - d / (k * lr) for c, d in zip(control[0], delta, strict=True)
        ]
    norm = 0.0
    if clip is not None:
        delta, norm = clip_update(delta, clip)
    return LocalResult(
        delta=delta,
        n_examples=n,
        loss=total / max(count, 1),
        control_delta=control_delta,
        norm=norm,
    )
