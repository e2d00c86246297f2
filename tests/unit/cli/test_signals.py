"""Ctrl-C and SIGTERM stop a command within a second or two, even inside a long C call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[3] / "src")

# These tests fork the test process itself (Popen with preexec_fn, the watchdog's helper),
# where other tests may have imported JAX (mbi's synthesizers): JAX warns at every fork of a
# process that loaded it. The ``veil`` process forks its helper before any command imports.
pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")

# ``veil`` whose command is one long C call that never looks at signals: the builtin sum of
# a range (the Pitman solver's scipy call and large numpy steps behave the same way)
STUCK_IN_C = """
import sys
from veil.cli import _app
def stuck(args):
    print("started", flush=True)
    return sum(range(10**14))
_app._main = stuck
sys.argv = ["veil"]
sys.exit(_app.main())  # the process's own entry point, as ``veil`` runs it
"""


def _start(code: str, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # a job started in the background inherits an ignored SIGINT, which Python keeps
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"started"
    time.sleep(0.2)  # well inside the sum now
    return proc


def _stop(proc: subprocess.Popen[bytes], sig: int) -> tuple[float, str]:
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the process did not stop within 20 s of the signal")
    return time.monotonic() - t0, err.decode()


@pytest.mark.parametrize(
    ("signame", "code", "word"),
    [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")],
)
def test_a_signal_stops_a_command_inside_a_long_c_call(signame, code, word) -> None:
    sig = getattr(signal, signame)
    proc = _start(STUCK_IN_C)
    seconds, err = _stop(proc, sig)
    # ended by the signal's default action: a shell reports 128 + signal (Popen: -signal)
    assert proc.returncode in (code, -sig), err
    assert seconds < 2.0, f"stopped after {seconds:.2f} s"
    assert f"error: {word}" in err
    assert "Traceback" not in err


def test_a_real_command_stops_within_a_second(tmp_path) -> None:
    """``veil redact`` on a large file, stopped by SIGTERM while it works."""
    src = tmp_path / "big.csv"
    row = '"Call Jo Roe on (617) 555-0199 or mail jo@example.com about the visit."\n'
    src.write_text("notes\n" + row * 200_000, encoding="utf-8")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd = [sys.executable, "-m", "veil", "-q", "redact", str(src), "--column", "notes"]
    proc = subprocess.Popen(
        [*cmd, "--no-ner", "--out", str(out_dir / "r.csv")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any(out_dir.iterdir()):  # the run is writing its output
        assert proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    seconds, err = _stop(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert seconds < 2.0, f"stopped after {seconds:.2f} s"


def test_in_process_calls_start_no_helper(cli) -> None:
    """``main(argv)`` from a program (or a test) forks nothing and leaves the wakeup fd."""
    before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before)
    result = cli("--version")
    assert result.code == 0
    assert signal.set_wakeup_fd(before) == before


def test_watchdog_starts_and_stops_its_helper() -> None:
    from veil.cli._signals import Watchdog

    before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before)
    dog = Watchdog()
    dog.start()
    try:
        assert dog.pid is not None
        os.kill(dog.pid, 0)  # alive
    finally:
        pid = dog.pid
        dog.stop()
    assert dog.pid is None
    deadline = time.monotonic() + 10
    while True:  # the helper leaves on its own once stopped
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break  # already reaped by stop()
        if done == pid:
            break
        assert time.monotonic() < deadline, "the helper did not leave"
        time.sleep(0.02)
    assert signal.set_wakeup_fd(before) == before


def test_stop_puts_the_handlers_flags_back() -> None:
    """The watchdog marks the handlers SA_RESETHAND while it runs, and only then."""
    import ctypes

    from veil.cli import _signals

    class Action(ctypes.Structure):
        _fields_ = [
            ("handler", ctypes.c_void_p),
            ("mask", ctypes.c_ulong * (128 // ctypes.sizeof(ctypes.c_ulong))),
            ("flags", ctypes.c_int),
            ("restorer", ctypes.c_void_p),
        ]

    if not sys.platform.startswith("linux"):
        pytest.skip("the flag is set on Linux only")
    libc = ctypes.CDLL(None)

    def flags() -> int:
        act = Action()
        libc.sigaction(signal.SIGINT, None, ctypes.byref(act))
        return act.flags & 0x80000000

    # Python's own handler, whatever the process started with: a shell that starts a job
    # in the background without job control starts it with SIGINT ignored
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert flags() == 0
        dog = _signals.Watchdog()
        dog.start()
        try:
            assert flags() != 0
        finally:
            dog.stop()
        assert flags() == 0
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
