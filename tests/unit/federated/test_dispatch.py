"""Wake-ups instead of fixed polling between the server loop and Flower's simulation engine.

Each test makes the fixed waits long (30 s) and bounds its own wait far below that, so a
loop that still slept out its interval instead of waking on the stored message fails.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

import pytest

from veil.federated import _dispatch
from veil.federated._runtime import GuardedGrid


class _State:
    """The two sides of Flower's in-memory LinkState that the engine and the grid use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ins: list[tuple[int, str]] = []
        self.res: dict[str, str] = {}

    def store_message_ins(self, msg: tuple[int, str]) -> str:
        with self.lock:
            self.ins.append(msg)
        return msg[1]

    def get_message_ins(self, node_id: int, limit: int) -> list[tuple[int, str]]:
        with self.lock:
            mine = [m for m in self.ins if m[0] == node_id][:limit]
            for m in mine:
                self.ins.remove(m)
        return mine

    def store_message_res(self, reply_to: str) -> str:
        with self.lock:
            self.res[reply_to] = f"reply to {reply_to}"
        return reply_to


def test_a_doorbell_rings_after_each_call_and_wraps_once() -> None:
    state = _State()
    bell = _dispatch.doorbell(state, "store_message_ins")
    assert _dispatch.doorbell(state, "store_message_ins") is bell
    assert not bell.is_set()
    assert state.store_message_ins((1, "a")) == "a"  # the call itself is unchanged
    assert bell.is_set() and state.ins == [(1, "a")]
    other = _State()
    other.store_message_ins((2, "b"))  # only the one instance rings
    assert bell.is_set() and not _dispatch.doorbell(other, "store_message_ins").is_set()


def test_the_dispatcher_hands_on_a_stored_message_without_waiting_out_its_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_dispatch, "IDLE_WAIT", 30.0)
    state, out, stop = _State(), queue.Queue(), threading.Event()
    worker = threading.Thread(target=_dispatch._dispatch, args=(state, out, {1: 0, 2: 1}, stop))
    worker.start()
    try:
        time.sleep(0.2)  # the dispatcher is idle, waiting
        state.store_message_ins((2, "m1"))
        assert out.get(timeout=10) == (2, "m1")
        # two for one node: handed one per look, the second without an idle wait either
        state.store_message_ins((1, "m2"))
        state.store_message_ins((1, "m3"))
        assert [out.get(timeout=10), out.get(timeout=10)] == [(1, "m2"), (1, "m3")]
    finally:
        stop.set()
        state.store_message_ins((9, "wake"))  # ends the wait; the loop sees the stop
        worker.join(timeout=10)
    assert not worker.is_alive()


def test_prompt_dispatch_swaps_flowers_dispatcher_only_within_the_block() -> None:
    from flwr.server.superlink.fleet.vce import vce_api

    original = vce_api.add_messages_to_queue
    with _dispatch.prompt_dispatch():
        assert vce_api.add_messages_to_queue is _dispatch._dispatch
    assert vce_api.add_messages_to_queue is original


class _Grid:
    """A simulation grid over ``_State``: replies are stored by another thread."""

    def __init__(self) -> None:
        self.state = _State()
        self.pull_interval = 30.0

    def push_messages(self, messages: Any) -> list[str]:
        ids = [str(m) for m in messages]

        def answer() -> None:
            for mid in ids:
                time.sleep(0.05)
                self.state.store_message_res(mid)

        threading.Thread(target=answer).start()
        return ids

    def pull_messages(self, ids: Any) -> list[Any]:
        out = []
        with self.state.lock:
            for mid in list(ids):
                if mid in self.state.res:
                    out.append(_Reply(mid, self.state.res.pop(mid)))
        return out


class _Reply:
    def __init__(self, mid: str, text: str) -> None:
        self.metadata = type("M", (), {"reply_to_message_id": mid})()
        self.text = text

    def has_error(self) -> bool:
        return False


def test_the_server_wakes_on_each_stored_reply() -> None:
    grid = _Grid()
    guarded = GuardedGrid(grid, lambda: 1, probe=lambda: None, check_every=30.0)
    start = time.monotonic()
    replies = guarded.send_and_receive(["a", "b", "c"])
    assert sorted(r.text for r in replies) == ["reply to a", "reply to b", "reply to c"]
    assert time.monotonic() - start < 10  # not one 30 s interval slept out
