"""Shared fixtures: a CLI runner that captures stdout, stderr and logs in-process."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from veil.cli import main

ON_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Under CI=true nothing may skip: a missing dependency, service or module of ours is a
# failure there, not a skip that nobody reads. The one exception is hardware that the CI
# machine genuinely lacks (a GPU): such a skip's reason starts with this prefix.
CI_ALLOWED_SKIP_PREFIX = "[hardware]"


def _skip_fails_on_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not ON_CI or not report.skipped or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
    if reason.removeprefix("Skipped: ").startswith(CI_ALLOWED_SKIP_PREFIX):
        return
    report.outcome = "failed"
    report.longrepr = f"skipped under CI=true, where nothing may skip: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    _skip_fails_on_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    # a module-level importorskip skips the whole module at collection
    outcome = yield
    _skip_fails_on_ci(outcome.get_result())


@dataclass
class CliResult:
    code: int
    out: str
    err: str
    logs: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture):
    """Run ``veil ARGS`` in-process; returns exit code, stdout, stderr and captured logs."""

    def run(*args: str | Path) -> CliResult:
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err, caplog.text)

    return run


def _require_service(available: bool, reason: str) -> None:
    if available:
        return
    if ON_CI:
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


@pytest.fixture
def require_service():
    """``require_service(available, reason)``: skip when a system service is missing, except
    under CI=true, where the test fails instead (CI installs every service it needs)."""
    return _require_service


def _postgres_up() -> bool:
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(PG_URL, connect_args={"connect_timeout": 2})
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
        return True
    except Exception:
        return False


PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def postgres_url(require_service) -> str:
    """URL of the test PostgreSQL database (skips outside CI when the server is absent)."""
    require_service(_postgres_up(), "PostgreSQL is not reachable on 127.0.0.1:5432")
    return PG_URL


# -- veil ui: a client that exchanged the one-time token, and a wait for a background job --
UI_PORT = 8765


def open_ui_session(workdir: Path, analyzer: object = None, **settings: object):  # type: ignore[no-untyped-def]
    """A Starlette test client of a new ``veil ui`` app over ``workdir`` that exchanged the
    token for its cookie, and the CSRF token its pages carry (``settings``: more
    :class:`veil.ui.UiSettings` fields). Imported here, not at collection: the ui extra is
    optional."""
    import re
    import warnings

    pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
        warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
        from starlette.testclient import TestClient

    from veil.ui import UiSettings, create_app

    s = UiSettings(workdir=workdir, port=UI_PORT, **settings)  # type: ignore[arg-type]
    client = TestClient(create_app(s, analyzer=analyzer), base_url=f"http://127.0.0.1:{UI_PORT}")
    assert client.get(f"/data?token={s.sessions.token}", follow_redirects=False).status_code == 303
    found = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/data").text)
    assert found is not None
    return client, found.group(1)


@pytest.fixture
def ui_session():  # type: ignore[no-untyped-def]
    """:func:`open_ui_session`, for a test to call with its working folder."""
    return open_ui_session


def wait_for_job(client, kind: str, job: str, seconds: float = 30.0) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """The state of the app's job ``job`` (``/api/KIND/JOB``) once it stopped running."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(f"/api/{kind}/{job}").json()
        if state["state"] != "running":
            return dict(state)
        time.sleep(0.05)
    raise AssertionError(f"the {kind} job did not finish in {seconds:.0f} s")


@pytest.fixture
def wait_job():  # type: ignore[no-untyped-def]
    """:func:`wait_for_job`, for a test to call with its client and job id."""
    return wait_for_job
