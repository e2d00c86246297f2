"""A spend's transaction: the statements that record spends while the dataset is locked.

Two implementations of one small interface (``row``, ``last_seq``, ``insert``,
``add_to_sums``), used by :meth:`veil.dp.BudgetLedger._record`:

* :class:`SaSpendTxn` on a SQLAlchemy connection (PostgreSQL, in-memory SQLite,
  compositions that read the whole history);
* :class:`SqliteSpendTxn` on the ``sqlite3`` connection itself, for plain (basic
  composition) spends on a SQLite file, opened by :func:`sqlite_spend_txn`. It skips
  SQLAlchemy's per-statement machinery (execution context, events, result processing),
  which runs on the ledger's worker thread while a DP query computes its exact aggregate:
  one spend went from 0.9 to 0.4-0.7 ms (``ledger_spend_alone`` in
  ``benchmarks/dp_stats.py``). The SQL text,
  the columns and the value conversions still come from SQLAlchemy's tables and dialect
  (:class:`SqliteSpendSql`), so both write the same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from veil._errors import InputError
from veil.dp._store import LedgerTables, set_sqlite_sync

__all__ = [
    "DatasetRow",
    "SaSpendTxn",
    "SqliteSpendSql",
    "SqliteSpendTxn",
    "no_budget",
    "sqlite_spend_txn",
]


class DatasetRow(NamedTuple):
    """The columns of a dataset's row that a spend reads."""

    id: int
    fingerprint: str | None
    epsilon_total: float
    delta_total: float
    composition: str
    epsilon_sum: float
    delta_sum: float


class SqliteSpendSql:
    """The spend path's statements compiled once for Python's ``sqlite3`` driver, from
    SQLAlchemy's own tables and dialect: SQL text, column list and value conversions
    (``bind_processor``, e.g. how a ``DateTime`` is stored)."""

    def __init__(self, tables: LedgerTables, dialect: Any) -> None:
        named = type(dialect)(paramstyle="named")  # sqlite3 takes :name parameters
        d, s = tables.datasets, tables.spends

        def sql(stmt: Any, **kw: Any) -> str:
            return str(stmt.compile(dialect=named, **kw))

        self.dataset_by_name = sql(
            sa.select(*(d.c[k] for k in DatasetRow._fields)).where(
                d.c.name == sa.bindparam("b_name")
            )
        )
        self.last_seq = sql(tables.last_seq)
        self.add_to_sums = sql(tables.add_to_sums)
        keys = [c.key for c in s.columns]
        self.insert_spend = sql(sa.insert(s), column_keys=keys)
        procs = {c.key: c.type.dialect_impl(named).bind_processor(named) for c in s.columns}
        self._processors = {k: p for k, p in procs.items() if p is not None}

    def spend_params(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` (one spend row, Python values) converted as SQLAlchemy would bind them."""
        out = dict(values)
        for key, proc in self._processors.items():
            if out.get(key) is not None:
                out[key] = proc(out[key])
        return out


class SaSpendTxn:
    """A spend's statements on a SQLAlchemy connection that holds the dataset's lock."""

    def __init__(self, conn: Connection, tables: LedgerTables, row: Any) -> None:
        self.conn, self.tables, self.row = conn, tables, row

    def last_seq(self) -> int | None:
        return self.conn.execute(self.tables.last_seq, {"b_dataset_id": self.row.id}).scalar()

    def insert(self, rows: list[dict[str, Any]]) -> None:
        self.conn.execute(sa.insert(self.tables.spends), rows)

    def add_to_sums(self, params: dict[str, Any]) -> None:
        self.conn.execute(self.tables.add_to_sums, params)


class SqliteSpendTxn:
    """The same statements on a ``sqlite3`` connection inside ``BEGIN IMMEDIATE``."""

    def __init__(self, dbapi: sqlite3.Connection, sql: SqliteSpendSql, row: DatasetRow) -> None:
        self.dbapi, self.sql, self.row = dbapi, sql, row

    def last_seq(self) -> int | None:
        found = self.dbapi.execute(self.sql.last_seq, {"b_dataset_id": self.row.id}).fetchone()
        return None if found is None else found[0]

    def insert(self, rows: list[dict[str, Any]]) -> None:
        self.dbapi.executemany(self.sql.insert_spend, [self.sql.spend_params(r) for r in rows])

    def add_to_sums(self, params: dict[str, Any]) -> None:
        self.dbapi.execute(self.sql.add_to_sums, params)


def no_budget(dataset: str) -> InputError:
    return InputError(
        f"no budget for dataset {dataset!r} in this ledger",
        hint=f"create one: veil budget init {dataset} --epsilon E --delta D",
    )


@contextmanager
def sqlite_spend_txn(engine: Engine, sql: SqliteSpendSql, dataset: str) -> Iterator[SqliteSpendTxn]:
    """``BEGIN IMMEDIATE`` on a pooled ``sqlite3`` connection with ``synchronous=FULL``
    (fsync at commit), the dataset's row read under that lock; commits when the block ends
    normally, rolls back otherwise. sqlite3's errors pass through to the caller."""
    pooled = engine.raw_connection()
    try:
        dbapi = pooled.driver_connection
        assert isinstance(dbapi, sqlite3.Connection)
        set_sqlite_sync(pooled.info, dbapi.execute, "FULL")
        dbapi.execute("BEGIN IMMEDIATE")
        try:
            found = dbapi.execute(sql.dataset_by_name, {"b_name": dataset}).fetchone()
            if found is None:
                raise no_budget(dataset)
            yield SqliteSpendTxn(dbapi, sql, DatasetRow(*found))
            dbapi.execute("COMMIT")
        except BaseException:
            if dbapi.in_transaction:
                dbapi.execute("ROLLBACK")
            raise
    finally:
        pooled.close()
