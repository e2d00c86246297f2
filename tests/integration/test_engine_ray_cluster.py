"""``--engine ray --ray-address`` on a real two-node Ray cluster, started by the test itself.

Two ``ray start`` processes on this machine, each a node with 1 CPU of its own (the head
with ``--port`` on a free port and its own ``--temp-dir``; the second joining it with
``--address``), each in a process group of its own so that the teardown kills exactly
these processes (``ray stop`` would stop every Ray on the machine, other users' too).
veil runs as users run it: the ``veil`` command in a subprocess, connecting to the head's
address. Its output is compared byte for byte with the local engine's.

The nodes run with ``VEIL_TEST_RAY_BATCH_PAUSE`` set (each text actor sleeps before each
batch) and ``VEIL_TEST_RAY_PART_PAUSE`` (each table partition task sleeps first) so that a
run lasts long enough for a test to kill a worker while it runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from veil.cli import main
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.engine._table_parts import PAUSE_ENV as PART_PAUSE_ENV
from veil.engine._text import PAUSE_ENV
from veil.pipeline import run_policy
from veil.policy import load_policy
from veil.text.evaluation._corpus_business import generate_business_corpus

ray = pytest.importorskip("ray", reason="the ray extra is part of the test environment")

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]

BIN = Path(sys.executable).parent
PAUSE = 0.15  # seconds per batch, per actor
PART_PAUSE = 1.5  # seconds per table partition task
START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _group(pgid: int) -> list[tuple[int, str]]:
    """The processes of one process group: (pid, command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            if (entry / "stat").read_text().rpartition(")")[2].split()[0] == "Z":
                continue  # exited, waiting for its parent (or init) to reap it
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ProcessLookupError):
            continue
        found.append((int(entry.name), cmd))
    return found


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:  # killed already (a test took the node down): reap it
        proc.wait(15)
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(15)
    with contextlib.suppress(ProcessLookupError):  # what ignored SIGTERM (workers, the GCS)
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(15)


@dataclass
class Cluster:
    address: str
    head: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]
    env: dict[str, str]


def _ray_start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as err:
        return subprocess.Popen(
            [str(BIN / "ray"), "start", "--block", "--disable-usage-stats", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # a process group of its own: killed as one in teardown
        )


def _wait_for_nodes(address: str, env: dict[str, str], n: int, timeout: float) -> None:
    """Wait (one Python process, polling the cluster) until ``n`` nodes are alive."""
    probe = (
        "import ray, sys, time\n"
        f"ray.init(address={address!r}, log_to_driver=False, logging_level='ERROR')\n"
        f"end = time.monotonic() + {timeout}\n"
        f"while sum(x['Alive'] for x in ray.nodes()) < {n}:\n"
        "    if time.monotonic() > end: sys.exit(1)\n"
        "    time.sleep(0.2)\n"
    )
    res = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert res.returncode == 0, f"the cluster did not reach {n} nodes: {res.stderr[-2000:]}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("ray")
    # Ray's own temp dir path must stay short (its sockets live there: 107 bytes at most)
    temp = Path("/tmp") / f"veil-ray-{secrets.token_hex(4)}"
    port = _free_port()
    address = f"127.0.0.1:{port}"
    env = dict(
        os.environ,
        RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO="0",
        RAY_USAGE_STATS_ENABLED="0",
        **{PAUSE_ENV: str(PAUSE), PART_PAUSE_ENV: str(PART_PAUSE)},
    )
    common = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1"]
    head = _ray_start(
        [
            "--head",
            "--port",
            str(port),
            "--temp-dir",
            str(temp),
            "--include-dashboard=false",
            "--ray-client-server-port",
            str(_free_port()),
            "--dashboard-agent-listen-port",
            str(_free_port()),
            *common,
        ],
        env,
        root / "head.log",
    )
    worker = None
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None, (root / "head.log").read_text(errors="replace")
                assert time.monotonic() < deadline, "the head node did not start"
                time.sleep(0.2)
        worker = _ray_start(
            ["--address", address, "--dashboard-agent-listen-port", str(_free_port()), *common],
            env,
            root / "worker.log",
        )
        _wait_for_nodes(address, env, 2, deadline - time.monotonic())
        yield Cluster(address, head, worker, env)
    finally:
        if worker is not None:
            _kill_group(worker)
        _kill_group(head)
        groups = [head.pid] + ([worker.pid] if worker is not None else [])
        end = time.monotonic() + 10  # a SIGKILLed process takes a moment to be gone
        while (leftovers := [p for g in groups for p in _group(g)]) and time.monotonic() < end:
            for g in groups:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(g, signal.SIGKILL)
            time.sleep(0.2)
        # Ray's session logs can quote the data: not left behind in /tmp
        shutil.rmtree(temp, ignore_errors=True)
        assert not leftovers, f"Ray processes left running: {[p for p, _ in leftovers]}"


def _veil(
    cluster: Cluster, *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(BIN / "veil"), *(str(a) for a in args)],
        env=env or cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _done(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"veil did not finish in {timeout} s: {err[-2000:]}")
    return proc.returncode, out, err


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 business texts: one JSONL file, and the same records in four partitions."""
    root = tmp_path_factory.mktemp("notes")
    recs = [
        {"id": i, "full_text": r["full_text"]}
        for i, r in enumerate(generate_business_corpus(60, seed=5))
    ]
    (root / "all.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    (root / "parts").mkdir()
    for i in range(4):
        chunk = recs[i * 15 : (i + 1) * 15]
        (root / "parts" / f"part-{i}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in chunk), encoding="utf-8"
        )
    return root


@pytest.fixture(scope="module")
def key() -> str:
    return secrets.token_hex(32)


@pytest.fixture(scope="module")
def local_redacted(notes: Path, key: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "redacted.jsonl"
    before = os.environ.get("VEIL_HMAC_KEY")
    os.environ["VEIL_HMAC_KEY"] = key
    try:  # in-process: the local engine needs no Ray
        code = main(
            [
                "redact",
                str(notes / "all.jsonl"),
                "--out",
                str(out),
                "--no-ner",
                "--operator",
                "hash",
            ]
        )
    finally:
        if before is None:
            del os.environ["VEIL_HMAC_KEY"]
        else:
            os.environ["VEIL_HMAC_KEY"] = before
    assert code == 0
    return out


def _redact_on(cluster: Cluster, notes: Path, out: Path, key: str, *more: str):
    # the key is in the driver's environment only: the operator travels to the actors
    return _veil(
        cluster,
        "redact",
        notes / "parts",
        "--out",
        out,
        "--no-ner",
        "--operator",
        "hash",
        "--engine",
        "ray",
        "--ray-address",
        cluster.address,
        "--json",
        *more,
        env=dict(cluster.env, VEIL_HMAC_KEY=key),
    )


def test_redact_on_two_nodes_matches_local(
    cluster: Cluster, notes: Path, local_redacted: Path, key: str, tmp_path: Path
) -> None:
    out = tmp_path / "redacted.jsonl"
    # two actors of half a CPU each, batches of 5: 12 batches cross files and actors
    code, stdout, err = _done(
        _redact_on(cluster, notes, out, key, "--processes", "2", "--batch-size", "5")
    )
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["engine"] == "ray" and summary["files"] == 4 and summary["records"] == 60
    assert summary["replaced"]  # the corpus has identifiers: the comparison is not vacuous
    assert out.read_bytes() == local_redacted.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["redacted.jsonl"]


def _table_policy(root: Path, data: str) -> Path:
    cols = "\n".join(
        f"  {q}: {{role: quasi_identifier, hierarchy: {{type: file, path: "
        f"{adult_hierarchy_path(q)}}}}}"
        for q in ADULT_QUASI_IDENTIFIERS
    )
    path = root / f"policy-{data.replace('.', '-')}.yaml"
    path.write_text(
        f"""version: 1
data: {{path: "{data}"}}
columns:
{cols}
  occupation: {{role: sensitive}}
privacy:
  k_anonymity: {{k: 5}}
  l_diversity: {{l: 2}}
  suppression_limit: 0.05
output: {{path: out-{path.stem}, format: csv}}
""",
        encoding="utf-8",
    )
    return path


def _tables(tmp_path: Path) -> tuple[Path, Path]:
    """3,000 Adult rows: the local engine's run on one file, and the Ray policy (4 parts)."""
    adult = adult_frame().iloc[:3000].reset_index(drop=True)
    adult.to_csv(tmp_path / "all.csv", index=False)
    (tmp_path / "parts").mkdir()
    for i, lo in enumerate(range(0, 3000, 750)):
        adult.iloc[lo : lo + 750].to_csv(tmp_path / "parts" / f"p{i}.csv", index=False)
    local_policy = _table_policy(tmp_path, "all.csv")
    # the stages the Ray engine runs, in-process
    run_policy(load_policy(local_policy), only=("transforms", "anonymize", "risk"))
    return local_policy, _table_policy(tmp_path, "parts")


def _run_on(cluster: Cluster, policy: Path, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            str(BIN / "veil"),
            "run",
            str(policy),
            "--engine",
            "ray",
            "--ray-address",
            cluster.address,
            "--json",
        ],
        cwd=cwd,
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _same_as_local(tmp_path: Path, local_policy: Path, ray_policy: Path) -> None:
    a = pd.read_csv(tmp_path / f"out-{local_policy.stem}" / "released.csv", dtype=str)
    b = pd.read_csv(tmp_path / f"out-{ray_policy.stem}" / "released.csv", dtype=str)
    pd.testing.assert_frame_equal(a, b)
    ra = json.loads((tmp_path / f"out-{local_policy.stem}" / "report.json").read_text())
    rb = json.loads((tmp_path / f"out-{ray_policy.stem}" / "report.json").read_text())
    assert rb["engine"]["type"] == "ray" and rb["engine"]["partitions"] == 4
    assert rb["anonymize"]["transformation"] == ra["anonymize"]["transformation"] is not None
    # risk and utility measured on the partitions' aggregates: the local figures, to the bit
    assert {"mean_total_variation", "information_loss_entropy"} <= set(ra["summary"])
    assert rb["summary"] == ra["summary"]
    assert rb["risk"] == ra["risk"] and rb["engine"]["not_run"] == []
    assert rb["utility"] == ra["utility"] and ra["utility"]["ml"]["models"]


def test_run_table_policy_on_two_nodes_matches_local(cluster: Cluster, tmp_path: Path) -> None:
    local_policy, ray_policy = _tables(tmp_path)
    code, _, err = _done(_run_on(cluster, ray_policy, tmp_path))
    assert code == 0, err
    _same_as_local(tmp_path, local_policy, ray_policy)


def _table_tasks(cluster: Cluster) -> list[int]:
    """The pids of workers running a table partition task, on either node."""
    names = ("ray::prepare_part", "ray::release_part")
    return [
        pid
        for group in (cluster.head.pid, cluster.worker.pid)
        for pid, cmd in _group(group)
        if cmd.startswith(names)
    ]


def test_table_worker_killed_mid_run_retries_to_the_same_release(
    cluster: Cluster, tmp_path: Path
) -> None:
    """A worker killed inside a partition task (the tables path): Ray runs the task again,
    and the release and report are the local engine's, nothing doubled or lost."""
    local_policy, ray_policy = _tables(tmp_path)
    proc = _run_on(cluster, ray_policy, tmp_path)
    deadline = time.monotonic() + 90
    while not (pids := _table_tasks(cluster)):
        assert proc.poll() is None, "the run ended before a partition task was seen"
        assert time.monotonic() < deadline, "no partition task started"
        time.sleep(0.05)
    time.sleep(PART_PAUSE / 3)  # inside the task's pause: before its partition is read
    assert proc.poll() is None, "the run ended before the worker was killed"
    os.kill(pids[0], signal.SIGKILL)
    code, _, err = _done(proc)
    assert code == 0, err
    _same_as_local(tmp_path, local_policy, ray_policy)
    out = tmp_path / f"out-{ray_policy.stem}"
    assert sorted(p.name for p in out.iterdir()) == ["released.csv", "report.html", "report.json"]


def _actors(cluster: Cluster) -> list[int]:
    """The pids of the text actors on either node (Ray names them after the class)."""
    return [
        pid
        for group in (cluster.head.pid, cluster.worker.pid)
        for pid, cmd in _group(group)
        if cmd.startswith("ray::") and "_TextActor" in cmd
    ]


def test_worker_killed_mid_run_retries_to_the_same_output(
    cluster: Cluster, notes: Path, local_redacted: Path, key: str, tmp_path: Path
) -> None:
    out = tmp_path / "redacted.jsonl"
    # one actor, batches of 1: 60 batches of PAUSE seconds each, 9 s of work at least
    proc = _redact_on(cluster, notes, out, key, "--processes", "1", "--batch-size", "1")
    deadline = time.monotonic() + 90
    seen = set()
    while not (pids := _actors(cluster)):
        seen |= {c[:60] for g in (cluster.head.pid, cluster.worker.pid) for _, c in _group(g)}
        assert proc.poll() is None, f"the run ended before a text actor was seen: {seen}"
        assert time.monotonic() < deadline, "no text actor started"
        time.sleep(0.1)
    time.sleep(4 * PAUSE)  # inside its batches, well before the last of them
    assert proc.poll() is None, "the run ended before the worker was killed"
    os.kill(pids[0], signal.SIGKILL)
    code, stdout, err = _done(proc)
    # Ray Data restarts a lost actor and runs its batches again: the run succeeds, and
    # its output is the local engine's, no batch lost or doubled
    assert code == 0, err
    assert json.loads(stdout)["records"] == 60
    assert out.read_bytes() == local_redacted.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["redacted.jsonl"]
    assert pids[0] not in _actors(cluster)


def test_second_node_lost_mid_run_recovers_or_fails_cleanly(
    cluster: Cluster, notes: Path, local_redacted: Path, key: str, tmp_path: Path
) -> None:
    """The last test of the module: it takes the second node down for good.

    One actor: what is left (the head's 1 CPU) must still hold the pool and a read task.
    With two actors of half a CPU the head alone has no CPU left for reading once both
    actors are restarted there, and the run waits for resources that never come (seen).
    """
    out = tmp_path / "redacted.jsonl"
    proc = _redact_on(cluster, notes, out, key, "--processes", "1", "--batch-size", "1")
    deadline = time.monotonic() + 90
    while not _actors(cluster):
        assert proc.poll() is None, "the run ended before a text actor was seen"
        assert time.monotonic() < deadline, "no text actor started"
        time.sleep(0.1)
    time.sleep(4 * PAUSE)
    assert proc.poll() is None, "the run ended before the node was lost"
    lost = [pid for pid, cmd in _group(cluster.worker.pid) if "_TextActor" in cmd]
    os.killpg(cluster.worker.pid, signal.SIGKILL)  # the node: raylet, its workers, all
    cluster.worker.wait(15)
    code, stdout, err = _done(proc)
    on_node = "an actor on it" if lost else "no actor on it"
    print(f"second node lost ({on_node}): veil exited {code}")  # which way it went, for -s
    if code == 0:
        # Ray moved the lost work to the head node: the local engine's output, whole
        assert json.loads(stdout)["records"] == 60
        assert out.read_bytes() == local_redacted.read_bytes()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["redacted.jsonl"]
    else:
        # or it gave up: exit 1, the Ray error's type only, and nothing written at all
        assert code == 1, err
        assert "the Ray job failed" in err and "nothing was written" in err
        assert list(tmp_path.iterdir()) == []
