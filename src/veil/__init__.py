"""veil: release tables, text and models built on personal data without exposing the people.

``import veil`` is light: heavy dependencies (torch, spaCy, Presidio, Opacus, OpenDP, Flower,
Ray) load only when the feature that needs them is used.

Examples
--------
>>> import veil
>>> policy = veil.load_policy("policy.yaml")  # doctest: +SKIP
>>> result = veil.run_policy(policy)  # doctest: +SKIP
"""

from veil._errors import (
    InputError,
    KeyMismatchError,
    KeyMissingError,
    MissingDependencyError,
    OutputError,
    PolicyError,
    PrivacyBudgetExceeded,
    PrivacyRequirementNotMet,
    SchemaError,
    StageUnavailableError,
    VeilError,
    VerificationError,
    WeakKeyError,
)
from veil._version import __version__
from veil.io import read_table, write_table
from veil.pipeline import RunResult, run_policy
from veil.policy import Policy, load_policy

__all__ = [
    "InputError",
    "KeyMismatchError",
    "KeyMissingError",
    "MissingDependencyError",
    "OutputError",
    "Policy",
    "PolicyError",
    "PrivacyBudgetExceeded",
    "PrivacyRequirementNotMet",
    "RunResult",
    "SchemaError",
    "StageUnavailableError",
    "VeilError",
    "VerificationError",
    "WeakKeyError",
    "__version__",
    "load_policy",
    "read_table",
    "run_policy",
    "write_table",
]
