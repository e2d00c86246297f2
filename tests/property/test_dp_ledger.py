"""Invariants of the budget ledger and of composition, for any sequence of spends."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil import PrivacyBudgetExceeded
from veil.dp import BudgetLedger, compose, curve_gaussian, curve_pure, curve_zcdp

pytestmark = pytest.mark.filterwarnings("ignore:Optimal order is the:UserWarning")

eps_st = st.floats(min_value=1e-4, max_value=2.0, allow_nan=False)
delta_st = st.one_of(st.just(0.0), st.floats(min_value=1e-9, max_value=1e-6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    total=st.floats(min_value=0.1, max_value=5.0),
    delta_total=st.floats(min_value=0.0, max_value=3e-6),
    spends=st.lists(st.tuples(eps_st, delta_st), min_size=1, max_size=25),
)
def test_spent_never_exceeds_total(
    total: float, delta_total: float, spends: list[tuple[float, float]]
) -> None:
    with BudgetLedger("sqlite:///:memory:") as led:
        led.init("d", epsilon=total, delta=delta_total)
        accepted: list[tuple[float, float]] = []
        for eps, delta in spends:
            fits = math.fsum([e for e, _ in accepted] + [eps]) <= total * (1 + 1e-9) and math.fsum(
                [d for _, d in accepted] + [delta]
            ) <= delta_total * (1 + 1e-9)
            try:
                led.spend("d", epsilon=eps, delta=delta, what="p")
                accepted.append((eps, delta))
                assert fits
            except PrivacyBudgetExceeded:
                assert not fits
            e_left, d_left = led.remaining("d")
            assert e_left >= 0 and d_left >= 0
        history = led.history("d")
        assert [(h.epsilon, h.delta) for h in history] == accepted
        assert math.fsum(h.epsilon for h in history) <= total * (1 + 1e-9)
        assert led.verify("d")["ok"]


curve_st = st.one_of(
    eps_st.map(lambda e: (e, 0.0, curve_pure(e))),
    st.floats(min_value=1e-4, max_value=0.5).map(
        lambda r: (r + 2 * math.sqrt(r * math.log(1e7)) + 1e-9, 1e-7, curve_zcdp(r))
    ),
    st.tuples(st.floats(0.5, 5.0), st.floats(1e-3, 1.0), st.integers(1, 200)).map(
        lambda t: (1e3, 1e-7, curve_gaussian(t[0], sample_rate=t[1], steps=t[2]))
    ),
    st.tuples(eps_st, delta_st).map(lambda t: (t[0], t[1], None)),
)


@settings(max_examples=15, deadline=None)
@given(history=st.lists(curve_st, min_size=1, max_size=5), extra=curve_st)
def test_composed_epsilon_is_monotone(
    history: list[tuple[float, float, dict | None]], extra: tuple[float, float, dict | None]
) -> None:
    for name in ("basic", "rdp"):
        before = compose(history, name, delta_total=1e-5)
        after = compose([*history, extra], name, delta_total=1e-5)
        assert after.epsilon >= before.epsilon - 1e-9
        plain = compose([*history, extra], "basic", delta_total=1e-5)
        if plain.delta <= 1e-5:  # the plain sum is a valid guarantee: never looser than it
            assert after.epsilon <= plain.epsilon + 1e-9


@settings(max_examples=10, deadline=None)
@given(z=st.floats(0.6, 4.0), q=st.floats(1e-3, 0.2), steps=st.integers(1, 500))
def test_epsilon_grows_with_steps(z: float, q: float, steps: int) -> None:
    a = compose(
        [(1e3, 1e-7, curve_gaussian(z, sample_rate=q, steps=steps))], "rdp", delta_total=1e-5
    )
    b = compose(
        [(1e3, 1e-7, curve_gaussian(z, sample_rate=q, steps=steps + 1))], "rdp", delta_total=1e-5
    )
    assert b.epsilon >= a.epsilon - 1e-12
