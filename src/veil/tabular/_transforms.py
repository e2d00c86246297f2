"""Field transforms for direct identifiers and other columns, and their factory.

Each transform is a small class with the scikit-learn estimator contract (see
:mod:`veil.tabular._base`), registered in :data:`TRANSFORMS` under the policy's ``type``:

===================  ===========================================  ==========  ===========
type                 class                                        key         reversible
===================  ===========================================  ==========  ===========
``drop``             :class:`DropTransformer`                     no          no
``keep``             :class:`KeepTransformer`                     no          (identity)
``mask``             :class:`MaskTransformer`                     no          no
``hash``             :class:`KeyedHashTransformer`                HMAC        no
``tokenize``         :class:`TokenizeTransformer` (FF3-1)         AES         yes
``date_generalize``  :class:`DateGeneralizeTransformer`           no          no
``date_shift``       :class:`DateShiftTransformer`                HMAC        yes
``geo_round``        :class:`GeoRoundTransformer`                 no          no
``geo_displace``     :class:`GeoDisplaceTransformer`              no (seed)   no
``top_bottom_code``  :class:`TopBottomCodeTransformer`            no          no
``noise``            :class:`AdditiveNoiseTransformer`            no (seed)   no
===================  ===========================================  ==========  ===========
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from veil.tabular._base import TRANSFORMS, FieldTransformer
from veil.tabular._basic import (
    DropTransformer,
    KeepTransformer,
    KeyedHashTransformer,
    MaskTransformer,
)
from veil.tabular._dates import DateGeneralizeTransformer, DateShiftTransformer
from veil.tabular._fpe import TokenizeTransformer
from veil.tabular._geo import GeoDisplaceTransformer, GeoRoundTransformer
from veil.tabular._numeric import AdditiveNoiseTransformer, TopBottomCodeTransformer

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
    "TokenizeTransformer",
    "TopBottomCodeTransformer",
    "build_transformer",
]


def build_transformer(
    config: Any,
    *,
    column: str,
    base_dir: Path | None = None,
    environ: dict[str, str] | None = None,
) -> FieldTransformer:
    """The transformer for one policy column, keys resolved (nothing is read from the data).

    Parameters
    ----------
    config
        A transform model from the policy (``ColumnConfig.transform``).
    column
        The policy column it applies to.
    base_dir
        Folder that a relative ``key_file`` resolves against (the policy's folder).
    environ
        Environment to read keys from; ``os.environ`` when not given.

    Raises
    ------
    KeyMissingError
        A keyed transform without a usable key.
    PolicyError
        An unknown transform type.

    Examples
    --------
    >>> from veil.policy._models import MaskTransform
    >>> build_transformer(MaskTransform(keep_last=2), column="phone")
    MaskTransformer(keep_first=0, keep_last=2, char='*')
    """
    cls = TRANSFORMS.get(config.type)
    return cls.from_config(config, column=column, base_dir=base_dir, environ=environ)
