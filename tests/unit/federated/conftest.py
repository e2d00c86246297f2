"""Fixtures shared by the federated unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def task_identity() -> Iterator[None]:
    """The task identity a ServerApp or ClientApp process has set by Flower (messages
    cannot be built without it), restored afterwards. Modules that build messages use it
    with ``pytestmark = pytest.mark.usefixtures("task_identity")``."""
    from flwr.supercore.task_identity import TaskIdentity

    saved = (TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id)
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = 1, 0, 1
    yield
    TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id = saved
