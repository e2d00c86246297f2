"""The built-in tabular classifier: an MLP with embeddings, trained straight from a table.

Categorical columns go through a learned embedding (see :func:`make_tabular_mlp`); numeric
columns are standardized; the target column's classes are predicted with a cross-entropy loss. :func:`train_tabular`
splits the table into training and held-out rows, trains the model with DP-SGD and the same
model without DP (the baseline), and reports held-out accuracy for both.

Privacy semantics
-----------------
The unit of privacy is one *training row*; DP-SGD protects the weights to (epsilon, delta).
The preprocessing is **not** private: the list of categories of each column, the classes of
the target and the numeric means and standard deviations are read from the data and saved
with the model (they are needed to use it). For columns whose values are public knowledge
(sex, country, education levels) that is harmless; pass ``categories=`` and
``numeric_stats=`` built from public information to keep data-derived values out of the
model file entirely. Held-out accuracy is measured on rows the model never trained on and is
not privatized either: it is for the data owner, not for release.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._deps import require
from veil._errors import InputError, SchemaError
from veil._progress import NullProgress, Progress
from veil.train._engine import DPTrainConfig, DPTrainResult, train_nonprivate, train_private

if TYPE_CHECKING:
    import pandas as pd
    import torch
    from torch import nn

    from veil.policy import Policy

__all__ = [
    "TabularClassifier",
    "TabularEncoder",
    "TabularTrainReport",
    "load_tabular_model",
    "make_tabular_mlp",
    "train_tabular",
]

MODEL_FORMAT = "veil-dp-tabular-model/1"
_MISSING = 0  # embedding row for missing and unseen categories


@dataclass
class TabularEncoder:
    """Turns a table into (category codes, standardized numerics) and its target into labels.

    Parameters
    ----------
    target
        The column to predict.
    categorical, numeric
        Feature columns by kind; ``None`` infers them (numeric dtype -> numeric, else
        categorical) from the columns not in ``drop``.
    drop
        Columns never used as features (identifiers, free text).
    categories
        Public category lists per column; columns not listed learn theirs from the data.
    numeric_stats
        Public ``(mean, std)`` per numeric column; others are learned from the data.
    max_categories
        A categorical column with more distinct values is refused (it is likely an
        identifier, and its embedding would memorize individuals).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 2.0, 3.0], "t": ["p", "q", "p"]})
    >>> enc = TabularEncoder(target="t").fit(df)
    >>> enc.categorical_, enc.numeric_, enc.classes_
    (['a'], ['b'], ['p', 'q'])
    """

    target: str
    categorical: Sequence[str] | None = None
    numeric: Sequence[str] | None = None
    drop: Sequence[str] = ()
    categories: Mapping[str, Sequence[str]] | None = None
    numeric_stats: Mapping[str, tuple[float, float]] | None = None
    max_categories: int = 1000

    categorical_: list[str] = field(default_factory=list, init=False)
    numeric_: list[str] = field(default_factory=list, init=False)
    categories_: dict[str, list[str]] = field(default_factory=dict, init=False)
    stats_: dict[str, tuple[float, float]] = field(default_factory=dict, init=False)
    classes_: list[str] = field(default_factory=list, init=False)

    def fit(self, df: pd.DataFrame) -> TabularEncoder:
        """Learn the feature columns, categories, numeric statistics and classes."""
        import pandas as pd

        if self.target not in df.columns:
            raise SchemaError(
                f"target column {self.target!r} is not in the table ({len(df.columns)} columns)",
                hint="pass --target with one of the table's column names",
            )
        missing = [
            c for c in [*(self.categorical or ()), *(self.numeric or ())] if c not in df.columns
        ]
        if missing:
            raise SchemaError(f"feature column(s) not in the table: {', '.join(missing)}")
        unknown_drop = [c for c in self.drop if c not in df.columns]
        if unknown_drop:
            raise SchemaError(f"column(s) to drop are not in the table: {', '.join(unknown_drop)}")
        skip = {self.target, *self.drop}
        features = [c for c in df.columns if c not in skip]
        if self.categorical is not None or self.numeric is not None:
            cat = list(self.categorical or ())
            num = list(self.numeric or ())
            rest = [c for c in features if c not in cat and c not in num]
            for c in rest:
                (num if pd.api.types.is_numeric_dtype(df[c]) else cat).append(c)
        else:
            num = [
                c
                for c in features
                if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
            ]
            cat = [c for c in features if c not in num]
        if not cat and not num:
            raise InputError(
                "no feature columns left besides the target",
                hint="the table needs at least one column to learn from",
            )
        for c in num:
            if not pd.api.types.is_numeric_dtype(df[c]):
                raise SchemaError(
                    f"column {c!r} is declared numeric but holds {df[c].dtype} values",
                    hint="declare it categorical, or clean it",
                )
        given = dict(self.categories or {})
        self.categories_ = {}
        for c in cat:
            if c in given:
                self.categories_[c] = [str(v) for v in given[c]]
                continue
            values = df[c].dropna().astype(str).unique()
            if len(values) > self.max_categories:
                raise InputError(
                    f"column {c!r} has {len(values)} distinct values, more than the "
                    f"{self.max_categories} a categorical feature may have",
                    hint="it looks like an identifier: drop it (--drop), or declare it numeric",
                )
            self.categories_[c] = sorted(values.tolist())
        stats = dict(self.numeric_stats or {})
        self.stats_ = {}
        for c in num:
            if c in stats:
                mean, std = stats[c]
            else:
                col = df[c].astype(float)
                mean = float(col.mean()) if col.notna().any() else 0.0
                std = float(col.std(ddof=0)) if col.notna().sum() > 1 else 1.0
            self.stats_[c] = (
                float(mean),
                float(std) if std and math.isfinite(std) and std > 0 else 1.0,
            )
        self.categorical_, self.numeric_ = cat, num
        labels = df[self.target].dropna().astype(str).unique()
        self.classes_ = sorted(labels.tolist())
        if len(self.classes_) < 2:
            raise InputError(
                f"target column {self.target!r} has {len(self.classes_)} class(es); "
                "a classifier needs at least 2",
                hint="pick a column with two or more values",
            )
        return self

    @property
    def cardinalities(self) -> list[int]:
        return [len(self.categories_[c]) for c in self.categorical_]

    def transform(self, df: pd.DataFrame) -> tuple[torch.Tensor, torch.Tensor]:
        """Category codes (0 = missing/unseen) and standardized numerics as tensors."""
        import numpy as np
        import torch

        if not self.classes_:
            raise InputError("the encoder is not fitted", hint="call fit() first")
        absent = [c for c in [*self.categorical_, *self.numeric_] if c not in df.columns]
        if absent:
            raise SchemaError(f"column(s) missing from the table: {', '.join(absent)}")
        n = len(df)
        codes = np.zeros((n, len(self.categorical_)), dtype=np.int64)
        for j, c in enumerate(self.categorical_):
            lookup = {v: i + 1 for i, v in enumerate(self.categories_[c])}
            col = df[c]
            mapped = col.astype(str).map(lookup)
            mapped[col.isna()] = _MISSING
            codes[:, j] = mapped.fillna(_MISSING).to_numpy(dtype=np.int64)
        nums = np.zeros((n, len(self.numeric_)), dtype=np.float32)
        for j, c in enumerate(self.numeric_):
            mean, std = self.stats_[c]
            v = (df[c].astype(float).to_numpy() - mean) / std
            nums[:, j] = np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0)
        return torch.from_numpy(codes), torch.from_numpy(nums)

    def encode_target(self, series: pd.Series) -> torch.Tensor:
        """Class indices of the target (rows must have a known class)."""
        import torch

        lookup = {v: i for i, v in enumerate(self.classes_)}
        mapped = series.astype(str).map(lookup)
        if mapped.isna().any():
            raise InputError(
                f"{int(mapped.isna().sum())} row(s) have a target class unseen in training"
            )
        return torch.as_tensor(mapped.to_numpy(dtype="int64"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "categorical": self.categorical_,
            "numeric": self.numeric_,
            "categories": self.categories_,
            "stats": {c: list(v) for c, v in self.stats_.items()},
            "classes": self.classes_,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TabularEncoder:
        enc = cls(target=str(d["target"]))
        enc.categorical_ = list(d["categorical"])
        enc.numeric_ = list(d["numeric"])
        enc.categories_ = {k: list(v) for k, v in d["categories"].items()}
        enc.stats_ = {k: (float(v[0]), float(v[1])) for k, v in d["stats"].items()}
        enc.classes_ = list(d["classes"])
        return enc


def make_tabular_mlp(
    cardinalities: Sequence[int],
    n_numeric: int,
    n_classes: int,
    hidden: Sequence[int] = (128,),
    embedding_dim: int = 32,
) -> nn.Module:
    """An MLP whose categorical columns enter through a learned embedding.

    Each categorical value (row 0 of each column = missing/unseen) has a learned
    ``embedding_dim`` vector; a row's categorical part is the sum of its columns' vectors
    (as in factorization machines), concatenated with the standardized numerics and fed
    to ``hidden`` ReLU layers. The embedding is computed as a bias-free ``nn.Linear`` on
    the one-hot codes, which is the same function as an ``nn.Embedding`` lookup but lets
    Opacus' ghost clipping get each row's gradient norm from two small norms, without
    per-sample gradients: on CPU, Opacus' ``nn.Embedding`` norm sampler (``torch.unique``
    per column and step) made DP-SGD several times slower than this.

    Examples
    --------
    >>> import torch
    >>> m = make_tabular_mlp([3, 5], 2, 2)
    >>> m(torch.tensor([[1, 0], [3, 5]]), torch.zeros(2, 2)).shape
    torch.Size([2, 2])
    """
    require("torch", extra="dp", purpose="the tabular classifier")
    import torch
    from torch import nn

    sizes = [int(c) + 1 for c in cardinalities]
    offsets = [sum(sizes[:i]) for i in range(len(sizes))]

    class TabularMLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.vocab = sum(sizes)
            self.register_buffer("offsets", torch.tensor(offsets, dtype=torch.long))
            self.embedding = nn.Linear(self.vocab, embedding_dim, bias=False) if sizes else None
            width = (embedding_dim if sizes else 0) + n_numeric
            layers: list[nn.Module] = []
            for h in hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            layers.append(nn.Linear(width, n_classes))
            self.mlp = nn.Sequential(*layers)

        def forward(self, x_cat: torch.Tensor, x_num: torch.Tensor) -> torch.Tensor:
            parts = []
            if self.embedding is not None:
                onehot = torch.zeros(x_cat.shape[0], self.vocab, dtype=x_num.dtype)
                offsets: torch.Tensor = self.offsets  # type: ignore[assignment]
                onehot.scatter_(1, x_cat + offsets, 1.0)
                parts.append(self.embedding(onehot))
            parts.append(x_num)
            return self.mlp(torch.cat(parts, dim=1))

    return TabularMLP()


@dataclass
class TabularClassifier:
    """A trained tabular model with its encoder: predicts classes for a table."""

    encoder: TabularEncoder
    module: nn.Module
    hidden: tuple[int, ...]
    privacy: dict[str, Any] = field(default_factory=dict)

    def predict_proba(self, df: pd.DataFrame) -> Any:
        import torch

        x_cat, x_num = self.encoder.transform(df)
        self.module.eval()
        out = []
        with torch.no_grad():
            for a, b in zip(x_cat.split(8192), x_num.split(8192), strict=True):
                out.append(torch.softmax(self.module(a, b), dim=1))
        return torch.cat(out).numpy()

    def predict(self, df: pd.DataFrame) -> list[str]:
        proba = self.predict_proba(df)
        return [self.encoder.classes_[i] for i in proba.argmax(axis=1)]

    def save(self, path: str | Path) -> Path:
        """Write the model atomically (a ``torch.save`` file of tensors and plain values)."""
        import io

        import torch

        from veil.io import write_bytes_atomic

        buf = io.BytesIO()
        torch.save(
            {
                "format": MODEL_FORMAT,
                "state_dict": self.module.state_dict(),
                "architecture": {
                    "cardinalities": self.encoder.cardinalities,
                    "n_numeric": len(self.encoder.numeric_),
                    "n_classes": len(self.encoder.classes_),
                    "hidden": list(self.hidden),
                },
                "encoder": self.encoder.to_dict(),
                "privacy": self.privacy,
            },
            buf,
        )
        return write_bytes_atomic(path, buf.getvalue())


def load_tabular_model(path: str | Path) -> TabularClassifier:
    """Read a model written by :meth:`TabularClassifier.save` (``weights_only`` load)."""
    import torch

    path = Path(path)
    try:
        d = torch.load(path, weights_only=True, map_location="cpu")
    except FileNotFoundError:
        raise InputError(f"model file not found: {path}") from None
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a bad file
        raise InputError(f"{path}: not a readable model file ({type(exc).__name__})") from None
    if not isinstance(d, dict) or d.get("format") != MODEL_FORMAT:
        raise InputError(f"{path}: not a veil tabular model")
    arch = d["architecture"]
    module = make_tabular_mlp(
        arch["cardinalities"], arch["n_numeric"], arch["n_classes"], tuple(arch["hidden"])
    )
    module.load_state_dict(d["state_dict"])
    module.eval()
    return TabularClassifier(
        encoder=TabularEncoder.from_dict(d["encoder"]),
        module=module,
        hidden=tuple(arch["hidden"]),
        privacy=dict(d.get("privacy") or {}),
    )


@dataclass
class TabularTrainReport:
    """Outcome of :func:`train_tabular`: the DP model, its accuracy and the baseline's."""

    classifier: TabularClassifier
    dp: DPTrainResult
    accuracy: float | None
    baseline_accuracy: float | None
    baseline_seconds: float | None
    majority_accuracy: float | None
    n_train: int
    n_test: int
    rows_without_target: int
    seconds: float

    def summary(self) -> dict[str, Any]:
        """The JSON of ``veil train --json``."""
        dp = self.dp.summary()
        out: dict[str, Any] = {
            "accuracy": self.accuracy,
            "epsilon_spent": self.dp.epsilon_spent,
            "delta": self.dp.delta,
            "seconds": self.dp.seconds,
            "baseline": None
            if self.baseline_accuracy is None
            else {"accuracy": self.baseline_accuracy, "seconds": self.baseline_seconds},
            "target_epsilon": self.dp.target_epsilon,
            "noise_multiplier": self.dp.noise_multiplier,
            "accountant": self.dp.calibration.accountant,
            "rdp_noise_multiplier": dp["rdp_noise_multiplier"],
            "noise_saving_vs_rdp": dp["noise_saving_vs_rdp"],
            "epochs": self.dp.epochs_completed,
            "steps": self.dp.steps,
            "sample_rate": self.dp.sample_rate,
            "epsilon_per_epoch": self.dp.epsilon_per_epoch,
            "grad_sample_mode": self.dp.grad_sample_mode,
            "module_fixes": self.dp.module_fixes,
            "train_seconds": self.dp.train_seconds,
            "total_seconds": self.seconds,
            "stopped_early": self.dp.stopped_early,
            "majority_class_accuracy": self.majority_accuracy,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "rows_without_target": self.rows_without_target,
            "ledger": dp["ledger"],
            "preprocessing_private": False,
        }
        return out


def _policy_columns(
    policy: Policy, df: pd.DataFrame, target: str
) -> tuple[list[str], list[str], list[str]]:
    from veil.policy import Role

    drop, cat, num = [], [], []
    for name, col in policy.columns.items():
        if name not in df.columns or name == target:
            continue
        if col.role in (Role.identifier, Role.text):
            drop.append(name)
        elif col.dtype == "numeric":
            num.append(name)
        elif col.dtype in ("categorical", "ordinal", "date"):
            cat.append(name)
    if policy.unlisted_columns == "drop":
        drop += [c for c in df.columns if c not in policy.columns and c != target]
    return drop, cat, num


def _accuracy(model: nn.Module, x_cat: Any, x_num: Any, y: Any) -> float | None:
    import torch

    if len(y) == 0:
        return None
    model.eval()
    correct = 0
    with torch.no_grad():
        for a, b, t in zip(x_cat.split(8192), x_num.split(8192), y.split(8192), strict=True):
            correct += int((model(a, b).argmax(dim=1) == t).sum())
    return correct / len(y)


@dataclass
class _Prepared:
    encoder: TabularEncoder
    train_ds: Any
    test: tuple[Any, Any, Any]
    rows_without_target: int
    fresh_model: Callable[[], nn.Module]


def _prepare(
    frame: pd.DataFrame,
    target: str,
    *,
    drop: Sequence[str],
    categorical: Sequence[str] | None,
    numeric: Sequence[str] | None,
    categories: Mapping[str, Sequence[str]] | None,
    numeric_stats: Mapping[str, tuple[float, float]] | None,
    policy: Policy | None,
    hidden: Sequence[int],
    test_fraction: float,
    seed: int | None,
) -> _Prepared:
    """Split, encode and seed the model: the part DP and non-private training share."""
    torch = require("torch", extra="dp", purpose="DP-SGD training")
    import numpy as np
    from torch.utils.data import TensorDataset

    if not 0 <= test_fraction < 1:
        raise InputError(f"test_fraction must be in [0, 1), got {test_fraction!r}")
    if len(frame) == 0:
        raise InputError("the table is empty (no rows)", hint="check the input")
    if target not in frame.columns:
        raise SchemaError(
            f"target column {target!r} is not in the table ({len(frame.columns)} columns)",
            hint="pass --target with one of the table's column names",
        )
    drop = list(drop)
    if policy is not None:
        p_drop, p_cat, p_num = _policy_columns(policy, frame, target)
        drop += [c for c in p_drop if c not in drop]
        categorical = [*(categorical or ()), *p_cat] or None
        numeric = [*(numeric or ()), *p_num] or None
    has_target = frame[target].notna().to_numpy()
    without = int((~has_target).sum())
    df = frame.loc[has_target]
    if len(df) == 0:
        raise InputError(f"no row has a value in the target column {target!r}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(df))
    n_test = round(len(df) * test_fraction)
    test_idx, train_idx = order[:n_test], order[n_test:]
    train_df, test_df = df.iloc[train_idx], df.iloc[test_idx]
    if len(train_df) == 0:
        raise InputError("no training rows left after holding out the test rows")
    encoder = TabularEncoder(
        target=target,
        categorical=categorical,
        numeric=numeric,
        drop=drop,
        categories=categories,
        numeric_stats=numeric_stats,
    ).fit(train_df)
    xc, xn = encoder.transform(train_df)
    y = encoder.encode_target(train_df[target])
    train_ds = TensorDataset(xc, xn, y)
    test_known = test_df[target].astype(str).isin(encoder.classes_).to_numpy()
    test_df = test_df.loc[test_known]
    tc, tn = encoder.transform(test_df)
    ty = encoder.encode_target(test_df[target])

    hidden = tuple(int(h) for h in hidden)
    init_seed = seed if seed is not None else int(rng.integers(2**62))

    def fresh_model() -> nn.Module:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(init_seed)
            return make_tabular_mlp(
                encoder.cardinalities, len(encoder.numeric_), len(encoder.classes_), hidden
            )

    return _Prepared(
        encoder=encoder,
        train_ds=train_ds,
        test=(tc, tn, ty),
        rows_without_target=without,
        fresh_model=fresh_model,
    )


def train_tabular(
    frame: pd.DataFrame,
    target: str,
    *,
    config: DPTrainConfig,
    drop: Sequence[str] = (),
    categorical: Sequence[str] | None = None,
    numeric: Sequence[str] | None = None,
    categories: Mapping[str, Sequence[str]] | None = None,
    numeric_stats: Mapping[str, tuple[float, float]] | None = None,
    policy: Policy | None = None,
    hidden: Sequence[int] = (128,),
    test_fraction: float = 0.2,
    seed: int | None = 0,
    baseline: bool = True,
    ledger: Any = None,
    dataset_name: str | None = None,
    fingerprint: str | None = None,
    checkpoint_path: str | Path | None = None,
    progress: Progress | None = None,
) -> TabularTrainReport:
    """Train the built-in tabular classifier on a table with DP-SGD, and a baseline.

    Parameters
    ----------
    frame, target
        The table and the column to predict. Rows without a target are left out.
    config
        The DP-SGD settings and target (epsilon, delta); delta must be below
        ``1 / n_train``.
    drop, categorical, numeric, categories, numeric_stats
        See :class:`TabularEncoder`. With ``policy``, identifier and text columns are
        dropped and the policy's ``dtype`` of each column is used.
    test_fraction
        Share of rows held out to measure accuracy (0 for none).
    seed
        Fixes the split, the initialization (the same for DP and baseline) and the baseline's
        shuffling; never the DP noise or sampling.
    baseline
        Also train the same model without DP, for comparison (never released).
    ledger, dataset_name, fingerprint, checkpoint_path
        See :func:`veil.train.train_private`.

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, epochs=2)
    >>> rep = train_tabular(adult_frame(), "salary-class", config=cfg)  # doctest: +SKIP
    >>> rep.summary()["epsilon_spent"] <= 3.0  # doctest: +SKIP
    True
    """
    t0 = time.perf_counter()
    torch = require("torch", extra="dp", purpose="DP-SGD training")
    progress = progress or NullProgress()
    prep = _prepare(
        frame,
        target,
        drop=drop,
        categorical=categorical,
        numeric=numeric,
        categories=categories,
        numeric_stats=numeric_stats,
        policy=policy,
        hidden=hidden,
        test_fraction=test_fraction,
        seed=seed,
    )
    encoder, train_ds, fresh_model = prep.encoder, prep.train_ds, prep.fresh_model
    tc, tn, ty = prep.test
    without = prep.rows_without_target
    hidden = tuple(int(h) for h in hidden)
    dp = train_private(
        fresh_model(),
        train_ds,
        config=config,
        ledger=ledger,
        dataset_name=dataset_name,
        what=f"DP-SGD tabular classifier predicting {target!r} ({len(train_ds)} rows)",
        fingerprint=fingerprint,
        checkpoint_path=checkpoint_path,
        checkpoint_extra={"encoder": encoder.to_dict(), "hidden": list(hidden)},
        progress=progress,
    )
    accuracy = _accuracy(dp.model, tc, tn, ty)
    base_acc: float | None = None
    base_sec: float | None = None
    if baseline:
        base = train_nonprivate(
            fresh_model(),
            train_ds,
            epochs=config.epochs,
            batch_size=config.batch_size,
            learning_rate=config.learning_rate,
            optimizer=config.optimizer,
            seed=seed,
            progress=progress,
        )
        base_acc = _accuracy(base.model, tc, tn, ty)
        base_sec = base.seconds
    majority = None
    if len(ty):
        majority = float(torch.bincount(ty, minlength=len(encoder.classes_)).max()) / len(ty)
    privacy = {
        "epsilon_spent": dp.epsilon_spent,
        "delta": dp.delta,
        "noise_multiplier": dp.noise_multiplier,
        "accountant": dp.calibration.accountant,
        "steps": dp.steps,
        "sample_rate": dp.sample_rate,
        "max_grad_norm": config.max_grad_norm,
        "unit": "one training row",
        "preprocessing_private": False,
    }
    return TabularTrainReport(
        classifier=TabularClassifier(
            encoder=encoder, module=dp.model, hidden=hidden, privacy=privacy
        ),
        dp=dp,
        accuracy=accuracy,
        baseline_accuracy=base_acc,
        baseline_seconds=base_sec,
        majority_accuracy=majority,
        n_train=len(train_ds),
        n_test=len(ty),
        rows_without_target=without,
        seconds=time.perf_counter() - t0,
    )


def train_tabular_baseline(
    frame: pd.DataFrame,
    target: str,
    *,
    config: DPTrainConfig,
    drop: Sequence[str] = (),
    policy: Policy | None = None,
    hidden: Sequence[int] = (128,),
    test_fraction: float = 0.2,
    seed: int | None = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Only the non-private baseline of :func:`train_tabular`: same split, model and settings.

    Spends no budget and returns no model (a model trained without DP must not be released);
    it is what ``veil train --baseline-only`` times, so that a DP run can be compared with a
    non-private run of the same command. Returns ``veil train --json``'s keys that apply.
    """
    t0 = time.perf_counter()
    prep = _prepare(
        frame,
        target,
        drop=drop,
        categorical=None,
        numeric=None,
        categories=None,
        numeric_stats=None,
        policy=policy,
        hidden=hidden,
        test_fraction=test_fraction,
        seed=seed,
    )
    base = train_nonprivate(
        prep.fresh_model(),
        prep.train_ds,
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        optimizer=config.optimizer,
        seed=seed,
        progress=progress or NullProgress(),
    )
    tc, tn, ty = prep.test
    return {
        "private": False,
        "baseline": {"accuracy": _accuracy(base.model, tc, tn, ty), "seconds": base.seconds},
        "seconds": None,
        "total_seconds": time.perf_counter() - t0,
        "epochs": config.epochs,
        "steps": base.steps,
        "n_train": len(prep.train_ds),
        "n_test": len(ty),
        "rows_without_target": prep.rows_without_target,
    }
