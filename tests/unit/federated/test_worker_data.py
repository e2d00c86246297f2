"""The rows reach a simulation worker once, through a private file, not with every message."""

from __future__ import annotations

import pickle
from pathlib import Path

import torch

from veil.federated._client import WorkerData
from veil.federated._model import FLData


def _data(rows: int, seed: int) -> FLData:
    g = torch.Generator().manual_seed(seed)
    part = (
        torch.randint(0, 5, (rows, 3), generator=g),
        torch.randn(rows, 4, generator=g),
        torch.randint(0, 2, (rows,), generator=g),
    )
    return FLData(parts=[part], train=part, test=part, arch=([5, 5, 5], 4, 2), init_seed=seed)


def _same(a: FLData, b: FLData) -> bool:
    return all(
        torch.equal(x, y)
        for p, q in zip(a.parts, b.parts, strict=True)
        for x, y in zip(p, q, strict=True)
    )


def test_a_pickled_app_carries_the_path_not_the_rows(tmp_path: Path) -> None:
    data = _data(20_000, 0)
    rows = WorkerData.save(data, tmp_path / "rows.pickle")
    app_bytes = pickle.dumps(rows)
    assert len(app_bytes) < 1_000 < (tmp_path / "rows.pickle").stat().st_size
    loaded = pickle.loads(app_bytes)  # what a worker gets with each message
    assert _same(loaded.data, data)
    # the second message to the same worker reuses the rows it read
    assert pickle.loads(app_bytes).data is loaded.data


def test_a_worker_never_keeps_an_earlier_runs_rows(tmp_path: Path) -> None:
    first = WorkerData.save(_data(50, 1), tmp_path / "a.pickle")
    second = WorkerData.save(_data(50, 2), tmp_path / "b.pickle")
    pickle.loads(pickle.dumps(first))
    got = pickle.loads(pickle.dumps(second)).data
    assert _same(got, second.data) and not _same(got, first.data)
    from veil.federated import _client

    assert list(_client._LOADED) == [str(tmp_path / "b.pickle")]
