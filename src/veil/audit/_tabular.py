"""veil's tabular classifier as the model under audit: encode once, train on any subset of rows.

Both audits (:mod:`veil.audit._mia`, :mod:`veil.audit._dp_audit`) train many models on
subsets of one table. :class:`TabularAuditModel` fits the encoder once on every row (the
encoder is not private in veil's trainer either: see :mod:`veil.train._tabular`), keeps the
encoded tensors, and trains the built-in MLP on the rows it is given, without DP
(:func:`veil.train.train_nonprivate`) or with DP-SGD (:func:`veil.train.train_private`) at
the claimed (epsilon, delta). No run is charged to a privacy-budget ledger: these models
are never released, they exist to be attacked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._deps import require
from veil._errors import InputError
from veil._progress import Progress

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TabularAuditModel", "audit_membership"]


@dataclass
class TabularAuditModel:
    """How to train the model under audit.

    Parameters
    ----------
    epsilon, delta
        DP-SGD's target for each training run; ``epsilon=None`` trains without DP.
    epochs, batch_size, learning_rate, hidden, max_grad_norm
        As in ``veil train``; ``batch_size=None`` is a sixth of the training rows (at most
        4096), the same default.
    drop
        Columns not to learn from.
    """

    target: str
    epsilon: float | None = None
    delta: float = 1e-5
    epochs: int = 30
    batch_size: int | None = None
    learning_rate: float = 5e-3
    hidden: Sequence[int] = (128,)
    max_grad_norm: float = 1.0
    drop: Sequence[str] = ()

    x_cat_: Any = field(default=None, init=False, repr=False)
    x_num_: Any = field(default=None, init=False, repr=False)
    y_: Any = field(default=None, init=False, repr=False)
    encoder_: Any = field(default=None, init=False, repr=False)
    rows_without_target_: int = field(default=0, init=False)
    last_privacy_: dict[str, Any] = field(default_factory=dict, init=False)

    def fit_encoder(self, frame: pd.DataFrame) -> TabularAuditModel:
        """Encode the table (rows without a target are left out)."""
        require("torch", extra="dp", purpose="the audited tabular model")
        from veil.train import TabularEncoder

        if self.target not in frame.columns:
            from veil._errors import SchemaError

            raise SchemaError(
                f"target column {self.target!r} is not in the table ({len(frame.columns)} columns)",
                hint="pass --target with one of the table's column names",
            )
        has = frame[self.target].notna().to_numpy()
        self.rows_without_target_ = int((~has).sum())
        df = frame.loc[has]
        enc = TabularEncoder(target=self.target, drop=list(self.drop)).fit(df)
        self.encoder_ = enc
        self.x_cat_, self.x_num_ = enc.transform(df)
        self.y_ = enc.encode_target(df[self.target])
        return self

    @property
    def n_rows(self) -> int:
        return 0 if self.y_ is None else len(self.y_)

    @property
    def labels(self) -> np.ndarray:
        return np.asarray(self.y_.numpy(), dtype=np.int64)

    @property
    def n_classes(self) -> int:
        return len(self.encoder_.classes_)

    def _batch_size(self, n: int) -> int:
        return self.batch_size if self.batch_size is not None else max(1, min(4096, n // 6))

    def fresh_module(self, seed: int) -> Any:
        import torch

        from veil.train import make_tabular_mlp

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed % 2**63)
            return make_tabular_mlp(
                self.encoder_.cardinalities,
                len(self.encoder_.numeric_),
                self.n_classes,
                tuple(int(h) for h in self.hidden),
            )

    def train(self, rows: np.ndarray, seed: int, labels: Any = None) -> Any:
        """A model trained on ``rows`` (indices); ``labels`` overrides the targets (canaries)."""
        from torch.utils.data import TensorDataset

        from veil.train import DPTrainConfig, train_nonprivate, train_private

        if self.y_ is None:
            raise InputError("the audit model has no data", hint="call fit_encoder() first")
        idx = np.asarray(rows, dtype=np.int64)
        if len(idx) == 0:
            raise InputError("no rows to train on")
        import torch

        t = torch.as_tensor(idx)
        y = self.y_ if labels is None else torch.as_tensor(np.asarray(labels, dtype=np.int64))
        ds = TensorDataset(self.x_cat_[t], self.x_num_[t], y[t])
        bs = self._batch_size(len(idx))
        module = self.fresh_module(seed)
        if self.epsilon is None:
            res = train_nonprivate(
                module,
                ds,
                epochs=self.epochs,
                batch_size=bs,
                learning_rate=self.learning_rate,
                seed=seed % 2**63,
            )
            self.last_privacy_ = {"private": False}
            return res.model
        cfg = DPTrainConfig(
            epsilon=float(self.epsilon),
            delta=float(self.delta),
            epochs=self.epochs,
            batch_size=bs,
            learning_rate=self.learning_rate,
            max_grad_norm=self.max_grad_norm,
            compare_rdp=False,
        )
        dp = train_private(module, ds, config=cfg)
        self.last_privacy_ = {
            "private": True,
            "epsilon_spent": dp.epsilon_spent,
            "delta": dp.delta,
            "noise_multiplier": dp.noise_multiplier,
            "steps": dp.steps,
            "sample_rate": dp.sample_rate,
        }
        return dp.model

    def predict_proba(self, model: Any, rows: np.ndarray) -> np.ndarray:
        """Class probabilities in float64 (so that ``1 - p`` keeps its tiny values)."""
        import torch

        t = torch.as_tensor(np.asarray(rows, dtype=np.int64))
        model.eval()
        out = []
        with torch.no_grad():
            for part in t.split(8192):
                logits = model(self.x_cat_[part], self.x_num_[part]).double()
                out.append(torch.softmax(logits, dim=1))
        return torch.cat(out).numpy() if out else np.zeros((0, self.n_classes))

    def loss(self, model: Any, rows: np.ndarray, labels: Any) -> np.ndarray:
        """Per-row cross-entropy of ``labels`` under ``model`` (float64)."""
        p = self.predict_proba(model, rows)
        y = np.asarray(labels, dtype=np.int64)[np.asarray(rows, dtype=np.int64)]
        py = p[np.arange(len(y)), y]
        return -np.log(np.maximum(py, 1e-300))

    def settings(self) -> dict[str, Any]:
        return {
            "model": "veil tabular MLP",
            "hidden": [int(h) for h in self.hidden],
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "epsilon": self.epsilon,
            "delta": self.delta if self.epsilon is not None else None,
            "max_grad_norm": self.max_grad_norm if self.epsilon is not None else None,
            "rows_without_target": self.rows_without_target_,
        }


def audit_model(
    frame: pd.DataFrame,
    target: str,
    *,
    epsilon: float | None,
    delta: float,
    epochs: int,
    batch_size: int | None,
    learning_rate: float,
    hidden: Sequence[int],
    max_grad_norm: float,
    drop: Sequence[str],
) -> TabularAuditModel:
    """The model under audit with its encoder fitted on ``frame``: the training setup every
    audit of veil's tabular model shares (:func:`audit_membership`,
    :func:`veil.audit.audit_dp_training`). ``epsilon`` and ``delta`` are checked first."""
    check_epsilon(epsilon, delta)
    return TabularAuditModel(
        target=target,
        epsilon=epsilon,
        delta=delta,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        hidden=hidden,
        max_grad_norm=max_grad_norm,
        drop=drop,
    ).fit_encoder(frame)


def audit_membership(
    frame: pd.DataFrame,
    target: str,
    *,
    epsilon: float | None = None,
    delta: float = 1e-5,
    attacks: Sequence[str] = ("lira",),
    shadows: int = 8,
    targets: int = 1,
    seed: int = 0,
    epochs: int = 30,
    batch_size: int | None = None,
    learning_rate: float = 5e-3,
    hidden: Sequence[int] = (128,),
    max_grad_norm: float = 1.0,
    drop: Sequence[str] = (),
    n_boot: int = 200,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Membership inference on veil's tabular model trained on ``frame`` (see :mod:`._mia`).

    Each target and shadow model is trained on a random half of the rows with a target,
    without DP or with DP-SGD at ``epsilon``. Returns the first attack's figures at the top
    level (``attack, auc, tpr_at_fpr, members, nonmembers`` and the intervals) and every
    attack's under ``attacks``, with the training settings under ``model``.
    """
    from veil.audit._mia import check_attack, membership_inference

    attacks = list(attacks)
    for a in attacks:
        check_attack(a, shadows)
    t0 = time.perf_counter()
    model = audit_model(
        frame,
        target,
        epsilon=epsilon,
        delta=delta,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        hidden=hidden,
        max_grad_norm=max_grad_norm,
        drop=drop,
    )
    if epsilon is not None:
        from veil.train import check_budget

        check_budget(epsilon, delta, model.n_rows // 2)
    results = membership_inference(
        model.n_rows,
        model.labels,
        model.train,
        model.predict_proba,
        attacks=attacks,
        shadows=shadows,
        targets=targets,
        seed=seed,
        n_boot=n_boot,
        progress=progress,
    )
    first = results[attacks[0]]
    out: dict[str, Any] = {
        **{k: v for k, v in first.items() if k != "roc"},
        "attacks": results,
        "model": {**model.settings(), **model.last_privacy_},
        "rows": model.n_rows,
        "seed": seed,
        "seconds": time.perf_counter() - t0,
    }
    return out


def check_epsilon(epsilon: float | None, delta: float) -> None:
    if epsilon is not None and (not math.isfinite(epsilon) or epsilon <= 0):
        raise InputError(f"--epsilon must be a positive number, got {epsilon!r}")
    if not (0 < delta < 1):
        raise InputError(f"--delta must be in (0, 1), got {delta!r}")
