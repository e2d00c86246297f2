"""The YAML policy: what each column is and what guarantee the release must reach."""

from veil.policy._loader import load_policy, parse_policy, policy_schema
from veil.policy._models import (
    DETECT_SCORE_THRESHOLD,
    REDACT_SCORE_THRESHOLD,
    ColumnConfig,
    DataConfig,
    DPConfig,
    HierarchyConfig,
    OutputConfig,
    Policy,
    PrivacyConfig,
    Role,
    SearchConfig,
    SynthConfig,
    TextConfig,
    TransformConfig,
)

__all__ = [
    "DETECT_SCORE_THRESHOLD",
    "REDACT_SCORE_THRESHOLD",
    "ColumnConfig",
    "DPConfig",
    "DataConfig",
    "HierarchyConfig",
    "OutputConfig",
    "Policy",
    "PrivacyConfig",
    "Role",
    "SearchConfig",
    "SynthConfig",
    "TextConfig",
    "TransformConfig",
    "load_policy",
    "parse_policy",
    "policy_schema",
]
