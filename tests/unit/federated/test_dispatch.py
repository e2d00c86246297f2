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


class _StoreState:
    """Flower's in-memory state as the look sees it: a dict of stored messages."""

    def __init__(self) -> None:
        self.message_ins_store: dict[str, Any] = {}
        self.asked: list[int] = []

    def store_message_ins(self, msg: tuple[str, int]) -> str:
        from types import SimpleNamespace

        meta = SimpleNamespace(dst_node_id=msg[1], delivered_at="")
        self.message_ins_store[msg[0]] = SimpleNamespace(metadata=meta)
        return msg[0]

    def get_message_ins(self, node_id: int, limit: int) -> list[Any]:
        self.asked.append(node_id)
        mine = [
            m
            for m in self.message_ins_store.values()
            if m.metadata.dst_node_id == node_id and not m.metadata.delivered_at
        ][:limit]
        for m in mine:
            m.metadata.delivered_at = "now"
        return mine


def test_a_look_asks_only_about_nodes_with_an_undelivered_message() -> None:
    state, out, stop = _StoreState(), queue.Queue(), threading.Event()
    nodes = dict.fromkeys(range(1, 11))
    assert _dispatch._waiting(state, nodes) == []
    for mid, node in (("a", 7), ("b", 3), ("c", 7)):
        state.store_message_ins((mid, node))
    assert _dispatch._waiting(state, nodes) == [3, 7]  # in the nodes' order
    assert _dispatch._waiting(_State(), nodes) == list(nodes)  # another state: every node
    # as the engine runs it: each look hands on one message per node that has one
    worker = threading.Thread(target=_dispatch._dispatch, args=(state, out, nodes, stop))
    worker.start()
    try:
        first, second = out.get(timeout=10), out.get(timeout=10)
        assert [m.metadata.dst_node_id for m in first] == [3, 7]
        assert [m.metadata.dst_node_id for m in second] == [7]
        assert state.asked == [3, 7, 7]  # never about the eight nodes with nothing waiting
        state.store_message_ins(("d", 10))  # a later message wakes the idle dispatcher
        assert [m.metadata.dst_node_id for m in out.get(timeout=10)] == [10]
        assert state.asked == [3, 7, 7, 10]
    finally:
        stop.set()
        worker.join(timeout=10)
    assert not worker.is_alive()


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
        assert out.get(timeout=10) == [(2, "m1")]
        # two for one node: handed one per look, the second without an idle wait either
        with _dispatch.pushing(state):
            state.store_message_ins((1, "m2"))
            state.store_message_ins((1, "m3"))
        assert [out.get(timeout=10), out.get(timeout=10)] == [[(1, "m2")], [(1, "m3")]]
    finally:
        stop.set()
        state.store_message_ins((9, "wake"))  # ends the wait; the loop sees the stop
        worker.join(timeout=10)
    assert not worker.is_alive()


def test_one_look_is_split_into_a_batch_per_worker() -> None:
    state, out, stop = _State(), queue.Queue(), threading.Event()
    out.__dict__["_veil_workers"] = 2  # as two engine workers register on their queue
    bell = _dispatch.doorbell(state, "store_message_ins")
    with _dispatch.pushing(state):
        for node in (1, 2, 3, 4, 5):
            state.store_message_ins((node, f"m{node}"))
        assert not bell.is_set()  # held until the whole exchange is stored
    assert bell.is_set()
    nodes = dict.fromkeys(range(1, 6))
    worker = threading.Thread(target=_dispatch._dispatch, args=(state, out, nodes, stop))
    worker.start()
    try:
        batches = [out.get(timeout=10), out.get(timeout=10)]
        assert sorted(len(b) for b in batches) == [2, 3]
        assert sorted(m for b in batches for m in b) == [(n, f"m{n}") for n in nodes]
        # a later push is handed on by the pushing thread itself, before its block returns
        while not state.__dict__.get("_veil_hand_on"):
            time.sleep(0.01)  # the dispatcher registers its look when it starts
        with _dispatch.pushing(state):
            for node in (3, 4):
                state.store_message_ins((node, f"n{node}"))
        assert out.qsize() == 2
        assert sorted([*out.get_nowait(), *out.get_nowait()]) == [(3, "n3"), (4, "n4")]
    finally:
        stop.set()
        state.store_message_ins((9, "wake"))
        worker.join(timeout=10)


def test_prompt_dispatch_swaps_flowers_dispatcher_and_workers_only_within_the_block() -> None:
    from flwr.server.superlink.fleet.vce import vce_api

    originals = (vce_api.add_messages_to_queue, vce_api.worker)
    with _dispatch.prompt_dispatch():
        assert vce_api.add_messages_to_queue is _dispatch._dispatch
        assert vce_api.worker is _dispatch._work
    assert (vce_api.add_messages_to_queue, vce_api.worker) == originals


def _app(message: Any, context: Any) -> Any:
    """A client app that consumes its message's config, as Flower's SecAgg+ mod does."""
    from flwr.app import ConfigRecord, Message, RecordDict

    stage = message.content.config_records["cfg"].pop("stage")
    if stage == "boom":
        raise ValueError("the app failed")
    seen = int(context.state.config_records.get("seen", {"n": 0})["n"]) + 1
    context.state.config_records["seen"] = ConfigRecord({"n": seen})
    return Message(RecordDict({"out": ConfigRecord({"stage": stage})}), reply_to=message)


def _app_fn() -> Any:
    return _app


_UNPICKLED: list[int] = []


class _CountingAppFn:
    """An app function that counts how often it is unpickled."""

    def __call__(self) -> Any:
        return _app

    def __getstate__(self) -> dict[str, int]:
        return {"n": 1}

    def __setstate__(self, state: dict[str, int]) -> None:
        _UNPICKLED.append(state["n"])


def test_the_app_function_is_pickled_once_per_run_and_unpickled_once_per_worker() -> None:
    import pickle

    backend = type("B", (), {"app_fn": _CountingAppFn()})()
    ref = _dispatch._app_ref(backend)
    assert _dispatch._app_ref(backend) is ref  # pickled on the first batch only
    _dispatch._APPS.clear()
    _UNPICKLED.clear()
    for _ in range(3):  # three calls to one worker, as Ray pickles their arguments
        sent = pickle.loads(pickle.dumps(_dispatch._BatchAppFn(backend.app_fn, *ref)))
        assert sent().app is _app
    assert _UNPICKLED == [1]
    # the next run's app replaces the kept one
    other = type("B", (), {"app_fn": _CountingAppFn()})()
    ref2 = _dispatch._app_ref(other)
    assert ref2[0] != ref[0]
    assert pickle.loads(pickle.dumps(_dispatch._BatchAppFn(other.app_fn, *ref2)))().app is _app
    assert list(_dispatch._APPS) == [ref2[0]] and _UNPICKLED == [1, 1]
    with pytest.raises(TypeError, match="_app_ref"):
        pickle.dumps(_dispatch._BatchAppFn(backend.app_fn))


class _Actor:
    """Flower's Ray actor, its arguments and results pickled as Ray would."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.run = self

    def remote(self, app_fn: Any, message: Any, cid: str, context: Any) -> Any:
        import pickle

        from flwr.simulation.ray_transport.ray_actor import VirtualClientEngineActor

        self.pool.calls += 1
        if self.pool.fail:
            return RuntimeError("the actor died")
        args = pickle.loads(pickle.dumps((app_fn, message, cid, context)))
        return pickle.loads(pickle.dumps(VirtualClientEngineActor.run(None, *args)))  # type: ignore[arg-type]


class _Pool:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail
        self.idle = 1

    def submit(self, actor_fn: Any, job: Any) -> Any:
        self.idle -= 1
        return actor_fn(_Actor(self), *job)

    def fetch_result_and_return_actor_to_pool(self, future: Any) -> Any:
        if isinstance(future, Exception):
            raise future
        self.idle += 1
        return future[1], future[2]

    def add_actor_back_to_pool(self, future: Any) -> None:
        self.idle += 1


class _Replies:
    """The reply side of the engine's state."""

    def __init__(self) -> None:
        self.stored: list[Any] = []

    def store_message_res(self, message: Any) -> None:
        self.stored.append(message)


class _Store:
    def __init__(self, context: Any) -> None:
        self.context = context
        self.updates = 0

    def retrieve_context(self, run_id: int) -> Any:
        return self.context

    def update_context(self, run_id: int, context: Any) -> None:
        self.context = context
        self.updates += 1


def _batch_run(
    monkeypatch: pytest.MonkeyPatch, pool: _Pool, stages: list[str], state: Any = None
) -> Any:
    from flwr.app import ConfigRecord, Context, Message, RecordDict
    from flwr.supercore.task_identity import TaskIdentity

    for attr in ("_run_id", "_node_id", "_task_id"):  # set by Flower in its processes
        monkeypatch.setattr(TaskIdentity, attr, 1)
    stores = {
        nd: _Store(Context(1, nd, {"partition-id": nd}, RecordDict(), {}))
        for nd in range(1, len(stages) + 1)
    }
    batch = []
    shared = RecordDict({"cfg": ConfigRecord({"stage": "setup"})})  # one object, as Flower's
    for nd, stage in enumerate(stages, start=1):
        content = (
            shared if stage == "setup" else RecordDict({"cfg": ConfigRecord({"stage": stage})})
        )
        batch.append(Message(content=content, dst_node_id=nd, message_type="train"))
    backend = type("B", (), {"pool": pool, "app_fn": staticmethod(_app_fn)})()
    in_q: queue.Queue[Any] = queue.Queue()
    out_q: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    metrics = type("M", (), {"add_clientapp_runtime": lambda self, t: None})()
    if state is not None:
        in_q.__dict__["_veil_state"] = state  # as the dispatcher registers it
    in_q.put(batch)
    worker = threading.Thread(
        target=_dispatch._work, args=(in_q, out_q, stores, backend, stop, metrics)
    )
    worker.start()
    try:
        if state is None:
            replies = [out_q.get(timeout=10) for _ in batch]
        else:
            while len(state.stored) < len(batch):
                time.sleep(0.01)
            replies = state.stored
            assert out_q.empty()  # stored by the worker itself, not left to the injector
    finally:
        stop.set()
        in_q.put([])  # wakes the worker, which sees the stop
        worker.join(timeout=10)
    assert not worker.is_alive()
    return replies, stores


def test_a_worker_runs_a_batch_in_one_call_each_message_on_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = _Pool()
    state = _Replies()
    replies, stores = _batch_run(monkeypatch, pool, ["setup", "setup", "setup", "boom"], state)
    assert pool.calls == 1 and pool.idle == 1
    by_node = {r.metadata.src_node_id: r for r in replies}
    # every client read its stage, though the three messages shared one content object
    for nd in (1, 2, 3):
        assert not by_node[nd].has_error()
        assert by_node[nd].content.config_records["out"]["stage"] == "setup"
        assert stores[nd].updates == 1
        assert stores[nd].context.state.config_records["seen"]["n"] == 1
    # the app's exception is that client's error reply, filed as Flower files it, and its
    # context is not stored
    from flwr.common.constant import ErrorCode

    assert by_node[4].has_error()
    assert by_node[4].error.code == ErrorCode.CLIENT_APP_RAISED_EXCEPTION
    assert "ClientAppException" in by_node[4].error.reason
    assert stores[4].updates == 0
    assert len({r.metadata.message_id for r in replies}) == 4  # each reply has its own id


def test_a_failed_call_is_an_error_reply_for_every_message_of_the_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from flwr.common.constant import ErrorCode

    pool = _Pool(fail=True)
    replies, stores = _batch_run(monkeypatch, pool, ["a", "b"])
    assert pool.calls == 1 and pool.idle == 1  # the actor went back to the pool
    assert all(r.has_error() and r.error.code == ErrorCode.UNKNOWN for r in replies)
    assert all(s.updates == 0 for s in stores.values())


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


def test_flower_still_has_the_internals_veil_relies_on() -> None:
    """veil replaces Flower's client masked-vector stage and reads the in-memory link
    state's message store by name; a Flower release (veil allows any 1.x from 1.42) that
    renamed either would leave veil on Flower's slower path without a word, so this fails
    instead. Read in Flower's own source: the name the SecAgg+ mod calls, and the attribute
    the link state sets."""
    import importlib
    import inspect

    pytest.importorskip("flwr")
    from flwr.server.superlink.linkstate.in_memory_linkstate import InMemoryLinkState

    from veil.federated._secagg_crypto import _CLIENT_MOD

    mod = importlib.import_module(_CLIENT_MOD)
    assert "_collect_masked_vectors(" in inspect.getsource(mod)
    assert "self.message_ins_store" in inspect.getsource(InMemoryLinkState.__init__)
