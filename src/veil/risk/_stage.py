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

__all__ = ["RiskStage", "risk_section", "utility_columns", "utility_section"]

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
        from veil.risk._classes import equivalence_classes

        policy = ctx.policy
        released = ctx.data
        present = {str(c) for c in released.columns}
        qis = [q for q in policy.quasi_identifiers if q in present]
        suppressed = _mask(ctx.suppressed, len(released))
        progress_task: Any = ctx.progress.task("measuring risk", total=2)
        with progress_task as task:
            values, reference = None, None
            if qis:
                # the t-closeness reference: the sensitive column over the whole input
                # (ARX); a release of a marked sample (delta-presence) is the subset itself
                reference = ctx.original if len(ctx.original) == len(released) else released
                values, reference = _as_written(ctx, list(policy.sensitive), released, reference)
            risk, classes = risk_section(
                policy,
                released,
                suppressed=suppressed,
                values=values,
                reference=reference,
                anonymize=ctx.report.get("anonymize"),
                threshold=self.threshold,
            )
            ctx.report["risk"] = risk
            task.advance()
            if classes is None and qis:
                classes = equivalence_classes(released, qis, suppressed=suppressed)
            utility = utility_section(
                policy,
                ctx.original,
                released,
                classes=classes,
                suppressed=suppressed,
                anonymize=ctx.report.get("anonymize"),
                ml=self.ml,
                max_train_rows=self.max_train_rows,
            )
            ctx.report["utility"] = utility
            task.advance()


def utility_columns(policy: Policy, released: Any, original: Any) -> list[str]:
    """The columns the utility section compares: the policy's quasi-identifiers, sensitive
    and insensitive columns present in both tables, in the policy's order."""
    return [
        c
        for c in policy.columns
        if c in released.columns
        and c in original.columns
        and policy.columns[c].role.value in ("quasi_identifier", "sensitive", "insensitive")
    ]


def utility_section(
    policy: Policy,
    original: Any,
    released: Any,
    *,
    classes: Any,
    suppressed: np.ndarray | None,
    anonymize: Any,
    ml: bool = True,
    max_train_rows: int = 2000,
    weights: Any = None,
    ml_rows: Any = None,
) -> dict[str, Any]:
    """The report's ``utility`` section (:func:`veil.utility.measure_utility`), with the
    anonymizer's own metrics and a summary. With ``weights`` (and ``ml_rows``) the tables
    are aligned weighted distinct rows, the Ray engine's aggregate: the same figures."""
    from veil.utility import choose_target, measure_utility

    present = {str(c) for c in released.columns}
    qis = [q for q in policy.quasi_identifiers if q in present]
    sensitive = [s for s in policy.sensitive if s in present]
    k_target = policy.privacy.k_anonymity.k if policy.privacy.k_anonymity else None
    columns = utility_columns(policy, released, original)
    target = choose_target(original, [*sensitive, *(c for c in columns if c not in sensitive)])
    utility = measure_utility(
        original,
        released,
        classes=classes,
        quasi_identifiers=qis,
        columns=columns,
        suppressed=suppressed,
        target=target if len(columns) > 1 else None,
        k=k_target,
        ml=ml,
        max_train_rows=max_train_rows,
        weights=weights,
        ml_rows=ml_rows,
    )
    if isinstance(anonymize, dict):
        engine = {
            key: anonymize[key]
            for key in ("metric", "score", "information_loss", "metrics")
            if key in anonymize
        }
        if engine:
            utility["engine_metrics"] = engine
    utility["summary"] = _utility_summary(utility)
    return utility


def risk_section(
    policy: Policy,
    released: Any,
    *,
    suppressed: np.ndarray | None,
    values: Any,
    reference: Any,
    anonymize: Any,
    threshold: float = 0.2,
    weights: Any = None,
) -> tuple[dict[str, Any], Any]:
    """The report's ``risk`` section of a release, and its equivalence classes.

    ``values`` and ``reference`` are the sensitive columns the policy's models are
    re-checked on (see :func:`_requirements`); ``anonymize`` is the anonymize stage's report
    section (``None`` when it did not run): its ``satisfied`` is set to what the re-check
    found, and a model not met raises :class:`VerificationError`. With ``weights`` the
    tables are weighted distinct rows (the Ray engine's aggregate: the records each row
    stands for) and every figure is the records'.
    """
    from veil.risk._assess import assess

    present = {str(c) for c in released.columns}
    qis = [q for q in policy.quasi_identifiers if q in present]
    sensitive = [s for s in policy.sensitive if s in present]
    dropped = [q for q in policy.quasi_identifiers if q not in present]
    classes = None
    if qis:
        ld = policy.privacy.l_diversity
        assessment = assess(
            released,
            qis,
            sensitive,
            suppressed=suppressed,
            threshold=threshold,
            recursive_l=int(ld.l) if ld is not None and ld.variant == "recursive" else None,
            weights=weights,
        )
        risk = assessment.to_dict()
        risk["levels_note"] = _LEVELS_NOTE
        classes = assessment.classes
    else:
        risk = {"note": "the release keeps no quasi-identifier"}
    risk["dropped_quasi_identifiers"] = dropped
    requirements = (
        _requirements(
            policy, released, qis, suppressed, values, reference, anonymize, weights=weights
        )
        if qis
        else []
    )
    risk["requirements"] = [r.to_dict() for r in requirements]
    _agree(anonymize, requirements)
    risk["summary"] = _risk_summary(risk, policy, requirements)
    return risk, classes


_LEVELS_NOTE = (
    "extra information: the levels (k, l, t, alpha, beta, delta) measure t against the "
    "distribution of the released, non-suppressed rows; the policy's models are judged in "
    "'requirements', t against the whole input as the anonymizer (ARX) does"
)


def _mask(suppressed: Any, n: int) -> np.ndarray | None:
    if suppressed is None:
        return None
    mask = np.asarray(suppressed, dtype=bool)
    if mask.shape != (n,):
        log.warning("suppression mask has %d entries for %d rows; ignored", mask.size, n)
        return None
    return mask


def _requirements(
    policy: Policy,
    released: Any,
    qis: list[str],
    suppressed: Any,
    values: Any,
    reference: Any,
    anonymize: Any,
    *,
    weights: Any = None,
) -> list[Any]:
    """Each privacy model of the policy, re-checked on the release with the anonymizer's
    definitions (:mod:`veil.risk._requirements`)."""
    from veil.risk._requirements import check_release, population_requirements

    p = policy.privacy
    sensitive = list(policy.sensitive)  # a model naming no column reads each of them
    hierarchies: dict[str, Any] = {}
    tc = p.t_closeness
    if tc is not None and tc.distance == "hierarchical" and tc.hierarchy is not None:
        import pandas as pd

        from veil.tabular._hierarchy import build_hierarchy, value_labels

        # one column: the policy refuses a hierarchy with several and no 'column'
        col = tc.column or (sensitive[0] if sensitive else None)
        if col is not None and col in released.columns:
            both = pd.concat([reference[col], values[col]], ignore_index=True)
            _, labels = value_labels(both)
            hierarchies[col] = build_hierarchy(
                col, tc.hierarchy, labels.tolist(), base_dir=policy.base_dir
            )
    reqs = check_release(
        released,
        qis,
        p,
        sensitive,
        suppressed=suppressed,
        values=values,
        reference=reference,
        hierarchies=hierarchies,
        weights=weights,
    )
    return reqs + population_requirements(p, anonymize)


def _as_written(
    ctx: RunContext, sensitive: list[str], released: Any, reference: Any
) -> tuple[Any, Any]:
    """The sensitive columns as the anonymizer saw them: as written in the CSV (``ctx.raw``,
    where ``01`` and ``1`` are two values) when the release kept them unchanged row by row;
    else the released and input values themselves."""
    from veil.risk._requirements import spelled

    raw = ctx.raw
    n = len(released)
    if raw is None or len(raw) != n or len(ctx.original) != n:
        return released, reference
    cols = [
        c
        for c in sensitive
        if c in raw.columns
        and c in released.columns
        and bool((spelled(released[c]) == spelled(ctx.original[c])).all())
    ]
    if not cols:
        return released, reference
    swap = {c: raw[c].to_numpy() for c in cols}
    return released.assign(**swap), reference.assign(**swap)


def _agree(anonymize: Any, requirements: list[Any]) -> None:
    """When the anonymize stage ran (``anonymize``, its report section): make
    ``anonymize.satisfied`` say what the re-check found, and refuse the release (exit 4)
    when a model is not met, naming it on the terminal."""
    from veil._errors import VerificationError
    from veil.risk._requirements import failure_lines

    if not isinstance(anonymize, dict):  # nothing promised these models: measured only
        return
    satisfied = dict(anonymize.get("satisfied") or {})
    for r in requirements:
        satisfied[r.key] = bool(satisfied.get(r.key, True) and r.met)
    anonymize["satisfied"] = satisfied
    failed = failure_lines(requirements)
    if failed:
        raise VerificationError(
            "the release does not meet the policy's privacy models; nothing was written:\n  "
            + "\n  ".join(failed),
            hint="the release changed after the anonymize stage, or the anonymizer has a bug: "
            "report it with the policy (not the data)",
        )


def _risk_summary(
    risk: dict[str, Any], policy: Policy | None = None, requirements: list[Any] | None = None
) -> dict[str, Any]:
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
        # the requirement's figure when the policy asks for t (one definition: the re-check's)
        asked = [r for r in requirements or [] if r.key == "t_closeness" and r.measured is not None]
        if asked:
            out[f"t_{distance}"] = max(float(r.measured) for r in asked)
        elif distance in risk["t"]:  # never a t under another distance than the one asked
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
