"""Fail fast when the Ray runtime under Flower's simulation engine dies.

Flower's simulation engine runs each client message on a Ray actor. When Ray's raylet dies
(it is killed when the machine runs out of memory, and its memory monitor kills workers
above 95 % use) Flower does not stop: every later message fails on a dead actor and comes
back as an error reply, which a server loop reads as "this client dropped out", so rounds
"complete" with no client, SecAgg+ rounds abort as if the clients had vanished, and a run
of many rounds spends its time on nothing; if the daemon dies while a reply is awaited,
the server can wait for it without end (Flower's simulation grid waits for every reply when
no timeout is given).

:class:`GuardedGrid` sits between veil's server loop and Flower's grid, the seam veil owns:

- every reply that carries an error raised by Ray itself (a ``ray.exceptions`` class, not
  an exception of the client's code and not a simulated dropout) stops the run with
  :class:`RuntimeDiedError`;
- while it waits for replies it looks at the local Ray daemons (the raylet and the GCS
  server this process started) every ``check_every`` seconds, and stops the run with
  :class:`RuntimeDiedError` as soon as one has exited, Ray was shut down under it, or the
  engine has stopped (``stopped``: set by :func:`veil.federated.simulate_federated` when
  Flower's ``run_simulation`` raises, which it does when its runtime crashed, leaving the
  server's thread waiting for replies that can no longer come).

The server loop hands the error to :func:`veil.federated.simulate_federated`, which raises it
once Flower has shut its engine down: ``veil fl simulate`` exits 1 with the message and writes
nothing.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from veil._errors import VeilError
from veil.federated._dispatch import doorbell, pushing

__all__ = ["GuardedGrid", "RayProbe", "RuntimeDiedError", "dead_ray_daemon", "ray_failure"]

CHECK_EVERY = 1.0  # seconds between looks at the Ray daemons while replies are awaited
BACKOFF = 1.5  # each look for replies that finds none waits this much longer before the next
MAX_INTERVAL = 0.1  # ... up to this (Flower's own interval), or the grid's if longer
_RAY_CLASS = re.compile(r"<class 'ray\.exceptions\.([A-Za-z]+)(?:\(|')")
_UNKNOWN = 0  # flwr.common.constant.ErrorCode.UNKNOWN: what Flower files a Ray failure under

HINT = (
    "Ray stops its workers and daemons when the machine runs short of memory (above 95 % "
    "use): free memory, or lower --workers or --clients, and run again"
)


class RuntimeDiedError(VeilError, RuntimeError):
    """Flower's simulation engine or its Ray runtime died; the run stopped at ``round_number``."""

    exit_code = 1

    def __init__(self, what: str, *, round_number: int) -> None:
        super().__init__(
            f"Flower's simulation engine stopped in round {round_number}: {what}; the run was "
            "stopped and nothing of it was written",
            hint=HINT,
        )
        self.round_number = round_number


def ray_failure(reply: Any) -> str | None:
    """The Ray exception class an error reply reports, or ``None`` for any other reply.

    Flower's simulation files an exception that Ray raised while running a message under
    ``ErrorCode.UNKNOWN`` with the reason ``"<class 'ray.exceptions.NAME'>:<'...'>"``; an
    exception of the client's own code comes under ``CLIENT_APP_RAISED_EXCEPTION`` and a
    simulated dropout under ``NODE_UNAVAILABLE``. Only the class name is kept (the reason's
    text is Ray's and may quote anything).
    """
    if not reply.has_error():
        return None
    if int(reply.error.code) != _UNKNOWN:
        return None
    match = _RAY_CLASS.match(str(reply.error.reason or ""))
    return None if match is None else match.group(1)


def _ray_node() -> Any:
    try:
        from ray._private import worker
    except Exception:  # noqa: BLE001 - no Ray here, or its internals moved
        return None
    return getattr(worker, "_global_node", None)


def dead_ray_daemon(node: Any = None) -> str | None:
    """The name of a local Ray daemon (raylet, GCS server) that has exited, or ``None``.

    Looks at the processes ``ray.init`` started in this process (Ray's node object keeps
    their handles); ``None`` too when Ray is not running here or its internals moved (the
    error replies are then what stops the run).
    """
    node = node if node is not None else _ray_node()
    if node is None:
        return None
    try:
        for kind in ("raylet", "gcs_server"):
            for info in node.all_processes.get(kind, ()):
                if info.process.poll() is not None:
                    return str(kind)
    except Exception:  # noqa: BLE001 - a probe that cannot look finds nothing dead
        return None
    return None


class RayProbe:
    """What is wrong with this process's Ray runtime, or ``None`` while it runs.

    A dead raylet or GCS server, or Ray shut down after it was seen running (Flower shuts
    it down when its engine crashes).
    """

    def __init__(self) -> None:
        self._seen = False

    def __call__(self) -> str | None:
        node = _ray_node()
        if node is None:
            return "its Ray runtime was shut down" if self._seen else None
        self._seen = True
        dead = dead_ray_daemon(node)
        return None if dead is None else f"its Ray runtime died (the {dead} process exited)"


class GuardedGrid:
    """Flower's grid with the server loop's waits checked against a dead Ray runtime.

    ``round_of`` gives the round being run (for the message); ``probe`` says what is wrong
    with Ray (a :class:`RayProbe` unless a test passes another); ``stopped`` is set when the
    engine has stopped.
    """

    def __init__(
        self,
        grid: Any,
        round_of: Callable[[], int],
        probe: Callable[[], str | None] | None = None,
        stopped: threading.Event | None = None,
        check_every: float = CHECK_EVERY,
    ) -> None:
        self._grid = grid
        self._round_of = round_of
        self._probe = probe if probe is not None else RayProbe()
        self._stopped = stopped
        self._check_every = check_every

    def check(self) -> None:
        """Raise :class:`RuntimeDiedError` if Ray or the engine is gone."""
        what = self._probe()
        if what is None and self._stopped is not None and self._stopped.is_set():
            what = "the engine stopped while the server waited for the clients' replies"
        if what is not None:
            raise RuntimeDiedError(what, round_number=self._round_of())

    def _check_replies(self, replies: Iterable[Any]) -> None:
        for reply in replies:
            failure = ray_failure(reply)
            if failure is not None:
                raise RuntimeDiedError(
                    f"its Ray runtime failed a client's message ({failure})",
                    round_number=self._round_of(),
                )

    def send_and_receive(
        self, messages: Iterable[Any], *, timeout: float | None = None
    ) -> list[Any]:
        """Push ``messages`` and pull their replies as Flower's grid does, checking Ray."""
        self.check()
        # Flower's simulation grid keeps the replies in an in-memory state: wait for the
        # next one to be stored there rather than for a fixed interval
        state = getattr(self._grid, "state", None)
        bell = None
        if state is not None and callable(getattr(state, "store_message_res", None)):
            bell = doorbell(state, "store_message_res")
        if state is not None and callable(getattr(state, "store_message_ins", None)):
            # the engine's dispatcher wakes once this exchange's messages are all stored,
            # and hands them to its workers in one batch each
            with pushing(state):
                pending = set(self._grid.push_messages(messages))
        else:
            pending = set(self._grid.push_messages(messages))
        base = float(getattr(self._grid, "pull_interval", 0.1))
        interval = base
        end = None if timeout is None else time.monotonic() + timeout
        next_check = time.monotonic() + self._check_every
        replies: list[Any] = []
        while pending:
            if bell is not None:
                bell.clear()  # before the look: a reply stored during it rings again
            got = list(self._grid.pull_messages(pending))
            self._check_replies(got)
            replies += got
            pending -= {m.metadata.reply_to_message_id for m in got}
            if not pending:
                break
            # look again soon after a reply came in, less often the longer none comes (a
            # look costs CPU; on a busy machine an exchange can wait seconds)
            interval = base if got else min(interval * BACKOFF, max(base, MAX_INTERVAL))
            now = time.monotonic()
            if end is not None and now >= end:
                break
            if now >= next_check:
                self.check()
                next_check = now + self._check_every
            if bell is not None:
                # woken by the next stored reply; the interval only paces the checks
                bell.wait(min(max(base, MAX_INTERVAL), self._check_every))
            else:
                time.sleep(interval)
        return replies

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)
