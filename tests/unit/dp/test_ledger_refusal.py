"""A refused spend says which limit ran out (epsilon, delta or both), and by how much."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from veil import PrivacyBudgetExceeded
from veil.dp import BudgetLedger


@pytest.fixture
def ledger(tmp_path: Path) -> BudgetLedger:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}")
    led.init("d", epsilon=1.0, delta=1e-6)
    led.spend("d", epsilon=0.75, delta=4e-7, what="first")  # left: 0.25 and 6e-7
    yield led
    led.close()


def _refusal(ledger: BudgetLedger, epsilon: float, delta: float) -> PrivacyBudgetExceeded:
    with pytest.raises(PrivacyBudgetExceeded) as exc:
        ledger.spend("d", epsilon=epsilon, delta=delta, what="second")
    return exc.value


def _line(message: str, name: str) -> str:
    found = re.search(rf"{name}: requested [^;]*", message)
    assert found is not None, message
    return found.group(0)


def test_epsilon_alone_ran_out(ledger: BudgetLedger) -> None:
    exc = _refusal(ledger, epsilon=0.5, delta=1e-7)
    assert exc.ran_out == ("epsilon",)  # type: ignore[attr-defined]
    assert "the epsilon budget of 'd'" in exc.message
    assert _line(exc.message, "epsilon") == (
        "epsilon: requested 0.5, remaining 0.25 of 1 (RAN OUT)"
    )
    assert (
        _line(exc.message, "delta")
        == "delta: requested 1e-07, remaining 6e-07 of 1e-06 (enough left)"
    )


def test_delta_alone_ran_out(ledger: BudgetLedger) -> None:
    exc = _refusal(ledger, epsilon=0.1, delta=1e-6)
    assert exc.ran_out == ("delta",)  # type: ignore[attr-defined]
    assert "the delta budget of 'd'" in exc.message and "epsilon budget" not in exc.message
    assert "(RAN OUT)" in _line(exc.message, "delta")
    assert "(enough left)" in _line(exc.message, "epsilon")
    assert "ask for less delta" in (exc.hint or "")


def test_both_ran_out(ledger: BudgetLedger) -> None:
    exc = _refusal(ledger, epsilon=2.0, delta=1e-5)
    assert exc.ran_out == ("epsilon", "delta")  # type: ignore[attr-defined]
    assert "the epsilon and delta budget of 'd'" in exc.message
    assert exc.message.count("(RAN OUT)") == 2
    assert "nothing was computed or recorded" in exc.message
