"""The Redact view of ``veil ui``: pick or upload a text or JSONL file, preview, redact,
download. An upload is kept privately outside the working folder until its redaction
ends (:mod:`veil.ui._upload`).

Routes added by :func:`veil.ui._app.create_app`; every state-changing one is a POST (the
guard checks its CSRF token and Origin). A redaction's page reloads itself once a second
while it runs (no script).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from veil._errors import InputError, VeilError
from veil.ui._redact import (
    DEFAULT_OPERATOR,
    PREVIEW_RECORDS,
    REDACT_SUFFIXES,
    UI_OPERATORS,
    RedactJobs,
    parse_choices,
    preview_file,
)
from veil.ui._upload import UPLOAD_MAX_BYTES, Upload, Uploads

__all__ = ["redact_routes"]

log = logging.getLogger("veil.ui")


def _problem(exc: VeilError) -> dict[str, Any]:
    return {"message": exc.message, "hint": exc.hint}


def _choices_of(form: dict[str, list[str]]) -> dict[str, str]:
    return parse_choices(
        {k[3:]: v[0] for k, v in form.items() if k.startswith("op.") and v and v[0]}
    )


def redact_routes(
    workdir: Path,
    page: Callable[..., Any],
    list_files: Callable[[tuple[str, ...]], list[str]],
    get_analyzer: Callable[[], Any],
) -> list[Any]:
    """The Redact view's routes over ``workdir``."""
    from starlette.responses import FileResponse, JSONResponse, RedirectResponse
    from starlette.routing import Route

    jobs = RedactJobs(workdir)
    uploads = Uploads()

    def render(
        request: Any, context: dict[str, Any], status: int = 200, problem: Any = None
    ) -> Any:
        base = {
            "files": list_files(REDACT_SUFFIXES),
            "operators": UI_OPERATORS,
            "preview": None,
            "choices": {"*": DEFAULT_OPERATOR},
            "selected": None,
            "field": "",
            "out": "",
            "n_preview": PREVIEW_RECORDS,
            "upload": None,
            "upload_max_mb": UPLOAD_MAX_BYTES // 1_000_000,
            "problem": problem,
        }
        return page(request, "redact.html", {**base, **context}, status)

    def previewed(
        request: Any,
        path: str,
        field: str,
        out: str,
        choices: dict[str, str],
        upload: Upload | None = None,
    ) -> Any:
        context: dict[str, Any] = {
            "selected": path,
            "field": field,
            "out": out,
            "choices": choices,
            "upload": upload,
        }
        try:
            if upload is None:
                preview = preview_file(workdir, path, get_analyzer(), choices, field or None)
            else:
                preview = preview_file(
                    workdir,
                    upload.name,
                    get_analyzer(),
                    choices,
                    field or None,
                    source=upload.path,
                    default_out=upload.default_out,
                )
        except VeilError as exc:
            return render(request, context, 400, _problem(exc))
        log.info("redact preview: %d findings", sum(preview["counts"].values()))
        context["preview"] = preview
        context["out"] = out or preview["default_out"]
        return render(request, context)

    async def redact_page(request: Any) -> Any:
        q = request.query_params
        if not q.get("path"):
            return render(request, {})
        return previewed(request, q["path"], q.get("field", ""), "", {"*": DEFAULT_OPERATOR})

    async def redact_post(request: Any) -> Any:
        form = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)

        def one(name: str) -> str:
            return (form.get(name) or [""])[0].strip()

        path, field, out = one("path"), one("field"), one("out")
        context: dict[str, Any] = {"selected": path, "field": field, "out": out}
        try:
            choices = _choices_of(form)
            upload = uploads.get(one("upload")) if one("upload") else None
        except VeilError as exc:
            return render(request, context, 400, _problem(exc))
        if one("action") != "redact":
            return previewed(request, path, field, out, choices, upload)
        try:
            if upload is None:
                job = jobs.start(path, out or None, get_analyzer(), choices, field or None)
            else:
                job = start_upload(upload, out, choices, field)
        except VeilError as exc:
            return render(request, {**context, "choices": choices}, 400, _problem(exc))
        return RedirectResponse(f"/redact/job/{job.id}", status_code=303)

    def start_upload(upload: Upload, out: str, choices: dict[str, str], field: str) -> Any:
        if upload.busy:
            raise InputError(
                "this upload is already being redacted", hint="wait for it, or cancel it"
            )
        upload.busy = True
        try:
            return jobs.start(
                f"{upload.name} (uploaded)",
                out or upload.default_out,
                get_analyzer(),
                choices,
                field or None,
                source=upload.path,
                on_end=lambda: uploads.discard(upload.id),
            )
        except BaseException:
            upload.busy = False
            raise

    async def upload_post(request: Any) -> Any:
        """A multipart form with ``file`` (and ``field``): checked, kept privately,
        previewed; its CSRF token was checked by the guard."""
        from starlette.datastructures import UploadFile
        from starlette.formparsers import MultiPartException

        try:
            form = await request.form(max_files=1, max_fields=10)
        except MultiPartException:
            problem = {"message": "the upload could not be read", "hint": "choose the file again"}
            return render(request, {}, 400, problem)
        try:
            chosen = form.get("file")
            field = str(form.get("field") or "").strip()
            if not isinstance(chosen, UploadFile) or not chosen.filename:
                raise InputError("no file was chosen", hint="choose a file to upload")
            data = await chosen.read(UPLOAD_MAX_BYTES + 1)
            upload = uploads.add(chosen.filename, data)
        except VeilError as exc:
            log.info("upload refused: %s", type(exc).__name__)
            return render(request, {}, 400, _problem(exc))
        finally:
            await form.close()
        log.info("upload received: %d bytes", upload.size)
        response = previewed(request, "", field, "", {"*": DEFAULT_OPERATOR}, upload)
        if response.status_code != 200:  # not readable as asked: not kept
            uploads.discard(upload.id)
        return response

    async def api_preview(request: Any) -> Any:
        body, problem = await _body(request)
        if problem is not None:
            return problem
        try:
            choices = parse_choices(body.get("operators") or {})
            return JSONResponse(
                preview_file(
                    workdir,
                    str(body.get("path") or ""),
                    get_analyzer(),
                    choices,
                    str(body.get("field") or "") or None,
                )
            )
        except VeilError as exc:
            return JSONResponse({"error": _problem(exc)}, status_code=400)

    async def api_start(request: Any) -> Any:
        body, problem = await _body(request)
        if problem is not None:
            return problem
        try:
            choices = parse_choices(body.get("operators") or {})
            job = jobs.start(
                str(body.get("path") or ""),
                str(body.get("out") or "") or None,
                get_analyzer(),
                choices,
                str(body.get("field") or "") or None,
            )
        except VeilError as exc:
            return JSONResponse({"error": _problem(exc)}, status_code=400)
        return JSONResponse(job.as_dict(), status_code=202)

    def no_job() -> Any:
        return JSONResponse(
            {"error": {"message": "no such redaction", "hint": "start one on the Redact page"}},
            status_code=404,
        )

    async def job_page(request: Any) -> Any:
        job = jobs.get(request.path_params["job"])
        if job is None:
            problem = {"message": "no such redaction", "hint": "start one on the Redact page"}
            return render(request, {}, 404, problem)
        return page(request, "redact_job.html", {"job": job.as_dict(), "problem": job.error})

    async def api_job(request: Any) -> Any:
        job = jobs.get(request.path_params["job"])
        return no_job() if job is None else JSONResponse(job.as_dict())

    async def job_cancel(request: Any) -> Any:
        job = jobs.get(request.path_params["job"])
        if job is None:
            return no_job()
        job.cancel.set()
        if request.headers.get("accept", "").startswith("application/json"):
            return JSONResponse(job.as_dict())
        return RedirectResponse(f"/redact/job/{job.id}", status_code=303)

    async def job_file(request: Any) -> Any:
        try:
            path = jobs.output(request.path_params["job"])
        except VeilError as exc:
            return JSONResponse({"error": _problem(exc)}, status_code=404)
        return FileResponse(path, filename=path.name, media_type="application/octet-stream")

    return [
        Route("/redact", redact_page),
        Route("/redact", redact_post, methods=["POST"]),
        Route("/redact/upload", upload_post, methods=["POST"]),
        Route("/redact/job/{job}", job_page),
        Route("/redact/job/{job}/cancel", job_cancel, methods=["POST"]),
        Route("/redact/job/{job}/file", job_file),
        Route("/api/redact/preview", api_preview, methods=["POST"]),
        Route("/api/redact", api_start, methods=["POST"]),
        Route("/api/redact/{job}", api_job),
    ]


async def _body(request: Any) -> tuple[dict[str, Any], Any]:
    from starlette.responses import JSONResponse

    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("operators", {}), dict):
        return {}, JSONResponse(
            {
                "error": {
                    "message": "the body is not a JSON object with 'path' and 'operators'",
                    "hint": 'send {"path": "notes.jsonl", "operators": {"PERSON": "mask"}}',
                }
            },
            status_code=400,
        )
    return body, None
