"""Tabular protection: field transforms, hierarchies, privacy models, search and local recoding.

- Field transforms of identifiers and other columns: ``docs/transforms.md``.
- Optimal full-domain generalization (:func:`anonymize`): ``docs/anonymization.md``.
- Mondrian, MDAV, cell suppression, NCP: ``docs/local-recoding.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use (PEP 562): `veil anonymize` should not pay for Mondrian, MDAV or
# the FF3 transforms it does not run.
_LAZY = {
    "AdditiveNoiseTransformer": "veil.tabular._transforms",
    "AnonymizationResult": "veil.tabular._anonymize",
    "AnonymizeConfig": "veil.tabular._anonymize",
    "CellSuppressionResult": "veil.tabular._cell_suppression",
    "DateGeneralizeTransformer": "veil.tabular._transforms",
    "DateShiftTransformer": "veil.tabular._transforms",
    "DropTransformer": "veil.tabular._transforms",
    "FieldTransformer": "veil.tabular._transforms",
    "GeoDisplaceTransformer": "veil.tabular._transforms",
    "GeoRoundTransformer": "veil.tabular._transforms",
    "Hierarchy": "veil.tabular._hierarchy",
    "KeepTransformer": "veil.tabular._transforms",
    "KeyedHashTransformer": "veil.tabular._transforms",
    "MDAVResult": "veil.tabular._mdav",
    "MaskTransformer": "veil.tabular._transforms",
    "MondrianResult": "veil.tabular._mondrian",
    "Secret": "veil.tabular._keys",
    "TRANSFORMS": "veil.tabular._transforms",
    "TokenizeTransformer": "veil.tabular._transforms",
    "TopBottomCodeTransformer": "veil.tabular._transforms",
    "anonymize": "veil.tabular._anonymize",
    "auto_hierarchy": "veil.tabular._hierarchy",
    "build_hierarchy": "veil.tabular._hierarchy",
    "build_transformer": "veil.tabular._transforms",
    "date_hierarchy": "veil.tabular._hierarchy",
    "decode_key_text": "veil.tabular._keys",
    "derive_subkey": "veil.tabular._keys",
    "interval_hierarchy": "veil.tabular._hierarchy",
    "mask_hierarchy": "veil.tabular._hierarchy",
    "mdav": "veil.tabular._mdav",
    "mondrian": "veil.tabular._mondrian",
    "ncp": "veil.tabular._ncp",
    "ncp_by_column": "veil.tabular._ncp",
    "read_arx_hierarchy": "veil.tabular._hierarchy",
    "resolve_key": "veil.tabular._keys",
    "resolve_tweak": "veil.tabular._keys",
    "suppress_cells": "veil.tabular._cell_suppression",
    "taxonomy_hierarchy": "veil.tabular._hierarchy",
    "top_bottom_levels": "veil.tabular._top_bottom",
    "verify_release": "veil.tabular._verify",
}

if TYPE_CHECKING:
    from veil.tabular._anonymize import (
        AnonymizationResult,
        AnonymizeConfig,
        anonymize,
    )
    from veil.tabular._cell_suppression import (
        CellSuppressionResult,
        suppress_cells,
    )
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
    from veil.tabular._keys import (
        Secret,
        decode_key_text,
        derive_subkey,
        resolve_key,
        resolve_tweak,
    )
    from veil.tabular._mdav import (
        MDAVResult,
        mdav,
    )
    from veil.tabular._mondrian import (
        MondrianResult,
        mondrian,
    )
    from veil.tabular._ncp import (
        ncp,
        ncp_by_column,
    )
    from veil.tabular._top_bottom import (
        top_bottom_levels,
    )
    from veil.tabular._transforms import (
        TRANSFORMS,
        AdditiveNoiseTransformer,
        DateGeneralizeTransformer,
        DateShiftTransformer,
        DropTransformer,
        FieldTransformer,
        GeoDisplaceTransformer,
        GeoRoundTransformer,
        KeepTransformer,
        KeyedHashTransformer,
        MaskTransformer,
        TokenizeTransformer,
        TopBottomCodeTransformer,
        build_transformer,
    )
    from veil.tabular._verify import (
        verify_release,
    )

__all__ = [
    "TRANSFORMS",
    "AdditiveNoiseTransformer",
    "AnonymizationResult",
    "AnonymizeConfig",
    "CellSuppressionResult",
    "DateGeneralizeTransformer",
    "DateShiftTransformer",
    "DropTransformer",
    "FieldTransformer",
    "GeoDisplaceTransformer",
    "GeoRoundTransformer",
    "Hierarchy",
    "KeepTransformer",
    "KeyedHashTransformer",
    "MDAVResult",
    "MaskTransformer",
    "MondrianResult",
    "Secret",
    "TokenizeTransformer",
    "TopBottomCodeTransformer",
    "anonymize",
    "auto_hierarchy",
    "build_hierarchy",
    "build_transformer",
    "date_hierarchy",
    "decode_key_text",
    "derive_subkey",
    "interval_hierarchy",
    "mask_hierarchy",
    "mdav",
    "mondrian",
    "ncp",
    "ncp_by_column",
    "read_arx_hierarchy",
    "resolve_key",
    "resolve_tweak",
    "suppress_cells",
    "taxonomy_hierarchy",
    "top_bottom_levels",
    "verify_release",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'veil.tabular' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
