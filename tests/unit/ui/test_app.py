"""veil ui through Starlette's TestClient: token, cookie, Host, Origin, CSRF, paths, views."""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():  # starlette 1.x prefers httpx2, which is not installed
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
    from starlette.testclient import TestClient

from veil.ui import UiSettings, create_app

# third-party deprecations between starlette 1.x, httpx and anyio (not ours to fix)
pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
CARD = "4111 1111 1111 1111"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "people.csv").write_text(
        "name,age,zip,diagnosis,email\n"
        + "".join(
            f"P{i},{20 + i % 50},{10000 + i % 7},{['flu', 'cold'][i % 2]},p{i}@example.com\n"
            for i in range(60)
        )
    )
    (root / "sub").mkdir()
    (root / "sub" / "events.jsonl").write_text(
        '{"city": "Oslo", "n": 1}\n{"city": "Rome", "n": 2}\n'
    )
    (root / "notes.txt.bin").write_bytes(b"\x00\x01binary")
    (root / "broken.csv").write_bytes(b"\xff\xfe\x00garbage\x00\n\x01")
    (tmp_path / "secret.csv").write_text("ssn\n123-45-6789\n")
    return root


def _app(workdir: Path, **kw):  # type: ignore[no-untyped-def]
    settings = UiSettings(workdir=workdir, port=PORT, **kw)
    return settings, create_app(settings)


# --- token and cookie -------------------------------------------------------------------


def test_no_token_is_401_and_wrong_token_is_403(workdir: Path) -> None:
    settings, app = _app(workdir)
    client = TestClient(app, base_url=BASE)
    for path in ("/", "/data", "/text", "/api/tables", "/static/veil.css"):
        assert client.get(path).status_code == 401
    r = client.get("/data?token=" + "x" * len(settings.sessions.token))
    assert r.status_code == 403
    assert "veil_ui_session" not in r.headers.get("set-cookie", "")
    assert settings.sessions.spent is False


def test_token_becomes_an_httponly_samesite_cookie_and_is_spent(workdir: Path) -> None:
    settings, app = _app(workdir)
    client = TestClient(app, base_url=BASE)
    r = client.get(f"/data?path=people.csv&token={settings.sessions.token}", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/data?path=people.csv"  # the token leaves the address bar
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"veil_ui_session_{PORT}=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert settings.sessions.token not in cookie
    assert client.get("/data").status_code == 200
    # one-time: a second browser with the same token is refused
    other = TestClient(app, base_url=BASE)
    assert other.get(f"/?token={settings.sessions.token}").status_code == 403
    assert other.get("/data").status_code == 401
    # a forged session cookie is not a session
    other.cookies.set(f"veil_ui_session_{PORT}", "forged")
    assert other.get("/data").status_code == 401


def test_tls_sets_a_secure_cookie(workdir: Path) -> None:
    settings, app = _app(workdir, tls=True)
    client = TestClient(app, base_url=f"https://127.0.0.1:{PORT}")
    r = client.get(f"/?token={settings.sessions.token}", follow_redirects=False)
    assert "Secure" in r.headers["set-cookie"]
    assert settings.url.startswith(f"https://127.0.0.1:{PORT}/?token=")


# --- Host (DNS rebinding) and Origin ----------------------------------------------------


@pytest.mark.parametrize(
    "host", ["evil.example", f"evil.example:{PORT}", "127.0.0.1:9999", "127.0.0.1.nip.io", ""]
)
def test_foreign_host_is_refused_even_with_the_token(workdir: Path, host: str) -> None:
    settings, app = _app(workdir)
    client = TestClient(app, base_url=BASE)
    r = client.get(f"/?token={settings.sessions.token}", headers={"host": host})
    assert r.status_code in (400, 403)
    assert not settings.sessions.spent  # a rebinding page cannot spend the token either


@pytest.mark.parametrize("host", [f"localhost:{PORT}", f"[::1]:{PORT}", f"127.0.0.1:{PORT}"])
def test_loopback_names_are_accepted(
    workdir: Path, host: str, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    assert client.get("/data", headers={"host": host}).status_code == 200


def test_post_needs_the_csrf_token_and_our_origin(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    text = {"text": f"card {CARD}"}
    assert client.post("/text", data=text).status_code == 403
    assert client.post("/text", data={**text, "csrf": "wrong"}).status_code == 403
    assert client.post("/api/text/explain", json=text).status_code == 403
    r = client.post("/text", data={**text, "csrf": csrf}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    assert client.post("/text", data={**text, "csrf": csrf}).status_code == 200
    r = client.post("/api/text/explain", json=text, headers={"x-csrf-token": csrf, "origin": BASE})
    assert r.status_code == 200


def test_csrf_tokens_are_per_session(workdir: Path, ui_session: Callable[..., Any]) -> None:
    _client, csrf = ui_session(workdir)
    # the same app, a second session opened by a fresh token, is a different CSRF token
    settings = UiSettings(workdir=workdir, port=PORT)
    app = create_app(settings)
    c1 = TestClient(app, base_url=BASE)
    c1.get(f"/?token={settings.sessions.token}")
    assert c1.post("/text", data={"text": "x", "csrf": csrf}).status_code == 403


# --- paths ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["../secret.csv", "sub/../../secret.csv", "/etc/passwd", "", "nothere.csv", "sub"],
)
def test_paths_outside_the_workdir_or_missing_are_refused(
    workdir: Path, path: str, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    r = client.get("/api/table", params={"path": path})
    assert r.status_code == 400
    assert r.json()["error"]["hint"]
    page = client.get("/data", params={"path": path})
    if path:  # an empty path on the page is "nothing chosen yet"
        assert page.status_code == 400 and 'role="alert"' in page.text
    else:
        assert page.status_code == 200 and 'role="alert"' not in page.text
    assert "123-45-6789" not in r.text + page.text


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="[hardware] no symlinks on this system")
def test_a_symlink_out_of_the_workdir_is_refused_and_not_listed(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    (workdir / "link.csv").symlink_to(workdir.parent / "secret.csv")
    client, _ = ui_session(workdir)
    assert "link.csv" not in client.get("/api/tables").json()["tables"]
    r = client.get("/api/table", params={"path": "link.csv"})
    assert r.status_code == 400 and "leaves the working folder" in r.json()["error"]["message"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=st.lists(st.sampled_from(["..", ".", "sub", "x", "%2e%2e", "..\\.."]), max_size=6))
def test_property_no_path_reaches_outside(workdir: Path, parts: list[str]) -> None:
    from veil._errors import InputError
    from veil.ui._security import safe_path

    rel = "/".join([*parts, "secret.csv"])
    try:
        got = safe_path(workdir, rel)
    except InputError:
        return
    assert got.is_relative_to(workdir.resolve())


# --- the data view ----------------------------------------------------------------------


def test_data_view_lists_tables_and_shows_columns_roles_and_no_values(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    tables = client.get("/api/tables").json()["tables"]
    assert tables == ["broken.csv", "people.csv", "sub/events.jsonl"]
    info = client.get("/api/table", params={"path": "people.csv"}).json()
    assert info["rows"] == 60
    cols = {c["name"]: c for c in info["columns"]}
    assert cols["age"]["dtype"] == "numeric" and cols["age"]["distinct"] == 50
    assert cols["age"]["role"] == "quasi_identifier"
    assert cols["email"]["role"] == "identifier"
    assert cols["diagnosis"]["role"] == "sensitive" and cols["diagnosis"]["distinct"] == 2
    page = client.get("/data", params={"path": "people.csv"})
    assert page.status_code == 200
    assert "60 rows, 5 columns" in page.text
    assert "r-quasi_identifier" in page.text and "name suggests email" in page.text
    for value in ("p1@example.com", "P1,", "flu"):
        assert value not in page.text
    jsonl = client.get("/api/table", params={"path": "sub/events.jsonl"}).json()
    assert [c["name"] for c in jsonl["columns"]] == ["city", "n"]
    import pandas as pd

    pd.DataFrame({"zip": ["02139", "02139", None], "sex": ["F", "M", "F"]}).to_parquet(
        workdir / "t.parquet"
    )
    assert "t.parquet" in client.get("/api/tables").json()["tables"]
    pq = {
        c["name"]: c
        for c in client.get("/api/table", params={"path": "t.parquet"}).json()["columns"]
    }
    assert pq["zip"]["distinct"] == 1 and pq["zip"]["missing"] == 1
    assert pq["sex"]["role"] == "quasi_identifier"


def test_a_file_that_is_not_a_table_is_refused_with_a_message(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    r = client.get("/api/table", params={"path": "notes.txt.bin"})
    assert r.status_code == 400 and "not a table" in r.json()["error"]["message"]
    r = client.get("/api/table", params={"path": "broken.csv"})
    assert r.status_code == 400 and r.json()["error"]["message"]


# --- the text view ----------------------------------------------------------------------


def test_text_view_highlights_findings_with_their_explanation(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    text = "Call 212-555-0175 or mail ann@example.com, card 4111 1111 1111 1111 <b>x</b>"
    page = client.post("/text", data={"text": text, "csrf": csrf})
    assert page.status_code == 200
    marks = re.findall(
        r'<mark class="(e-[a-z]+)" title="([A-Z_]+) \(#\d+\)">([^<]*)<sup>', page.text
    )
    assert ("e-finance", "CREDIT_CARD", CARD) in marks
    assert ("e-contact", "EMAIL_ADDRESS", "ann@example.com") in marks
    assert "luhn" in page.text  # the card's validation, from the explanation
    assert "<b>x</b>" not in page.text and "&lt;b&gt;x&lt;/b&gt;" in page.text  # escaped
    api = client.post("/api/text/explain", json={"text": text}, headers={"x-csrf-token": csrf})
    findings = api.json()["findings"]
    card = next(f for f in findings if f["entity_type"] == "CREDIT_CARD")
    assert text[card["start"] : card["end"]] == CARD
    assert card["explanation"]["recognizer"] and card["explanation"]["validation"]


def test_text_view_bad_input(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir)
    h = {"x-csrf-token": csrf}
    assert client.post("/api/text/explain", content=b"{not json", headers=h).status_code == 400
    assert client.post("/api/text/explain", json={"text": 3}, headers=h).status_code == 400
    r = client.post("/text", data={"text": "a" * 200_001, "csrf": csrf})
    assert r.status_code == 400 and "longer than" in r.text
    r = client.post("/text", data={"text": "a" * 2_100_000, "csrf": csrf})
    assert r.status_code == 413
    empty = client.post("/text", data={"text": "", "csrf": csrf})
    assert empty.status_code == 200 and "0 findings" in empty.text


def test_no_data_value_in_the_server_log(
    workdir: Path, caplog: pytest.LogCaptureFixture, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    with caplog.at_level(logging.DEBUG):
        client.post("/text", data={"text": f"card {CARD} for ann@example.com", "csrf": csrf})
        client.get("/data", params={"path": "people.csv"})
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "text view" in logged and "data view" in logged
    for value in (CARD, "ann@example.com", "p1@example.com"):
        assert value not in logged


def test_warm_up_builds_the_analyzer_the_text_view_then_uses(workdir: Path) -> None:
    settings, app = _app(workdir)
    app.warm()
    client = TestClient(app, base_url=BASE)
    client.get(f"/?token={settings.sessions.token}")
    page = client.get("/text")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    r = client.post("/text", data={"text": "mail ann@example.com", "csrf": csrf.group(1)})
    assert "EMAIL_ADDRESS" in r.text


def test_every_response_forbids_framing_foreign_assets_and_caching(workdir: Path) -> None:
    settings, app = _app(workdir)
    client = TestClient(app, base_url=BASE)
    refused = client.get("/data")
    client.get(f"/?token={settings.sessions.token}")
    for r in (refused, client.get("/data"), client.get("/static/veil.css")):
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["cache-control"] == "no-store"
    page = client.get("/text").text
    assert "http://" not in page and "https://" not in page and "<script" not in page


def test_an_unexpected_error_is_a_500_and_logs_no_value(
    workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken:
        def explain(self, text: str) -> list[dict[str, object]]:
            raise RuntimeError(f"failed on {text!r}")

    settings = UiSettings(workdir=workdir, port=PORT)
    app = create_app(settings, analyzer=Broken())
    client = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    client.get(f"/?token={settings.sessions.token}")
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/text").text)
    assert csrf is not None
    with caplog.at_level(logging.DEBUG):
        r = client.post("/text", data={"text": f"card {CARD}", "csrf": csrf.group(1)})
    assert r.status_code == 500 and CARD not in r.text
    logged = "\n".join(
        r.getMessage() + (str(r.exc_info[1]) if r.exc_info else "") for r in caplog.records
    )
    assert "RuntimeError" in logged and CARD not in logged


def test_text_view_loads_a_text_file_from_the_workdir_only(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    (workdir / "note.txt").write_text(f"Paid with card {CARD}.\r\n")
    (workdir / "latin1.txt").write_bytes("caf\xe9 4111".encode("latin-1"))
    (workdir.parent / "outside.txt").write_text(f"card {CARD}")
    client, _ = ui_session(workdir)
    page = client.get("/text")
    assert 'value="note.txt"' in page.text and "outside.txt" not in page.text
    loaded = client.get("/text", params={"path": "note.txt"})
    assert loaded.status_code == 200
    assert f'title="CREDIT_CARD (#1)">{CARD}<sup>' in loaded.text
    for bad, message in [
        ("../outside.txt", "leaves the working folder"),
        ("latin1.txt", "not UTF-8"),
        ("people.csv", "not a text file"),
    ]:
        r = client.get("/text", params={"path": bad})
        assert r.status_code == 400 and message in r.text
        assert CARD not in r.text


def test_data_view_shows_and_serves_the_draft_policy_of_veil_policy_init(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    import yaml

    from veil.policy import load_policy

    (workdir / "semi.csv").write_text("age;sex\n30;F\n41;M\n")
    client, _ = ui_session(workdir)
    page = client.get("/data", params={"path": "semi.csv"})
    assert 'id="policy-yaml"' in page.text and "k_anonymity" in page.text
    r = client.get("/api/table/policy.yaml", params={"path": "semi.csv"})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    draft = yaml.safe_load(r.text)
    assert draft["data"]["path"] == "semi.csv" and draft["data"]["separator"] == ";"
    assert draft["columns"]["age"]["role"] == "quasi_identifier"
    (workdir / "policy.yaml").write_text(r.text)
    assert load_policy(workdir / "policy.yaml") is not None  # a valid policy, as drafted
    bad = client.get("/api/table/policy.yaml", params={"path": "../secret.csv"})
    assert bad.status_code == 400
