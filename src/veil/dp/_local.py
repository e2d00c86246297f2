"""Local differential privacy: k-ary randomized response and its unbiased frequency estimator.

Privacy semantics: each person randomizes their own value before it is collected, so the
collector never sees a true value. With ``k`` categories and privacy parameter ``epsilon``,
the true value is reported with probability ``p = e^eps / (e^eps + k - 1)`` and each other
category with probability ``q = 1 / (e^eps + k - 1)``: every report is ``epsilon``-DP for the
person who sent it (local model; no trusted curator, no ledger needed for the reports
themselves). The randomization is OpenDP's ``make_randomized_response``, whose sampler is
vetted; numpy's generator is never used.

Estimator (Wang et al. 2017, "Locally differentially private protocols for frequency
estimation"): with ``c_j`` reports of category ``j`` out of ``n``,
``f_j = (c_j / n - q) / (p - q)`` is unbiased for the true frequency ``f_j``. Each report
is category ``j`` with probability ``pi_j = q + f_j (p - q)``, so
``Var[f_j] = pi_j (1 - pi_j) / (n (p - q)^2)``; the reported variance plugs in the observed
``c_j / n`` for ``pi_j``, and the interval is the normal approximation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from veil._errors import InputError
from veil.dp._stats import _opendp

__all__ = ["RRFrequencies", "randomized_response", "rr_estimate", "rr_probabilities"]


def rr_probabilities(epsilon: float, k: int) -> tuple[float, float]:
    """(p, q): probabilities of reporting the true category and one given other category."""
    if not (isinstance(epsilon, int | float) and math.isfinite(epsilon) and epsilon > 0):
        raise InputError("epsilon must be a finite number > 0")
    if k < 2:
        raise InputError("randomized response needs at least 2 categories")
    e = math.exp(epsilon)
    return e / (e + k - 1), 1.0 / (e + k - 1)


def randomized_response(
    values: Iterable[Any], categories: Sequence[Any], *, epsilon: float
) -> list[Any]:
    """Randomize each value with OpenDP's k-ary randomized response (epsilon-LDP each).

    Values must be among ``categories`` (a value outside would be revealed by the mechanism
    reporting another category with different probabilities, so it is refused).

    Examples
    --------
    >>> out = randomized_response(["a", "b", "a"], ["a", "b", "c"], epsilon=1.0)
    >>> len(out), set(out) <= {"a", "b", "c"}
    (3, True)
    """
    cats = [str(c) for c in categories]
    if len(set(cats)) != len(cats):
        raise InputError("categories must not repeat")
    p, _ = rr_probabilities(epsilon, len(cats))
    dp = _opendp()
    meas = dp.m.make_randomized_response(cats, prob=p, T=str)
    # OpenDP's own privacy map must agree with the epsilon asked for.
    if meas.map(1) > epsilon * (1 + 1e-9):
        raise InputError("OpenDP's privacy map exceeds the requested epsilon")
    allowed = set(cats)
    out = []
    for v in values:
        s = str(v)
        if s not in allowed:
            raise InputError(
                "a value is not among the categories given",
                hint="list every possible value in categories",
            )
        out.append(meas(s))
    return out


@dataclass(frozen=True)
class RRFrequencies:
    """Unbiased frequency estimates from randomized responses, with their variances."""

    categories: tuple[str, ...]
    n: int
    epsilon: float
    frequency: dict[str, float]
    variance: dict[str, float]
    confidence: float
    interval: dict[str, tuple[float, float]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "categories": list(self.categories),
            "n": self.n,
            "epsilon": self.epsilon,
            "frequency": self.frequency,
            "variance": self.variance,
            "confidence": self.confidence,
            "interval": {k: list(v) for k, v in self.interval.items()},
        }


def rr_estimate(
    responses: Iterable[Any],
    categories: Sequence[Any],
    *,
    epsilon: float,
    confidence: float = 0.95,
) -> RRFrequencies:
    """Unbiased estimate of each category's true frequency from randomized responses.

    Examples
    --------
    >>> est = rr_estimate(["a"] * 70 + ["b"] * 30, ["a", "b"], epsilon=math.log(3))
    >>> round(est.frequency["a"], 3), round(est.frequency["b"], 3)
    (0.9, 0.1)
    """
    from statistics import NormalDist

    cats = tuple(str(c) for c in categories)
    p, q = rr_probabilities(epsilon, len(cats))
    counts = dict.fromkeys(cats, 0)
    n = 0
    for r in responses:
        s = str(r)
        if s not in counts:
            raise InputError("a response is not among the categories given")
        counts[s] += 1
        n += 1
    if n == 0:
        raise InputError("no responses to estimate from")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    freq, var, interval = {}, {}, {}
    for c in cats:
        pi = counts[c] / n
        f = (pi - q) / (p - q)
        v = pi * (1 - pi) / (n * (p - q) ** 2)
        freq[c], var[c] = f, v
        interval[c] = (f - z * math.sqrt(v), f + z * math.sqrt(v))
    return RRFrequencies(cats, n, float(epsilon), freq, var, confidence, interval)
