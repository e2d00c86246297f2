"""Splitting training rows among simulated clients: IID, Dirichlet label skew, or a column.

A partition is a list of row-index arrays, one per client, over the training rows only (the
held-out rows stay with the server for evaluation). Every client must get at least one row.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veil._errors import InputError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PARTITIONS", "PartitionSpec", "parse_partition", "partition_rows"]

PARTITIONS: tuple[str, ...] = ("iid", "dirichlet:ALPHA", "column:NAME")
# Tries at drawing a Dirichlet split that leaves no client empty (flwr-datasets' DirichletPartitioner
# resamples the same way until every partition reaches its minimum size). With a small ALPHA and
# many clients no draw may do (Adult, 50 clients, ALPHA 0.1: about 9 empty clients a draw), so
# the draw with the fewest empty clients is topped up (:func:`_top_up`).
_DIRICHLET_TRIES = 100

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PartitionSpec:
    """A parsed ``--partition`` value: ``kind`` is iid, dirichlet or column."""

    kind: str
    alpha: float | None = None
    column: str | None = None


def parse_partition(text: str) -> PartitionSpec:
    """Parse ``iid``, ``dirichlet:ALPHA`` or ``column:NAME``.

    Examples
    --------
    >>> parse_partition("dirichlet:0.5")
    PartitionSpec(kind='dirichlet', alpha=0.5, column=None)
    """
    kind, _, arg = text.partition(":")
    if kind == "iid" and not arg:
        return PartitionSpec("iid")
    if kind == "dirichlet":
        try:
            alpha = float(arg)
        except ValueError:
            alpha = float("nan")
        if not alpha > 0 or alpha == float("inf"):
            raise InputError(
                "--partition dirichlet needs a positive finite concentration ALPHA",
                hint="e.g. --partition dirichlet:0.5 (smaller ALPHA, stronger label skew)",
            )
        return PartitionSpec("dirichlet", alpha=alpha)
    if kind == "column" and arg:
        return PartitionSpec("column", column=arg)
    raise InputError(
        "unknown --partition value",
        hint=f"use one of: {', '.join(PARTITIONS)}",
    )


def partition_rows(
    spec: PartitionSpec,
    n_clients: int,
    labels: np.ndarray,
    column: Any = None,
    seed: int | None = 0,
) -> list[np.ndarray]:
    """Row indices of each client.

    Parameters
    ----------
    spec
        From :func:`parse_partition`.
    n_clients
        How many clients; each must end up with at least one row.
    labels
        Class index of each training row (used by the Dirichlet split).
    column
        For ``column:NAME``: the values of that column on the training rows. Each distinct
        value is one natural group; groups are dealt, largest first, to the client holding
        the fewest rows, so there must be at least ``n_clients`` groups.
    seed
        Fixes the split.
    """
    import numpy as np

    n = len(labels)
    if n_clients < 1:
        raise InputError(f"--clients must be at least 1, got {n_clients}")
    if n_clients > n:
        raise InputError(
            f"{n_clients} clients but only {n} training rows: a client would get no data",
            hint="pass fewer --clients, or more rows",
        )
    rng = np.random.default_rng(seed)
    if spec.kind == "iid":
        return [np.sort(p) for p in np.array_split(rng.permutation(n), n_clients)]
    if spec.kind == "dirichlet":
        assert spec.alpha is not None
        classes = np.unique(labels)
        best: tuple[int, list[list[int]], np.ndarray] | None = None
        for _ in range(_DIRICHLET_TRIES):
            parts: list[list[int]] = [[] for _ in range(n_clients)]
            drawn = []
            for c in classes:
                idx = rng.permutation(np.flatnonzero(labels == c))
                share = rng.dirichlet(np.full(n_clients, spec.alpha))
                drawn.append(share)
                cuts = (np.cumsum(share)[:-1] * len(idx)).astype(int)
                for k, chunk in enumerate(np.split(idx, cuts)):
                    parts[k].extend(chunk.tolist())
            empty = sum(not p for p in parts)
            if empty == 0:
                return [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]
            if best is None or empty < best[0]:
                best = (empty, parts, np.asarray(drawn))
        assert best is not None
        empty, parts, shares = best
        log.warning(
            "no Dirichlet split with ALPHA=%g left every one of %d clients a row in %d draws; "
            "each of the %d empty clients of the closest draw takes one row of the class "
            "its proportions favour",
            spec.alpha,
            n_clients,
            _DIRICHLET_TRIES,
            empty,
        )
        return _top_up(parts, shares, classes, labels)
    assert column is not None
    import pandas as pd

    codes, _ = pd.factorize(pd.Series(column).astype("string").fillna("<missing>"))
    groups = [np.flatnonzero(codes == g) for g in range(codes.max() + 1)]
    if len(groups) < n_clients:
        raise InputError(
            f"--partition column:{spec.column} has {len(groups)} distinct value(s) among the "
            f"training rows, fewer than the {n_clients} clients",
            hint=f"pass --clients {len(groups)} or fewer",
        )
    groups.sort(key=len, reverse=True)
    out: list[list[int]] = [[] for _ in range(n_clients)]
    for g in groups:
        min(out, key=len).extend(g.tolist())
    return [np.sort(np.asarray(p, dtype=np.int64)) for p in out]


def _top_up(
    parts: list[list[int]], shares: np.ndarray, classes: np.ndarray, labels: np.ndarray
) -> list[np.ndarray]:
    """Give each empty client one row: of the class its drawn proportions favour most (its
    largest share, so the split keeps its label skew), taken from the client that holds the
    most rows of that class among those with two or more (so no client is emptied; as there
    are at least as many rows as clients, some client has two). ``shares[c, k]`` is client ``k``'s
    proportion of class ``classes[c]``."""
    import numpy as np

    sets = [list(p) for p in parts]
    for k in [k for k, p in enumerate(sets) if not p]:
        for c in np.argsort(-shares[:, k], kind="stable"):
            held = [
                int(np.sum(labels[np.asarray(p, dtype=np.int64)] == classes[c]))
                if len(p) >= 2
                else 0
                for p in sets
            ]
            donor = int(np.argmax(held))
            if held[donor] >= 1:
                row = next(i for i in sets[donor] if labels[i] == classes[c])
                sets[donor].remove(row)
                sets[k].append(row)
                break
    return [np.sort(np.asarray(p, dtype=np.int64)) for p in sets]
