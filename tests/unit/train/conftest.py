"""Fixtures of the DP-SGD accounting tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def searches_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search or bisection that never ends fails the test instead of hanging it.

    Every call the accounting module makes to ``epsilon_after`` is counted; none of the
    tests that use this needs 5,000 (a mutant that loops on a cached sigma would spin
    without one). Used by the mutation-testing files, which mutmut runs per mutant.
    """
    import veil.train._accounting as accounting

    real = accounting.epsilon_after
    calls = 0

    def counted(*args: object, **kwargs: object) -> float:
        nonlocal calls
        calls += 1
        if calls > 5000:
            raise AssertionError("5,000 accountant calls in one test: the search does not end")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(accounting, "epsilon_after", counted)
