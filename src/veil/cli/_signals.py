"""Ctrl-C and SIGTERM stop any command within a second, even inside a long C call.

The CLI's Python handlers (:func:`veil.cli._app._on_termination`) turn SIGINT, SIGTERM and
SIGHUP into exceptions, so ``finally:`` blocks run and temporary outputs are removed. Python
runs those handlers only between bytecodes of the main thread, though, and a long C call that
holds the GIL (a solver, a large pandas or numpy step on object data) delays them until it
returns: no thread of the process can run Python meanwhile.

:class:`Watchdog` closes that gap from outside the GIL:

1. Python's C-level handler writes each signal's number to a *wakeup fd* at once, whatever
   the main thread is doing; the handlers are also marked ``SA_RESETHAND`` (Linux), so the
   first delivery puts the signal's default action back in place;
2. a small helper process (forked when the command starts, before any work) reads that pipe.
   When a signal arrives it gives the command :data:`GRACE` seconds to unwind on its own (the
   usual case: the exception is raised, ``finally:`` blocks run, the command prints
   "interrupted" or "terminated" and returns 130 or 143) and ends its wait as soon as the
   command stops the watchdog;
3. if the command is still inside its call after the grace, the helper prints the same
   first line ("interrupted" or "terminated") and sends the signal again, whose default action now ends the process: the exit
   status is the signal's, which a shell reports as ``128 + signal`` (130 for Ctrl-C, 143 for
   SIGTERM, 129 for SIGHUP). Temporary files such a forced stop leaves behind are the next
   run's to remove.

The helper ignores the signals itself (Ctrl-C reaches the whole process group) and ends
when the command does (its control pipe reaches end of file) or is reparented. The watchdog
is started only for the ``veil`` process's own entry point (``main()`` without ``argv``): an
in-process caller keeps its process as it is.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time

__all__ = ["GRACE", "Watchdog"]

GRACE = 0.6
"""Seconds the command has to unwind on its own before the signal is delivered again."""

_WATCHED = tuple(
    int(getattr(signal, name)) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_SA_RESETHAND = 0x80000000


def _reset_on_delivery(signums: tuple[int, ...], on: bool = True) -> bool:
    """Add (or, ``on=False``, remove) ``SA_RESETHAND`` on the current handlers of ``signums``
    (Linux glibc/musl layout of ``struct sigaction``).

    Returns whether every handler now has the flag as asked; anything unexpected leaves the
    handlers as they were (the helper then ends the process with SIGKILL instead).
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    class _Action(ctypes.Structure):
        _fields_ = [
            ("handler", ctypes.c_void_p),
            ("mask", ctypes.c_ulong * (128 // ctypes.sizeof(ctypes.c_ulong))),
            ("flags", ctypes.c_int),
            ("restorer", ctypes.c_void_p),
        ]

    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's sigaction
        ok = True
        for sig in signums:
            cur = _Action()
            if libc.sigaction(sig, None, ctypes.byref(cur)) != 0:
                return False
            if cur.handler in (None, 0, 1):  # SIG_DFL or SIG_IGN: nothing to reset
                continue
            new = _Action()
            ctypes.memmove(ctypes.byref(new), ctypes.byref(cur), ctypes.sizeof(_Action))
            flags = cur.flags | _SA_RESETHAND if on else cur.flags & ~_SA_RESETHAND
            new.flags = ctypes.c_int(ctypes.c_uint(flags).value).value
            if libc.sigaction(sig, ctypes.byref(new), None) != 0:
                return False
            back = _Action()
            libc.sigaction(sig, None, ctypes.byref(back))
            if back.handler != cur.handler:  # a layout we misread: put it back
                libc.sigaction(sig, ctypes.byref(cur), None)
                return False
            ok = ok and bool(back.flags & _SA_RESETHAND) == on
        return ok
    except (OSError, AttributeError, TypeError):
        return False


def _helper(parent: int, sig_r: int, ctl_r: int, grace: float) -> None:  # pragma: no cover
    """The helper process's whole life (runs in the forked child; never returns)."""
    try:
        # hold no pipe a caller waits on but stderr (for the message)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        for sig in _WATCHED:
            signal.signal(sig, signal.SIG_IGN)
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(-1)
        while True:
            ready, _, _ = select.select([sig_r, ctl_r], [], [], 1.0)
            if os.getppid() != parent:
                break
            if ctl_r in ready:
                break  # "stop" or the command ended (end of file)
            if sig_r not in ready:
                continue
            hits = [b for b in os.read(sig_r, 64) if b in _WATCHED]
            if not hits:
                continue
            ready, _, _ = select.select([ctl_r], [], [], grace)
            if ready or os.getppid() != parent:
                break  # the command unwound on its own
            what = "interrupted" if hits[0] == signal.SIGINT else "terminated"
            with contextlib.suppress(OSError):
                os.write(
                    2,
                    f"error: {what}\nhint: stopped inside a long computation, before its "
                    "cleanup could run: this run's outputs may be missing or incomplete\n".encode(),
                )
            os.kill(parent, hits[0])
            deadline = time.monotonic() + 2.0
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.05)
            if os.getppid() == parent:  # the handler was not reset: end it anyway
                os.kill(parent, signal.SIGKILL)
            break
    finally:
        os._exit(0)


class Watchdog:
    """Delivers SIGINT/SIGTERM/SIGHUP again after ``grace`` seconds if the command is stuck.

    Start it in the main thread after the CLI's handlers are installed; :meth:`stop` ends
    the helper and restores the previous wakeup fd. See the module docstring.
    """

    def __init__(self, grace: float = GRACE) -> None:
        self.grace = grace
        self.pid: int | None = None
        self._fds: tuple[int, int, int, int] | None = None
        self._old_fd = -1

    def start(self) -> None:
        import threading

        if threading.current_thread() is not threading.main_thread() or not hasattr(os, "fork"):
            return
        sig_r, sig_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        os.set_blocking(sig_w, False)
        parent = os.getpid()
        try:
            self._old_fd = signal.set_wakeup_fd(sig_w, warn_on_full_buffer=False)
        except ValueError:  # pragma: no cover - not the main interpreter
            for fd in (sig_r, sig_w, ctl_r, ctl_w):
                os.close(fd)
            return
        _reset_on_delivery(_WATCHED)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the helper
            os.close(ctl_w)
            os.close(sig_w)
            _helper(parent, sig_r, ctl_r, self.grace)
        os.close(ctl_r)
        self.pid = pid
        self._fds = (sig_r, sig_w, ctl_r, ctl_w)

    def stop(self) -> None:
        if self._fds is None:
            return
        sig_r, sig_w, _, ctl_w = self._fds
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(self._old_fd)
        _reset_on_delivery(_WATCHED, on=False)  # the handlers as they were
        os.close(ctl_w)  # the helper reads end of file and leaves
        if self.pid is not None:
            # reap it if it is already gone; the command does not wait for it (it leaves on
            # its own, and a process that exits has its children reparented and reaped)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, os.WNOHANG)
        os.close(sig_r)
        os.close(sig_w)
        self._fds = None
        self.pid = None
