"""The SecAgg+ client of a simulation: a ``NumPyClient`` defined where pickle can name it.

Flower's Ray backend pickles the ``ClientApp`` with every message it hands a worker, and
SecAgg+ sends three or four messages per client and round. A client class defined inside a function
is pickled by value (its code, every time: about 1.3 ms a message, and as long again to
rebuild it in the worker); this one, and the ``client_fn`` built with ``functools.partial``,
are pickled as their names. Imported only when a SecAgg+ simulation runs (it imports flwr).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from flwr.app import Context
from flwr.client import Client, NumPyClient

from veil.federated._model import num

if TYPE_CHECKING:
    from veil.federated._client import WorkerData

__all__ = ["SecAggClient", "client_fn"]


class SecAggClient(NumPyClient):
    """Trains on partition ``pid``; its update leaves through ``secaggplus_mod`` masked.

    With client-level DP it reports a weight of 1 (the server needs the plain sum of clipped
    updates, and the row counts stay hidden); otherwise its row count, so the securely
    aggregated mean is FedAvg's example-weighted mean.
    """

    def __init__(self, rows: WorkerData, pid: int) -> None:
        self.rows = rows
        self.pid = pid

    def fit(
        self, parameters: list[Any], config: dict[str, Any]
    ) -> tuple[list[Any], int, dict[str, Any]]:
        from veil.federated._client import _train

        res = _train(self.rows.data, self.pid, parameters, config, None)
        weight = 1 if num(config["clip"]) > 0 else res.n_examples
        return res.delta, weight, {"loss": res.loss}


def _client_fn(rows: WorkerData, context: Context) -> Client:
    return SecAggClient(rows, int(context.node_config["partition-id"])).to_client()


def client_fn(rows: WorkerData) -> Any:
    """Flower's ``client_fn`` for these rows (a partial of a module function: picklable)."""
    return functools.partial(_client_fn, rows)
