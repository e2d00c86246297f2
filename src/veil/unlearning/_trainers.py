"""What trains one SISA shard: a PyTorch module (veil's tabular MLP or a user's) or a
scikit-learn estimator.

A trainer turns one *stage* (the shard's slices ``0..j``, cumulative) into a new state from
the previous stage's state, with a seed that depends only on (run seed, shard, slice). Same
inputs, same state, bit for bit: that is what lets ``forget`` resume from the last clean
slice and ``verify`` retrain from scratch and compare. PyTorch trains under
deterministic algorithms (``torch.set_deterministic_debug_mode("error")``, the switch
``torch.use_deterministic_algorithms(True)`` sets) on one CPU thread (a multithreaded reduction
may add in another order); a scikit-learn estimator gets a fixed ``random_state``.

Data are dictionaries of NumPy arrays: the feature arrays the trainer names in
``input_keys`` and ``"y"`` (class indices ``0..n_classes-1``).
"""

from __future__ import annotations

import copy
import hashlib
import io
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from veil._deps import require
from veil._errors import InputError

if TYPE_CHECKING:
    from torch import nn

__all__ = [
    "ShardTrainer",
    "SklearnShardTrainer",
    "TorchShardTrainer",
    "derive_seed",
]

Arrays = Mapping[str, np.ndarray]


def derive_seed(seed: int, *parts: int) -> int:
    """A 63-bit seed from the run seed and a path such as (shard, slice): independent of
    everything else, so a stage's randomness never depends on what ran before it."""
    text = ":".join(str(int(p)) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(b"veil-sisa\x00" + text).digest()[:8], "big") >> 1


class ShardTrainer(Protocol):
    """Trains one shard stage by stage (see the module docstring)."""

    name: str
    input_keys: tuple[str, ...]

    def describe(self) -> dict[str, Any]: ...

    def initial_state(self, seed: int) -> Any: ...

    def train_stage(
        self, state: Any, data: Arrays, seed: int, *, final: bool, stages: int
    ) -> Any: ...

    def dumps(self, state: Any) -> bytes: ...

    def loads(self, blob: bytes) -> Any: ...

    def params(self, state: Any) -> dict[str, bytes]: ...

    def predict_proba(self, state: Any, data: Arrays) -> np.ndarray: ...


@contextmanager
def deterministic_torch() -> Iterator[Any]:
    """One CPU thread and deterministic algorithms for the block; the settings come back after."""
    torch = require("torch", extra="dp", purpose="SISA training of PyTorch models")
    threads = torch.get_num_threads()
    mode = torch.get_deterministic_debug_mode()
    torch.set_num_threads(1)
    # The same switch as use_deterministic_algorithms(True), without its import of
    # torch._inductor (seconds; it only configures torch.compile, which is not used here).
    torch.set_deterministic_debug_mode("error")
    try:
        yield torch
    finally:
        torch.set_deterministic_debug_mode(mode)
        torch.set_num_threads(threads)


@dataclass
class TorchShardTrainer:
    """SISA stages of a PyTorch classifier: Adam, cross-entropy, seeded shuffled batches.

    Parameters
    ----------
    factory
        Builds a fresh ``nn.Module``; it is called after ``torch.manual_seed(shard seed)``,
        so its initialization is a function of the seed. Its ``forward`` takes the arrays
        named in ``input_keys`` (as tensors), in that order, and returns logits.
    input_keys
        The feature arrays of the data, in ``forward``'s order.
    epochs
        The training budget ``E``, in epochs of a shard trained in one stage; with ``L``
        slices each cumulative stage trains ``2E / (L + 1)`` epochs (see
        :meth:`stage_epochs`), so sliced training costs what unsliced training costs.
    batch_size, learning_rate
        Adam's batch size and learning rate.
    name
        Recorded in the manifest; a directory is only reopened with a trainer of that name.

    Examples
    --------
    >>> from torch import nn
    >>> t = TorchShardTrainer(lambda: nn.Linear(3, 2), ("x",), epochs=1)
    >>> t.describe()["kind"]
    'torch'
    """

    factory: Callable[[], nn.Module]
    input_keys: tuple[str, ...] = ("x",)
    epochs: int = 5
    batch_size: int = 128
    learning_rate: float = 5e-3
    name: str = "torch-module"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or not self.learning_rate > 0:
            raise InputError(
                "epochs and batch size must be at least 1 and the learning rate positive",
                hint="e.g. --epochs 5 --batch-size 128 --lr 0.005",
            )

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "torch",
            "name": self.name,
            "input_keys": list(self.input_keys),
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            **self.extra,
        }

    def warm_up(self) -> None:
        """Import what the first optimizer step imports (``torch._dynamo``, seconds), so
        that timings measure training, not imports."""
        torch = require("torch", extra="dp", purpose="SISA training of PyTorch models")
        torch.optim.Adam([torch.zeros(1, requires_grad=True)])

    def _module(self, seed: int) -> nn.Module:
        torch = require("torch", extra="dp", purpose="SISA training of PyTorch models")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            return self.factory()

    def _loaded(self, state: Any) -> nn.Module:
        """A module holding ``state``'s weights: one module per trainer, reloaded each time
        (building a fresh one costs more than a small shard's stage)."""
        module = self.__dict__.get("_template")
        if module is None:
            module = self.__dict__["_template"] = self._module(int(state["seed"]))
        module.load_state_dict(state["module"])
        return module

    def initial_state(self, seed: int) -> Any:
        module = self._module(seed)
        return {"seed": seed, "module": copy.deepcopy(module.state_dict()), "optimizer": None}

    def _tensors(self, data: Arrays) -> list[Any]:
        import torch

        return [torch.from_numpy(np.ascontiguousarray(data[k])) for k in self.input_keys]

    def stage_epochs(self, stages: int) -> int:
        """Epochs of each of ``stages`` cumulative stages: ``2E / (stages + 1)`` (at least 1).

        Stage ``j`` trains on ``j + 1`` slices, so the shard's rows are visited
        ``E`` times in all, as in training the shard in one go (SISA, Section V-B); one stage
        (the monolithic model) gets all ``E`` epochs.
        """
        return max(1, round(2 * self.epochs / (stages + 1)))

    def train_stage(
        self, state: Any, data: Arrays, seed: int, *, final: bool, stages: int = 1
    ) -> Any:
        with deterministic_torch() as torch:
            module = self._loaded(state)
            opt = torch.optim.Adam(module.parameters(), lr=self.learning_rate)
            if state["optimizer"] is not None:
                # a copy: load_state_dict keeps the given tensors (the step counts, moments),
                # and Adam updates them in place, which would rewrite the previous checkpoint
                opt.load_state_dict(copy.deepcopy(state["optimizer"]))
            n = len(data["y"])
            if n:
                xs = self._tensors(data)
                y = torch.from_numpy(np.ascontiguousarray(data["y"]).astype(np.int64))
                gen = torch.Generator().manual_seed(seed)
                loss_fn = torch.nn.CrossEntropyLoss()
                module.train()
                for _ in range(self.stage_epochs(stages)):
                    perm = torch.randperm(n, generator=gen)
                    for idx in perm.split(self.batch_size):
                        opt.zero_grad(set_to_none=True)
                        loss = loss_fn(module(*(x[idx] for x in xs)), y[idx])
                        loss.backward()
                        opt.step()
            module.eval()
            # Copies: state_dict() hands out the live tensors.
            return copy.deepcopy(
                {
                    "seed": state["seed"],
                    "module": module.state_dict(),
                    "optimizer": opt.state_dict(),
                }
            )

    def dumps(self, state: Any) -> bytes:
        import torch

        buf = io.BytesIO()
        torch.save(state, buf)
        return buf.getvalue()

    def loads(self, blob: bytes) -> Any:
        import torch

        return torch.load(io.BytesIO(blob), weights_only=True, map_location="cpu")

    def params(self, state: Any) -> dict[str, bytes]:
        """Every parameter's and buffer's bytes, and the optimizer's state (Adam's moments
        and step counts), so a resumed stage is compared whole."""
        out = {k: v.detach().cpu().numpy().tobytes() for k, v in state["module"].items()}
        opt = state.get("optimizer") or {}
        for p, st in sorted((opt.get("state") or {}).items()):
            for name, v in sorted(st.items()):
                out[f"optimizer.{p}.{name}"] = v.detach().cpu().numpy().tobytes()
        return out

    def predict_proba(self, state: Any, data: Arrays) -> np.ndarray:
        with deterministic_torch():
            return self._predict(state, data)

    def _predict(self, state: Any, data: Arrays) -> np.ndarray:
        import torch

        module = self._loaded(state)
        module.eval()
        xs = self._tensors(data)
        out = []
        with torch.no_grad():
            n = len(xs[0]) if xs else 0
            for start in range(0, n, 8192):
                logits = module(*(x[start : start + 8192] for x in xs))
                out.append(torch.softmax(logits.double(), dim=1).numpy())
        if not out:
            return np.zeros((0, 0))
        return np.concatenate(out)


@dataclass
class SklearnShardTrainer:
    """SISA shards of a scikit-learn classifier.

    An estimator with ``partial_fit`` (``incremental=True``) learns slice by slice: stage ``j``
    continues the estimator of stage ``j-1`` on the rows of slice ``j``, so ``forget``
    resumes from the last clean slice. Any other estimator is fitted once, at the last
    stage, on all the shard's rows (its intermediate checkpoints are empty): forgetting
    retrains the whole shard, which is still only ``1 / shards`` of the data.

    The estimator is cloned per shard with ``random_state`` set from the shard's seed
    where it has that parameter. Its predicted classes must be ``0..n_classes-1``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> SklearnShardTrainer(LogisticRegression()).describe()["estimator"]
    'LogisticRegression'
    """

    estimator: Any
    n_classes: int = 2
    incremental: bool = False
    input_keys: tuple[str, ...] = ("x",)
    name: str = "sklearn"

    def __post_init__(self) -> None:
        if self.incremental and not hasattr(self.estimator, "partial_fit"):
            raise InputError(
                f"incremental=True needs partial_fit, which {type(self.estimator).__name__} lacks",
                hint="use incremental=False (the shard is fitted once on all its rows)",
            )

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "sklearn",
            "name": self.name,
            "estimator": type(self.estimator).__name__,
            "incremental": self.incremental,
            "n_classes": self.n_classes,
        }

    def initial_state(self, seed: int) -> Any:
        from sklearn.base import clone

        est = clone(self.estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed % (2**32 - 1))
        return {"fitted": False, "estimator": est}

    def train_stage(
        self, state: Any, data: Arrays, seed: int, *, final: bool, stages: int = 1
    ) -> Any:
        est = copy.deepcopy(state["estimator"])
        x, y = data["x"], data["y"]
        classes = np.arange(self.n_classes)
        if self.incremental:
            new = data.get("new_mask")
            rows = np.asarray(new, dtype=bool) if new is not None else np.ones(len(y), bool)
            if rows.any():
                est.partial_fit(x[rows], y[rows], classes=classes)
                return {"fitted": True, "estimator": est}
            return {"fitted": state["fitted"], "estimator": est}
        if not final or len(y) == 0:
            return {"fitted": False, "estimator": est}
        if len(np.unique(y)) < 2:
            raise InputError(
                "a shard holds rows of one class only; scikit-learn cannot fit it",
                hint="use fewer shards, or an incremental estimator",
            )
        est.fit(x, y)
        return {"fitted": True, "estimator": est}

    def dumps(self, state: Any) -> bytes:
        return pickle.dumps(state, protocol=5)

    def loads(self, blob: bytes) -> Any:
        # Only called on files whose keyed checksum the manifest vouches for.
        return pickle.loads(blob)  # noqa: S301

    def params(self, state: Any) -> dict[str, bytes]:
        est = state["estimator"]
        out: dict[str, bytes] = {"fitted": bytes([bool(state["fitted"])])}
        for k, v in sorted(vars(est).items()):
            if not k.endswith("_") or k.startswith("_"):
                continue
            if isinstance(v, np.ndarray):
                out[k] = v.dtype.str.encode() + repr(v.shape).encode() + v.tobytes()
            else:
                out[k] = pickle.dumps(v, protocol=5)
        return out

    def predict_proba(self, state: Any, data: Arrays) -> np.ndarray:
        est = state["estimator"]
        n = len(data["x"])
        proba = np.zeros((n, self.n_classes))
        if not state["fitted"]:
            return np.full((n, self.n_classes), 1.0 / self.n_classes)
        got = est.predict_proba(data["x"])
        for j, c in enumerate(est.classes_):
            proba[:, int(c)] = got[:, j]
        return proba


def stack(parts: Sequence[Arrays], keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Concatenate the arrays of several slices, key by key."""
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}
