"""DP-SGD training on Opacus: any PyTorch model, or the built-in tabular classifier.

The noise is calibrated to a target (epsilon, delta) with Opacus' tightest accountant (PRV),
batches are Poisson-sampled, per-sample gradients are clipped (ghost clipping where it is
faster) and every run is paid for in the privacy-budget ledger (:mod:`veil.dp`) before its
first step. ``import veil.train`` does not import torch; it loads on first use.
"""

from veil.train._accounting import (
    ACCOUNTANTS,
    NoiseCalibration,
    calibrate_noise,
    check_budget,
    epsilon_after,
    epsilon_table,
    max_steps_within,
    sample_rate_for,
)
from veil.train._checkpoint import load_checkpoint, save_checkpoint
from veil.train._engine import (
    DPTrainConfig,
    DPTrainResult,
    NonPrivateResult,
    resolve_grad_sample_mode,
    train_nonprivate,
    train_private,
)
from veil.train._spend import LedgerCharge
from veil.train._tabular import (
    TabularClassifier,
    TabularEncoder,
    TabularTrainReport,
    load_tabular_model,
    make_tabular_mlp,
    train_tabular,
    train_tabular_baseline,
)
from veil.train._validate import ModelNotPrivatizable, make_private_compatible

__all__ = [
    "ACCOUNTANTS",
    "DPTrainConfig",
    "DPTrainResult",
    "LedgerCharge",
    "ModelNotPrivatizable",
    "NoiseCalibration",
    "NonPrivateResult",
    "TabularClassifier",
    "TabularEncoder",
    "TabularTrainReport",
    "calibrate_noise",
    "check_budget",
    "epsilon_after",
    "epsilon_table",
    "load_checkpoint",
    "load_tabular_model",
    "make_private_compatible",
    "make_tabular_mlp",
    "max_steps_within",
    "resolve_grad_sample_mode",
    "sample_rate_for",
    "save_checkpoint",
    "train_nonprivate",
    "train_private",
    "train_tabular",
    "train_tabular_baseline",
]
