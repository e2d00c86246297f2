"""Composing a history of spends, on what mutation testing showed untested.

The curve formats exactly (defaults, edges, messages), the RDP vector of each curve kind
against its formula, and which (epsilon, delta) ``compose`` returns in each branch, with
Opacus' own conversion as the oracle. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import json
import math
import sys
import warnings

import pytest
from opacus.accountants.analysis import rdp as opacus_rdp

from veil import InputError
from veil.dp import compose, curve_dpsgd, curve_gaussian, curve_pure, curve_rdp, curve_zcdp
from veil.dp._composition import (
    ORDERS,
    Composed,
    _rdp_vector,
    check_declared,
    validate_curve,
)

pytestmark = pytest.mark.filterwarnings("ignore:Optimal order is the:UserWarning")


def _opacus_eps(rdp: list[float], delta: float) -> float:
    finite = [(a, v) for a, v in zip(ORDERS, rdp, strict=True) if math.isfinite(v)]
    eps, _ = opacus_rdp.get_privacy_spent(
        orders=[a for a, _ in finite], rdp=[v for _, v in finite], delta=delta
    )
    return float(eps)


# ----------------------------------------------------------------------------- curve formats


def test_curve_builders_give_the_normalized_dicts() -> None:
    assert curve_pure(1) == {"type": "pure", "epsilon": 1.0}
    assert curve_zcdp(0.5) == {"type": "zcdp", "rho": 0.5}
    assert curve_gaussian(1.1) == {
        "type": "gaussian",
        "noise_multiplier": 1.1,
        "sample_rate": 1.0,
        "steps": 1,
    }
    g = curve_gaussian(2, sample_rate=0.25, steps=7)
    assert g == {"type": "gaussian", "noise_multiplier": 2.0, "sample_rate": 0.25, "steps": 7}
    assert curve_dpsgd([(1, 0.5, 3.0), (2.0, 1, 4)]) == {
        "type": "dpsgd",
        "history": [[1.0, 0.5, 3], [2.0, 1.0, 4]],
    }
    assert curve_rdp([2, 3], [0, 1]) == {"type": "rdp", "orders": [2.0, 3.0], "rdp": [0.0, 1.0]}


def test_a_curve_is_read_from_json_and_gets_its_defaults() -> None:
    text = json.dumps({"type": "gaussian", "noise_multiplier": 3})
    assert validate_curve(text) == {
        "type": "gaussian",
        "noise_multiplier": 3.0,
        "sample_rate": 1.0,
        "steps": 1,
    }
    # sample_rate exactly 1 and a tuple history entry are accepted
    assert validate_curve({"type": "dpsgd", "history": [(1.0, 1.0, 2)]})["history"] == [
        [1.0, 1.0, 2]
    ]


def test_rdp_value_zero_is_allowed_but_not_a_zero_order_or_epsilon() -> None:
    assert validate_curve({"type": "rdp", "orders": [1.5], "rdp": [0]})["rdp"] == [0.0]
    for bad in (
        {"type": "pure", "epsilon": 0},
        {"type": "zcdp", "rho": 0.0},
        {"type": "gaussian", "noise_multiplier": 0.0},
        {"type": "gaussian", "noise_multiplier": 1.0, "sample_rate": 0.0},
    ):
        with pytest.raises(InputError, match=r"must be a finite number > 0"):
            validate_curve(bad)


_ENTRY = "each history entry is [noise_multiplier, sample_rate, steps]"
_RDP_LISTS = "rdp needs non-empty 'orders' and 'rdp' lists"


@pytest.mark.parametrize(
    ("curve", "message"),
    [
        (None, "no curve"),
        ("{", "not JSON"),
        ([1], "expected a dict, got list"),
        ({"type": "pure", "epsilon": True}, "epsilon must be a number, got bool"),
        ({"type": "pure", "epsilon": "1"}, "epsilon must be a number, got str"),
        ({"type": "pure", "epsilon": math.inf}, "epsilon must be a finite number > 0"),
        ({"type": "pure", "epsilon": math.nan}, "epsilon must be a finite number > 0"),
        ({"type": "zcdp", "rho": -1.0}, "rho must be a finite number > 0"),
        (
            {"type": "gaussian", "noise_multiplier": 1.0, "sample_rate": 1.5},
            "sample_rate must be at most 1",
        ),
        (
            {"type": "gaussian", "noise_multiplier": 1.0, "steps": True},
            "steps must be a positive integer",
        ),
        (
            {"type": "gaussian", "noise_multiplier": 1.0, "steps": 2.0},
            "steps must be a positive integer",
        ),
        (
            {"type": "gaussian", "noise_multiplier": 1.0, "steps": 0},
            "steps must be a positive integer",
        ),
        (
            {"type": "gaussian", "sample_rate": 0.5},
            "noise_multiplier must be a number, got NoneType",
        ),
        (
            {"type": "gaussian", "noise_multiplier": 1.0, "sample_rate": "x"},
            "sample_rate must be a number, got str",
        ),
        ({"type": "dpsgd"}, "dpsgd needs a non-empty 'history' list"),
        ({"type": "dpsgd", "history": [[1.0, 0.5]]}, _ENTRY),
        ({"type": "dpsgd", "history": ["abc"]}, _ENTRY),
        ({"type": "dpsgd", "history": [[1.0, 2.0, 1]]}, "sample_rate must be at most 1"),
        ({"type": "rdp", "orders": [], "rdp": []}, _RDP_LISTS),
        ({"type": "rdp", "orders": (2.0,), "rdp": [1.0]}, _RDP_LISTS),
        ({"type": "rdp", "orders": [2.0], "rdp": 1.0}, _RDP_LISTS),
        (
            {"type": "rdp", "orders": [2.0], "rdp": [1.0, 2.0]},
            "'orders' and 'rdp' differ in length",
        ),
        ({"type": "rdp", "orders": [0.5, 2.0], "rdp": [1.0, 2.0]}, "RDP orders must be > 1"),
        ({"type": "rdp", "orders": [2.0, 1.0], "rdp": [1.0, 2.0]}, "RDP orders must be > 1"),
        ({"type": "rdp", "orders": [0.0], "rdp": [1.0]}, "order must be a finite number > 0"),
        ({"type": "rdp", "orders": [2.0], "rdp": [-1.0]}, "rdp value must be a finite number >= 0"),
        ({"type": "laplace"}, "'type' must be one of pure, zcdp, gaussian, dpsgd, rdp"),
    ],
)
def test_invalid_curves_say_what_is_wrong(curve: object, message: str) -> None:
    with pytest.raises(InputError) as info:
        validate_curve(curve)  # type: ignore[arg-type]
    assert info.value.message == f"invalid privacy curve: {message}"
    assert info.value.hint == "see veil.dp.curve_* for the formats"


# ----------------------------------------------------------------------------- RDP vectors


def test_rdp_vector_of_pure_and_zcdp_curves() -> None:
    e = 0.3
    assert _rdp_vector(curve_pure(e)) == [min(e, a * e * e / 2.0) for a in ORDERS]
    # at small orders the zCDP bound a e^2/2 is the smaller, at large orders e itself
    vec = _rdp_vector(curve_pure(e))
    assert vec[0] == pytest.approx(1.1 * 0.09 / 2) and vec[-1] == e
    assert _rdp_vector(curve_zcdp(0.02)) == [a * 0.02 for a in ORDERS]


def test_rdp_vector_of_an_rdp_curve_takes_the_next_larger_given_order() -> None:
    vec = _rdp_vector(curve_rdp([3.0, 2.0], [0.3, 0.2]))  # given out of order
    by_order = dict(zip(ORDERS, vec, strict=True))
    assert by_order[1.1] == 0.2 and by_order[2.0] == 0.2
    assert by_order[2.1] == 0.3 and by_order[3.0] == 0.3
    assert math.isinf(by_order[3.1]) and math.isinf(by_order[1024.0])


def test_rdp_vector_of_gaussian_segments_adds_them() -> None:
    one = opacus_rdp.compute_rdp(q=0.1, noise_multiplier=1.5, steps=10, orders=list(ORDERS))
    two = opacus_rdp.compute_rdp(q=0.2, noise_multiplier=2.0, steps=5, orders=list(ORDERS))
    got = _rdp_vector(curve_dpsgd([(1.5, 0.1, 10), (2.0, 0.2, 5)]))
    assert got == pytest.approx([float(a) + float(b) for a, b in zip(one, two, strict=True)])
    assert _rdp_vector(curve_gaussian(1.5, sample_rate=0.1, steps=10)) == pytest.approx(
        [float(a) for a in one]
    )


# ----------------------------------------------------------------------------- compose


def test_composed_keeps_its_delta_used_and_dict() -> None:
    c = Composed("rdp", 1.0, 1e-5)
    assert c.delta_used == 1e-5
    d = Composed("rdp", 1.0, 1e-5, 2e-6)
    assert d.as_dict() == {"composition": "rdp", "epsilon": 1.0, "delta": 1e-5, "delta_used": 2e-6}


def test_basic_of_json_curves_is_the_plain_sum() -> None:
    from veil.dp._composition import basic

    got = basic([(0.5, 1e-6, json.dumps(curve_pure(0.5))), (0.25, 0.0, None)])
    assert got == Composed("basic", 0.75, 1e-6, 1e-6)


def test_rdp_of_pure_curves_is_opacus_conversion_at_the_whole_delta() -> None:
    e, n, delta = 0.1, 200, 1e-5
    spends = [(e, 0.0, json.dumps(curve_pure(e)))] * n  # a curve as stored: JSON
    got = compose(spends, "rdp", delta_total=delta)
    expected = _opacus_eps([n * min(e, a * e * e / 2.0) for a in ORDERS], delta)
    assert expected < n * e
    assert got == Composed("rdp", pytest.approx(expected, rel=1e-12), delta, 0.0)


def test_rdp_adds_the_plain_part_and_converts_at_what_it_leaves() -> None:
    e, n, delta = 0.1, 200, 1e-5
    spends = [(e, 0.0, curve_pure(e))] * n + [(0.5, 4e-6, None), (0.25, 1e-6, None)]
    got = compose(spends, "rdp", delta_total=delta)
    conv = _opacus_eps([n * min(e, a * e * e / 2.0) for a in ORDERS], delta - 5e-6)
    assert got.composition == "rdp"
    assert got.epsilon == pytest.approx(conv + 0.75, rel=1e-12)
    assert got.delta == delta and got.delta_used == pytest.approx(5e-6)


def test_prv_composes_only_gaussian_curves_and_sums_the_rest() -> None:
    from opacus.accountants import PRVAccountant

    delta = 1e-5
    spends = [
        (100.0, 0.0, curve_gaussian(1.0, sample_rate=0.01, steps=1000)),
        (0.5, 0.0, curve_pure(0.5)),  # not Gaussian: by the plain sum under prv
    ]
    acc = PRVAccountant()
    acc.history = [(1.0, 0.01, 1000)]
    expected = acc.get_epsilon(delta=delta, eps_error=0.01) + 0.5
    got = compose(spends, "prv", delta_total=delta)
    assert got.composition == "prv"
    assert got.epsilon == pytest.approx(expected, rel=1e-9)
    assert got.delta == delta and got.delta_used == 0.0


def test_with_no_curve_to_compose_the_tight_rules_are_the_plain_sum() -> None:
    spends = [(0.5, 1e-6, None), (0.25, 2e-6, curve_pure(0.25))]
    assert compose(spends[:1], "rdp", delta_total=1e-5) == Composed("rdp", 0.5, 1e-6, 1e-6)
    got = compose(spends, "prv", delta_total=1e-5)  # a pure curve is not composed by PRV
    assert got == Composed("prv", 0.75, pytest.approx(3e-6), pytest.approx(3e-6))


def test_a_plain_part_using_all_the_delta_leaves_the_plain_sum() -> None:
    spends = [(0.1, 0.0, curve_pure(0.1))] * 5 + [(1.0, 1e-5, None)]
    got = compose(spends, "rdp", delta_total=1e-5)
    assert got == Composed("rdp", pytest.approx(1.5), 1e-5, 1e-5)
    over = compose([*spends, (0.0, 1e-6, None)], "rdp", delta_total=1e-5)
    assert math.isinf(over.epsilon) and over.delta == 1e-5 and over.composition == "rdp"


def test_the_plain_sum_wins_where_the_conversion_is_looser() -> None:
    # two pure spends at zero delta: the conversion at delta 1e-6 is far above their sum
    spends = [(0.05, 0.0, curve_pure(0.05)), (0.05, 0.0, curve_pure(0.05))]
    got = compose(spends, "rdp", delta_total=1e-6)
    assert got == Composed("rdp", 0.1, 0.0, 0.0)


def test_a_curve_that_says_nothing_at_the_orders_gives_the_plain_sum() -> None:
    # an RDP curve given only below the smallest order is infinite at every order
    spends = [(0.5, 0.0, curve_rdp([1.05], [0.01]))]
    assert compose(spends, "rdp", delta_total=1e-6) == Composed("rdp", 0.5, 0.0, 0.0)


def test_unknown_composition_names_the_valid_ones() -> None:
    with pytest.raises(InputError, match="unknown composition 'advanced'") as info:
        compose([], "advanced", delta_total=0.0)
    assert info.value.hint == "use one of: basic, rdp, prv"


# ----------------------------------------------------------------------------- check_declared


def test_a_pure_curve_must_be_covered_to_the_last_bit() -> None:
    check_declared(0.5, 0.0, curve_pure(0.5))
    check_declared(0.5, 0.0, curve_pure(0.5 * (1 + 1e-9)))  # inside the rounding slack
    check_declared(0.5, 0.0, curve_pure(0.5 * (1 + 1e-9) + 1e-12))  # exactly at its edge
    with pytest.raises(InputError) as info:
        check_declared(0.5, 0.0, curve_pure(0.5 * (1 + 1e-8)))
    assert str(info.value).startswith(
        "the spend declares epsilon=0.5 at delta=0, but its privacy curve implies at least "
        "epsilon=0.5"
    )
    assert info.value.hint == "declare the epsilon your accountant reports for this mechanism"


def test_zcdp_and_rdp_curves_are_not_checked_against_the_declaration() -> None:
    check_declared(0.001, 0.0, curve_zcdp(10.0))
    check_declared(0.001, 0.0, curve_rdp([2.0], [10.0]))


def test_a_gaussian_declaration_is_checked_with_prv_less_its_error() -> None:
    from opacus.accountants import PRVAccountant

    curve = curve_dpsgd([(1.0, 0.01, 1000)])
    acc = PRVAccountant()
    acc.history = [(1.0, 0.01, 1000)]
    upper = acc.get_epsilon(delta=1e-5, eps_error=0.01)
    check_declared(upper - 0.02, 1e-5, curve)  # exactly the bound less twice the error
    with pytest.raises(InputError, match="implies"):
        check_declared(upper - 0.021, 1e-5, curve)
    with pytest.raises(InputError) as info:
        check_declared(5.0, 0.0, curve)
    assert info.value.message == "a Gaussian or DP-SGD spend needs delta > 0"
    assert info.value.hint == "pass the delta its epsilon was computed at"


def test_without_opacus_the_tight_compositions_name_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from veil import MissingDependencyError

    # a module set to None in sys.modules cannot be imported: Opacus as if not installed
    monkeypatch.setitem(sys.modules, "opacus.accountants.analysis.rdp", None)
    monkeypatch.setitem(sys.modules, "opacus.accountants", None)
    for name in ("rdp", "prv"):
        with pytest.raises(MissingDependencyError) as info:
            compose([(1.0, 0.0, curve_gaussian(1.0))], name, delta_total=1e-5)
        assert info.value.message == (
            "rdp/prv composition of privacy curves needs the Python package 'opacus', "
            "which is not installed"
        )
        assert info.value.hint == "pip install 'veil[dp]'"


def test_basic_composition_is_the_plain_sum_even_of_gaussian_curves() -> None:
    spends = [(3.0, 1e-6, curve_gaussian(1.0, sample_rate=0.01, steps=1000))]
    assert compose(spends, "basic", delta_total=1e-5) == Composed("basic", 3.0, 1e-6, 1e-6)
    assert compose(spends, "prv", delta_total=1e-5).epsilon < 3.0  # tighter where chosen


def test_the_optimal_order_warning_is_silenced_and_nothing_else() -> None:
    # a tiny zCDP curve is best converted at the largest order: Opacus warns, veil does not
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compose([(1.0, 0.0, curve_zcdp(1e-7))], "rdp", delta_total=1e-5)
    assert got.epsilon < 1.0
