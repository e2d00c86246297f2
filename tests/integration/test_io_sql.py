"""SQL input and output against SQLite and the PostgreSQL server on 127.0.0.1:5432."""

from __future__ import annotations

import uuid
from pathlib import Path

import pandas as pd
import pytest

from veil import InputError
from veil.io import read_sql, write_sql


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db.sqlite'}"
    return request.getfixturevalue("postgres_url")


def test_write_then_read_table_and_query(url: str) -> None:
    import sqlalchemy as sa

    table = f"veil_io_{uuid.uuid4().hex[:8]}"
    df = pd.DataFrame({"age": [30, 40, 50], "zip": ["10115", "10117", "10119"]})
    try:
        write_sql(df, url, table)
        back = read_sql(url, table=table)
        pd.testing.assert_frame_equal(back, df, check_dtype=False)
        q = read_sql(url, query=f"select age from {table} where age > 35")
        assert q["age"].tolist() == [40, 50]
        with pytest.raises(InputError, match="already exists"):
            write_sql(df, url, table)
        write_sql(df.head(1), url, table, if_exists="replace")
        assert len(read_sql(url, table=table)) == 1
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            names = sa.inspect(conn).get_table_names()
        engine.dispose()
        assert not [n for n in names if n.startswith("veil_stage_")]  # no staging leftovers
    finally:
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
        engine.dispose()


def test_missing_table_is_a_clear_error(url: str) -> None:
    with pytest.raises(InputError, match="not found"):
        read_sql(url, table="veil_no_such_table")


def test_unreachable_database_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="database read failed"):
        read_sql("postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=1", table="t")
