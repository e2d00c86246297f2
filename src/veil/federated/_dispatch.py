"""Wake-ups instead of fixed polling, and one Ray call per worker and exchange, in Flower's engine.

In a simulation, Flower's server grid and its engine meet in one in-memory ``LinkState``:
the grid stores each message there, the engine's dispatcher thread
(``vce_api.add_messages_to_queue``) looks for new messages every 0.1 s and queues them one
by one, and each of the engine's worker threads (``vce_api.worker``, one per Ray actor)
takes one message, sends it with the ``ClientApp`` and the client's ``Context`` to its
actor in one Ray call, and stores the reply in the state, where the server looks for it.
A message therefore waits up to 0.1 s (0.05 s on average) before a client starts on it,
and each message costs a Ray round trip (pickling the app, the message and the context
both ways, the actor's scheduling): in every exchange, once a round for plain aggregation,
four times for SecAgg+ (setup, key sharing, masked vectors, unmasking), whose exchanges
other than the training do little work per client. No setting of Flower's changes either.

:func:`doorbell` wraps one storing method of a state (on that instance only) so that each
call sets an event; :func:`pushing` holds that event back while a grid stores one
exchange's messages, so that the dispatcher wakes once they are all there.
:func:`prompt_dispatch` replaces, for the duration of one ``run_simulation``:

- the engine's dispatcher, by the same look over the nodes that waits on the state's
  ``store_message_ins`` doorbell (at most Flower's 0.1 s, so it still notices the engine
  stopping) and looks again at once after it handed messages on; it queues what one look
  found as one batch per worker (:func:`_dispatch`);
- the engine's workers, by workers that send a batch to their actor in one Ray call
  (:func:`_work`; the app function travels pickled once per run, and each actor
  unpickles it once, :class:`_BatchAppFn`): the actor runs Flower's ``ClientApp`` on each
  message of the batch with that client's context, one after the other, as it would have
  run them in separate calls; the workers store the replies in the state themselves (Flower's injector thread, a hop
  more, is left idle), and the thread that pushed an exchange hands its batches on itself
  (:func:`pushing`), so that neither waits for another thread to be scheduled.

veil's server waits on the ``store_message_res`` doorbell between its looks for replies
(:class:`veil.federated._runtime.GuardedGrid`). Messages, their contexts, the replies and
their error codes are the engine's own (an exception in a client's app is that client's
error reply, a Ray failure every message's of the batch, as Flower files them); only the
idle waits end as soon as there is something to do, and the round trips are shared.
"""

from __future__ import annotations

import contextlib
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from logging import ERROR
from queue import Empty
from typing import Any
from uuid import uuid4

__all__ = ["IDLE_WAIT", "doorbell", "prompt_dispatch", "pushing"]

IDLE_WAIT = 0.1  # the longest the dispatcher waits with nothing stored (Flower's interval)
_BELLS = "_veil_doorbells"
_HELD = "_veil_held"  # per method: how many pushing() blocks are open
_HAND_ON = "_veil_hand_on"  # per method: what to run when the last block closes
_STATE = "_veil_state"  # on the engine's message queue: the state its replies go to
_WORKERS = "_veil_workers"  # on the engine's message queue: how many workers take from it
_APP_REF = "_veil_app_ref"  # on the engine's backend: its app function's key and pickle
_APPS: dict[str, Any] = {}  # in a worker process: the app function of the run it serves
_LOCK = threading.Lock()


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
                if not state.__dict__.get(_HELD, {}).get(method):
                    event.set()

        setattr(state, method, ring)
        bells[method] = event
    return bells[method]  # type: ignore[no-any-return]


@contextlib.contextmanager
def pushing(state: Any, method: str = "store_message_ins") -> Iterator[None]:
    """Ring ``state.<method>``'s doorbell once, after this block, not after each call in it.

    The calls in the block store as they would; only the wake-up waits for the last of
    them. Where the engine's dispatcher has registered its look (:func:`_dispatch`), the
    thread that closes the last open block also hands the stored messages on itself, so
    that the workers need not wait for the dispatcher's thread to be scheduled.
    """
    bell = doorbell(state, method)
    with _LOCK:
        held = state.__dict__.setdefault(_HELD, {})
        held[method] = held.get(method, 0) + 1
    try:
        yield
    finally:
        with _LOCK:
            held[method] -= 1
            last = held[method] == 0
        hand_on = state.__dict__.get(_HAND_ON, {}).get(method)
        if last and hand_on is not None:
            hand_on()
        # the dispatcher's thread looks again (a node may have had more than one message)
        bell.set()


def _count_worker(queue: Any, step: int) -> None:
    with _LOCK:
        queue.__dict__[_WORKERS] = queue.__dict__.get(_WORKERS, 0) + step


def _waiting(state: Any, nodes: Any) -> list[Any]:
    """The nodes that may have a message to hand on: all of ``nodes``, or only those that
    Flower's in-memory state holds an undelivered message for.

    Flower's ``get_message_ins`` goes over every stored message (and checks its expiry and
    federation) for each node it is asked about; a look asks about every node, and most
    looks (the one after each push, those of an idle engine) find nothing. One pass over
    the stored messages picks the nodes worth asking; what they are handed is still
    ``get_message_ins``'s answer (a message stored during the pass rings the doorbell,
    and the next look sees it).
    """
    store = getattr(state, "message_ins_store", None)
    if not isinstance(store, dict):
        return list(nodes)
    waiting = set()
    for message in list(store.values()):  # a copy: the engine's threads store and deliver
        metadata = getattr(message, "metadata", None)
        if metadata is None:
            return list(nodes)
        if not metadata.delivered_at:
            waiting.add(metadata.dst_node_id)
    return [node for node in nodes if node in waiting]


def _dispatch(state: Any, queue: Any, nodes_mapping: Any, f_stop: threading.Event) -> None:
    """``vce_api.add_messages_to_queue``'s loop, woken by stored messages, queuing batches.

    What one look finds (at most one message per node, as Flower's) is split into as many
    batches as there are workers, round-robin. The look is also registered with the state,
    for :func:`pushing` to run at the end of a push, and the state with the queue, for the
    workers to store their replies in.
    """
    bell = doorbell(state, "store_message_ins")
    looking = threading.Lock()  # one look at a time: each splits what it found

    def look() -> int:
        with looking:
            found = []
            for node_id in _waiting(state, nodes_mapping):
                found += state.get_message_ins(node_id=node_id, limit=1)
            parts = max(1, min(queue.__dict__.get(_WORKERS, 1), len(found)))
            for k in range(parts if found else 0):
                queue.put(found[k::parts])
            return len(found)

    queue.__dict__[_STATE] = state
    hand_on = state.__dict__.setdefault(_HAND_ON, {})
    hand_on["store_message_ins"] = look
    try:
        while not f_stop.is_set():
            bell.clear()  # before the look: a message stored during it rings again
            if not look():
                bell.wait(IDLE_WAIT)
    finally:
        hand_on.pop("store_message_ins", None)


class _BatchApp:
    """Runs a ``ClientApp`` on each (message, context) pair of a batch, in a Ray actor.

    Flower's actor calls ``app(message=..., context=...)`` once per Ray call; here the
    "message" is the batch's (message, context) pairs, each pickled, and the "context" is
    unused. A message whose app raised gets the error reply Flower's worker would have
    made, and its context is left as it was (Flower does not store the context of a failed
    message either).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, message: list[bytes], context: Any) -> list[tuple[Any, Any]]:
        from flwr.clientapp.client_app import ClientAppException, LoadClientAppError
        from flwr.common.constant import ErrorCode

        out: list[tuple[Any, Any]] = []
        for item in message:
            # each pair was pickled on its own, as one Ray call per message would: messages
            # of one exchange share their content object, which the apps may change
            msg, ctx = pickle.loads(item)  # noqa: S301 - pickled by the engine's own worker
            try:
                out.append((self.app(message=msg, context=ctx), ctx))
            except LoadClientAppError as ex:
                out.append((_error(msg, ErrorCode.LOAD_CLIENT_APP_EXCEPTION, ex), None))
            except Exception as ex:  # noqa: BLE001 - reported as that client's error reply
                wrapped = ClientAppException(str(ex))
                out.append((_error(msg, ErrorCode.CLIENT_APP_RAISED_EXCEPTION, wrapped), None))
        return out


class _BatchAppFn:
    """What Flower's actor calls to get its app: the engine's ``ClientApp`` behind a batch.

    It travels as a key and the engine's app function pickled once per run
    (:func:`_app_ref`), and a worker process unpickles that function once and keeps it
    (:func:`_app_fn_of`): Ray would otherwise pickle the function (Flower's closure over
    the ``ClientApp``, by value) for every call, on the server's thread that sends the
    batch, twice an exchange, and each worker rebuild it. The app is the same object from
    one call to the next in a worker, as it is from one message to the next of a batch
    (Flower's ``ClientApp`` keeps no state between messages; the client's state is in its
    context, which travels with each message).
    """

    def __init__(self, app_fn: Callable[[], Any], key: str = "", payload: bytes = b"") -> None:
        self.app_fn = app_fn
        self.key = key
        self.payload = payload

    def __call__(self) -> _BatchApp:
        return _BatchApp(self.app_fn())

    def __reduce__(self) -> tuple[Any, tuple[str, bytes]]:
        if not self.payload:
            raise TypeError("a _BatchAppFn is pickled from the key and pickle of _app_ref")
        return _app_fn_of, (self.key, self.payload)


def _app_ref(backend: Any) -> tuple[str, bytes]:
    """A key for the backend's app function and its pickle, made on the first call."""
    with _LOCK:
        ref: tuple[str, bytes] | None = backend.__dict__.get(_APP_REF)
        if ref is None:
            dumps: Callable[..., bytes] = pickle.dumps
            with contextlib.suppress(ImportError):  # the engine's backend runs on Ray
                from ray import cloudpickle  # what Ray pickles arguments with

                dumps = cloudpickle.dumps
            ref = (uuid4().hex, dumps(backend.app_fn, protocol=pickle.HIGHEST_PROTOCOL))
            backend.__dict__[_APP_REF] = ref
    return ref


def _app_fn_of(key: str, payload: bytes) -> _BatchAppFn:
    """In a worker: the app function under ``key``, unpickled on its first use only."""
    app_fn = _APPS.get(key)
    if app_fn is None:
        app_fn = pickle.loads(payload)  # noqa: S301 - pickled by the engine's own server
        _APPS.clear()  # a worker serves one run; never keep an earlier run's app
        _APPS[key] = app_fn
    return _BatchAppFn(app_fn, key, payload)


def _error(msg: Any, code: int, ex: BaseException) -> Any:
    from flwr.app import Error, Message

    # the reason as Flower's worker writes it
    return Message(Error(code=code, reason=str(type(ex)) + ":<'" + str(ex) + "'>"), reply_to=msg)


def _code(ex: BaseException) -> int:
    """The error code Flower's worker files an exception of a Ray call under."""
    from flwr.clientapp.client_app import ClientAppException, LoadClientAppError
    from flwr.common.constant import ErrorCode

    if isinstance(ex, ClientAppException):
        return int(ErrorCode.CLIENT_APP_RAISED_EXCEPTION)
    if isinstance(ex, LoadClientAppError):
        return int(ErrorCode.LOAD_CLIENT_APP_EXCEPTION)
    return int(ErrorCode.UNKNOWN)


def _run_batch(backend: Any, batch: list[Any], contexts: list[Any]) -> list[tuple[Any, Any]]:
    """One Ray call to an idle actor of the backend's pool for the whole batch."""
    pairs = [
        pickle.dumps((m, c), protocol=pickle.HIGHEST_PROTOCOL)
        for m, c in zip(batch, contexts, strict=True)
    ]
    pool = backend.pool
    future = None
    try:
        future = pool.submit(
            lambda a, a_fn, msgs, cid, ctxs: a.run.remote(a_fn, msgs, cid, ctxs),
            (_BatchAppFn(backend.app_fn, *_app_ref(backend)), pairs, "batch", None),
        )
        replies: list[tuple[Any, Any]] = pool.fetch_result_and_return_actor_to_pool(future)[0]
    except Exception:
        if future is not None:
            pool.add_actor_back_to_pool(future)
        raise
    return replies


def _work(
    in_queue: Any,
    out_queue: Any,
    stores: Any,
    backend: Any,
    f_stop: threading.Event,
    metrics: Any,
) -> None:
    """``vce_api.worker``'s loop over batches: one Ray call per batch on a Ray backend."""
    from flwr.supercore import log

    batched = getattr(getattr(backend, "pool", None), "submit", None) is not None
    batched = batched and getattr(backend, "app_fn", None) is not None
    _count_worker(in_queue, 1)
    try:
        while not f_stop.is_set():
            try:
                batch = in_queue.get(timeout=1.0)
            except Empty:
                continue
            if not batch:
                continue
            started = time.perf_counter()
            results: list[tuple[Any, Any]] = []
            try:
                contexts = [
                    stores[m.metadata.dst_node_id].retrieve_context(run_id=m.metadata.run_id)
                    for m in batch
                ]
                if batched:
                    results = _run_batch(backend, batch, contexts)
                else:  # another backend: its own call, one message at a time
                    for m, c in zip(batch, contexts, strict=True):
                        try:
                            results.append(backend.process_message(m, c))
                        except Exception as ex:  # noqa: BLE001 - as Flower's worker
                            log(ERROR, ex)
                            results.append((_error(m, _code(ex), ex), None))
            except Exception as ex:  # noqa: BLE001 - as Flower's worker: error replies
                log(ERROR, ex)
                results = [(_error(m, _code(ex), ex), None) for m in batch]
            metrics.add_clientapp_runtime(time.perf_counter() - started)
            for msg, (_, context) in zip(batch, results, strict=True):
                if context is not None:
                    stores[msg.metadata.dst_node_id].update_context(
                        msg.metadata.run_id, context=context
                    )
            state = in_queue.__dict__.get(_STATE)
            if state is None:  # Flower's injector thread stores them
                for reply, _ in results:
                    reply.metadata.__dict__["_message_id"] = str(uuid4())
                    out_queue.put(reply)
                continue
            # stored here, as Flower's injector thread would, with one wake-up for the server
            with pushing(state, "store_message_res"):
                for reply, _ in results:
                    reply.metadata.__dict__["_message_id"] = str(uuid4())
                    state.store_message_res(reply)
    finally:
        _count_worker(in_queue, -1)


@contextlib.contextmanager
def prompt_dispatch() -> Iterator[None]:
    """Flower's simulation dispatcher and workers replaced (see the module), within this block.

    The engine looks both functions up when ``run_simulation`` starts them; where that
    module or those functions are not what this expects, Flower's own run (polling, one Ray
    call per message, as before).
    """
    try:
        from flwr.server.superlink.fleet.vce import vce_api
    except ImportError:
        yield
        return
    originals = (
        getattr(vce_api, "add_messages_to_queue", None),
        getattr(vce_api, "worker", None),
    )
    if None in originals:
        yield
        return
    swaps: dict[str, Any] = {"add_messages_to_queue": _dispatch, "worker": _work}
    for name, fn in swaps.items():
        setattr(vce_api, name, fn)
    try:
        yield
    finally:
        for name, fn in zip(swaps, originals, strict=True):
            setattr(vce_api, name, fn)
