"""``veil fl app`` on real Flower infrastructure: a SuperLink and three SuperNodes over TLS.

Everything runs as separate processes on localhost, as on real machines: the test makes a CA
and a server certificate (``cryptography``), writes the app with ``veil fl app``, starts
``flower-superlink`` with the certificate and three ``flower-supernode``s that trust the CA,
each reading its own slice of a small Adult table from its node config, submits the run with
``flwr run``, and kills one SuperNode (SIGTERM, as ``kill PID`` does) in the middle of a SecAgg+
round: it has shared its keys and is computing its masked update, so its masks are in the
others' masked vectors and the server must remove them with the others' key shares. The rounds must complete with the two others and the server
must write its report and model. The run has client-level DP: its spend must be reserved in
the ledger before the first round and committed as what the run spent. Ports are picked at
run time; every process started here is killed (with its children) in a ``finally``.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("flwr")

import veil
from veil.data import adult_frame
from veil.dp import BudgetLedger

BIN = Path(sys.executable).parent
ROUNDS = 2
# a cap against a hung run, far above the time it takes (see the report of the change)
DEADLINE_S = 300.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1/localhost signed by it (EC P-256)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "veil test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    ca_path, cert_path, key_path = folder / "ca.crt", folder / "server.crt", folder / "server.key"
    ca_path.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    return ca_path, cert_path, key_path


class _Procs:
    """The processes this test starts, each in its own session so its children die with it."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, args: list[str], home: Path) -> subprocess.Popen[bytes]:
        home.mkdir(parents=True, exist_ok=True)
        env = {**self.env, "FLWR_HOME": str(home)}
        with open(self.logs / f"{name}.log", "wb") as log:
            proc = subprocess.Popen(
                args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        self.procs[name] = proc
        return proc

    def terminate(self, name: str) -> None:
        """SIGTERM to the process alone (its children are left to notice, as in real life)."""
        self.procs[name].send_signal(signal.SIGTERM)

    def kill(self, name: str) -> None:
        """SIGKILL to the process and everything it started."""
        proc = self.procs[name]
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def tail(self) -> str:
        return "\n".join(f"--- {n} ---\n{self.log(n)[-2500:]}" for n in self.procs)


@contextmanager
def _processes(env: dict[str, str], logs: Path) -> Iterator[_Procs]:
    procs = _Procs(env, logs)
    try:
        yield procs
    finally:
        for name in list(procs.procs):
            procs.kill(name)


def _wait_for(check: Any, what: str, procs: _Procs, deadline: float) -> None:
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{procs.tail()}")
        for name, p in procs.procs.items():
            if p.poll() is not None and name != "supernode-2":
                raise AssertionError(f"{name} exited ({p.returncode})\n{procs.tail()}")
        time.sleep(0.1)


@pytest.mark.slow
def test_app_runs_on_superlink_and_supernodes_over_tls_and_survives_a_killed_node(
    tmp_path: Path,
) -> None:
    start = time.monotonic()
    deadline = start + DEADLINE_S
    frame = adult_frame().sample(900, random_state=0)
    schema = tmp_path / "schema.csv"
    frame.to_csv(schema, index=False)
    parts = []
    for i in range(3):
        part = tmp_path / f"holder{i}" / "local.csv"
        part.parent.mkdir()
        frame.iloc[i * 300 : (i + 1) * 300].to_csv(part, index=False)
        parts.append(part)
    certs = tmp_path / "certs"
    certs.mkdir()
    ca, cert, key = _make_certificates(certs)
    app, out = tmp_path / "app", tmp_path / "out"
    src = str(Path(veil.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]),
        "FLWR_TELEMETRY_ENABLED": "0",
        "FLWR_SUPEREXEC_TASK_POLL_INTERVAL": "0.1",  # default 1 s per message and stage
        "PYTHONUNBUFFERED": "1",  # the test reads the logs while the processes run
        # the SuperLink and SuperNodes start flower-superexec and flwr-* from the PATH
        "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
    }
    ledger_url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = BudgetLedger(ledger_url)
    ledger.init("adult", epsilon=10.0, delta=1e-2)
    ledger.close()
    made = subprocess.run(
        [
            *(sys.executable, "-m", "veil", "fl", "app", str(app), "--target", "salary-class"),
            *("--schema", str(schema), "--clients", "3", "--rounds", str(ROUNDS), "--secagg"),
            *("--dp", "client", "--epsilon", "8", "--delta", "1e-3", "--dataset", "adult"),
            *("--ledger", ledger_url, "--round-timeout", "120", "--out", str(out), "--json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    assert not list(app.rglob("*.key")) and not list(app.rglob("*.crt"))
    port = _free_port()
    logs = tmp_path / "logs"
    logs.mkdir()
    with _processes(env, logs) as procs:
        procs.start(
            "superlink",
            [
                *(str(BIN / "flower-superlink"), "--ssl-ca-certfile", str(ca)),
                *("--ssl-certfile", str(cert), "--ssl-keyfile", str(key)),
                *("--host", "127.0.0.1", "--port", str(port)),
                "--disable-runtime-dependency-installation",
            ],
            tmp_path / "home-superlink",
        )
        for i, part in enumerate(parts):
            procs.start(
                f"supernode-{i}",
                [
                    *(str(BIN / "flower-supernode"), "--superlink", f"127.0.0.1:{port}"),
                    *("--root-certificates", str(ca), "--port", str(_free_port())),
                    *("--node-config", f'data-path="{part}" require-secagg=true'),
                ],
                tmp_path / f"home-node{i}",
            )
        _wait_for(
            lambda: procs.log("superlink").count("Activated node_id") >= 3,
            "the three SuperNodes to connect",
            procs,
            deadline,
        )
        home = tmp_path / "home-cli"
        home.mkdir()
        (home / "config.toml").write_text(
            '[superlink]\ndefault = "veil"\n\n[superlink.veil]\n'
            f'address = "127.0.0.1:{port}"\nroot-certificates = "{ca}"\n'
        )
        submitted = subprocess.run(
            [str(BIN / "flwr"), "run", str(app), "veil", "--format", "json"],
            capture_output=True,
            text=True,
            env={**env, "FLWR_HOME": str(home)},
            timeout=120,
            check=False,
        )
        # flwr run exits 0 even when it could not start the run: its JSON says so
        started = json.loads(submitted.stdout)
        assert started["success"], (submitted.stdout + submitted.stderr)[-3000:]
        # kill a SuperNode in round 1 of SecAgg+ once it is asked for its masked update (the
        # third of the round's four training messages)
        _wait_for(
            lambda: procs.log("supernode-2").count("Receiving: train message") >= 3,
            "SuperNode 2 to be asked for its masked update",
            procs,
            deadline,
        )
        procs.terminate("supernode-2")
        report = out / "report.json"
        _wait_for(report.exists, "the server's report", procs, deadline)
        summary = json.loads(report.read_text())
        # the ServerApp's log (Flower keeps it on the SuperLink): the spend came first
        shown = subprocess.run(
            [str(BIN / "flwr"), "log", str(started["run-id"]), "veil", "--show"],
            capture_output=True,
            text=True,
            env={**env, "FLWR_HOME": str(home)},
            timeout=120,
            check=False,
        ).stdout
    assert (out / "model.pt").is_file()
    rounds = summary["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, ROUNDS + 1))
    assert summary["secagg"] == {
        "enabled": True,
        "dropped": sum(r["dropped"] for r in rounds),
        "rounds_completed": ROUNDS,
    }
    assert rounds[0]["clients"] == 2 and rounds[0]["dropped"] == 1, rounds
    assert all(r["clients"] == 2 for r in rounds), rounds
    for r in rounds:
        assert r["accuracy"] is not None and 0.0 <= r["accuracy"] <= 1.0
    # client-level DP: the spend was reserved in the ledger before any round and committed
    # as what the run spent
    assert "[veil] ledger: spend" in shown and "Secure aggregation commencing" in shown, shown
    assert shown.index("[veil] ledger: spend") < shown.index("Secure aggregation commencing")
    ledger = BudgetLedger(ledger_url)
    (spend,) = ledger.history("adult")
    ledger.close()
    assert spend.id == summary["ledger"]["spend_id"] and spend.status == "committed"
    assert spend.epsilon == summary["epsilon_spent"] <= 8.0
    assert summary["dp"]["noise_multiplier"] > 0
    assert time.monotonic() - start < DEADLINE_S
