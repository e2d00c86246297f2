"""Tabular protection: field transforms, hierarchies, privacy models, search and local recoding.

- Field transforms of identifiers and other columns: ``docs/transforms.md``.
- Optimal full-domain generalization (:func:`anonymize`): ``docs/anonymization.md``.
- Mondrian, MDAV, cell suppression, NCP: ``docs/local-recoding.md``.
"""

from veil.tabular._anonymize import AnonymizationResult, AnonymizeConfig, anonymize
from veil.tabular._cell_suppression import CellSuppressionResult, suppress_cells
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
from veil.tabular._keys import Secret, decode_key_text, derive_subkey, resolve_key, resolve_tweak
from veil.tabular._mdav import MDAVResult, mdav
from veil.tabular._mondrian import MondrianResult, mondrian
from veil.tabular._ncp import ncp, ncp_by_column
from veil.tabular._top_bottom import top_bottom_levels
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
from veil.tabular._verify import verify_release

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
