"""MST and AIM: differentially private synthesizers from noisy marginals, on mbi 2.x.

This module holds what the two share (the base class: domains, bins, measuring, the
model fit, sampling, saving); the selections live in :mod:`veil.synth._mst` and
:mod:`veil.synth._aim`.

Both measure low-dimensional marginals (counts of value combinations) with the Gaussian
mechanism, fit a graphical model to the noisy counts with mbi's mirror descent, and sample
from the model (see :mod:`veil.synth._pgm`, columns drawn independently).

- **MST** (McKenna et al., 2021): all one-way marginals, then a maximum spanning tree of
  pairs chosen with the exponential mechanism (Kruskal; weight = how badly the
  independent model misses the pair), then those pairs measured. Budget thirds. With a
  declared ``target`` its pairs with every other column are measured too (last third).
- **AIM** (McKenna et al., 2022), adapted for speed: one-way marginals (10 % of the
  budget), then a few rounds; each round selects a batch of cliques with the exponential
  mechanism, scoring each candidate by how far the *current model* is from the data on it
  minus the expected noise (AIM's score), measures the batch, and re-fits the model with a
  warm start. The original re-fits after every single measurement; on JAX each re-fit
  compiles a new program (5-15 s), which is why it needs minutes on Adult. Batching keeps
  AIM's adaptivity at 2-3 compilations. Candidates are the workload's cliques (all pairs
  by default) that keep the junction tree under ``max_cells`` cells.
- With a declared ``target`` and ``triples=True`` (both), the target with two other columns
  at once, on coarse groups of their bins (:mod:`veil.synth._coarse`), for pairs the DP
  selections already chose; opt-in (docs/synthetic-data.md, "Target triples").

Privacy: (epsilon, delta)-DP for one row (add/remove). The budget is converted to rho-zCDP
with OpenDP and every selection and measurement is an OpenDP mechanism whose cost OpenDP's
privacy map states (:class:`~veil.synth._noise.ZCDPBudget`).

The *domain* (bounds, category lists) and the numeric bins are part of the guarantee:

- a share of rho, ``DOMAIN_SHARE`` (a tenth) times the share of modelled columns that need
  it, goes to the columns' domains: each numeric column gets a noisy fine histogram that
  places its bins (:mod:`veil.synth._discretize`), and, when its bounds were not declared,
  a noisy histogram on a fixed grid that finds them; each categorical column whose list was
  not declared gets a stability histogram (:mod:`veil.synth._domain`), which also spends
  half of delta (the rest of rho then comes from the other half); when there are numeric
  columns, ``COUNT_SHARE`` of that share measures the row count, which sizes their coarse
  bins (fewer on a small table, where a pair marginal's noise would swamp finer cells:
  :meth:`_MarginalSynthesizer._adaptive_bins`; ``fit_info_["domain_budget"]["bins"]``);
- declared domains (``categories=`` / ``bounds=`` to ``fit``; CLI ``--bounds``,
  ``--categories``, ``--public-domain``) cost nothing;
- ``domain_from_data=True`` reads undeclared domains from the data *outside* the
  guarantee; ``fit_info_["domain_from_data"]`` lists those columns and
  ``fit_info_["privacy_statement"]`` says so in words. Constant and all-missing columns are
  always reproduced from the data and listed there too.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._deps import require
from veil._errors import InputError
from veil._numeric import coerce_numbers
from veil._progress import Progress
from veil.synth._base import (
    LedgerLike,
    Synthesizer,
    check_epsilon_delta,
    dp_guard,
    dp_statement,
)
from veil.synth._coarse import CoarseQuery, coarse_query
from veil.synth._constraints import Constraint
from veil.synth._discretize import Discretizer
from veil.synth._domain import dp_bounds, dp_categories, stability_threshold
from veil.synth._noise import ZCDPBudget, epsilon_for, rho_for
from veil.synth._pgm import calibrate, forward_sample, sampling_plan
from veil.synth._schema import TableSchema

__all__: list[str] = []

log = logging.getLogger(__name__)

Clique = tuple[str, ...]

DOMAIN_SHARE = 0.1
COUNT_SHARE = 0.05  # of the domain's share: a noisy row count that sizes the numeric bins
CELL_NOISE = 0.5  # a pair cell of two numeric columns should hold this many noise sd of rows
MIN_BINS = 4
# The model fit's step rule, "fixed" (mbi's 2 / (lipschitz * total), FIXED_STEP = 2) or
# "armijo" (mbi's Armijo step search): each method's ``fit_step``, unless FIT_STEP names one
# for every fit (benchmarks/synth_fit_residuals.py). Fits with coarse triples use Armijo.
FIT_STEP: str | None = None
FIXED_STEP = 2.0


def _mbi() -> Any:
    """Import mbi with JAX configured as mbi asks: float64, no persistent compile cache."""
    jax = require("jax", extra="synth", purpose="the MST and AIM synthesizers")
    if not jax.config.jax_enable_x64:
        jax.config.update("jax_enable_x64", True)
    if jax.config.jax_enable_compilation_cache:
        jax.config.update("jax_enable_compilation_cache", False)
    return require("mbi", extra="synth", purpose="the MST and AIM synthesizers")


def _marginal(codes: dict[str, np.ndarray], sizes: dict[str, int], clique: Clique) -> np.ndarray:
    shape = [sizes[c] for c in clique]
    idx = np.ravel_multi_index(tuple(codes[c] for c in clique), shape)
    return np.bincount(idx, minlength=int(np.prod(shape))).astype(float).reshape(shape)


def _check_target(target: str | None, data: Any) -> None:
    """A declared target must be a column of ``data`` (checked before anything is measured)."""
    if (
        target is not None
        and isinstance(data, pd.DataFrame)
        and target not in {str(c) for c in data.columns}
    ):
        raise InputError(
            f"the target column {target!r} is not in the table",
            hint="name one of the table's columns, or leave the target out",
        )


def _check_triples(target: str | None, triples: bool) -> None:
    """``triples`` adds the target's triples: without a target it would do nothing, silently."""
    if triples and target is None:
        raise InputError(
            "triples=True adds triples of the target column, but no target is declared",
            hint="declare the column to be predicted (target=..., --target, synth.target)",
        )


def _target_pairs(target: str | None, cols: list[str], have: Sequence[Clique]) -> list[Clique]:
    """The declared target's pairs with every other column (in the columns' order) that
    ``have`` lacks; none when the target is not modelled (a constant one is reproduced)."""
    if target is None or target not in cols:
        return []
    seen = {frozenset(p) for p in have}
    return [
        (c, target) if cols.index(c) < cols.index(target) else (target, c)
        for c in cols
        if c != target and frozenset((c, target)) not in seen
    ]


def _rows_sigma(rho_domain: float) -> float:
    """Noise sd of the fit's noisy row count: ``COUNT_SHARE`` of the domain's zCDP budget."""
    return math.sqrt(1 / (2 * rho_domain * COUNT_SHARE))


class _MarginalSynthesizer(Synthesizer):
    """Shared machinery: encoding, measuring, estimating with mbi, sampling."""

    dp = True
    target: str | None = None  # a column to be predicted (MST and AIM take one)
    fit_step = "fixed"  # the model fit's step rule (see FIT_STEP)

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float = 1e-9,
        max_bins: int = 32,
        iters: int = 5000,
        ledger: LedgerLike | None = None,
        dataset: str | None = None,
        account: bool = True,
        domain_from_data: bool = False,
        constraints: Sequence[Constraint] = (),
        seed: int | None = None,
    ) -> None:
        super().__init__(constraints=constraints, seed=seed)
        self.domain_from_data = bool(domain_from_data)
        self.epsilon = epsilon
        self.delta = delta
        self.max_bins = max_bins
        self.iters = iters
        self.ledger = ledger
        self.dataset = dataset
        self.account = account

    def _params(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "max_bins": self.max_bins,
            "iters": self.iters,
            "domain_from_data": self.domain_from_data,
        }

    def _check_dp_params(self, n: int) -> None:
        check_epsilon_delta(self.epsilon, self.delta, n)

    def _privacy_info(self) -> dict[str, Any]:
        return {
            "differential_privacy": True,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "rho": self.rho_,
            "rho_spent": self.rho_spent_,
            "epsilon_spent": epsilon_for(self.rho_spent_, self.delta)
            if self.rho_spent_ > 0
            else 0.0,
            "unit": "one row (add/remove)",
            "measurements": self.measured_,
            "coarse_triples": getattr(self, "coarse_", []),
            "domain_from_data": self.domain_from_data_,
            "domain": self.domain_,
            "domain_budget": self.domain_budget_,
            "privacy_statement": dp_statement(self.epsilon, self.delta, self.domain_from_data_),
            "ledger_entry": self.ledger_entry_,
        }

    # -------------------------------------------------------------- fitting
    def _select_and_measure(
        self,
        codes: dict[str, np.ndarray],
        sizes: dict[str, int],
        budget: ZCDPBudget,
        mbi: Any,
        progress: Progress,
    ) -> Any:
        raise NotImplementedError

    def _domain_plan(self, schema: TableSchema) -> dict[str, str]:
        """Column -> what its domain needs: ``declared``, ``data`` (read outside DP, on
        request), ``dp`` (estimated here). Continuous columns also get a fine histogram."""
        declared: set[str] = getattr(self, "_declared_domain", set())
        plan: dict[str, str] = {}
        for spec in schema.modelled:
            if spec.name in declared or spec.kind == "boolean":
                plan[spec.name] = "declared"
            elif self.domain_from_data:
                plan[spec.name] = "data"
            else:
                plan[spec.name] = "dp"
        return plan

    def _fit(self, data: pd.DataFrame, schema: TableSchema, progress: Progress) -> None:
        mbi = _mbi()
        plan = self._domain_plan(schema)
        specs = {s.name: s for s in schema.modelled}
        needs = [c for c, how in plan.items() if how == "dp" or specs[c].continuous]
        thresholded = [c for c, how in plan.items() if how == "dp" and not specs[c].continuous]
        # half of delta pays for the stability histograms' thresholds, when there are any
        delta_thr = self.delta / 2 if thresholded else 0.0
        rho = rho_for(self.epsilon, self.delta - delta_thr)
        share = DOMAIN_SHARE * len(needs) / max(len(specs), 1)
        rho_domain = rho * share
        # a noisy row count sizes the numeric bins (_adaptive_bins), when there are any
        count_share = COUNT_SHARE if any(specs[c].continuous for c in needs) else 0.0
        self.bins_rule_: dict[str, int] = {}
        curve = None
        if self.ledger is not None and not delta_thr:
            # the zCDP curve lets the ledger compose tightly; a stability histogram adds a
            # delta outside the curve, so then the plain (epsilon, delta) charge stands
            from veil.dp import curve_zcdp

            curve = curve_zcdp(rho)
        guard = dp_guard(
            self.ledger,
            self.dataset,
            epsilon=self.epsilon,
            delta=self.delta,
            what=f"synthetic data ({self.name}, {len(data)} rows)",
            mechanism=f"synth-{self.name}",
            account=self.account,
            curve=curve,
        )
        with guard as spend:
            dbudget = ZCDPBudget(rho_domain) if rho_domain > 0 else None
            domain: dict[str, dict[str, Any]] = {}
            bins = self.max_bins
            rows_noisy: float | None = None
            if count_share and dbudget is not None:
                bins, rows = self._adaptive_bins(len(data), len(specs), rho - rho_domain, dbudget)
                self.bins_rule_ = {"bins": bins, "rows_noisy": rows}
                rows_noisy = float(rows)
            if needs and dbudget is not None:
                rho_col = rho_domain * (1 - count_share) / len(needs)
                with progress.task(f"{self.name}: domains and bins (DP)", total=1) as task:
                    for c in needs:
                        spec = specs[c]
                        entry: dict[str, Any] = {"source": plan[c], "kind": spec.kind}
                        if plan[c] == "dp" and spec.continuous:
                            x = pd.Series(data[c]).dropna()
                            vals = (
                                x.astype("int64").to_numpy(dtype=float)
                                if spec.kind == "datetime"
                                else coerce_numbers(x).to_numpy(dtype=float)
                            )
                            sig = math.sqrt(1 / (2 * (rho_col / 2)))
                            lo, hi, clipped = dp_bounds(
                                vals,
                                spec.kind,
                                sig,
                                dbudget,
                                f"bounds {spec.kind}",
                                rows_noisy,
                                None if rows_noisy is None else _rows_sigma(dbudget.rho),
                            )
                            spec.low, spec.high = lo, hi
                            # the clipped count is exact, read from the data outside the
                            # guarantee: the operator's log only, never the model's state,
                            # its fit information or the report (all saved or shared)
                            if clipped * 20 > len(vals):  # more than 5 %: tell the operator
                                log.warning(
                                    "column %r: %d of its %d value(s) lie outside the bounds "
                                    "estimated under DP and are clipped to them (too few rows "
                                    "for the budget); declare its bounds (--bounds)",
                                    c,
                                    clipped,
                                    len(vals),
                                )
                        elif plan[c] == "dp":
                            sig = math.sqrt(1 / (2 * rho_col))
                            thr = stability_threshold(sig, delta_thr / len(thresholded))
                            cats, dropped = dp_categories(
                                pd.Series(data[c]), sig, thr, dbudget, "category list"
                            )
                            spec.categories = cats
                            # the threshold depends on the budget only: it may be shown
                            entry["keep_above_rows"] = round(thr, 1)
                            if dropped:  # exact, as the clipped count: the log only
                                seen = pd.Series(data[c]).dropna()
                                lost = int((~seen.isin(cats)).sum())
                                if not cats or lost * 20 > len(seen):
                                    log.warning(
                                        "column %r: %d of its %d seen value(s) fell under "
                                        "the DP stability threshold (a value needs about %d "
                                        "rows at this budget); %s of its %d non-missing rows are "
                                        "written as missing%s; declare its categories "
                                        "(--categories) or give a larger epsilon",
                                        c,
                                        dropped,
                                        dropped + len(cats),
                                        round(thr),
                                        "all" if not cats else str(lost),
                                        len(seen),
                                        " (the synthetic column is all missing)"
                                        if not cats
                                        else "",
                                    )
                                else:
                                    log.info(
                                        "column %r: %d seen value(s) under the DP stability "
                                        "threshold are written as missing",
                                        c,
                                        dropped,
                                    )
                        domain[c] = entry
                    task.advance()
            for c, how in plan.items():
                domain.setdefault(c, {"source": how, "kind": specs[c].kind})
            sigmas: dict[str, float] = {}
            if needs:
                rho_col = rho_domain * (1 - count_share) / len(needs)
                for c in needs:
                    if specs[c].continuous:  # half went to its bounds when they were estimated
                        rho_fine = rho_col / 2 if plan[c] == "dp" else rho_col
                        sigmas[c] = math.sqrt(1 / (2 * rho_fine))
            disc = Discretizer.build(
                schema,
                data,
                max_bins=bins,
                budget=dbudget,
                sigmas=sigmas,
                missing_code=not self.domain_from_data,
                exact_bounds={c for c, how in plan.items() if how == "data"},
                rows=rows_noisy,
            )
            sizes = disc.sizes
            codes = disc.encode(data, schema)
            budget = ZCDPBudget(rho - rho_domain)
            self.measured_: list[list[str]] = []
            self.coarse_: list[dict[str, Any]] = []
            self.one_way_: dict[str, tuple[np.ndarray, float]] = {}
            model = self._select_and_measure(codes, sizes, budget, mbi, progress)
            spent_domain = dbudget.spent if dbudget is not None else 0.0
            self.rho_, self.rho_spent_ = rho, budget.spent + spent_domain
            self.ledger_entry_ = getattr(spend, "id", None)
        for c in plan:
            spec = specs[c]
            if spec.continuous:
                domain[c].update(low=spec.low, high=spec.high)
            else:
                domain[c]["categories"] = len(spec.categories)
        self.domain_ = domain
        self.domain_budget_ = {
            "share_of_rho": round(share, 6),
            "rho": rho_domain,
            "rho_spent": dbudget.spent if dbudget is not None else 0.0,
            "delta_thresholds": delta_thr,
            "rule": f"{DOMAIN_SHARE:g} x rho x (columns needing it / modelled columns)",
            **self.bins_rule_,
        }
        self.domain_from_data_ = sorted(
            [c for c, how in plan.items() if how == "data"]
            + [s.name for s in schema.columns if not s.modelled]
        )
        self._store_model(model, sizes, mbi)
        disc.drop_unmeasured_missing(self.one_way_)
        disc.calibrate(self.one_way_)
        self.disc_ = disc
        # the mbi model itself, for comparisons in benchmarks; never saved
        self.mbi_model_ = model

    def _adaptive_bins(
        self, n: int, k: int, rho_model: float, dbudget: ZCDPBudget
    ) -> tuple[int, int]:
        """(coarse bins per numeric column, noisy row count): fewer, wider bins when the
        noise of the model's measurements would swamp the counts of its cells.

        The row count is measured with Gaussian noise from ``COUNT_SHARE`` of the domain's
        budget (``dbudget``). The reference noise is that of one of MST's pair marginals
        with the rest of the budget (``rho_model``; ``k`` modelled columns:
        ``sqrt((k - 1) / (2 rho_model / 3))``); a pair of numeric columns with ``b`` bins
        each has ``b**2`` cells, and ``b`` is the largest that keeps the rows per cell at
        least ``CELL_NOISE`` noise sd: ``sqrt(rows / (CELL_NOISE x sd))``, between
        ``MIN_BINS`` and ``max_bins``. Adult (30,000 rows, 15 columns, epsilon 1) keeps 32;
        1,400 rows of 5 columns get about 11. Post-processing of the noisy count."""
        sigma = _rows_sigma(dbudget.rho)
        rows = float(dbudget.gaussian(np.array([float(n)]), sigma, what="row count")[0])
        pair_sd = math.sqrt(max(k - 1, 1) / (2 * rho_model / 3))
        b = math.floor(math.sqrt(max(rows, 0.0) / (CELL_NOISE * pair_sd)))
        return int(min(max(b, MIN_BINS), self.max_bins)), round(rows)

    def _estimate(
        self, mbi: Any, sizes: dict[str, int], measurements: list[Any], warm: Any = None
    ) -> Any:
        domain = mbi.Domain(list(sizes), [sizes[c] for c in sizes])
        total = mbi.estimation.minimum_variance_unbiased_total(measurements)
        loss_fn = mbi.marginal_loss.from_linear_measurements(measurements, domain)
        # The step rule (docs/synthetic-data.md, "The model fit's step"): a fixed step (mbi's
        # own default 2 / (L * total)) compiles half the program of mbi's Armijo search and
        # is what AIM uses: its fits reach every measurement within about 3 noise sd on Adult
        # and diamonds. MST's do not: on diamonds (5,000 iterations) the fixed step left the
        # (carat, x) pair 10 noise sd away, and the Armijo search, whose step grows while it
        # is accepted, reaches about 3 sd in about the same CPU time, so MST uses it. Fits
        # with coarse target triples use it whatever the method's rule.
        rule = FIT_STEP or self.fit_step
        coarse = any(isinstance(m.query, CoarseQuery) for m in measurements)
        step = (
            None if coarse or rule == "armijo" else FIXED_STEP / (float(loss_fn.lipschitz) * total)
        )
        est = mbi.estimation.MirrorDescent(stepsize=step)
        model = est.estimate(domain, loss_fn, known_total=total, iters=self.iters, warm_start=warm)
        # Each re-fit compiles a new program; drop the old ones so peak memory stays low.
        import gc

        import jax

        jax.clear_caches()
        gc.collect()
        return model

    def _measure(
        self,
        codes: dict[str, np.ndarray],
        sizes: dict[str, int],
        clique: Clique,
        sigma: float,
        budget: ZCDPBudget,
        mbi: Any,
    ) -> Any:
        y = budget.gaussian(
            _marginal(codes, sizes, clique).ravel(), sigma, what=f"marginal {len(clique)}-way"
        )
        self.measured_.append(list(clique))
        return mbi.LinearMeasurement(y, clique, stddev=sigma)

    def _measure_triples(
        self,
        codes: dict[str, np.ndarray],
        sizes: dict[str, int],
        triples: list[Clique],
        sigma: float,
        total: float,
        budget: ZCDPBudget,
        mbi: Any,
    ) -> list[Any]:
        """Measure each target triple on coarse groups (:func:`coarse_query`); the model's
        clique is the fine triple."""
        out = []
        for cl in triples:
            query = coarse_query(cl, sizes, {c: self.one_way_[c][0] for c in cl[1:]}, total, sigma)
            y = budget.gaussian(
                query.aggregate(_marginal(codes, sizes, cl)), sigma, what="coarse marginal 3-way"
            )
            self.measured_.append(list(cl))
            self.coarse_.append({"clique": list(cl), "groups": list(query.shape)})
            out.append(mbi.LinearMeasurement(y, cl, stddev=sigma, query=query))
        return out

    def _store_model(self, model: Any, sizes: dict[str, int], mbi: Any) -> None:
        cliques = [tuple(cl) for cl in model.cliques]
        domain = mbi.Domain(list(sizes), [sizes[c] for c in sizes])
        jt, elim = mbi.junction_tree.make_junction_tree(domain, cliques)
        nodes = [tuple(nd) for nd in jt.nodes]
        edges = [(tuple(a), tuple(b)) for a, b in jt.edges]
        pots = {
            tuple(cl): np.asarray(model.potentials[cl].values, dtype=float)
            for cl in model.potentials.cliques
        }
        total = float(model.total)
        self.nodes_ = nodes
        self.marginals_ = calibrate(sizes, nodes, edges, pots, total)
        self.order_ = [str(c) for c in elim[::-1]]
        self.total_ = total

    # -------------------------------------------------------------- sampling
    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        plan = sampling_plan(self.order_, self.nodes_)
        codes = forward_sample(n, self.disc_.sizes, plan, self.marginals_, rng)
        return self.disc_.decode(codes, self.schema_, rng)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        meta = {
            "nodes": [list(nd) for nd in self.nodes_],
            "order": self.order_,
            "total": self.total_,
            "discretizer": self.disc_.columns,
        }
        arrays = {f"marginal.{i}": self.marginals_[nd] for i, nd in enumerate(self.nodes_)}
        return meta, arrays

    def _set_state(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.nodes_ = [tuple(nd) for nd in meta["nodes"]]
        self.order_ = list(meta["order"])
        self.total_ = float(meta["total"])
        self.marginals_ = {nd: arrays[f"marginal.{i}"] for i, nd in enumerate(self.nodes_)}
        self.disc_ = Discretizer(list(meta["discretizer"]))

    def fit(self, data: pd.DataFrame, **kw: Any) -> Any:  # type: ignore[override]
        """As :meth:`Synthesizer.fit`; ``categories=``/``bounds=`` declare the public domain
        (free of charge), every other column's domain is estimated under DP (or read from
        the data with ``domain_from_data=True``, outside the guarantee). A declared
        ``target`` (MST, AIM) must be a column of ``data``: checked before anything is
        measured."""
        _check_target(self.target, data)
        return super().fit(data, **kw)


def fit_residuals(model: Any, measurements: Sequence[Any]) -> list[dict[str, Any]]:
    """Per measurement, how far the fitted model is from it in units of its noise sd:
    ``(query(model) - noisy) / stddev`` per cell, its largest absolute value (``max_sd``)
    and its root mean square (``rms_sd``). A fit run to convergence leaves about the noise
    (RMS near 1 or below); many sd mean the mirror descent stopped short. Diagnostic of a
    fit on measured (DP) values only: post-processing."""
    out = []
    for m in measurements:
        fitted = np.asarray(m.query(model.project(m.clique)), dtype=float).ravel()
        z = (fitted - np.asarray(m.noisy_measurement, dtype=float).ravel()) / float(m.stddev)
        out.append(
            {
                "clique": list(m.clique),
                "coarse": isinstance(m.query, CoarseQuery),
                "cells": int(z.size),
                "max_sd": round(float(np.abs(z).max()), 3),
                "rms_sd": round(float(np.sqrt(np.mean(z**2))), 3),
            }
        )
    return out


def _one_way(
    self: _MarginalSynthesizer,
    codes: dict[str, np.ndarray],
    sizes: dict[str, int],
    rho: float,
    budget: ZCDPBudget,
    mbi: Any,
) -> tuple[list[Any], dict[str, np.ndarray]]:
    sigma = math.sqrt(len(sizes) / (2 * rho))
    ms, probs = [], {}
    for c in sizes:
        m = self._measure(codes, sizes, (c,), sigma, budget, mbi)
        noisy = np.asarray(m.noisy_measurement, dtype=float)
        p = np.clip(noisy, 0, None) + 1e-9
        probs[c] = p / p.sum()
        ms.append(m)
        self.one_way_[c] = (noisy, sigma)
    return ms, probs


def _independent(probs: dict[str, np.ndarray], clique: Clique, total: float) -> np.ndarray:
    out = np.ones([len(probs[c]) for c in clique])
    for ax, c in enumerate(clique):
        shape = [1] * len(clique)
        shape[ax] = len(probs[c])
        out = out * probs[c].reshape(shape)
    return out * total
