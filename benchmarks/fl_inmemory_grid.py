"""veil's own ServerApp and ClientApp for ``veil fl simulate``, run over an in-memory grid.

``simulate_federated`` (the function behind ``veil fl simulate``) hands its ServerApp and
ClientApp to Flower's simulation engine, which runs the clients on Ray actors.
:func:`run_in_memory` stands in for that engine alone: the same ``server_app`` (sampling,
SecAgg+ rounds through Flower's ``SecAggPlusWorkflow``, the client-level DP noise on the
securely aggregated sum) and the same ``secagg_client_app`` (local training, clipping,
Flower's ``secaggplus_mod``), with each message deep-copied to its node and the reply
deep-copied back, as a wire would; every message of the protocol is exchanged. Everything
else (validation, noise calibration, the ledger charge before round 1, the centralized
baseline, the summary) is ``simulate_federated``'s own.

Used by ``benchmarks/fl_dp_clients.py --secagg --engine memory`` where Ray's start-up and
transport would not fit the machine; the figures it gives are accuracy and privacy spend,
which the transport does not change. Not a timing of the command.
"""

from __future__ import annotations

import copy
import logging
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


class InMemoryGrid:
    """Flower's grid interface (what veil's server loop uses), delivering in process."""

    def __init__(self, client_app: Any, clients: int) -> None:
        from flwr.app import Context, RecordDict

        self._app = client_app
        self._nodes = list(range(1001, 1001 + clients))
        self._contexts = {
            nd: Context(
                run_id=1,
                node_id=nd,
                node_config={"partition-id": i, "num-partitions": clients},
                state=RecordDict(),
                run_config={},
            )
            for i, nd in enumerate(self._nodes)
        }
        self._replies: dict[str, Any] = {}
        self._count = 0
        self.pull_interval = 0.0
        # wire bytes (Flower's protobuf encoding of each message), for benchmarks/fl_bytes.py
        self.count_bytes = False
        self.bytes_sent = 0  # server to clients
        self.bytes_received = 0  # clients to server
        self.messages = 0

    def get_node_ids(self) -> list[int]:
        return list(self._nodes)

    def create_message(self, content: Any, message_type: str, dst: int, group: str) -> Any:
        from flwr.app import Message

        return Message(content=content, dst_node_id=dst, message_type=message_type, group_id=group)

    def push_messages(self, messages: Iterable[Any]) -> list[str]:
        ids = []
        for sent in messages:
            msg = copy.deepcopy(sent)
            self._count += 1
            mid = f"m{self._count}"
            msg.metadata.__dict__["_message_id"] = mid
            nd = int(msg.metadata.dst_node_id)
            try:
                reply = self._app(msg, self._contexts[nd])
            except Exception as exc:
                from flwr.app import Error, Message
                from flwr.common.constant import ErrorCode

                reply = Message(
                    error=Error(ErrorCode.CLIENT_APP_RAISED_EXCEPTION, repr(exc)), reply_to=msg
                )
            reply = copy.deepcopy(reply)
            reply.metadata.__dict__["_src_node_id"] = nd
            if self.count_bytes:
                self.bytes_sent += _wire_bytes(msg)
                self.bytes_received += _wire_bytes(reply)
                self.messages += 1
            self._replies[mid] = reply
            ids.append(mid)
        return ids

    def pull_messages(self, ids: Iterable[str]) -> list[Any]:
        return [self._replies.pop(i) for i in list(ids) if i in self._replies]

    def send_and_receive(
        self, messages: Iterable[Any], *, timeout: float | None = None
    ) -> list[Any]:
        return self.pull_messages(self.push_messages(messages))


def _wire_bytes(msg: Any) -> int:
    """The size of ``msg`` as Flower's gRPC transport encodes it (its protobuf message)."""
    from flwr.common.serde import message_to_proto

    return int(message_to_proto(msg).ByteSize())


def run_in_memory(
    data: Any,
    config: Any,
    sigma: float | None,
    progress: Any,
    observe: Callable[[Any], None] | None,
    sample_sigmas: list[float] | None = None,
    *,
    on_grid: Callable[[InMemoryGrid], None] | None = None,
) -> Any:
    """``veil.federated._simulate._run_flower``'s stand-in: SecAgg+ through Flower's
    legacy path, or plain aggregation through the Message API client. ``on_grid`` is called
    with the grid before the server starts (e.g. to count bytes)."""
    from flwr.app import Context, RecordDict
    from flwr.common.logger import FLOWER_LOGGER
    from flwr.supercore.task_identity import TaskIdentity

    from veil.federated._client import WorkerData, client_app, secagg_client_app
    from veil.federated._server import RunState, server_app

    # a ServerApp process has these set by Flower; messages cannot be built without them
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = 1, 0, 1
    run = RunState()
    server = server_app(data, config, sigma, run, progress, observe, sample_sigmas)
    level = FLOWER_LOGGER.level
    FLOWER_LOGGER.setLevel(logging.CRITICAL)  # as _run_flower does: no line per message
    try:
        with tempfile.TemporaryDirectory(prefix="veil-fl-") as tmp:
            rows = WorkerData.save(data, Path(tmp) / "rows.pickle")
            app = secagg_client_app(rows) if config.secagg else client_app(rows)
            grid = InMemoryGrid(app, config.clients)
            if on_grid is not None:
                on_grid(grid)
            context = Context(
                run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config={}
            )
            server(grid, context)
    finally:
        FLOWER_LOGGER.setLevel(level)
    if run.error is not None:
        raise run.error
    if len(run.rounds) != config.rounds:
        raise RuntimeError(f"the run ended after {len(run.rounds)} of {config.rounds} rounds")
    return run
