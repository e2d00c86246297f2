"""Information-loss metrics, defined exactly as ARX 3.9 defines them.

All metrics score a full-domain transformation (one level per quasi-identifier) given its
equivalence classes and which classes are suppressed. Lower is better. The generalization /
suppression factor ``gs`` (ARX's default 0.5) gives a generalization factor
``g = 1 if gs <= 0.5 else 1 - 2 (gs - 0.5)`` and a suppression factor
``s = 2 gs if gs < 0.5 else 1``.

``loss`` (ARX ``MetricMDNMLoss``, its default quality model)
    Per quasi-identifier ``d``: ``L_d = sum over classes`` of ``count * share`` for kept
    classes (times ``g``) and ``count`` for suppressed ones (with ``s = 1``; otherwise
    ``share + s (count - share)``), where ``share`` is the fraction of the hierarchy's rows
    under the generalized value (ARX's domain share). Normalized as
    ``(L_d - m_d) / (n - m_d)`` with ``m_d = g n / |hierarchy rows|``, clamped at 0 and
    floored to 10 decimals; aggregated by the geometric mean ``prod (L_d + 1)^(1/D) - 1``.
``entropy`` (ARX ``MetricMDNUNMEntropyPrecomputed``, non-monotonic non-uniform entropy)
    Per quasi-identifier: ``g * sum over records -log2(freq(original) / freq(generalized))``
    with frequencies counted over the whole input, plus for suppressed records
    ``s * sum over generalized values v -c_v log2(c_v / #suppressed)``; summed.
``dm`` (ARX ``MetricSDDiscernability``, DM*)
    ``sum over all classes size^2``; suppression is not penalized.
``aecs`` (ARX ``MetricSDAECS``)
    ``n / (#kept classes * s + (g if any record is suppressed else 0))``.
``height`` (ARX ``MetricMDHeight``)
    Sum of the levels.
``precision`` (ARX ``MetricMDNMPrecision``)
    Mean over quasi-identifiers of ``(kept * level / max level * g + suppressed * s) / n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from veil._registry import Registry

if TYPE_CHECKING:
    from veil.tabular._encoding import FrequencyTable

__all__ = ["METRICS", "Metric", "NodeClasses", "arx_factors", "arx_round"]

METRICS: Registry[type[Metric]] = Registry("metric")

_FACTOR = 10.0**10
_LOG2 = math.log(2)


def arx_round(value: float) -> float:
    """ARX keeps the first 10 decimals (``floor(v * 1e10) / 1e10``)."""
    return math.floor(value * _FACTOR) / _FACTOR


def arx_factors(gs: float) -> tuple[float, float]:
    """(generalization factor, suppression factor) for ARX's gs-factor."""
    s = 2.0 * gs if gs < 0.5 else 1.0
    g = 1.0 if gs <= 0.5 else 1.0 - 2.0 * (gs - 0.5)
    return g, s


@dataclass
class NodeClasses:
    """The equivalence classes of one transformation over the frequency table."""

    levels: tuple[int, ...]
    gen: np.ndarray | None  # (C, d) generalized codes of each class, or None: see ``key``
    combo_class: np.ndarray | None  # (m,) class of each combination, when kept
    sizes: np.ndarray  # (C,) records per class
    kept: np.ndarray  # (C,) bool: class satisfies the models
    suppressed_records: int
    key: np.ndarray | None = None  # (C,) mixed-radix key of the codes: sum code_j * mult_j
    mult: np.ndarray | None = None
    radix: np.ndarray | None = None
    # (1, d) shifts and masks of the key's bit fields, when ``mult`` and ``radix`` are powers
    # of two (the evaluator computes them once for all its nodes)
    fields: tuple[np.ndarray, np.ndarray] | None = None

    def gen_rows(self, mask: np.ndarray) -> np.ndarray:
        """``(k, d)`` generalized codes of the classes selected by ``mask``."""
        if self.gen is not None:
            return self.gen[mask]
        assert self.key is not None and self.mult is not None and self.radix is not None
        keys = self.key[mask]
        if self.fields is not None:
            out = keys[:, None] >> self.fields[0]
            out &= self.fields[1]
            return out
        mult = [int(m) for m in self.mult]
        radix = [int(r) for r in self.radix]
        if all(m > 0 and m & (m - 1) == 0 for m in mult) and all(
            r > 0 and r & (r - 1) == 0 for r in radix
        ):
            # bit fields (the evaluator's fast path): shifts and masks, several times
            # faster than integer division and modulo, the same codes
            shifts = np.array([m.bit_length() - 1 for m in mult], dtype=np.int64)
            out = keys[:, None] >> shifts[None, :]
            out &= np.array([r - 1 for r in radix], dtype=np.int64)[None, :]
            return out
        return (keys[:, None] // self.mult[None, :]) % self.radix[None, :]


class Metric:
    """Base class: ``prepare`` once, then ``lower_bounds`` for all nodes and ``score``."""

    name: ClassVar[str]
    #: score never decreases from a node to its generalizations, whatever is suppressed
    monotone: ClassVar[bool] = False

    def __init__(self, gs_factor: float = 0.5) -> None:
        self.gs_factor = gs_factor
        self.g, self.s = arx_factors(gs_factor)

    def prepare(self, ft: FrequencyTable) -> None:
        self.ft = ft
        self.n = float(ft.n_rows)

    def lower_bounds(self, nodes: np.ndarray) -> np.ndarray | None:
        """A lower bound of the score of every node (rows of ``nodes``), or None."""
        return None

    def score(self, node: NodeClasses) -> float:
        raise NotImplementedError

    def score_without_suppression(self, levels: tuple[int, ...]) -> float | None:
        """The exact score of a node with no suppressed record, if known without groupify."""
        return None


@METRICS.register("loss")
class LossMetric(Metric):
    def prepare(self, ft: FrequencyTable) -> None:
        super().prepare(ft)
        self._total: list[np.ndarray] = []  # per qi, per level: sum over records of share
        self._min: list[float] = []
        for q in ft.qis:
            per_level = np.array(
                [
                    float(np.dot(q.value_counts, q.shares[lv][q.level_codes[lv]]))
                    for lv in range(q.height)
                ]
            )
            self._total.append(per_level)
            self._min.append(self.g * self.n / q.domain_size)

    def _normalize(self, agg: float, d: int) -> float:
        mn = self._min[d]
        r = (agg - mn) / (self.n - mn) if self.n != mn else 0.0
        return arx_round(r if r >= 0.0 else 0.0)

    @staticmethod
    def _geo(values: list[float]) -> float:
        r = 1.0
        e = 1.0 / len(values)
        for v in values:
            r *= math.pow(v + 1.0, e)
        return r - 1.0

    def lower_bounds(self, nodes: np.ndarray) -> np.ndarray:
        d = nodes.shape[1]
        logs = np.zeros(len(nodes))
        for j in range(d):
            vals = np.array(
                [self._normalize(self.g * t, j) for t in self._total[j]], dtype=np.float64
            )
            logs += np.log1p(vals[nodes[:, j]])
        return np.expm1(logs / d)

    def score_without_suppression(self, levels: tuple[int, ...]) -> float:
        return self._geo(
            [self._normalize(self.g * self._total[j][lv], j) for j, lv in enumerate(levels)]
        )

    def _flat(self) -> tuple[np.ndarray, np.ndarray]:
        if not hasattr(self, "_flat_shares"):
            qis = self.ft.qis
            hmax = max(q.height for q in qis)
            off = np.zeros((len(qis), hmax), dtype=np.int64)
            pieces, pos = [], 0
            for j, q in enumerate(qis):
                for lv in range(q.height):
                    off[j, lv] = pos
                    pieces.append(q.shares[lv])
                    pos += len(q.shares[lv])
            self._flat_shares = np.concatenate(pieces)
            self._share_off = off
        return self._flat_shares, self._share_off

    def score(self, node: NodeClasses) -> float:
        if node.suppressed_records == 0:
            return self.score_without_suppression(node.levels)
        flat, off = self._flat()
        sup = ~node.kept
        cnt = node.sizes[sup].astype(np.float64)
        n_sup = float(cnt.sum())
        d = len(node.levels)
        lv = np.asarray(node.levels, dtype=np.int64)
        shares = flat[node.gen_rows(sup) + off[np.arange(d), lv][None, :]]
        s_sup_all = cnt @ shares
        vals = []
        for j in range(d):
            s_sup = float(s_sup_all[j])
            kept = self._total[j][node.levels[j]] - s_sup
            lost = n_sup if self.s == 1.0 else s_sup + self.s * (n_sup - s_sup)
            vals.append(self._normalize(kept * self.g + lost, j))
        return self._geo(vals)


@METRICS.register("entropy")
class EntropyMetric(Metric):
    def prepare(self, ft: FrequencyTable) -> None:
        super().prepare(ft)
        self._gen: list[np.ndarray] = []  # per qi, per level: raw (negative) entropy sum
        for q in ft.qis:
            a = q.value_counts.astype(np.float64)
            per_level = []
            for lv in range(q.height):
                b = np.bincount(q.level_codes[lv], weights=a)[q.level_codes[lv]]
                nz = a > 0
                per_level.append(float(np.sum(a[nz] * (np.log(a[nz] / b[nz]) / _LOG2))))
            self._gen.append(np.array(per_level))

    @staticmethod
    def _finish(v: float) -> float:
        return arx_round(v if v == 0.0 else -v)

    def lower_bounds(self, nodes: np.ndarray) -> np.ndarray:
        total = np.zeros(len(nodes))
        for j in range(nodes.shape[1]):
            vals = np.array([self._finish(v * self.g) for v in self._gen[j]])
            total += vals[nodes[:, j]]
        return total

    def score_without_suppression(self, levels: tuple[int, ...]) -> float:
        return float(sum(self._finish(self._gen[j][lv] * self.g) for j, lv in enumerate(levels)))

    def score(self, node: NodeClasses) -> float:
        if node.suppressed_records == 0:
            return self.score_without_suppression(node.levels)
        sup = ~node.kept
        cnt = node.sizes[sup].astype(np.float64)
        n_sup = float(cnt.sum())
        gen = node.gen_rows(sup)
        d = gen.shape[1]
        width = int(gen.max()) + 1 if gen.size else 1
        key = gen + (np.arange(d, dtype=np.int64) * width)[None, :]
        c = np.bincount(key.ravel(), weights=np.repeat(cnt, d), minlength=d * width)
        c = c.reshape(d, width)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(c > 0, c * (np.log(c / n_sup) / _LOG2), 0.0)
        extra = terms.sum(axis=1) * self.s
        total = 0.0
        for j, lv in enumerate(node.levels):
            total += self._finish(self._gen[j][lv] * self.g + float(extra[j]))
        return total


@METRICS.register("dm")
class DiscernibilityMetric(Metric):
    monotone = True

    def score(self, node: NodeClasses) -> float:
        sz = node.sizes.astype(np.float64)
        return float(np.dot(sz, sz))


@METRICS.register("aecs")
class AECSMetric(Metric):
    def score(self, node: NodeClasses) -> float:
        kept = float(np.count_nonzero(node.kept & (node.sizes > 0)))
        groups = kept * self.s  # ARX switches the factors on purpose
        if node.suppressed_records > 0:
            groups += self.g
        return self.n / groups if groups else math.inf


@METRICS.register("height")
class HeightMetric(Metric):
    monotone = True

    def lower_bounds(self, nodes: np.ndarray) -> np.ndarray:
        return nodes.sum(axis=1).astype(np.float64)

    def score_without_suppression(self, levels: tuple[int, ...]) -> float:
        return float(sum(levels))

    def score(self, node: NodeClasses) -> float:
        return float(sum(node.levels))


@METRICS.register("precision")
class PrecisionMetric(Metric):
    def _dims(self, levels: tuple[int, ...], n_sup: float) -> float:
        heights = [q.height - 1 for q in self.ft.qis]
        unsup = self.n - n_sup
        total = 0.0
        d = len(levels)
        for lv, h in zip(levels, heights, strict=True):
            v = 0.0 if h == 0 else lv / h
            total += ((unsup * v) * self.g + n_sup * self.s) / self.n / d
        return total

    def lower_bounds(self, nodes: np.ndarray) -> np.ndarray:
        heights = np.array([max(q.height - 1, 1) for q in self.ft.qis], dtype=np.float64)
        v = nodes / heights[None, :] * self.g
        return np.minimum(v, self.s).mean(axis=1) * (1 - 1e-12)

    def score_without_suppression(self, levels: tuple[int, ...]) -> float:
        return self._dims(levels, 0.0)

    def score(self, node: NodeClasses) -> float:
        return self._dims(node.levels, float(node.suppressed_records))
