"""The deployed app's rounds in one process: veil's real ServerApp loop and ClientApp.

Only the transport is replaced: :class:`_LocalGrid` hands each message to the real
``ClientApp`` of its SuperNode (with that node's own table and SecAgg+ state) and queues the
reply, as the SuperLink and SuperNodes do over the network (tests/integration/
test_fl_app_deploy.py runs the app on the real processes; this checks the paths it does not:
plain aggregation, FedAdam, a SuperNode that is listed but never answers, the DP noise).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from veil.data import adult_frame
from veil.federated import AppSettings, deploy_client_app
from veil.federated._deploy import load_schema
from veil.federated._deploy_server import _PollingGrid, run_rounds

TARGET = "salary-class"


class _LocalGrid:
    """Delivers each message to the ClientApp of its node at once; replies wait to be pulled."""

    def __init__(self, nodes: dict[int, tuple[Any, Any]]) -> None:
        self.nodes = nodes  # node id -> (ClientApp, Context)
        self.gone: set[int] = set()  # left: the SuperLink answers for them with an error
        self.crash_after: dict[int, int] = {}  # node -> messages it answers, then silence
        self.replies: dict[str, Any] = {}
        # every reply the server got: (its type, has content, how many arrays it held)
        self.received: list[tuple[str, bool, int]] = []

    def get_node_ids(self) -> list[int]:
        return [n for n in self.nodes if n not in self.gone]

    def create_message(
        self, content: Any, message_type: str, dst_node_id: int, group_id: str, ttl: Any = None
    ) -> Any:
        from flwr.app import Message

        return Message(
            content=content, dst_node_id=dst_node_id, message_type=message_type, group_id=group_id
        )

    def push_messages(self, messages: Any) -> list[str]:
        from flwr.app import Error, Message

        ids = []
        for msg in messages:
            msg.metadata.__dict__["_message_id"] = msg.object_id  # as the SuperLink does
            node = msg.metadata.dst_node_id
            if node in self.gone:
                reply = Message(error=Error(code=0, reason="node_unavail"), reply_to=msg)
            elif node in self.crash_after and self.crash_after[node] <= 0:
                ids.append(msg.metadata.message_id)  # never answered
                continue
            else:
                if node in self.crash_after:
                    self.crash_after[node] -= 1
                app, context = self.nodes[node]
                # each side gets its own copy through Flower's wire format, as over the
                # network (the SecAgg+ workflow sends one content object to every node, and
                # its mod edits what it gets)
                reply = _wire(app(message=_wire(msg), context=context))
            self.replies[msg.metadata.message_id] = reply
            ids.append(msg.metadata.message_id)
        return ids

    def pull_messages(self, ids: Any) -> list[Any]:
        out = [self.replies.pop(i) for i in list(ids) if i in self.replies]
        for m in out:
            arrays = (
                sum(len(rec) for rec in m.content.array_records.values()) if m.has_content() else 0
            )
            self.received.append((m.metadata.message_type, m.has_content(), arrays))
        return out


def _wire(msg: Any) -> Any:
    from flwr.common.serde import message_from_proto, message_to_proto

    return message_from_proto(message_to_proto(msg))


@pytest.fixture
def federation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from flwr.app import Context, RecordDict
    from flwr.supercore.task_identity import TaskIdentity

    from veil.train import TabularEncoder

    for attr in ("_run_id", "_node_id", "_task_id"):  # set by Flower in its processes
        monkeypatch.setattr(TaskIdentity, attr, 1)
    frame = adult_frame().sample(600, random_state=2)
    schema = tmp_path / "schema.json"
    enc = TabularEncoder(target=TARGET).fit(frame)
    schema.write_text(json.dumps(enc.to_dict()))

    def make(settings: AppSettings) -> tuple[_LocalGrid, Any]:
        run_config = settings.to_run_config()
        nodes = {}
        for i in range(settings.clients):
            path = tmp_path / f"node{i}.csv"
            frame.iloc[i * 150 : (i + 1) * 150].to_csv(path, index=False)
            ctx = Context(
                run_id=1,
                node_id=100 + i,
                node_config={"data-path": str(path)},
                state=RecordDict(),
                run_config=run_config,
            )
            nodes[100 + i] = (deploy_client_app(schema), ctx)
        server_ctx = Context(
            run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config=run_config
        )
        return _LocalGrid(nodes), server_ctx

    return make, load_schema(schema)


def test_plain_fedadam_rounds_train_and_evaluate_on_every_node(federation: Any) -> None:
    make, encoder = federation
    settings = AppSettings(rounds=3, clients=3, strategy="fedadam", local_epochs=2)
    grid, ctx = make(settings)
    rounds, _, seconds = run_rounds(_PollingGrid(grid), ctx, settings, encoder, None)
    assert [r["round"] for r in rounds] == [1, 2, 3] and len(seconds) == 3
    assert all(r["clients"] == 3 and r["dropped"] == 0 for r in rounds)
    # each round: 3 updates and 3 evaluations (120 held-out rows: 30 per node of 150)
    assert len(grid.received) == 3 * 6
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["loss"] > 0 for r in rounds)
    assert rounds[-1]["loss"] < rounds[0]["loss"] + 0.05
    updates = [arrays for kind, _, arrays in grid.received if kind == "train"]
    assert len(updates) == 9 and min(updates) > 0  # plain aggregation: updates in clear


def test_a_node_that_is_gone_is_left_out_and_counted(federation: Any) -> None:
    make, encoder = federation
    settings = AppSettings(rounds=2, clients=3)
    grid, ctx = make(settings)
    grid.gone.add(102)
    original = grid.get_node_ids
    grid.get_node_ids = lambda: [*original(), 102]  # still listed online, but never answers
    rounds, _, _ = run_rounds(_PollingGrid(grid), ctx, settings, encoder, None)
    assert [(r["clients"], r["dropped"]) for r in rounds] == [(2, 1), (2, 1)]


def test_secagg_rounds_aggregate_without_any_update_in_clear(federation: Any) -> None:
    """SecAgg+ through the real mods: no reply the server receives holds an array."""
    make, encoder = federation
    settings = AppSettings(rounds=2, clients=4, secagg=True, evaluate=False)
    grid, ctx = make(settings)
    rounds, weights, _ = run_rounds(_PollingGrid(grid), ctx, settings, encoder, None)
    assert [(r["clients"], r["dropped"]) for r in rounds] == [(4, 0), (4, 0)]
    assert len(grid.received) == 2 * 4 * 4  # four SecAgg+ stages a round
    assert all(ok and arrays == 0 for _, ok, arrays in grid.received)
    start = _initial(encoder)
    assert sum(float(np.abs(a - b).sum()) for a, b in zip(weights, start, strict=True)) > 0


def test_secagg_survives_a_node_that_crashes_after_sharing_its_keys(federation: Any) -> None:
    """It never answers again: each stage waits round-timeout, then removes its masks."""
    make, encoder = federation
    settings = AppSettings(rounds=2, clients=4, secagg=True, evaluate=False, round_timeout=1.0)
    grid, ctx = make(settings)
    grid.crash_after[103] = 2  # the setup and the key sharing of round 1
    rounds, weights, _ = run_rounds(_PollingGrid(grid), ctx, settings, encoder, None)
    # still listed online (no heartbeat check here): sampled again in round 2, silent again
    assert [(r["clients"], r["dropped"]) for r in rounds] == [(3, 1), (3, 1)]
    assert all(np.isfinite(w).all() for w in weights)


def test_client_level_dp_adds_noise_of_sigma_times_the_clip(federation: Any) -> None:
    make, encoder = federation
    settings = AppSettings(
        rounds=1, clients=3, dp="client", epsilon=1.0, delta=1e-3, no_ledger=True, clip_norm=0.1
    )
    grid, ctx = make(settings)
    before = [w.copy() for w in _initial(encoder)]
    _, after, _ = run_rounds(_PollingGrid(grid), ctx, settings, encoder, sigma=50.0)
    moved = np.sqrt(sum(float(((a - b) ** 2).sum()) for a, b in zip(after, before, strict=True)))
    # noise of std 50 x 0.1 / 3 per coordinate over thousands of coordinates: far above what
    # three clipped updates (at most 0.1 / 3 each) could move the weights
    assert moved > 10.0


def _initial(encoder: Any) -> list[Any]:
    from veil.federated._model import fresh_model

    arch = (encoder.cardinalities, len(encoder.numeric_), len(encoder.classes_))
    return [p.detach().numpy().copy() for p in fresh_model(arch, 0).parameters()]
