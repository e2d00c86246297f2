"""Privacy curves stored with spends, and composing a history of spends into one (epsilon, delta).

Every spend declares an (epsilon, delta) guarantee. Where the mechanism gives more, the spend
also stores its *privacy curve* as JSON, one of::

    {"type": "pure", "epsilon": e}                      an e-DP mechanism (Laplace, geometric, RR)
    {"type": "zcdp", "rho": r}                          a rho-zCDP mechanism (Gaussian in OpenDP)
    {"type": "gaussian", "noise_multiplier": z,         (subsampled) Gaussian / DP-SGD; z is the
     "sample_rate": q, "steps": t}                      noise std over the L2 sensitivity
    {"type": "dpsgd", "history": [[z, q, t], ...]}      Opacus accountant ``history``
    {"type": "rdp", "orders": [a, ...], "rdp": [v, ...]}  any RDP curve

Compositions (chosen per dataset at ``init``; the ledger shows all that apply and enforces
the chosen one):

``basic``
    The plain sum of the declared epsilons and deltas (sequential composition). Always valid.
``rdp``
    Spends with a curve are composed as Rényi DP (curves add order by order) and converted to
    (epsilon, delta) with Opacus' RDP analysis (Balle et al. 2020 conversion) at the part of
    the dataset's delta not used by spends without a curve; those are added by the plain sum.
    The result is the smaller of this and ``basic`` (both are valid guarantees).
``prv``
    Gaussian and DP-SGD spends are composed with Opacus' PRV accountant (numerical privacy
    loss distributions, tighter than RDP); the others by the plain sum; again the smaller of
    this and ``basic``.

Pure e-DP converts to RDP as ``min(e, a e^2 / 2)`` (e-DP implies e^2/2-zCDP, Bun and Steinke
2016); rho-zCDP is RDP ``a rho`` at every order ``a``.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from veil._errors import InputError

__all__ = [
    "COMPOSITIONS",
    "Composed",
    "check_declared",
    "compose",
    "curve_dpsgd",
    "curve_gaussian",
    "curve_pure",
    "curve_rdp",
    "curve_zcdp",
    "validate_curve",
]

COMPOSITIONS = ("basic", "rdp", "prv")

# The orders Opacus' RDP accountant uses by default, plus a few more at the high end.
ORDERS: tuple[float, ...] = (
    *(1 + x / 10.0 for x in range(1, 100)),
    *(float(a) for a in range(12, 64)),
    128.0,
    256.0,
    512.0,
    1024.0,
)
_GAUSSIAN_TYPES = ("gaussian", "dpsgd")
_PRV_EPS_ERROR = 0.01


# --------------------------------------------------------------------------- curve builders


def curve_pure(epsilon: float) -> dict[str, Any]:
    """The curve of a pure ``epsilon``-DP mechanism (Laplace, geometric, randomized response)."""
    return validate_curve({"type": "pure", "epsilon": float(epsilon)})


def curve_zcdp(rho: float) -> dict[str, Any]:
    """The curve of a ``rho``-zCDP mechanism (OpenDP's Gaussian mechanisms)."""
    return validate_curve({"type": "zcdp", "rho": float(rho)})


def curve_gaussian(
    noise_multiplier: float, *, sample_rate: float = 1.0, steps: int = 1
) -> dict[str, Any]:
    """The curve of ``steps`` Poisson-subsampled Gaussian mechanisms (DP-SGD).

    Examples
    --------
    >>> curve_gaussian(1.1, sample_rate=0.01, steps=1000)["type"]
    'gaussian'
    """
    return validate_curve(
        {
            "type": "gaussian",
            "noise_multiplier": float(noise_multiplier),
            "sample_rate": float(sample_rate),
            "steps": int(steps),
        }
    )


def curve_dpsgd(history: Iterable[Sequence[float]]) -> dict[str, Any]:
    """The curve of a DP-SGD run from an Opacus accountant's ``history``.

    ``history`` is a list of ``(noise_multiplier, sample_rate, steps)``, as kept by
    ``opacus.accountants.RDPAccountant().history`` and ``PRVAccountant().history``.
    """
    return validate_curve(
        {"type": "dpsgd", "history": [[float(z), float(q), int(t)] for z, q, t in history]}
    )


def curve_rdp(orders: Sequence[float], rdp: Sequence[float]) -> dict[str, Any]:
    """An arbitrary Rényi-DP curve: ``rdp[i]`` is the RDP epsilon at order ``orders[i]``."""
    return validate_curve(
        {"type": "rdp", "orders": [float(a) for a in orders], "rdp": [float(v) for v in rdp]}
    )


def _bad(msg: str) -> InputError:
    return InputError(f"invalid privacy curve: {msg}", hint="see veil.dp.curve_* for the formats")


def _finite_pos(x: Any, name: str, *, allow_zero: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise _bad(f"{name} must be a number, got {type(x).__name__}")
    v = float(x)
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise _bad(f"{name} must be a finite number {'>=' if allow_zero else '>'} 0")
    return v


def validate_curve(curve: dict[str, Any] | str | None) -> dict[str, Any]:
    """Check a curve (a dict or its JSON) and return it as a normalized dict."""
    if curve is None:
        raise _bad("no curve")
    if isinstance(curve, str):
        try:
            curve = json.loads(curve)
        except ValueError:
            raise _bad("not JSON") from None
    if not isinstance(curve, dict):
        raise _bad(f"expected a dict, got {type(curve).__name__}")
    kind = curve.get("type")
    if kind == "pure":
        return {"type": "pure", "epsilon": _finite_pos(curve.get("epsilon"), "epsilon")}
    if kind == "zcdp":
        return {"type": "zcdp", "rho": _finite_pos(curve.get("rho"), "rho")}
    if kind == "gaussian":
        q = _finite_pos(curve.get("sample_rate", 1.0), "sample_rate")
        if q > 1:
            raise _bad("sample_rate must be at most 1")
        steps = curve.get("steps", 1)
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise _bad("steps must be a positive integer")
        return {
            "type": "gaussian",
            "noise_multiplier": _finite_pos(curve.get("noise_multiplier"), "noise_multiplier"),
            "sample_rate": q,
            "steps": steps,
        }
    if kind == "dpsgd":
        hist = curve.get("history")
        if not isinstance(hist, list) or not hist:
            raise _bad("dpsgd needs a non-empty 'history' list")
        out = []
        for seg in hist:
            if not isinstance(seg, list | tuple) or len(seg) != 3:
                raise _bad("each history entry is [noise_multiplier, sample_rate, steps]")
            g = validate_curve(
                {
                    "type": "gaussian",
                    "noise_multiplier": seg[0],
                    "sample_rate": seg[1],
                    "steps": seg[2],
                }
            )
            out.append([g["noise_multiplier"], g["sample_rate"], g["steps"]])
        return {"type": "dpsgd", "history": out}
    if kind == "rdp":
        orders, values = curve.get("orders"), curve.get("rdp")
        if not isinstance(orders, list) or not isinstance(values, list) or not orders:
            raise _bad("rdp needs non-empty 'orders' and 'rdp' lists")
        if len(orders) != len(values):
            raise _bad("'orders' and 'rdp' differ in length")
        o = [_finite_pos(a, "order") for a in orders]
        if any(a <= 1 for a in o):
            raise _bad("RDP orders must be > 1")
        v = [_finite_pos(x, "rdp value", allow_zero=True) for x in values]
        return {"type": "rdp", "orders": o, "rdp": v}
    raise _bad("'type' must be one of pure, zcdp, gaussian, dpsgd, rdp")


# --------------------------------------------------------------------------- composition


@dataclass(frozen=True)
class Composed:
    """A history composed under one composition: ``epsilon`` at ``delta``.

    ``delta_used`` is the delta consumed outright by spends composed by the plain sum; the
    rest of the dataset's delta is what the tighter compositions convert their curves at, so
    a new spend with a curve can still use it.
    """

    composition: str
    epsilon: float
    delta: float
    delta_used: float | None = None

    def __post_init__(self) -> None:
        if self.delta_used is None:
            object.__setattr__(self, "delta_used", self.delta)

    def as_dict(self) -> dict[str, Any]:
        return {
            "composition": self.composition,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "delta_used": self.delta_used,
        }


@dataclass(frozen=True)
class _Entry:
    epsilon: float
    delta: float
    curve: dict[str, Any] | None


def _entries(spends: Iterable[tuple[float, float, str | dict[str, Any] | None]]) -> list[_Entry]:
    out = []
    for eps, delta, curve in spends:
        c = None
        if curve is not None:
            c = curve if isinstance(curve, dict) else validate_curve(curve)
        out.append(_Entry(float(eps), float(delta), c))
    return out


def _gaussian_segments(curve: dict[str, Any]) -> list[tuple[float, float, int]]:
    if curve["type"] == "gaussian":
        return [(curve["noise_multiplier"], curve["sample_rate"], curve["steps"])]
    return [(z, q, int(t)) for z, q, t in curve["history"]]


def _rdp_vector(curve: dict[str, Any]) -> list[float]:
    """The curve's RDP epsilons at :data:`ORDERS` (``inf`` where it says nothing)."""
    kind = curve["type"]
    if kind == "pure":
        e = curve["epsilon"]
        return [min(e, a * e * e / 2.0) for a in ORDERS]
    if kind == "zcdp":
        return [a * curve["rho"] for a in ORDERS]
    if kind == "rdp":
        # RDP is non-decreasing in the order: at an order between two given ones the value
        # at the next larger given order is a valid bound; beyond the largest, unknown.
        given = sorted(zip(curve["orders"], curve["rdp"], strict=True))
        out = []
        for a in ORDERS:
            bound = math.inf
            for ga, gv in given:
                if ga >= a:
                    bound = gv
                    break
            out.append(bound)
        return out
    from opacus.accountants.analysis import rdp as opacus_rdp

    total = [0.0] * len(ORDERS)
    for z, q, t in _gaussian_segments(curve):
        vals = opacus_rdp.compute_rdp(q=q, noise_multiplier=z, steps=t, orders=list(ORDERS))
        total = [a + float(b) for a, b in zip(total, vals, strict=True)]
    return total


def basic(spends: Iterable[tuple[float, float, Any]]) -> Composed:
    """The plain sum of declared (epsilon, delta)."""
    es = list(_entries(spends))
    return Composed("basic", math.fsum(e.epsilon for e in es), math.fsum(e.delta for e in es))


def compose(
    spends: Iterable[tuple[float, float, str | dict[str, Any] | None]],
    composition: str,
    *,
    delta_total: float,
) -> Composed:
    """Compose ``(epsilon, delta, curve)`` spends under ``composition``.

    Parameters
    ----------
    spends
        The history: declared epsilon, declared delta and the curve (dict, JSON or None).
    composition
        ``basic``, ``rdp`` or ``prv`` (see the module docstring).
    delta_total
        The dataset's delta: the tighter compositions convert their curves at the part of it
        that spends without a curve leave.

    Returns
    -------
    Composed
        The total epsilon and the delta at which it holds. ``epsilon`` is ``inf`` when no
        guarantee within ``delta_total`` can be given.

    Examples
    --------
    >>> compose([(1.0, 0.0, None), (0.5, 1e-6, None)], "basic", delta_total=1e-5)
    Composed(composition='basic', epsilon=1.5, delta=1e-06, delta_used=1e-06)
    """
    if composition not in COMPOSITIONS:
        raise InputError(
            f"unknown composition {composition!r}", hint=f"use one of: {', '.join(COMPOSITIONS)}"
        )
    es = _entries(spends)
    plain = Composed("basic", math.fsum(e.epsilon for e in es), math.fsum(e.delta for e in es))
    if composition == "basic":
        return plain
    if composition == "rdp":
        tight = [e for e in es if e.curve is not None]
    else:
        tight = [e for e in es if e.curve is not None and e.curve["type"] in _GAUSSIAN_TYPES]
    if not tight:
        return Composed(composition, plain.epsilon, plain.delta)
    tight_ids = {id(e) for e in tight}
    rest = [e for e in es if id(e) not in tight_ids]
    eps_rest = math.fsum(e.epsilon for e in rest)
    delta_rest = math.fsum(e.delta for e in rest)
    delta_conv = delta_total - delta_rest
    best = plain if plain.delta <= delta_total else Composed(composition, math.inf, delta_total)
    if delta_conv <= 0:
        return Composed(composition, best.epsilon, best.delta)
    if composition == "rdp":
        eps_tight = _rdp_epsilon(tight, delta_conv)
    else:
        eps_tight = _prv_epsilon(tight, delta_conv)
    candidate = eps_tight + eps_rest
    if candidate < best.epsilon:
        return Composed(composition, candidate, delta_total, delta_rest)
    return Composed(composition, best.epsilon, best.delta)


def _rdp_epsilon(entries: list[_Entry], delta: float) -> float:
    total = [0.0] * len(ORDERS)
    for e in entries:
        assert e.curve is not None
        total = [a + b for a, b in zip(total, _rdp_vector(e.curve), strict=True)]
    finite = [(a, v) for a, v in zip(ORDERS, total, strict=True) if math.isfinite(v)]
    if not finite:
        return math.inf
    from opacus.accountants.analysis import rdp as opacus_rdp

    with warnings.catch_warnings():
        # Opacus warns when the best order is at an end of the range; the bound stays valid.
        warnings.filterwarnings("ignore", message="Optimal order is the", category=UserWarning)
        eps, _ = opacus_rdp.get_privacy_spent(
            orders=[a for a, _ in finite], rdp=[v for _, v in finite], delta=delta
        )
    return float(eps)


def _prv_epsilon(entries: list[_Entry], delta: float) -> float:
    from opacus.accountants import PRVAccountant

    acc = PRVAccountant()
    for e in entries:
        assert e.curve is not None
        for z, q, t in _gaussian_segments(e.curve):
            acc.history.append((z, q, t))
    # Opacus returns the upper end of its numerical error interval: a valid bound.
    return float(acc.get_epsilon(delta=delta, eps_error=_PRV_EPS_ERROR))


def check_declared(epsilon: float, delta: float, curve: dict[str, Any]) -> None:
    """Refuse a spend whose declared (epsilon, delta) claims less loss than its own curve.

    The plain-sum composition trusts the declared values, so they must be a valid guarantee
    of the mechanism the curve describes. Checked exactly for pure curves and with Opacus'
    PRV accountant (the tightest available, allowing its numerical error) for Gaussian and
    DP-SGD curves; zCDP and RDP curves are not checked because their (epsilon, delta) depends
    on the conversion the caller used.
    """
    kind = curve["type"]
    if kind == "pure":
        implied = curve["epsilon"]
    elif kind in _GAUSSIAN_TYPES:
        if delta <= 0:
            raise InputError(
                "a Gaussian or DP-SGD spend needs delta > 0",
                hint="pass the delta its epsilon was computed at",
            )
        # The PRV upper bound minus twice its error width is below the true epsilon.
        implied = _prv_epsilon([_Entry(epsilon, delta, curve)], delta) - 2 * _PRV_EPS_ERROR
    else:
        return
    if implied > epsilon * (1 + 1e-9) + 1e-12:
        raise InputError(
            f"the spend declares epsilon={epsilon:g} at delta={delta:g}, but its privacy curve "
            f"implies at least epsilon={implied:.4g}",
            hint="declare the epsilon your accountant reports for this mechanism",
        )
