"""Federated runs from ``veil ui``: ``veil fl simulate`` on a table of the working folder.

The form's fields become a :class:`veil.federated.FLConfig`, checked by its own
:meth:`~veil.federated.FLConfig.validate` (the CLI's checks and messages), and the run is
:func:`veil.federated.simulate_federated` in a thread, as the command runs it: Flower's
simulation engine, SecAgg+ when asked, client-level DP paid from the app's ledger (the
Budget view's) before the first round. The page shows the rounds done so far, a cancel
button, and at the end the accuracy against centralized training on the same rows, the
rounds table and the epsilon spent with its ledger entry.

Cancel takes effect at the end of the round in progress: the run stops there, and with DP
the rounds already aggregated are what was released, so exactly their epsilon is recorded
(the path of a SecAgg+ round that loses too many clients). Nothing is written into the
working folder. Logs carry counts and error types only.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.federated._secagg import RoundAbortedError
from veil.ui._fl_views import FL_DP_MODES

__all__ = ["FLCancelled", "FLJob", "FLJobs", "fl_config", "read_fl_table"]

log = logging.getLogger("veil.ui")


class FLCancelled(RoundAbortedError):
    """The user cancelled the federated run in the app (after the round in progress)."""


def _int(raw: str, flag: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise InputError(f"{flag} must be a whole number", hint=f"e.g. {flag} 5") from None


def _float(raw: str, flag: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise InputError(f"{flag} must be a number", hint=f"e.g. {flag} 3") from None


def fl_config(form: Mapping[str, str]) -> Any:
    """The :class:`veil.federated.FLConfig` the form describes, validated as ``veil fl
    simulate`` validates its options (the messages name the CLI's flags)."""
    from veil.federated import FLConfig

    dp = form.get("dp") or None
    if dp is not None and dp not in FL_DP_MODES:
        raise InputError(
            "unknown differential privacy mode",
            hint="choose none, client (clipping + noise per client update) or sample "
            "(DP-SGD inside each client)",
        )
    model = form.get("model") or "logistic"

    def given(name: str) -> str:
        return (form.get(name) or "").strip()

    # the advanced fields: blank keeps the CLI's default
    advanced: dict[str, Any] = {}
    if given("local_epochs"):
        advanced["local_epochs"] = _int(given("local_epochs"), "--local-epochs")
    if given("seed"):
        advanced["seed"] = _int(given("seed"), "--seed")
    for name in ("fraction_fit", "dropout", "clip_norm"):
        if given(name):
            advanced[name] = _float(given(name), "--" + name.replace("_", "-"))
    config = FLConfig(
        clients=_int(form.get("clients") or "", "--clients"),
        rounds=_int(form.get("rounds") or "", "--rounds"),
        model=model,
        partition=(form.get("partition") or "iid").strip(),
        strategy=form.get("strategy") or "fedavg",
        dp=dp,
        epsilon=_float(form["epsilon"], "--epsilon") if form.get("epsilon") else None,
        delta=_float(form.get("delta") or "1e-5", "--delta"),
        secagg=bool(form.get("secagg")),
        workers=_int(form["workers"], "--workers") if form.get("workers") else None,
        adaptive_clip=bool(form.get("adaptive_clip")),
        **advanced,
    )
    config.validate()
    if dp is not None and not (form.get("dataset") or "").strip():
        raise InputError(
            "say which dataset's privacy budget pays for this run",
            hint="name a ledger dataset (create it on the Budget page: veil budget init NAME "
            "--epsilon E --delta D)",
        )
    return config


@dataclass
class FLJob:
    """One federated run: ``running``, ``done``, ``failed`` or ``cancelled``."""

    id: str
    table: str
    target: str
    settings: dict[str, Any]
    rounds_total: int
    state: str = "running"
    rounds_done: int = 0
    summary: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    note: str | None = None  # what a cancel released, said on the page
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)

    def as_dict(self) -> dict[str, Any]:
        s = self.summary or {}
        return {
            "id": self.id,
            "table": self.table,
            "target": self.target,
            "settings": dict(self.settings),
            "state": self.state,
            "rounds_done": self.rounds_done,
            "rounds_total": self.rounds_total,
            "error": self.error,
            "note": self.note,
            "seconds": self.seconds,
            "elapsed": round(time.monotonic() - self.started, 1),
            "accuracy": s.get("accuracy"),
            "centralized_accuracy": (s.get("centralized") or {}).get("accuracy"),
            "majority_class_accuracy": s.get("majority_class_accuracy"),
            "rounds": list(s.get("rounds") or []),
            "epsilon_spent": s.get("epsilon_spent"),
            "delta": s.get("delta"),
            "ledger": s.get("ledger"),
            "secagg": s.get("secagg"),
        }


class _Rounds:
    def __init__(self, job: FLJob) -> None:
        self.job = job

    def advance(self, n: float = 1) -> None:
        self.job.rounds_done += int(n)
        if self.job.cancel.is_set() and self.job.rounds_done < self.job.rounds_total:
            raise FLCancelled(
                f"the run was cancelled after round {self.job.rounds_done}",
                round_number=self.job.rounds_done + 1,
            )


class _Progress:
    """Counts the rounds; stops the run at the end of a round once cancel is asked."""

    def __init__(self, job: FLJob) -> None:
        self.job = job

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[_Rounds]:
        yield _Rounds(self.job)


def read_fl_table(workdir: Path, relative: str) -> Any:
    """A table of the working folder, read as the Data view reads it."""
    from veil.io import infer_format, read_table
    from veil.io._sniff import sniff_separator
    from veil.ui._app import TABLE_SUFFIXES
    from veil.ui._security import safe_path

    path = safe_path(workdir, relative)
    if not path.name.lower().endswith(TABLE_SUFFIXES):
        raise InputError(
            "this file is not a table veil reads",
            hint="pick a .csv, .tsv, .parquet or .jsonl file",
        )
    sep = sniff_separator(path) if infer_format(path) == "csv" else None
    return read_table(path, separator=sep)


class FLJobs:
    """The federated runs of one app, one at a time (each starts its own Ray runtime)."""

    def __init__(self, workdir: Path, ledger_url: str | None) -> None:
        self.workdir = workdir.resolve()
        self.ledger_url = ledger_url
        self.jobs: dict[str, FLJob] = {}
        self.lock = threading.Lock()

    def get(self, job_id: str) -> FLJob | None:
        return self.jobs.get(job_id)

    def start(self, form: Mapping[str, str]) -> FLJob:
        """Check the form (as ``veil fl simulate`` checks its options), read the table and
        start the run in a thread; :class:`InputError` (nothing starts, nothing spent)."""
        config = fl_config(form)
        relative = form.get("table") or ""
        target = (form.get("target") or "").strip()
        if not target:
            raise InputError("name the column to predict", hint="e.g. salary-class")
        frame = read_fl_table(self.workdir, relative)
        if target not in frame.columns:
            raise InputError(
                "the target is not a column of the table",
                hint="pick one of the columns the Data view lists",
            )
        dataset = (form.get("dataset") or "").strip() or None
        if config.dp is not None:
            from veil.ui._workflow import _sqlite_file_missing

            if _sqlite_file_missing(self.ledger_url):
                raise InputError(
                    "the ledger has no datasets yet",
                    hint="create a budget for the dataset first (Budget page)",
                )
        settings = {
            "clients": config.clients,
            "rounds": config.rounds,
            "partition": config.partition,
            "strategy": config.strategy,
            "model": config.model,
            "dp": config.dp,
            "epsilon": config.epsilon,
            "delta": config.delta if config.dp else None,
            "dataset": dataset if config.dp else None,
            "secagg": config.secagg,
            "workers": config.workers,
            "local_epochs": config.local_epochs,
            "fraction_fit": config.fraction_fit,
            "dropout": config.dropout,
            "clip_norm": config.clip_norm if config.dp else None,
            "adaptive_clip": config.adaptive_clip,
        }
        with self.lock:
            if any(j.state == "running" for j in self.jobs.values()):
                raise InputError(
                    "another federated run is still going",
                    hint="wait for it to finish, or cancel it",
                )
            job = FLJob(
                id=secrets.token_urlsafe(12),
                table=relative,
                target=target,
                settings=settings,
                rounds_total=config.rounds,
            )
            self.jobs[job.id] = job
        threading.Thread(
            target=self._run,
            args=(job, frame, target, config, dataset),
            name="veil-ui-fl",
            daemon=True,
        ).start()
        return job

    def _run(self, job: FLJob, frame: Any, target: str, config: Any, dataset: str | None) -> None:
        from veil.federated import simulate_federated
        from veil.ui._jobs import finish

        def work() -> None:
            ledger = fingerprint = None
            if config.dp is not None:
                from veil.dp import BudgetLedger, fingerprint_frame

                ledger = BudgetLedger(self.ledger_url)
                fingerprint = fingerprint_frame(frame)
            try:
                job.summary = simulate_federated(
                    frame,
                    target,
                    config,
                    ledger=ledger,
                    dataset_name=dataset,
                    fingerprint=fingerprint,
                    progress=_Progress(job),
                )
            finally:
                if ledger is not None:
                    ledger.close()

        finish(
            job,
            work,
            cancelled=FLCancelled,
            what="federated run",
            hint="run it with `veil fl simulate` to see the full error",
        )
        if job.state == "cancelled" and config.dp is not None:
            # simulate_federated recorded the spend of the rounds released before the cancel
            job.note = (
                f"the epsilon of the {job.rounds_done} round(s) released is recorded in the "
                "ledger, no more"
            )
