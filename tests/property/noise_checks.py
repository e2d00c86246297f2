"""Statistical checks of DP noise that was actually drawn, against the scale a mechanism reports.

The DP tests elsewhere rebuild a mechanism from its *reported* scale and ask OpenDP's privacy
map about it; that never looks at the noise drawn, so noise drawn at a tenth of the reported
scale would pass them. These helpers take many draws of ``released - exact`` and test them
against the reported distribution:

- a shape test: Kolmogorov-Smirnov (continuous Laplace and Gaussian) or a chi-square
  goodness of fit on bins of the exact probability mass function (the discrete Laplace and
  discrete Gaussian that OpenDP draws for integers, categorical outcomes);
- a scale test: ``sum |x| / s`` is Gamma(n, 1) for Laplace(s), ``sum x^2 / sigma^2`` is
  chi-square(n) for N(0, sigma^2); for the discrete laws, the sample variance against the
  exact variance (normal approximation, n in the thousands).

Every test rejects only at ``P_REJECT`` (1e-6): OpenDP's sampler cannot be seeded, so the
tests are not flaky only because they are tolerant. Noise at 1/10 or 10x its scale gives
p-values far below 1e-100.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

P_REJECT = 1e-6

__all__ = [
    "P_REJECT",
    "assert_categorical",
    "assert_discrete_gaussian",
    "assert_discrete_laplace",
    "assert_gaussian",
    "assert_laplace",
]


def _two_sided(p_low: float) -> float:
    return 2 * min(p_low, 1 - p_low)


def assert_laplace(noise: Sequence[float] | np.ndarray, scale: float, what: str) -> None:
    """``noise`` is i.i.d. Laplace(0, ``scale``) (continuous, or OpenDP's fine float grid)."""
    x = np.asarray(noise, dtype=float) / scale
    n = x.size
    ks = stats.kstest(x, "laplace").pvalue
    # sum |X| / s ~ Gamma(n, 1): the scale test
    p_scale = _two_sided(float(stats.gamma.cdf(np.abs(x).sum(), n)))
    assert ks > P_REJECT and p_scale > P_REJECT, (
        f"{what}: {n} draws are not Laplace at the reported scale {scale:g} "
        f"(KS p={ks:.3g}, scale p={p_scale:.3g}, mean |x|/scale={np.abs(x).mean():.4g})"
    )


def assert_gaussian(noise: Sequence[float] | np.ndarray, sigma: float, what: str) -> None:
    """``noise`` is i.i.d. N(0, ``sigma``^2)."""
    x = np.asarray(noise, dtype=float) / sigma
    n = x.size
    ks = stats.kstest(x, "norm").pvalue
    p_scale = _two_sided(float(stats.chi2.cdf((x**2).sum(), n)))  # sum X^2/sigma^2 ~ chi2(n)
    assert ks > P_REJECT and p_scale > P_REJECT, (
        f"{what}: {n} draws are not Gaussian at the reported scale {sigma:g} "
        f"(KS p={ks:.3g}, scale p={p_scale:.3g}, sd/sigma={x.std():.4g})"
    )


def _support(width: float) -> np.ndarray:
    m = math.ceil(width)
    return np.arange(-m, m + 1)


def _discrete(noise: Sequence[int] | np.ndarray, k: np.ndarray, pmf: np.ndarray, what: str) -> None:
    """Chi-square goodness of fit on bins of ``pmf`` (over integers ``k``) and a variance test."""
    x = np.asarray(noise)
    assert np.all(x == np.round(x)), f"{what}: the noise of an integer mechanism is not integer"
    x = x.astype(np.int64)
    n = x.size
    pmf = pmf / pmf.sum()
    # bins of at least 1 % of the mass each (expected count >= 20 with n >= 2000), so the
    # chi-square approximation holds; the tails go into the outer bins
    cdf = np.cumsum(pmf)
    n_bins = max(2, min(50, n // 40))
    cuts = np.unique(np.searchsorted(cdf, np.linspace(0, 1, n_bins + 1)[1:-1]))
    edges = k[cuts]  # bin i holds values <= edges[i] (and > edges[i-1])
    expected = np.diff(np.concatenate([[0.0], cdf[cuts], [1.0]])) * n
    observed = np.bincount(np.searchsorted(edges, x, side="left"), minlength=edges.size + 1)
    keep = expected > 0
    chi2 = float((((observed - expected) ** 2)[keep] / expected[keep]).sum())
    p_fit = float(stats.chi2.sf(chi2, int(keep.sum()) - 1))
    # variance: exact moments of the law; sd of the sample variance from the fourth moment
    mu2 = float((pmf * k.astype(float) ** 2).sum())
    mu4 = float((pmf * k.astype(float) ** 4).sum())
    z = (float((x.astype(float) ** 2).mean()) - mu2) / math.sqrt((mu4 - mu2**2) / n)
    p_var = float(2 * stats.norm.sf(abs(z)))
    assert p_fit > P_REJECT and p_var > P_REJECT, (
        f"{what}: {n} draws do not follow the reported law "
        f"(chi-square p={p_fit:.3g}, variance p={p_var:.3g}, "
        f"sample variance {float((x.astype(float) ** 2).mean()):.4g} vs {mu2:.4g})"
    )


def assert_discrete_laplace(noise: Sequence[int] | np.ndarray, scale: float, what: str) -> None:
    """``noise`` is i.i.d. discrete Laplace: P(k) proportional to exp(-|k| / scale)."""
    k = _support(60 * scale + 10)
    _discrete(noise, k, np.exp(-np.abs(k) / scale), what)


def assert_discrete_gaussian(noise: Sequence[int] | np.ndarray, sigma: float, what: str) -> None:
    """``noise`` is i.i.d. discrete Gaussian: P(k) proportional to exp(-k^2 / (2 sigma^2))."""
    k = _support(12 * sigma + 10)
    _discrete(noise, k, np.exp(-(k.astype(float) ** 2) / (2 * sigma**2)), what)


def assert_categorical(
    outcomes: Sequence[int] | np.ndarray, probs: Sequence[float], what: str
) -> None:
    """``outcomes`` (indices into ``probs``) are i.i.d. draws of the categorical law ``probs``."""
    x = np.asarray(outcomes, dtype=np.int64)
    p = np.asarray(probs, dtype=float)
    p = p / p.sum()
    observed = np.bincount(x, minlength=p.size)
    assert observed.size == p.size, f"{what}: an outcome outside the categories"
    expected = p * x.size
    # outcomes expected fewer than 5 times are pooled into one cell
    small = expected < 5
    obs = np.concatenate([observed[~small], [observed[small].sum()]])
    exp = np.concatenate([expected[~small], [expected[small].sum()]])
    keep = exp > 0
    if not keep.any() or (obs[~keep] > 0).any():
        raise AssertionError(f"{what}: an outcome of probability 0 was drawn")
    chi2 = float((((obs - exp) ** 2)[keep] / exp[keep]).sum())
    dof = int(keep.sum()) - 1
    p_fit = float(stats.chi2.sf(chi2, dof)) if dof > 0 else 1.0
    assert p_fit > P_REJECT, (
        f"{what}: {x.size} draws do not follow the reported probabilities "
        f"(chi-square p={p_fit:.3g}; observed {observed.tolist()[:10]}, "
        f"expected {np.round(expected, 1).tolist()[:10]})"
    )
