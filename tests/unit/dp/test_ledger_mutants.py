"""The budget ledger, on what mutation testing showed untested.

Re-initializing a budget, the edges of the budget check, the rows a spend writes (sequence,
holder, commit time, running sums), reservations released or removed, a refusal under a
tighter composition, and the messages. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
from pathlib import Path

import pytest
import sqlalchemy as sa

from veil import InputError, PrivacyBudgetExceeded
from veil.dp import BudgetLedger, SpendRequest, curve_pure

pytestmark = pytest.mark.filterwarnings("ignore:Optimal order is the:UserWarning")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "l.sqlite"


@pytest.fixture
def ledger(path: Path) -> BudgetLedger:
    led = BudgetLedger(f"sqlite:///{path}")
    led.init("d", epsilon=1.0, delta=1e-6)
    yield led
    led.close()


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


def test_repr_hides_the_password_and_defaults() -> None:
    led = BudgetLedger("postgresql://u:secret@db.example/veil")
    assert repr(led) == "BudgetLedger('postgresql://u:***@db.example/veil')"
    assert (led.table_prefix, led.busy_timeout) == ("veil_", 30.0)


def test_tables_carry_the_prefix(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}", table_prefix="zz_") as led:
        led.init("d", epsilon=1.0)
        led.spend("d", epsilon=0.5, what="x")
    names = {r[0] for r in _rows(path, "select name from sqlite_master where type='table'")}
    assert names and all(n.startswith("zz_") for n in names)


def test_init_records_the_budget_and_who(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("b", epsilon=2.0, delta=1e-5, fingerprint="f1", composition="rdp", who="ann")
        led.init("a", epsilon=1.0)
        assert led.datasets() == ["a", "b"]
        st = led.status("b")
        assert (st.dataset, st.fingerprint, st.composition) == ("b", "f1", "rdp")
        assert (st.epsilon_total, st.delta_total, st.n_spends, st.n_reserved) == (
            2.0,
            1e-5,
            0,
            0,
        )
        assert led.remaining("b") == (2.0, 1e-5)
        assert led.verify("b") == {
            "ok": True,
            "n_spends": 0,
            "n_spends_recorded": 0,
            "epsilon_history_sum": 0.0,
            "epsilon_running_sum": 0.0,
        }
    rows = _rows(path, "select name, created_by from veil_datasets order by name")
    assert rows[1] == ("b", "ann")
    assert rows[0][1] and "@" in str(rows[0][1])  # the default: user@host


def test_init_again_only_with_exist_ok_and_the_same_budget(ledger: BudgetLedger) -> None:
    ledger.init("d", epsilon=1.0, delta=1e-6, exist_ok=True)
    for changed in (
        {"epsilon": 2.0, "delta": 1e-6},
        {"epsilon": 1.0, "delta": 1e-7},
        {"epsilon": 1.0, "delta": 1e-6, "composition": "rdp"},
        {"epsilon": 1.0, "delta": 1e-6, "fingerprint": "other"},
    ):
        with pytest.raises(InputError) as info:
            ledger.init("d", exist_ok=True, **changed)  # type: ignore[arg-type]
        assert info.value.message == "dataset 'd' already has a budget in this ledger"
        assert info.value.hint == "budgets are never reset; use a new dataset name for new data"
    with pytest.raises(InputError, match="already has a budget"):
        ledger.init("d", epsilon=1.0, delta=1e-6)  # the same budget, without exist_ok


def test_init_again_with_the_recorded_fingerprint(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("d", epsilon=1.0, fingerprint="f1")
        led.init("d", epsilon=1.0, fingerprint="f1", exist_ok=True)
        led.init("d", epsilon=1.0, exist_ok=True)  # no fingerprint given: not compared
        # the recorded budget stands, once, with its fingerprint
        assert led.datasets() == ["d"]
        status = led.status("d")
        assert (status.fingerprint, status.epsilon_total, status.n_spends) == ("f1", 1.0, 0)
        with pytest.raises(InputError, match="already has a budget"):
            led.init("d", epsilon=1.0, fingerprint="f2", exist_ok=True)  # other data


def test_unknown_composition_names_the_valid_ones(ledger: BudgetLedger) -> None:
    with pytest.raises(InputError) as info:
        ledger.init("e", epsilon=1.0, composition="advanced")
    assert info.value.message == "unknown composition 'advanced'"
    assert info.value.hint == "use one of: basic, rdp, prv"
    assert ledger.datasets() == ["d"]


def test_a_dataset_without_budget_is_named_with_how_to_create_it(ledger: BudgetLedger) -> None:
    for call in (
        lambda: ledger.history("nope"),
        lambda: ledger.status("nope"),
        lambda: ledger.spend("nope", epsilon=0.1, what="x"),
        lambda: ledger.release("nope", "id"),
    ):
        with pytest.raises(InputError) as info:
            call()
        assert info.value.message == "no budget for dataset 'nope' in this ledger"
        assert info.value.hint == "create one: veil budget init nope --epsilon E --delta D"
    with pytest.raises(InputError, match="no budget for dataset 'nope'"):
        ledger.verify("nope")


def test_a_spend_needs_what_and_a_short_mechanism(ledger: BudgetLedger) -> None:
    for what in ("", "   ", None):
        with pytest.raises(InputError) as info:
            ledger.spend("d", epsilon=0.1, what=what)  # type: ignore[arg-type]
        assert info.value.message == (
            "a spend needs a description ('what'): what is being released"
        )
    for mech in ("", "  ", "m" * 65, None):
        with pytest.raises(InputError) as info:
            ledger.spend("d", epsilon=0.1, what="x", mechanism=mech)  # type: ignore[arg-type]
        assert info.value.message == "a spend needs a mechanism name of at most 64 characters"
    s = ledger.spend("d", epsilon=0.1, what="x", mechanism="m" * 64, who="bob")
    assert (s.mechanism, s.who) == ("m" * 64, "bob")
    assert ledger.history("d")[0].who == "bob"
    d = ledger.spend("d", epsilon=0.1, what="y")
    assert d.who and "@" in d.who and d.who == ledger.history("d")[1].who
    assert d.mechanism == "external"


def test_nothing_to_spend(ledger: BudgetLedger) -> None:
    with pytest.raises(InputError) as info, ledger.charge_many("d", []):
        pass
    assert info.value.message == "nothing to spend: no spends given"


def test_a_fingerprint_is_compared_only_where_both_are_known(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("f", epsilon=1.0, fingerprint="abc")
        led.init("n", epsilon=1.0)
        led.spend("f", epsilon=0.1, what="x", fingerprint="abc")
        led.spend("f", epsilon=0.1, what="x")  # the caller gave none
        led.spend("n", epsilon=0.1, what="x", fingerprint="abc")  # the dataset has none
        with pytest.raises(InputError) as info:
            led.spend("f", epsilon=0.1, what="x", fingerprint="abd")
        assert info.value.message == (
            "the data does not match the fingerprint recorded for dataset 'f'"
        )
        assert info.value.hint == (
            "use the dataset the budget was created for, or init a new dataset name"
        )
        assert len(led.history("f")) == 2


@pytest.mark.parametrize("memory", [False, True])
def test_the_budget_edge_allows_only_float_rounding(path: Path, memory: bool) -> None:
    url = "sqlite:///:memory:" if memory else f"sqlite:///{path}"
    with BudgetLedger(url) as led:
        led.init("e", epsilon=1.0, delta=1e-6)
        led.spend("e", epsilon=1.0 + 5e-10, delta=1e-6 * (1 + 5e-10), what="all of it")
        assert led.remaining("e") == (0.0, 0.0)
        with pytest.raises(PrivacyBudgetExceeded) as info:
            led.spend("e", epsilon=1e-9, what="a little more")
        assert info.value.ran_out == ("epsilon",)  # type: ignore[attr-defined]
        led.init("g", epsilon=1.0, delta=1e-6)
        with pytest.raises(PrivacyBudgetExceeded) as info:
            led.spend("g", epsilon=1.0 + 2e-9, what="too much")
        assert info.value.ran_out == ("epsilon",)  # type: ignore[attr-defined]
        with pytest.raises(PrivacyBudgetExceeded) as info:
            led.spend("g", epsilon=0.5, delta=1e-6 * (1 + 2e-9), what="too much delta")
        assert info.value.ran_out == ("delta",)  # type: ignore[attr-defined]
        assert led.history("g") == []


def test_a_refusal_names_what_was_asked_and_left(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.75, delta=4e-7, what="first")
    reqs = [SpendRequest(0.25, 1e-7, "a", "m"), SpendRequest(0.125, 2e-7, "b", "m")]
    with pytest.raises(PrivacyBudgetExceeded) as info, ledger.charge_many("d", reqs):
        pass
    msg = info.value.message
    assert "epsilon: requested 0.375, remaining 0.25 of 1 (RAN OUT)" in msg
    assert "delta: requested 3e-07, remaining 6e-07 of 1e-06 (enough left)" in msg
    assert "under basic composition" in msg


def test_a_refusal_under_rdp_reports_what_rdp_leaves(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("r", epsilon=10.0, delta=1e-5, composition="rdp")
        reqs = [SpendRequest(0.1, 0.0, "x", "laplace", curve=curve_pure(0.1))] * 100
        with led.charge_many("r", reqs) as spends:
            assert [s.seq for s in spends] == list(range(1, 101))
        left = led.remaining("r")[0]
        assert 4.0 < left < 10.0  # the plain sum would leave nothing
        s = led.spend("r", epsilon=0.01, what="one more", curve=curve_pure(0.01))
        assert s.seq == 101
        left = led.remaining("r")[0]
        with pytest.raises(PrivacyBudgetExceeded) as info:
            led.spend("r", epsilon=9.0, what="too much")
        assert f"remaining {left:.6g} of 10 (RAN OUT)" in info.value.message
        assert "under rdp composition" in info.value.message


def test_sequence_continues_and_a_spend_records_its_times(ledger: BudgetLedger) -> None:
    before = dt.datetime.now(dt.UTC)
    a = ledger.spend("d", epsilon=0.1, what="a")
    reqs = [SpendRequest(0.1, 0.0, "b", "m"), SpendRequest(0.1, 0.0, "c", "m")]
    with ledger.charge_many("d", reqs) as spends:
        assert [s.seq for s in spends] == [2, 3]
        assert all(s.committed_at is None and s.status == "reserved" for s in spends)
        assert [h.committed_at for h in ledger.history("d")[1:]] == [None, None]
    assert a.seq == 1 and a.committed_at == a.created_at and a.created_at >= before
    hist = ledger.history("d")
    assert [h.seq for h in hist] == [1, 2, 3] and [h.what for h in hist] == ["a", "b", "c"]
    assert all(h.committed_at is not None and h.committed_at.tzinfo is not None for h in hist)
    assert hist[1].committed_at >= hist[1].created_at  # type: ignore[operator]
    dry = ledger.spend("d", epsilon=0.1, what="d", dry_run=True)
    assert (dry.seq, dry.committed_at, dry.status) == (4, None, "dry-run")


def test_a_reservation_names_its_holder_until_committed(ledger: BudgetLedger, path: Path) -> None:
    sql = "select what, status, holder from veil_spends order by seq"
    ledger.spend("d", epsilon=0.1, what="now")
    with ledger.charge("d", epsilon=0.1, what="later", mechanism="m"):
        rows = _rows(path, sql)
        assert rows == [
            ("now", "committed", None),
            ("later", "reserved", f"{socket.gethostname()}:{os.getpid()}"),
        ]
        assert ledger.status("d").n_reserved == 1
        assert ledger.status("d").n_spends == 2
    assert _rows(path, sql)[1] == ("later", "committed", None)
    assert ledger.status("d").n_reserved == 0


def test_the_running_sums_follow_every_change(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.25, delta=1e-7, what="a")
    with ledger.charge_many("d", [SpendRequest(0.125, 2e-7, "b", "m")] * 2):
        pass
    with pytest.raises(RuntimeError), ledger.charge("d", epsilon=0.25, what="c", mechanism="m"):
        raise RuntimeError
    v = ledger.verify("d")
    assert v == {
        "ok": True,
        "n_spends": 3,
        "n_spends_recorded": 3,
        "epsilon_history_sum": 0.5,
        "epsilon_running_sum": 0.5,
    }
    assert ledger.remaining("d") == pytest.approx((0.5, 5e-7), rel=1e-12)


def test_release_removes_a_reservation_and_gives_its_budget_back(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.25, delta=1e-7, what="kept")
    with ledger.charge("d", epsilon=0.5, delta=2e-7, what="dead", mechanism="laplace") as s:
        assert s.id is not None
        # a process that knows this result never left releases it (as if its owner died)
        gone = ledger.release("d", s.id)
        assert (gone.id, gone.what, gone.mechanism, gone.status) == (
            s.id,
            "dead",
            "laplace",
            "reserved",
        )
        assert (gone.epsilon, gone.delta, gone.seq) == (0.5, 2e-7, 2)
        assert gone.created_at is not None and gone.created_at.tzinfo is not None
    assert [h.what for h in ledger.history("d")] == ["kept"]
    assert ledger.remaining("d") == pytest.approx((0.75, 9e-7), rel=1e-12)
    v = ledger.verify("d")
    assert v["ok"] and v["n_spends_recorded"] == 1 and v["epsilon_running_sum"] == 0.25
    with pytest.raises(InputError) as info:
        ledger.release("d", "no-such-id")
    assert info.value.message == "no reserved spend with that id on this dataset"
    assert info.value.hint == "committed spends are never removed; see veil budget history"


def test_release_looks_only_at_its_own_dataset(ledger: BudgetLedger) -> None:
    ledger.init("other", epsilon=1.0)
    with (
        ledger.charge("d", epsilon=0.5, what="x", mechanism="m") as s,
        pytest.raises(InputError, match="no reserved spend"),
    ):
        ledger.release("other", s.id or "")
    assert len(ledger.history("d")) == 1


@pytest.mark.parametrize("memory", [False, True])
def test_submitted_spends_are_committed_and_revoked(path: Path, memory: bool) -> None:
    url = "sqlite:///:memory:" if memory else f"sqlite:///{path}"
    with BudgetLedger(url) as led:
        led.init("d", epsilon=1.0, delta=1e-6)
        reqs = [SpendRequest(0.25, 1e-7, "a", "laplace"), SpendRequest(0.25, 0.0, "b", "m")]
        spends = led._submit_spends("d", reqs).result()
        assert [s.status for s in spends] == ["committed", "committed"]
        assert [h.status for h in led.history("d")] == ["committed", "committed"]
        assert led.remaining("d") == pytest.approx((0.5, 9e-7), rel=1e-12)
        refused = led._submit_spends("d", [SpendRequest(0.75, 0.0, "c", "m")])
        with pytest.raises(PrivacyBudgetExceeded):
            refused.result()
        led._revoke("d", spends[1:])
        assert [h.what for h in led.history("d")] == ["a"]
        assert led.remaining("d") == pytest.approx((0.75, 9e-7), rel=1e-12)
        assert led.verify("d")["ok"]


def test_a_status_shows_the_tight_compositions_only_with_curves(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.25, what="plain")
    assert set(ledger.status("d").spent) == {"basic"}
    ledger.spend("d", epsilon=0.25, what="curved", curve=curve_pure(0.25))
    st = ledger.status("d")
    assert set(st.spent) == {"basic", "rdp", "prv"}
    assert st.enforced is st.spent["basic"] and st.n_spends == 2
    assert ledger.history("d")[1].curve == {"type": "pure", "epsilon": 0.25}
    assert ledger.history("d")[0].curve is None


def test_every_spend_read_back_names_its_dataset(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.1, what="a")
    assert [h.dataset for h in ledger.history("d")] == ["d"]
    with ledger.charge("d", epsilon=0.1, what="b", mechanism="m") as s:
        assert s.dataset == "d"
        assert ledger.release("d", s.id or "").dataset == "d"


def test_removed_work_gives_back_its_delta_to_the_running_sums(ledger: BudgetLedger) -> None:
    with (
        pytest.raises(RuntimeError),
        ledger.charge("d", epsilon=0.5, delta=5e-7, what="x", mechanism="m"),
    ):
        raise RuntimeError
    with ledger.charge("d", epsilon=0.25, delta=2.5e-7, what="y", mechanism="m") as s:
        ledger.release("d", s.id or "")
    # the whole delta is left: the running sums (which the check reads) gave both back
    ledger.spend("d", epsilon=0.5, delta=1e-6, what="all the delta")
    assert ledger.verify("d")["ok"]


def test_revoke_removes_committed_spends_only(ledger: BudgetLedger) -> None:
    with ledger.charge("d", epsilon=0.25, what="x", mechanism="m") as s:
        ledger._revoke("d", [s])  # still a reservation: its charge decides, not a revoke
        assert [h.status for h in ledger.history("d")] == ["reserved"]
    assert [h.status for h in ledger.history("d")] == ["committed"]
    v = ledger.verify("d")
    assert v["ok"] and v["epsilon_running_sum"] == 0.25


def test_submitted_spends_check_the_fingerprint(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("d", epsilon=1.0, fingerprint="abc")
        fut = led._submit_spends("d", [SpendRequest(0.1, 0.0, "a", "m")], fingerprint="abd")
        with pytest.raises(InputError, match="does not match the fingerprint"):
            fut.result()
        assert led.history("d") == []


def test_submitted_spends_run_one_at_a_time_on_the_ledger_thread(path: Path) -> None:
    import threading
    import time

    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("d", epsilon=1.0)
        names: list[str] = []

        def slow() -> None:
            names.append(threading.current_thread().name)
            time.sleep(0.05)  # the next submission arrives while this one runs

        led._before_commit = slow
        futures = [led._submit_spends("d", [SpendRequest(0.1, 0.0, "a", "m")]) for _ in range(3)]
        for f in futures:
            f.result()
        assert names == ["veil-ledger_0"] * 3


@pytest.mark.parametrize(
    ("offset", "ok"),
    [(0.0, True), (1e-10, True), (1e-7, False), (0.5, False)],
)
def test_verify_compares_the_running_sum_within_rounding(
    ledger: BudgetLedger, path: Path, offset: float, ok: bool
) -> None:
    ledger.spend("d", epsilon=0.5, what="x")
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(
            sa.text("update veil_datasets set epsilon_sum = epsilon_sum + :o"), {"o": offset}
        )
    engine.dispose()
    v = ledger.verify("d")
    assert v["ok"] is ok and v["n_spends"] == v["n_spends_recorded"] == 1
    assert v["epsilon_running_sum"] == 0.5 + offset


def test_verify_of_an_empty_history_allows_only_tiny_rounding(path: Path) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("d", epsilon=1.0)
        engine = sa.create_engine(f"sqlite:///{path}")
        with engine.begin() as conn:
            conn.execute(sa.text("update veil_datasets set epsilon_sum = 1e-13"))
        assert led.verify("d")["ok"]
        with engine.begin() as conn:
            conn.execute(sa.text("update veil_datasets set epsilon_sum = 1e-11, n_spends = 0"))
        assert not led.verify("d")["ok"]
        with engine.begin() as conn:
            conn.execute(sa.text("update veil_datasets set epsilon_sum = 0, n_spends = 1"))
        assert not led.verify("d")["ok"]  # a count that disagrees, sums that agree
        engine.dispose()


def test_a_locked_ledger_keeps_the_reservation_counted_and_says_what(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import sqlite3

    from veil._errors import LedgerUnavailableError

    led = BudgetLedger(f"sqlite:///{path}", busy_timeout=0.2)
    led.init("d", epsilon=1.0)
    holder = sqlite3.connect(path, isolation_level=None)
    caplog.set_level(logging.WARNING, logger="veil.dp._ledger")
    try:
        with (
            pytest.raises(RuntimeError),
            led.charge("d", epsilon=0.25, what="x", mechanism="m") as s,
        ):
            holder.execute("BEGIN IMMEDIATE")  # another process takes the lock meanwhile
            raise RuntimeError
        holder.execute("ROLLBACK")
        assert [r.getMessage() for r in caplog.records] == [
            "could not remove 1 spend(s) of failed work; they stay counted"
        ]
        with (
            pytest.raises(LedgerUnavailableError) as info,
            led.charge("d", epsilon=0.25, what="z", mechanism="m"),
        ):
            holder.execute("BEGIN IMMEDIATE")
        holder.execute("ROLLBACK")
        assert "nothing was committed" in info.value.message
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(LedgerUnavailableError) as info:
            led.release("d", s.id or "")
        holder.execute("ROLLBACK")
        assert "nothing was released" in info.value.message
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
    assert [h.status for h in led.history("d")] == ["reserved", "reserved"]
    led.close()


def test_a_budget_needs_epsilon_even_with_delta(ledger: BudgetLedger) -> None:
    with pytest.raises(InputError) as info:
        ledger.init("z", epsilon=0.0, delta=1e-6)
    assert info.value.message == "epsilon must be > 0"
    assert ledger.datasets() == ["d"]


def _another_process_inits_first(
    led: BudgetLedger, dataset: str, *, epsilon: float, fingerprint: str | None
) -> None:
    """Make ``dataset``'s row appear, as another process's ``init`` would write it, after
    ``led.init`` read that there is none and before it inserts its own (on SQLite the read
    holds the write lock, so the row is written on the reader's connection, just before the
    savepoint that guards the insert: the savepoint's rollback keeps it)."""
    engine = led.engine
    done: list[bool] = []

    def before(*args: object) -> None:  # conn, cursor, statement, parameters, context, many
        cursor, statement = args[1], args[2]
        assert isinstance(statement, str)
        if statement.startswith("SAVEPOINT") and not done:
            done.append(True)
            cursor.execute(  # type: ignore[attr-defined]
                "insert into veil_datasets (name, fingerprint, epsilon_total, delta_total, "
                "composition, epsilon_sum, delta_sum, n_spends, created_at, created_by) "
                "values (?, ?, ?, 1e-6, 'rdp', 0, 0, 0, '2026-11-27 10:00:00.000000', 'other')",
                (dataset, fingerprint, epsilon),
            )

    sa.event.listen(engine, "before_cursor_execute", before)


@pytest.mark.parametrize(
    ("other", "exist_ok", "refused"),
    [
        ({"epsilon": 1.0, "fingerprint": "abc"}, True, False),  # the same budget: it stands
        ({"epsilon": 1.0, "fingerprint": "abc"}, False, True),  # without exist_ok: refused
        ({"epsilon": 2.0, "fingerprint": "abc"}, True, True),  # another epsilon
        ({"epsilon": 1.0, "fingerprint": "xyz"}, True, True),  # another data fingerprint
    ],
)
def test_init_that_loses_the_race_compares_with_what_the_winner_wrote(
    path: Path, other: dict[str, object], exist_ok: bool, refused: bool
) -> None:
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("first", epsilon=1.0)  # opens the ledger: its tables exist
        _another_process_inits_first(led, "d", **other)  # type: ignore[arg-type]
        ask = {"epsilon": 1.0, "delta": 1e-6, "fingerprint": "abc", "composition": "rdp"}
        if refused:
            with pytest.raises(InputError) as info:
                led.init("d", who="me", exist_ok=exist_ok, **ask)  # type: ignore[arg-type]
            assert info.value.message == "dataset 'd' already has a budget in this ledger"
            assert info.value.hint == (
                "budgets are never reset; use a new dataset name for new data"
            )
        else:
            led.init("d", who="me", exist_ok=exist_ok, **ask)  # type: ignore[arg-type]
    if exist_ok:
        # one row, the winner's: the loser's insert was undone, nothing else was (without
        # exist_ok the refusal rolls back the whole transaction, and with it the row that
        # this test, unlike another process, wrote inside it)
        rows = _rows(path, "select name, epsilon_total, fingerprint, created_by from veil_datasets")
        assert rows[1:] == [("d", other["epsilon"], other["fingerprint"], "other")]


def test_init_on_a_locked_ledger_says_nothing_was_initialized(path: Path) -> None:
    import sqlite3

    from veil._errors import LedgerUnavailableError

    with BudgetLedger(f"sqlite:///{path}", busy_timeout=0.1) as led:
        led.init("a", epsilon=1.0)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(LedgerUnavailableError) as info:
                led.init("b", epsilon=1.0)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert info.value.message == (
            f"the ledger sqlite:///{path} is locked by another process (waited 0.1 s); "
            "nothing was initialized"
        )
        assert led.datasets() == ["a"]


def test_in_memory_submitted_spends_check_the_fingerprint() -> None:
    with BudgetLedger("sqlite:///:memory:") as led:
        led.init("d", epsilon=1.0, fingerprint="abc")
        fut = led._submit_spends("d", [SpendRequest(0.1, 0.0, "a", "m")], fingerprint="abd")
        with pytest.raises(InputError, match="does not match the fingerprint"):
            fut.result()
        assert led.history("d") == []
        led._submit_spends("d", [SpendRequest(0.1, 0.0, "a", "m")], fingerprint="abc").result()
        assert len(led.history("d")) == 1


def test_close_waits_for_submitted_spends_and_the_ledger_opens_again(path: Path) -> None:
    import time

    BudgetLedger(f"sqlite:///{path}").close()  # closing a ledger never opened
    led = BudgetLedger(f"sqlite:///{path}")
    led.init("d", epsilon=1.0)
    led._before_commit = lambda: time.sleep(0.2)
    fut = led._submit_spends("d", [SpendRequest(0.1, 0.0, "a", "m")])
    led.close()
    assert fut.done()  # close returned only once the spend was committed
    assert [s.status for s in fut.result()] == ["committed"]
    led._before_commit = None
    # a closed ledger opens again when used: a new worker thread, a new engine
    led._submit_spends("d", [SpendRequest(0.2, 0.0, "b", "m")]).result()
    assert [s.epsilon for s in led.history("d")] == [0.1, 0.2]
    led.close()


def test_a_basic_ledger_spends_without_opacus(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from veil import MissingDependencyError

    with BudgetLedger(f"sqlite:///{path}") as led:
        led.init("r", epsilon=1.0, composition="rdp")  # the first row: an rdp dataset
        led.init("b", epsilon=1.0)
    # Opacus as if not installed: only the tight compositions need it
    monkeypatch.setitem(sys.modules, "opacus.accountants.analysis.rdp", None)
    monkeypatch.setitem(sys.modules, "opacus.accountants", None)
    with BudgetLedger(f"sqlite:///{path}") as led:
        led.spend("b", epsilon=0.25, what="x")
        with led.charge("b", epsilon=0.25, what="y", mechanism="m"):
            pass
        assert led.remaining("b") == (0.5, 0.0)
        with pytest.raises(MissingDependencyError):
            led.spend("r", epsilon=0.25, what="x")
        assert led.history("r") == []


@pytest.mark.parametrize("memory", [False, True])
def test_a_spend_exactly_at_the_budget_edge_is_accepted(path: Path, memory: bool) -> None:
    url = "sqlite:///:memory:" if memory else f"sqlite:///{path}"
    with BudgetLedger(url) as led:
        led.init("e", epsilon=1.0)
        led.spend("e", epsilon=1.0 * (1 + 1e-9), what="all of it and the rounding slack")
        assert len(led.history("e")) == 1


def test_a_spend_of_delta_alone_is_accepted(ledger: BudgetLedger) -> None:
    spend = ledger.spend("d", epsilon=0.0, delta=5e-7, what="a delta-only release")
    assert (spend.epsilon, spend.delta) == (0.0, 5e-7)
    assert ledger.remaining("d") == (1.0, 5e-7)
