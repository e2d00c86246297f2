"""The ledger's storage: SQLAlchemy tables and engines configured for safe concurrent spends.

Two backends:

* **SQLite** (the default, a file under ``platformdirs.user_data_dir("veil")``). Python's
  ``sqlite3`` driver by default issues a *deferred* ``BEGIN`` lazily before the first write,
  so two processes can both read the spent total and then both write: a lost update. The
  engine here switches the driver to autocommit (``isolation_level=None``) and emits
  ``BEGIN IMMEDIATE`` itself when SQLAlchemy begins a transaction (the recipe in SQLAlchemy's
  pysqlite documentation), so a spending transaction takes the database's write lock before
  it reads the total. Other writers wait up to ``busy_timeout`` seconds. The journal is put
  in WAL mode so readers do not block the writer.
* **PostgreSQL** (a shared ledger for a team). A spend locks the dataset's row with
  ``SELECT ... FOR UPDATE`` before it reads the total; concurrent spenders on the same
  dataset queue on that lock, spenders on other datasets do not.

Every change is one transaction: a process killed at any point leaves either the whole
change or none of it.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine

from veil._errors import InputError, LedgerUnavailableError

__all__ = [
    "LedgerTables",
    "db_errors",
    "default_ledger_url",
    "is_sqlite_memory",
    "make_engine",
    "redact_url",
    "set_sqlite_sync",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


def default_ledger_url() -> str:
    """The default ledger: ``sqlite:///<user data dir>/veil/ledger.sqlite``.

    ``VEIL_LEDGER_URL`` overrides it (used by the CLI and by tests).
    """
    env = os.environ.get("VEIL_LEDGER_URL")
    if env:
        return env
    import platformdirs

    path = Path(platformdirs.user_data_dir("veil")) / "ledger.sqlite"
    return f"sqlite:///{path}"


def redact_url(url: str) -> str:
    """The URL with any password hidden, safe for messages."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a malformed URL: show nothing of it
        return "<unparseable URL>"


@contextmanager
def db_errors(
    url: str, busy_timeout: float, done: str, *, store: str = "the ledger"
) -> Iterator[None]:
    """Turn the database's errors into :class:`~veil.LedgerUnavailableError` saying what
    was not done ("nothing was ``done``", a past participle) in which ``store``, with the
    URL's password hidden and no SQL or values.

    Both SQLAlchemy's wrapped errors and ``sqlite3``'s own (from the spend path that runs on
    the DB-API connection, :mod:`veil.dp._spend_txn`) are mapped."""
    try:
        yield
    except (sa.exc.OperationalError, sqlite3.OperationalError) as exc:
        orig = exc.orig if isinstance(exc, sa.exc.DBAPIError) else exc
        text = str(orig).lower() if orig is not None else ""
        if "locked" in text or "busy" in text or "lock timeout" in text:
            raise LedgerUnavailableError(
                f"{store} {redact_url(url)} is locked by another process "
                f"(waited {busy_timeout:g} s); nothing was {done}",
                hint="retry later, or raise busy_timeout",
            ) from None
        raise LedgerUnavailableError(
            f"cannot reach {store} {redact_url(url)} "
            f"({type(orig).__name__ if orig is not None else 'error'}); "
            f"nothing was {done}",
            hint="check the --ledger URL, that the server runs and that you may connect",
        ) from None
    except (sa.exc.DatabaseError, sqlite3.DatabaseError) as exc:
        orig = exc.orig if isinstance(exc, sa.exc.DBAPIError) else exc
        raise LedgerUnavailableError(
            f"{store} {redact_url(url)} failed ({type(orig).__name__}); nothing was {done}",
            hint="is the URL a veil ledger? check the database's health",
        ) from None


def make_engine(url: str, *, busy_timeout: float = 30.0) -> Engine:
    """An engine for the ledger at ``url``, configured for serialized spends.

    Parameters
    ----------
    url
        A SQLAlchemy URL: ``sqlite:///path`` or ``postgresql+psycopg://user@host/db``.
    busy_timeout
        Seconds a spend waits for another process's lock before failing with
        :class:`~veil.LedgerUnavailableError`.
    """
    try:
        parsed = sa.engine.make_url(url)
    except Exception:  # noqa: BLE001
        raise InputError(
            "the ledger URL is not a valid SQLAlchemy URL",
            hint="use e.g. sqlite:///ledger.sqlite or postgresql+psycopg://user@host/db",
        ) from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed, busy_timeout)
    if backend == "postgresql":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args: dict[str, Any] = {"connect_timeout": max(1, int(busy_timeout))}
        # lock_timeout bounds the wait for another spender's row lock (milliseconds).
        connect_args["options"] = f"-c lock_timeout={int(busy_timeout * 1000)}"
        try:
            return sa.create_engine(
                parsed, connect_args=connect_args, pool_pre_ping=True, pool_size=2, max_overflow=2
            )
        except ModuleNotFoundError:
            from veil._errors import MissingDependencyError

            raise MissingDependencyError(
                "a PostgreSQL ledger needs the Python package 'psycopg', which is not installed",
                hint="pip install 'veil[postgres]'",
            ) from None
    raise InputError(
        f"the ledger supports SQLite and PostgreSQL, not {backend!r}",
        hint="use sqlite:///path/to/ledger.sqlite or postgresql+psycopg://user@host/db",
    )


def is_sqlite_memory(engine: Engine) -> bool:
    """Whether ``engine`` is an in-memory SQLite database (one connection per thread)."""
    return engine.dialect.name == "sqlite" and engine.url.database in (None, "", ":memory:")


def set_sqlite_sync(info: dict[str, Any], execute: Callable[[str], Any], sync: str) -> None:
    """Put a pooled SQLite connection in ``synchronous=<sync>`` (FULL: fsync at commit).

    The setting lasts for the connection, so it is sent only when it changes; ``info`` is
    the pool's per-connection dict, shared by SQLAlchemy's begin event and the spend path
    that runs on the ``sqlite3`` connection itself."""
    if info.get("veil_sync") != sync:
        execute(f"PRAGMA synchronous = {sync}")
        info["veil_sync"] = sync


def _sqlite_engine(parsed: sa.engine.URL, busy_timeout: float) -> Engine:
    database = parsed.database
    if database and database != ":memory:" and not database.startswith("file:"):
        path = Path(database).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        parsed = parsed.set(database=str(path))
    engine = sa.create_engine(parsed, connect_args={"timeout": busy_timeout})
    in_memory = is_sqlite_memory(engine)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event, not the driver, start transactions.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        # WAL: readers never block the spender. The mode is stored in the file, so set it
        # only when it is not set yet (changing it needs a lock).
        if not in_memory and cur.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            cur.execute("PRAGMA journal_mode = WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        opts = conn.get_execution_options()
        if not in_memory:
            # FULL (fsync at commit) unless the caller marked the change safe to lose
            sync = "NORMAL" if opts.get("sqlite_sync") == "NORMAL" else "FULL"
            set_sqlite_sync(conn.connection.info, conn.exec_driver_sql, sync)
        mode = "DEFERRED" if opts.get("sqlite_begin") == "DEFERRED" else "IMMEDIATE"
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


class LedgerTables:
    """The ledger's three tables, named ``<prefix>meta``, ``<prefix>datasets``, ``<prefix>spends``.

    ``datasets`` holds one row per dataset with its budget and running totals (the row a
    spend locks); ``spends`` holds the history. ``meta`` records the schema version.
    """

    def __init__(self, prefix: str = "veil_") -> None:
        if not _PREFIX_RE.match(prefix):
            raise InputError(
                "the ledger table prefix must be 1-31 lowercase letters, digits or '_', "
                "starting with a letter",
            )
        self.prefix = prefix
        md = sa.MetaData()
        self.metadata = md
        self.meta = sa.Table(
            f"{prefix}meta",
            md,
            sa.Column("key", sa.String(64), primary_key=True),
            sa.Column("value", sa.String(255), nullable=False),
        )
        self.datasets = sa.Table(
            f"{prefix}datasets",
            md,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(255), nullable=False, unique=True),
            sa.Column("fingerprint", sa.String(128), nullable=True),
            sa.Column("epsilon_total", sa.Float, nullable=False),
            sa.Column("delta_total", sa.Float, nullable=False),
            sa.Column("composition", sa.String(16), nullable=False),
            # Plain sums over every recorded spend (reserved or committed), kept in the same
            # transaction as the spend rows, so a reader sees both or neither.
            sa.Column("epsilon_sum", sa.Float, nullable=False, default=0.0),
            sa.Column("delta_sum", sa.Float, nullable=False, default=0.0),
            sa.Column("n_spends", sa.Integer, nullable=False, default=0),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("created_by", sa.String(255), nullable=False),
        )
        self.spends = sa.Table(
            f"{prefix}spends",
            md,
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column(
                "dataset_id",
                sa.Integer,
                sa.ForeignKey(f"{prefix}datasets.id", ondelete="CASCADE"),
                nullable=False,
                index=True,
            ),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.Column("who", sa.String(255), nullable=False),
            sa.Column("what", sa.Text, nullable=False),
            sa.Column("mechanism", sa.String(64), nullable=False),
            sa.Column("epsilon", sa.Float, nullable=False),
            sa.Column("delta", sa.Float, nullable=False),
            sa.Column("curve", sa.Text, nullable=True),  # JSON, see veil.dp._composition
            sa.Column("status", sa.String(16), nullable=False),  # reserved | committed
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("committed_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("holder", sa.String(255), nullable=True),  # host:pid of a reservation
            sa.UniqueConstraint("dataset_id", "seq", name=f"{prefix}spends_seq"),
        )

        # The statements of the spend path, built once (building them per spend cost about a
        # fifth of a spend's CPU); bound parameters carry the values.
        self.dataset_by_name = sa.select(self.datasets).where(
            self.datasets.c.name == sa.bindparam("b_name")
        )
        self.dataset_by_name_for_update = self.dataset_by_name.with_for_update()
        self.last_seq = sa.select(sa.func.max(self.spends.c.seq)).where(
            self.spends.c.dataset_id == sa.bindparam("b_dataset_id")
        )
        self.add_to_sums = (
            sa.update(self.datasets)
            .where(self.datasets.c.id == sa.bindparam("b_id"))
            .values(
                epsilon_sum=self.datasets.c.epsilon_sum + sa.bindparam("b_epsilon", type_=sa.Float),
                delta_sum=self.datasets.c.delta_sum + sa.bindparam("b_delta", type_=sa.Float),
                n_spends=self.datasets.c.n_spends + sa.bindparam("b_n", type_=sa.Integer),
            )
        )

    def create(self, engine: Engine) -> None:
        """Create the tables if missing; safe when several processes do it at once."""
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Serialize concurrent CREATE TABLE IF NOT EXISTS, which can otherwise race.
                conn.execute(
                    sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"),
                    {"k": f"veil-ledger:{self.prefix}"},
                )
            self.metadata.create_all(conn, checkfirst=True)
            row = conn.execute(
                sa.select(self.meta.c.value).where(self.meta.c.key == "schema_version")
            ).first()
            if row is None:
                conn.execute(
                    sa.insert(self.meta).values(key="schema_version", value=str(SCHEMA_VERSION))
                )
            elif int(row[0]) > SCHEMA_VERSION:
                raise LedgerUnavailableError(
                    f"the ledger was written by a newer veil (schema {row[0]}, this veil "
                    f"reads {SCHEMA_VERSION})",
                    hint="upgrade veil",
                )

    def drop(self, engine: Engine) -> None:
        """Drop the tables (tests and benchmarks clean up with this)."""
        self.metadata.drop_all(engine, checkfirst=True)
