"""AIM (McKenna et al., 2022) with batched rounds: adaptive, workload-aware selection.

The shared machinery (domains, bins, measuring, the model fit, sampling) and the privacy
semantics are in :mod:`veil.synth._marginal`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from veil.synth._base import synthesizers
from veil.synth._coarse import target_triples
from veil.synth._marginal import (
    Clique,
    _check_triples,
    _independent,
    _marginal,
    _MarginalSynthesizer,
    _one_way,
    _target_pairs,
)
from veil.synth._pgm import forward_sample, sampling_plan

__all__ = ["AIMSynthesizer"]

# AIM's default model-size cap: junction-tree cells per training row (and at most MAX_CELLS).
CELLS_PER_ROW = 20
MAX_CELLS = 2_000_000


@synthesizers.register("aim")
class AIMSynthesizer(_MarginalSynthesizer):
    """AIM with batched rounds: adaptive, workload-aware marginal selection (mbi 2.x, OpenDP).

    Parameters
    ----------
    rounds
        Model re-fits (each compiles once on JAX).
    per_round
        Cliques selected and measured per round; default: number of columns.
    workload
        Cliques whose accuracy matters; default all pairs of columns.
    max_cells
        Largest junction tree (total cells) the measured cliques may lead to; default
        ``min(2,000,000, CELLS_PER_ROW x rows)``. Checked after *every* selection, also
        within a round: pairs that are each harmless can together force a clique over all
        their columns (all ten pairs of five 32-bin columns make one 33-million-cell table).
        Tying the default to the rows follows AIM's own rule that the model must not
        outgrow what the data can support; it bounds each mirror-descent iteration's work.
    target
        A column a model will be trained to predict from the synthetic table (public
        information from the user, like the workload). AIM's selection favours the pairs
        whose error stands out of the noise by the most *cells*, so on a small table it
        picks cheap pairs of binary columns and may never measure the target with the
        columns that predict it. With ``target`` the target's pair with every other column
        is measured first, unselected (the choice is the user's, so no selection budget is
        spent on it), as a round of its own: the rounds' budget is split over
        ``rounds + 1`` rounds, the first being the target's pairs (those that fit under
        ``max_cells``), and the ``rounds`` adaptive rounds follow from the model fitted on
        them. The guarantee and its accounting are unchanged: the same rho, split among
        the measurements. It costs a third model fit, and on a table where the adaptive
        rounds already measure the target's informative pairs (Adult) it takes budget
        from better ones; docs/synthetic-data.md has the figures.
    triples
        With ``target``: with each pair of two other columns a round selects, also measure
        the target with that pair on coarse groups of their bins (:mod:`veil.synth._coarse`),
        in the same round, at the pairs' noise (the round's measurements are shared among
        more); the model does not grow (the target's pairs already join it to every
        column). The fits then use mbi's Armijo step search. Off by default: on diamonds at
        epsilon 1 it did not narrow the AUC gap and took about twice the CPU time
        (docs/synthetic-data.md, "Target triples").

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> syn = AIMSynthesizer(epsilon=1.0, account=False, seed=0)  # doctest: +SKIP
    >>> syn.fit(adult_frame(2000)).sample(10).shape  # doctest: +SKIP
    (10, 9)
    """

    def __init__(
        self,
        *,
        rounds: int = 2,
        per_round: int | None = None,
        workload: Sequence[Sequence[str]] | None = None,
        max_cells: int | None = None,
        target: str | None = None,
        triples: bool = False,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.triples = bool(triples)
        self.rounds = rounds
        self.per_round = per_round
        self.workload = None if workload is None else [list(w) for w in workload]
        self.max_cells = max_cells
        self.target = None if target is None else str(target)
        _check_triples(self.target, self.triples)

    def _params(self) -> dict[str, Any]:
        return {
            **super()._params(),
            "rounds": self.rounds,
            "per_round": self.per_round,
            "workload": self.workload,
            "max_cells": self.max_cells,
            "target": self.target,
            "triples": self.triples,
        }

    def _cell_cap(self, n: int) -> int:
        if self.max_cells is not None:
            return int(self.max_cells)
        return int(min(MAX_CELLS, CELLS_PER_ROW * max(n, 1)))

    def _tree_cells(self, mbi: Any, sizes: dict[str, int], cliques: list[Clique]) -> float:
        domain = mbi.Domain(list(sizes), [sizes[c] for c in sizes])
        jt, _ = mbi.junction_tree.make_junction_tree(domain, cliques)
        return float(sum(np.prod([sizes[c] for c in nd]) for nd in jt.nodes))

    def _model_marginals(
        self,
        model: Any,
        sizes: dict[str, int],
        cands: list[Clique],
        mbi: Any,
        rng: np.random.Generator,
    ) -> dict[Clique, np.ndarray]:
        """The current model's marginal on each candidate (exact when inside a tree node)."""
        self._store_model(model, sizes, mbi)
        out: dict[Clique, np.ndarray] = {}
        need_sample = []
        for cl in cands:
            host = next((nd for nd in self.nodes_ if set(cl) <= set(nd)), None)
            if host is None:
                need_sample.append(cl)
                continue
            table = self.marginals_[host]
            axes = tuple(i for i, v in enumerate(host) if v not in cl)
            sub = table.sum(axis=axes) if axes else table
            kept = [v for v in host if v in cl]
            out[cl] = np.transpose(sub, [kept.index(v) for v in cl])
        if need_sample:
            m = 200_000
            draws = forward_sample(
                m, sizes, sampling_plan(self.order_, self.nodes_), self.marginals_, rng
            )
            for cl in need_sample:
                out[cl] = _marginal(draws, sizes, cl) * (self.total_ / m)
        return out

    def _select_and_measure(self, codes, sizes, budget, mbi, progress):  # type: ignore[no-untyped-def]
        cols = list(sizes)
        rho = budget.rho
        rng = np.random.default_rng(self.seed)
        workload = [tuple(w) for w in (self.workload or itertools.combinations(cols, 2))]
        with progress.task("aim: one-way marginals", total=1) as task:
            ms, probs = _one_way(self, codes, sizes, 0.1 * rho, budget, mbi)
            task.advance()
        total = max(float(np.mean([m.noisy_measurement.sum() for m in ms])), 1.0)
        cands = sorted({tuple(c) for c in workload if len(c) > 1})
        weights = {c: float(sum(len(set(c) & set(w)) for w in workload)) for c in cands}
        measured: list[Clique] = []
        model = None
        per_round = self.per_round or max(1, len(cols))
        rounds = max(1, self.rounds)
        n = len(next(iter(codes.values())))
        cap = self._cell_cap(n)
        # a declared target's pairs, those the cell cap allows, make a first round of their own
        declared: list[Clique] = []
        for c in _target_pairs(self.target, cols, []):
            if self._tree_cells(mbi, sizes, [*declared, c]) <= cap:
                declared.append(c)
        rho_round = 0.9 * rho / (rounds + (1 if declared else 0))
        self.model_cells_ = self._tree_cells(mbi, sizes, [(c,) for c in cols])
        if declared:
            with progress.task("aim: the target's pairs", total=1) as task:
                # no selection: the whole round's share measures them
                sigma = math.sqrt(len(declared) / (2 * rho_round))
                for c in declared:
                    ms.append(self._measure(codes, sizes, c, sigma, budget, mbi))
                    measured.append(c)
                self.model_cells_ = self._tree_cells(mbi, sizes, [*[(c,) for c in cols], *measured])
                model = self._estimate(mbi, sizes, ms)
                task.advance()
        with progress.task("aim: rounds", total=rounds) as task:
            for _r in range(rounds):
                done = {frozenset(m) for m in measured}
                pool = [c for c in cands if frozenset(c) not in done]
                pool = [c for c in pool if self._tree_cells(mbi, sizes, [*measured, c]) <= cap]
                k = min(per_round, len(pool))
                if k == 0:
                    break
                rho_sel = 0.1 * rho_round / k
                sigma = math.sqrt(k / (2 * 0.9 * rho_round))  # what the selection score expects
                if model is None:
                    est = {c: _independent(probs, c, total) for c in pool}
                else:
                    est = self._model_marginals(model, sizes, pool, mbi, rng)
                chosen = []
                for _ in range(k):
                    score = np.array(
                        [
                            weights[c]
                            * (
                                np.abs(_marginal(codes, sizes, c) - est[c]).sum()
                                - math.sqrt(2 / math.pi) * sigma * np.prod([sizes[v] for v in c])
                            )
                            for c in pool
                        ]
                    )
                    j = budget.select(
                        score, rho_sel, max(weights[c] for c in pool), "aim selection"
                    )
                    chosen.append(pool.pop(j))
                    # the cap holds for the batch as a whole, not only for each pick alone
                    pool = [
                        c
                        for c in pool
                        if self._tree_cells(mbi, sizes, [*measured, *chosen, c]) <= cap
                    ]
                    if not pool:
                        break
                # with ``triples``, the target with each chosen pair of two other columns, on
                # coarse groups (those the cap allows: with the target's pairs measured the
                # junction tree already holds them)
                triples: list[Clique] = []
                for t in target_triples(self.target, cols, chosen) if self.triples else []:
                    if self._tree_cells(mbi, sizes, [*measured, *chosen, *triples, t]) <= cap:
                        triples.append(t)
                # the round's measurements share what selection left (all of it unspent
                # when the cap ended the batch early); pairs and triples get the same noise
                rho_meas = rho_round - rho_sel * len(chosen)
                sigma = math.sqrt((len(chosen) + len(triples)) / (2 * rho_meas))
                for c in chosen:
                    ms.append(self._measure(codes, sizes, c, sigma, budget, mbi))
                    measured.append(c)
                ms += self._measure_triples(codes, sizes, triples, sigma, total, budget, mbi)
                measured += triples
                self.model_cells_ = self._tree_cells(mbi, sizes, [*[(c,) for c in cols], *measured])
                model = self._estimate(mbi, sizes, ms, warm=model)
                task.advance()
        if model is None:
            model = self._estimate(mbi, sizes, ms)
        return model
