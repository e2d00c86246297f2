"""The ``risk`` stage of ``veil run``: measure what was released, independently.

It runs last, after any stage that protects the data, and only reads: the released table
(``ctx.data``, suppressed rows marked by ``ctx.suppressed``, their quasi-identifiers ``*``)
and the input (``ctx.original``). It writes ``ctx.report["risk"]`` (anonymity levels,
re-identification risk, attribute inference) and ``ctx.report["utility"]`` (distances,
associations, information loss, a k sweep and ML utility), each with a ``summary`` that
goes to the top of the report. No data value enters either section.

Quasi-identifiers or sensitive columns the release dropped are measured as absent: a
dropped quasi-identifier cannot be linked on, so the classes are formed over the remaining
ones (and the report says which were dropped).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["RiskStage"]

log = logging.getLogger(__name__)


class RiskStage:
    """Measure re-identification risk, anonymity levels and utility of the release.

    Parameters
    ----------
    ml
        Train the ML-utility models (logistic regression and gradient boosting).
    max_train_rows
        Rows the ML-utility models train on at most (bounds the time on large tables).
    threshold
        Risk above which a record counts as at risk.
    """

    name: ClassVar[str] = "risk"

    def __init__(
        self, *, ml: bool = True, max_train_rows: int = 2000, threshold: float = 0.2
    ) -> None:
        self.ml = ml
        self.max_train_rows = max_train_rows
        self.threshold = threshold

    def wanted(self, policy: Policy) -> bool:
        return bool(policy.quasi_identifiers)

    def check(self, policy: Policy) -> None:
        return None

    def run(self, ctx: RunContext) -> None:
        from veil.risk._assess import assess
        from veil.risk._classes import equivalence_classes
        from veil.utility import choose_target, measure_utility

        policy = ctx.policy
        released = ctx.data
        present = {str(c) for c in released.columns}
        qis = [q for q in policy.quasi_identifiers if q in present]
        sensitive = [s for s in policy.sensitive if s in present]
        dropped = [q for q in policy.quasi_identifiers if q not in present]
        suppressed = _mask(ctx.suppressed, len(released))
        k_target = policy.privacy.k_anonymity.k if policy.privacy.k_anonymity else None
        progress_task: Any = ctx.progress.task("measuring risk", total=2)
        with progress_task as task:
            if qis:
                assessment = assess(
                    released, qis, sensitive, suppressed=suppressed, threshold=self.threshold
                )
                risk = assessment.to_dict()
                classes = assessment.classes
            else:
                risk, classes = {"note": "the release keeps no quasi-identifier"}, None
            risk["dropped_quasi_identifiers"] = dropped
            risk["requirements"] = _requirements(policy, risk) + _population_requirements(
                policy, ctx.report.get("anonymize")
            )
            risk["summary"] = _risk_summary(risk, policy)
            ctx.report["risk"] = risk
            task.advance()
            columns = [
                c
                for c in policy.columns
                if c in present
                and c in ctx.original.columns
                and policy.columns[c].role.value in ("quasi_identifier", "sensitive", "insensitive")
            ]
            target = choose_target(
                ctx.original, [*sensitive, *(c for c in columns if c not in sensitive)]
            )
            if classes is None and qis:
                classes = equivalence_classes(released, qis, suppressed=suppressed)
            utility = measure_utility(
                ctx.original,
                released,
                classes=classes,
                quasi_identifiers=qis,
                columns=columns,
                suppressed=suppressed,
                target=target if len(columns) > 1 else None,
                k=k_target,
                ml=self.ml,
                max_train_rows=self.max_train_rows,
            )
            anonymize = ctx.report.get("anonymize")
            if isinstance(anonymize, dict):
                engine = {
                    key: anonymize[key]
                    for key in ("metric", "score", "information_loss", "metrics")
                    if key in anonymize
                }
                if engine:
                    utility["engine_metrics"] = engine
            utility["summary"] = _utility_summary(utility)
            ctx.report["utility"] = utility
            task.advance()


def _mask(suppressed: Any, n: int) -> np.ndarray | None:
    if suppressed is None:
        return None
    mask = np.asarray(suppressed, dtype=bool)
    if mask.shape != (n,):
        log.warning("suppression mask has %d entries for %d rows; ignored", mask.size, n)
        return None
    return mask


def _requirements(policy: Policy, risk: dict[str, Any]) -> list[dict[str, Any]]:
    """Each privacy model of the policy, re-checked on the released table."""
    out: list[dict[str, Any]] = []
    p = policy.privacy
    if "k" not in risk:
        return out
    if p.k_anonymity is not None:
        k = risk["k"]
        out.append(
            {
                "model": "k-anonymity",
                "required": p.k_anonymity.k,
                "measured": k,
                "met": k is None or k >= p.k_anonymity.k,
            }
        )
    per = {s["column"]: s for s in risk.get("sensitive", [])}
    if p.l_diversity is not None:
        cols = [p.l_diversity.column] if p.l_diversity.column else list(per)
        for c in cols:
            if c not in per:
                continue
            lv = per[c]
            if p.l_diversity.variant == "distinct":
                measured, met = lv["l"]["distinct"], (lv["l"]["distinct"] or 0) >= p.l_diversity.l
            elif p.l_diversity.variant == "entropy":
                measured = lv["l"]["entropy"]
                met = measured is None or measured >= p.l_diversity.l - 1e-9
            else:
                measured = lv["recursive"]["c"]
                met = (
                    measured is not None
                    and p.l_diversity.c is not None
                    and measured < p.l_diversity.c
                )
            out.append(
                {
                    "model": f"{p.l_diversity.variant} l-diversity",
                    "column": c,
                    "required": p.l_diversity.l,
                    "measured": measured,
                    "met": bool(met),
                }
            )
    if p.t_closeness is not None:
        cols = [p.t_closeness.column] if p.t_closeness.column else list(per)
        key = "ordered" if p.t_closeness.distance == "ordered" else "equal"
        for c in cols:
            if c not in per:
                continue
            measured = per[c]["t"][key]
            out.append(
                {
                    "model": f"t-closeness ({key} distance)",
                    "column": c,
                    "required": p.t_closeness.t,
                    "measured": measured,
                    "met": measured is None or measured <= p.t_closeness.t + 1e-9,
                    "note": "measured against the released table's own distribution",
                }
            )
    return out


def _population_requirements(policy: Policy, anonymize: Any) -> list[dict[str, Any]]:
    """delta-presence and k-map against a population: the released table alone cannot show
    them, so these rows carry the figures the anonymize stage re-checked on the population."""
    p = policy.privacy
    population = anonymize.get("population") if isinstance(anonymize, dict) else None
    if not isinstance(population, dict):
        return []
    note = "re-checked by the anonymize stage against the population table"
    out: list[dict[str, Any]] = []
    dp, km = p.delta_presence, p.k_map
    lo, hi = population.get("delta_min"), population.get("delta_max")
    if dp is not None:
        measured = None if lo is None or hi is None else f"{lo:.4g} to {hi:.4g}"
        met = lo is None or hi is None or (dp.delta_min - 1e-9 <= lo and hi <= dp.delta_max + 1e-9)
        out.append(
            {
                "model": "delta-presence",
                "required": f"{dp.delta_min:g} to {dp.delta_max:g}",
                "measured": measured,
                "met": bool(met),
                "note": note,
            }
        )
    if km is not None and km.sampling_fraction is None:
        smallest = population.get("min_class_population")
        out.append(
            {
                "model": "k-map",
                "required": km.k,
                "measured": smallest,
                "met": smallest is None or smallest >= km.k,
                "note": note,
            }
        )
    return out


def _risk_summary(risk: dict[str, Any], policy: Policy | None = None) -> dict[str, Any]:
    if "k" not in risk:
        return {}
    out: dict[str, Any] = {
        "k": risk["k"],
        "equivalence_classes": risk["classes"],
        "highest_prosecutor_risk": risk["risk"]["prosecutor"]["highest"],
        "average_prosecutor_risk": risk["risk"]["prosecutor"]["average"],
        "sample_uniques": risk["risk"]["sample_uniques"]["records"],
    }
    if risk.get("sensitive"):
        out["l_distinct"] = risk["l"]["distinct"]
        # t under the distance the policy asked for (equal when it asked for none)
        tc = policy.privacy.t_closeness if policy is not None else None
        distance = getattr(tc, "distance", None) or "equal"
        if distance in risk["t"]:  # never a t under another distance than the one asked
            out[f"t_{distance}"] = risk["t"][distance]
    return out


def _utility_summary(utility: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cols = utility.get("columns") or []
    if cols:
        out["mean_total_variation"] = float(np.mean([c["total_variation"] for c in cols]))
    loss = utility.get("information_loss")
    if loss and loss.get("non_uniform_entropy"):
        out["information_loss_entropy"] = loss["non_uniform_entropy"]["normalized"]
    ml = utility.get("ml")
    if ml:
        lr = ml["models"].get("logistic_regression", {})
        if lr.get("accuracy_delta") is not None:
            out["ml_accuracy_delta"] = lr["accuracy_delta"]
    return out
