"""The settings and the client of ``veil fl app``: veil's federated training on real machines.

``veil fl app DIR`` writes a Flower App (:mod:`veil.federated._appgen`) whose ``ServerApp``
(:mod:`veil.federated._deploy_server`) runs in the SuperLink's machine and whose
``ClientApp`` (:func:`client_app`, here) runs in each SuperNode, on the rows of the table
named by that SuperNode's own ``--node-config 'data-path="..."'``. The rows never leave
the SuperNode: it sends model updates (in clear, or masked by SecAgg+) and, for the
federated evaluation, the count of its held-out rows the global model gets right.

:class:`AppSettings` holds what ``veil fl app`` writes into the app's
``[tool.flwr.app.config]`` (the run config, overridable with ``flwr run --run-config``);
the server and the clients read it back and check it again, so an override cannot take a
run outside what ``veil fl simulate`` accepts.

The shared encoding (feature columns, categories, numeric statistics, classes) is the
app's ``schema.json``, fitted by ``veil fl app --schema TABLE``: it travels to the SuperLink
and every SuperNode, so TABLE must be public (a published sample, a synthetic table, or
one whose values are all public categories). It is not covered by differential privacy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, SchemaError
from veil.federated._simulate import FLConfig

if TYPE_CHECKING:
    from veil.train import TabularEncoder

__all__ = ["AppSettings", "client_app", "load_schema", "numpy_client", "secagg_guard_mod"]

APP_STRATEGIES: tuple[str, ...] = ("fedavg", "fedprox", "fedadam")
DATA_PATH_KEY = "data-path"  # the SuperNode's --node-config key naming its local table
REQUIRE_SECAGG_KEY = "require-secagg"  # node config: refuse updates outside SecAgg+


@dataclass(frozen=True)
class AppSettings:
    """What a deployed run does (the defaults of ``veil fl app``).

    ``clients`` is how many SuperNodes the server waits for before round 1; it is also the
    federation size the client-level DP accountant and ``--delta`` check use. ``round_timeout``
    bounds each wait for replies (a SuperNode that vanished is left out of its round after
    that many seconds); ``wait_timeout`` bounds the wait for the first ``clients`` SuperNodes.
    ``max_weight`` bounds a client's row count under SecAgg+ without DP (its weight in the
    masked sum). ``out_dir`` is where the server writes ``report.json`` and ``model.pt``
    (relative to the SuperLink's working directory). ``evaluate``: after each round every
    SuperNode reports how many of its held-out rows the global model gets right (counts the
    server sees in clear, not covered by DP); false skips it.
    """

    rounds: int = 20
    clients: int = 3
    strategy: str = "fedavg"
    fraction_fit: float = 1.0
    local_epochs: int = 1
    batch_size: int = 64
    lr: float | None = None
    proximal_mu: float = 0.01
    test_fraction: float = 0.2
    seed: int = 0
    dp: str | None = None
    epsilon: float | None = None
    delta: float = 1e-5
    clip_norm: float = 1.0
    secagg: bool = False
    secagg_shares: float | None = None
    secagg_threshold: float | None = None
    max_weight: float = 100_000.0
    round_timeout: float = 120.0
    wait_timeout: float = 600.0
    evaluate: bool = True
    out_dir: str = "veil-fl-out"
    ledger: str = ""
    dataset: str = ""
    no_ledger: bool = False

    def fl_config(self) -> FLConfig:
        """The same run as ``veil fl simulate`` would validate it."""
        return FLConfig(
            clients=self.clients,
            rounds=self.rounds,
            strategy=self.strategy,
            local_epochs=self.local_epochs,
            fraction_fit=self.fraction_fit,
            batch_size=self.batch_size,
            lr=self.lr,
            proximal_mu=self.proximal_mu,
            test_fraction=self.test_fraction,
            seed=self.seed,
            dp=self.dp,
            epsilon=self.epsilon,
            delta=self.delta,
            clip_norm=self.clip_norm,
            secagg=self.secagg,
            secagg_shares=self.secagg_shares,
            secagg_threshold=self.secagg_threshold,
        )

    def validate(self) -> None:
        """Refuse what ``veil fl simulate`` refuses, and what a deployment cannot do."""
        if self.strategy not in APP_STRATEGIES:
            if self.strategy == "scaffold":
                raise InputError(
                    "--strategy scaffold is not available in a deployed app: its per-client "
                    "control variates would have to live on the server between rounds",
                    hint=f"use one of: {', '.join(APP_STRATEGIES)}",
                )
            raise InputError(
                f"unknown --strategy {self.strategy!r}",
                hint=f"use one of: {', '.join(APP_STRATEGIES)}",
            )
        if self.dp == "sample":
            raise InputError(
                "--dp sample is not available in a deployed app: calibrating each client's "
                "DP-SGD noise needs its row count on the server before the first round",
                hint="use --dp client (client-level DP), as with veil fl simulate --dp client",
            )
        self.fl_config().validate()
        for name in ("round_timeout", "wait_timeout", "max_weight"):
            value = getattr(self, name)
            if not value > 0 or not math.isfinite(value):
                raise InputError(f"--{name.replace('_', '-')} must be a positive number")
        if not self.out_dir:
            raise InputError("--out must name a folder", hint="e.g. --out veil-fl-out")
        if self.dp is None:
            if self.dataset or self.ledger or self.no_ledger:
                raise InputError(
                    "--dataset/--ledger/--no-ledger apply to --dp runs only",
                    hint="a run without --dp spends no privacy budget",
                )
            return
        if self.no_ledger and (self.dataset or self.ledger):
            raise InputError(
                "--no-ledger contradicts --dataset/--ledger", hint="pass one or the other"
            )
        if not self.no_ledger and not self.dataset:
            raise InputError(
                "say which dataset's privacy budget pays for the run",
                hint="pass --dataset NAME (create it on the SuperLink's machine with: veil "
                "budget init NAME --epsilon E --delta D), or --no-ledger to run without "
                "recording the spend",
            )

    def to_run_config(self) -> dict[str, bool | int | float | str]:
        """The ``[tool.flwr.app.config]`` table: kebab-case keys, no ``None`` (TOML has none).

        An unset ``lr``, ``epsilon``, ``secagg_shares`` or ``secagg_threshold`` is written as 0;
        ``dp`` as "none".
        """
        out: dict[str, bool | int | float | str] = {}
        for key, value in asdict(self).items():
            if value is None:
                value = "none" if key == "dp" else 0.0
            out[key.replace("_", "-")] = value
        return out

    @classmethod
    def from_run_config(cls, config: Mapping[str, Any]) -> AppSettings:
        """Read back a run config (after ``flwr run --run-config`` overrides) and check it."""
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            key = f.name.replace("_", "-")
            if key not in config:
                raise InputError(
                    f"the run config has no {key!r}",
                    hint="regenerate the app with veil fl app, or add the key to "
                    "[tool.flwr.app.config] in its pyproject.toml",
                )
            value = config[key]
            default = f.default
            if f.name == "dp":
                value = None if value in ("none", "") else value
            elif f.name in ("lr", "epsilon", "secagg_shares", "secagg_threshold"):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise InputError(f"run config {key!r} must be a number (0: the default)")
                value = None if value == 0 else float(value)
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise InputError(f"run config {key!r} must be true or false")
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise InputError(f"run config {key!r} must be a whole number")
            elif isinstance(default, float):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise InputError(f"run config {key!r} must be a number")
                value = float(value)
            elif not isinstance(value, str):
                raise InputError(f"run config {key!r} must be a string")
            kwargs[f.name] = value
        settings = cls(**kwargs)
        settings.validate()
        return settings


def load_schema(path: Path) -> TabularEncoder:
    """The app's shared encoder (``schema.json``, written by ``veil fl app --schema``)."""
    from veil.train import TabularEncoder

    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        return TabularEncoder.from_dict(d)
    except FileNotFoundError:
        raise InputError(
            f"the app's schema file is missing: {path}", hint="regenerate the app"
        ) from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(
            f"{path}: not a schema written by veil fl app", hint="regenerate the app"
        ) from None


def _local_rows(path_value: Any, encoder: TabularEncoder, test_fraction: float, seed: int) -> Any:
    """This SuperNode's table, encoded, split into (train, held-out) tensors."""
    import numpy as np
    import torch

    from veil.io import read_table

    if not isinstance(path_value, str) or not path_value:
        raise InputError(
            f"this SuperNode has no {DATA_PATH_KEY!r} in its node config",
            hint=f"start it with --node-config '{DATA_PATH_KEY}=\"/path/to/local.csv\"'",
        )
    frame = read_table(Path(path_value))
    target = encoder.target
    if target not in frame.columns:
        raise SchemaError(
            f"this SuperNode's table has no target column {target!r} "
            f"({len(frame.columns)} columns)",
            hint="every SuperNode's table needs the columns of the app's schema",
        )
    frame = frame.loc[frame[target].notna()]
    if len(frame) == 0:
        raise InputError(
            "this SuperNode's table has no row with a target value",
            hint="a client needs at least one labelled row",
        )
    xc, xn = encoder.transform(frame)
    y = encoder.encode_target(frame[target])
    order = torch.as_tensor(np.random.default_rng(seed).permutation(len(frame)))
    n_test = round(len(frame) * test_fraction) if len(frame) > 1 else 0
    test, train = order[:n_test], order[n_test:]
    return (xc[train], xn[train], y[train]), (xc[test], xn[test], y[test])


def secagg_guard_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Route SecAgg+ messages to Flower's ``secaggplus_mod``; refuse clear updates when told.

    A training message that carries SecAgg+'s stage goes through ``secaggplus_mod`` (the
    update leaves masked). One without it asks for the update in clear: refused when the
    run config has ``secagg`` or the SuperNode was started with ``--node-config
    'require-secagg=true'`` (a data holder's own guarantee, whatever the server asks).
    """
    from flwr.app import MessageType
    from flwr.common.secure_aggregation.secaggplus_constants import RECORD_KEY_CONFIGS

    from veil.federated._secagg_crypto import secaggplus_mod

    if msg.metadata.message_type != MessageType.TRAIN:
        return call_next(msg, context)
    if RECORD_KEY_CONFIGS in msg.content.config_records:
        return secaggplus_mod(msg, context, call_next)
    if bool(context.run_config.get("secagg", False)) or bool(
        context.node_config.get(REQUIRE_SECAGG_KEY, False)
    ):
        raise RuntimeError(
            "refused to send a model update in clear: this run or SuperNode requires SecAgg+"
        )
    return call_next(msg, context)


def numpy_client(context: Any, schema_path: Path) -> Any:
    """This SuperNode's ``NumPyClient`` for one message (Flower starts a process per message).

    ``fit`` trains from the global weights (client-side clipping with client-level DP, by
    :func:`veil.federated.clip_update`) and returns the update; ``evaluate`` counts the
    held-out rows the model gets right.
    """
    from flwr.client import NumPyClient

    from veil.federated._model import evaluate, fresh_model, num, set_weights

    class _Client(NumPyClient):
        def __init__(self) -> None:
            self.settings = AppSettings.from_run_config(context.run_config)
            self.encoder = load_schema(schema_path)
            self.train, self.test = _local_rows(
                context.node_config.get(DATA_PATH_KEY),
                self.encoder,
                self.settings.test_fraction,
                self.settings.seed,
            )
            enc = self.encoder
            self.arch = (enc.cardinalities, len(enc.numeric_), len(enc.classes_))

        def _model(self, parameters: list[Any]) -> Any:
            import torch

            torch.set_num_threads(1)
            model = fresh_model(self.arch, self.settings.seed)
            set_weights(model, parameters)
            return model

        def fit(
            self, parameters: list[Any], config: dict[str, Any]
        ) -> tuple[list[Any], int, dict[str, Any]]:
            from veil.federated._local import local_train

            if len(self.train[2]) == 0:
                raise InputError("this SuperNode has no training row left after the hold-out")
            clip = num(config["clip"])
            res = local_train(
                self._model(parameters),
                self.train,
                epochs=int(num(config["epochs"])),
                batch_size=int(num(config["batch_size"])),
                lr=num(config["lr"]),
                seed=int(num(config["seed"])),
                proximal_mu=num(config["mu"]),
                clip=clip if clip > 0 else None,
            )
            weight = 1 if clip > 0 else res.n_examples
            if self.settings.secagg and weight > self.settings.max_weight:
                raise InputError(
                    f"this SuperNode has {weight} training rows, more than the run's "
                    f"max-weight {self.settings.max_weight:g} (its weight in the masked sum)",
                    hint="raise max-weight in the app's run config",
                )
            return res.delta, weight, {"loss": res.loss}

        def evaluate(
            self, parameters: list[Any], config: dict[str, Any]
        ) -> tuple[float, int, dict[str, Any]]:
            n = len(self.test[2])
            if n == 0:
                return 0.0, 0, {"correct": 0}
            acc, loss = evaluate(self._model(parameters), self.test)
            assert acc is not None and loss is not None
            return loss, n, {"correct": round(acc * n)}

    return _Client()


def client_app(schema_path: Path) -> Any:
    """The ``ClientApp`` of a deployed run: :func:`numpy_client` behind :func:`secagg_guard_mod`."""
    from flwr.app import Context
    from flwr.client import Client
    from flwr.clientapp import ClientApp

    def client_fn(context: Context) -> Client:
        client: Client = numpy_client(context, schema_path).to_client()
        return client

    return ClientApp(client_fn=client_fn, mods=[secagg_guard_mod])
