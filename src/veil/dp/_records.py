"""The ledger's records: a spend, a spend to make, a dataset's status, input checks, and the
error of a refused spend."""

from __future__ import annotations

import datetime as dt
import getpass
import math
import os
import socket
from dataclasses import dataclass, field
from typing import Any

from veil._errors import InputError, PrivacyBudgetExceeded
from veil.dp._composition import Composed

__all__ = [
    "BudgetStatus",
    "Spend",
    "SpendRequest",
    "check_eps_delta",
    "check_name",
    "default_who",
    "utcnow",
]


@dataclass(frozen=True)
class Spend:
    """One entry of a dataset's history (or, with ``dry_run``, one that would be made)."""

    id: str | None
    dataset: str
    epsilon: float
    delta: float
    mechanism: str
    what: str
    who: str
    curve: dict[str, Any] | None = None
    status: str = "committed"  # committed | reserved | dry-run
    seq: int | None = None
    created_at: dt.datetime | None = None
    committed_at: dt.datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "dataset": self.dataset,
            "who": self.who,
            "what": self.what,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "curve": self.curve,
            "status": self.status,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "committed_at": self.committed_at.isoformat() if self.committed_at else None,
        }


@dataclass(frozen=True)
class SpendRequest:
    """One spend to make, for :meth:`BudgetLedger.charge_many`."""

    epsilon: float
    delta: float
    what: str
    mechanism: str
    who: str | None = None
    curve: dict[str, Any] | str | None = None


@dataclass(frozen=True)
class BudgetStatus:
    """A dataset's budget, what has been spent under each composition, and what is left."""

    dataset: str
    fingerprint: str | None
    composition: str
    epsilon_total: float
    delta_total: float
    spent: dict[str, Composed] = field(default_factory=dict)  # composition -> composed total
    n_spends: int = 0
    n_reserved: int = 0

    @property
    def enforced(self) -> Composed:
        return self.spent[self.composition]

    @property
    def remaining(self) -> tuple[float, float]:
        """(epsilon, delta) left under the enforced composition (never negative)."""
        c = self.enforced
        used = c.delta if c.delta_used is None else c.delta_used
        return (max(0.0, self.epsilon_total - c.epsilon), max(0.0, self.delta_total - used))

    def as_dict(self) -> dict[str, Any]:
        eps_left, delta_left = self.remaining
        return {
            "dataset": self.dataset,
            "fingerprint": self.fingerprint,
            "composition": self.composition,
            "total": {"epsilon": self.epsilon_total, "delta": self.delta_total},
            "spent": {k: v.as_dict() for k, v in self.spent.items()},
            "remaining": {"epsilon": eps_left, "delta": delta_left},
            "n_spends": self.n_spends,
            "n_reserved": self.n_reserved,
        }


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def default_who() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in some containers
        user = f"uid{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return f"{user}@{socket.gethostname()}"


def check_eps_delta(epsilon: float, delta: float, *, total: bool) -> tuple[float, float]:
    for name, v in (("epsilon", epsilon), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise InputError(f"{name} must be a finite number, got {type(v).__name__}")
    epsilon, delta = float(epsilon), float(delta)
    if epsilon < 0 or (total and epsilon == 0):
        raise InputError(f"epsilon must be {'>' if total else '>='} 0", hint="e.g. --epsilon 1.0")
    if not 0 <= delta < 1:
        raise InputError("delta must be in [0, 1)", hint="e.g. --delta 1e-6")
    if not total and epsilon == 0 and delta == 0:
        raise InputError("a spend needs epsilon > 0 or delta > 0")
    return epsilon, delta


def check_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 255:
        raise InputError("a dataset name must be a non-empty string of at most 255 characters")
    return name


def budget_refusal(
    dataset: str,
    composition: str,
    *,
    asked: tuple[float, float],
    remaining: tuple[float, float],
    total: tuple[float, float],
    ran_out: tuple[bool, bool],
) -> PrivacyBudgetExceeded:
    """The error of a refused spend: which limit ran out (epsilon, delta or both), with the
    amounts requested and left of each. ``exc.ran_out`` holds the names of the limits."""
    names = [n for n, out in zip(("epsilon", "delta"), ran_out, strict=True) if out]
    which = " and ".join(names) if names else "epsilon"
    parts = []
    for i, (name, fmt) in enumerate((("epsilon", ".6g"), ("delta", ".3g"))):
        state = "RAN OUT" if ran_out[i] else "enough left"
        parts.append(
            f"{name}: requested {asked[i]:{fmt}}, remaining {remaining[i]:{fmt}} of "
            f"{total[i]:g} ({state})"
        )
    exc = PrivacyBudgetExceeded(
        f"refused: the {which} budget of {dataset!r} would be exceeded; "
        f"{'; '.join(parts)}; under {composition} composition; "
        "nothing was computed or recorded",
        hint=(f"ask for less {which}, or release from a new dataset with its own budget"),
    )
    exc.ran_out = tuple(names)  # type: ignore[attr-defined]
    return exc
