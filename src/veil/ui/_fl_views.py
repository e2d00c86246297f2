"""The Federated view of ``veil ui``: a form for ``veil fl simulate``, the run's progress,
cancel and result (the runs themselves: :mod:`veil.ui._fl`, imported on the first start so
the app starts without loading veil.federated)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["FL_DP_MODES", "FL_MODELS", "FORM_DEFAULTS", "fl_routes"]

log = logging.getLogger("veil.ui")

FL_MODELS = ("logistic", "mlp")
FL_DP_MODES = ("", "client", "sample")  # "": no DP; client-level; DP-SGD in each client
# what the form starts with: small enough to finish in seconds on the demo data
FORM_DEFAULTS: dict[str, str] = {
    "table": "",
    "target": "",
    "clients": "5",
    "rounds": "5",
    "partition": "iid",
    "strategy": "fedavg",
    "model": "logistic",
    "dp": "",
    "epsilon": "",
    "delta": "1e-5",
    "dataset": "",
    "secagg": "",
    "workers": "",
    # advanced: the rest of `veil fl simulate`'s options, blank for the CLI's defaults
    "local_epochs": "",
    "fraction_fit": "",
    "dropout": "",
    "clip_norm": "",
    "adaptive_clip": "",
    "seed": "",
}


def fl_routes(workdir: Path, page: Any, tables: Any, ledger_url: str | None) -> list[Any]:
    """``GET /fl`` (the form), ``POST /fl`` (start), ``GET /fl/{job}`` (progress and
    result), ``POST /fl/{job}/cancel``, ``GET /api/fl/{job}``."""
    from urllib.parse import parse_qs

    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse
    from starlette.routing import Route

    from veil._errors import VeilError
    from veil.ui._app import TABLE_SUFFIXES

    state: dict[str, Any] = {"jobs": None}

    def runs() -> Any:
        if state["jobs"] is None:
            from veil.ui._fl import FLJobs

            state["jobs"] = FLJobs(workdir, ledger_url)
        return state["jobs"]

    def form_page(request: Any, form: Mapping[str, str], problem: Any, status: int) -> Any:
        from veil.federated import PARTITIONS, STRATEGIES

        jobs = runs()
        return page(
            request,
            "fl.html",
            {
                "form": {**FORM_DEFAULTS, **form},
                "tables": tables(TABLE_SUFFIXES),
                "strategies": STRATEGIES,
                "partitions": PARTITIONS,
                "models": FL_MODELS,
                "problem": problem,
                "job": None,
                "recent": [j.as_dict() for j in list(jobs.jobs.values())[-5:]][::-1],
            },
            status,
        )

    async def fl_page(request: Any) -> Any:
        return form_page(request, dict(request.query_params), None, 200)

    async def fl_start(request: Any) -> Any:
        raw = parse_qs((await request.body()).decode("utf-8", "replace"))
        form = {k: v[0] for k, v in raw.items() if v and k in FORM_DEFAULTS}
        try:
            # reads the table: off the event loop
            job = await run_in_threadpool(runs().start, form)
        except VeilError as exc:
            log.info("federated run refused: %s", type(exc).__name__)
            return form_page(request, form, {"message": exc.message, "hint": exc.hint}, 400)
        except OSError:
            problem = {"message": "the table could not be read", "hint": None}
            return form_page(request, form, problem, 400)
        return RedirectResponse(f"/fl/{job.id}", status_code=303)

    def _job(request: Any) -> Any:
        return runs().get(request.path_params["job"])

    async def job_page(request: Any) -> Any:
        job = _job(request)
        if job is None:
            problem = {"message": "no such federated run", "hint": "start one on this page"}
            return form_page(request, {}, problem, 404)
        return page(request, "fl.html", {"job": job.as_dict(), "problem": job.error})

    async def job_cancel(request: Any) -> Any:
        job = _job(request)
        if job is None:
            return JSONResponse({"error": {"message": "no such federated run"}}, 404)
        job.cancel.set()
        log.info("federated run cancel asked")
        return RedirectResponse(f"/fl/{job.id}", status_code=303)

    async def api_job(request: Any) -> Any:
        job = _job(request)
        if job is None:
            return JSONResponse({"error": {"message": "no such federated run"}}, 404)
        return JSONResponse(job.as_dict())

    return [
        Route("/fl", fl_page),
        Route("/fl", fl_start, methods=["POST"]),
        Route("/fl/{job}", job_page),
        Route("/fl/{job}/cancel", job_cancel, methods=["POST"]),
        Route("/api/fl/{job}", api_job),
    ]
