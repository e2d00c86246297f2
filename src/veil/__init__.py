"""veil: release tables, text and models built on personal data without exposing the people.

``import veil`` is light: heavy dependencies (torch, spaCy, Presidio, Opacus, OpenDP, Flower,
Ray) load only when the feature that needs them is used.

Examples
--------
>>> import veil
>>> policy = veil.load_policy("policy.yaml")  # doctest: +SKIP
>>> result = veil.run_policy(policy)  # doctest: +SKIP
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

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
from veil._lazy import lazy_exports as _lazy_exports
from veil._version import __version__

if _TYPE_CHECKING:
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

# the entry points, imported on first use: a command that only detects text in a file does
# not import the pipeline (``veil text detect``'s start-up)
_HOME = {
    "read_table": "veil.io",
    "write_table": "veil.io",
    "RunResult": "veil.pipeline",
    "run_policy": "veil.pipeline",
    "Policy": "veil.policy",
    "load_policy": "veil.policy",
}


__getattr__, __dir__ = _lazy_exports(__name__, _HOME)
