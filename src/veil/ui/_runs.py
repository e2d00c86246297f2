"""Runs started from ``veil ui``: a policy run in a thread, its progress, cancel, result.

A run is what ``veil run POLICY`` does (:func:`veil.policy.load_policy`, then
:func:`veil.pipeline.run_policy`), with a progress object that records each step and raises
:class:`RunCancelled` at the next step once cancel is asked. The pipeline writes the release
as a set at its very end (:func:`veil.io.atomic_dir`), so a failed or cancelled run writes
nothing. Only one run goes at a time; the policy, its data and its output folder must lie in
the working folder.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil._errors import InputError, VeilError

__all__ = ["Job", "RunCancelled", "Runs"]

log = logging.getLogger("veil.ui")

# the files a finished run links, by the pipeline's output names
OUTPUT_NAMES = ("report_html", "report_json", "table")


class RunCancelled(VeilError):
    """The user cancelled the run in the app."""


@dataclass
class Job:
    """One run: its state (``running``, ``done``, ``failed``, ``cancelled``) and result."""

    id: str
    policy: str
    state: str = "running"
    steps: list[str] = field(default_factory=list)
    done_steps: int = 0
    error: dict[str, Any] | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    outputs: dict[str, Path] = field(default_factory=dict)
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "policy": self.policy,
            "state": self.state,
            "steps": list(self.steps),
            "done_steps": self.done_steps,
            "error": self.error,
            "summary": self.summary,
            "warnings": list(self.warnings),
            "outputs": sorted(n for n in self.outputs if n in OUTPUT_NAMES),
            "seconds": self.seconds,
            "elapsed": round(time.monotonic() - self.started, 1),
        }


class _Task:
    def __init__(self, job: Job) -> None:
        self.job = job

    def advance(self, n: float = 1) -> None:
        if self.job.cancel.is_set():
            raise RunCancelled("the run was cancelled")


class _JobProgress:
    """Records each step's name; raises :class:`RunCancelled` once cancel is asked."""

    def __init__(self, job: Job) -> None:
        self.job = job

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[_Task]:
        if self.job.cancel.is_set():
            raise RunCancelled("the run was cancelled")
        self.job.steps.append(description)
        yield _Task(self.job)
        self.job.done_steps += 1


class Runs:
    """The runs of one app: start, look up, cancel."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir.resolve()
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def start(self, relative: str) -> Job:
        """Check the policy (the same load as ``veil run``) and start it in a thread.

        Raises
        ------
        InputError, PolicyError
            Another run is going, or the policy is missing, invalid or reads or writes
            outside the working folder: nothing starts.
        """
        from veil.policy import load_policy
        from veil.ui._policy_edit import check_policy_text, policy_target
        from veil.ui._security import safe_path

        path = safe_path(self.workdir, relative)
        policy_target(self.workdir, relative)  # a .yaml file
        with self.lock:
            if any(j.state == "running" for j in self.jobs.values()):
                raise InputError(
                    "another run is still going", hint="wait for it to finish, or cancel it"
                )
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"the policy is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
                ) from None
            checked = check_policy_text(self.workdir, relative, text)
            if not checked["valid"]:
                err = checked["error"]
                raise InputError(err["message"], hint=err["hint"])
            policy = load_policy(path)
            job = Job(id=secrets.token_urlsafe(12), policy=relative)
            self.jobs[job.id] = job
        threading.Thread(
            target=self._run, args=(job, policy), name="veil-ui-run", daemon=True
        ).start()
        return job

    def _run(self, job: Job, policy: Any) -> None:
        from veil.pipeline import run_policy
        from veil.ui._jobs import finish

        def work() -> None:
            result = run_policy(policy, progress=_JobProgress(job))
            job.summary = {
                k: v for k, v in (result.report.get("summary") or {}).items() if v is not None
            }
            job.warnings = [
                str(w.get("message", w.get("code"))) for w in result.report.get("warnings") or []
            ]
            job.outputs = dict(result.outputs)

        finish(
            job,
            work,
            cancelled=RunCancelled,
            what="run",
            hint="run the policy with `veil run` to see the full error",
        )

    def output(self, job_id: str, name: str) -> Path:
        """The file ``name`` (``report_html``, ``report_json``, ``table``) of a finished
        run; :class:`InputError` otherwise."""
        job = self.jobs.get(job_id)
        if job is None or job.state != "done" or name not in OUTPUT_NAMES:
            raise InputError("no such output", hint="open the run's page for its files")
        path = job.outputs.get(name)
        if path is None or not path.resolve().is_relative_to(self.workdir) or not path.is_file():
            raise InputError("this run did not write that file", hint="see the run's page")
        return path.resolve()
