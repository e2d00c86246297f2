"""The budget ledger: spending, refusing, reservations, bad input and unusable databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from veil import InputError, PrivacyBudgetExceeded
from veil._errors import LedgerUnavailableError
from veil.dp import BudgetLedger, SpendRequest, curve_pure


@pytest.fixture
def ledger(tmp_path: Path) -> BudgetLedger:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("d", epsilon=1.0, delta=1e-6)
    yield led
    led.close()


def test_spend_and_remaining(ledger: BudgetLedger) -> None:
    s = ledger.spend("d", epsilon=0.25, delta=1e-7, what="counts", mechanism="laplace")
    assert s.status == "committed" and s.seq == 1 and s.id
    assert ledger.remaining("d") == pytest.approx((0.75, 9e-7))
    (h,) = ledger.history("d")
    assert (h.id, h.what, h.mechanism, h.epsilon, h.delta) == (
        s.id,
        "counts",
        "laplace",
        0.25,
        1e-7,
    )
    assert h.created_at is not None and h.created_at.tzinfo is not None
    assert h.who  # defaults to user@host


def test_refused_spend_records_nothing_and_exits_3(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.9, what="a")
    with pytest.raises(PrivacyBudgetExceeded) as exc:
        ledger.spend("d", epsilon=0.2, what="b")
    assert exc.value.exit_code == 3
    assert len(ledger.history("d")) == 1
    with pytest.raises(PrivacyBudgetExceeded):  # delta is enforced too
        ledger.spend("d", epsilon=0.01, delta=2e-6, what="c")
    assert ledger.remaining("d")[0] == pytest.approx(0.1)


def test_exact_use_of_budget_despite_float_rounding(ledger: BudgetLedger) -> None:
    for _ in range(10):
        ledger.spend("d", epsilon=0.1, what="tenth")  # 10 * 0.1 != 1.0 in floating point
    with pytest.raises(PrivacyBudgetExceeded):
        ledger.spend("d", epsilon=1e-6, what="one more")


def test_dry_run_records_nothing(ledger: BudgetLedger) -> None:
    s = ledger.spend("d", epsilon=0.5, what="x", dry_run=True)
    assert s.status == "dry-run" and s.id is None
    assert ledger.history("d") == []
    with pytest.raises(PrivacyBudgetExceeded):
        ledger.spend("d", epsilon=5, what="x", dry_run=True)
    with ledger.charge("d", epsilon=0.5, what="x", mechanism="m", dry_run=True) as s:
        assert s.status == "dry-run"
    assert ledger.history("d") == []


def test_charge_commits_on_success_and_removes_on_error(ledger: BudgetLedger) -> None:
    with ledger.charge("d", epsilon=0.3, what="ok", mechanism="laplace") as s:
        (h,) = ledger.history("d")
        assert (h.id, h.status) == (s.id, "reserved")  # reserved before the body runs
        assert ledger.remaining("d")[0] == pytest.approx(0.7)
    assert [h.status for h in ledger.history("d")] == ["committed"]
    with (
        pytest.raises(ZeroDivisionError),
        ledger.charge("d", epsilon=0.3, what="bad", mechanism="m"),
    ):
        1 / 0  # noqa: B018
    assert len(ledger.history("d")) == 1
    assert ledger.remaining("d")[0] == pytest.approx(0.7)
    assert ledger.verify("d")["ok"]


def test_refused_charge_never_runs_the_body(ledger: BudgetLedger) -> None:
    ran = []
    with (
        pytest.raises(PrivacyBudgetExceeded),
        ledger.charge("d", epsilon=2, what="x", mechanism="m"),
    ):
        ran.append(1)
    assert ran == []


def test_charge_many_is_all_or_nothing(ledger: BudgetLedger) -> None:
    reqs = [SpendRequest(0.4, 0.0, "q1", "laplace"), SpendRequest(0.4, 0.0, "q2", "laplace")]
    with ledger.charge_many("d", reqs) as spends:
        assert [s.seq for s in spends] == [1, 2]
    with pytest.raises(PrivacyBudgetExceeded), ledger.charge_many("d", reqs):
        pass  # 0.8 more does not fit in 0.2: neither is recorded
    assert [h.what for h in ledger.history("d")] == ["q1", "q2"]


def test_release_only_reservations(ledger: BudgetLedger) -> None:
    s = ledger.spend("d", epsilon=0.1, what="x")
    with pytest.raises(InputError, match="no reserved spend"):
        ledger.release("d", s.id or "")


@pytest.mark.parametrize(
    ("eps", "delta"),
    [
        (0.0, 0.0),
        (-1.0, 0.0),
        (float("nan"), 0.0),
        (float("inf"), 0.0),
        (1.0, 1.0),
        (1.0, -0.1),
        (True, 0.0),
    ],
)
def test_bad_spend_parameters(ledger: BudgetLedger, eps: float, delta: float) -> None:
    with pytest.raises(InputError):
        ledger.spend("d", epsilon=eps, delta=delta, what="x")
    assert ledger.history("d") == []


def test_bad_budget_and_names(tmp_path: Path) -> None:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    with pytest.raises(InputError):
        led.init("x", epsilon=0)
    with pytest.raises(InputError):
        led.init("x", epsilon=1, delta=1)
    with pytest.raises(InputError):
        led.init("x", epsilon=1, composition="magic")
    with pytest.raises(InputError):
        led.init("  ", epsilon=1)
    with pytest.raises(InputError, match="no budget"):
        led.spend("unknown", epsilon=0.1, what="x")
    with pytest.raises(InputError):
        BudgetLedger("sqlite://", table_prefix="Bad-Prefix")
    led.close()


def test_budgets_are_never_reset(ledger: BudgetLedger) -> None:
    with pytest.raises(InputError, match="already has a budget"):
        ledger.init("d", epsilon=5.0)
    ledger.init("d", epsilon=1.0, delta=1e-6, exist_ok=True)  # same budget: no-op
    with pytest.raises(InputError):
        ledger.init("d", epsilon=2.0, exist_ok=True)


def test_fingerprint_mismatch_is_refused(tmp_path: Path) -> None:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("d", epsilon=1.0, fingerprint="sha256:aaa")
    led.spend("d", epsilon=0.1, what="x", fingerprint="sha256:aaa")
    with pytest.raises(InputError, match="fingerprint"):
        led.spend("d", epsilon=0.1, what="x", fingerprint="sha256:bbb")
    assert len(led.history("d")) == 1
    led.close()


def test_unreachable_database_is_a_clear_error() -> None:
    led = BudgetLedger("postgresql+psycopg://nobody:secret@127.0.0.1:1/none", busy_timeout=2)
    with pytest.raises(LedgerUnavailableError) as exc:
        led.spend("d", epsilon=0.1, what="x")
    assert "secret" not in str(exc.value)  # the password is never shown
    assert "nothing was" in str(exc.value)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerUnavailableError):
        BudgetLedger(f"sqlite:///{bad}").status("d")


def test_locked_database_fails_after_busy_timeout_without_spending(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    led = BudgetLedger(f"sqlite:///{path}", busy_timeout=0.3)
    led.init("d", epsilon=1.0)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        with pytest.raises(LedgerUnavailableError, match="locked"):
            led.spend("d", epsilon=0.1, what="x")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert led.history("d") == []
    led.spend("d", epsilon=0.1, what="x")  # and works once the lock is gone
    led.close()


def test_unsupported_backend() -> None:
    with pytest.raises(InputError, match="SQLite and PostgreSQL"):
        BudgetLedger("mysql://u@h/db").status("d")
    with pytest.raises(InputError):
        BudgetLedger("::not a url::").status("d")


def test_default_ledger_lives_in_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import platformdirs

    from veil.dp import default_ledger_url

    monkeypatch.delenv("VEIL_LEDGER_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    url = default_ledger_url()
    assert url == f"sqlite:///{Path(platformdirs.user_data_dir('veil')) / 'ledger.sqlite'}"
    assert str(tmp_path) in url
    led = BudgetLedger()
    led.init("d", epsilon=1)
    assert (tmp_path / "veil" / "ledger.sqlite").exists()
    led.close()


def test_curves_are_stored_as_json(ledger: BudgetLedger) -> None:
    ledger.spend("d", epsilon=0.5, what="x", mechanism="laplace", curve=curve_pure(0.5))
    (h,) = ledger.history("d")
    assert h.curve == {"type": "pure", "epsilon": 0.5}
    with pytest.raises(InputError, match="curve"):  # declares less than the curve implies
        ledger.spend("d", epsilon=0.1, what="x", curve=curve_pure(0.5))
    with pytest.raises(InputError, match="curve"):
        ledger.spend("d", epsilon=0.1, what="x", curve={"type": "nonsense"})


def test_status_shows_every_composition_and_enforces_the_chosen(tmp_path: Path) -> None:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("r", epsilon=10.0, delta=1e-5, composition="rdp")
    reqs = [SpendRequest(0.1, 0.0, "x", "laplace", curve=curve_pure(0.1)) for _ in range(100)]
    with led.charge_many("r", reqs):
        pass
    st = led.status("r")
    assert set(st.spent) == {"basic", "rdp", "prv"}
    assert st.spent["basic"].epsilon == pytest.approx(10.0)
    assert st.spent["rdp"].epsilon < 6.0  # 100 small pure spends compose tighter in RDP
    assert st.enforced is st.spent["rdp"]
    assert st.remaining[0] == pytest.approx(10.0 - st.spent["rdp"].epsilon)
    led.spend("r", epsilon=0.5, what="fits only under rdp", curve=curve_pure(0.5))
    d = st.as_dict()
    assert d["composition"] == "rdp" and d["total"] == {"epsilon": 10.0, "delta": 1e-5}
    led.close()


def test_every_spend_transaction_runs_with_fsync_even_after_a_lazy_one(tmp_path: Path) -> None:
    """The synchronous pragma is sent only when it changes per connection: a spend after a
    commit-of-reservation (synchronous=NORMAL) on the same pooled connection is FULL again.

    Watched through sqlite3's trace callback, which sees every statement on the driver's
    connection, whether SQLAlchemy or the DB-API spend path sent it."""
    import sqlalchemy as sa

    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("d", epsilon=10.0)
    level = {"FULL": 2, "NORMAL": 1, "OFF": 0, "EXTRA": 3}
    mode: dict[int, int] = {}  # each driver connection's current synchronous level
    modes: list[int] = []  # the connection's level whenever a spend row is written

    @sa.event.listens_for(led.engine, "checkout")
    def _watch(dbapi_conn, _record, _proxy):  # type: ignore[no-untyped-def]
        key = id(dbapi_conn)
        if key not in mode:
            mode[key] = dbapi_conn.execute("PRAGMA synchronous").fetchone()[0]

        def trace(statement: str) -> None:
            head = " ".join(statement.split()).upper()
            if head.startswith("PRAGMA SYNCHRONOUS ="):
                mode[key] = level[head.split("=")[1].strip()]
            elif head.startswith(("INSERT INTO VEIL_SPENDS", "UPDATE VEIL_SPENDS SET STATUS")):
                modes.append(mode[key])

        dbapi_conn.set_trace_callback(trace)

    led.spend("d", epsilon=0.1, what="a")
    with led.charge("d", epsilon=0.1, what="b", mechanism="m"):
        pass  # commits the reservation with synchronous=NORMAL
    led.spend("d", epsilon=0.1, what="c")
    # FULL (2) for every insert, NORMAL (1) for turning the reservation into a spend
    assert modes == [2, 2, 1, 2]
    led.close()


def test_the_dbapi_spend_path_writes_the_rows_sqlalchemy_writes(tmp_path: Path) -> None:
    """A file ledger records plain spends on the sqlite3 connection itself; reservations
    (``charge``) still go through SQLAlchemy. Both must store the same column formats, and
    what is read back must equal what was returned."""
    path = tmp_path / "l.sqlite"
    led = BudgetLedger(f"sqlite:///{path}")
    led.init("d", epsilon=10.0, delta=1e-5)
    fast = led.spend("d", epsilon=0.25, delta=1e-7, what="fast path", mechanism="laplace")
    with led.charge("d", epsilon=0.5, what="sqlalchemy path", mechanism="gaussian") as slow:
        pass
    history = led.history("d")
    assert [h.id for h in history] == [fast.id, slow.id]
    assert history[0].created_at == fast.created_at
    assert history[0].committed_at == fast.committed_at
    assert (history[0].epsilon, history[0].delta, history[0].seq) == (0.25, 1e-7, 1)
    assert history[1].seq == 2
    raw = sqlite3.connect(path)
    rows = raw.execute(
        "SELECT typeof(epsilon), typeof(seq), typeof(created_at), length(created_at), "
        "typeof(committed_at), holder FROM veil_spends ORDER BY seq"
    ).fetchall()
    raw.close()
    assert rows[0] == rows[1] == ("real", "integer", "text", 26, "text", None)
    assert led.verify("d")["ok"]
    st = led.status("d")
    assert st.spent["basic"].epsilon == pytest.approx(0.75)
    led.close()
