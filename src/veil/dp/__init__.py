"""Differential privacy: the persistent privacy-budget ledger and DP statistics on OpenDP.

``import veil.dp`` is light (SQLAlchemy only); OpenDP and Opacus load when a statistic is
computed or a tighter composition is evaluated.
"""

from veil._errors import LedgerUnavailableError, PrivacyBudgetExceeded
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
