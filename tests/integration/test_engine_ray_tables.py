"""``veil run --engine ray``: a table policy over partitions gives the local engine's release.

Ray is started once for the module (2 CPUs); the CLI, run in-process, uses that runtime.
The local engine runs the same policy on the concatenated file with the stages the Ray
engine runs (transforms, anonymize and risk: the Ray engine measures risk and utility on
aggregates of its input and release), and the two releases, optima and report figures
(utility included) are compared whole, timings aside.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.pipeline import run_policy
from veil.policy import load_policy
from veil.report import schema

ray = pytest.importorskip("ray", reason="the ray extra is part of the test environment")

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

QIS = list(ADULT_QUASI_IDENTIFIERS)
ROWS = 6000


@pytest.fixture(scope="module", autouse=True)
def runtime() -> Iterator[None]:
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")  # as ray_session does
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return adult_frame().iloc[:ROWS].reset_index(drop=True)


def _policy(
    root: Path, data: str, *, privacy: str, fmt: str = "csv", extra: str = "", more: str = ""
) -> Path:
    cols = "\n".join(
        f"  {q}: {{role: quasi_identifier, hierarchy: {{type: file, path: {adult_hierarchy_path(q)}}}}}"
        for q in QIS
    )
    path = root / f"policy-{abs(hash((data, privacy, fmt, extra, more)))}.yaml"
    path.write_text(
        f"""version: 1
data: {{path: "{data}"}}
columns:
{cols}
  occupation: {{role: sensitive}}
{more}privacy:
{privacy}
output: {{path: out-{path.stem}, format: {fmt}}}
{extra}""",
        encoding="utf-8",
    )
    return path


def _write_parts(frame: pd.DataFrame, folder: Path, cuts: list[int], fmt: str) -> None:
    folder.mkdir(parents=True)
    bounds = [0, *cuts, len(frame)]
    for i in range(len(bounds) - 1):
        chunk = frame.iloc[bounds[i] : bounds[i + 1]]
        # every other partition in a folder of its own: part-000.csv < part-001/data.csv
        target = folder / f"part-{i:03d}.{fmt}"
        if i % 2:
            (folder / f"part-{i:03d}").mkdir()
            target = folder / f"part-{i:03d}" / f"data.{fmt}"
        if fmt == "csv":
            chunk.to_csv(target, index=False)
        else:
            chunk.to_parquet(target, index=False)
    (folder / "_SUCCESS").write_text("", encoding="utf-8")


def _stripped(report: dict[str, Any]) -> dict[str, Any]:
    """The report's figures: no timings, dates, paths, or the engine's own section."""
    r = json.loads(json.dumps(report))
    for key in ("created", "timings", "outputs", "engine"):
        r.pop(key, None)
    r["policy"].pop("data")
    r["policy"].pop("engine")
    r["policy"].pop("output")
    for key in ("seconds", "total_seconds"):
        r["anonymize"]["search"].pop(key)
    r["leak_scan"].pop("seconds")
    # the k sweep stops after a time budget: compare the points both runs reached
    return r


def _same_sweep(a: dict[str, Any], b: dict[str, Any]) -> None:
    sa, sb = a["anonymize"].pop("k_sweep"), b["anonymize"].pop("k_sweep")
    done = [p for p in sa if "skipped" not in p]
    other = [p for p in sb if "skipped" not in p]
    n = min(len(done), len(other))
    assert n >= 1
    assert done[:n] == other[:n]


def _sorted_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.astype(str).sort_values(list(df.columns)).reset_index(drop=True)


def _compare(local_policy: Path, ray_report: dict[str, Any], ray_out: Path, fmt: str) -> None:
    local = run_policy(load_policy(local_policy), only=("transforms", "anonymize", "risk"))
    table = local.outputs["table"]
    read = pd.read_csv if fmt == "csv" else pd.read_parquet
    a, b = read(table), read(ray_out / table.name)
    # the same rows, in the same order even (partitions are taken in path order)
    pd.testing.assert_frame_equal(a.astype(str), b.astype(str))
    pd.testing.assert_frame_equal(_sorted_rows(a), _sorted_rows(b))
    la, lb = _stripped(local.report), _stripped(ray_report)
    _same_sweep(la, lb)
    assert ray_report["engine"]["not_run"] == []
    # the risk and utility sections from the Ray engine's aggregates: the local ones,
    # figure for figure (floats equal to the last bit: see tests/property/test_utility_weights)
    assert la["risk"]["requirements"] and la["risk"]["risk"]["records"] > 0
    assert la["risk"] == lb["risk"]
    assert {"mean_total_variation", "information_loss_entropy"} <= set(la["summary"])
    assert la["utility"]["ml"]["models"] and la["utility"]["information_loss"]
    print("ml", {k: v["released"] for k, v in la["utility"]["ml"]["models"].items()})
    assert la["utility"] == lb["utility"]
    assert la == lb


@pytest.mark.parametrize(
    ("fmt", "privacy"),
    [
        ("csv", "  k_anonymity: {k: 5}\n  l_diversity: {l: 2}\n  suppression_limit: 0.05"),
        (
            "parquet",
            "  k_anonymity: {k: 10}\n  l_diversity: {l: 3, variant: entropy}\n"
            "  t_closeness: {t: 0.3}\n  suppression_limit: 0.02",
        ),
    ],
)
def test_release_optimum_and_report_match_local(
    cli, adult: pd.DataFrame, tmp_path: Path, fmt: str, privacy: str, monkeypatch
) -> None:
    # besides Adult: a code with leading zeros, masked (a field transform, and text a CSV
    # reader turns into numbers); a serial released as it is (near-unique: a warning); the
    # age again (it gives a generalized age back: a warning); a reference, keyed-hashed with
    # a key set after Ray started (its workers lack it: the driver's transformer travels)
    monkeypatch.setenv("VEIL_HMAC_KEY", secrets.token_hex(32))
    adult = adult.assign(
        ref=[f"R{i % 997}" for i in range(len(adult))],
        code=[f"{i * 7 % 10000:05d}" for i in range(len(adult))],
        serial=range(len(adult)),
        age_again=adult["age"],
    )
    more = (
        "  code: {role: insensitive, transform: {type: mask, keep_last: 2}}\n"
        "  serial: {role: insensitive}\n  age_again: {role: insensitive}\n"
        "  ref: {role: insensitive, transform: {type: hash}}\n"
    )
    adult.to_csv(tmp_path / "all.csv", index=False)
    if fmt == "parquet":
        adult.to_parquet(tmp_path / "all.parquet", index=False)
    _write_parts(adult, tmp_path / "parts", [1500, 2600, 4900], fmt)
    local_policy = _policy(tmp_path, f"all.{fmt}", privacy=privacy, fmt=fmt, more=more)
    ray_policy = _policy(tmp_path, "parts", privacy=privacy, fmt=fmt, more=more)
    res = cli("run", ray_policy, "--engine", "ray", "--json")
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert out["engine"] == "ray"
    assert "not run on the Ray engine" not in res.err
    ray_out = tmp_path / f"out-{ray_policy.stem}"
    report = json.loads((ray_out / "report.json").read_text(encoding="utf-8"))
    assert report["engine"]["partitions"] == 4 and report["engine"]["not_run"] == []
    assert report["summary"]["input_rows"] == ROWS
    assert report["anonymize"]["transformation"] is not None
    assert report["transforms"]["columns"]["code"]["rows"] == ROWS
    codes = {w["code"] for w in report["warnings"]}
    assert {"near_unique_column", "recomputable_quasi_identifier"} <= codes
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(schema()).validate(report)
    _compare(local_policy, report, ray_out, fmt)
    assert sorted(p.name for p in ray_out.iterdir()) == sorted(
        ["key_check.json", "report.html", "report.json", f"released.{fmt}"]
    )


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cuts=st.lists(st.integers(1, 1999), min_size=1, max_size=4, unique=True).map(sorted))
def test_any_partitioning_gives_the_same_release(
    cli, adult: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory, cuts: list[int]
) -> None:
    root = tmp_path_factory.mktemp("cuts")
    frame = adult.iloc[:2000]
    frame.to_csv(root / "all.csv", index=False)
    _write_parts(frame, root / "parts", cuts, "csv")
    privacy = "  k_anonymity: {k: 4}\n  l_diversity: {l: 2}\n  suppression_limit: 0.1"
    ray_policy = _policy(root, "parts", privacy=privacy)
    res = cli("run", ray_policy, "--engine", "ray", "--json")
    assert res.code == 0, res.err
    ray_out = root / f"out-{ray_policy.stem}"
    report = json.loads((ray_out / "report.json").read_text(encoding="utf-8"))
    _compare(_policy(root, "all.csv", privacy=privacy), report, ray_out, "csv")


def test_risk_section_from_aggregates_with_a_transformed_sensitive_column(
    cli, adult: pd.DataFrame, tmp_path: Path
) -> None:
    """The risk stage on Ray: a masked sensitive column (released values differ from the
    input's, which the t reference reads), a numeric one with missing values and leading
    zeros (as written in the CSV), recursive l and the ordered distance: the local figures."""
    frame = adult.iloc[:1500].assign(
        hours=[None if i % 11 == 0 else f"{(i * 7) % 5 * 10:02d}" for i in range(1500)]
    )
    frame.to_csv(tmp_path / "all.csv", index=False)
    _write_parts(frame, tmp_path / "parts", [400, 900], "csv")
    more = "  hours: {role: sensitive}\n"
    privacy = (
        "  k_anonymity: {k: 3}\n"
        "  l_diversity: {l: 2, variant: recursive, c: 6, column: occupation}\n"
        "  t_closeness: {t: 0.6, distance: ordered, column: hours}\n"
        "  suppression_limit: 0.1"
    )
    pols = []
    for data in ("parts", "all.csv"):
        p = _policy(tmp_path, data, privacy=privacy, more=more)
        text = p.read_text(encoding="utf-8").replace(
            "occupation: {role: sensitive}",
            "occupation: {role: sensitive, transform: {type: mask, keep_last: 3}}",
        )
        p.write_text(text, encoding="utf-8")
        pols.append(p)
    res = cli("run", pols[0], "--engine", "ray", "--json")
    assert res.code == 0, res.err
    ray_out = tmp_path / f"out-{pols[0].stem}"
    report = json.loads((ray_out / "report.json").read_text(encoding="utf-8"))
    risk = report["risk"]
    models = {(r["model"], r.get("column")) for r in risk["requirements"]}
    assert ("recursive (c,l)-diversity", "occupation") in models
    assert ("t-closeness (ordered distance)", "hours") in models
    assert [s["column"] for s in risk["sensitive"]] == ["occupation", "hours"]
    _compare(pols[1], report, ray_out, "csv")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PRIVACY = "  k_anonymity: {k: 3}"


def test_policy_engine_section_and_cli_override(cli, adult: pd.DataFrame, tmp_path: Path) -> None:
    _write_parts(adult.iloc[:300], tmp_path / "parts", [100], "csv")
    address = f"127.0.0.1:{_free_port()}"
    pol = _policy(
        tmp_path, "parts", privacy=PRIVACY, extra=f"engine: {{type: ray, address: '{address}'}}\n"
    )
    out = tmp_path / f"out-{pol.stem}"
    res = cli("run", pol)  # the policy's engine: ray at an address where nothing listens
    assert res.code == 2 and f"cannot reach the Ray cluster at {address}" in res.err
    assert not out.exists()
    res = cli("run", pol, "--engine", "ray", "--ray-address", "not-an-address")
    assert res.code == 2 and "not HOST:PORT" in res.err
    assert not out.exists()
    res = cli("run", pol, "--engine", "local", "--ray-address", address)
    assert res.code == 2 and "--ray-address needs the Ray engine" in res.err
    res = cli("run", pol, "--engine", "local")  # the command line wins over the policy
    assert res.code == 2 and "is a folder or a pattern: the local engine reads one" in res.err
    # --engine ray without --ray-address on the command line keeps the policy's address
    res = cli("run", pol, "--engine", "ray")
    assert res.code == 2 and f"cannot reach the Ray cluster at {address}" in res.err
    assert not out.exists()


def test_partition_with_another_schema_writes_nothing(
    cli, adult: pd.DataFrame, tmp_path: Path
) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    adult.iloc[:200].to_csv(parts / "p0.csv", index=False)
    adult.iloc[200:400].rename(columns={"occupation": "job"}).to_csv(parts / "p1.csv", index=False)
    pol = _policy(tmp_path, "parts", privacy=PRIVACY)
    res = cli("run", pol, "--engine", "ray")
    assert res.code == 2
    assert "p1.csv: the policy lists 1 column(s) not in the data: occupation" in res.err
    assert not (tmp_path / f"out-{pol.stem}").exists()
    # same policy columns, another column besides: the partitions differ
    adult.iloc[200:400].assign(extra="x").to_csv(parts / "p1.csv", index=False)
    pol2 = _policy(tmp_path, "parts", privacy=PRIVACY, extra="unlisted_columns: keep\n")
    res = cli("run", pol2, "--engine", "ray")
    assert res.code == 2
    assert "p1.csv has other columns than p0.csv" in res.err
    assert not (tmp_path / f"out-{pol2.stem}").exists()


def test_unreadable_partition_names_it_and_writes_nothing(
    cli, adult: pd.DataFrame, tmp_path: Path
) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    adult.iloc[:200].to_csv(parts / "a.csv", index=False)
    good = adult.iloc[200:230].to_csv(index=False).encode("utf-8")
    (parts / "b.csv").write_bytes(good + b"Male,39,Jo Bl\xf6ggs,x,y,z,w,v,u\n")  # latin-1
    pol = _policy(tmp_path, "parts", privacy=PRIVACY)
    res = cli("run", pol, "--engine", "ray")
    assert res.code == 2
    assert "b.csv" in res.err and "not valid utf-8" in res.err
    assert "ggs" not in res.err + res.out
    assert not (tmp_path / f"out-{pol.stem}").exists()


def test_folder_without_readable_files(cli, tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "_SUCCESS").write_text("", encoding="utf-8")
    (tmp_path / "parts" / "notes.txt").write_text("Male,39,White\n", encoding="utf-8")
    pol = _policy(tmp_path, "parts", privacy=PRIVACY)
    res = cli("run", pol, "--engine", "ray")
    assert res.code == 2
    assert f"no readable data files in folder {tmp_path / 'parts'}" in res.err
    assert "White" not in res.err
    assert not (tmp_path / f"out-{pol.stem}").exists()


def test_unreachable_ray_address_names_it_and_writes_nothing(
    cli, adult: pd.DataFrame, tmp_path: Path
) -> None:
    (tmp_path / "parts").mkdir()
    adult.iloc[:200].to_csv(tmp_path / "parts" / "p0.csv", index=False)
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    pol = _policy(tmp_path, "parts", privacy=PRIVACY)
    res = cli("run", pol, "--engine", "ray", "--ray-address", address)
    assert res.code == 2
    assert f"cannot reach the Ray cluster at {address}" in res.err
    assert "--ray-address" in res.err or "ray start --head" in res.err
    assert not (tmp_path / f"out-{pol.stem}").exists()
    # the policy's engine.address, as the flag
    pol2 = _policy(
        tmp_path, "parts", privacy=PRIVACY, extra=f"engine: {{type: ray, address: '{address}'}}\n"
    )
    res = cli("run", pol2)
    assert res.code == 2 and f"cannot reach the Ray cluster at {address}" in res.err
    assert not (tmp_path / f"out-{pol2.stem}").exists()


def test_what_ray_does_not_run_is_refused_before_it_starts(cli, tmp_path: Path) -> None:
    pol = _policy(tmp_path, "parts", privacy=PRIVACY, extra="search: {algorithm: mondrian}\n")
    res = cli("run", pol, "--engine", "ray")
    assert res.code == 2
    assert "the Ray engine does not run search: mondrian yet" in res.err
    assert "--engine local" in res.err


def test_veil_starts_and_stops_its_own_runtime(adult: pd.DataFrame, tmp_path: Path) -> None:
    """The policy's engine: {type: ray, num_cpus: 1} in a fresh process: veil starts a local
    runtime of one CPU, releases, and shuts it down (the process ends, exit 0)."""
    import subprocess
    import sys

    frame = adult.iloc[:600]
    frame.to_csv(tmp_path / "all.csv", index=False)
    _write_parts(frame, tmp_path / "parts", [250], "csv")
    pol = _policy(tmp_path, "parts", privacy=PRIVACY, extra="engine: {type: ray, num_cpus: 1}\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "veil", "-q", "run", str(pol), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / f"out-{pol.stem}"
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["engine"]["num_cpus"] == 1 and report["engine"]["address"] is None
    _compare(_policy(tmp_path, "all.csv", privacy=PRIVACY), report, out, "csv")


def _descendants(root: int) -> list[tuple[int, str]]:
    """(pid, command line) of every live process below ``root`` (this test's own only)."""
    parent: dict[int, int] = {}
    cmd: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rpartition(")")[2].split()
            if stat[0] == "Z":
                continue
            parent[int(entry.name)] = int(stat[1])
            cmd[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    found = []
    for pid in parent:
        up = pid
        while up in parent and up != root:
            up = parent[up]
        if up == root and pid != root:
            found.append((pid, cmd[pid]))
    return found


def test_worker_killed_in_a_partition_task_retries_to_the_same_release(
    adult: pd.DataFrame, tmp_path: Path
) -> None:
    """The tables path with a worker lost mid-run: veil's own local runtime (a fresh
    process), each partition task sleeping first (the test hook), and the worker running
    one of them killed. Ray runs the task again: exit 0, the local engine's release and
    report, nothing else in the output folder."""
    import signal
    import subprocess
    import sys
    import time

    from veil.engine._table_parts import PAUSE_ENV

    frame = adult.iloc[:900]
    frame.to_csv(tmp_path / "all.csv", index=False)
    _write_parts(frame, tmp_path / "parts", [300, 600], "csv")
    pol = _policy(tmp_path, "parts", privacy=PRIVACY, extra="engine: {type: ray, num_cpus: 2}\n")
    # each task sleeps 6 s first: at 3 s a loaded CI machine once finished the run before
    # this test's scan of /proc had seen a task's process
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"), PAUSE_ENV: "6"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "veil", "-q", "run", str(pol), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 180
        tasks: list[int] = []
        while not tasks:
            assert proc.poll() is None, "the run ended before a partition task was seen"
            assert time.monotonic() < deadline, "no partition task started"
            time.sleep(0.05)
            tasks = [
                pid
                for pid, cmd in _descendants(proc.pid)
                if cmd.startswith(("ray::prepare_part", "ray::release_part"))
            ]
        time.sleep(0.5)  # inside the task's pause
        assert proc.poll() is None, "the run ended before the worker was killed"
        os.kill(tasks[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()  # its pipes closed however the test ended (no ResourceWarning later)
    assert proc.returncode == 0, err[-2000:]
    out = tmp_path / f"out-{pol.stem}"
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    _compare(_policy(tmp_path, "all.csv", privacy=PRIVACY), report, out, "csv")
    assert sorted(p.name for p in out.iterdir()) == ["released.csv", "report.html", "report.json"]


DP_QUERIES = [
    "count()",
    "count(hours)",
    'histogram(sex, categories=["Male", "Female"], epsilon=0.5)',
    "histogram(age, bins=[17, 30, 45, 60, 90], mechanism=gaussian, delta=1e-7)",
    'count(by=race, categories=["White", "Black", "Other"])',
    "sum(age, bounds=[20, 60], epsilon=0.5)",
    'sum(age, bounds=[0, 90], by=sex, categories=["Male", "Female"])',
    "sum(age, bounds=[0, 90], id_column=pid, max_contributions=2)",
    "count(id_column=pid, max_contributions=1)",
]


def test_dp_query_on_ray_matches_local_and_spends_once_per_query(
    cli, adult: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``veil dp query --engine ray`` on CSV partitions: the exact aggregate each answer's
    noise is drawn on equals the local engine's on the whole table (a person's rows cross
    partition boundaries, so the contribution bound is checked across partitions), the
    fingerprint is the local one (the same ledger dataset accepts both), and the ledger
    gets one entry per query."""
    import veil.dp._plans as plans
    from veil.dp import BudgetLedger, parse_query
    from veil.dp._mechanisms import _opendp

    frame = adult[["age", "sex", "race"]].copy()
    # three rows a person; one id that is not a number makes the last partition's ids
    # text and the others' numbers (person 1333 spans both): one person all the same
    frame["pid"] = [str(i // 3) for i in range(len(frame))]
    frame.loc[len(frame) - 1, "pid"] = "x-last"
    frame["hours"] = frame["age"].where(frame.index % 7 > 0)  # count(hours) < count()
    whole = tmp_path / "all.csv"
    frame.to_csv(whole, index=False)
    _write_parts(frame, tmp_path / "parts", [1000, 2501, 4000], "csv")  # cuts inside persons
    ledger = f"sqlite:///{tmp_path / 'ledger.db'}"
    with BudgetLedger(ledger) as led:
        led.init("adult", epsilon=100, delta=1e-5)
    args = ["--dataset", "adult", "--ledger", ledger, "--json", "--epsilon", "1"]
    queries = [a for q in DP_QUERIES for a in ("--query", q)]
    local = cli("dp", "query", whole, *queries, *args)
    assert local.code == 0, local.err
    seen: list[Any] = []
    original = plans._plan

    def recording(dp: Any, df: Any, spec: Any, *, exact: Any = None) -> Any:
        seen.append(exact)
        return original(dp, df, spec, exact=exact)

    monkeypatch.setattr(plans, "_plan", recording)  # the driver's plans (tasks: unpatched)
    res = cli("dp", "query", tmp_path / "parts", *queries, *args, "--engine", "ray")
    assert res.code == 0, res.err
    dp = _opendp()
    read = pd.read_csv(whole)
    expected = [original(dp, read, parse_query(q, epsilon=1)).partial() for q in DP_QUERIES]
    assert seen == expected
    assert expected[0] == len(frame) > expected[1]
    assert expected[8] == len(frame) // 3 + 1 and sum(expected[6]) > expected[7] > 0
    out = json.loads(res.out)
    assert [a["query"] for a in out["answers"]] == [
        a["query"] for a in json.loads(local.out)["answers"]
    ]
    with BudgetLedger(ledger) as led:
        history = led.history("adult")
    assert len(history) == 2 * len(DP_QUERIES)  # one entry per query, each run
    assert {a["spend_id"] for a in out["answers"]} == {s.id for s in history[len(DP_QUERIES) :]}


def test_dp_query_on_ray_refusals(cli, tmp_path: Path) -> None:
    """What Ray does not compute is refused before Ray starts; a float sum and another
    schema name the query or the file, and nothing is spent."""
    res = cli(
        "dp", "query", tmp_path, "-q", "median(age, bounds=[0, 90], epsilon=1)", "--engine", "ray"
    )
    assert res.code == 2 and "does not compute quantiles" in res.err
    (tmp_path / "p").mkdir()
    pd.DataFrame({"x": [1.5, 2.5]}).to_csv(tmp_path / "p" / "a.csv", index=False)
    pd.DataFrame({"x": [1.5], "z": [2]}).to_csv(tmp_path / "p" / "b.csv", index=False)
    ledger = f"sqlite:///{tmp_path / 'ledger.db'}"
    args = ("--engine", "ray", "--ledger", ledger, "--dataset", "d", "--no-fingerprint")
    from veil.dp import BudgetLedger

    with BudgetLedger(ledger) as led:
        led.init("d", epsilon=10)
    res = cli("dp", "query", tmp_path / "p", "-q", "count(x, epsilon=1)", *args)
    assert res.code == 2 and "b.csv has other columns than a.csv" in res.err
    (tmp_path / "p" / "b.csv").unlink()
    res = cli("dp", "query", tmp_path / "p", "-q", "sum(x, bounds=[0, 9], epsilon=1)", *args)
    assert res.code == 2 and "a sum of non-integer values" in res.err
    with BudgetLedger(ledger) as led:
        assert led.history("d") == []


def test_partitioned_release_one_file_per_input_partition(
    cli, adult: pd.DataFrame, tmp_path: Path
) -> None:
    """``output.partitioned``: the Ray engine releases each input partition to its own
    file (same relative path, the output format's suffix), whose rows are that partition's
    rows of the local engine's release; the local engine writes the same layout for its
    one input file."""
    frame = adult.iloc[:3000]
    frame.to_csv(tmp_path / "all.csv", index=False)
    _write_parts(frame, tmp_path / "parts", [1200, 2100], "csv")
    privacy = "  k_anonymity: {k: 4}\n  l_diversity: {l: 2}\n  suppression_limit: 0.1"

    def partitioned(data: str) -> Path:
        pol = _policy(tmp_path, data, privacy=privacy, fmt="parquet", extra="# partitioned\n")
        text = pol.read_text(encoding="utf-8").replace(
            "format: parquet}", "format: parquet, partitioned: true}"
        )
        pol.write_text(text, encoding="utf-8")
        return pol

    ray_policy = partitioned("parts")
    res = cli("run", ray_policy, "--engine", "ray", "--json")
    assert res.code == 0, res.err
    folder = tmp_path / f"out-{ray_policy.stem}" / "released"
    names = ["part-000.parquet", "part-001/data.parquet", "part-002.parquet"]
    assert (
        sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == names
    )
    parts = [pd.read_parquet(folder / n) for n in names]
    assert [len(p) for p in parts] == [1200, 900, 900]
    local_pol = partitioned("all.csv")
    local = run_policy(load_policy(local_pol), only=("transforms", "anonymize"))
    assert local.outputs["table"] == tmp_path / f"out-{local_pol.stem}" / "released"
    (whole,) = local.outputs["table"].iterdir()
    assert whole.name == "all.parquet"
    pd.testing.assert_frame_equal(
        pd.concat(parts, ignore_index=True).astype(str), pd.read_parquet(whole).astype(str)
    )
    # a later run with other partitions would leave old files beside the new: refused
    (folder / "part-009.parquet").write_bytes(b"")
    res = cli("run", ray_policy, "--engine", "ray")
    assert res.code == 2 and "holds 1 data file(s) this run would not write" in res.err
    (whole.parent / "other.parquet").write_bytes(b"")
    with pytest.raises(InputError, match="holds 1 data file"):
        run_policy(load_policy(local_pol), only=("transforms", "anonymize"))
    assert whole.read_bytes() != b"" and (whole.parent / "other.parquet").read_bytes() == b""
