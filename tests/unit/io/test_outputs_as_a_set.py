"""A run's files change as one set; temporary files never outlive a run; write errors say
where and why (exit 1)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from veil import OutputError, run_policy
from veil.io import _atomic
from veil.io._atomic import atomic_dir, atomic_path, sweep_stale
from veil.policy import parse_policy

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

CANARY = "CANARY-7e21c9"
REAL_REPLACE = os.replace


def veil_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    from veil.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def dead_pid() -> str:
    """The mark of a process of this host that has exited (what a killed veil run leaves)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return f"{proc.pid}-{_atomic._host()}"


def write_policy(tmp_path: Path, **output: object) -> Path:
    pd.DataFrame({"age": [30, 41, 52], "city": ["Lyon", "Paris", CANARY]}).to_csv(
        tmp_path / "in.csv", index=False
    )
    doc = {
        "data": {"path": "in.csv"},
        "columns": {"age": {"role": "insensitive"}, "city": {"role": "insensitive"}},
        "output": {"path": "out", "format": "csv", **output},
    }
    path = tmp_path / "policy.yaml"
    path.write_text(json.dumps(doc))  # JSON is YAML
    return path


def load(tmp_path: Path, **output: object):  # type: ignore[no-untyped-def]
    return parse_policy(json.loads(write_policy(tmp_path, **output).read_text()), base_dir=tmp_path)


def old_release(out: Path) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"released.csv": "OLD table\n", "report.json": "OLD report\n", "report.html": "OLD\n"}
    for name, text in files.items():
        (out / name).write_text(text)
    return files


def contents(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in out.iterdir()}


@pytest.mark.parametrize("failing", ["report.json", "report.html", "released.csv"])
def test_a_failed_swap_leaves_every_old_file(tmp_path: Path, monkeypatch, failing: str) -> None:
    out = tmp_path / "out"
    old = old_release(out)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == out / failing and Path(src).parent.name.startswith(".veil-staging-"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        REAL_REPLACE(src, dst)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    with pytest.raises(OutputError) as info:
        run_policy(load(tmp_path))
    monkeypatch.undo()
    assert contents(out) == old  # all old: no new table beside an old report
    assert str(out / failing) in str(info.value) and "No space left on device" in str(info.value)
    assert info.value.exit_code == 1


def test_a_successful_run_replaces_the_whole_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old_release(out)
    run_policy(load(tmp_path))
    now = contents(out)
    assert set(now) == {"released.csv", "report.json", "report.html"}  # nothing hidden left
    assert not any(text.startswith("OLD") for text in now.values())


def test_a_run_stopped_while_writing_leaves_old_files_and_no_temporary(
    tmp_path: Path, monkeypatch
) -> None:
    # SIGTERM and Ctrl-C reach the write step as exceptions in the main thread
    out = tmp_path / "out"
    old = old_release(out)
    import veil.report

    def stopped(report: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(veil.report, "render_html", stopped)
    with pytest.raises(KeyboardInterrupt):
        run_policy(load(tmp_path))
    assert contents(out) == old


def test_the_next_run_sweeps_what_a_killed_run_left(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    pid = dead_pid()
    partial = out / f".veil-tmp-{pid}-abc123.released.csv.tmp"
    partial.write_text("ssn\n078-05-1120\n")  # a partial copy, identifiers in clear
    staging = out / f".veil-staging-{pid}-x1y2"
    staging.mkdir()
    (staging / "released.csv").write_text("ssn\n078-05-1120\n")
    mine = [out / ".veil-notes", out / ".released.csv.abc.tmp", out / f".veil-tmp-{pid}x"]
    for path in mine:  # not veil's marked names: never touched
        path.write_text("user's")
    live = out / f".veil-tmp-{os.getppid()}-{_atomic._host()}-zz.released.csv.tmp"  # running
    live.write_text("in use")
    run_policy(load(tmp_path))
    assert not partial.exists() and not staging.exists()
    assert all(p.read_text() == "user's" for p in mine) and live.exists()
    for path in out.rglob("*"):
        if path.is_file():
            assert "078-05-1120" not in path.read_text()


def test_a_swap_cut_short_by_a_kill_is_rolled_back(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    token = f"{dead_pid()}-k9"
    backup, staging = out / f".veil-backup-{token}", out / f".veil-staging-{token}"
    backup.mkdir()
    staging.mkdir()
    names = ["released.csv", "report.json", "extra.json"]
    (backup / ".veil-manifest.json").write_text(json.dumps(names))
    (backup / "released.csv").write_text("OLD table")  # moved out, new one moved in
    (out / "released.csv").write_text("NEW table")
    (backup / "report.json").write_text("OLD report")  # moved out, new one not yet in
    (staging / "report.json").write_text("NEW report")
    (out / "extra.json").write_text("NEW, no old one")  # moved in, had no old version
    removed = sweep_stale(out)
    assert sorted(removed) == sorted([backup.name, staging.name])
    assert contents(out) == {"released.csv": "OLD table", "report.json": "OLD report"}


def test_a_finished_swap_is_not_rolled_back(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    token = f"{dead_pid()}-k9"
    backup = out / f".veil-backup-{token}"
    backup.mkdir()
    (backup / "released.csv").write_text("OLD")  # manifest gone: the commit had happened
    (out / "released.csv").write_text("NEW")
    sweep_stale(out)
    assert contents(out) == {"released.csv": "NEW"}


def test_atomic_path_removes_its_temporary_file_on_error(tmp_path: Path) -> None:
    target = tmp_path / "x.csv"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text(CANARY)
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_atomic_dir_removes_its_staging_on_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), atomic_dir(tmp_path) as stage:
        (stage / "a.csv").write_text(CANARY)
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_names_the_path_and_the_reason(tmp_path: Path, capsys, monkeypatch) -> None:
    policy = write_policy(tmp_path)
    out = tmp_path / "out"
    old = old_release(out)
    real_write = Path.write_text

    def full(self: Path, *args: object, **kwargs: object) -> int:
        if self.name == "report.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full)
    code, text = veil_cli(capsys, "run", policy)
    monkeypatch.undo()
    assert code == 1, text
    assert "No space left on device" in text and str(out / "report.json") in text
    assert "internal error" not in text and "report it" not in text
    assert contents(out) == old


def test_an_unwritable_folder_names_the_path_and_the_reason(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    policy = write_policy(tmp_path)

    def refused(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "out"))

    monkeypatch.setattr(_atomic.tempfile, "mkdtemp", refused)
    code, text = veil_cli(capsys, "run", policy)
    monkeypatch.undo()
    assert code == 1, text
    assert "Permission denied" in text and str(tmp_path / "out") in text
    assert "internal error" not in text


def _read_only(folder: Path) -> tuple[list[str], list[str], str]:
    """Commands that make ``folder`` unwritable and back, and the OS reason a write then gets.

    Root writes through a mode of 0o555, so as root the folder is made immutable instead
    (``chattr +i``, ext4 and most Linux file systems), which refuses root too.
    """
    if os.geteuid() != 0:
        return ["chmod", "0555", str(folder)], ["chmod", "0755", str(folder)], "Permission denied"
    return ["chattr", "+i", str(folder)], ["chattr", "-i", str(folder)], os.strerror(errno.EPERM)


@pytest.mark.skipif(os.name != "posix", reason="[hardware] POSIX permissions")
def test_a_read_only_folder_names_the_path_and_the_reason(tmp_path: Path, capsys) -> None:
    policy = write_policy(tmp_path)
    out = tmp_path / "out"
    old = old_release(out)
    lock, unlock, reason = _read_only(out)
    subprocess.run(lock, check=True)
    try:
        code, text = veil_cli(capsys, "run", policy)
    finally:
        subprocess.run(unlock, check=True)
    assert code == 1 and reason in text and str(out) in text
    assert "internal error" not in text
    assert contents(out) == old


@pytest.mark.parametrize(
    ("output", "extra", "clash"),
    [
        ({"name": "synthetic"}, {"synth": {"method": "copula"}}, "synthetic.csv"),
        ({"name": "report", "format": "jsonl"}, {}, None),  # report.jsonl: no clash
        ({"name": "dp_statistics", "format": "jsonl"}, {}, None),
    ],
)
def test_output_names_cannot_collide(tmp_path: Path, capsys, output, extra, clash) -> None:
    policy = write_policy(tmp_path, **output)
    doc = json.loads(policy.read_text())
    doc.update(extra)
    text = json.dumps(doc, indent=1)
    policy.write_text(text)
    code, said = veil_cli(capsys, "policy", "check", policy)
    if clash is None:
        assert code == 0, said
        return
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if '"name"' in t)
    assert code == 2 and f"{policy}:{line}:" in said and clash in said
    assert "output.name" in said


def test_redaction_sweeps_stale_partial_copies_and_leaves_none_on_error(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"notes": "SSN 536-22-1234, mail jo@example.com"}) + "\n")
    out = tmp_path / "out.jsonl"
    stale = tmp_path / f".veil-tmp-{dead_pid()}-q1.out.jsonl.tmp"
    stale.write_text(json.dumps({"notes": "SSN 536-22-1234"}) + "\n")  # a killed redaction's
    args = ["redact", src, "--column", "notes", "--no-ner", "--out", out]
    code, text = veil_cli(capsys, *args)
    assert code == 0, text
    assert not stale.exists()
    assert "536-22-1234" not in out.read_text()
    before = out.read_text()

    from veil.text.redaction import _files

    def full(self: object, batch: object, new: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_files._Writer, "write", full)
    code, text = veil_cli(capsys, *args)
    assert code == 1, text
    assert "No space left on device" in text and str(out) in text
    assert "internal error" not in text
    assert out.read_text() == before  # the old output, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


KILLED_WHILE_STAGING = """
import os, sys
from pathlib import Path
from veil.io import atomic_dir
with atomic_dir(Path(sys.argv[1])) as stage:
    (stage / "released.csv").write_text("ssn\\n078-05-1120\\n")
    os.kill(os.getpid(), 9)
"""

KILLED_WHILE_SWAPPING = """
import os, sys
from pathlib import Path
from veil.io import _atomic
real, moved = os.replace, []
def replace(src, dst):
    real(src, dst)
    if ".veil-staging-" in str(src):
        moved.append(dst)
        if len(moved) == 2:
            os.kill(os.getpid(), 9)
_atomic.os.replace = replace
with _atomic.atomic_dir(Path(sys.argv[1])) as stage:
    for name in ("released.csv", "report.json", "report.html"):
        (stage / name).write_text("NEW " + name)
"""


@pytest.mark.parametrize("script", [KILLED_WHILE_STAGING, KILLED_WHILE_SWAPPING])
def test_after_a_sigkill_the_next_run_finds_the_old_set_and_no_temporary(
    tmp_path: Path, script: str
) -> None:
    out = tmp_path / "out"
    old = old_release(out)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", script, str(out)], env=env, check=False)
    assert proc.returncode == -9
    assert any(p.name.startswith(".veil-") for p in out.iterdir())  # what the kill left
    if script is KILLED_WHILE_SWAPPING:  # a mixed set: two new files, the third still out
        assert (out / "released.csv").read_text() == "NEW released.csv"
        assert not (out / "report.json").exists()
    sweep_stale(out)  # what every veil write does first
    assert contents(out) == old


def test_a_run_sweeps_at_start_up_even_when_it_fails_later(tmp_path: Path) -> None:
    from veil import SchemaError

    out = tmp_path / "out"
    out.mkdir()
    stale = out / f".veil-staging-{dead_pid()}-s0"
    stale.mkdir()
    (stale / "released.csv").write_text("ssn\n078-05-1120\n")
    policy = load(tmp_path)
    with pytest.raises(SchemaError):  # the data lacks a listed column: fails before writing
        run_policy(policy, data=pd.DataFrame({"age": [1]}))
    assert list(out.iterdir()) == []


def test_names_from_another_host_are_left_a_day(tmp_path: Path) -> None:
    # another container's process ids are not ours to test: only age tells it is stale
    fresh = tmp_path / ".veil-tmp-1-0f0f0f-a.x.csv.tmp"
    old = tmp_path / ".veil-tmp-1-0f0f0f-b.x.csv.tmp"
    for path in (fresh, old):
        path.write_text("ssn\n078-05-1120\n")
    if _atomic._host() == "0f0f0f":  # pragma: no cover - one host in 16 million
        pytest.skip("this host's digest is the one the test uses for another host")
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(old, (two_days_ago, two_days_ago))
    assert sweep_stale(tmp_path) == [old.name]
    assert fresh.exists()


def test_when_putting_the_old_files_back_fails_too_the_message_says_so(
    tmp_path: Path, monkeypatch
) -> None:
    out = tmp_path / "out"
    old = old_release(out)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == out / "report.json" or Path(src).parent.name.startswith(".veil-backup"):
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        REAL_REPLACE(src, dst)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    with pytest.raises(OutputError, match="putting the old files back failed too") as info:
        run_policy(load(tmp_path))
    monkeypatch.undo()
    assert ".veil-backup-" in str(info.value)  # where the old files are: said, not hidden
    # once the folder works again, the next run's sweep (here: this process has "exited")
    monkeypatch.setattr(_atomic, "_alive", lambda pid: False)
    sweep_stale(out)
    assert contents(out) == old
