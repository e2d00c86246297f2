"""Coarse marginals of a declared target with two other columns ("target triples").

A model of two-way marginals keeps how a target depends on each column, not how it depends
on two columns at once (diamonds' ``cut`` follows depth *and* table together). Measuring
the fine triple (target, a, b) costs too much at epsilon 1: a five-class target with two
32-bin columns has 5,120 cells, each drowned by the Gaussian noise. Here the triple is
measured on **coarse groups** of a and b: consecutive fine bins summed into a few groups,
so each coarse cell holds many rows against the same noise.

- :class:`CoarseQuery` is the linear query mbi fits the model to: applied to the model's
  fine table over the clique it sums the fine cells of each coarse cell (jax-traceable,
  hashable, so mbi can treat it as static). The model's clique stays the fine triple.
- :func:`triple_groups` is the rule for how many groups: the largest count that keeps the
  mean coarse cell at ``TRIPLE_CELL_NOISE`` noise standard deviations of rows or more,
  from the *noisy* row count (post-processing), between ``MIN_GROUPS`` and ``MAX_GROUPS``.
- :func:`equal_mass_groups` places the groups' edges at equal shares of a column's *noisy*
  one-way marginal (post-processing: no budget, no look at the data).

Privacy: a coarse marginal is a sum of disjoint fine cells, so one row still moves exactly
one count by one: L2 sensitivity 1, the same Gaussian mechanism as a fine marginal.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "CoarseQuery",
    "coarse_query",
    "equal_mass_groups",
    "tan_pairs",
    "target_triples",
    "triple_groups",
]

Clique = tuple[str, ...]

# the mean coarse cell should hold at least this many noise sd of rows
TRIPLE_CELL_NOISE = 8.0
MIN_GROUPS = 2
MAX_GROUPS = 8


def triple_groups(rows: float, target_size: int, sigma: float) -> int:
    """Coarse groups per column of a target triple: the largest ``g`` with
    ``rows / (target_size * g**2) >= TRIPLE_CELL_NOISE * sigma``, clipped to
    ``[MIN_GROUPS, MAX_GROUPS]``. ``rows`` must be a noisy (DP) row count.

    Examples
    --------
    >>> triple_groups(45_000, 5, 50.0)
    4
    >>> triple_groups(1_000_000, 2, 10.0)
    8
    """
    per = max(float(rows), 0.0) / (max(target_size, 1) * TRIPLE_CELL_NOISE * max(sigma, 1e-12))
    return int(min(max(math.floor(math.sqrt(per)), MIN_GROUPS), MAX_GROUPS))


def equal_mass_groups(counts: np.ndarray, groups: int) -> tuple[int, ...]:
    """The group of each fine code: ``groups`` runs of consecutive codes, cut where the
    cumulative (noisy, negatives clipped) mass crosses ``1/groups``, ``2/groups``, ...;
    every group gets at least one code. A column with ``groups`` codes or fewer keeps one
    group per code.

    Examples
    --------
    >>> equal_mass_groups(np.array([10.0, 10, 10, 10, 10, 10]), 3)
    (0, 0, 1, 1, 2, 2)
    >>> equal_mass_groups(np.array([5.0, -2, 9]), 4)
    (0, 1, 2)
    """
    size = len(counts)
    if size <= groups:
        return tuple(range(size))
    p = np.clip(np.asarray(counts, dtype=float), 0, None) + 1e-9
    mid = (np.cumsum(p) - p / 2) / p.sum()  # each code's mass centre, in (0, 1)
    raw = np.minimum((mid * groups).astype(int), groups - 1)
    # every group non-empty and non-decreasing: code i's group lies in
    # [groups - (size - i), i], the room the codes before and after it leave
    out = np.empty(size, dtype=int)
    prev = 0
    for i in range(size):
        lo = max(prev, groups - (size - i))
        out[i] = min(max(int(raw[i]), lo), i, prev + 1)
        prev = int(out[i])
    return tuple(int(v) for v in out)


def target_triples(
    target: str | None, cols: Sequence[str], pairs: Sequence[Clique]
) -> list[Clique]:
    """``(target, a, b)`` for each pair in ``pairs`` of two columns other than the target
    (in the pairs' order); none without a modelled target."""
    if target is None or target not in cols:
        return []
    return [(target, *p) for p in pairs if len(p) == 2 and target not in p]


def tan_pairs(target: str | None, tree: Sequence[Clique]) -> list[Clique]:
    """Pairs of columns other than ``target`` that, with the target joined to every column,
    make a tree-augmented model (TAN): the ``tree``'s edges that do not touch the target,
    then the target's neighbours in the tree joined in a chain, in the order their edges
    were chosen. Removing the target splits a spanning tree into one piece per neighbour;
    the chain joins the pieces, so the pairs form a tree over the other columns and every
    clique of the model stays a triple (the target and one pair). Post-processing of the
    DP tree: no budget, no look at the data."""
    if target is None:
        return list(tree)
    rest = [p for p in tree if target not in p]
    nbrs = [p[1] if p[0] == target else p[0] for p in tree if target in p and len(p) == 2]
    return rest + list(itertools.pairwise(nbrs))


@dataclasses.dataclass(frozen=True)
class CoarseQuery:
    """Sums a clique's fine cells into coarse ones: ``groups[i][k]`` is the coarse value of
    fine value ``k`` of ``attrs[i]``. Frozen tuples make it hashable and comparable by value,
    which mbi needs of a query (a static part of the compiled program).

    Examples
    --------
    >>> q = CoarseQuery(("t", "a"), ((0, 1), (0, 0, 1)))
    >>> q.aggregate(np.arange(6.0).reshape(2, 3)).tolist()
    [1.0, 2.0, 7.0, 5.0]
    >>> q.op_norm_sq()
    2.0
    """

    attrs: Clique
    groups: tuple[tuple[int, ...], ...]

    @property
    def shape(self) -> tuple[int, ...]:
        """The coarse table's shape."""
        return tuple(max(g) + 1 for g in self.groups)

    def _matrices(self) -> list[np.ndarray]:
        out = []
        for g in self.groups:
            m = np.zeros((len(g), max(g) + 1))
            m[np.arange(len(g)), list(g)] = 1.0
            out.append(m)
        return out

    def _spec(self) -> str:
        n = len(self.groups)
        fine, coarse = string.ascii_lowercase[:n], string.ascii_uppercase[:n]
        return ",".join([fine, *(f + c for f, c in zip(fine, coarse, strict=True))]) + "->" + coarse

    def aggregate(self, table: np.ndarray) -> np.ndarray:
        """The coarse marginal (flattened) of a fine table laid out in ``attrs`` order."""
        return np.einsum(self._spec(), np.asarray(table, dtype=float), *self._matrices()).ravel()

    def __call__(self, factor: Any) -> Any:
        """The coarse marginal of an mbi ``Factor`` over ``attrs`` (jax, traceable)."""
        import jax.numpy as jnp

        if tuple(factor.domain.attributes) != self.attrs:
            factor = factor.transpose(self.attrs)
        mats = [jnp.asarray(m) for m in self._matrices()]
        return jnp.einsum(self._spec(), factor.values, *mats).ravel()

    def op_norm_sq(self) -> float:
        """Squared operator norm: the most fine cells one coarse cell sums (its rows are
        disjoint 0/1 vectors), which mbi uses for the step size's Lipschitz bound."""
        return float(np.prod([max(np.bincount(g)) for g in self.groups]))


def coarse_query(
    triple: Clique,
    sizes: dict[str, int],
    one_way: dict[str, np.ndarray],
    rows: float,
    sigma: float,
) -> CoarseQuery:
    """The query measuring ``triple`` (target first, kept whole) on coarse groups of its
    other two columns: :func:`triple_groups` groups from the noisy row count ``rows`` and
    the noise ``sigma``, placed by :func:`equal_mass_groups` on each column's noisy
    one-way marginal (``one_way``). Post-processing of DP outputs only."""
    g = triple_groups(rows, sizes[triple[0]], sigma)
    rest = [equal_mass_groups(one_way[c], g) for c in triple[1:]]
    return CoarseQuery(triple, (tuple(range(sizes[triple[0]])), *rest))
