"""veil ui's Redact view: a text or JSONL file previewed, redacted with per-type operators."""

from __future__ import annotations

import html
import json
import logging
import re
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")

from veil._errors import InputError
from veil.text import TextAnalyzer, TextRedactor, make_operator
from veil.ui._redact import EntityOperator, RedactJob, RedactJobs, output_target, parse_choices

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
PHONE, MAIL, CARD = "212-555-0175", "ann@example.com", "4111 1111 1111 1111"


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    records = [
        {"id": i, "text": f"Call {PHONE} or mail {MAIL}, card {CARD} (note {i})"} for i in range(50)
    ]
    (root / "notes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (root / "plain.txt").write_text(f"phone {PHONE}\nnothing here\nmail {MAIL}\n")
    (root / "bad.jsonl").write_text('{"text": "a"}\n{"other": "b"}\n')
    (tmp_path / "outside.txt").write_text(f"phone {PHONE}\n")
    return root


def test_entity_operator_applies_each_types_operator(analyzer: TextAnalyzer) -> None:
    text = f"Call {PHONE} or mail {MAIL}, card {CARD}"
    op = EntityOperator({"PHONE_NUMBER": "keep", "EMAIL_ADDRESS": "mask", "*": "redact"})
    out = TextRedactor(analyzer, op, link=op.links).redact(text).text
    assert PHONE in out  # kept
    assert MAIL not in out and "***@*******.***" in out  # masked, separators kept
    assert "4111" not in out and "card " in out  # every other type: removed
    # one operator for every type gives what that operator alone gives
    alone = TextRedactor(analyzer, make_operator("placeholder")).redact(text).text
    assert TextRedactor(analyzer, EntityOperator({})).redact(text).text == alone


def test_choices_are_checked() -> None:
    assert parse_choices({"PERSON": "mask", "*": "keep"}) == {"PERSON": "mask", "*": "keep"}
    with pytest.raises(InputError, match="unknown entity type"):
        parse_choices({"NOT_A_TYPE": "mask"})
    with pytest.raises(InputError, match="unknown operator"):
        parse_choices({"PERSON": "hash"})  # keyed: not offered in the app


def test_preview_highlights_and_redacts_without_writing(
    workdir: Path, analyzer: TextAnalyzer, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    before = sorted(p.name for p in workdir.iterdir())
    page = client.get("/redact?path=notes.jsonl")
    assert page.status_code == 200
    assert page.text.count('<mark class="e-contact"') == 2 * 10  # phone, mail; 10 records
    assert page.text.count('<mark class="e-finance"') == 10
    r = client.post(
        "/redact",
        data={
            "csrf": csrf,
            "path": "notes.jsonl",
            "field": "",
            "out": "",
            "action": "preview",
            "op.PHONE_NUMBER": "keep",
            "op.EMAIL_ADDRESS": "redact",
            "op.*": "mask",
        },
    )
    assert r.status_code == 200
    redacted = [html.unescape(c) for c in re.findall(r'class="cell redacted">([^<]*)<', r.text)]
    assert len(redacted) == 10
    assert all(PHONE in c and MAIL not in c and "**** **** **** ****" in c for c in redacted)
    assert re.search(r'id="op-PHONE_NUMBER"[^>]*>.*?<option value="keep" selected', r.text, re.S)
    assert sorted(p.name for p in workdir.iterdir()) == before
    api = client.post(
        "/api/redact/preview",
        json={"path": "plain.txt", "operators": {"*": "redact"}},
        headers={"x-csrf-token": csrf},
    ).json()
    assert api["counts"] == {"EMAIL_ADDRESS": 1, "PHONE_NUMBER": 1}
    assert [r["redacted"] for r in api["records"]] == ["phone ", "nothing here", "mail "]


def test_redacting_a_file_writes_it_and_offers_the_download(
    workdir: Path,
    analyzer: TextAnalyzer,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    form = {"csrf": csrf, "path": "notes.jsonl", "field": "", "out": "", "action": "redact"}
    r = client.post("/redact", data={**form, "op.CREDIT_CARD": "mask"}, follow_redirects=False)
    assert r.status_code == 303
    job = r.headers["location"].rsplit("/", 1)[1]
    state = wait_job(client, "redact", job)
    assert state["state"] == "done" and state["records"] == 50
    assert state["counts"] == {"CREDIT_CARD": 50, "EMAIL_ADDRESS": 50, "PHONE_NUMBER": 50}
    out = workdir / "notes.redacted.jsonl"
    assert state["out"] == "notes.redacted.jsonl"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["id"] for row in rows] == list(range(50))  # other fields as they were
    assert all(
        row["text"].startswith("Call <PHONE_NUMBER> or mail <EMAIL_ADDRESS>, card ****")
        for row in rows
    )
    page = client.get(f"/redact/job/{job}")
    assert 'id="download"' in page.text and 'data-state="done"' in page.text
    download = client.get(f"/redact/job/{job}/file")
    assert download.status_code == 200 and download.content == out.read_bytes()
    assert "attachment" in download.headers["content-disposition"]


def test_a_named_field_and_output(
    workdir: Path,
    analyzer: TextAnalyzer,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    (workdir / "sub").mkdir()
    r = client.post(
        "/api/redact",
        json={"path": "notes.jsonl", "field": "text", "out": "sub/x.jsonl", "operators": {}},
        headers={"x-csrf-token": csrf},
    )
    assert r.status_code == 202
    assert wait_job(client, "redact", r.json()["id"])["state"] == "done"
    assert (workdir / "sub" / "x.jsonl").is_file()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"path": "../outside.txt"}, "leaves the working folder"),
        ({"path": "notes.jsonl", "out": "../x.jsonl"}, "leaves the working folder"),
        ({"path": "notes.jsonl", "out": "notes.jsonl"}, "overwrite the input"),
        ({"path": "notes.jsonl", "out": "x.txt"}, "input's suffix"),
        ({"path": "notes.jsonl", "out": "nofolder/x.jsonl"}, "folder does not exist"),
        ({"path": "people.csv"}, "no such file"),
        ({"path": "notes.jsonl", "operators": {"PERSON": "vault"}}, "unknown operator"),
    ],
)
def test_bad_requests_are_refused_and_nothing_written(
    workdir: Path, analyzer: TextAnalyzer, body: dict, why: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    before = sorted(p.name for p in workdir.parent.rglob("*"))
    r = client.post("/api/redact", json={"operators": {}, **body}, headers={"x-csrf-token": csrf})
    assert r.status_code == 400 and why in r.json()["error"]["message"]
    assert sorted(p.name for p in workdir.parent.rglob("*")) == before


def test_a_failing_redaction_says_why_and_writes_nothing(
    workdir: Path,
    analyzer: TextAnalyzer,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    r = client.post(
        "/api/redact", json={"path": "bad.jsonl", "operators": {}}, headers={"x-csrf-token": csrf}
    )
    state = wait_job(client, "redact", r.json()["id"])
    assert state["state"] == "failed" and "line 2" in state["error"]["message"]
    assert not (workdir / "bad.redacted.jsonl").exists()
    page = client.get(f"/redact/job/{state['id']}")
    assert "nothing was written" in page.text


def test_cancel_writes_nothing(workdir: Path, analyzer: TextAnalyzer) -> None:
    jobs = RedactJobs(workdir)
    job = jobs.start("notes.jsonl", None, analyzer, {}, None)
    job.cancel.set()
    for _ in range(600):
        if job.state != "running":
            break
        time.sleep(0.05)
    assert job.state in ("cancelled", "done")
    assert (workdir / "notes.redacted.jsonl").exists() == (job.state == "done")
    # cancelled before the first batch: certainly nothing
    early = RedactJob(id="x", source="notes.jsonl", out="y.jsonl")
    early.cancel.set()
    jobs._run(early, workdir / "notes.jsonl", workdir / "y.jsonl", jobs_redactor(analyzer), None)
    assert early.state == "cancelled" and not (workdir / "y.jsonl").exists()


def jobs_redactor(analyzer: TextAnalyzer) -> TextRedactor:
    return TextRedactor(analyzer, EntityOperator({}))


def test_redact_posts_need_csrf_and_logs_carry_no_text(
    workdir: Path,
    analyzer: TextAnalyzer,
    caplog: pytest.LogCaptureFixture,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    for path, form in [
        ("/redact", {"path": "notes.jsonl", "action": "redact"}),
        ("/redact/job/x/cancel", {}),
    ]:
        assert client.post(path, data=form).status_code == 403
        r = client.post(
            path, data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"}
        )
        assert r.status_code == 403
    assert client.post("/api/redact", json={"path": "notes.jsonl"}).status_code == 403
    assert not (workdir / "notes.redacted.jsonl").exists()
    with caplog.at_level(logging.DEBUG, logger="veil"):
        client.get("/redact?path=notes.jsonl")
        r = client.post(
            "/api/redact",
            json={"path": "notes.jsonl", "operators": {}},
            headers={"x-csrf-token": csrf},
        )
        wait_job(client, "redact", r.json()["id"])
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert "redaction done" in logged
    assert PHONE not in logged and MAIL not in logged and "4111" not in logged


def test_the_preview_is_cut_to_its_character_budget(workdir: Path, analyzer: TextAnalyzer) -> None:
    from veil.ui._redact import _PREVIEW_CHARS, preview_file

    long = f"mail {MAIL} " + "x" * (_PREVIEW_CHARS * 2)
    (workdir / "long.txt").write_text(long + "\n" + long + "\n")
    shown = preview_file(workdir, "long.txt", analyzer, {}, None)
    assert len(shown["records"]) == 1  # the first record takes the whole budget
    text = "".join(p["text"] for p in shown["records"][0]["pieces"])
    assert text == long[:_PREVIEW_CHARS] and shown["counts"] == {"EMAIL_ADDRESS": 1}


def test_output_target_default_is_beside_the_input(workdir: Path) -> None:
    src = (workdir / "plain.txt").resolve()
    assert output_target(workdir, src, None) == src.with_name("plain.redacted.txt")


def test_the_text_view_redacts_with_the_chosen_operators(
    workdir: Path, analyzer: TextAnalyzer, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, analyzer)
    text = f"Call {PHONE} or mail {MAIL}, card {CARD}"
    found = client.post("/text", data={"csrf": csrf, "text": text})
    assert 'id="text-op-PHONE_NUMBER"' in found.text and 'id="redacted"' not in found.text
    ops = {"op.PHONE_NUMBER": "mask", "op.EMAIL_ADDRESS": "keep", "op.*": "redact"}
    r = client.post("/text", data={"csrf": csrf, "text": text, **ops})
    assert r.status_code == 200
    shown = html.unescape(re.search(r'id="redacted">([^<]*)<', r.text).group(1))
    op = EntityOperator({"PHONE_NUMBER": "mask", "EMAIL_ADDRESS": "keep", "*": "redact"})
    assert shown == TextRedactor(analyzer, op, link=op.links).redact(text).text
    assert MAIL in shown and PHONE not in shown and "4111" not in shown
    assert re.search(r'id="text-op-PHONE_NUMBER"[^>]*>.*?value="mask" selected', r.text, re.S)
    bad = client.post("/text", data={"csrf": csrf, "text": text, "op.PHONE_NUMBER": "vault"})
    assert bad.status_code == 400 and "unknown operator" in bad.text
