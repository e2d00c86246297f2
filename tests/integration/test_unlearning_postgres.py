"""The erasure log on PostgreSQL (skipped when the server is absent, unless CI=true)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from veil._errors import InputError
from veil.unlearning import ErasureLog, SISAModel, SklearnShardTrainer

pytestmark = pytest.mark.postgres
URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
KEY = bytes.fromhex("a47c19e2f05b3d8861c2e9f7043ab5d6e18f2c7094d3b5a6c0e71f8d29b4a5c3")


@pytest.fixture
def pg_url() -> str:
    import sqlalchemy as sa

    engine = sa.create_engine(URL)
    try:
        with engine.connect():
            pass
    except Exception as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"PostgreSQL not reachable ({type(exc).__name__})")
    finally:
        engine.dispose()
    return URL


def test_sisa_model_with_a_postgres_erasure_log(pg_url: str, tmp_path: Path) -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(5)
    x = rng.normal(size=(120, 3))
    data = {"x": x, "y": (x[:, 0] > 0).astype(np.int64)}
    ids = [f"r{i}" for i in range(120)]
    trainer = SklearnShardTrainer(LogisticRegression())
    model = SISAModel.fit(
        tmp_path / "m", data, ids, trainer=trainer, key=KEY, shards=3, slices=1, log_url=pg_url
    )
    with model:
        assert not (tmp_path / "m" / "erasure-log.sqlite").exists()
        out = model.forget(["r1", "r2"], reason="art 17")
        assert out["forgotten"] == 2
        assert model.forget(["r2"])["already_forgotten"] == 1
        assert model.verify()["exact"] is True
    # the folder remembers its log lives elsewhere, without the URL's secrets
    with pytest.raises(InputError, match="keeps its erasure log"):
        SISAModel.open(tmp_path / "m", key=KEY, trainer=trainer)
    with SISAModel.open(tmp_path / "m", key=KEY, trainer=trainer, log_url=pg_url) as m:
        kinds = [(r["kind"], r["forgotten"], r["already_forgotten"]) for r in m.erasure_log()]
        assert kinds == [("fit", 0, 0), ("forget", 2, 0), ("forget", 0, 1)]
        log = ErasureLog(pg_url)
        try:
            assert len(log.forgotten(m.model_id)) == 2
            assert log.latest_version(m.model_id) == 2
        finally:
            log.close()
