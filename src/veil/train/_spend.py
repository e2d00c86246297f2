"""Paying for a DP-SGD run from the privacy-budget ledger, honestly.

The rule: the budget of the whole planned schedule is reserved in the ledger *before* the
first noisy step, and committed once the trained model is about to leave the process.

- The reservation is the target epsilon (the noise is calibrated so that the whole schedule
  spends at most that) and the target delta, with the schedule's curve (Opacus accountant
  history) so a ledger using ``rdp``/``prv`` composition can compose it tightly.
- If training fails before anything noisy left the process, the reservation is removed:
  no spend is recorded for work that did not happen.
- Once a checkpoint has been written, a noisy model exists on disk: a failure after that
  point commits the reservation anyway (and then re-raises), because that checkpoint could
  be released. A process killed outright leaves its reservation counted (ledger semantics).
- The committed amount is the reserved one. When training ends early (interrupted after a
  checkpoint), the accountant's actual epsilon is smaller; it is reported as
  ``epsilon_spent`` beside ``epsilon_charged``; the ledger keeps the conservative figure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["LedgerCharge"]


@dataclass
class LedgerCharge:
    """What the ledger recorded for a run (``None`` fields when no ledger was used)."""

    dataset: str
    spend_id: str | None
    epsilon: float
    delta: float
    status: str = "reserved"
    resumed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "spend_id": self.spend_id,
            "epsilon_charged": self.epsilon,
            "delta_charged": self.delta,
            "status": self.status,
            "resumed": self.resumed,
        }


class _Escaped:
    """Set by the training loop once noisy state has left the process (a checkpoint)."""

    def __init__(self) -> None:
        self.value = False


@contextmanager
def charge_run(
    ledger: Any,
    dataset: str | None,
    *,
    epsilon: float,
    delta: float,
    what: str,
    curve: dict[str, Any] | None,
    fingerprint: str | None = None,
    already_charged: dict[str, Any] | None = None,
) -> Iterator[tuple[LedgerCharge | None, _Escaped]]:
    """Reserve the run's budget, yield, then commit (or drop it when nothing escaped).

    ``already_charged`` is the ledger record of a checkpoint being resumed: that run's
    reservation covered the whole schedule, so nothing new is charged.
    """
    escaped = _Escaped()
    if already_charged is not None:
        rec = LedgerCharge(
            dataset=str(already_charged["dataset"]),
            spend_id=already_charged.get("spend_id"),
            epsilon=float(already_charged["epsilon_charged"]),
            delta=float(already_charged["delta_charged"]),
            status="charged-by-original-run",
            resumed=True,
        )
        yield rec, escaped
        return
    if ledger is None:
        yield None, escaped
        return
    if dataset is None:
        from veil._errors import InputError

        raise InputError(
            "a ledger was given but no dataset name to spend from",
            hint="pass the dataset name the budget was created for (veil budget init NAME)",
        )
    failure: BaseException | None = None
    with ledger.charge(
        dataset,
        epsilon=epsilon,
        delta=delta,
        what=what,
        mechanism="dpsgd",
        curve=curve,
        fingerprint=fingerprint,
    ) as spend:
        rec = LedgerCharge(dataset=dataset, spend_id=spend.id, epsilon=epsilon, delta=delta)
        try:
            yield rec, escaped
        except BaseException as exc:
            if not escaped.value:
                raise  # nothing noisy left the process: the ledger drops the reservation
            failure = exc  # a checkpoint exists: commit the spend, then re-raise
    rec.status = "committed"
    if failure is not None:
        raise failure
