"""Population uniqueness: how many people in the population are unique on the QIs.

A release is a sample of a population; a record unique in the sample need not be unique in
the population. These estimators, the ones ARX offers, estimate the number of population
uniques from the class-size histogram of the sample and the population size:

- **Zayatz** (1991): conditional probability that a sample unique is a population unique,
  from hypergeometric draws of each class size.
- **Pitman** (1996): the two-parameter Poisson-Dirichlet model fitted by maximum likelihood
  (Newton's method on the closed-form score equations, digamma/trigamma functions).
- **SNB**, the slide negative binomial model (Chen & McNulty 1998), fitted to the numbers of
  classes of size 1 and 2.
- **Dankar et al.** (2012) decision rule: Pitman when the sampling fraction is at most 10 %
  (Zayatz when Pitman fails), otherwise the smaller of Zayatz and SNB (Zayatz when SNB fails).

As in ARX, an estimate that cannot be computed (the solver does not converge, or gives a
count outside ``[0, population]``) is reported as ``None``; with no sample uniques every
estimate is 0. The formulas follow the published models as ARX implements them. Pitman is
solved with ARX's own bounded Newton-Raphson (:mod:`veil.risk._newton`: ARX's initial guess,
then its 16 prepared start values, 1,000 steps each, theta >= 0), so it is unavailable where
ARX's is; SNB uses scipy's ``root`` (at most 600 evaluations per start) over the same 4x4
grid of start values, so its last digits can differ from ARX's.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._errors import InputError
from veil.risk._newton import ACCURACY, Master, solve

__all__ = ["PopulationUniqueness", "population_uniqueness"]


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniques (counts) and the Dankar model chosen."""

    population_size: int
    sampling_fraction: float
    sample_uniques: int
    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    dankar_model: str

    def to_dict(self) -> dict[str, Any]:
        def share(x: float | None) -> float | None:
            return None if x is None else x / self.population_size

        return {
            "population_size": self.population_size,
            "sampling_fraction": self.sampling_fraction,
            "sample_uniques": self.sample_uniques,
            "estimates": {
                name: {"uniques": val, "share": share(val)}
                for name, val in (
                    ("pitman", self.pitman),
                    ("zayatz", self.zayatz),
                    ("snb", self.snb),
                    ("dankar", self.dankar),
                )
            },
            "dankar_model": self.dankar_model,
        }


def _hist(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keys, counts = np.unique(sizes, return_counts=True)
    return keys.astype(float), counts.astype(float)


def _valid(x: float | None, population: float) -> float | None:
    if x is None or not math.isfinite(x) or x <= 0 or x > population:
        return None
    return float(x)


def zayatz(sizes: np.ndarray, population: float) -> float | None:
    """Zayatz's estimate of the number of population uniques."""
    from scipy.stats import hypergeom

    keys, counts = _hist(sizes)
    n = float(sizes.sum())
    u = float(len(sizes))
    c1 = counts[keys == 1].sum()
    if c1 == 0:
        return 0.0
    big_n = int(min(population, 2**31 - 1))
    probs = hypergeom.pmf(1, big_n, keys.astype(int), int(n))
    temp = float((counts / u * probs).sum())
    p1 = float(hypergeom.pmf(1, big_n, 1, int(n)))
    if temp == 0:
        return None
    uniqueness = (c1 / u) * p1 / temp
    return _valid(c1 * uniqueness / (n / population), population)


def _trigamma(z: float) -> float:
    """Trigamma; for negative arguments by reflection (scipy's series takes seconds there)."""
    from scipy.special import polygamma

    if z > 0:
        return float(polygamma(1, z))
    if not math.isfinite(z) or z == math.floor(z):
        return math.nan  # a pole
    return (math.pi / math.sin(math.pi * z)) ** 2 - float(polygamma(1, 1.0 - z))


def _pitman_closed(keys: np.ndarray, counts: np.ndarray, u: float, n: float) -> Master:
    """Pitman's score equations and their Jacobian in closed form (ARX's master function)."""
    from scipy.special import digamma

    big = keys > 1
    k_big, c_big = keys[big], counts[big]

    def master(
        t_: float, a_: float
    ) -> tuple[tuple[float, float], tuple[float, float, float, float]]:
        t, a = np.float64(t_), np.float64(a_)  # IEEE division: inf and nan, as in ARX
        v0 = u - 1.0
        v1 = float(digamma(v0 + t / a + 1))
        v2 = _trigamma((a + t + a * v0) / a)
        v3 = _trigamma(t / a + 1)
        v4 = float(digamma(t / a + 1))
        a2 = a * a
        d1 = (v3 - v2) / a2
        d5 = (a * v1 + t * v2 - a * v4 - t * v3) / (a2 * a)
        d3 = (a2 * v0 - t * t * v2 + t * t * v3 - 2 * a * t * v1 + 2 * a * t * v4) / (a2 * a2)
        o1 = (v1 - v4) / a
        o3 = (-t * v1 + a * v0 + t * v4) / a2
        o2 = float(digamma(n + t) - digamma(t + 1))
        d2 = _trigamma(t + 1) - _trigamma(n + t)
        tg = np.array([_trigamma(k - a) for k in k_big])
        d4 = float((c_big * (_trigamma(1 - a) - tg)).sum())
        o4 = float((c_big * (digamma(k_big - a) - digamma(1 - a))).sum())
        return (float(o1 - o2), float(o3 - o4)), (
            float(d2 - d1),
            float(-d5),
            float(-d5),
            float(-d3 - d4),
        )

    return master


def _pitman_sums(keys: np.ndarray, counts: np.ndarray, u: float, n: float) -> Master:
    """The same equations as finite sums (ARX's iterative master function), vectorized."""
    i_u = np.arange(1, max(int(u), 1), dtype=float)  # 1 .. u-1
    i_n = np.arange(1, max(int(n), 1), dtype=float)  # 1 .. n-1
    big = keys > 1
    k_big = keys[big].astype(np.int64)
    c_big = counts[big]
    j = np.arange(1, int(k_big.max()) if len(k_big) else 1, dtype=float)  # 1 .. max key - 1

    def master(
        t_: float, a_: float
    ) -> tuple[tuple[float, float], tuple[float, float, float, float]]:
        t, a = np.float64(t_), np.float64(a_)
        v = t + i_u * a
        o1 = float((1 / v).sum())
        o3 = float((i_u / v).sum())
        d1 = float((1 / v**2).sum())
        d5 = float((i_u / v**2).sum())
        d3 = float((i_u * i_u / v**2).sum())
        w = t + i_n
        o2 = float((1 / w).sum())
        d2 = float((1 / w**2).sum())
        if len(k_big):
            # sum_{j < key} 1/(j - a) and 1/(j - a)^2 for every key at once
            cum1 = np.concatenate([[0.0], np.cumsum(1 / (j - a))])
            cum2 = np.concatenate([[0.0], np.cumsum(1 / (j - a) ** 2)])
            o4 = float((c_big * cum1[k_big - 1]).sum())
            d4 = float((c_big * cum2[k_big - 1]).sum())
        else:
            o4 = d4 = 0.0
        return (float(o1 - o2), float(o3 - o4)), (
            float(d2 - d1),
            float(-d5),
            float(-d5),
            float(-d3 - d4),
        )

    return master


def _pitman_count(t: float, a: float, population: float) -> float | None:
    """Population uniques from the fitted (theta, alpha), as ARX's ``getResult``."""
    from scipy.special import gammaln

    if math.isnan(t) or math.isnan(a) or a == 0:
        return None
    found = []
    with np.errstate(all="ignore"):
        if t + 1 > 0 and t + a > 0:
            found.append(math.exp(min(700.0, gammaln(t + 1) - gammaln(t + a))) * population**a)
        with contextlib.suppress(OverflowError, ValueError, ZeroDivisionError):
            found.append(math.gamma(t + 1) / math.gamma(t + a) * population**a)
    ok = [v for v in found if math.isfinite(v) and 0 <= v <= population]
    return _valid(max(ok), population) if ok else None


def pitman(sizes: np.ndarray, population: float) -> float | None:
    """Pitman's estimate of the number of population uniques (maximum likelihood fit).

    Solved as ARX solves it (:mod:`veil.risk._newton`): Newton-Raphson on the closed-form
    score equations from ARX's initial guess, then from its 16 prepared start values, at
    most 1,000 steps each and theta kept at or above 0; a closed-form root that the finite
    sums do not confirm within 1e-6, or no closed-form root, is solved again on the finite
    sums. No root, or a count outside ``(0, population]``, is ``None`` (ARX: "not available").
    """
    keys, counts = _hist(sizes)
    n = float(sizes.sum())
    u = float(len(sizes))
    c1 = counts[keys == 1].sum()
    if c1 == 0:
        return 0.0
    c2 = counts[keys == 2].sum() or 1.0  # overestimate when there is no class of size 2
    c = c1 * (c1 - 1) / c2
    with np.errstate(all="ignore"):
        t0 = float(
            np.float64(n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
        )
        a0 = float(np.float64(t0 * (c1 - n) + (n - 1) * c1) / (n * u))
    if math.isnan(t0) or math.isnan(a0):
        return None

    def theta_ok(t: float, a: float) -> bool:
        return t >= 0

    sums = _pitman_sums(keys, counts, u, n)
    found = solve(_pitman_closed(keys, counts, u, n), (t0, a0), constraint=theta_ok)
    if found is not None:
        (f1, f2), _ = sums(*found)
        if not (abs(f1) <= ACCURACY and abs(f2) <= ACCURACY):
            found = None
    if found is None:
        found = solve(sums, (t0, a0), constraint=theta_ok)
    return None if found is None else _pitman_count(found[0], found[1], population)


def snb(sizes: np.ndarray, population: float) -> float | None:
    """Estimate of the slide negative binomial model."""
    from scipy.optimize import root

    keys, counts = _hist(sizes)
    n = float(sizes.sum())
    f = n / population
    c1 = counts[keys == 1].sum()
    c2 = counts[keys == 2].sum()
    if c1 == 0:
        return 0.0
    u = float(len(sizes))
    f2 = f * f
    with np.errstate(all="ignore"):
        v2p = (1 - f) ** keys * counts
        var1 = float((keys * f2 * (1 - f2) ** (keys - 1) * counts).sum())
        var2 = float((v2p * (1 + f) ** keys - 1).sum())
        var3 = float(v2p.sum())
        var4 = float((keys * f * (1 - f) ** (keys - 1) * counts).sum())
    if var2 == 0 or var4 == 0:
        return None
    k = u + c1 * (var1 / var2) * (var3 / var4) ** 2

    def eqs(x: np.ndarray) -> np.ndarray:
        a, b = np.float64(x[0]), np.float64(x[1])  # numpy floats: nan/inf, not exceptions
        d = (1 - f) * (1 - b)
        r1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1
        r2 = k * a * b**a * f2 * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
        return np.array([r1, r2])

    grid = [0.0, 0.33, 0.66, 0.99]
    for a0 in grid:
        for b0 in grid:
            try:
                with np.errstate(all="ignore"):
                    sol = root(eqs, np.array([a0, b0]), method="hybr")
            except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError):
                continue
            a, b = (float(v) for v in sol.x)
            if not sol.success or not np.all(np.isfinite(sol.x)) or b <= 0:
                continue
            if np.abs(eqs(sol.x)).max() > 1e-6 * max(1.0, c1):
                continue
            res = _valid(k * b**a, population)
            if res is not None:
                return res
    return None


def population_uniqueness(
    class_sizes: np.ndarray,
    *,
    population_size: int | None = None,
    sampling_fraction: float | None = None,
) -> PopulationUniqueness:
    """Estimate population uniques from a release's class sizes.

    Give the population size, or the sampling fraction (population = round(n / fraction)).

    Examples
    --------
    >>> import numpy as np
    >>> est = population_uniqueness(np.array([1, 1, 2, 3, 5, 8]), sampling_fraction=1.0)
    >>> est.population_size
    20
    """
    sizes = np.asarray(class_sizes, dtype=np.int64)
    n = int(sizes.sum())
    if (population_size is None) == (sampling_fraction is None):
        raise InputError("give exactly one of a population size or a sampling fraction")
    if sampling_fraction is not None:
        if not 0 < sampling_fraction <= 1:
            raise InputError(f"the sampling fraction must be in (0, 1], got {sampling_fraction}")
        population_size = round(n / sampling_fraction)
    assert population_size is not None
    if population_size < n:
        raise InputError(
            f"the population ({population_size} people) is smaller than the sample ({n} records)"
        )
    c1 = int((sizes == 1).sum())
    fraction = n / population_size if population_size else 1.0
    if c1 == 0 or n == 0:
        return PopulationUniqueness(population_size, fraction, c1, 0.0, 0.0, 0.0, 0.0, "none")
    pop = float(population_size)
    z = zayatz(sizes, pop)
    p = pitman(sizes, pop)
    s = snb(sizes, pop)
    if fraction <= 0.1:
        dankar, model = (p, "pitman") if p is not None else (z, "zayatz")
    elif s is not None and z is not None:
        dankar, model = (z, "zayatz") if z < s else (s, "snb")
    else:
        dankar, model = z, "zayatz"
    return PopulationUniqueness(population_size, fraction, c1, p, z, s, dankar, model)
