"""Wake-ups instead of fixed polling between veil's server loop and Flower's simulation engine.

In a simulation, Flower's server grid and its engine meet in one in-memory ``LinkState``:
the grid stores each message there, the engine's dispatcher thread
(``vce_api.add_messages_to_queue``) looks for new messages every 0.1 s and hands them to the
Ray workers, and the replies go back into the state, where the server looks for them. A
message therefore waits up to 0.1 s (0.05 s on average) before a client starts on it, in
every exchange: once a round for plain aggregation, four times for SecAgg+ (setup, key
sharing, masked vectors, unmasking). No setting of Flower's changes that interval.

:func:`doorbell` wraps one storing method of a state (on that instance only) so that each
call sets an event; :func:`prompt_dispatch` replaces the engine's dispatcher, for the
duration of one ``run_simulation``, by the same loop that waits on the state's
``store_message_ins`` doorbell (at most Flower's 0.1 s, so it still notices the engine
stopping) and looks again at once after it handed messages on; veil's server waits on the
``store_message_res`` doorbell between its looks for replies
(:class:`veil.federated._runtime.GuardedGrid`). Messages, their order and their delivery
are the engine's own; only the idle waits end as soon as there is something to do.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["IDLE_WAIT", "doorbell", "prompt_dispatch"]

IDLE_WAIT = 0.1  # the longest the dispatcher waits with nothing stored (Flower's interval)
_BELLS = "_veil_doorbells"


def doorbell(state: Any, method: str) -> threading.Event:
    """An event set after every call of ``state.<method>`` (wrapped once per instance)."""
    bells = state.__dict__.setdefault(_BELLS, {})
    if method not in bells:
        event = threading.Event()
        inner = getattr(state, method)

        def ring(*args: Any, **kwargs: Any) -> Any:
            try:
                return inner(*args, **kwargs)
            finally:
                event.set()

        setattr(state, method, ring)
        bells[method] = event
    return bells[method]  # type: ignore[no-any-return]


def _dispatch(state: Any, queue: Any, nodes_mapping: Any, f_stop: threading.Event) -> None:
    """``vce_api.add_messages_to_queue``'s loop, woken by each stored message."""
    bell = doorbell(state, "store_message_ins")
    while not f_stop.is_set():
        bell.clear()  # before the look: a message stored during it rings again
        handed = 0
        for node_id in nodes_mapping:
            for msg in state.get_message_ins(node_id=node_id, limit=1):
                queue.put(msg)
                handed += 1
        if not handed:
            bell.wait(IDLE_WAIT)


@contextlib.contextmanager
def prompt_dispatch() -> Iterator[None]:
    """Flower's simulation dispatcher woken by stored messages, within this block.

    The engine looks the function up when ``run_simulation`` starts it; where that module or
    function is not what this expects, Flower's own dispatcher runs (polling, as before).
    """
    try:
        from flwr.server.superlink.fleet.vce import vce_api
    except ImportError:
        yield
        return
    original = getattr(vce_api, "add_messages_to_queue", None)
    if original is None:
        yield
        return
    vce_api.add_messages_to_queue = _dispatch
    try:
        yield
    finally:
        vce_api.add_messages_to_queue = original
