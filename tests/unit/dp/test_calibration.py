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
