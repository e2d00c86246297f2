"""ARX's bounded two-dimensional Newton-Raphson solver, for the population-uniqueness models.

ARX (``de.linearbits.newtonraphson.NewtonRaphson2D`` configured by ``ARXSolverConfiguration``)
solves ``F(x) = 0`` for ``x = (x, y)`` like this, and so does :func:`solve`:

1. a *try* starts from the given guess, then from each of 16 prepared start values, the grid
   ``{0, 0.33, 0.66, 0.99}^2`` in that order;
2. each iteration evaluates ``F`` and its Jacobian; the try succeeds when both components of
   ``F`` are within ``accuracy`` (1e-6) of 0, otherwise it takes the Newton step;
3. a try ends after ``iterations_per_try`` (1,000) steps, when a step leaves the constraint
   (``x >= 0`` for Pitman's theta), or when the step is not a number;
4. the whole solve ends when the last prepared start value is reached (ARX takes a single
   step from it), or after ``(16 + 1) * 1,000`` iterations; then there is no root (``None``).

ARX also stops a try after 100 ms and the whole solve after 1 s of wall time. Those limits
make its answer depend on the machine's speed, so veil bounds the work by iterations as
above and keeps only a wall-time guard of :data:`TIME_TOTAL` seconds (default 5), reached
only on a much slower machine than ARX's limits assume; it ends the solve as ARX's limit
does (no root). Every evaluation costs at most a few vector sums, so a solve always returns.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["ACCURACY", "ITERATIONS_PER_TRY", "START_VALUES", "TIME_TOTAL", "solve"]

ACCURACY = 1e-6
ITERATIONS_PER_TRY = 1000
START_VALUES: tuple[tuple[float, float], ...] = tuple(
    (a, b) for a in (0.0, 0.33, 0.66, 0.99) for b in (0.0, 0.33, 0.66, 0.99)
)
TIME_TOTAL = 5.0

Master = Callable[[float, float], tuple[tuple[float, float], tuple[float, float, float, float]]]
"""``(x, y) -> ((f1, f2), (d11, d12, d21, d22))``: the functions and their Jacobian."""


def solve(
    master: Master,
    start: tuple[float, float],
    *,
    constraint: Callable[[float, float], bool] | None = None,
    start_values: Sequence[tuple[float, float]] = START_VALUES,
    accuracy: float = ACCURACY,
    iterations_per_try: int = ITERATIONS_PER_TRY,
    time_total: float = TIME_TOTAL,
) -> tuple[float, float] | None:
    """A root of ``master`` found as ARX finds it (see the module docstring), or ``None``.

    Examples
    --------
    >>> def f(x, y):  # x^2 = 4, y = 3
    ...     return (x * x - 4, y - 3), (2 * x, 0.0, 0.0, 1.0)
    >>> [round(v, 6) for v in solve(f, (1.0, 1.0))]
    [2.0, 3.0]
    """
    total_iterations = 0
    iterations_total = (len(start_values) + 1) * iterations_per_try
    t_start = time.monotonic()
    offset = 0
    first = True
    while total_iterations <= iterations_total:
        if first:
            x, y = float(start[0]), float(start[1])
            first = False
        elif offset < len(start_values):
            x, y = start_values[offset]
            offset += 1
        else:  # pragma: no cover - the loop ends on reaching the last start value
            return None
        iterations = 0
        while True:
            total_iterations += 1
            with np.errstate(all="ignore"):
                (f1, f2), (d11, d12, d21, d22) = master(x, y)
            if abs(f1) <= accuracy and abs(f2) <= accuracy:
                return x, y
            det = d11 * d22 - d12 * d21
            with np.errstate(all="ignore"):
                if det == 0 or not math.isfinite(det):
                    x = y = math.nan
                else:
                    # x -= J^-1 F
                    x, y = (
                        x - (d22 * f1 - d12 * f2) / det,
                        y - (-d21 * f1 + d11 * f2) / det,
                    )
            if time.monotonic() - t_start > time_total or (
                start_values and offset == len(start_values)
            ):
                return None
            if constraint is not None and not (math.isnan(x) or constraint(x, y)):
                break
            if math.isnan(x) or math.isnan(y) or iterations >= iterations_per_try:
                break
            iterations += 1
    return None
