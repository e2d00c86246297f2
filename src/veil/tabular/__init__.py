"""Tabular protection: field transforms of identifier and other columns.

See ``docs/transforms.md`` for each transform's configuration and privacy semantics.
"""

from veil.tabular._keys import Secret, decode_key_text, derive_subkey, resolve_key, resolve_tweak
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

__all__ = [
    "TRANSFORMS",
    "AdditiveNoiseTransformer",
    "DateGeneralizeTransformer",
    "DateShiftTransformer",
    "DropTransformer",
    "FieldTransformer",
    "GeoDisplaceTransformer",
    "GeoRoundTransformer",
    "KeepTransformer",
    "KeyedHashTransformer",
    "MaskTransformer",
    "Secret",
    "TokenizeTransformer",
    "TopBottomCodeTransformer",
    "build_transformer",
    "decode_key_text",
    "derive_subkey",
    "resolve_key",
    "resolve_tweak",
]
