"""veil ui's Redact view with an uploaded file: checked, kept privately, removed afterwards."""

from __future__ import annotations

import json
import logging
import re
import stat
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
pytest.importorskip("python_multipart", reason="the ui extra (python-multipart) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
    from starlette.testclient import TestClient

from veil.text import TextAnalyzer
from veil.ui._security import _multipart_field
from veil.ui._upload import MAX_UPLOADS, UPLOAD_MAX_BYTES, Uploads, check_upload

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
PHONE, MAIL = "212-555-0175", "ann@example.com"
NOTES = "".join(
    json.dumps({"id": i, "text": f"Call {PHONE} or mail {MAIL} (note {i})"}) + "\n"
    for i in range(30)
).encode()


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    return root


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the uploads' private folders go during the test (watched for leftovers)."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def _upload(client: TestClient, csrf: str, name: str, data: bytes, **extra: str) -> object:
    return client.post(
        "/redact/upload",
        data={"csrf": csrf, **extra},
        files={"file": (name, data, "application/octet-stream")},
    )


def _upload_folders(tmp_root: Path) -> list[Path]:
    return sorted(tmp_root.glob("veil-ui-upload-*"))


def test_an_uploaded_file_is_previewed_redacted_and_removed(
    workdir: Path,
    analyzer: TextAnalyzer,
    tmp_root: Path,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    r = _upload(client, csrf, "my notes.jsonl", NOTES)
    assert r.status_code == 200, r.text
    assert 'id="redact-preview"' in r.text and "EMAIL_ADDRESS" in r.text
    # kept privately, outside the working folder, until redacted
    (folder,) = _upload_folders(tmp_root)
    (kept,) = folder.iterdir()
    assert kept.name == "my_notes.jsonl" and kept.read_bytes() == NOTES
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert list(workdir.iterdir()) == []
    upload_id = re.search(r'name="upload" value="([^"]+)"', r.text)
    out = re.search(r'name="out" value="([^"]+)"', r.text)
    assert upload_id is not None and out is not None and out.group(1) == "my_notes.redacted.jsonl"
    r = client.post(
        "/redact",
        data={
            "csrf": csrf,
            "upload": upload_id.group(1),
            "out": out.group(1),
            "op.PHONE_NUMBER": "mask",
            "action": "redact",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303
    state = wait_job(client, "redact", r.headers["location"].rsplit("/", 1)[1])
    assert state["state"] == "done" and state["records"] == 30
    written = (workdir / "my_notes.redacted.jsonl").read_text()
    assert MAIL not in written and PHONE not in written and "<EMAIL_ADDRESS>" in written
    assert client.get(f"/redact/job/{state['id']}/file").content.decode() == written
    assert _upload_folders(tmp_root) == []  # removed once redacted
    # the upload is gone: a second redaction of it is refused, clearly
    r = client.post(
        "/redact", data={"csrf": csrf, "upload": upload_id.group(1), "action": "redact"}
    )
    assert r.status_code == 400 and "no longer here" in r.text


def test_a_failed_redaction_of_an_upload_removes_it_and_writes_nothing(
    workdir: Path,
    analyzer: TextAnalyzer,
    tmp_root: Path,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    r = _upload(client, csrf, "unread.jsonl", b'{"text": "a"}\n{"other": "b"}\n')
    assert r.status_code == 400 and "line 2" in r.text  # the preview fails: not kept
    assert _upload_folders(tmp_root) == []
    # the first records preview well, a later one fails the redaction
    r = _upload(client, csrf, "bad.jsonl", b'{"text": "a"}\n' * 12 + b'{"other": "b"}\n')
    upload_id = re.search(r'name="upload" value="([^"]+)"', r.text)
    assert upload_id is not None
    r = client.post(
        "/redact",
        data={"csrf": csrf, "upload": upload_id.group(1), "action": "redact"},
        follow_redirects=False,
    )
    state = wait_job(client, "redact", r.headers["location"].rsplit("/", 1)[1])
    assert state["state"] == "failed" and "line 13" in state["error"]["message"]
    assert list(workdir.iterdir()) == [] and _upload_folders(tmp_root) == []


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("photo.png", b"\x89PNG\r\n", "not a text or JSON Lines file"),
        ("notes.txt", b"a line\x00\x01\x02\n", "binary"),
        ("notes.txt", "caf\u00e9 au lait\n".encode("latin-1"), "not UTF-8 text (byte 3)"),
        ("notes.txt", b"", "empty"),
        ("notes.txt", b"x" * (UPLOAD_MAX_BYTES + 1), "larger than 10 MB"),
        ("", b"text\n", "no file was chosen"),
    ],
)
def test_bad_uploads_are_refused_clearly_and_nothing_is_kept(
    workdir: Path,
    analyzer: TextAnalyzer,
    tmp_root: Path,
    caplog: pytest.LogCaptureFixture,
    name: str,
    data: bytes,
    why: str,
    ui_session: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    with caplog.at_level(logging.DEBUG):
        r = _upload(client, csrf, name, data)
    assert r.status_code == 400 and why in r.text
    assert 'role="alert"' in r.text  # shown on the Redact page, with its hint
    assert list(workdir.iterdir()) == [] and _upload_folders(tmp_root) == []
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert "upload refused" in logged and (not name or name not in logged)


def test_an_upload_over_the_body_limit_is_cut_off_by_the_guard(
    workdir: Path, analyzer: TextAnalyzer, tmp_root: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    r = _upload(client, csrf, "big.txt", b"y" * (UPLOAD_MAX_BYTES + 100_000))
    assert r.status_code == 413 and "at most 10 MB" in r.text
    # a pasted form keeps its own, smaller limit
    r = client.post("/text", data={"csrf": csrf, "text": "z" * 2_100_000})
    assert r.status_code == 413 and "2 MB" in r.text
    assert list(workdir.iterdir()) == [] and _upload_folders(tmp_root) == []


def test_an_upload_needs_the_csrf_token_and_its_own_origin(
    workdir: Path, analyzer: TextAnalyzer, tmp_root: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    files = {"file": ("notes.jsonl", NOTES, "text/plain")}
    assert client.post("/redact/upload", files=files).status_code == 403
    assert client.post("/redact/upload", data={"csrf": "wrong"}, files=files).status_code == 403
    r = client.post(
        "/redact/upload",
        data={"csrf": csrf},
        files=files,
        headers={"origin": "http://evil.example"},
    )
    assert r.status_code == 403
    assert _upload_folders(tmp_root) == []
    # the token in the header is enough too
    r = client.post("/redact/upload", files=files, headers={"x-csrf-token": csrf})
    assert r.status_code == 200 and len(_upload_folders(tmp_root)) == 1


def test_logs_carry_neither_the_content_nor_the_name(
    workdir: Path,
    analyzer: TextAnalyzer,
    tmp_root: Path,
    caplog: pytest.LogCaptureFixture,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    with caplog.at_level(logging.DEBUG):
        r = _upload(client, csrf, "secret-patient-file.jsonl", NOTES, field="text")
        upload_id = re.search(r'name="upload" value="([^"]+)"', r.text)
        assert upload_id is not None
        r = client.post(
            "/redact",
            data={"csrf": csrf, "upload": upload_id.group(1), "action": "redact"},
            follow_redirects=False,
        )
        wait_job(client, "redact", r.headers["location"].rsplit("/", 1)[1])
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert "upload received" in logged and "redaction done" in logged
    assert "secret-patient" not in logged and PHONE not in logged and MAIL not in logged


def test_older_idle_uploads_are_removed_and_all_when_closed(tmp_root: Path) -> None:
    uploads = Uploads()
    made = [uploads.add(f"n{i}.txt", b"text\n") for i in range(MAX_UPLOADS + 2)]
    assert len(uploads.items) == MAX_UPLOADS
    assert not made[0].path.exists() and made[-1].path.exists()
    assert len(_upload_folders(tmp_root)) == MAX_UPLOADS
    uploads.close()
    assert uploads.items == {} and _upload_folders(tmp_root) == []


def test_check_upload_names_are_made_safe() -> None:
    assert check_upload("../../etc/x.txt", b"a\n") == "x.txt"
    assert check_upload("C:\\Users\\me\\notes.jsonl", b"{}\n") == "notes.jsonl"
    assert check_upload(".hidden.txt", b"a\n") == "hidden.txt"
    assert check_upload("r\u00e9sum\u00e9 (1).md", b"a\n") == "r_sum_1_.md"


def test_the_guard_reads_only_the_csrf_field_of_a_multipart_body() -> None:
    body = (
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="csrf"\r\n\r\n'
        b"not-it\r\n"
        b'--B\r\nContent-Disposition: form-data; name="csrf"\r\n\r\ntok123\r\n--B--\r\n'
    )
    assert _multipart_field(body, "multipart/form-data; boundary=B", "csrf") == "tok123"
    assert _multipart_field(body, "multipart/form-data", "csrf") is None  # no boundary
    assert _multipart_field(b"junk", "multipart/form-data; boundary=B", "csrf") is None
    long = body.replace(b"tok123", b"t" * 500)
    assert _multipart_field(long, "multipart/form-data; boundary=B", "csrf") is None
