"""The DP query builder of ``veil ui``'s Budget view: build a query, see its spend, run it.

A query is made from the form's fields (statistic, column, public bounds, categories or
bins, group-by column, epsilon, mechanism, delta) into veil's query spec
(:func:`veil.dp.parse_query`, the one ``veil dp query`` uses), so its checks and messages
are the CLI's. *Check the spend* is ``veil dp query --dry-run``: the ledger says whether the
budget allows it, and the page shows the remaining budget before and after; nothing is
computed or recorded. *Run* answers it and records the spend in the same ledger (the
Budget view's: ``$VEIL_LEDGER_URL`` or veil's default), atomically, or refuses with nothing
recorded. A budget for a new dataset can be created here too (``veil budget init``).
Logs carry the statistic and the spend, never an answer or a value.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from veil._errors import InputError, VeilError

__all__ = ["QUERY_STATS", "dp_routes", "query_spec", "run_query"]

log = logging.getLogger("veil.ui")

QUERY_STATS = ("count", "sum", "mean", "median", "histogram")
_FIELDS = (
    "table",
    "dataset",
    "stat",
    "column",
    "lower",
    "upper",
    "categories",
    "bins",
    "by",
    "epsilon",
    "mechanism",
    "delta",
)


def _float(raw: str, name: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise InputError(f"{name} must be a number", hint=f"e.g. {name} = 0.5") from None


def query_spec(form: Mapping[str, str]) -> Any:
    """The :class:`veil.dp.QuerySpec` the form's fields describe (its checks are
    ``veil dp query``'s); :class:`InputError` or :class:`PolicyError` otherwise."""
    from veil.dp import parse_query

    stat = form.get("stat", "")
    if stat not in QUERY_STATS:
        raise InputError("unknown statistic", hint="choose one of " + ", ".join(QUERY_STATS))
    spec: dict[str, Any] = {"stat": stat}
    if form.get("column"):
        spec["column"] = form["column"]
    lower, upper = form.get("lower", ""), form.get("upper", "")
    if lower or upper:
        spec["bounds"] = [_float(lower, "lower bound"), _float(upper, "upper bound")]
    if form.get("categories"):
        spec["categories"] = [c.strip() for c in form["categories"].split(",") if c.strip()]
    if form.get("bins"):
        spec["bins"] = [_float(b.strip(), "a bin edge") for b in form["bins"].split(",")]
    if form.get("by"):
        spec["by"] = form["by"]
    spec["epsilon"] = _float(form.get("epsilon") or "", "epsilon")
    if form.get("mechanism"):
        spec["mechanism"] = form["mechanism"]
    if form.get("delta"):
        spec["delta"] = _float(form["delta"], "delta")
    return parse_query(spec)


def _remaining(led: Any, dataset: str) -> dict[str, Any]:
    status = led.status(dataset).as_dict()
    return {
        "epsilon": status["remaining"]["epsilon"],
        "delta": status["remaining"]["delta"],
        "composition": status["composition"],
    }


def run_query(
    workdir: Path,
    ledger_url: str | None,
    table: str,
    dataset: str,
    spec: Any,
    *,
    dry_run: bool,
) -> dict[str, Any]:
    """Check (``dry_run``) or answer ``spec`` on ``table`` of the working folder, spending
    from ``dataset``'s budget. Returns the spend, the remaining budget before and after and
    the answers (none in a dry run)."""
    from veil.dp import BudgetLedger, dp_query_many, fingerprint_frame
    from veil.io import infer_format, read_table
    from veil.io._sniff import sniff_separator
    from veil.ui._app import TABLE_SUFFIXES
    from veil.ui._security import safe_path
    from veil.ui._workflow import _sqlite_file_missing

    if not dataset:
        raise InputError("no dataset named", hint="name the ledger dataset to spend from")
    path = safe_path(workdir, table)
    if not path.name.lower().endswith(TABLE_SUFFIXES):
        raise InputError("this file is not a table veil reads", hint="pick a table")
    if _sqlite_file_missing(ledger_url):
        raise InputError(
            "the ledger has no datasets yet", hint="create a budget for the dataset first"
        )
    sep = sniff_separator(path) if infer_format(path) == "csv" else None
    frame = read_table(path, separator=sep)
    with BudgetLedger(ledger_url) as led:
        before = _remaining(led, dataset)
        answers = dp_query_many(
            frame,
            [spec],
            ledger=led,
            dataset=dataset,
            fingerprint=fingerprint_frame(frame),
            dry_run=dry_run,
        )
        after = _remaining(led, dataset)
    spend = {"epsilon": spec.epsilon, "delta": spec.delta}
    if dry_run and before["composition"] == "basic":
        after = {
            **after,
            "epsilon": before["epsilon"] - spec.epsilon,
            "delta": before["delta"] - spec.delta,
        }
    log.info(
        "dp query %s: %s, epsilon %g", "checked" if dry_run else "answered", spec.stat, spec.epsilon
    )
    return {
        "dataset": dataset,
        "query": spec.label,
        "dry_run": dry_run,
        "spend": spend,
        "before": before,
        "after": after if not dry_run or before["composition"] == "basic" else None,
        "answers": [a.as_dict() for a in answers],
    }


def dp_routes(
    workdir: Path,
    page: Callable[..., Any],
    list_files: Callable[[tuple[str, ...]], list[str]],
    ledger_url: str | None,
) -> list[Any]:
    """``POST /budget/query``, ``POST /budget/init`` and ``POST /api/dp/query``."""
    from urllib.parse import parse_qs

    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    from veil.ui._app import TABLE_SUFFIXES
    from veil.ui._workflow import budget_data

    def render(request: Any, form: dict[str, str], result: Any, problem: Any, status: int) -> Any:
        try:
            data = budget_data(ledger_url, None)
        except VeilError as exc:
            data, problem, status = None, {"message": exc.message, "hint": exc.hint}, 400
        context = {
            "budget": data,
            "tables": list_files(TABLE_SUFFIXES),
            "stats": QUERY_STATS,
            "q": form,
            "query": result,
            "problem": problem,
        }
        return page(request, "budget.html", context, status)

    async def form_of(request: Any) -> dict[str, str]:
        raw = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
        return {k: (v[0] if v else "").strip() for k, v in raw.items()}

    async def query_post(request: Any) -> Any:
        form = await form_of(request)
        q = {k: form.get(k, "") for k in _FIELDS}
        try:
            spec = query_spec(q)
            result = run_query(
                workdir,
                ledger_url,
                q["table"],
                q["dataset"],
                spec,
                dry_run=form.get("action") != "run",
            )
        except VeilError as exc:
            return render(request, q, None, {"message": exc.message, "hint": exc.hint}, 400)
        return render(request, q, result, None, 200)

    async def init_post(request: Any) -> Any:
        from veil.dp import BudgetLedger

        form = await form_of(request)
        try:
            name = form.get("dataset", "")
            epsilon = _float(form.get("epsilon", ""), "epsilon")
            delta = _float(form.get("delta") or "0", "delta")
            with BudgetLedger(ledger_url) as led:
                led.init(name, epsilon=epsilon, delta=delta, who="veil ui")
        except VeilError as exc:
            problem = {"message": exc.message, "hint": exc.hint}
            return render(request, {}, None, problem, 400)
        log.info("budget created")
        return RedirectResponse("/budget", status_code=303)

    async def api_query(request: Any) -> Any:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return JSONResponse(
                {
                    "error": {
                        "message": "the body is not a JSON object",
                        "hint": 'send {"table", "dataset", "stat", "epsilon", ..., "dry_run"}',
                    }
                },
                status_code=400,
            )
        q = {k: str(body.get(k) if body.get(k) is not None else "") for k in _FIELDS}
        try:
            result = run_query(
                workdir,
                ledger_url,
                q["table"],
                q["dataset"],
                query_spec(q),
                dry_run=bool(body.get("dry_run", True)),
            )
        except VeilError as exc:
            return JSONResponse(
                {"error": {"message": exc.message, "hint": exc.hint}}, status_code=400
            )
        return Response(json.dumps(result, default=str), media_type="application/json")

    return [
        Route("/budget/query", query_post, methods=["POST"]),
        Route("/budget/init", init_post, methods=["POST"]),
        Route("/api/dp/query", api_query, methods=["POST"]),
    ]
