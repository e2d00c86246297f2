"""Privacy audits: of what a run releases, and of models trained on personal data.

- :func:`scan_release` searches every original identifier value in every released column,
  in the same row and across rows (see :mod:`veil.audit._leak_scan`).
- :func:`membership_inference` attacks any model with a predict-probability function and a
  training function (loss, LiRA online and offline, RMIA) and reports the ROC, with the TPR
  at low FPR (:mod:`veil.audit._mia`, :mod:`veil.audit._roc`); :func:`audit_membership`
  does it for veil's tabular model trained on a table.
- :func:`one_run_audit` and :func:`audit_dp_training` give an empirical lower bound on
  epsilon from canaries in one training run (:mod:`veil.audit._dp_audit`);
  :func:`audit_dp_federated` on a federated simulation with client-level DP
  (:mod:`veil.audit._dp_fl`).
- :func:`audit_unlearning` scores the rows a SISA model forgot against rows it never saw
  (see :mod:`veil.audit._unlearning`).

``import veil.audit`` loads numpy only; torch loads when a model is trained.
"""

from veil.audit._dp_audit import (
    GUESS_FRACTIONS,
    DPAuditFailed,
    audit_dp_training,
    epsilon_lower_bound,
    one_run_audit,
    p_value,
)
from veil.audit._dp_fl import audit_dp_federated
from veil.audit._leak_scan import (
    MIN_DIGITS_ACROSS,
    MIN_LENGTH,
    MIN_NAME_PART,
    LeakScan,
    ReleasedTable,
    check_release,
    identifier_terms,
    name_like,
    scan_release,
)
from veil.audit._mia import (
    ATTACKS,
    MIN_SHADOWS,
    MembershipSignals,
    attack_scores,
    balanced_inclusion,
    check_attack,
    collect_signals,
    logit_confidence,
    membership_inference,
)
from veil.audit._report import audit_report, write_audit_report
from veil.audit._roc import FPR_LEVELS, auc, roc_curve, roc_summary, tpr_at_fpr
from veil.audit._tabular import TabularAuditModel, audit_membership
from veil.audit._unlearning import audit_unlearning, audit_unlearning_table, row_losses

__all__ = [
    "ATTACKS",
    "FPR_LEVELS",
    "GUESS_FRACTIONS",
    "MIN_DIGITS_ACROSS",
    "MIN_LENGTH",
    "MIN_NAME_PART",
    "MIN_SHADOWS",
    "DPAuditFailed",
    "LeakScan",
    "MembershipSignals",
    "ReleasedTable",
    "TabularAuditModel",
    "attack_scores",
    "auc",
    "audit_dp_federated",
    "audit_dp_training",
    "audit_membership",
    "audit_report",
    "audit_unlearning",
    "audit_unlearning_table",
    "balanced_inclusion",
    "check_attack",
    "check_release",
    "collect_signals",
    "epsilon_lower_bound",
    "identifier_terms",
    "logit_confidence",
    "membership_inference",
    "name_like",
    "one_run_audit",
    "p_value",
    "roc_curve",
    "roc_summary",
    "row_losses",
    "scan_release",
    "tpr_at_fpr",
    "write_audit_report",
]
