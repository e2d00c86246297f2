"""MST (McKenna et al., 2021): one-way marginals plus a DP maximum spanning tree of pairs.

The shared machinery (domains, bins, measuring, the model fit, sampling) and the privacy
semantics are in :mod:`veil.synth._marginal`.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from veil.synth._base import synthesizers
from veil.synth._coarse import tan_pairs, target_triples
from veil.synth._marginal import (
    Clique,
    _check_triples,
    _independent,
    _marginal,
    _MarginalSynthesizer,
    _one_way,
    _target_pairs,
)

__all__ = ["MSTSynthesizer"]


@synthesizers.register("mst")
class MSTSynthesizer(_MarginalSynthesizer):
    """MST: one-way marginals plus a DP maximum spanning tree of pairs (mbi 2.x, OpenDP).

    The model is fitted with mbi's Armijo step search (``fit_step``): with the fixed step
    AIM uses, MST's fits stopped up to 10 noise sd short of a measurement on diamonds
    (docs/synthetic-data.md, "The model fit's step").

    Parameters
    ----------
    target
        A column a model will be trained to predict from the synthetic table (public
        information from the user, like a workload). A tree gives the target one edge to
        each neighbour only, so a target that depends on several columns at once loses
        most of that dependence; with ``target`` every pair of the target with another
        column is measured too (from the same third of the budget as the tree's pairs,
        which then get more noise each). The model is no longer a tree: its junction
        tree has cliques of three columns (the target and a tree edge).
    triples
        With ``target``: also measure the target with two other columns at once, on
        coarse groups of their bins (:mod:`veil.synth._coarse`): for each tree edge that
        does not touch the target, and for the target's tree neighbours joined in a chain
        (a tree-augmented model; the cliques stay triples, the model no larger). They
        share the last third with the pairs, at the same noise (the fit uses mbi's
        Armijo step search, as every MST fit). Off by default: on diamonds at epsilon 1 it did not narrow the
        AUC gap (docs/synthetic-data.md, "Target triples").

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> syn = MSTSynthesizer(epsilon=1.0, account=False, seed=0)  # doctest: +SKIP
    >>> syn.fit(adult_frame(2000)).sample(10).shape  # doctest: +SKIP
    (10, 9)
    """

    fit_step = "armijo"  # the fixed step stops short on diamonds (_MarginalSynthesizer._estimate)

    def __init__(self, *, target: str | None = None, triples: bool = False, **kw: Any) -> None:
        super().__init__(**kw)
        self.target = None if target is None else str(target)
        self.triples = bool(triples)
        _check_triples(self.target, self.triples)

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "target": self.target, "triples": self.triples}

    def _select_and_measure(self, codes, sizes, budget, mbi, progress):  # type: ignore[no-untyped-def]
        cols = list(sizes)
        rho = budget.rho
        n = len(next(iter(codes.values())))
        with progress.task("mst: one-way marginals", total=1) as task:
            ms, probs = _one_way(self, codes, sizes, rho / 3, budget, mbi)
            task.advance()
        total = max(float(np.mean([m.noisy_measurement.sum() for m in ms])), 1.0)
        pairs = list(itertools.combinations(cols, 2))
        if len(cols) > 1:
            scores = {
                p: float(np.abs(_marginal(codes, sizes, p) - _independent(probs, p, total)).sum())
                for p in pairs
            }
            rho_sel = rho / 3 / (len(cols) - 1)
            comp = {c: c for c in cols}

            def find(c: str) -> str:
                while comp[c] != c:
                    c = comp[c]
                return c

            chosen: list[Clique] = []
            with progress.task("mst: spanning tree", total=len(cols) - 1) as task:
                for _ in range(len(cols) - 1):
                    cand = [p for p in pairs if find(p[0]) != find(p[1])]
                    k = budget.select(np.array([scores[p] for p in cand]), rho_sel, 1.0, "mst edge")
                    a, b = cand[k]
                    comp[find(a)] = find(b)
                    chosen.append(cand[k])
                    task.advance()
            # a declared target's pairs join the tree's, from the same third of rho
            # with ``triples``, the target with each tree edge that does not touch it and
            # with each pair of its tree neighbours in a chain, on coarse groups: the
            # target plus a tree over the other columns (the cliques stay triples)
            triples = (
                target_triples(self.target, cols, tan_pairs(self.target, chosen))
                if self.triples
                else []
            )
            chosen += _target_pairs(self.target, cols, chosen)
            sigma = math.sqrt((len(chosen) + len(triples)) / (2 * (rho / 3)))
            for p in chosen:
                ms.append(self._measure(codes, sizes, p, sigma, budget, mbi))
            ms += self._measure_triples(codes, sizes, triples, sigma, total, budget, mbi)
        del n
        with progress.task("mst: estimating the model (jax compile)", total=1) as task:
            model = self._estimate(mbi, sizes, ms)
            task.advance()
        return model
