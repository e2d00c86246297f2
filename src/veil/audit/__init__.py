"""Checks of what a run releases, made after every stage and before anything is written.

:func:`scan_release` searches every original identifier value in every released column,
in the same row and across rows (see :mod:`veil.audit._leak_scan`).
:func:`audit_unlearning` scores the rows a SISA model forgot against rows it never saw
(see :mod:`veil.audit._unlearning`).
"""

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
from veil.audit._unlearning import audit_unlearning, audit_unlearning_table, row_losses

__all__ = [
    "MIN_DIGITS_ACROSS",
    "MIN_LENGTH",
    "MIN_NAME_PART",
    "LeakScan",
    "ReleasedTable",
    "audit_unlearning",
    "audit_unlearning_table",
    "check_release",
    "identifier_terms",
    "name_like",
    "row_losses",
    "scan_release",
]
