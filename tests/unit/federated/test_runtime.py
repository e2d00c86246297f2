"""The guard that stops a simulation when Flower's Ray runtime dies (issue #26).

A fake grid stands for Flower's in-memory grid at the seam veil owns: the server loop's
``send_and_receive``. The waits are bounded by counting polls, not by the clock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from flwr.app import Error, Message, RecordDict
from flwr.common.constant import ErrorCode

from veil.federated import RuntimeDiedError
from veil.federated._runtime import GuardedGrid, RayProbe, dead_ray_daemon, ray_failure

ACTOR_DIED = (
    "<class 'ray.exceptions.ActorDiedError'>:<'The actor died unexpectedly before "
    "finishing this task. secret-row-value'>"
)


pytestmark = pytest.mark.usefixtures("task_identity")


def _message(i: int) -> Message:
    msg = Message(RecordDict(), dst_node_id=100 + i, message_type="train", group_id="1")
    msg.metadata.__dict__["_message_id"] = f"m{i}"
    return msg


def _reply(to: Message, code: int | None = None, reason: str = "") -> Message:
    if code is None:
        reply = Message(RecordDict(), reply_to=to)
    else:
        reply = Message(error=Error(code, reason), reply_to=to)
    return reply


@dataclass
class _FakeGrid:
    """Answers each pushed message with ``answer(msg)`` (``None``: never answers)."""

    answer: Any
    pull_interval: float = 0.0
    pulls: int = 0
    max_pulls: int = 10_000
    pushed: dict[str, Message] = field(default_factory=dict)

    def push_messages(self, messages: Any) -> list[str]:
        for m in messages:
            self.pushed[m.metadata.message_id] = m
        return list(self.pushed)

    def pull_messages(self, ids: Any) -> list[Message]:
        self.pulls += 1
        if self.pulls > self.max_pulls:
            raise AssertionError("the guard kept waiting on a dead runtime")
        out = []
        for mid in list(ids):
            reply = self.answer(self.pushed[mid])
            if reply is not None:
                out.append(reply)
        return out


def test_replies_are_passed_through_while_ray_lives() -> None:
    grid = _FakeGrid(lambda m: _reply(m))
    guarded = GuardedGrid(grid, lambda: 1, probe=lambda: None)
    replies = guarded.send_and_receive([_message(i) for i in range(3)])
    assert sorted(r.metadata.reply_to_message_id for r in replies) == ["m0", "m1", "m2"]


def test_a_reply_failed_by_a_dead_ray_actor_stops_the_run() -> None:
    grid = _FakeGrid(lambda m: _reply(m, ErrorCode.UNKNOWN, ACTOR_DIED))
    guarded = GuardedGrid(grid, lambda: 4, probe=lambda: None)
    with pytest.raises(RuntimeDiedError) as info:
        guarded.send_and_receive([_message(0), _message(1)])
    err = info.value
    assert err.round_number == 4 and err.exit_code == 1
    assert "ActorDiedError" in str(err) and "round 4" in str(err)
    assert "memory" in (err.hint or "")
    assert "secret-row-value" not in str(err)  # Ray's reason text is not repeated


def test_a_dead_raylet_stops_a_wait_for_replies_that_would_never_end() -> None:
    looks = []

    def probe() -> str | None:
        looks.append(1)
        return "its Ray runtime died (the raylet process exited)" if len(looks) >= 3 else None

    grid = _FakeGrid(lambda m: None)  # the replies never come
    guarded = GuardedGrid(grid, lambda: 2, probe=probe, check_every=0.0)
    with pytest.raises(RuntimeDiedError, match="round 2: its Ray runtime died"):
        guarded.send_and_receive([_message(0)])  # no timeout: Flower's would wait forever
    assert grid.pulls < 10


def test_an_engine_that_stopped_ends_the_wait() -> None:
    stopped = threading.Event()
    grid = _FakeGrid(lambda m: None)
    guarded = GuardedGrid(grid, lambda: 3, probe=lambda: None, stopped=stopped, check_every=0.0)
    guarded.check()  # running: nothing to say
    stopped.set()
    with pytest.raises(RuntimeDiedError, match="round 3: the engine stopped"):
        guarded.send_and_receive([_message(0)])


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (ErrorCode.NODE_UNAVAILABLE, "simulated dropout"),
        (
            ErrorCode.CLIENT_APP_RAISED_EXCEPTION,
            "<class 'ray.exceptions.RayTaskError(ClientAppException)'>:<'...'>",
        ),
        (ErrorCode.UNKNOWN, "<class 'ValueError'>:<'...'>"),
    ],
)
def test_dropouts_and_client_errors_are_not_a_dead_runtime(code: int, reason: str) -> None:
    reply = _reply(_message(0), code, reason)
    assert ray_failure(reply) is None
    grid = _FakeGrid(lambda m: _reply(m, code, reason))
    replies = GuardedGrid(grid, lambda: 1, probe=lambda: None).send_and_receive([_message(0)])
    assert len(replies) == 1 and replies[0].has_error()


def test_a_timeout_still_returns_what_arrived() -> None:
    grid = _FakeGrid(lambda m: _reply(m) if m.metadata.message_id == "m0" else None)
    guarded = GuardedGrid(grid, lambda: 1, probe=lambda: None)
    replies = guarded.send_and_receive([_message(0), _message(1)], timeout=0.0)
    assert [r.metadata.reply_to_message_id for r in replies] == ["m0"]


class _Proc:
    def __init__(self, code: int | None) -> None:
        self.code = code

    def poll(self) -> int | None:
        return self.code


class _Info:
    def __init__(self, code: int | None) -> None:
        self.process = _Proc(code)


class _Node:
    def __init__(self, raylet: int | None, gcs: int | None) -> None:
        self.all_processes = {"raylet": [_Info(raylet)], "gcs_server": [_Info(gcs)]}


@pytest.mark.parametrize(
    ("raylet", "gcs", "dead"),
    [(None, None, None), (-9, None, "raylet"), (None, 1, "gcs_server")],
)
def test_the_probe_reads_the_exit_of_rays_daemons(
    monkeypatch: pytest.MonkeyPatch, raylet: int | None, gcs: int | None, dead: str | None
) -> None:
    from ray._private import worker

    monkeypatch.setattr(worker, "_global_node", _Node(raylet, gcs))
    assert dead_ray_daemon() == dead
    probe = RayProbe()
    assert probe() == (
        None if dead is None else f"its Ray runtime died (the {dead} process exited)"
    )
    monkeypatch.setattr(worker, "_global_node", None)  # Ray shut down (or never started)
    assert dead_ray_daemon() is None
    assert probe() == "its Ray runtime was shut down"  # it was running before
    assert RayProbe()() is None  # never seen running: not started yet


def test_the_simulated_clients_run_at_the_commands_priority_unless_the_user_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from veil.federated._simulate import ray_environment

    niceness = "RAY_worker_niceness"  # Ray's spelling: its config name after RAY_
    # Ray's default (15) starves the clients under any other load
    monkeypatch.delenv(niceness, raising=False)
    ray_environment()
    assert os.environ[niceness] == "0"
    monkeypatch.setenv(niceness, "5")
    ray_environment()
    assert os.environ[niceness] == "5"
