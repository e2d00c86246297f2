"""The erasure log: every fit and erasure request of a SISA model, in SQLite or PostgreSQL.

Two tables (prefix ``veil_``):

* ``erasure_requests``: one row per request: its id, the model's id, time, kind (``fit`` or
  ``forget``), the reason given, counts (ids asked, forgotten, already forgotten), the shards
  and slices retrained, the model version written and the seconds it took.
* ``erasure_ids``: one row per id of a request with its outcome (``forgotten`` or
  ``already_forgotten``). The id is stored only as its keyed hash (HMAC-SHA256 under a
  subkey of the erasure key): the log shows *that* an id was erased and lets a resubmission be
  recognised, but does not reveal the id to whoever reads the database without the key.

SQLite (the default, ``DIR/erasure-log.sqlite``) and PostgreSQL (a shared log for a team) use
the same engines as the privacy-budget ledger (:func:`veil.dp._store.make_engine`). A request
is one transaction; the model's new manifest is written inside it, before the commit, so a
failed commit leaves the log without the entry and a failed manifest write rolls it back.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa

from veil.dp._store import db_errors, make_engine, redact_url

_STORE = "the erasure log"  # named in database errors

__all__ = ["ErasureLog"]


_REQUESTS = "veil_erasure_requests"
_IDS = "veil_erasure_ids"
_IN_CHUNK = 500  # ids per "IN (...)" query (SQLite's bound-parameter limit is 999 in old builds)


def _tables(md: sa.MetaData) -> tuple[sa.Table, sa.Table]:
    requests = sa.Table(
        _REQUESTS,
        md,
        sa.Column("request_id", sa.String(32), primary_key=True),
        sa.Column("model_id", sa.String(32), nullable=False, index=True),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("ids", sa.Integer, nullable=False),
        sa.Column("forgotten", sa.Integer, nullable=False),
        sa.Column("already_forgotten", sa.Integer, nullable=False),
        sa.Column("shards_retrained", sa.Text, nullable=False),
        sa.Column("slices_retrained", sa.Text, nullable=False),
        sa.Column("model_version", sa.Integer, nullable=False),
        sa.Column("seconds", sa.Float, nullable=True),
    )
    ids = sa.Table(
        _IDS,
        md,
        sa.Column("request_id", sa.String(32), nullable=False, index=True),
        sa.Column("model_id", sa.String(32), nullable=False),
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Index("ix_veil_erasure_ids_model_hash", "model_id", "id_hash"),
    )
    return requests, ids


# An erasure's statements as plain SQL (the same on SQLite and PostgreSQL): building the
# tables' metadata and compiling Core statements cost a fresh process (every `veil unlearn
# forget`) several milliseconds of a one-row erasure. The tables are :func:`_tables`.
_LATEST = sa.text("SELECT max(model_version) FROM veil_erasure_requests WHERE model_id = :model_id")
_FORGOTTEN_AMONG = sa.text(
    "SELECT id_hash FROM veil_erasure_ids WHERE model_id = :model_id AND outcome = 'forgotten' "
    "AND id_hash IN :hashes"
).bindparams(sa.bindparam("hashes", expanding=True))
_INSERT_REQUEST = sa.text(
    "INSERT INTO veil_erasure_requests (request_id, model_id, created, kind, reason, ids, "
    "forgotten, already_forgotten, shards_retrained, slices_retrained, model_version, seconds) "
    "VALUES (:request_id, :model_id, :created, :kind, :reason, :ids, :forgotten, "
    ":already_forgotten, :shards_retrained, :slices_retrained, :model_version, :seconds)"
)
_INSERT_ID = sa.text(
    "INSERT INTO veil_erasure_ids (request_id, model_id, id_hash, outcome) "
    "VALUES (:request_id, :model_id, :id_hash, :outcome)"
)


class ErasureLog:
    """The erasure log at a SQLAlchemy URL.

    Examples
    --------
    >>> log = ErasureLog("sqlite://")
    >>> rid = log.record("m1", kind="fit", model_version=1, id_hashes=[], outcome="")
    >>> [r["kind"] for r in log.requests("m1")]
    ['fit']
    """

    def __init__(self, url: str, *, busy_timeout: float = 30.0, create: bool = True) -> None:
        """``create=False``: the tables exist already (a model's log, reopened); skips the
        schema check, a few milliseconds of a one-row erasure."""
        self.url = url
        self.busy_timeout = busy_timeout
        self.engine = make_engine(url, busy_timeout=busy_timeout)
        if create:
            md = sa.MetaData()
            self.__dict__["_tables"] = _tables(md)
            with db_errors(url, busy_timeout, "opened", store=_STORE):
                md.create_all(self.engine)

    @property
    def requests_t(self) -> sa.Table:
        return self._table_pair()[0]

    @property
    def ids_t(self) -> sa.Table:
        return self._table_pair()[1]

    def _table_pair(self) -> tuple[sa.Table, sa.Table]:
        pair = self.__dict__.get("_tables")
        if pair is None:
            pair = self.__dict__["_tables"] = _tables(sa.MetaData())
        return pair  # type: ignore[no-any-return]

    @property
    def where(self) -> str:
        return redact_url(self.url)

    def close(self) -> None:
        self.engine.dispose()

    def latest_version(self, model_id: str) -> int | None:
        with (
            db_errors(self.url, self.busy_timeout, "read", store=_STORE),
            self.engine.connect() as c,
        ):
            got = c.execute(_LATEST, {"model_id": model_id}).scalar()
        return None if got is None else int(got)

    def forgotten(self, model_id: str, among: Iterable[str] | None = None) -> set[str]:
        """Hex hashes of every id forgotten from the model; with ``among`` (hex hashes),
        only those of them (an erasure asks about its own ids, not the whole history)."""
        if among is not None:
            asked = sorted(set(among))
            out: set[str] = set()
            with (
                db_errors(self.url, self.busy_timeout, "read", store=_STORE),
                self.engine.connect() as c,
            ):
                for i in range(0, len(asked), _IN_CHUNK):
                    rows = c.execute(
                        _FORGOTTEN_AMONG,
                        {"model_id": model_id, "hashes": asked[i : i + _IN_CHUNK]},
                    )
                    out.update(r[0] for r in rows)
            return out
        t = self.ids_t
        with (
            db_errors(self.url, self.busy_timeout, "read", store=_STORE),
            self.engine.connect() as c,
        ):
            rows = c.execute(
                sa.select(t.c.id_hash).where(t.c.model_id == model_id, t.c.outcome == "forgotten")
            )
            return {r[0] for r in rows}

    def record(
        self,
        model_id: str,
        *,
        kind: str,
        model_version: int,
        id_hashes: Iterable[tuple[str, str]] | list[Any],
        outcome: str = "",
        reason: str | None = None,
        forgotten: int = 0,
        already: int = 0,
        shards: list[int] | None = None,
        slices: dict[int, list[int]] | None = None,
        seconds: float | None = None,
        before_commit: Callable[[], None] | None = None,
    ) -> str:
        """Insert a request (and its ``(id_hash, outcome)`` pairs) in one transaction.

        ``before_commit`` runs inside the transaction after the inserts (the model's manifest
        is written there): if it raises, nothing is recorded.
        """
        request_id = uuid.uuid4().hex
        pairs = list(id_hashes)
        row = {
            "request_id": request_id,
            "model_id": model_id,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            "kind": kind,
            "reason": reason,
            "ids": len(pairs),
            "forgotten": forgotten,
            "already_forgotten": already,
            "shards_retrained": json.dumps(sorted(shards or [])),
            "slices_retrained": json.dumps({str(k): v for k, v in sorted((slices or {}).items())}),
            "model_version": model_version,
            "seconds": seconds,
        }
        with (
            db_errors(self.url, self.busy_timeout, "recorded", store=_STORE),
            self.engine.begin() as c,
        ):
            c.execute(_INSERT_REQUEST, row)
            if pairs:
                c.execute(
                    _INSERT_ID,
                    [
                        {"request_id": request_id, "model_id": model_id, "id_hash": h, "outcome": o}
                        for h, o in pairs
                    ],
                )
            if before_commit is not None:
                before_commit()
        return request_id

    def requests(self, model_id: str) -> list[dict[str, Any]]:
        """Every request of the model, oldest first (no id hashes: counts only)."""
        t = self.requests_t
        with (
            db_errors(self.url, self.busy_timeout, "read", store=_STORE),
            self.engine.connect() as c,
        ):
            rows = c.execute(
                sa.select(t).where(t.c.model_id == model_id).order_by(t.c.created, t.c.request_id)
            ).mappings()
            out = []
            for r in rows:
                d = dict(r)
                d["shards_retrained"] = json.loads(d["shards_retrained"])
                d["slices_retrained"] = json.loads(d["slices_retrained"])
                out.append(d)
        return out
