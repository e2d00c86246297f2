"""Machine unlearning with SISA: erase a person's rows from a trained model, exactly and provably.

:func:`fit_table` (``veil unlearn fit``) trains veil's tabular classifier in shards and
slices; :class:`SISAModel` also trains scikit-learn estimators
(:class:`SklearnShardTrainer`) and any PyTorch module (:class:`TorchShardTrainer`) from
Python. :meth:`SISAModel.forget` retrains only the shards that held the rows, from their last
clean slice; :meth:`SISAModel.verify` retrains them from scratch and checks the parameters
are bit-identical; every request goes to the :class:`ErasureLog` (ids as keyed hashes).
With an epsilon, shards train with DP-SGD (:class:`DPTorchShardTrainer`, :func:`plan_schedule`;
:mod:`veil.unlearning._dp`), paid once from the privacy-budget ledger.
``import veil.unlearning`` does not import torch.
"""

from veil.unlearning._dp import DPSchedule, DPTorchShardTrainer, plan_schedule
from veil.unlearning._log import ErasureLog
from veil.unlearning._sisa import SISAModel, default_log_url
from veil.unlearning._stages import AGGREGATIONS, aggregate
from veil.unlearning._store import MODEL_FORMAT, ModelStore, hash_ids
from veil.unlearning._tabular import fit_table, id_strings, table_arrays
from veil.unlearning._trainers import (
    ShardTrainer,
    SklearnShardTrainer,
    TorchShardTrainer,
    derive_seed,
)

__all__ = [
    "AGGREGATIONS",
    "MODEL_FORMAT",
    "DPSchedule",
    "DPTorchShardTrainer",
    "ErasureLog",
    "ModelStore",
    "SISAModel",
    "ShardTrainer",
    "SklearnShardTrainer",
    "TorchShardTrainer",
    "aggregate",
    "default_log_url",
    "derive_seed",
    "fit_table",
    "hash_ids",
    "id_strings",
    "plan_schedule",
    "table_arrays",
]
