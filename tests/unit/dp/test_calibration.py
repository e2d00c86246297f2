"""The calibration of every DP statistic is tight: the reported scale is the closed form
(sensitivity / epsilon for Laplace, sensitivity / sqrt(2 rho) for Gaussian), it meets the
budget by OpenDP's own map, and a hair less noise would overspend it.

Mutation testing (docs/mutation.md) showed that a wrong closed form survived every other
test: too little noise is caught by the privacy-map check and repaired by the binary search,
and the tests used epsilon = 1, where ``sens / eps`` and ``sens * eps`` agree; too much noise
(a correct but needlessly inaccurate release) went unnoticed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from veil.dp._mechanisms import _calibrate, _opendp


def _transformations(dp: Any) -> dict[str, Callable[[], Any]]:
    sd = dp.symmetric_distance()
    vec_f = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    vec_i = dp.vector_domain(dp.atom_domain(T=dp.i64))
    return {
        "count": lambda: (vec_i, sd) >> dp.t.then_count(),  # sensitivity 1
        "float sum": lambda: (vec_f, sd) >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sum(),
        "int sum": lambda: (vec_i, sd) >> dp.t.then_clamp((17, 90)) >> dp.t.then_sum(),
        "mean": lambda: (  # sensitivity far below 1
            (vec_f, sd)
            >> dp.t.then_clamp((0.0, 1.0))
            >> dp.t.then_resize(size=1000, constant=0.5)
            >> dp.t.then_mean()
        ),
    }


@pytest.mark.parametrize("stat", ["count", "float sum", "int sum", "mean"])
@pytest.mark.parametrize(
    ("gaussian", "target"), [(False, 0.25), (False, 4.0), (True, 0.02), (True, 3.0)]
)
def test_scale_is_the_closed_form_and_tight(stat: str, gaussian: bool, target: float) -> None:
    dp = _opendp()
    make = _transformations(dp)[stat]
    cal = _calibrate(dp, make, 1, target, gaussian)  # no cache key: calibrated afresh
    sens = float(cal.trans.map(1))
    closed = sens / math.sqrt(2 * target) if gaussian else sens / target
    assert cal.scale == pytest.approx(closed, rel=1e-5)
    assert float(cal.meas.map(1)) <= target and cal.spent == float(cal.meas.map(1))

    def chain(scale: float) -> Any:
        noise = dp.m.then_gaussian(scale=scale) if gaussian else dp.m.then_laplace(scale=scale)
        return cal.trans >> noise(cal.trans.output_domain, cal.trans.output_metric)

    assert float(chain(cal.scale).map(1)) <= target
    assert float(chain(cal.scale * (1 - 1e-4)).map(1)) > target  # a hair less noise overspends


def test_calibrations_are_cached_by_key_and_budget() -> None:
    dp = _opendp()
    make = _transformations(dp)["float sum"]
    a = _calibrate(dp, make, 1, 0.5, False, key=("test-calibration", "float sum"))
    b = _calibrate(dp, make, 1, 0.5, False, key=("test-calibration", "float sum"))
    c = _calibrate(dp, make, 1, 0.25, False, key=("test-calibration", "float sum"))
    d = _calibrate(dp, make, 2, 0.5, False, key=("test-calibration", "float sum"))
    assert a is b  # reused, not rebuilt
    assert c is not a and c.scale == pytest.approx(2 * a.scale)
    assert d is not a and d.scale == pytest.approx(2 * a.scale)  # d_in 2: twice the noise
    assert _calibrate(dp, make, 1, 0.5, False) is not a  # no key: never cached


def test_exact_closed_form_is_kept_when_it_spends_exactly_the_budget() -> None:
    dp = _opendp()
    cal = _calibrate(dp, _transformations(dp)["count"], 1, 0.25, False)
    assert cal.scale == 4.0 and cal.spent == 0.25  # not bumped: the map meets it exactly


def test_zero_sensitivity_spends_nothing() -> None:
    dp = _opendp()
    sd = dp.symmetric_distance()
    vec_f = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    cal = _calibrate(
        dp, lambda: (vec_f, sd) >> dp.t.then_clamp((0.0, 0.0)) >> dp.t.then_sum(), 1, 0.5, False
    )
    assert cal.scale == 1.0 and cal.spent == 0.0


@pytest.mark.parametrize("gaussian", [False, True])
def test_binary_search_fallback_when_the_closed_form_misses(
    monkeypatch: pytest.MonkeyPatch, gaussian: bool
) -> None:
    """The search only runs when OpenDP's map rejects the closed form and its small bumps;
    a noise that is half what it is asked for makes every bump miss."""
    from veil.dp import _mechanisms as mech

    real = mech._noise
    monkeypatch.setattr(mech, "_noise", lambda dp, g, s: real(dp, g, s / 2))
    dp = _opendp()
    make = _transformations(dp)["float sum"]
    target = 0.5 if not gaussian else 0.1
    key = ("test-fallback", gaussian)
    cal = _calibrate(dp, make, 1, target, gaussian, key=key)
    sens = float(cal.trans.map(1))
    closed = sens / math.sqrt(2 * target) if gaussian else sens / target
    assert cal.scale == pytest.approx(2 * closed, rel=1e-4)  # found by the search
    assert cal.spent <= target and cal.spent == float(cal.meas.map(1))
    assert float((cal.trans >> cal.noise).map(1)) == pytest.approx(cal.spent)
    assert float(cal.meas.map(1)) > target * (1 - 1e-3)  # and tight
    assert cal.noise(5.0) != 5.0  # the noise half of the chain draws
    assert _calibrate(dp, make, 1, target, gaussian, key=key) is cal  # cached too


def test_cache_keeps_the_most_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import OrderedDict

    from veil.dp import _mechanisms as mech

    monkeypatch.setattr(mech, "_CALIBRATED", OrderedDict())
    monkeypatch.setattr(mech, "_CALIBRATED_MAX", 2)
    dp = _opendp()
    make = _transformations(dp)["float sum"]
    a = _calibrate(dp, make, 1, 0.5, False, key=("lru", "a"))
    b = _calibrate(dp, make, 1, 0.5, False, key=("lru", "b"))
    assert _calibrate(dp, make, 1, 0.5, False, key=("lru", "a")) is a  # a is now the newest
    c = _calibrate(dp, make, 1, 0.5, False, key=("lru", "c"))  # evicts b, the oldest
    assert len(mech._CALIBRATED) == 2
    assert _calibrate(dp, make, 1, 0.5, False, key=("lru", "a")) is a
    assert _calibrate(dp, make, 1, 0.5, False, key=("lru", "c")) is c
    assert _calibrate(dp, make, 1, 0.5, False, key=("lru", "b")) is not b


def test_accuracy_uses_the_law_of_the_noise() -> None:
    from veil.dp._mechanisms import _accuracy

    dp = _opendp()
    for integer, gaussian, fn in (
        (True, True, dp.discrete_gaussian_scale_to_accuracy),
        (False, True, dp.gaussian_scale_to_accuracy),
        (True, False, dp.discrete_laplacian_scale_to_accuracy),
        (False, False, dp.laplacian_scale_to_accuracy),
    ):
        assert _accuracy(dp, 3.0, 0.05, integer=integer, gaussian=gaussian) == fn(3.0, 0.05)
    # the four laws give four different half-widths at this scale
    assert (
        len(
            {
                _accuracy(dp, 3.0, 0.05, integer=i, gaussian=g)
                for i in (False, True)
                for g in (False, True)
            }
        )
        == 4
    )


@pytest.mark.parametrize("shortfall", [1e-10, 1e-7])
def test_small_bumps_absorb_rounding_in_the_map(
    monkeypatch: pytest.MonkeyPatch, shortfall: float
) -> None:
    """When OpenDP's map rounds a hair above the closed form, a bump of 1e-9 or 1e-6 meets
    it: the scale stays the closed form to 1e-5, never a multiple of it."""
    from veil.dp import _mechanisms as mech

    real = mech._noise
    monkeypatch.setattr(mech, "_noise", lambda dp, g, s: real(dp, g, s * (1 - shortfall)))
    dp = _opendp()
    cal = _calibrate(dp, _transformations(dp)["count"], 1, 0.25, False)
    assert cal.scale == pytest.approx(4.0, rel=1e-5) and cal.scale > 4.0
    assert cal.spent <= 0.25
