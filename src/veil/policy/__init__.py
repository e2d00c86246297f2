"""The YAML policy: what each column is and what guarantee the release must reach.

Each name is imported from its module on first use: ``veil text detect`` reads only the
text section's model (:class:`TextConfig`) and the thresholds, not every policy model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veil._lazy import lazy_exports

if TYPE_CHECKING:
    from veil.policy._loader import load_policy, parse_policy, policy_schema
    from veil.policy._models import (
        ColumnConfig,
        DataConfig,
        HierarchyConfig,
        OutputConfig,
        Policy,
        PrivacyConfig,
        Role,
        SearchConfig,
        TransformConfig,
    )
    from veil.policy._release_models import DPConfig, SynthConfig
    from veil.policy._text_models import (
        DETECT_SCORE_THRESHOLD,
        REDACT_SCORE_THRESHOLD,
        TextConfig,
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

_TEXT = ("DETECT_SCORE_THRESHOLD", "REDACT_SCORE_THRESHOLD", "TextConfig")
_LOADER = ("load_policy", "parse_policy", "policy_schema")
_RELEASE = ("DPConfig", "SynthConfig")


def _home(name: str) -> str:
    if name in _TEXT:
        return "veil.policy._text_models"
    if name in _LOADER:
        return "veil.policy._loader"
    return "veil.policy._release_models" if name in _RELEASE else "veil.policy._models"


_HOME = {name: _home(name) for name in __all__}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
