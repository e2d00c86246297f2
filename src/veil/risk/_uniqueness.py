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
estimate is 0. The formulas follow the published models as ARX implements them; the solvers
are scipy's, so the last digits can differ from ARX's own Newton-Raphson.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._errors import InputError

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


def pitman(sizes: np.ndarray, population: float) -> float | None:
    """Pitman's estimate of the number of population uniques (maximum likelihood fit)."""
    from scipy.optimize import root
    from scipy.special import digamma, gammaln, polygamma

    keys, counts = _hist(sizes)
    n = float(sizes.sum())
    u = float(len(sizes))
    c1 = counts[keys == 1].sum()
    if c1 == 0:
        return 0.0
    c2 = counts[keys == 2].sum() or 1.0  # overestimate when there is no class of size 2
    c = c1 * (c1 - 1) / c2
    denom = 2 * c1 * u + c1 * c - n * c
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denom if denom else 1.0
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    big = keys > 1

    def score(x: np.ndarray) -> np.ndarray:
        t, a = np.float64(x[0]), np.float64(x[1])
        v0 = u - 1.0
        o1 = (digamma(v0 + t / a + 1) - digamma(t / a + 1)) / a
        o2 = digamma(n + t) - digamma(t + 1)
        o3 = (-t * digamma(v0 + t / a + 1) + a * v0 + t * digamma(t / a + 1)) / (a * a)
        o4 = float((counts[big] * (digamma(keys[big] - a) - digamma(1 - a))).sum())
        return np.array([o1 - o2, o3 - o4])

    def jac(x: np.ndarray) -> np.ndarray:
        t, a = np.float64(x[0]), np.float64(x[1])
        v0 = u - 1.0
        tg = lambda z: float(polygamma(1, z))  # noqa: E731
        v1 = float(digamma(v0 + t / a + 1))
        v2 = tg((a + t + a * v0) / a)
        v3 = tg(t / a + 1)
        v4 = float(digamma(t / a + 1))
        a2 = a * a
        d1 = (v3 - v2) / a2
        d5 = (a * v1 + t * v2 - a * v4 - t * v3) / (a2 * a)
        d3 = (a2 * v0 - t * t * v2 + t * t * v3 - 2 * a * t * v1 + 2 * a * t * v4) / (a2 * a2)
        d2 = tg(t + 1) - tg(n + t)
        d4 = float((counts[big] * (tg(1 - a) - polygamma(1, keys[big] - a))).sum())
        # derivatives of the score (o1 - o2, o3 - o4) by (t, a)
        return np.array([[d2 - d1, -d5], [-d5, -d3 - d4]])

    for start in ((t0, a0), (1.0, 0.5), (10.0, 0.5), (100.0, 0.8)):
        if not (
            np.isfinite(start[0]) and np.isfinite(start[1]) and start[0] >= 0 and 0 < start[1] < 1
        ):
            continue
        try:
            with np.errstate(all="ignore"):
                sol = root(score, np.array(start, dtype=float), jac=jac, method="hybr")
        except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError):
            continue
        t, a = (float(v) for v in sol.x)
        if not sol.success or t < 0 or not 0 < a < 1:
            continue
        try:
            val = math.exp(gammaln(t + 1) - gammaln(t + a) + a * math.log(population))
        except OverflowError:
            continue
        res = _valid(val, population)
        if res is not None:
            return res
    return None


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
