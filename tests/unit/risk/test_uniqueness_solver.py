"""Pitman's estimate is solved as ARX solves it: bounded, from ARX's start values, or unavailable."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.special import polygamma

from veil.risk._newton import ITERATIONS_PER_TRY, START_VALUES, solve
from veil.risk._uniqueness import _pitman_closed, _pitman_sums, _trigamma, pitman


def test_a_table_of_uniques_reports_pitman_unavailable_and_returns():
    """Every class of size 1: the likelihood has no maximum; ARX reports Pitman unavailable
    (this used to walk theta to -3e14, where one trigamma call takes seconds: a subprocess
    with a timeout keeps a regression from hanging the suite)."""
    code = (
        "import json, time, numpy as np\n"
        "from veil.risk import population_uniqueness as pu\n"
        "t0 = time.perf_counter()\n"
        "a = pu(np.array([1, 1, 1]), sampling_fraction=0.5)\n"
        "b = pu(np.ones(500, dtype=int), sampling_fraction=0.05)\n"
        "print(json.dumps([time.perf_counter() - t0, a.to_dict(), b.to_dict()]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    seconds, few, many = json.loads(res.stdout)
    assert seconds < 10
    for est in (few, many):
        assert est["estimates"]["pitman"]["uniques"] is None
        assert est["dankar_model"] == "zayatz"
        assert est["estimates"]["dankar"] == est["estimates"]["zayatz"]


def test_cli_risk_on_a_table_of_uniques_returns(tmp_path: Path):
    data = tmp_path / "u.csv"
    data.write_text("id,s\n1,a\n2,b\n3,a\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "veil", "risk", str(data), "--qi", "id"]
    res = subprocess.run(
        [*cmd, "--sampling-fraction", "0.5", "--json"],
        capture_output=True,
        text=True,
        timeout=60,  # it never returned before
        check=False,
    )
    assert res.returncode == 0, res.stderr
    pu = json.loads(res.stdout)["population_uniqueness"]
    assert pu["estimates"]["pitman"]["uniques"] is None
    assert pu["dankar_model"] == "zayatz"


def test_trigamma_of_negative_arguments_is_fast_and_right():
    for z in (-0.5, -2.5, -7.25, -40.1):
        assert _trigamma(z) == pytest.approx(float(polygamma(1, z)), rel=1e-9)
    t0 = time.perf_counter()
    assert math.isfinite(_trigamma(-3e14 + 0.5))
    assert time.perf_counter() - t0 < 0.1
    assert math.isnan(_trigamma(-3.0)) and math.isnan(_trigamma(0.0))


def test_solver_tries_the_guess_then_arx_grid_in_order_and_stops():
    calls: list[tuple[float, float]] = []

    def no_root(x: float, y: float):
        calls.append((x, y))
        return (1.0 + x * x, 1.0), (2 * x, 0.0, 0.0, 1e-300)

    assert solve(no_root, (5.0, 5.0)) is None
    starts = [calls[0]] + [c for c in calls[1:] if c in START_VALUES]
    assert starts[0] == (5.0, 5.0)
    assert starts[1 : 1 + len(START_VALUES)] == list(START_VALUES)
    assert len(calls) <= (len(START_VALUES) + 1) * (ITERATIONS_PER_TRY + 1)


def test_solver_respects_the_constraint_and_finds_a_root_from_the_grid():
    # the root x = 0.66 (y = 0.33) is reached from the grid when the guess leaves x >= 0
    def f(x: float, y: float):
        return (x - 0.66, y - 0.33), (1.0, 0.0, 0.0, 1.0)

    found = solve(f, (-1.0, 0.0), constraint=lambda x, y: x >= 0)
    assert found == pytest.approx((0.66, 0.33))
    # a guess from which the first step breaks the constraint gives the grid's answer
    steps: list[float] = []

    def g(x: float, y: float):
        steps.append(x)
        return (x + 1.0, y), (1.0, 0.0, 0.0, 1.0)  # root at x = -1: outside x >= 0

    assert solve(g, (3.0, 0.0), constraint=lambda x, y: x >= 0) is None
    assert len(steps) == 1 + len(START_VALUES)  # one step per try, each leaves x >= 0


def test_closed_form_and_sums_agree_and_pitman_root_solves_both():
    sizes = np.array([1] * 40 + [2] * 12 + [3] * 6 + [5] * 3 + [9])
    keys, counts = np.unique(sizes, return_counts=True)
    keys, counts = keys.astype(float), counts.astype(float)
    u, n = float(len(sizes)), float(sizes.sum())
    closed = _pitman_closed(keys, counts, u, n)
    sums = _pitman_sums(keys, counts, u, n)
    for t, a in ((0.5, 0.3), (4.0, 0.7), (20.0, 0.1)):
        (c1, c2), dc = closed(t, a)
        (s1, s2), ds = sums(t, a)
        assert c1 == pytest.approx(s1, rel=1e-8, abs=1e-10)
        assert c2 == pytest.approx(s2, rel=1e-8, abs=1e-10)
        assert dc == pytest.approx(ds, rel=1e-7, abs=1e-10)
    est = pitman(sizes, 2000.0)
    assert est is not None and 0 < est <= 2000
