"""Differential privacy: the persistent privacy-budget ledger and DP statistics on OpenDP.

``import veil.dp`` is light: each name loads its module on first use; OpenDP and Opacus load
when a statistic is computed or a tighter composition is evaluated.
"""

from typing import TYPE_CHECKING

from veil._errors import LedgerUnavailableError, PrivacyBudgetExceeded
from veil._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from veil.dp._composition import (
        COMPOSITIONS,
        Composed,
        compose,
        curve_dpsgd,
        curve_gaussian,
        curve_pure,
        curve_rdp,
        curve_zcdp,
    )
    from veil.dp._ledger import BudgetLedger, BudgetStatus, Spend, SpendRequest
    from veil.dp._local import RRFrequencies, randomized_response, rr_estimate, rr_probabilities
    from veil.dp._query import QuerySpec, parse_query
    from veil.dp._stats import DPAnswer, dp_query, dp_query_many, fingerprint_frame
    from veil.dp._store import default_ledger_url

__all__ = [
    "COMPOSITIONS",
    "BudgetLedger",
    "BudgetStatus",
    "Composed",
    "DPAnswer",
    "LedgerUnavailableError",
    "PrivacyBudgetExceeded",
    "QuerySpec",
    "RRFrequencies",
    "Spend",
    "SpendRequest",
    "compose",
    "curve_dpsgd",
    "curve_gaussian",
    "curve_pure",
    "curve_rdp",
    "curve_zcdp",
    "default_ledger_url",
    "dp_query",
    "dp_query_many",
    "fingerprint_frame",
    "parse_query",
    "randomized_response",
    "rr_estimate",
    "rr_probabilities",
]

# each name imported on first use: the erasure log (veil.unlearning) needs only the
# database helpers of veil.dp._store, not the ledger, the query language (pydantic) and the
# statistics, which cost every `veil unlearn forget` a noticeable part of its start-up
_HOME = {
    "COMPOSITIONS": "veil.dp._composition",
    "Composed": "veil.dp._composition",
    "compose": "veil.dp._composition",
    "curve_dpsgd": "veil.dp._composition",
    "curve_gaussian": "veil.dp._composition",
    "curve_pure": "veil.dp._composition",
    "curve_rdp": "veil.dp._composition",
    "curve_zcdp": "veil.dp._composition",
    "BudgetLedger": "veil.dp._ledger",
    "BudgetStatus": "veil.dp._ledger",
    "Spend": "veil.dp._ledger",
    "SpendRequest": "veil.dp._ledger",
    "RRFrequencies": "veil.dp._local",
    "randomized_response": "veil.dp._local",
    "rr_estimate": "veil.dp._local",
    "rr_probabilities": "veil.dp._local",
    "QuerySpec": "veil.dp._query",
    "parse_query": "veil.dp._query",
    "DPAnswer": "veil.dp._stats",
    "dp_query": "veil.dp._stats",
    "dp_query_many": "veil.dp._stats",
    "fingerprint_frame": "veil.dp._stats",
    "default_ledger_url": "veil.dp._store",
}

__getattr__, __dir__ = _lazy_exports(__name__, _HOME)
