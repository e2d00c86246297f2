"""``veil fl simulate`` stops with a clear error when Ray's raylet dies mid-run (issue #26).

Before, Flower kept the run going on dead Ray actors (every client "dropped" every round)
or waited for replies without end: about 25 minutes when the raylet was killed for memory.
The test starts the command with far more rounds than it could run in the time allowed,
kills the raylet the command's Ray started (by its process id, found under /proc), and
expects exit 1 with the message, and nothing written, well within that time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from veil.data import adult_frame

BOUND = 300  # seconds the command may take to stop after the kill (a hang lasted ~1500)


def _children(root: int) -> dict[int, str]:
    """Process id -> command line of every descendant of ``root``."""
    parent: dict[int, int] = {}
    cmd: dict[int, str] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as fh:
                cmd[int(d)] = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        parent[int(d)] = ppid
    out = {}
    for pid in parent:
        q = pid
        while q in parent and q not in (root, 0, 1):
            q = parent[q]
        if q == root and pid != root:
            out[pid] = cmd[pid]
    return out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the raylet in /proc")
def test_a_dead_raylet_stops_the_run_with_a_clear_error(tmp_path: Path) -> None:
    data = tmp_path / "adult.csv"
    adult_frame().sample(600, random_state=0).to_csv(data, index=False)
    out = tmp_path / "report"
    args = ["fl", "simulate", str(data), "--target", "salary-class", "--model", "logistic"]
    args += ["--clients", "3", "--rounds", "100000", "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "veil", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        raylet = None
        deadline = time.monotonic() + 600
        while raylet is None and proc.poll() is None and time.monotonic() < deadline:
            kids = _children(proc.pid)
            actors = [p for p, c in kids.items() if "ClientAppActor" in c]
            raylets = [p for p, c in kids.items() if c.split(" ")[0].endswith("/raylet")]
            if actors and raylets:  # the clients' worker is up: rounds are running
                raylet = raylets[0]
            else:
                time.sleep(0.5)
        assert raylet is not None, "the command's raylet and worker never came up"
        os.kill(raylet, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=BOUND)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, stderr[-3000:]
    assert "Flower's simulation engine stopped in round" in stderr
    assert "memory" in stderr  # the hint
    assert not out.exists() or not any(out.iterdir())
