"""The token vault on PostgreSQL (skipped when the server is absent, unless CI=true)."""

import os
import uuid

import pytest

from veil.text import TokenVault

pytestmark = pytest.mark.postgres
URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def pg_url() -> str:
    sa = pytest.importorskip("sqlalchemy")
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


def test_vault_on_postgres(pg_url: str) -> None:
    import sqlalchemy as sa

    key = uuid.uuid4().bytes * 2
    engine = sa.create_engine(pg_url)
    with engine.begin() as conn:  # a fresh key needs a fresh vault: drop what a run left
        for t in ("veil_text_vault_audit", "veil_text_vault", "veil_text_vault_meta"):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {t}"))
    engine.dispose()
    vault = TokenVault(pg_url, key)
    try:
        tok = vault.tokenize("Jane Roe", "PERSON")
        assert vault.tokenize("Jane Roe", "PERSON") == tok
        vault.flush()
        vault.flush()
        assert vault.lookup(tok, actor="dpo", purpose="test") == "Jane Roe"
        assert vault.audit_log()[-1]["found"] is True
    finally:
        vault.close()
