"""SISA's staged shard training, checkpoints and aggregation (used by :mod:`._sisa`).

Shard ``s`` trains in stages: stage ``j`` continues from stage ``j-1``'s state on the shard's
slices ``0..j`` (the rows of slice ``j`` marked ``new_mask``). Its randomness comes from
:func:`~veil.unlearning.derive_seed` of (seed, shard, slice) alone, the initial state from
(seed, shard), so retraining a shard from any checkpoint, or from scratch, on the same rows
gives the same states bit for bit. A prediction combines the shards' class probabilities
(:func:`aggregate`):

* ``mean`` (default): the average of the shards' predicted class probabilities (soft vote;
  it uses each shard's confidence and was the more accurate on Adult);
* ``vote``: the share of shards whose most probable class is each class (hard majority
  vote, as in the SISA paper; ties go to the lower class index).

The model folder, its versions and the erasure requests are :mod:`._sisa`'s; this module
only trains, checkpoints and combines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from veil._errors import InputError
from veil.unlearning._store import ModelStore, write_shard_blobs
from veil.unlearning._trainers import ShardTrainer, derive_seed

__all__ = [
    "AGGREGATIONS",
    "aggregate",
    "aggregate_shards",
    "checkpoint_blobs",
    "replay",
    "subset",
    "train_shard",
    "write_shard",
]

AGGREGATIONS = ("mean", "vote")
Arrays = dict[str, np.ndarray]


def subset(arrays: Arrays, mask: np.ndarray) -> Arrays:
    """The rows of every array where ``mask`` is true."""
    return {k: v[mask] for k, v in arrays.items()}


def _stage_data(data: Arrays, j: int) -> Arrays:
    upto = data["slice"] <= j
    out = subset(data, upto)
    out["new_mask"] = out["slice"] == j
    return out


def train_shard(
    trainer: ShardTrainer,
    data: Arrays,
    *,
    seed: int,
    shard: int,
    slices: int,
    start: int = 0,
    stop: int | None = None,
    state: Any = None,
    task: Any = None,
) -> list[Any]:
    """States after slices ``start..stop-1`` (``state``: the one after ``start-1``) of a
    shard of ``slices`` slices."""
    if state is None:
        state = trainer.initial_state(derive_seed(seed, shard))
    out = []
    for j in range(start, slices if stop is None else stop):
        state = trainer.train_stage(
            state,
            _stage_data(data, j),
            derive_seed(seed, shard, j),
            final=j == slices - 1,
            stages=slices,
        )
        out.append(state)
        if task is not None:
            task.advance()
    return out


def replay(
    trainer: ShardTrainer, data: Arrays, seed: int, shard: int, slices: int, upto: int
) -> Any:
    """The state after slice ``upto-1`` when it was not checkpointed (replayed from scratch)."""
    return train_shard(trainer, data, seed=seed, shard=shard, slices=slices, stop=upto)[-1]


def aggregate(probas: list[np.ndarray], how: str) -> np.ndarray:
    """Combine the shards' class probabilities (see the module docstring)."""
    stacked = np.stack(probas)
    if how == "mean":
        result: np.ndarray = stacked.mean(axis=0)
        return result
    votes = np.zeros(stacked.shape[1:])
    winners = stacked.argmax(axis=2)
    for w in winners:
        votes[np.arange(len(w)), w] += 1
    result = votes / len(probas)
    return result


def aggregate_shards(
    trainer: ShardTrainer, finals: list[Any], shards: list[Arrays], data: Arrays, how: str
) -> np.ndarray:
    """:func:`aggregate` of the predictions of the shards' final states (empty shards and
    shards without a state left out)."""
    probas = [
        trainer.predict_proba(st, data)
        for st, d in zip(finals, shards, strict=True)
        if st is not None and len(d["y"])
    ]
    if not probas:
        raise InputError("every shard of the model is empty: nothing is left to predict with")
    return aggregate(probas, how)


def _keep_ckpt(state: Any) -> bool:
    return not (isinstance(state, dict) and state.get("fitted") is False and "estimator" in state)


def checkpoint_blobs(trainer: ShardTrainer, states: list[Any]) -> list[bytes | None]:
    """Each state serialized, or ``None`` for one not worth keeping (an unfitted estimator)."""
    return [trainer.dumps(st) if _keep_ckpt(st) else None for st in states]


def write_shard(
    store: ModelStore, trainer: ShardTrainer, s: int, gen: int, data: Arrays, states: list[Any]
) -> dict[str, Any]:
    """Write shard ``s``'s rows and checkpoints as generation ``gen``; its manifest entry."""
    return write_shard_blobs(store, s, gen, data, checkpoint_blobs(trainer, states))
