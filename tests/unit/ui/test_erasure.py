"""veil ui's erasure requests: the SISA models of the working folder, forget, verify, log."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.ui._erasure import list_models, parse_ids
from veil.unlearning import SISAModel, fit_table

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

KEY_HEX = "3f9a0c41d27e88b5190e6ad4c3b27f51a8e46d09b2c57f13e8a0d94b6c21e7f5"


def _table(n: int = 240) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    a = rng.choice(["red", "green", "blue"], size=n)
    x = rng.normal(size=n)
    y = np.where((a == "red") ^ (x > 0.3), "yes", "no")
    return pd.DataFrame({"pid": [f"p{i:04d}" for i in range(n)], "colour": a, "x": x, "t": y})


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "models").mkdir(parents=True)
    (root / "keys").mkdir()
    (root / "keys" / "erasure.key").write_text(KEY_HEX + "\n")
    (root / "keys" / "erasure.key").chmod(0o600)
    fit_table(
        _table(),
        "t",
        "pid",
        out=root / "models" / "sisa",
        key=bytes.fromhex(KEY_HEX),
        shards=3,
        slices=3,
        epochs=2,
        batch_size=32,
    ).close()
    (root / "models" / "not-a-model").mkdir()
    (root / "models" / "not-a-model" / "manifest.json").write_text('{"format": "other"}')
    return root


def _open(workdir: Path) -> SISAModel:
    return SISAModel.open(workdir / "models" / "sisa", key=bytes.fromhex(KEY_HEX))


def test_models_are_listed_by_their_manifest(workdir: Path) -> None:
    assert list_models(workdir) == ["models/sisa"]


def test_ids_are_read_one_per_line() -> None:
    assert parse_ids("p1\r\n\n  p2 \n") == ["p1", "p2"]
    with pytest.raises(InputError, match="which rows to forget"):
        parse_ids(" \n\n")


def test_forget_then_verify_from_the_page(
    workdir: Path,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, csrf = ui_session(workdir)
    page = client.get("/erasure")
    assert page.status_code == 200 and 'value="models/sisa"' in page.text
    assert "not-a-model" not in page.text
    opened = client.get("/erasure", params={"model": "models/sisa", "key_file": "keys/erasure.key"})
    assert opened.status_code == 200, opened.text[:400]
    assert 'id="model-version">1<' in opened.text and 'id="erasure-log"' in opened.text
    with _open(workdir) as m:
        shard = m.shard_of("p0007")
    caplog.set_level(logging.INFO, logger="veil.ui")
    r = client.post(
        "/erasure/forget",
        data={
            "csrf": csrf,
            "model": "models/sisa",
            "key_file": "keys/erasure.key",
            "ids": "p0007\n",
            "reason": "art. 17 request",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text[:400]
    job = r.headers["location"].rsplit("/", 1)[1]
    state = wait_job(client, "erasure", job, 120)
    assert state["state"] == "done", state
    assert state["result"]["forgotten"] == 1
    assert state["result"]["shards_retrained"] == [shard]
    assert 'id="forgotten">1<' in client.get(f"/erasure/job/{job}").text
    # the model on disk: the row is gone, the log holds the request (counts, no id)
    with _open(workdir) as m:
        assert m.shard_of("p0007") is None and m.version == 2
        log = m.erasure_log()
    assert [(e["kind"], e["forgotten"], e["reason"]) for e in log][-1] == (
        "forget",
        1,
        "art. 17 request",
    )
    # the model folder's report, as `veil unlearn forget` writes it: counts, never the id
    report = (workdir / "models" / "sisa" / "report.json").read_text()
    forget = json.loads(report)["unlearning"]["operation"]["forget"]
    assert forget["forgotten"] == 1 and forget["shards_retrained"] == [shard]
    assert "p0007" not in report
    page = client.get("/erasure", params={"model": "models/sisa", "key_file": "keys/erasure.key"})
    assert 'id="erasure-log"' in page.text and "art. 17 request" in page.text
    assert "p0007" not in page.text
    # verify: the retrained shard is bit-identical to retraining from scratch
    r = client.post(
        "/erasure/verify",
        data={"csrf": csrf, "model": "models/sisa", "key_file": "keys/erasure.key"},
        follow_redirects=False,
    )
    state = wait_job(client, "erasure", r.headers["location"].rsplit("/", 1)[1], 120)
    assert state["state"] == "done" and state["result"]["exact"] is True, state
    assert state["result"]["shards_checked"] == [shard]
    assert 'data-exact="yes"' in client.get(r.headers["location"]).text
    verified = json.loads((workdir / "models" / "sisa" / "report.json").read_text())
    assert verified["unlearning"]["verify"]["exact"] is True
    assert "p0007" not in caplog.text


def test_an_unknown_id_fails_the_whole_request_with_nothing_logged(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post(
        "/erasure/forget",
        data={
            "csrf": csrf,
            "model": "models/sisa",
            "key_file": "keys/erasure.key",
            "ids": "p0001\nnobody\n",
        },
        follow_redirects=False,
    )
    state = wait_job(client, "erasure", r.headers["location"].rsplit("/", 1)[1], 120)
    assert state["state"] == "failed" and state["error"]["message"]
    assert "nobody" not in state["error"]["message"]
    with _open(workdir) as m:
        assert m.version == 1 and m.shard_of("p0001") is not None
        assert not any(e["kind"] == "forget" for e in m.erasure_log())


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"model": "models/sisa", "key_file": "keys/erasure.key", "ids": ""}, "which rows"),
        ({"model": "models/not-a-model", "key_file": "keys/erasure.key", "ids": "p1"}, "no veil"),
        ({"model": "../outside", "key_file": "keys/erasure.key", "ids": "p1"}, "working folder"),
        ({"model": "models/sisa", "key_file": "../key", "ids": "p1"}, "working folder"),
        ({"model": "models/sisa", "key_file": "keys/missing.key", "ids": "p1"}, "key"),
    ],
)
def test_bad_requests_are_refused_with_nothing_started(
    workdir: Path, ui_session: Callable[..., Any], form: dict[str, str], message: str
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post("/erasure/forget", data={"csrf": csrf, **form})
    assert r.status_code == 400
    assert message in r.text
    with _open(workdir) as m:
        assert m.version == 1


def test_a_wrong_key_is_refused_when_the_model_is_opened(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    (workdir / "keys" / "other.key").write_text(secrets.token_hex(32) + "\n")
    (workdir / "keys" / "other.key").chmod(0o600)
    client, _ = ui_session(workdir)
    page = client.get("/erasure", params={"model": "models/sisa", "key_file": "keys/other.key"})
    assert page.status_code == 400 and "keyed checksum does not match" in page.text


def test_forget_needs_the_csrf_token(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, _ = ui_session(workdir)
    r = client.post(
        "/erasure/forget",
        data={"model": "models/sisa", "key_file": "keys/erasure.key", "ids": "p0001"},
    )
    assert r.status_code == 403
    with _open(workdir) as m:
        assert m.version == 1
