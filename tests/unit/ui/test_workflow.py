"""veil ui's policy, run and budget views through Starlette's TestClient."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")

from veil._errors import PolicyError
from veil.ui._policy_edit import (
    ROLES,
    apply_form,
    check_policy_text,
    editor_model,
    policy_target,
)
from veil.ui._runs import Job, RunCancelled, _JobProgress

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
COLUMNS = ["name", "age", "zip", "diagnosis", "email"]
GOOD = """version: 1
data: {path: people.csv}
columns:
  name: {role: identifier, transform: {type: drop}}
  age: {role: quasi_identifier, hierarchy: {type: interval, width: 10}}
  zip: {role: quasi_identifier, hierarchy: {type: mask}}
  diagnosis: {role: sensitive}
  email: {role: identifier, transform: {type: drop}}
privacy:
  k_anonymity: {k: 5}
  suppression_limit: 0.1
output: {path: out, format: csv}
"""


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
    (tmp_path / "outside").mkdir()
    return root


def _yaml_of(page: str) -> str:
    found = re.search(r'<textarea id="yaml" name="yaml"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def _form(csrf: str, text: str, roles: list[str], **privacy: str) -> dict[str, str]:
    form = {"csrf": csrf, "target": "policy.yaml", "yaml": text, "action": "apply", **privacy}
    for i, (name, role) in enumerate(zip(COLUMNS, roles, strict=True)):
        form |= {f"name.{i}": name, f"role.{i}": role, f"transform.{i}": "none"}
    return form


# --- policy editing ------------------------------------------------------------------------


def test_the_editor_drafts_from_the_table_and_applies_roles_and_k(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    page = client.get("/policy?table=people.csv")
    assert page.status_code == 200
    draft = _yaml_of(page.text)
    assert "people.csv" in draft and 'name="role.0"' in page.text
    roles = ["identifier", "quasi_identifier", "insensitive", "sensitive", "identifier"]
    form = _form(csrf, draft, roles, k="7") | {"transform.0": "drop", "transform.4": "hash"}
    r = client.post("/policy", data=form)
    text = _yaml_of(r.text)
    from veil.policy._loader import load_yaml_located

    data, _ = load_yaml_located(text, "policy.yaml")
    assert [data["columns"][c]["role"] for c in COLUMNS] == roles
    assert "hierarchy" not in data["columns"]["zip"]  # no longer a quasi-identifier
    assert data["columns"]["name"]["transform"] == {"type": "drop"}
    assert data["privacy"]["k_anonymity"] == {"k": 7}
    assert not (workdir / "policy.yaml").exists()  # applying writes nothing


def test_errors_are_the_clis_and_shown_at_the_key(
    workdir: Path, monkeypatch, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    draft = _yaml_of(client.get("/policy?table=people.csv").text)
    roles = ["identifier", "quasi_identifier", "quasi_identifier", "sensitive", "identifier"]
    r = client.post("/policy", data=_form(csrf, draft, roles, k="1"))
    assert r.status_code == 422
    shown = re.search(r'id="error-k">([^<]*)<', r.text)
    assert shown is not None
    # the same message as `veil policy check policy.yaml` run in the working folder
    (workdir / "policy.yaml").write_text(_yaml_of(r.text))
    monkeypatch.chdir(workdir)
    from veil.policy import load_policy

    with pytest.raises(PolicyError) as cli:
        load_policy("policy.yaml")
    assert html.unescape(shown.group(1)) == cli.value.message
    assert cli.value.key == "privacy.k_anonymity.k"
    # a column's error sits in its row
    bad = GOOD.replace("name: {role: identifier, transform: {type: drop}}", "name: {role: bogus}")
    result = check_policy_text(workdir, "policy.yaml", bad)
    model = editor_model(bad, "policy.yaml", result["error"])
    assert result["error"]["key"] == "columns.name.role"
    assert [c["name"] for c in model["columns"] if c["error"]] == ["name"]
    assert model["general_error"] is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("version: 1\ncolumns: {a: {role: insensitive}}\n", "data"),
        ("data: {path: people.csv}\ncolumns: {a: {role: insensitive}}\nbogus: 1\n", "bogus"),
        ("data: {path: ../outside/x.csv}\ncolumns: {a: {role: insensitive}}\n", "data.path"),
        (GOOD.replace("path: out,", "path: ../outside/out,"), "output.path"),
        (
            GOOD.replace("{type: mask}", "{type: file, path: /etc/hosts}"),
            "columns.zip.hierarchy.path",
        ),
        ("a: [1, 2\n", None),
        ("", None),
    ],
)
def test_bad_policies_are_refused_with_a_message(
    workdir: Path, text: str, key: str | None, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post(
        "/api/policy/save", json={"path": "p.yaml", "yaml": text}, headers={"x-csrf-token": csrf}
    )
    assert r.status_code == 422
    body = r.json()
    assert body["valid"] is False and body["saved"] is False and body["error"]["message"]
    assert body["error"]["key"] == key
    assert not (workdir / "p.yaml").exists()  # nothing written


def test_save_is_atomic_inside_the_folder_and_import_reads_it_back(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post(
        "/policy", data={"csrf": csrf, "target": "mine.yaml", "yaml": GOOD, "action": "save"}
    )
    assert r.status_code == 200 and 'id="saved"' in r.text
    assert (workdir / "mine.yaml").read_text() == GOOD
    assert not [p for p in workdir.iterdir() if p.name.startswith(".")]  # no temp left
    page = client.get("/policy?path=mine.yaml")
    assert page.status_code == 200 and _yaml_of(page.text) == GOOD
    dl = client.post(
        "/policy", data={"csrf": csrf, "target": "mine.yaml", "yaml": GOOD, "action": "download"}
    )
    assert dl.text == GOOD and "attachment" in dl.headers["content-disposition"]


@pytest.mark.parametrize(
    "target", ["../outside/p.yaml", "/tmp/p.yaml", "p.txt", "nofolder/p.yaml", "", ".hidden.yaml"]
)
def test_a_policy_path_outside_the_folder_or_not_yaml_is_refused(
    workdir: Path, target: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post(
        "/policy", data={"csrf": csrf, "target": target, "yaml": GOOD, "action": "save"}
    )
    assert r.status_code == 422
    assert "problem" in r.text or "policy-error" in r.text
    assert not (workdir.parent / "outside" / "p.yaml").exists()
    assert sorted(p.name for p in workdir.iterdir()) == ["people.csv"]


def test_a_symlinked_folder_out_of_the_workdir_is_refused(workdir: Path) -> None:
    (workdir / "link").symlink_to(workdir.parent / "outside")
    with pytest.raises(Exception, match="leaves the working folder"):
        policy_target(workdir, "link/p.yaml")


def test_import_of_a_path_outside_or_not_a_policy_is_refused(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    (workdir.parent / "outside" / "p.yaml").write_text(GOOD)
    for path in ("../outside/p.yaml", "people.csv", "missing.yaml"):
        r = client.get("/policy", params={"path": path})
        assert r.status_code == 400 and 'role="alert"' in r.text


def test_every_state_changing_route_needs_csrf_and_our_origin(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    (workdir / "policy.yaml").write_text(GOOD)
    posts = [
        ("/policy", {"target": "policy.yaml", "yaml": GOOD, "action": "save"}),
        ("/run", {"policy": "policy.yaml"}),
        ("/run/x/cancel", {}),
        ("/explore/cancel", {"policy": "policy.yaml"}),
        ("/explore/restart", {"policy": "policy.yaml"}),
        ("/api/policy/check", None),
        ("/api/policy/save", None),
    ]
    for path, form in posts:
        if form is None:
            assert client.post(path, json={"path": "p.yaml", "yaml": GOOD}).status_code == 403
        else:
            assert client.post(path, data=form).status_code == 403
            r = client.post(
                path, data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"}
            )
            assert r.status_code == 403
    assert not (workdir / "out").exists() and not (workdir / "p.yaml").exists()


# --- runs ------------------------------------------------------------------------------------


def test_a_run_releases_the_table_and_shows_its_report(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    (workdir / "policy.yaml").write_text(GOOD)
    r = client.post("/run", data={"csrf": csrf, "policy": "policy.yaml"}, follow_redirects=False)
    assert r.status_code == 303
    job = r.headers["location"].rsplit("/", 1)[1]
    state = wait_job(client, "run", job)
    assert state["state"] == "done", state["error"]
    assert state["summary"]["min_class_size"] >= 5 and state["done_steps"] == len(state["steps"])
    assert (workdir / "out" / "released.csv").is_file()
    page = client.get(f"/run/{job}")
    assert (
        'id="report"' in page.text and "frame-src 'self'" in page.headers["content-security-policy"]
    )
    report = client.get(f"/run/{job}/file/report_html")
    assert report.status_code == 200 and "<!DOCTYPE html>" in report.text
    assert "frame-ancestors 'self'" in report.headers["content-security-policy"]
    assert "script-src" not in report.headers["content-security-policy"]
    table = client.get(f"/run/{job}/file/table")
    assert table.text.splitlines()[0] == "age,zip,diagnosis"  # identifiers dropped
    assert client.get(f"/run/{job}/file/secrets").status_code == 404


def test_a_failing_run_says_why_and_writes_nothing(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    (workdir / "policy.yaml").write_text(GOOD.replace("diagnosis: {role", "illness: {role"))
    r = client.post("/run", json={"policy": "policy.yaml"}, headers={"x-csrf-token": csrf})
    assert r.status_code == 202
    state = wait_job(client, "run", r.json()["id"])
    assert state["state"] == "failed"
    assert "not in the data" in state["error"]["message"]
    assert not (workdir / "out").exists()
    page = client.get(f"/run/{state['id']}")
    assert "nothing was written" in page.text and "not in the data" in page.text


@pytest.mark.parametrize(
    ("policy", "why"),
    [
        ("missing.yaml", "no such file"),
        ("../outside/p.yaml", "leaves the working folder"),
        ("people.csv", "ends in .yaml"),
        ("bad.yaml", "Input should be greater than or equal to 2"),
        ("latin1.yaml", "not UTF-8"),
    ],
)
def test_a_run_that_cannot_start_is_refused(
    workdir: Path, policy: str, why: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    (workdir.parent / "outside" / "p.yaml").write_text(GOOD)
    (workdir / "bad.yaml").write_text(GOOD.replace("k: 5", "k: 1"))
    (workdir / "latin1.yaml").write_bytes(GOOD.encode() + b"# caf\xe9\n")
    r = client.post("/run", data={"csrf": csrf, "policy": policy})
    assert r.status_code == 400 and why in html.unescape(r.text)
    assert not (workdir / "out").exists()


def test_cancel_stops_the_run_before_anything_is_written(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    (workdir / "policy.yaml").write_text(GOOD)
    job = Job(id="j", policy="policy.yaml")
    job.cancel.set()
    with pytest.raises(RunCancelled):
        run_policy(load_policy(workdir / "policy.yaml"), progress=_JobProgress(job))
    assert not (workdir / "out").exists()
    # through the app: a cancelled run never leaves files; the page says so
    client, csrf = ui_session(workdir)
    r = client.post("/run", json={"policy": "policy.yaml"}, headers={"x-csrf-token": csrf})
    job_id = r.json()["id"]
    c = client.post(
        f"/run/{job_id}/cancel", data={"csrf": csrf}, headers={"accept": "application/json"}
    )
    assert c.status_code == 200
    state = wait_job(client, "run", job_id)
    assert state["state"] in ("cancelled", "done")
    assert (workdir / "out").exists() == (state["state"] == "done")


# --- budget ----------------------------------------------------------------------------------


def test_the_budget_view_shows_spent_remaining_and_history(
    workdir: Path, tmp_path: Path, ui_session: Callable[..., Any]
) -> None:
    from veil.dp import BudgetLedger

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=2.0, delta=1e-6)
        led.spend("adult", epsilon=0.5, delta=0.0, what="mean age", mechanism="laplace")
        led.spend("adult", epsilon=0.25, delta=0.0, what="count", mechanism="laplace")
    client, _ = ui_session(workdir, ledger_url=url)
    data = client.get("/api/budget?dataset=adult").json()
    assert data["datasets"][0]["remaining"]["epsilon"] == pytest.approx(1.25)
    assert [e["what"] for e in data["history"]] == ["mean age", "count"]
    page = client.get("/budget?dataset=adult").text
    assert 'id="budgets"' in page and ">1.25<" in page and "mean age" in page
    assert client.get("/budget?dataset=nope").status_code == 400


def test_the_budget_view_creates_no_ledger(
    workdir: Path, tmp_path: Path, ui_session: Callable[..., Any]
) -> None:
    # a GET shows that there is no ledger yet; it never makes the SQLite file
    path = tmp_path / "not-yet" / "ledger.db"
    client, _ = ui_session(workdir, ledger_url=f"sqlite:///{path}")
    assert client.get("/api/budget").json() == {"datasets": [], "dataset": None, "history": None}
    assert 'id="no-budgets"' in client.get("/budget").text
    assert client.get("/budget?dataset=adult").status_code == 400
    assert not path.exists() and not path.parent.exists()


# --- properties ------------------------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(roles=st.lists(st.sampled_from(ROLES), min_size=5, max_size=5))
def test_applied_roles_are_the_chosen_ones_and_only_qis_keep_a_hierarchy(roles: list[str]) -> None:
    from veil.policy._loader import load_yaml_located

    form = {k: [v] for k, v in _form("x", GOOD, roles).items()}
    data, _ = load_yaml_located(apply_form(GOOD, "p.yaml", form), "p.yaml")
    for name, role in zip(COLUMNS, roles, strict=True):
        col = data["columns"][name]
        assert col["role"] == role
        assert ("hierarchy" in col) == (role == "quasi_identifier")


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rel=st.text(alphabet="./ab\\x-y", max_size=20).map(lambda s: s + ".yaml"))
def test_a_policy_target_never_leaves_the_folder(workdir: Path, rel: str) -> None:
    try:
        target = policy_target(workdir, rel)
    except Exception as exc:
        assert type(exc).__name__ == "InputError"
        return
    assert target.resolve().is_relative_to(workdir.resolve())


def test_only_one_run_goes_at_a_time(workdir: Path) -> None:
    from veil._errors import InputError
    from veil.ui._runs import Runs

    (workdir / "policy.yaml").write_text(GOOD)
    runs = Runs(workdir)
    runs.jobs["busy"] = Job(id="busy", policy="policy.yaml")  # still running
    with pytest.raises(InputError, match="another run is still going"):
        runs.start("policy.yaml")
    assert list(runs.jobs) == ["busy"] and not (workdir / "out").exists()


def test_the_hierarchy_preview_counts_groups_per_level(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    from veil.ui._hierarchy_preview import hierarchy_preview

    preview = hierarchy_preview(workdir, "policy.yaml", GOOD)
    assert preview["k"] == 5 and preview["rows"] == 60
    by_name = {c["name"]: c for c in preview["columns"]}
    assert set(by_name) == {"age", "zip"}
    age = by_name["age"]["levels"]
    assert age[0]["groups"] == 50  # ages 20..69, one group per value at level 0
    # each level coarsens the one before, and every row is in a group
    for c in preview["columns"]:
        groups = [lv["groups"] for lv in c["levels"]]
        assert groups == sorted(groups, reverse=True) and groups[-1] >= 1
        assert c["uncovered_values"] == 0 and c["problems"] == []
        assert all(lv["rows_below_k"] <= 60 for lv in c["levels"])
    assert age[-1]["groups_below_k"] == 0
    # through the page; no value of the table on it
    client, csrf = ui_session(workdir)
    r = client.post(
        "/policy", data={"csrf": csrf, "target": "policy.yaml", "yaml": GOOD, "action": "preview"}
    )
    assert r.status_code == 200 and r.text.count('class="grid hierarchy-preview"') == 2
    assert "p1@example.com" not in r.text and "10003" not in r.text
    bad = client.post(
        "/policy",
        data={
            "csrf": csrf,
            "target": "p.yaml",
            "yaml": GOOD.replace("k: 5", "k: 1"),
            "action": "preview",
        },
    )
    assert bad.status_code == 400
