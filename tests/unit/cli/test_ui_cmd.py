"""``veil ui`` as users start it: a subprocess that prints its URL and refuses strangers."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[3] / "src")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _veil(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "veil", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": SRC},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _status(url: str, headers: dict[str, str] | None = None) -> int:
    req = urllib.request.Request(url, headers=headers or {})
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def test_veil_ui_prints_its_url_and_refuses_requests_without_the_token(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("age,zip\n30,12345\n")
    port = _free_port()
    proc = _veil(
        "ui", "--port", str(port), "--no-browser", "--workdir", str(tmp_path), cwd=tmp_path
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line and "token=" in line
        token = re.search(r"token=([A-Za-z0-9_-]+)", line)
        assert token is not None and len(token.group(1)) >= 40
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:  # the line is printed just before the server accepts
            try:
                status = _status(base + "/data")
                break
            except (ConnectionError, urllib.error.URLError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert status == 401
        assert _status(base + "/data", {"Host": "evil.example"}) in (400, 403)
        assert _status(base + "/?token=wrong") == 403
        assert _status(f"{base}/?token={token.group(1)}", {"Host": "evil.example"}) == 403
        assert _status(f"{base}/?token={token.group(1)}") == 303  # the token opens a session
        assert _status(f"{base}/?token={token.group(1)}") == 403  # and only once
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert token.group(1) not in err  # nothing logs the token


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "not a loopback address"),
        (["--host", "192.0.2.10", "--allow-remote"], "needs TLS"),
        (["--host", "0.0.0.0", "--allow-remote"], "names every address"),
        (["--workdir", "nope"], "--workdir is not a folder"),
    ],
)
def test_veil_ui_refuses_unsafe_or_bad_options(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = _veil("ui", "--no-browser", "--port", "0", *args, cwd=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert message in err and "hint:" in err
    assert "token=" not in out


def test_veil_ui_refuses_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = _veil("ui", "--no-browser", "--port", str(port), cwd=tmp_path)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "cannot listen on port" in err and "token=" not in out


def _self_signed(folder: Path) -> tuple[Path, Path]:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_veil_ui_serves_https_with_tls_files(tmp_path: Path) -> None:
    import ssl

    cert, key = _self_signed(tmp_path)
    port = _free_port()
    proc = _veil(
        "ui", "--no-browser", "--port", str(port), "--tls-cert", str(cert), "--tls-key", str(key),
        cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"https://127.0.0.1:{port}/?token=" in line
        ctx = ssl.create_default_context(cafile=str(cert))
        ctx.check_hostname = False  # the certificate names an IP address as its CN only
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"https://127.0.0.1:{port}/data", context=ctx, timeout=10)
                status = 200
                break
            except urllib.error.HTTPError as e:
                status = e.code
                break
            except (ConnectionError, urllib.error.URLError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert status == 401
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
