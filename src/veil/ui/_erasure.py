"""Erasure requests from ``veil ui``: the SISA models of the working folder, forget, verify.

A model is a folder ``veil unlearn fit`` wrote (its ``manifest.json`` of format
:data:`veil.unlearning.MODEL_FORMAT`). The page opens it as ``veil unlearn`` does
(:meth:`veil.unlearning.SISAModel.open`: the keyed manifest, the stored rows' checksums and
the erasure log checked), with the erasure key from the app's ``$VEIL_UNLEARN_KEY`` or a key
file inside the working folder: the key never travels in a form. *Forget* is
:meth:`~veil.unlearning.SISAModel.forget` (``veil unlearn forget``: an unknown id fails the
whole request, nothing retrained or logged; an id forgotten before is a recorded no-op) and
*Verify* is :meth:`~veil.unlearning.SISAModel.verify` (``veil unlearn verify``: the touched
shards retrained from scratch, compared bit for bit), each in a thread with its progress.
The erasure log is shown as ``veil unlearn log`` prints it: counts, never an id. Logs carry
counts and error types only.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil._errors import InputError

__all__ = ["KEY_ENV", "ErasureJob", "ErasureJobs", "erasure_routes", "list_models", "parse_ids"]

log = logging.getLogger("veil.ui")

KEY_ENV = "VEIL_UNLEARN_KEY"  # what `veil unlearn` reads by default
MAX_IDS = 10_000  # ids in one request from the form
_MAX_DEPTH = 4


def list_models(workdir: Path) -> list[str]:
    """Folders under ``workdir`` (relative POSIX paths) holding a SISA model's manifest;
    hidden folders and links out of it left out. The manifest is only peeked at here (its
    format); opening a model checks it with the key."""
    from veil.unlearning import MODEL_FORMAT

    root = workdir.resolve()
    found: list[str] = []

    def walk(folder: Path, depth: int) -> None:
        manifest = folder / "manifest.json"
        if manifest.is_file() and manifest.stat().st_size < 4_000_000:
            try:
                if json.loads(manifest.read_text(encoding="utf-8")).get("format") == MODEL_FORMAT:
                    found.append(folder.relative_to(root).as_posix() or ".")
                    return
            except (OSError, UnicodeDecodeError, ValueError, AttributeError):
                pass
        if depth >= _MAX_DEPTH:
            return
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for p in entries:
            if p.name.startswith(".") or p.is_symlink() or not p.is_dir():
                continue
            if p.resolve().is_relative_to(root):
                walk(p, depth + 1)

    walk(root, 0)
    return found


def parse_ids(raw: str) -> list[str]:
    """The ids of the form's text area, one per line (blank lines skipped), as ``veil
    unlearn forget --ids FILE`` reads them."""
    ids = [line.strip() for line in raw.replace("\r\n", "\n").split("\n") if line.strip()]
    if not ids:
        raise InputError("say which rows to forget", hint="one id per line")
    if len(ids) > MAX_IDS:
        raise InputError(
            f"a request from the app holds at most {MAX_IDS:,} ids",
            hint="use `veil unlearn forget --ids FILE` for more",
        )
    return ids


def _key(workdir: Path, key_file: str | None) -> Any:
    """The erasure key: a file inside the working folder, else ``$VEIL_UNLEARN_KEY``."""
    from veil.tabular._keys import resolve_key
    from veil.ui._security import safe_path

    path = safe_path(workdir, key_file) if key_file else None
    return resolve_key(
        key_env=KEY_ENV,
        key_file=path,
        column="(erasure ids)",
        transform="unlearn",
        purpose="hmac",
    )


def _model_path(workdir: Path, relative: str) -> Path:
    """The model folder ``relative``: one :func:`list_models` finds (so inside the working
    folder, no link out of it); :class:`InputError` otherwise."""
    root = workdir.resolve()
    resolved = (root / relative).resolve() if relative and "\x00" not in relative else None
    if resolved is None or Path(relative).is_absolute() or not resolved.is_relative_to(root):
        raise InputError(
            "the path leaves the working folder",
            hint="pick a model the Erasure page lists",
        )
    if relative not in list_models(workdir):
        raise InputError(
            "this folder holds no veil unlearning model",
            hint="pick a model the Erasure page lists (written by `veil unlearn fit`)",
        )
    return resolved


def describe_model(workdir: Path, relative: str, key_file: str | None) -> dict[str, Any]:
    """The model's settings, version, held-out accuracy at fit and erasure log (``veil
    unlearn log``'s requests: counts, no id).

    What the page shows needs neither the stored rows nor the trainer: the keyed manifest
    (its MAC checks the key) and the erasure log, checked to record the model at this
    version as :meth:`SISAModel.open` checks it. Forget and verify open the whole model."""
    from veil.unlearning import ModelStore
    from veil.unlearning._sisa import checked_log

    path = _model_path(workdir, relative)
    store = ModelStore(path, _key(workdir, key_file))
    manifest = store.read_manifest()
    elog = checked_log(store, manifest, None)
    try:
        requests = elog.requests(str(manifest["model_id"]))
    finally:
        elog.close()
    cfg, metrics = manifest["config"], manifest.get("metrics") or {}
    return {
        "path": relative,
        "model_id": manifest["model_id"],
        "version": int(manifest["version"]),
        "shards": cfg["shards"],
        "slices": cfg["slices"],
        "aggregation": cfg["aggregation"],
        "target": cfg.get("target"),
        "accuracy_at_fit": metrics.get("accuracy"),
        "rows_at_fit": metrics.get("n_train"),
        "dp": bool(cfg.get("dp")),
        "requests": requests,
    }


@dataclass
class ErasureJob:
    """One forget or verify request: ``running``, ``done`` or ``failed``."""

    id: str
    model: str
    kind: str  # "forget" or "verify"
    key_file: str | None = None  # where the key was read (a path, never the key)
    state: str = "running"
    step: str | None = None
    done: float = 0
    total: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "model": self.model,
            "kind": self.kind,
            "state": self.state,
            "step": self.step,
            "progress": None if not self.total else min(self.done / self.total, 1.0),
            "result": self.result,
            "error": self.error,
            "seconds": self.seconds,
            "elapsed": round(time.monotonic() - self.started, 1),
        }


class _Task:
    def __init__(self, job: ErasureJob) -> None:
        self.job = job

    def advance(self, n: float = 1) -> None:
        self.job.done += n


class _Progress:
    def __init__(self, job: ErasureJob) -> None:
        self.job = job

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[_Task]:
        self.job.step, self.job.done, self.job.total = description, 0, total
        yield _Task(self.job)


class ErasureJobs:
    """The erasure requests of one app, one at a time (SISA locks the folder anyway)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir.resolve()
        self.jobs: dict[str, ErasureJob] = {}
        self.lock = threading.Lock()

    def get(self, job_id: str) -> ErasureJob | None:
        return self.jobs.get(job_id)

    def start(
        self,
        relative: str,
        kind: str,
        key_file: str | None,
        ids: list[str] | None = None,
        reason: str | None = None,
    ) -> ErasureJob:
        """Check the model, the key and the request, then run it in a thread;
        :class:`InputError` (or the key's error) when one is wrong: nothing starts."""
        if kind not in ("forget", "verify"):
            raise InputError("unknown request", hint="forget or verify")
        path = _model_path(self.workdir, relative)
        key = _key(self.workdir, key_file)
        with self.lock:
            if any(j.state == "running" for j in self.jobs.values()):
                raise InputError(
                    "another erasure request is still going", hint="wait for it to finish"
                )
            job = ErasureJob(
                id=secrets.token_urlsafe(12), model=relative, kind=kind, key_file=key_file
            )
            self.jobs[job.id] = job
        threading.Thread(
            target=self._run,
            args=(job, path, key, ids, reason),
            name="veil-ui-erasure",
            daemon=True,
        ).start()
        return job

    def _run(
        self, job: ErasureJob, path: Path, key: Any, ids: list[str] | None, reason: str | None
    ) -> None:
        from veil.report._unlearning import budget_kept, write_model_report
        from veil.ui._jobs import finish
        from veil.unlearning import SISAModel

        def work() -> None:
            with SISAModel.open(path, key=key) as model:
                # the model folder's report.json/html, as `veil unlearn forget|verify` writes it
                if job.kind == "forget":
                    assert ids is not None
                    result = model.forget(ids, reason=reason, progress=_Progress(job))
                    result["privacy_budget"] = budget_kept(model)
                    result["report"] = write_model_report(
                        model, None, {"operation": {"forget": result}}
                    )
                    job.result = result
                    log.info(
                        "erasure: %d forgotten, %d already",
                        result["forgotten"],
                        result["already_forgotten"],
                    )
                else:
                    result = model.verify(progress=_Progress(job))
                    result["report"] = write_model_report(model, None, {"verify": result})
                    job.result = result
                    log.info("erasure verified: exact=%s", result["exact"])

        finish(
            job,
            work,
            what=f"erasure {job.kind}",
            hint=f"run `veil unlearn {job.kind}` on the model to see the full error",
        )


def erasure_routes(workdir: Path, page: Any) -> list[Any]:
    """``GET /erasure[?model=M&key_file=K]``, ``POST /erasure/forget``,
    ``POST /erasure/verify``, ``GET /erasure/job/{job}``, ``GET /api/erasure/{job}``."""
    from urllib.parse import parse_qs, urlencode

    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse
    from starlette.routing import Route

    from veil._errors import VeilError

    jobs = ErasureJobs(workdir)

    def problem_of(exc: VeilError) -> dict[str, Any]:
        return {"message": exc.message, "hint": exc.hint}

    async def render(
        request: Any,
        selected: str | None,
        key_file: str | None,
        problem: dict[str, Any] | None = None,
        status: int = 200,
        ids: str = "",
        reason: str = "",
    ) -> Any:
        models = await run_in_threadpool(list_models, workdir)
        model = None
        if selected and problem is None:
            try:
                model = await run_in_threadpool(describe_model, workdir, selected, key_file)
            except VeilError as exc:
                problem, status = problem_of(exc), 400
                log.info("erasure model refused: %s", type(exc).__name__)
        return page(
            request,
            "erasure.html",
            {
                "models": models,
                "selected": selected,
                "key_file": key_file or "",
                "key_env": KEY_ENV,
                "model": model,
                "problem": problem,
                "job": None,
                "ids": ids,
                "reason": reason,
            },
            status,
        )

    async def erasure_page(request: Any) -> Any:
        q = request.query_params
        return await render(request, q.get("model"), q.get("key_file"))

    async def _form(request: Any) -> dict[str, str]:
        raw = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
        return {k: v[0] for k, v in raw.items() if v}

    async def submit(request: Any, kind: str) -> Any:
        form = await _form(request)
        relative = form.get("model", "")
        key_file = form.get("key_file") or None
        try:
            ids = parse_ids(form.get("ids", "")) if kind == "forget" else None
            reason = (form.get("reason") or "").strip() or None
            job = jobs.start(relative, kind, key_file, ids, reason)
        except VeilError as exc:
            log.info("erasure %s refused: %s", kind, type(exc).__name__)
            return await render(
                request,
                relative,
                key_file,
                problem_of(exc),
                400,
                form.get("ids", ""),
                form.get("reason", ""),
            )
        return RedirectResponse(f"/erasure/job/{job.id}", status_code=303)

    async def forget(request: Any) -> Any:
        return await submit(request, "forget")

    async def verify(request: Any) -> Any:
        return await submit(request, "verify")

    async def job_page(request: Any) -> Any:
        job = jobs.get(request.path_params["job"])
        if job is None:
            problem = {"message": "no such erasure request", "hint": "submit one on this page"}
            return await render(request, None, None, problem, 404)
        back = "/erasure?" + urlencode({"model": job.model, "key_file": job.key_file or ""})
        return page(
            request, "erasure.html", {"job": job.as_dict(), "problem": job.error, "back": back}
        )

    async def api_job(request: Any) -> Any:
        job = jobs.get(request.path_params["job"])
        if job is None:
            return JSONResponse({"error": {"message": "no such erasure request"}}, 404)
        return JSONResponse(job.as_dict())

    return [
        Route("/erasure", erasure_page),
        Route("/erasure/forget", forget, methods=["POST"]),
        Route("/erasure/verify", verify, methods=["POST"]),
        Route("/erasure/job/{job}", job_page),
        Route("/api/erasure/{job}", api_job),
    ]
