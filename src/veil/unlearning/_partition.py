"""How SISA splits the training rows into shards and slices.

``permutation`` (the default): a seeded permutation cut into equal shards, each cut into equal
slices. ``keyed`` (DP training): each row's shard and slice from its keyed id hash alone, so
adding or removing a row moves no other row (what parallel composition over the shards needs;
see :mod:`veil.unlearning._dp`).
"""

from __future__ import annotations

import numpy as np

from veil.unlearning._trainers import derive_seed

__all__ = ["keyed_partition", "partition_rows"]


def keyed_partition(hashes: np.ndarray, shards: int, slices: int) -> tuple[np.ndarray, np.ndarray]:
    """Shard and slice of each row from its keyed id hash alone (first 8 bytes)."""
    h = np.ascontiguousarray(hashes[:, :8]).view(">u8").ravel()
    return (h % shards).astype(np.int64), ((h // shards) % slices).astype(np.int64)


def partition_rows(
    hashes: np.ndarray, n: int, shards: int, slices: int, seed: int, how: str
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each shard's row indices and the slice of each of them."""
    if how == "keyed":
        shard_of, slice_of = keyed_partition(hashes, shards, slices)
        rows = [np.flatnonzero(shard_of == s) for s in range(shards)]
        return rows, [slice_of[r] for r in rows]
    order = np.random.default_rng(derive_seed(seed, -1)).permutation(n)
    rows = np.array_split(order, shards)
    parts = []
    for r in rows:  # in permuted order: a slice is a random part of the shard
        slice_of = np.empty(len(r), dtype=np.int64)
        for j, part in enumerate(np.array_split(np.arange(len(r)), slices)):
            slice_of[part] = j
        parts.append(slice_of)
    return rows, parts
