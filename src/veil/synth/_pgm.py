"""Exact inference and sampling for a fitted graphical model, in plain numpy.

mbi estimates the model (log-potentials on the measured cliques). Here we

1. calibrate the junction tree once (sum-product message passing in log space) to get the
   marginal of every maximal clique; these tables are what a saved DP model stores, so
   sampling needs neither JAX nor mbi;
2. sample **each column independently given its parents**: for the next column in the
   order, every row draws its value from ``p(column | already drawn parents)`` with its own
   uniform number.

Why not mbi's ``synthetic_data``: mbi < 2 "rounds" each conditional (it deals out the
expected counts per parent group), so two columns that share a parent are drawn from the
same sorted stream and end up almost identical to each other; classifiers trained on such
data learn that artefact. Independent draws follow the model's distribution exactly.
Sampling is post-processing of a DP model, so it uses an ordinary seeded generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["calibrate", "forward_sample", "sampling_plan"]

Clique = tuple[str, ...]


def _expand(arr: np.ndarray, have: Sequence[str], want: Sequence[str]) -> np.ndarray:
    """Broadcast ``arr`` over ``have`` to the axis layout of ``want`` (a superset)."""
    order = [v for v in want if v in have]
    arr = np.transpose(arr, [list(have).index(v) for v in order])
    shape = [arr.shape[order.index(v)] if v in order else 1 for v in want]
    return arr.reshape(shape)


def _logsumexp(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    if not axes:
        return a
    m = np.max(a, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return np.squeeze(out, axis=axes)


def calibrate(
    sizes: Mapping[str, int],
    nodes: Sequence[Clique],
    edges: Sequence[tuple[Clique, Clique]],
    potentials: Mapping[Clique, np.ndarray],
    total: float,
) -> dict[Clique, np.ndarray]:
    """Marginal table (counts summing to ``total``) of every junction-tree node.

    ``potentials`` are log-potentials over cliques, each contained in some node.
    """
    factors = {nd: np.zeros([sizes[v] for v in nd]) for nd in nodes}
    for cl, pot in potentials.items():
        host = next((nd for nd in nodes if set(cl) <= set(nd)), None)
        if host is None:
            raise ValueError("a potential's clique is not inside any junction-tree node")
        factors[host] = factors[host] + _expand(np.asarray(pot, dtype=float), cl, host)
    nbrs: dict[Clique, list[Clique]] = {nd: [] for nd in nodes}
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    msgs: dict[tuple[Clique, Clique], tuple[Clique, np.ndarray]] = {}

    def send(i: Clique, j: Clique) -> None:
        belief = factors[i].copy()
        for k in nbrs[i]:
            if k != j:
                vars_k, m = msgs[(k, i)]
                belief = belief + _expand(m, vars_k, i)
        sep = tuple(v for v in i if v in j)
        axes = tuple(ax for ax, v in enumerate(i) if v not in sep)
        msgs[(i, j)] = (sep, _logsumexp(belief, axes))

    seen: set[Clique] = set()
    for root in nodes:
        if root in seen:
            continue
        # iterative DFS order of this component
        order: list[tuple[Clique, Clique | None]] = []
        stack: list[tuple[Clique, Clique | None]] = [(root, None)]
        while stack:
            nd, parent = stack.pop()
            seen.add(nd)
            order.append((nd, parent))
            stack.extend((k, nd) for k in nbrs[nd] if k != parent)
        for nd, parent in reversed(order):  # collect: leaves to root
            if parent is not None:
                send(nd, parent)
        for nd, parent in order:  # distribute: root to leaves
            if parent is not None:
                send(parent, nd)
    out: dict[Clique, np.ndarray] = {}
    for nd in nodes:
        belief = factors[nd].copy()
        for k in nbrs[nd]:
            vars_k, m = msgs[(k, nd)]
            belief = belief + _expand(m, vars_k, nd)
        belief = belief - _logsumexp(belief, tuple(range(belief.ndim)))
        out[nd] = np.exp(belief) * total
    return out


def sampling_plan(
    order: Sequence[str], nodes: Sequence[Clique]
) -> list[tuple[str, Clique, Clique]]:
    """For each column in ``order``: (column, parents, host node containing both).

    ``order`` must be a reversed elimination order of the junction tree, so each column's
    already-drawn neighbours lie in one node together with it.
    """
    plan: list[tuple[str, Clique, Clique]] = []
    used: set[str] = set()
    for col in order:
        near: set[str] = set()
        for nd in nodes:
            if col in nd:
                near.update(nd)
        parents = tuple(v for v in order if v in used and v in near)
        host = next((nd for nd in nodes if set(parents) | {col} <= set(nd)), None)
        if host is None:  # not a perfect order: keep the largest parent set one node holds
            host = max(
                (nd for nd in nodes if col in nd), key=lambda nd: len(set(nd) & set(parents))
            )
            parents = tuple(v for v in parents if v in host)
        plan.append((col, parents, host))
        used.add(col)
    return plan


def forward_sample(
    n: int,
    sizes: Mapping[str, int],
    plan: Sequence[tuple[str, Clique, Clique]],
    marginals: Mapping[Clique, np.ndarray],
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Draw ``n`` rows: every column independently given its already drawn parents."""
    data: dict[str, np.ndarray] = {}
    for col, parents, host in plan:
        table = np.clip(np.asarray(marginals[host], dtype=float), 0, None)
        keep = (*parents, col)
        axes = tuple(ax for ax, v in enumerate(host) if v not in keep)
        sub = table.sum(axis=axes) if axes else table
        sub = _expand(sub, tuple(v for v in host if v in keep), keep)
        k = sizes[col]
        flat = sub.reshape(-1, k)
        row_sum = flat.sum(axis=1, keepdims=True)
        marg = flat.sum(axis=0)
        fallback = marg / marg.sum() if marg.sum() > 0 else np.full(k, 1.0 / k)
        cond = np.where(row_sum > 0, flat / np.where(row_sum > 0, row_sum, 1), fallback)
        cdf = np.cumsum(cond, axis=1)
        cdf[:, -1] = 1.0
        if parents:
            idx = np.ravel_multi_index(tuple(data[p] for p in parents), [sizes[p] for p in parents])
        else:
            idx = np.zeros(n, dtype=np.int64)
        u = rng.random(n)
        # per-row inverse CDF: count the CDF entries below u
        choice = np.zeros(n, dtype=np.int64)
        for j in range(k - 1):
            choice += u >= cdf[idx, j]
        data[col] = np.minimum(choice, k - 1)
    return data
