"""The persistent privacy-budget ledger: one place that knows what has been spent on a dataset.

Privacy unit and semantics: a dataset (a name plus an optional content fingerprint) has a
total (epsilon, delta). Every differentially private release computed on it is a *spend*
recorded before its noisy result is computed. The ledger refuses a spend that would make the
composed total exceed the budget under the dataset's composition (``basic``, ``rdp`` or
``prv``, see :mod:`veil.dp._composition`), by raising :class:`~veil.PrivacyBudgetExceeded`.

Concurrency: a spend is one database transaction that first locks the dataset (``BEGIN
IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` on PostgreSQL), then reads the history,
checks the budget and writes the spend. Any number of processes spending at once are
serialized on that lock and never exceed the total together. A process killed at any moment
leaves the whole spend or nothing (the database rolls back an unfinished transaction).

:meth:`BudgetLedger.charge` reserves a spend before the caller computes anything and commits
it when the caller's block ends normally; a block that raises removes the reservation (the
noisy result never left the process). A reservation whose process died stays counted (its
result may have been released) and shows as ``reserved`` in the history until someone who
knows the result was never released calls :meth:`BudgetLedger.release`.

DP statistics (:func:`veil.dp.dp_query_many`) take a shorter path for their
millisecond-long work: the spend is recorded ``committed`` in one durable transaction on
the ledger's worker thread (:meth:`BudgetLedger._submit_spends`) while the caller computes
exact aggregates that release nothing; noise is drawn only once that transaction has
committed, and spends whose noise step fails are removed (:meth:`BudgetLedger._revoke`).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import os
import socket
import uuid
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from veil._errors import InputError, LedgerUnavailableError
from veil.dp._composition import (
    COMPOSITIONS,
    check_declared,
    compose,
    validate_curve,
)
from veil.dp._records import (
    BudgetStatus,
    Spend,
    SpendRequest,
    budget_refusal,
    check_eps_delta,
    check_name,
    default_who,
    utcnow,
)
from veil.dp._spend_txn import (
    SaSpendTxn,
    SqliteSpendSql,
    SqliteSpendTxn,
    no_budget,
    sqlite_spend_txn,
)
from veil.dp._store import (
    LedgerTables,
    db_errors,
    default_ledger_url,
    is_sqlite_memory,
    make_engine,
    redact_url,
)

__all__ = ["BudgetLedger", "BudgetStatus", "Spend", "SpendRequest"]

log = logging.getLogger(__name__)

# Relative slack for float rounding of sums (50 spends of 0.02 sum to 1.0000000000000002).
_REL_TOL = 1e-9


def _preload_accountants() -> None:
    from veil.dp._composition import _opacus

    _opacus("opacus.accountants.analysis.rdp")
    _opacus("opacus.accountants")


class BudgetLedger:
    """A persistent, concurrency-safe privacy-budget ledger (SQLite or PostgreSQL).

    Parameters
    ----------
    url
        SQLAlchemy URL of the ledger database. ``None``: ``$VEIL_LEDGER_URL``, else a SQLite
        file under ``platformdirs.user_data_dir("veil")``.
    table_prefix
        Prefix of the ledger's tables (several ledgers can share one database).
    busy_timeout
        Seconds to wait for another process's lock before failing with
        :class:`~veil.LedgerUnavailableError` (nothing is spent then).

    Examples
    --------
    >>> ledger = BudgetLedger("sqlite:///:memory:")
    >>> ledger.init("adult", epsilon=2.0, delta=1e-6)
    >>> with ledger.charge("adult", epsilon=0.5, what="mean age", mechanism="laplace") as s:
    ...     pass  # compute the noisy result here
    >>> ledger.remaining("adult")
    (1.5, 1e-06)
    >>> ledger.spend("adult", epsilon=2.0, what="too much")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    veil._errors.PrivacyBudgetExceeded: ...
    """

    def __init__(
        self, url: str | None = None, *, table_prefix: str = "veil_", busy_timeout: float = 30.0
    ) -> None:
        self.url = url or default_ledger_url()
        self.table_prefix = table_prefix
        self.busy_timeout = busy_timeout
        self._tables = LedgerTables(table_prefix)
        self._engine: Engine | None = None
        self._pid = os.getpid()
        self._compositions: dict[str, str] = {}
        # Test hook: called inside the spend transaction, after the insert, before commit.
        self._before_commit: Callable[[], None] | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._sqlite_sql: SqliteSpendSql | None = None

    # ------------------------------------------------------------------ plumbing

    def __repr__(self) -> str:
        return f"BudgetLedger({redact_url(self.url)!r})"

    @property
    def engine(self) -> Engine:
        if self._engine is not None and self._pid != os.getpid():
            # A forked child (e.g. a DataLoader worker) must not use its parent's pooled
            # connections; drop them without closing the parent's.
            self._engine.dispose(close=False)
            self._engine = None
            self._worker = None  # the parent's worker thread does not exist in a fork
        if self._engine is None:
            engine = make_engine(self.url, busy_timeout=self.busy_timeout)
            # Close pooled connections when the ledger is garbage-collected unclosed.
            self._finalizer = weakref.finalize(self, engine.dispose)
            with self._db_errors("opened"):
                try:
                    self._tables.create(engine)
                except BaseException:
                    engine.dispose()
                    raise
            self._engine = engine
            self._pid = os.getpid()
        return self._engine

    def close(self) -> None:
        """Release the database connections."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None
        if self._engine is not None:
            self._finalizer()
            self._engine = None

    def __enter__(self) -> BudgetLedger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _db_errors(self, done: str) -> AbstractContextManager[None]:
        return db_errors(self.url, self.busy_timeout, done)

    @contextmanager
    def _locked(
        self, dataset: str, done: str, *, durable: bool = True
    ) -> Iterator[tuple[Connection, Any]]:
        """A transaction holding the dataset's lock, and the dataset's row.

        ``durable=False`` lets SQLite skip the fsync at commit (WAL ``synchronous=NORMAL``:
        still safe against a killed process, not against power loss). Only for changes whose
        loss is safe: turning a reservation into a committed spend, or removing one (a lost
        change leaves the reservation counted).
        """
        check_name(dataset)
        t = self._tables
        with (
            self._db_errors(done),
            self.engine.connect() as raw,
            raw.execution_options(sqlite_sync="FULL" if durable else "NORMAL").begin(),
        ):
            conn = raw
            stmt = (
                t.dataset_by_name_for_update
                if conn.dialect.name == "postgresql"
                else t.dataset_by_name
            )
            row = conn.execute(stmt, {"b_name": dataset}).first()
            if row is None:
                raise no_budget(dataset)
            yield conn, row

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        """A read-only connection (a deferred transaction on SQLite: it takes no write lock)."""
        with self._db_errors("read"), self.engine.connect() as conn:
            yield conn.execution_options(sqlite_begin="DEFERRED")

    @contextmanager
    def _spend_txn(self, dataset: str, *, fast: bool) -> Iterator[SaSpendTxn | SqliteSpendTxn]:
        """A durable transaction holding the dataset's lock, for recording spends.

        ``fast`` (a SQLite file ledger only) runs it on the ``sqlite3`` connection
        (:mod:`veil.dp._spend_txn`): the same lock (``BEGIN IMMEDIATE``), the same fsync at
        commit (``synchronous=FULL``), the same rows.
        """
        if not fast:
            with self._locked(dataset, "spent") as (conn, row):
                yield SaSpendTxn(conn, self._tables, row)
            return
        check_name(dataset)
        if self._sqlite_sql is None:
            self._sqlite_sql = SqliteSpendSql(self._tables, self.engine.dialect)
        with (
            self._db_errors("spent"),
            sqlite_spend_txn(self.engine, self._sqlite_sql, dataset) as tx,
        ):
            yield tx

    # ------------------------------------------------------------------ budget setup

    def init(
        self,
        dataset: str,
        *,
        epsilon: float,
        delta: float = 0.0,
        fingerprint: str | None = None,
        composition: str = "basic",
        who: str | None = None,
        exist_ok: bool = False,
    ) -> None:
        """Give ``dataset`` a total budget of (``epsilon``, ``delta``).

        Parameters
        ----------
        fingerprint
            Content hash of the data (see :func:`veil.dp.fingerprint_frame`); queries that
            pass a different one are refused.
        composition
            How spends compose: ``basic`` (plain sum), ``rdp`` or ``prv`` (tighter where
            spends carry privacy curves). Enforced for every later spend.
        exist_ok
            With the same budget already recorded, do nothing instead of failing.
        """
        check_name(dataset)
        epsilon, delta = check_eps_delta(epsilon, delta, total=True)
        if composition not in COMPOSITIONS:
            raise InputError(
                f"unknown composition {composition!r}",
                hint=f"use one of: {', '.join(COMPOSITIONS)}",
            )
        t = self._tables
        lost_race = False
        with self._db_errors("initialized"), self.engine.begin() as conn:
            existing = conn.execute(
                sa.select(t.datasets).where(t.datasets.c.name == dataset)
            ).first()
            if existing is not None:
                same = (
                    existing.epsilon_total == epsilon
                    and existing.delta_total == delta
                    and existing.composition == composition
                    and (fingerprint is None or existing.fingerprint == fingerprint)
                )
                if exist_ok and same:
                    return
                raise InputError(
                    f"dataset {dataset!r} already has a budget in this ledger",
                    hint="budgets are never reset; use a new dataset name for new data",
                )
            try:
                with conn.begin_nested():  # a lost race undoes only this insert
                    conn.execute(
                        sa.insert(t.datasets).values(
                            name=dataset,
                            fingerprint=fingerprint,
                            epsilon_total=epsilon,
                            delta_total=delta,
                            composition=composition,
                            epsilon_sum=0.0,
                            delta_sum=0.0,
                            n_spends=0,
                            created_at=utcnow(),
                            created_by=who or default_who(),
                        )
                    )
            except sa.exc.IntegrityError:
                # Another process created it between our read and our insert.
                if not exist_ok:
                    raise InputError(
                        f"dataset {dataset!r} already has a budget in this ledger",
                        hint="budgets are never reset; use a new dataset name for new data",
                    ) from None
                lost_race = True
        if lost_race:  # compare with what the other process wrote
            self.init(
                dataset,
                epsilon=epsilon,
                delta=delta,
                fingerprint=fingerprint,
                composition=composition,
                who=who,
                exist_ok=True,
            )

    def _composition_of(self, dataset: str) -> str | None:
        """The dataset's composition rule (fixed at init, so cached), or None if unknown."""
        if dataset not in self._compositions:
            t = self._tables
            with self._reading() as conn:
                value = conn.execute(
                    sa.select(t.datasets.c.composition).where(t.datasets.c.name == dataset)
                ).scalar()
            if value is None:
                return None
            self._compositions[dataset] = str(value)
        return self._compositions[dataset]

    def datasets(self) -> list[str]:
        """Names of the datasets that have a budget."""
        t = self._tables
        with self._reading() as conn:
            return [
                r[0] for r in conn.execute(sa.select(t.datasets.c.name).order_by(t.datasets.c.name))
            ]

    # ------------------------------------------------------------------ reading

    def _history_rows(self, conn: Connection, dataset_id: int) -> list[Any]:
        t = self._tables
        return list(
            conn.execute(
                sa.select(t.spends)
                .where(t.spends.c.dataset_id == dataset_id)
                .order_by(t.spends.c.seq)
            )
        )

    def _status(
        self,
        row: Any,
        rows: list[Any],
        extra: list[tuple[float, float, Any]] | None = None,
        *,
        all_compositions: bool = True,
    ) -> BudgetStatus:
        triples = [(r.epsilon, r.delta, r.curve) for r in rows] + list(extra or [])
        spent = {"basic": compose(triples, "basic", delta_total=row.delta_total)}
        names = {row.composition}
        if all_compositions and any(c is not None for _, _, c in triples):
            names.update(COMPOSITIONS)
        for name in COMPOSITIONS:
            if name != "basic" and name in names:
                spent[name] = compose(triples, name, delta_total=row.delta_total)
        return BudgetStatus(
            dataset=row.name,
            fingerprint=row.fingerprint,
            composition=row.composition,
            epsilon_total=row.epsilon_total,
            delta_total=row.delta_total,
            spent=spent,
            n_spends=len(triples),
            n_reserved=sum(1 for r in rows if r.status == "reserved"),
        )

    def status(self, dataset: str) -> BudgetStatus:
        """The dataset's budget, its spent totals under each composition and what is left."""
        row, rows = self._dataset_with_history(dataset)
        return self._status(row, rows)

    def remaining(self, dataset: str) -> tuple[float, float]:
        """(epsilon, delta) left under the dataset's enforced composition."""
        return self.status(dataset).remaining

    def history(self, dataset: str) -> list[Spend]:
        """Every spend recorded on ``dataset``, oldest first (reservations included)."""
        _, rows = self._dataset_with_history(dataset)
        return [self._spend_from_row(dataset, r) for r in rows]

    def _dataset_with_history(self, dataset: str) -> tuple[Any, list[Any]]:
        """The dataset's row and its spends, read in one snapshot; a clear error if absent."""
        check_name(dataset)
        t = self._tables
        with self._reading() as conn:
            row = conn.execute(sa.select(t.datasets).where(t.datasets.c.name == dataset)).first()
            if row is None:
                raise InputError(
                    f"no budget for dataset {dataset!r} in this ledger",
                    hint=f"create one: veil budget init {dataset} --epsilon E --delta D",
                )
            return row, self._history_rows(conn, row.id)

    @staticmethod
    def _spend_from_row(dataset: str, r: Any) -> Spend:
        def aware(x: dt.datetime | None) -> dt.datetime | None:
            if x is not None and x.tzinfo is None:  # SQLite returns naive datetimes
                return x.replace(tzinfo=dt.UTC)
            return x

        return Spend(
            id=r.id,
            dataset=dataset,
            epsilon=r.epsilon,
            delta=r.delta,
            mechanism=r.mechanism,
            what=r.what,
            who=r.who,
            curve=json.loads(r.curve) if r.curve else None,
            status=r.status,
            seq=r.seq,
            created_at=aware(r.created_at),
            committed_at=aware(r.committed_at),
        )

    # ------------------------------------------------------------------ spending

    def _prepare(self, req: SpendRequest) -> SpendRequest:
        epsilon, delta = check_eps_delta(req.epsilon, req.delta, total=False)
        if not isinstance(req.what, str) or not req.what.strip():
            raise InputError("a spend needs a description ('what'): what is being released")
        mech = req.mechanism
        if not isinstance(mech, str) or not mech.strip() or len(mech) > 64:
            raise InputError("a spend needs a mechanism name of at most 64 characters")
        curve_d = validate_curve(req.curve) if req.curve is not None else None
        if curve_d is not None:
            check_declared(epsilon, delta, curve_d)  # before taking the lock: may be slow
        return SpendRequest(epsilon, delta, req.what, mech, req.who or default_who(), curve_d)

    def _record(
        self,
        dataset: str,
        requests: list[SpendRequest],
        *,
        fingerprint: str | None,
        status: str,
        dry_run: bool,
    ) -> list[Spend]:
        """Check and record ``requests`` in one transaction: all of them or none."""
        if not requests:
            raise InputError("nothing to spend: no spends given")
        reqs = [self._prepare(r) for r in requests]
        new = [(r.epsilon, r.delta, r.curve) for r in reqs]
        basic = self._composition_of(dataset) == "basic"
        if not basic:
            # Load the accountants before taking the lock, not while others wait on it.
            _preload_accountants()
        engine = self.engine
        fast = basic and engine.dialect.name == "sqlite" and not is_sqlite_memory(engine)
        with self._spend_txn(dataset, fast=fast) as tx:
            row = tx.row
            if (
                fingerprint is not None
                and row.fingerprint is not None
                and fingerprint != row.fingerprint
            ):
                raise InputError(
                    f"the data does not match the fingerprint recorded for dataset {dataset!r}",
                    hint="use the dataset the budget was created for, or init a new dataset name",
                )
            if row.composition == "basic":
                # The plain sum needs only the running totals kept with the dataset's row.
                last = tx.last_seq()
                eps_after = row.epsilon_sum + math.fsum(r.epsilon for r in reqs)
                delta_after = row.delta_sum + math.fsum(r.delta for r in reqs)
                before = (
                    max(0.0, row.epsilon_total - row.epsilon_sum),
                    max(0.0, row.delta_total - row.delta_sum),
                )
            else:
                assert isinstance(tx, SaSpendTxn)  # the fast path is for basic composition
                rows = self._history_rows(tx.conn, row.id)
                last = rows[-1].seq if rows else None
                composed = self._status(row, rows, new, all_compositions=False).enforced
                eps_after, delta_after = composed.epsilon, composed.delta
                before = self._status(row, rows, all_compositions=False).remaining
            eps_ok = eps_after <= row.epsilon_total * (1 + _REL_TOL)
            delta_ok = delta_after <= row.delta_total * (1 + _REL_TOL)
            if not (eps_ok and delta_ok):
                raise budget_refusal(
                    dataset,
                    row.composition,
                    asked=(
                        math.fsum(r.epsilon for r in reqs),
                        math.fsum(r.delta for r in reqs),
                    ),
                    remaining=before,
                    total=(row.epsilon_total, row.delta_total),
                    ran_out=(not eps_ok, not delta_ok),
                )
            seq0 = (last or 0) + 1
            now = utcnow()
            spends = [
                Spend(
                    id=None if dry_run else uuid.uuid4().hex,
                    dataset=dataset,
                    epsilon=r.epsilon,
                    delta=r.delta,
                    mechanism=r.mechanism,
                    what=r.what,
                    who=r.who or "",
                    curve=r.curve if isinstance(r.curve, dict) else None,
                    status="dry-run" if dry_run else status,
                    seq=seq0 + i,
                    created_at=now,
                    committed_at=now if status == "committed" and not dry_run else None,
                )
                for i, r in enumerate(reqs)
            ]
            if dry_run:
                return spends  # nothing written; the transaction commits empty
            holder = f"{socket.gethostname()}:{os.getpid()}" if status == "reserved" else None
            tx.insert(
                [
                    {
                        "id": sp.id,
                        "dataset_id": row.id,
                        "seq": sp.seq,
                        "who": sp.who,
                        "what": sp.what,
                        "mechanism": sp.mechanism,
                        "epsilon": sp.epsilon,
                        "delta": sp.delta,
                        "curve": json.dumps(sp.curve) if sp.curve is not None else None,
                        "status": status,
                        "created_at": sp.created_at,
                        "committed_at": sp.committed_at,
                        "holder": holder,
                    }
                    for sp in spends
                ],
            )
            tx.add_to_sums(
                {
                    "b_id": row.id,
                    "b_epsilon": math.fsum(r.epsilon for r in reqs),
                    "b_delta": math.fsum(r.delta for r in reqs),
                    "b_n": len(reqs),
                },
            )
            if self._before_commit is not None:
                self._before_commit()
        return spends

    def spend(
        self,
        dataset: str,
        *,
        epsilon: float,
        delta: float = 0.0,
        what: str,
        mechanism: str = "external",
        who: str | None = None,
        curve: dict[str, Any] | str | None = None,
        fingerprint: str | None = None,
        dry_run: bool = False,
    ) -> Spend:
        """Record a spend at once (a release already made, e.g. outside veil).

        Raises
        ------
        PrivacyBudgetExceeded
            The spend would exceed the budget; nothing is recorded.
        LedgerUnavailableError
            The ledger cannot be reached or stayed locked; nothing is recorded.
        """
        req = SpendRequest(epsilon, delta, what, mechanism, who, curve)
        (spent,) = self._record(
            dataset, [req], fingerprint=fingerprint, status="committed", dry_run=dry_run
        )
        return spent

    @contextmanager
    def charge(
        self,
        dataset: str,
        *,
        epsilon: float,
        delta: float = 0.0,
        what: str,
        mechanism: str,
        who: str | None = None,
        curve: dict[str, Any] | str | None = None,
        fingerprint: str | None = None,
        dry_run: bool = False,
    ) -> Iterator[Spend]:
        """Reserve a spend, run the caller's block, then commit it (or remove it on error).

        The reservation is atomic and happens before the block runs, so a refused spend
        raises :class:`~veil.PrivacyBudgetExceeded` before anything noisy is computed. With
        ``dry_run`` the budget is checked, nothing is recorded, and the block still runs.

        Examples
        --------
        >>> ledger = BudgetLedger("sqlite:///:memory:")
        >>> ledger.init("d", epsilon=1.0)
        >>> with ledger.charge("d", epsilon=0.25, what="count", mechanism="laplace") as s:
        ...     s.status
        'reserved'
        >>> [h.status for h in ledger.history("d")]
        ['committed']
        """
        req = SpendRequest(epsilon, delta, what, mechanism, who, curve)
        with self.charge_many(dataset, [req], fingerprint=fingerprint, dry_run=dry_run) as (spend,):
            yield spend

    @contextmanager
    def charge_many(
        self,
        dataset: str,
        requests: list[SpendRequest],
        *,
        fingerprint: str | None = None,
        dry_run: bool = False,
    ) -> Iterator[list[Spend]]:
        """Like :meth:`charge` for several spends reserved and committed together.

        All of ``requests`` are checked against the budget as one composition and reserved
        in one transaction (all or none); each gets its own history entry. A batch of
        queries is answered either whole or not at all.
        """
        spends = self._record(
            dataset, list(requests), fingerprint=fingerprint, status="reserved", dry_run=dry_run
        )
        if dry_run:
            yield spends
            return
        try:
            yield spends
        except BaseException:
            self._drop_reservations(dataset, spends)
            raise
        self._commit_reservations(dataset, spends)

    def _submit_spends(
        self, dataset: str, requests: list[SpendRequest], *, fingerprint: str | None = None
    ) -> Future[list[Spend]]:
        """Check and record ``requests`` as committed spends on the ledger's worker thread.

        For callers that can do work which releases nothing (e.g. an exact aggregate that
        never leaves the process) while the ledger's transaction runs, and that draw noise
        only after :meth:`Future.result` returned: it raises
        :class:`~veil.PrivacyBudgetExceeded` (nothing recorded) or returns the spends,
        durably committed. If the caller's noisy step then fails, it removes them with
        :meth:`_revoke`. A process killed after the commit leaves the spends counted
        (conservative: the ledger cannot know whether a result left).

        An in-memory SQLite ledger has one connection per thread, so it records at once.
        """
        reqs = list(requests)
        if is_sqlite_memory(self.engine):
            done: Future[list[Spend]] = Future()
            try:
                done.set_result(
                    self._record(
                        dataset, reqs, fingerprint=fingerprint, status="committed", dry_run=False
                    )
                )
            except Exception as exc:  # noqa: BLE001 - handed to the caller through the future
                done.set_exception(exc)
            return done
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veil-ledger")
        return self._worker.submit(
            self._record, dataset, reqs, fingerprint=fingerprint, status="committed", dry_run=False
        )

    def _revoke(self, dataset: str, spends: list[Spend]) -> None:
        """Remove committed ``spends`` whose noisy result was never computed.

        Only for :meth:`_submit_spends`' callers whose noisy step failed; if the ledger
        cannot be reached the spends stay counted (conservative) and a warning says so.
        """
        self._drop_reservations(dataset, spends, status="committed")

    def _drop_reservations(
        self, dataset: str, spends: list[Spend], *, status: str = "reserved"
    ) -> None:
        t = self._tables
        ids = [sp.id for sp in spends]
        try:
            with self._locked(dataset, "released", durable=False) as (conn, row):
                gone = list(
                    conn.execute(
                        sa.select(t.spends.c.epsilon, t.spends.c.delta).where(
                            t.spends.c.id.in_(ids), t.spends.c.status == status
                        )
                    )
                )
                conn.execute(
                    sa.delete(t.spends).where(t.spends.c.id.in_(ids), t.spends.c.status == status)
                )
                if gone:
                    conn.execute(  # x + (-y) is x - y exactly in IEEE arithmetic
                        t.add_to_sums,
                        {
                            "b_id": row.id,
                            "b_epsilon": -math.fsum(g[0] for g in gone),
                            "b_delta": -math.fsum(g[1] for g in gone),
                            "b_n": -len(gone),
                        },
                    )
        except LedgerUnavailableError:
            # The reservations stay counted: conservative, never an overspend.
            log.warning("could not remove %d spend(s) of failed work; they stay counted", len(ids))

    def _commit_reservations(self, dataset: str, spends: list[Spend]) -> None:
        t = self._tables
        with self._locked(dataset, "committed", durable=False) as (conn, _row):
            conn.execute(
                sa.update(t.spends)
                .where(t.spends.c.id.in_([sp.id for sp in spends]))
                .values(status="committed", committed_at=utcnow(), holder=None)
            )

    def release(self, dataset: str, spend_id: str) -> Spend:
        """Remove a ``reserved`` spend whose process died before committing it.

        Only call this when you know the reservation's result was never released: the
        ledger keeps such reservations counted because it cannot know.
        """
        t = self._tables
        with self._locked(dataset, "released") as (conn, row):
            r = conn.execute(
                sa.select(t.spends).where(
                    t.spends.c.id == spend_id, t.spends.c.dataset_id == row.id
                )
            ).first()
            if r is None or r.status != "reserved":
                raise InputError(
                    "no reserved spend with that id on this dataset",
                    hint="committed spends are never removed; see veil budget history",
                )
            conn.execute(sa.delete(t.spends).where(t.spends.c.id == spend_id))
            conn.execute(
                t.add_to_sums,
                {"b_id": row.id, "b_epsilon": -r.epsilon, "b_delta": -r.delta, "b_n": -1},
            )
            return self._spend_from_row(dataset, r)

    def verify(self, dataset: str) -> dict[str, Any]:
        """Re-check the stored running totals against the history (an independent sum).

        Returns a dict with ``ok`` and the two sums; used by ``veil budget show`` and tests.
        """
        t = self._tables
        with self._reading() as conn:
            row = conn.execute(sa.select(t.datasets).where(t.datasets.c.name == dataset)).first()
            if row is None:
                raise InputError(f"no budget for dataset {dataset!r} in this ledger")
            agg = conn.execute(
                sa.select(
                    sa.func.count(), sa.func.coalesce(sa.func.sum(t.spends.c.epsilon), 0.0)
                ).where(t.spends.c.dataset_id == row.id)
            ).one()
        ok = int(agg[0]) == row.n_spends and math.isclose(
            float(agg[1]), row.epsilon_sum, rel_tol=1e-9, abs_tol=1e-12
        )
        return {
            "ok": ok,
            "n_spends": int(agg[0]),
            "n_spends_recorded": row.n_spends,
            "epsilon_history_sum": float(agg[1]),
            "epsilon_running_sum": row.epsilon_sum,
        }
