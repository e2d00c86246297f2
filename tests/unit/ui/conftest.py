"""What the app's tests share: a client that exchanged the one-time token, and a wait for
a background job to end."""

from __future__ import annotations

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
    from starlette.testclient import TestClient

from veil.ui import UiSettings, create_app

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"

Session = Callable[..., tuple[TestClient, str]]


def open_session(workdir: Path, analyzer: Any = None, **settings: Any) -> tuple[TestClient, str]:
    """A client of a new app over ``workdir`` that exchanged the token for its cookie, and
    the CSRF token its pages carry (``settings``: more :class:`UiSettings` fields)."""
    s = UiSettings(workdir=workdir, port=PORT, **settings)
    client = TestClient(create_app(s, analyzer=analyzer), base_url=BASE)
    assert client.get(f"/data?token={s.sessions.token}", follow_redirects=False).status_code == 303
    found = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/data").text)
    assert found is not None
    return client, found.group(1)


@pytest.fixture
def ui_session() -> Session:
    """:func:`open_session`, for a test to call with its working folder."""
    return open_session


def wait_for(client: TestClient, kind: str, job: str, seconds: float = 30.0) -> dict[str, Any]:
    """The state of job ``job`` (``/api/KIND/JOB``) once it has stopped running."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(f"/api/{kind}/{job}").json()
        if state["state"] != "running":
            return dict(state)
        time.sleep(0.05)
    raise AssertionError(f"the {kind} job did not finish in {seconds:.0f} s")


@pytest.fixture
def wait_job() -> Callable[..., dict[str, Any]]:
    """:func:`wait_for`, for a test to call with its client and job id."""
    return wait_for
