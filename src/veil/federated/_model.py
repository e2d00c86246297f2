"""The data and model a simulation shares between server and clients.

The table is split into training rows (dealt to the clients by :mod:`veil.federated._partition`)
and held-out rows (kept by the server to evaluate the global model), encoded once with
veil's :class:`~veil.train.TabularEncoder`; every party builds the same model (veil's tabular
MLP, a logistic regression on the same features, or the user's ``nn.Module``) from the same
seed and then takes the weights it is sent.

A user's model (``FLConfig(model=...)``, Python only) is an ``nn.Module`` or a factory
``(cardinalities, n_numeric, n_classes) -> nn.Module``; its ``forward(x_cat, x_num)`` takes
the encoded rows (category codes, ``LongTensor [n, len(cardinalities)]``, code 0 meaning
unseen; standardized numerics, ``FloatTensor [n, n_numeric]``) and returns logits ``[n,
n_classes]``. :func:`check_model` refuses, before any round or ledger spend, a model that
does not fit those shapes, has nothing to train, keeps running statistics (only parameters
are averaged, so BatchNorm's statistics would stay at their start on the server), or that
Opacus cannot train with ``--dp sample``.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, SchemaError
from veil.federated._partition import parse_partition, partition_rows

if TYPE_CHECKING:
    import pandas as pd

    from veil.federated._simulate import FLConfig

__all__ = [
    "MODELS",
    "FLData",
    "ModelSpec",
    "check_model",
    "evaluate",
    "fresh_model",
    "model_name",
    "num",
    "prepare",
    "set_weights",
]

MODELS: tuple[str, ...] = ("mlp", "logistic")

# a built-in model's name, a user's nn.Module (each party deep-copies it) or a factory
# (cardinalities, n_numeric, n_classes) -> nn.Module (called on each party under the run's seed)
ModelSpec = str | Callable[..., Any]

Tensors = tuple[Any, Any, Any]  # category codes, standardized numerics, labels


@dataclass
class FLData:
    """Each client's rows, the pooled training rows (baseline), the held-out rows."""

    parts: list[Tensors]
    train: Tensors
    test: Tensors
    arch: tuple[list[int], int, int]
    init_seed: int
    model: ModelSpec = "mlp"


def prepare(frame: pd.DataFrame, target: str, config: FLConfig, drop: Sequence[str]) -> FLData:
    """Split, encode and partition ``frame``; every client gets at least one row."""
    import numpy as np
    import torch

    from veil.train import TabularEncoder

    if target not in frame.columns:
        raise SchemaError(
            f"target column {target!r} is not in the table ({len(frame.columns)} columns)",
            hint="pass --target with one of the table's column names",
        )
    spec = parse_partition(config.partition)
    if spec.column is not None and spec.column not in frame.columns:
        raise SchemaError(
            f"--partition column {spec.column!r} is not in the table",
            hint="name one of the table's columns",
        )
    df = frame.loc[frame[target].notna()]
    rng = np.random.default_rng(config.seed)
    order = rng.permutation(len(df))
    n_test = round(len(df) * config.test_fraction)
    train_df, test_df = df.iloc[order[n_test:]], df.iloc[order[:n_test]]
    if len(train_df) == 0:
        raise InputError("no training rows left after holding out the test rows")
    if config.clients > len(train_df):
        raise InputError(
            f"{config.clients} clients but only {len(train_df)} training rows: "
            "a client would get no data",
            hint="pass fewer --clients, or more rows",
        )
    enc = TabularEncoder(target=target, drop=list(drop)).fit(train_df)
    xc, xn = enc.transform(train_df)
    y = enc.encode_target(train_df[target])
    test_df = test_df.loc[test_df[target].astype(str).isin(enc.classes_)]
    tc, tn = enc.transform(test_df)
    ty = enc.encode_target(test_df[target])
    column = train_df[spec.column].to_numpy() if spec.column is not None else None
    idx = partition_rows(spec, config.clients, y.numpy(), column, config.seed)
    parts = [(xc[torch.as_tensor(i)], xn[torch.as_tensor(i)], y[torch.as_tensor(i)]) for i in idx]
    init_seed = config.seed if config.seed is not None else secrets.randbits(62)
    arch = (enc.cardinalities, len(enc.numeric_), len(enc.classes_))
    return FLData(parts, (xc, xn, y), (tc, tn, ty), arch, init_seed, config.model)


def model_name(model: ModelSpec) -> str:
    """``mlp``, ``logistic``, or ``custom:<class or factory name>`` for a user's model."""
    if isinstance(model, str):
        return model
    return "custom:" + str(getattr(model, "__qualname__", type(model).__qualname__))


def fresh_model(arch: tuple[list[int], int, int], seed: int, model: ModelSpec = "mlp") -> Any:
    """The model every party builds, initialized from ``seed`` (the same on every party).

    ``model`` is ``mlp`` (veil's tabular MLP), ``logistic`` (:func:`logistic_model`), a
    user's ``nn.Module`` (copied, so every party starts from its weights) or a factory
    called with ``(cardinalities, n_numeric, n_classes)`` under the seed.
    """
    import torch
    from torch import nn

    from veil.train import make_tabular_mlp

    if isinstance(model, nn.Module):
        return copy.deepcopy(model)
    if model == "logistic":
        return logistic_model(*arch)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if isinstance(model, str):
            return make_tabular_mlp(*arch)
        built = model(list(arch[0]), arch[1], arch[2])
    if not isinstance(built, nn.Module):
        raise InputError(
            f"the model factory {model_name(model)!r} returned a "
            f"{type(built).__name__}, not a torch nn.Module",
            hint="return an nn.Module from the factory, or pass the module itself",
        )
    return built


def check_model(data: FLData, dp: str | None) -> None:
    """Refuse a user's model that cannot be federated as configured (before any round).

    Builds it as every party will, runs its forward on two training rows and checks the
    logits' shape; refuses a model with no trainable parameter, one that keeps running
    statistics (BatchNorm with ``track_running_stats``: they are buffers, never averaged),
    and with ``dp="sample"`` one that Opacus cannot train without replacing layers (a
    replacement on the clients alone would leave them training another model than the
    server's). Built-in models pass unchecked.
    """
    import torch
    from torch import nn

    if isinstance(data.model, str):
        return
    name = model_name(data.model)
    model = fresh_model(data.arch, data.init_seed, data.model)
    if not any(p.requires_grad for p in model.parameters()):
        raise InputError(
            f"the model {name!r} has no trainable parameter", hint="give it at least one layer"
        )
    stats = [
        n or "<root>"
        for n, m in model.named_modules()
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.track_running_stats
    ]
    if stats:
        raise InputError(
            f"the model {name!r} keeps running statistics in {', '.join(stats[:5])}: "
            "federated averaging averages parameters only, so the server's statistics "
            "would never be trained",
            hint="use GroupNorm or LayerNorm, or BatchNorm with track_running_stats=False",
        )
    xc, xn, _ = data.train
    cards, n_numeric, n_classes = data.arch
    model.eval()
    try:
        with torch.no_grad():
            out = model(xc[:2], xn[:2])
    except Exception as exc:  # a user's forward may raise anything
        raise InputError(
            f"the model {name!r} failed on veil's encoded rows ({type(exc).__name__}): its "
            f"forward(x_cat, x_num) gets category codes of shape [n, {len(cards)}] "
            f"(LongTensor) and numerics of shape [n, {n_numeric}] (FloatTensor)",
            hint="size the model from the factory's (cardinalities, n_numeric, n_classes)",
        ) from exc
    rows = min(2, len(data.train[2]))
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (rows, n_classes):
        shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise InputError(
            f"the model {name!r} returned {shape} for {rows} rows; federated training "
            f"needs logits of shape [n, {n_classes}] (one per class of the target)",
            hint="end the model with a layer of n_classes outputs",
        )
    if dp == "sample":
        from veil.train import make_private_compatible

        model.train()  # as the clients' DP-SGD will (Opacus refuses a model in eval mode)
        make_private_compatible(model, fix=False)


def logistic_model(cardinalities: Sequence[int], n_numeric: int, n_classes: int) -> Any:
    """Multinomial logistic regression on the one-hot categories and the numerics.

    The first class's logit is fixed at 0 (the reference class), so a binary target has one
    weight per feature plus a bias: on Adult 101 parameters against the MLP's 7,778, which
    matters to client-level DP, whose noise is added to every parameter. Starts at zero
    (the loss is convex).
    """
    import torch
    from torch import nn

    sizes = [int(c) + 1 for c in cardinalities]
    offsets = [sum(sizes[:i]) for i in range(len(sizes))]

    class LogisticRegression(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.vocab = sum(sizes)
            self.register_buffer("offsets", torch.tensor(offsets, dtype=torch.long))
            self.reference = n_classes >= 2
            outputs = n_classes - 1 if self.reference else n_classes
            self.linear = nn.Linear(self.vocab + n_numeric, outputs)
            nn.init.zeros_(self.linear.weight)
            nn.init.zeros_(self.linear.bias)

        def forward(self, x_cat: torch.Tensor, x_num: torch.Tensor) -> torch.Tensor:
            onehot = torch.zeros(x_cat.shape[0], self.vocab, dtype=x_num.dtype)
            if sizes:
                offs: torch.Tensor = self.offsets  # type: ignore[assignment]
                onehot.scatter_(1, x_cat + offs, 1.0)
            z = self.linear(torch.cat([onehot, x_num], dim=1))
            if not self.reference:
                return z
            return torch.cat([torch.zeros_like(z[:, :1]), z], dim=1)

    return LogisticRegression()


def set_weights(model: Any, weights: list[Any]) -> None:
    """Load a list of arrays (the parameters in order) into ``model``."""
    import torch

    with torch.no_grad():
        for p, w in zip(model.parameters(), weights, strict=True):
            p.copy_(torch.as_tensor(w))


def evaluate(model: Any, test: Tensors) -> tuple[float | None, float | None]:
    """Accuracy and cross-entropy loss on the held-out rows (``None`` when there are none)."""
    import torch

    tc, tn, ty = test
    if len(ty) == 0:
        return None, None
    model.eval()
    with torch.no_grad():
        logits = model(tc, tn)
        loss = float(torch.nn.functional.cross_entropy(logits, ty))
        acc = float((logits.argmax(1) == ty).float().mean())
    return acc, loss


def num(value: Any) -> float:
    """A number read back from a Flower record (typed there as a union of record values)."""
    if not isinstance(value, int | float):
        raise TypeError(f"expected a number in a Flower record, got {type(value).__name__}")
    return float(value)
