"""The Policy, Run and Budget views of ``veil ui`` (routes added by :func:`create_app`).

Every state-changing route is a POST, so :class:`~veil.ui._security.Guard` checks its CSRF
token and Origin before it runs. Pages work without any script: a running run's page
reloads itself once a second (``<meta http-equiv="refresh">``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from veil._errors import InputError, VeilError
from veil.ui._policy_edit import (
    POLICY_SUFFIXES,
    ROLES,
    apply_form,
    check_policy_text,
    editor_model,
    save_policy_text,
)
from veil.ui._runs import Runs

__all__ = ["budget_data", "workflow_routes"]

log = logging.getLogger("veil.ui")

# the report is veil's own HTML (inline style, no script): framed by the run page only
_REPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
)
_RUN_PAGE_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_MEDIA = {"report_html": "text/html; charset=utf-8", "report_json": "application/json"}


def _problem(exc: VeilError) -> dict[str, Any]:
    return {"message": exc.message, "hint": exc.hint}


async def _form(request: Any) -> dict[str, list[str]]:
    """A urlencoded form (Starlette's own parser needs python-multipart)."""
    return parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)


async def _json_body(request: Any) -> dict[str, Any] | None:
    try:
        body = await request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def workflow_routes(
    workdir: Path,
    page: Callable[..., Any],
    list_files: Callable[[tuple[str, ...]], list[str]],
    runs: Runs,
    ledger_url: str | None,
) -> list[Any]:
    """The routes of the three views, over ``workdir``; ``page(request, template, context,
    status)`` renders a page with the session's CSRF token."""
    from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    def editor_page(
        request: Any,
        target: str,
        text: str,
        table: str | None,
        status: int = 200,
        saved: bool = False,
        problem: dict[str, Any] | None = None,
        preview: dict[str, Any] | None = None,
    ) -> Any:
        from veil.ui._hierarchy_form import DATE_LEVELS, HIERARCHY_KINDS, hierarchy_editors
        from veil.ui._policy_edit import _mapping

        checked = check_policy_text(workdir, target, text)
        try:
            hierarchies = hierarchy_editors(_mapping(text, target))
        except VeilError:
            hierarchies = []
        context = {
            "target": target,
            "yaml_text": text,
            "table": table,
            "checked": checked,
            "editor": editor_model(text, target, checked["error"]),
            "roles": ROLES,
            "saved": saved,
            "policies": list_files(POLICY_SUFFIXES),
            "problem": problem,
            "preview": preview,
            "hierarchies": hierarchies,
            "hierarchy_kinds": HIERARCHY_KINDS,
            "date_levels": DATE_LEVELS,
            "csv_files": list_files((".csv",)),
        }
        if status == 200 and not checked["valid"]:
            status = 422
        return page(request, "policy.html", context, status)

    async def policy_page(request: Any) -> Any:
        from veil.ui._app import describe_table, load_text_file

        q = request.query_params
        try:
            if q.get("path"):  # import an existing policy
                target = q["path"]
                text = load_text_file(workdir, target, POLICY_SUFFIXES, "a policy")
                table = None
            elif q.get("sql_table"):  # draft one from a SQL table
                from veil.ui._sql import DEFAULT_SQL_ENV, describe_sql

                info = describe_sql(q.get("sql_env") or DEFAULT_SQL_ENV, q["sql_table"])
                target, text, table = q.get("target") or "policy.yaml", info["policy_yaml"], None
            elif q.get("table"):  # draft one from a table
                info = describe_table(workdir, q["table"])
                target, text, table = (
                    q.get("target") or "policy.yaml",
                    info["policy_yaml"],
                    q["table"],
                )
            else:
                return page(request, "policy.html", {"policies": list_files(POLICY_SUFFIXES)})
        except VeilError as exc:
            context = {"policies": list_files(POLICY_SUFFIXES), "problem": _problem(exc)}
            return page(request, "policy.html", context, 400)
        return editor_page(request, target, text, table)

    async def policy_post(request: Any) -> Any:
        form = await _form(request)

        def one(name: str) -> str:
            return (form.get(name) or [""])[0]

        target, text, action = one("target"), one("yaml").replace("\r\n", "\n"), one("action")
        table = one("table") or None
        if action == "apply":
            try:
                text = apply_form(text, target, form)
            except VeilError as exc:
                return editor_page(request, target, text, table, 400, problem=_problem(exc))
        if action == "hierarchy":
            from veil.ui._hierarchy_form import apply_hierarchy
            from veil.ui._hierarchy_preview import hierarchy_preview

            try:
                text = apply_hierarchy(text, target, form)
            except VeilError as exc:
                return editor_page(request, target, text, table, 400, problem=_problem(exc))
            log.info("hierarchy set (%s)", one("h.kind"))
            if not check_policy_text(workdir, target, text)["valid"]:
                return editor_page(request, target, text, table)
            try:
                preview = hierarchy_preview(workdir, target, text)
            except VeilError as exc:
                return editor_page(request, target, text, table, 400, problem=_problem(exc))
            return editor_page(request, target, text, table, preview=preview)
        if action == "download":
            return Response(
                text,
                media_type="application/yaml",
                headers={"content-disposition": 'attachment; filename="policy.yaml"'},
            )
        if action == "preview":
            from veil.ui._hierarchy_preview import hierarchy_preview

            try:
                preview = hierarchy_preview(workdir, target, text)
            except VeilError as exc:
                return editor_page(request, target, text, table, 400, problem=_problem(exc))
            log.info("hierarchy preview of %d column(s)", len(preview["columns"]))
            return editor_page(request, target, text, table, preview=preview)
        if action == "save":
            try:
                result = save_policy_text(workdir, target, text)
            except (VeilError, OSError) as exc:
                problem = (
                    _problem(exc)
                    if isinstance(exc, VeilError)
                    else {"message": "the policy could not be written", "hint": exc.strerror}
                )
                return editor_page(request, target, text, table, 400, problem=problem)
            log.info("policy %s", "saved" if result["saved"] else "not saved (invalid)")
            return editor_page(request, target, text, table, saved=result["saved"])
        return editor_page(request, target, text, table)

    async def api_policy(request: Any) -> Any:
        body = await _json_body(request)
        if body is None or not isinstance(body.get("yaml"), str):
            return JSONResponse(
                {
                    "error": {
                        "message": "the body is not a JSON object with 'yaml' and 'path'",
                        "hint": 'send {"path": "policy.yaml", "yaml": "..."}',
                    }
                },
                status_code=400,
            )
        target = str(body.get("path") or "policy.yaml")
        save = request.url.path.endswith("/save")
        try:
            result = (save_policy_text if save else check_policy_text)(
                workdir, target, body["yaml"]
            )
        except OSError as exc:
            return JSONResponse(
                {"error": {"message": "the policy could not be written", "hint": exc.strerror}},
                status_code=400,
            )
        return JSONResponse(result, status_code=200 if result["valid"] else 422)

    async def run_start(request: Any) -> Any:
        if request.headers.get("content-type", "").startswith("application/json"):
            body = await _json_body(request) or {}
            relative, as_json = str(body.get("policy") or ""), True
        else:
            relative, as_json = ((await _form(request)).get("policy") or [""])[0], False
        try:
            job = runs.start(relative)
        except VeilError as exc:
            if as_json:
                return JSONResponse({"error": _problem(exc)}, status_code=400)
            return page(request, "run.html", {"job": None, "problem": _problem(exc)}, 400)
        if as_json:
            return JSONResponse(job.as_dict(), status_code=202)
        return RedirectResponse(f"/run/{job.id}", status_code=303)

    def job_or_404(request: Any) -> Any:
        return runs.get(request.path_params["job"])

    async def run_page(request: Any) -> Any:
        job = job_or_404(request)
        if job is None:
            problem = {"message": "no such run", "hint": "start one from the Policy page"}
            return page(request, "run.html", {"job": None, "problem": problem}, 404)
        response = page(request, "run.html", {"job": job.as_dict(), "problem": job.error})
        response.headers["content-security-policy"] = _RUN_PAGE_CSP
        return response

    async def run_cancel(request: Any) -> Any:
        job = job_or_404(request)
        if job is None:
            return JSONResponse({"error": {"message": "no such run", "hint": None}}, 404)
        job.cancel.set()
        if request.headers.get("accept", "").startswith("application/json"):
            return JSONResponse(job.as_dict())
        return RedirectResponse(f"/run/{job.id}", status_code=303)

    async def api_run(request: Any) -> Any:
        job = job_or_404(request)
        if job is None:
            return JSONResponse({"error": {"message": "no such run", "hint": None}}, 404)
        return JSONResponse(job.as_dict())

    async def run_file(request: Any) -> Any:
        name = request.path_params["name"]
        try:
            path = runs.output(request.path_params["job"], name)
        except VeilError as exc:
            return JSONResponse({"error": _problem(exc)}, status_code=404)
        if name == "report_html":
            return FileResponse(
                path,
                media_type=_MEDIA[name],
                headers={"content-security-policy": _REPORT_CSP, "x-frame-options": "SAMEORIGIN"},
            )
        return FileResponse(path, media_type=_MEDIA.get(name), filename=path.name)

    async def run_certificate(request: Any) -> Any:
        from veil.ui._certificate import certificate

        job = job_or_404(request)
        problem = None
        if job is None or job.state != "done":
            problem = {"message": "no finished run of that id", "hint": "run a policy first"}
        else:
            try:
                cert = certificate(job.outputs, workdir)
            except VeilError as exc:
                problem = _problem(exc)
        wants_json = request.url.path.startswith("/api/")
        if problem is not None:
            if wants_json:
                return JSONResponse({"error": problem}, status_code=404)
            return page(request, "certificate.html", {"cert": None, "problem": problem}, 404)
        log.info(
            "certificate: re-check %s", "agrees" if cert["recheck"].get("agrees") else "differs"
        )
        if wants_json:
            headers = (
                {"content-disposition": 'attachment; filename="certificate.json"'}
                if request.query_params.get("download")
                else {}
            )
            return Response(
                json.dumps({"policy": job.policy, **cert}, indent=2, default=str),
                media_type="application/json",
                headers=headers,
            )
        return page(
            request, "certificate.html", {"cert": cert, "job": job.as_dict(), "problem": None}
        )

    async def budget_page(request: Any) -> Any:
        dataset = request.query_params.get("dataset") or None
        try:
            data = budget_data(ledger_url, dataset)
        except VeilError as exc:
            return page(request, "budget.html", {"budget": None, "problem": _problem(exc)}, 400)
        from veil.ui._app import TABLE_SUFFIXES
        from veil.ui._dp_query import QUERY_STATS

        tables = list_files(TABLE_SUFFIXES)
        first = tables[0] if tables else ""
        form = {"table": first, "dataset": Path(first).stem, "stat": "count", "epsilon": "0.1"}
        context = {"budget": data, "tables": tables, "stats": QUERY_STATS, "q": form}
        return page(request, "budget.html", context)

    async def api_budget(request: Any) -> Any:
        try:
            data = budget_data(ledger_url, request.query_params.get("dataset") or None)
        except VeilError as exc:
            return JSONResponse({"error": _problem(exc)}, status_code=400)
        return Response(json.dumps(data, default=str), media_type="application/json")

    return [
        Route("/policy", policy_page),
        Route("/policy", policy_post, methods=["POST"]),
        Route("/api/policy/check", api_policy, methods=["POST"]),
        Route("/api/policy/save", api_policy, methods=["POST"]),
        Route("/run", run_start, methods=["POST"]),
        Route("/run/{job}", run_page),
        Route("/run/{job}/cancel", run_cancel, methods=["POST"]),
        Route("/run/{job}/file/{name}", run_file),
        Route("/api/run/{job}", api_run),
        Route("/run/{job}/certificate", run_certificate),
        Route("/api/run/{job}/certificate", run_certificate),
        Route("/budget", budget_page),
        Route("/api/budget", api_budget),
    ]


def budget_data(ledger_url: str | None, dataset: str | None) -> dict[str, Any]:
    """The ledger's datasets (what ``veil budget list --json`` prints) and, with ``dataset``,
    its spends; no ledger file is created when there is none yet."""
    from veil.dp import BudgetLedger

    if _sqlite_file_missing(ledger_url):
        # a page view creates no ledger: there is none yet, so no dataset has a budget
        if dataset:
            raise InputError(
                "the ledger has no datasets yet",
                hint="create a budget first: veil budget init DATASET --epsilon E",
            )
        return {"datasets": [], "dataset": None, "history": None}
    with BudgetLedger(ledger_url) as led:
        statuses = [led.status(n).as_dict() for n in led.datasets()]
        history = [e.as_dict() for e in led.history(dataset)] if dataset else None
    return {"datasets": statuses, "dataset": dataset, "history": history}


def _sqlite_file_missing(url: str | None) -> bool:
    """True when ``url`` (``None``: veil's default ledger) is a SQLite file not yet made."""
    import sqlalchemy as sa

    from veil.dp._store import default_ledger_url

    try:
        parsed = sa.engine.make_url(url or default_ledger_url())
    except sa.exc.ArgumentError:
        return False  # the ledger itself reports a malformed URL
    database = parsed.database
    if not parsed.drivername.startswith("sqlite") or not database or database == ":memory:":
        return False
    return not Path(database).exists()
