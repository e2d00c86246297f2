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
import json
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


_GLOBAL_RNG_SALT = 0x5DEECE66D  # the global generator's seed differs from the shuffling one's


def _clone(obj: Any) -> Any:
    """A copy of nested dicts, lists and tuples of tensors (tensors cloned, the rest shared:
    numbers and strings are immutable); ``copy.deepcopy`` does the same at several times the
    cost. A dict keeps its type and ``_metadata`` (``state_dict``'s version record)."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        out = type(obj)((k, _clone(v)) for k, v in obj.items())
        meta = getattr(obj, "_metadata", None)
        if meta is not None:
            out._metadata = copy.deepcopy(meta)  # type: ignore[attr-defined]
        return out
    if isinstance(obj, list | tuple):
        return type(obj)(_clone(v) for v in obj)
    return obj


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
        """Import torch now, so that timings measure training, not imports."""
        require("torch", extra="dp", purpose="SISA training of PyTorch models")

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
        with deterministic_torch() as torch, torch.random.fork_rng(devices=[]):
            # the global generator too (dropout and other random layers of a user's module)
            # is a function of the stage's seed alone; the caller's is restored after
            torch.manual_seed(seed ^ _GLOBAL_RNG_SALT)
            module = self._loaded(state)
            opt = Adam(list(module.parameters()), lr=self.learning_rate)
            if state["optimizer"] is not None:
                # a copy: the step counts and moments are updated in place, which would
                # rewrite the previous checkpoint
                opt.load_state_dict(_clone(state["optimizer"]))
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
                        opt.zero_grad()
                        loss = loss_fn(module(*(x[idx] for x in xs)), y[idx])
                        loss.backward()
                        opt.step()
            module.eval()
            # Copies: state_dict() hands out the live tensors.
            return {
                "seed": state["seed"],
                "module": _clone(module.state_dict()),
                "optimizer": _clone(opt.state_dict()),
            }

    def dumps(self, state: Any) -> bytes:
        fast = _dump_state(state)
        if fast is not None:
            return fast
        import torch

        buf = io.BytesIO()
        torch.save(state, buf)
        return buf.getvalue()

    def loads(self, blob: bytes) -> Any:
        if blob.startswith(_STATE_MAGIC):
            return _load_state(blob)
        if blob.startswith(_STATE_MAGIC_NPZ):  # written by veil before the array container
            return _load_state_npz(blob)
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
        """The fitted attributes (``name_``), flattened to canonical bytes: arrays by dtype,
        shape and values (structured ones field by field: their padding bytes are
        arbitrary), nested estimators and trees by their state, recursively. Not pickle
        bytes: pickling a forest before and after a save/load round trip gives different
        bytes for the same trees (pickle's memo), which made ``verify`` fail exact forests.
        """
        est = state["estimator"]
        out: dict[str, bytes] = {"fitted": bytes([bool(state["fitted"])])}
        for k, v in sorted(vars(est).items()):
            if not k.endswith("_") or k.startswith("_"):
                continue
            _canonical(v, k, out, depth=0)
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


class Adam:
    """Adam, as ``torch.optim.Adam`` computes it on CPU with its defaults, bit for bit.

    The same operations in the same order as torch's single-tensor implementation (betas
    0.9 and 0.999, eps 1e-8, no weight decay, no AMSGrad) and the same ``state_dict``, so
    checkpoints written with ``torch.optim.Adam`` resume here unchanged (a test compares
    the two). Why not torch's own: its first ``step()`` imports ``torch._dynamo`` (about
    3 s of CPU), which ``veil unlearn forget`` paid on every call for a sub-second erasure.
    """

    betas = (0.9, 0.999)
    eps = 1e-8

    def __init__(self, params: list[Any], lr: float) -> None:
        self.params = params
        self.lr = float(lr)
        self.state: dict[int, dict[str, Any]] = {}

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        import torch

        beta1, beta2 = self.betas
        with torch.no_grad():
            for i, p in enumerate(self.params):
                grad = p.grad
                if grad is None:
                    continue
                st = self.state.get(i)
                if st is None:
                    st = self.state[i] = {
                        "step": torch.tensor(0.0, dtype=torch.float32),
                        "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                        "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format),
                    }
                step_t, exp_avg, exp_avg_sq = st["step"], st["exp_avg"], st["exp_avg_sq"]
                step_t += 1
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = step_t.item()
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = self.lr / bias_correction1
                denom = (exp_avg_sq.sqrt() / bias_correction2**0.5).add_(self.eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)

    def state_dict(self) -> dict[str, Any]:
        """``torch.optim.Adam(params, lr).state_dict()``'s layout (live tensors)."""
        group = {
            "lr": self.lr,
            "betas": self.betas,
            "eps": self.eps,
            "weight_decay": 0,
            "amsgrad": False,
            "maximize": False,
            "foreach": None,
            "capturable": False,
            "differentiable": False,
            "fused": None,
            "decoupled_weight_decay": False,
            "params": list(range(len(self.params))),
        }
        return {"state": dict(self.state), "param_groups": [group]}

    def load_state_dict(self, sd: Mapping[str, Any]) -> None:
        groups = sd.get("param_groups") or [{}]
        group = groups[0]
        if (
            len(groups) != 1
            or len(group.get("params", [])) != len(self.params)
            or tuple(group.get("betas", self.betas)) != self.betas
            or group.get("eps", self.eps) != self.eps
            or group.get("weight_decay", 0)
            or group.get("amsgrad", False)
            or group.get("maximize", False)
        ):
            raise InputError(
                "a checkpoint's optimizer state is not the Adam this trainer uses "
                "(another parameter count or settings)",
                hint="the checkpoint belongs to another model: fit again",
            )
        self.state = {int(k): dict(v) for k, v in sd["state"].items()}


def _canonical(v: Any, name: str, out: dict[str, bytes], *, depth: int) -> None:
    """Flatten a fitted value into ``out`` (see :meth:`SklearnShardTrainer.params`)."""
    if depth > 12:
        raise InputError(f"the fitted attribute {name.split('.')[0]} nests too deeply to compare")
    if isinstance(v, np.ndarray):
        if v.dtype.names:
            for field_name in v.dtype.names:
                _canonical(
                    np.ascontiguousarray(v[field_name]),
                    f"{name}.{field_name}",
                    out,
                    depth=depth + 1,
                )
        elif v.dtype.kind == "O":
            out[name] = repr(v.shape).encode()
            for i, item in enumerate(v.ravel().tolist()):
                _canonical(item, f"{name}[{i}]", out, depth=depth + 1)
        else:
            out[name] = v.dtype.str.encode() + repr(v.shape).encode() + v.tobytes()
    elif isinstance(v, np.generic):
        out[name] = v.dtype.str.encode() + v.tobytes()
    elif v is None or isinstance(v, bool | int | float | str | bytes):
        out[name] = type(v).__name__.encode() + b":" + repr(v).encode()
    elif isinstance(v, dict):
        out[name] = b"dict:" + repr(sorted(map(str, v))).encode()
        for k in sorted(v, key=str):
            _canonical(v[k], f"{name}.{k}", out, depth=depth + 1)
    elif isinstance(v, list | tuple):
        out[name] = f"{type(v).__name__}:{len(v)}".encode()
        for i, item in enumerate(v):
            _canonical(item, f"{name}[{i}]", out, depth=depth + 1)
    else:
        state = v.__getstate__() if hasattr(v, "__getstate__") else None
        if isinstance(state, dict):  # an estimator, a tree: its state, recursively
            out[name] = f"object:{type(v).__module__}.{type(v).__qualname__}".encode()
            _canonical(state, f"{name}@", out, depth=depth + 1)
        else:
            out[name] = pickle.dumps(v, protocol=5)


_STATE_MAGIC_NPZ = b"veil-sisa-torch-state/1\n"  # the magic line and an .npz (read only)
_STATE_MAGIC = b"veil-sisa-torch-state/2\n"  # the magic line and an array container


def _dump_state(state: Any) -> bytes | None:
    """A trainer state (module tensors, Adam's) as an array container
    (:func:`veil.unlearning._store.pack_arrays`) behind a magic line: read back with one
    JSON header and no copy per tensor, where ``torch.load``'s restricted unpickler, and
    then an ``.npz`` (a header parsed per array), were most of the time an erasure spent
    outside training. ``None`` when the state holds something else (a module's extra
    state, a dtype NumPy lacks): the caller falls back to ``torch.save``."""
    import torch

    from veil.unlearning._store import pack_arrays

    arrays: dict[str, np.ndarray] = {}
    module = state.get("module")
    opt = state.get("optimizer")
    if not isinstance(module, dict):
        return None
    try:
        for i, v in enumerate(module.values()):
            if not isinstance(v, torch.Tensor) or v.dtype == torch.bfloat16:
                return None
            arrays[f"m{i}"] = v.detach().cpu().numpy()
        opt_state: dict[str, list[str]] = {}
        if opt is not None:
            for p, st in opt["state"].items():
                opt_state[str(p)] = list(st)
                for name, v in st.items():
                    if not isinstance(v, torch.Tensor):
                        return None
                    arrays[f"o{int(p)}.{name}"] = v.detach().cpu().numpy()
        meta = {
            "seed": int(state["seed"]),
            "module": list(module),
            "optimizer": None
            if opt is None
            else {"state": opt_state, "param_groups": opt["param_groups"]},
        }
        return pack_arrays(arrays, meta, magic=_STATE_MAGIC)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _state_from(meta: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> Any:
    from collections import OrderedDict

    import torch

    module = OrderedDict(
        (k, torch.from_numpy(arrays[f"m{i}"])) for i, k in enumerate(meta["module"])
    )
    opt = meta["optimizer"]
    if opt is not None:
        groups = opt["param_groups"]
        for g in groups:
            g["betas"] = tuple(g["betas"])
        opt = {
            "state": {
                int(p): {name: torch.from_numpy(arrays[f"o{p}.{name}"]) for name in names}
                for p, names in opt["state"].items()
            },
            "param_groups": groups,
        }
    return {"seed": meta["seed"], "module": module, "optimizer": opt}


def _load_state(blob: bytes) -> Any:
    from veil.unlearning._store import unpack_arrays

    arrays, meta = unpack_arrays(blob, magic=_STATE_MAGIC)
    return _state_from(meta, arrays)


def _load_state_npz(blob: bytes) -> Any:
    with np.load(io.BytesIO(blob[len(_STATE_MAGIC_NPZ) :]), allow_pickle=False) as z:
        meta = json.loads(z["meta"].tobytes())
        return _state_from(meta, {k: z[k] for k in z.files if k != "meta"})


def stack(parts: Sequence[Arrays], keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Concatenate the arrays of several slices, key by key."""
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}
