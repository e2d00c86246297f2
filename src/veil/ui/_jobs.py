"""What every background job of ``veil ui`` shares: how its end is recorded.

A policy run (:mod:`veil.ui._runs`), a file redaction (:mod:`veil.ui._redact`), a federated
run (:mod:`veil.ui._fl`) and an erasure request (:mod:`veil.ui._erasure`) each go in a thread
and end ``done``, ``cancelled`` or ``failed``. :func:`finish` maps that end onto the job the
same way for all of them: a veil error is shown with its message and hint (they never hold a
data value), any other exception by its type only (its message may quote data), and the log
says which it was, never why in the data's words.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from veil._errors import VeilError

__all__ = ["EndedJob", "finish"]

log = logging.getLogger("veil.ui")


class EndedJob(Protocol):
    """The fields :func:`finish` sets."""

    state: str
    error: dict[str, Any] | None
    seconds: float | None


def finish(
    job: EndedJob,
    work: Callable[[], None],
    *,
    cancelled: type[BaseException] | tuple[type[BaseException], ...] = (),
    what: str,
    hint: str,
) -> None:
    """Run ``work`` (it fills the job's result) and record how it ended.

    ``cancelled`` is the exception the job's progress raises once cancel is asked (none
    for a job that cannot be cancelled);
    ``what`` names the job in messages ("run", "redaction"); ``hint`` is what the user does
    to see an unexpected error in full (the matching CLI command).
    """
    started = time.perf_counter()
    try:
        work()
    except cancelled:
        state = "cancelled"
        log.info("%s cancelled", what)
    except VeilError as exc:
        job.error = {"message": exc.message, "hint": exc.hint}
        state = "failed"
        log.info("%s failed: %s", what, type(exc).__name__)
    except Exception as exc:  # noqa: BLE001 - shown by its type; the message may quote data
        job.error = {
            "message": f"the {what} failed with an unexpected error ({type(exc).__name__})",
            "hint": hint,
        }
        state = "failed"
        log.error("%s failed: %s", what, type(exc).__name__)
    else:
        state = "done"
        log.info("%s done", what)
    # the state changes last: a client that sees it (a page, a test polling the API) then
    # finds the time taken and the log line already written
    job.seconds = round(time.perf_counter() - started, 3)
    job.state = state
