"""Composing histories: the plain sum, and RDP/PRV checked against Opacus' own accountants."""

from __future__ import annotations

import math

import pytest

from veil import InputError
from veil.dp import compose, curve_dpsgd, curve_gaussian, curve_pure, curve_rdp, curve_zcdp
from veil.dp._composition import check_declared, validate_curve

# Opacus warns when the best order is at the end of its default range; not our concern here.
pytestmark = pytest.mark.filterwarnings("ignore:Optimal order is the:UserWarning")


def test_basic_is_the_plain_sum() -> None:
    c = compose(
        [(0.5, 1e-7, None), (0.25, 0.0, None), (1.0, 2e-7, None)], "basic", delta_total=1e-5
    )
    assert (c.epsilon, c.delta) == (1.75, pytest.approx(3e-7))


def test_rdp_matches_opacus_rdp_accountant_on_dpsgd_history() -> None:
    from opacus.accountants import RDPAccountant

    history = [(1.1, 0.01, 500), (0.9, 0.02, 200)]
    delta = 1e-5
    acc = RDPAccountant()
    acc.history = list(history)
    expected = acc.get_epsilon(delta=delta)
    spends = [(100.0, 0.0, curve_gaussian(z, sample_rate=q, steps=t)) for z, q, t in history]
    got = compose(spends, "rdp", delta_total=delta)
    # the ledger uses more orders than Opacus' default: never looser, and close
    assert got.epsilon <= expected * (1 + 1e-9)
    assert got.epsilon == pytest.approx(expected, rel=0.05)
    assert got.delta == delta


def test_prv_matches_opacus_prv_accountant_and_beats_rdp() -> None:
    from opacus.accountants import PRVAccountant

    history = [(1.0, 0.01, 1000)]
    acc = PRVAccountant()
    acc.history = list(history)
    expected = acc.get_epsilon(delta=1e-5, eps_error=0.01)
    spends = [(100.0, 0.0, curve_dpsgd(history))]
    prv = compose(spends, "prv", delta_total=1e-5)
    rdp = compose(spends, "rdp", delta_total=1e-5)
    assert prv.epsilon == pytest.approx(expected, rel=1e-6)
    assert prv.epsilon < rdp.epsilon


def test_tight_compositions_are_never_worse_than_basic() -> None:
    spends = [(0.5, 0.0, curve_pure(0.5)), (0.2, 0.0, curve_pure(0.2))]
    for name in ("rdp", "prv"):
        assert compose(spends, name, delta_total=1e-6).epsilon <= 0.7 + 1e-12


def test_spends_without_curve_add_by_the_plain_sum_and_use_delta() -> None:
    with_curve = [(0.1, 0.0, curve_pure(0.1))] * 200
    base = compose(with_curve, "rdp", delta_total=1e-5)
    mixed = compose([*with_curve, (1.0, 4e-6, None)], "rdp", delta_total=1e-5)
    # the curve-less spend adds its epsilon, and its delta leaves less for the conversion
    assert mixed.epsilon > base.epsilon + 1.0
    assert mixed.delta_used == pytest.approx(4e-6)
    too_much_delta = compose([*with_curve, (1.0, 2e-5, None)], "rdp", delta_total=1e-5)
    assert math.isinf(too_much_delta.epsilon)


def test_zcdp_and_rdp_curves() -> None:
    rho = 0.05
    z = compose([(10.0, 1e-6, curve_zcdp(rho))], "rdp", delta_total=1e-6)
    # rho-zCDP gives (rho + 2 sqrt(rho log(1/delta)), delta); the RDP conversion is at least as good
    assert z.epsilon <= rho + 2 * math.sqrt(rho * math.log(1e6))
    orders = [2.0, 4.0, 8.0, 16.0, 32.0]
    r = compose(
        [(10.0, 1e-6, curve_rdp(orders, [a * rho for a in orders]))], "rdp", delta_total=1e-6
    )
    assert r.epsilon >= z.epsilon - 1e-9  # fewer orders: never tighter than the full curve


@pytest.mark.parametrize(
    "curve",
    [
        {"type": "pure", "epsilon": -1},
        {"type": "zcdp"},
        {"type": "gaussian", "noise_multiplier": 1.0, "sample_rate": 2.0},
        {"type": "gaussian", "noise_multiplier": 1.0, "steps": 0},
        {"type": "dpsgd", "history": []},
        {"type": "rdp", "orders": [1.0], "rdp": [0.1]},
        {"type": "rdp", "orders": [2.0, 3.0], "rdp": [0.1]},
        "not json",
        ["a list"],
    ],
)
def test_invalid_curves(curve: object) -> None:
    with pytest.raises(InputError):
        validate_curve(curve)  # type: ignore[arg-type]


def test_declared_epsilon_must_cover_the_curve() -> None:
    check_declared(2.0, 1e-5, curve_gaussian(1.0, sample_rate=0.01, steps=1000))
    with pytest.raises(InputError, match="implies"):
        check_declared(0.5, 1e-5, curve_gaussian(1.0, sample_rate=0.01, steps=1000))
    with pytest.raises(InputError, match="delta > 0"):
        check_declared(5.0, 0.0, curve_gaussian(1.0))


def test_unknown_composition() -> None:
    with pytest.raises(InputError):
        compose([], "advanced", delta_total=0.0)
