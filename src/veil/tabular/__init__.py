"""veil.tabular: hierarchies, privacy models, the optimal lattice search and its release.

The public entry point is :func:`anonymize` with an :class:`AnonymizeConfig`.
"""

from veil.tabular._anonymize import AnonymizationResult, AnonymizeConfig, anonymize
from veil.tabular._hierarchy import (
    Hierarchy,
    auto_hierarchy,
    build_hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mask_hierarchy,
    read_arx_hierarchy,
    taxonomy_hierarchy,
)
from veil.tabular._verify import verify_release

__all__ = [
    "AnonymizationResult",
    "AnonymizeConfig",
    "Hierarchy",
    "anonymize",
    "auto_hierarchy",
    "build_hierarchy",
    "date_hierarchy",
    "interval_hierarchy",
    "mask_hierarchy",
    "read_arx_hierarchy",
    "taxonomy_hierarchy",
    "verify_release",
]
