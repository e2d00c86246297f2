"""The DP-SGD noise search, on what mutation testing of ``train/_accounting.py`` left untested.

``_calibrate_from`` is written for any accountant: with Opacus' RDP accountant one evaluation
costs milliseconds, so the search is checked here over many schedules, starts and tolerances,
with Opacus' ``RDPAccountant`` as the oracle (``veil.train._prv`` returns its very float,
``test_prv.py``). What is checked is the search's contract: the sigma returned has an epsilon
at most the target (never under-reported: it is the accountant's own value for that sigma)
and within the tolerance of it, the search stops at the first sigma it evaluates that meets
both, a tolerance of 0 gives the smallest sigma to the bracket's width (1e-9 relative: a
sigma that much smaller overspends), and it takes few accountant calls (the reason it exists:
each PRV call is the expensive part of ``veil train``). PRV runs are kept to small schedules.
docs/mutation.md lists the mutants these kill and the equivalent ones.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytest.importorskip("opacus")

from hypothesis import given, settings
from hypothesis import strategies as st
from opacus.accountants import create_accountant
from opacus.accountants.utils import get_noise_multiplier

import veil.train._accounting as accounting
from veil import InputError, MissingDependencyError
from veil.train import calibrate_noise, epsilon_after, epsilon_table
from veil.train._accounting import _calibrate, _calibrate_from

# a search that never ends fails the test (tests/unit/train/conftest.py)
pytestmark = [
    pytest.mark.filterwarnings("ignore:Optimal order:UserWarning"),
    pytest.mark.usefixtures("searches_end"),
]


DELTA = 1e-5
# (target epsilon, sampling rate, steps): one full-batch step to many small ones
SCHEDULES = [(1.0, 0.1, 10), (3.0, 1.0, 1), (0.4, 0.02, 300), (6.0, 1.0, 4)]
STARTS = [0.3, 1.0, 4.0]  # far below, near and far above the answer for most schedules


def _opacus(mechanism: str, sigma: float, q: float, steps: int, delta: float = DELTA) -> float:
    acc = create_accountant(mechanism=mechanism)
    acc.history = [(sigma, q, steps)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Optimal order", category=UserWarning)
        return float(acc.get_epsilon(delta=delta))


@contextmanager
def _recorded(mp: pytest.MonkeyPatch) -> Iterator[list[tuple[float, float]]]:
    """Every (sigma, epsilon) the search asks the accountant for, in order.

    A search that ends asks at most about 260 times (25 doublings up to sigma 1e6, 131 steps
    of 10 % down from it, 100 interpolations): past 400 calls it is stopped as a failure.
    """
    seen: list[tuple[float, float]] = []
    real = accounting.epsilon_after

    def recording(sigma: float, q: float, steps: int, delta: float, accountant: str) -> float:
        if len(seen) >= 400:
            raise AssertionError("the search asked the accountant 400 times: it does not end")
        eps = real(sigma, q, steps, delta, accountant)
        seen.append((sigma, eps))
        return eps

    with mp.context() as m:
        m.setattr(accounting, "epsilon_after", recording)
        yield seen


def _search(
    mp: pytest.MonkeyPatch,
    target: float,
    q: float,
    steps: int,
    start: float,
    tolerance: float,
    accountant: str = "rdp",
    delta: float = DELTA,
) -> tuple[float, list[tuple[float, float]]]:
    with _recorded(mp) as seen:
        sigma = _calibrate_from(target, delta, q, steps, accountant, start, tolerance)
    return sigma, seen


def _check_contract(
    sigma: float, seen: list[tuple[float, float]], target: float, tolerance: float
) -> None:
    def meets(eps: float) -> bool:
        return eps <= target and target - eps <= tolerance

    assert seen, "the search asked the accountant nothing"
    computed = dict(seen)
    assert sigma in computed, "the sigma returned was never given to the accountant"
    assert computed[sigma] <= target  # within the budget by the accountant itself
    # it stops at the first sigma that meets the criterion: none before the last one did
    assert not any(meets(eps) for _, eps in seen[:-1])
    if meets(computed[sigma]):
        assert seen[-1][0] == sigma


@pytest.mark.parametrize(("target", "q", "steps"), SCHEDULES)
@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("tolerance", [0.01, 1e-4])
def test_search_meets_the_criterion_and_stops_there(
    monkeypatch: pytest.MonkeyPatch,
    target: float,
    q: float,
    steps: int,
    start: float,
    tolerance: float,
) -> None:
    sigma, seen = _search(monkeypatch, target, q, steps, start, tolerance)
    _check_contract(sigma, seen, target, tolerance)
    eps = _opacus("rdp", sigma, q, steps)
    assert target - tolerance <= eps <= target
    # regula falsi (Illinois) once bracketed: a bisection of the 10 % bracket to 1e-4 in
    # epsilon would take about a dozen calls on top of the bracketing
    assert len(seen) <= _bracketing_calls(start, target, q, steps) + 8


def _bracketing_calls(start: float, target: float, q: float, steps: int) -> int:
    """Calls a search spends to bracket the answer: doubling up, or 10 % steps down."""
    eps = _opacus("rdp", start, q, steps)
    calls, sigma = 1, start
    if eps > target:
        while eps > target:
            sigma *= 2
            eps = _opacus("rdp", sigma, q, steps)
            calls += 1
        return calls
    while eps <= target:
        sigma *= 0.9
        eps = _opacus("rdp", sigma, q, steps)
        calls += 1
    return calls


@pytest.mark.parametrize(("target", "q", "steps"), SCHEDULES)
@pytest.mark.parametrize("start", STARTS)
def test_with_no_tolerance_the_search_returns_the_smallest_sigma(
    monkeypatch: pytest.MonkeyPatch, target: float, q: float, steps: int, start: float
) -> None:
    sigma, seen = _search(monkeypatch, target, q, steps, start, 0.0)
    _check_contract(sigma, seen, target, 0.0)
    assert _opacus("rdp", sigma, q, steps) <= target
    # the bracket closed to 1e-9 of sigma: that much less noise overspends
    assert _opacus("rdp", sigma * (1 - 1e-9), q, steps) > target
    assert len(seen) <= _bracketing_calls(start, target, q, steps) + 14


@pytest.mark.parametrize(("target", "q", "steps"), SCHEDULES[:2])
@pytest.mark.parametrize("start", STARTS)
def test_a_sigma_exactly_at_the_tolerance_is_taken(
    monkeypatch: pytest.MonkeyPatch, target: float, q: float, steps: int, start: float
) -> None:
    # every sigma the search accepts on its way, made to meet the tolerance exactly: the
    # search (whose path does not depend on the tolerance until it stops) returns it there
    _, seen = _search(monkeypatch, target, q, steps, start, 0.0)
    accepted = [(s, e) for s, e in seen if e <= target]
    assert accepted
    for s, e in accepted[:6]:
        sigma, again = _search(monkeypatch, target, q, steps, start, target - e)
        assert sigma == s
        assert again == seen[: len(again)] and again[-1] == (s, e)


def test_a_sigma_exactly_at_the_target_is_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # "at most the target" includes the target: a sigma whose epsilon is the target to the
    # last bit is taken, whether the search meets it growing or shrinking sigma
    q, steps = 0.1, 10
    shrunk = 2.0 * 0.9  # the first 10 % step down from a start of 2.0
    target = epsilon_after(shrunk, q, steps, DELTA, "rdp")
    sigma, seen = _search(monkeypatch, target, q, steps, 2.0, 1e-9)
    assert sigma == shrunk and [s for s, _ in seen] == [2.0, shrunk]
    grown = 0.5 * 2  # the first doubling from a start of 0.5
    target = epsilon_after(grown, q, steps, DELTA, "rdp")
    sigma, seen = _search(monkeypatch, target, q, steps, 0.5, 1e-9)
    assert sigma == grown and [s for s, _ in seen] == [0.5, grown]


@settings(max_examples=15, deadline=None)
@given(
    target=st.floats(0.5, 4.0),
    # full batches, and small rates with many steps (Opacus' RDP of rates in between costs
    # 0.1 s a call at large sigma: too slow to run many times)
    q=st.one_of(st.just(1.0), st.floats(0.005, 0.05)),
    steps=st.integers(1, 300),
    start=st.floats(0.2, 8.0),
    tolerance=st.sampled_from([0.01, 1e-3, 1e-5]),
)
def test_search_property_never_over_the_target(
    target: float, q: float, steps: int, start: float, tolerance: float
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        sigma, seen = _search(mp, target, q, steps, start, tolerance)
    _check_contract(sigma, seen, target, tolerance)
    assert target - tolerance <= _opacus("rdp", sigma, q, steps) <= target


def test_a_start_within_the_tolerance_is_returned_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target, q, steps = 2.0, 0.1, 20
    for start in (1.0, 1.5, 3.0):  # too little noise, too much, far too much
        eps = epsilon_after(start, q, steps, DELTA, "rdp")
        tight = max(target, eps)
        sigma, seen = _search(monkeypatch, tight, q, steps, start, tight - eps)
        assert sigma == start and seen == [(start, eps)]


def test_the_largest_sigma_itself_is_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    # doubling 15625 lands on 1e6 exactly: tried (its epsilon meets this target), 2e6 is not
    largest = accounting._MAX_SIGMA
    e_max = epsilon_after(largest, 1.0, 1, DELTA, "rdp")
    e_half = epsilon_after(largest / 2, 1.0, 1, DELTA, "rdp")
    assert e_max < e_half
    target = (e_max + e_half) / 2
    sigma, seen = _search(monkeypatch, target, 1.0, 1, largest / 64, 0.01)
    assert sigma == largest
    assert [s for s, _ in seen] == [largest / 2**k for k in range(6, -1, -1)]
    with pytest.raises(ValueError, match=r"^The privacy budget is too low\.$"):
        _calibrate_from(e_max / 2, DELTA, 1.0, 1, "rdp", largest / 64)


def test_search_where_epsilon_goes_negative(monkeypatch: pytest.MonkeyPatch) -> None:
    # a large delta (allowed below 1/n for n < 100 records): Opacus' conversion certifies
    # epsilons below 0 at much noise, where log(epsilon) is undefined: the search bisects there
    target, delta, q, steps = 0.001, 0.01, 1.0, 1
    sigma, seen = _search(monkeypatch, target, q, steps, 1.0, 1e-4, delta=delta)
    _check_contract(sigma, seen, target, 1e-4)
    assert any(eps <= 0 for _, eps in seen)
    assert target - 1e-4 <= _opacus("rdp", sigma, q, steps, delta) <= target
    # a target just above 0 and a fine tolerance: many steps (several in a row towards less
    # noise) bisect where epsilon is below 0, before interpolation can take over
    sigma, seen = _search(monkeypatch, 1e-6, q, steps, 1.0, 1e-7, delta=delta)
    _check_contract(sigma, seen, 1e-6, 1e-7)
    assert sum(eps <= 0 for _, eps in seen) >= 3
    assert 1e-6 - 1e-7 <= _opacus("rdp", sigma, q, steps, delta) <= 1e-6


@pytest.mark.parametrize(("target", "q", "steps"), [(3.0, 0.2, 10), (2.0, 0.05, 100)])
def test_prv_search_from_the_rdp_sigma_takes_a_few_calls(
    monkeypatch: pytest.MonkeyPatch, target: float, q: float, steps: int
) -> None:
    start = _calibrate(target, DELTA, q, steps, "rdp")
    sigma, seen = _search(monkeypatch, target, q, steps, start, 0.01, accountant="prv")
    _check_contract(sigma, seen, target, 0.01)
    assert target - 0.01 <= _opacus("prv", sigma, q, steps) <= target
    assert len(seen) <= 5  # Opacus' own bisection from [0, 20] takes about a dozen
    assert sigma < start


def test_calibrate_uses_the_accountant_it_is_given() -> None:
    for name in ("rdp", "prv"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Optimal order", category=UserWarning)
            want = get_noise_multiplier(
                target_epsilon=2.0, target_delta=DELTA, sample_rate=0.05, steps=100, accountant=name
            )
        assert _calibrate(2.0, DELTA, 0.05, 100, name) == want


def test_rdp_calibration_without_the_comparison_still_records_rdp() -> None:
    cal = calibrate_noise(
        epsilon=2.0, delta=DELTA, sample_rate=0.2, steps=5, accountant="rdp", compare_rdp=False
    )
    assert cal.accountant == "rdp"
    assert cal.rdp_noise_multiplier == cal.noise_multiplier
    assert cal.rdp_epsilon == cal.epsilon == _opacus("rdp", cal.noise_multiplier, 0.2, 5)
    assert 1.99 <= cal.epsilon <= 2.0


def test_prv_out_of_reach_where_rdp_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    # at delta 0.0067 (n < 150 records) RDP certifies epsilons below 0 with much noise (sigma
    # 20 here), PRV's upper bound stays above 0.003 (its error term) at any noise: a target of
    # 0.001 is met by RDP only. The PRV search doubles sigma up to 1e6 before it gives up
    # (about 16 PRV calls of a second each): the largest sigma is lowered to 30 to keep this
    # test fast; what is tested is the message when it gives up.
    rdp = calibrate_noise(epsilon=0.001, delta=0.0067, sample_rate=0.1, steps=1, accountant="rdp")
    assert rdp.epsilon <= 0.001 and rdp.noise_multiplier < 30
    assert epsilon_after(rdp.noise_multiplier, 0.1, 1, 0.0067) > 0.003
    monkeypatch.setattr(accounting, "_MAX_SIGMA", 30.0)
    with pytest.raises(InputError) as info:
        calibrate_noise(epsilon=0.001, delta=0.0067, sample_rate=0.1, steps=1)
    assert info.value.message == (
        "no noise multiplier reaches epsilon 0.001 with delta 0.0067 over 1 steps at "
        "sampling rate 0.1"
    )
    assert info.value.hint == "raise epsilon, train fewer epochs or use a smaller batch size"


def test_without_opacus_each_entry_point_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a module set to None in sys.modules cannot be imported: Opacus as if not installed
    monkeypatch.setitem(sys.modules, "opacus", None)
    accounting_calls = [
        lambda: epsilon_after(1.0, 0.1, 10, DELTA),
        lambda: epsilon_after(1.0, 0.1, 10, DELTA, "gdp"),  # through the name check
        lambda: epsilon_table(1.0, 0.1, [10], DELTA),
        lambda: epsilon_table(1.0, 0.1, [10], DELTA, "rdp"),
    ]
    for call in accounting_calls:
        with pytest.raises(MissingDependencyError) as info:
            call()
        assert info.value.message == (
            "DP-SGD accounting needs the Python package 'opacus', which is not installed"
        )
        assert info.value.hint == "pip install 'veil[dp]'"
    with pytest.raises(MissingDependencyError) as info:
        calibrate_noise(epsilon=1.0, delta=DELTA, sample_rate=0.1, steps=10)
    assert info.value.message == (
        "DP-SGD noise calibration needs the Python package 'opacus', which is not installed"
    )
    assert info.value.hint == "pip install 'veil[dp]'"


@pytest.mark.parametrize(
    ("epsilon", "delta", "what"),
    [
        (0.0, 1e-5, "epsilon must be a positive"),
        (-1.0, 1e-5, "epsilon must be a positive"),
        (float("nan"), 1e-5, "epsilon must be a positive"),
        (101.0, 1e-5, "epsilon must be at most 100"),
        (3.0, 0.0, "delta must be in (0, 1)"),
        (3.0, 1.0, "delta must be in (0, 1)"),
    ],
)
def test_calibrate_noise_refuses_an_impossible_target(
    epsilon: float, delta: float, what: str
) -> None:
    # the Python API is not only reached through check_budget: a target out of range is
    # refused before any accountant runs (Opacus would search for a sigma that cannot exist)
    with pytest.raises(InputError, match=re.escape(what)):
        calibrate_noise(epsilon=epsilon, delta=delta, sample_rate=0.01, steps=100)
