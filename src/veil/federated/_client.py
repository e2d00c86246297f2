"""The simulated clients: Flower ``ClientApp``s that train on their own rows.

Two apps, one per aggregation path:

- plain aggregation uses Flower's Message API: a ``@app.train()`` handler replies with the
  update (``arrays``), the row count and the local loss, and for SCAFFOLD the change of the
  client's control variate;
- secure aggregation (SecAgg+) only runs through Flower's legacy path, so that app wraps a
  ``NumPyClient`` behind ``secaggplus_mod``: the update leaves the client masked, and the
  server learns only the sum over the clients that finished the round.

The rows reach the Ray workers through :class:`WorkerData`: Flower's Ray backend pickles the
``ClientApp`` (and all it holds) with every message it hands a worker, so rows held by the
app would travel with every message (3.7 MB per message on Adult, and SecAgg+ sends four
messages per client and round); the holder pickles to the path of a private file instead,
which each worker reads once.

``--dropout`` is simulated by :func:`dropout_mod`: a client the server marked ``drop`` for
the round vanishes after key sharing (it answers its training message with an error and
forgets its SecAgg+ state, so a late or stale message cannot confuse its next round).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil.federated._model import FLData, fresh_model, num, set_weights

if TYPE_CHECKING:
    from veil.federated._local import LocalResult

__all__ = [
    "ADAPTIVE_KEY",
    "DROP_KEY",
    "WorkerData",
    "client_app",
    "dropout_mod",
    "secagg_client_app",
]

DROP_KEY = "veil-drop"  # in a round's train config: this client vanishes after key sharing
ADAPTIVE_KEY = "adaptive"  # in a round's train config: append the unclipped bit (adaptive clip)

_LOADED: dict[str, FLData] = {}  # in a Ray worker: the rows of the run it serves


def _load_worker_data(path: str) -> WorkerData:
    if path not in _LOADED:
        _LOADED.clear()  # a worker serves one run; never keep an earlier run's rows
        with open(path, "rb") as fh:
            _LOADED[path] = pickle.load(fh)  # noqa: S301 - our own file, in a private directory
    return WorkerData(_LOADED[path], Path(path))


class WorkerData:
    """The clients' rows, sent to each simulation worker once rather than with every message.

    ``save`` writes them to ``path`` (in a private temporary directory the caller removes
    after the run); a pickled holder is only that path, and the first use in a worker
    process reads the file and keeps the rows for the later messages.
    """

    def __init__(self, data: FLData, path: Path) -> None:
        self.data = data
        self.path = path

    @classmethod
    def save(cls, data: FLData, path: Path) -> WorkerData:
        with open(path, "wb") as fh:
            if isinstance(data.model, str):
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            else:
                # a user's model class or factory may live in a script's __main__, which a
                # Ray worker cannot import: cloudpickle (Ray's) writes it by value, and
                # plain pickle reads that back wherever Ray is installed
                from ray import cloudpickle

                cloudpickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
        return cls(data, path)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _load_worker_data, (str(self.path),)


def _train(data: FLData, pid: int, weights: list[Any], cfg: Any, control: Any) -> LocalResult:
    import torch

    from veil.federated._local import local_train

    torch.set_num_threads(1)
    model = fresh_model(data.arch, data.init_seed, data.model)
    set_weights(model, weights)
    sigmas = cfg.get("dp_sigmas")
    if sigmas:
        return _train_dp_sgd(data, pid, model, weights, cfg, float(sigmas[pid]))
    clip = num(cfg["clip"]) if num(cfg["clip"]) > 0 else None
    res = local_train(
        model,
        data.parts[pid],
        epochs=int(num(cfg["epochs"])),
        batch_size=int(num(cfg["batch_size"])),
        lr=num(cfg["lr"]),
        seed=int(num(cfg["seed"])),
        proximal_mu=num(cfg["mu"]),
        control=control,
        clip=clip,
    )
    if clip is not None and bool(cfg.get(ADAPTIVE_KEY, False)):
        # adaptive clipping: the centred bit travels as one more array, so SecAgg+ sums it
        # with the update and the server never sees it alone
        import numpy as np

        from veil.federated._clientdp import unclipped_bit

        res.delta.append(np.array([unclipped_bit(res.norm, clip)], dtype=np.float32))
    return res


def _train_dp_sgd(
    data: FLData, pid: int, model: Any, weights: list[Any], cfg: Any, sigma: float
) -> LocalResult:
    """``--dp sample``: the round's local epochs as DP-SGD with veil's trainer (Opacus).

    Poisson-sampled batches, each row's gradient clipped to ``dp_clip``, Gaussian noise of
    ``sigma`` times that; ``sigma`` was calibrated by the server for this client's rows, batch
    size and all the rounds, so the trainer's own check (this call's steps within the target)
    always passes. The update is the trained weights less the global ones.
    """
    import torch

    from veil.federated._local import LocalResult
    from veil.train import DPTrainConfig, train_private

    part = data.parts[pid]
    conf = DPTrainConfig(
        epsilon=num(cfg["dp_epsilon"]),
        delta=num(cfg["dp_delta"]),
        epochs=int(num(cfg["epochs"])),
        batch_size=int(num(cfg["batch_size"])),
        learning_rate=num(cfg["lr"]),
        optimizer="sgd",
        max_grad_norm=num(cfg["dp_clip"]),
        accountant=str(cfg.get("dp_accountant", "rdp")),
        noise_multiplier=sigma,
        compare_rdp=False,
    )
    res = train_private(model, torch.utils.data.TensorDataset(*part), config=conf)
    trained = [p.detach().numpy() for p in res.model.parameters()]
    delta = [t - w for t, w in zip(trained, weights, strict=True)]
    return LocalResult(delta=delta, n_examples=len(part[2]), loss=0.0)


def _drop_reply(msg: Any) -> Any:
    from flwr.app import Error, Message
    from flwr.common.constant import ErrorCode

    return Message(error=Error(ErrorCode.NODE_UNAVAILABLE, "simulated dropout"), reply_to=msg)


def client_app(rows: WorkerData) -> Any:
    """The Message API client of plain aggregation."""
    from flwr.app import ArrayRecord, Context, Message, MetricRecord, RecordDict
    from flwr.clientapp import ClientApp

    app = ClientApp()

    @app.train()
    def train(msg: Message, context: Context) -> Message:
        cfg = msg.content.config_records["config"]
        if bool(cfg.get(DROP_KEY, False)):
            return _drop_reply(msg)  # type: ignore[no-any-return]
        control = None
        if "control" in msg.content:
            c = msg.content.array_records["control"].to_numpy_ndarrays()
            ci = msg.content.array_records["client_control"].to_numpy_ndarrays()
            control = (c, ci)
        weights = msg.content.array_records["arrays"].to_numpy_ndarrays()
        res = _train(rows.data, int(context.node_config["partition-id"]), weights, cfg, control)
        content = RecordDict(
            {
                "arrays": ArrayRecord(res.delta),
                "metrics": MetricRecord({"n": res.n_examples, "loss": res.loss}),
            }
        )
        if res.control_delta is not None:
            content["control"] = ArrayRecord(res.control_delta)
        return Message(content, reply_to=msg)

    return app


def dropout_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Make a client marked ``drop`` vanish at SecAgg+'s masked-vector stage.

    It has taken part in the setup and the key sharing, so its masks are in its
    neighbours' sums: the server must recover them from the key shares (or give up when
    fewer than the threshold of shares remain). The client clears its SecAgg+ state, so
    whatever happens to this round, its next round starts from a clean setup.
    """
    from flwr.app import MessageType
    from flwr.common.secure_aggregation.secaggplus_constants import (
        RECORD_KEY_CONFIGS,
        RECORD_KEY_STATE,
        Key,
        Stage,
    )

    if msg.metadata.message_type != MessageType.TRAIN:
        return call_next(msg, context)
    configs = msg.content.config_records.get(RECORD_KEY_CONFIGS)
    fit_config = msg.content.config_records.get("fitins.config")
    if (
        configs is not None
        and configs.get(Key.STAGE) == Stage.COLLECT_MASKED_VECTORS
        and fit_config is not None
        and bool(fit_config.get(DROP_KEY, False))
    ):
        if RECORD_KEY_STATE in context.state.config_records:
            del context.state.config_records[RECORD_KEY_STATE]
        return _drop_reply(msg)
    return call_next(msg, context)


def secagg_client_app(rows: WorkerData) -> Any:
    """The legacy-path client of SecAgg+: ``NumPyClient.fit`` behind ``secaggplus_mod``.

    The client (:mod:`veil.federated._secagg_client`) is defined at module level, so the
    app pickles small with every message Flower's Ray backend sends.
    """
    from flwr.clientapp import ClientApp

    from veil.federated._secagg_client import client_fn
    from veil.federated._secagg_keys import secaggplus_mod

    return ClientApp(client_fn=client_fn(rows), mods=[dropout_mod, secaggplus_mod])
