"""The Starlette app behind ``veil ui``: the data and text views (the policy, run and
budget views are in :mod:`veil.ui._workflow`).

Pages are rendered on the server with Jinja2 (autoescaped), so they work without any
script; the one stylesheet is served from the package. Views show column names and
aggregate statistics, and findings in the text the user pasted: never a table's values.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from veil._errors import VeilError
from veil.ui._security import Guard, Sessions, allowed_hosts, safe_path

__all__ = ["UiSettings", "create_app", "describe_table", "explain_text", "list_tables"]

log = logging.getLogger("veil.ui")

_HERE = Path(__file__).parent
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".jsonl", ".ndjson")
_MAX_LISTED = 500  # tables listed from the working folder
_MAX_DEPTH = 4  # folder levels searched below it
_MAX_TEXT_CHARS = 200_000
TEXT_SUFFIXES = (".txt", ".md", ".log")


def load_text(workdir: Path, relative: str) -> str:
    """A UTF-8 text file inside ``workdir``, at most ``_MAX_TEXT_CHARS`` characters."""
    return load_text_file(workdir, relative, TEXT_SUFFIXES, "a text file")


def load_text_file(workdir: Path, relative: str, suffixes: tuple[str, ...], kind: str) -> str:
    """A UTF-8 file ending in one of ``suffixes`` inside ``workdir``, at most
    ``_MAX_TEXT_CHARS`` characters."""
    from veil._errors import InputError

    path = safe_path(workdir, relative)
    if not path.name.lower().endswith(suffixes):
        raise InputError(
            f"this file is not {kind}",
            hint="pick a file ending in " + " or ".join(suffixes),
        )
    if path.stat().st_size > 4 * _MAX_TEXT_CHARS:
        raise InputError(
            f"the file is longer than {_MAX_TEXT_CHARS:,} characters",
            hint="use `veil redact` for long files",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the file is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
        ) from exc
    if len(text) > _MAX_TEXT_CHARS:
        raise InputError(
            f"the file is longer than {_MAX_TEXT_CHARS:,} characters",
            hint="use `veil redact` for long files",
        )
    return text.replace("\r\n", "\n")


# one colour class per finding type family (CSS in static/veil.css)
_ENTITY_CLASS = {
    "PERSON": "e-person",
    "EMAIL_ADDRESS": "e-contact",
    "PHONE_NUMBER": "e-contact",
    "URL": "e-contact",
    "IP_ADDRESS": "e-contact",
    "LOCATION": "e-place",
    "DATE_TIME": "e-date",
    "CREDIT_CARD": "e-finance",
    "IBAN_CODE": "e-finance",
    "US_SSN": "e-id",
}


@dataclass
class UiSettings:
    """Where the app serves from and what it may read."""

    workdir: Path
    host: str = "127.0.0.1"
    port: int = 8765
    tls: bool = False
    ledger_url: str | None = None  # the budget view's ledger (None: veil's default)
    sessions: Sessions = field(default_factory=Sessions)

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        name = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{name}:{self.port}/?token={self.sessions.token}"


def list_tables(workdir: Path, suffixes: tuple[str, ...] = TABLE_SUFFIXES) -> list[str]:
    """Tables (files ending in ``suffixes``) under ``workdir`` as relative POSIX paths,
    hidden folders skipped, links leading out of it left out."""
    root = workdir.resolve()
    found: list[str] = []

    def walk(folder: Path, depth: int) -> None:
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for p in entries:
            if len(found) >= _MAX_LISTED or p.name.startswith("."):
                continue
            try:
                real = p.resolve()
            except OSError:
                continue
            if not real.is_relative_to(root):
                continue
            if p.is_dir() and not p.is_symlink() and depth < _MAX_DEPTH:
                walk(p, depth + 1)
            elif p.is_file() and p.name.lower().endswith(suffixes):
                found.append(p.relative_to(root).as_posix())

    walk(root, 0)
    return found


def describe_table(workdir: Path, relative: str) -> dict[str, Any]:
    """Rows, each column's type, distinct and missing counts, inferred role and the reason
    for it, and the draft policy YAML: what ``veil policy init`` writes for the file (the
    same :func:`veil.policy._draft.draft_policy`, the separator sniffed the same way), with
    the path relative to the working folder. No value of the table is returned."""
    from veil.io import infer_format, read_table
    from veil.io._sniff import sniff_separator
    from veil.policy._draft import draft_policy

    path = safe_path(workdir, relative)
    if not path.name.lower().endswith(TABLE_SUFFIXES):
        from veil._errors import InputError

        raise InputError(
            "this file is not a table veil reads",
            hint="pick a .csv, .tsv, .parquet or .jsonl file",
        )
    sep = sniff_separator(path) if infer_format(path) == "csv" else None
    frame = read_table(path, separator=sep)
    yaml_text, guesses = draft_policy(
        frame, data_path=path.relative_to(workdir.resolve()), separator=sep or ","
    )
    return describe_frame(frame, guesses, relative, yaml_text)


def describe_frame(
    frame: Any, guesses: dict[str, Any], name: str, yaml_text: str
) -> dict[str, Any]:
    """:func:`describe_table`'s answer for a table already read and drafted."""
    columns = [
        {
            "name": name,
            "dtype": g["dtype"],
            "distinct": g["distinct"],
            "missing": int(frame[col].isna().sum()),
            "role": g["role"],
            "reason": g["reason"],
        }
        for col, (name, g) in zip(frame.columns, guesses.items(), strict=True)
    ]
    return {"path": name, "rows": len(frame), "columns": columns, "policy_yaml": yaml_text}


def explain_text(analyzer: Any, text: str) -> dict[str, Any]:
    """Findings with explanations, and the text cut into plain and highlighted pieces."""
    findings = analyzer.explain(text)
    for f in findings:
        f["css"] = _ENTITY_CLASS.get(f["entity_type"], "e-other")
    pieces: list[dict[str, Any]] = []
    at = 0
    for n, f in enumerate(findings):
        if f["start"] < at:  # overlaps were resolved by the analyzer; guard anyway
            continue
        if f["start"] > at:
            pieces.append({"text": text[at : f["start"]]})
        pieces.append(
            {
                "text": text[f["start"] : f["end"]],
                "entity_type": f["entity_type"],
                "css": f["css"],
                "n": n + 1,
            }
        )
        at = f["end"]
    if at < len(text):
        pieces.append({"text": text[at:]})
    return {"findings": findings, "pieces": pieces}


def redact_text(analyzer: Any, text: str, raw: dict[str, str]) -> tuple[str, dict[str, str]]:
    """``text`` redacted with an operator per entity type (``raw``: ``{type: operator}``,
    ``"*"`` for the others), as the Redact view does for a file; the checked choices too."""
    from veil.text import TextRedactor
    from veil.ui._redact import EntityOperator, parse_choices

    choices = parse_choices(raw)
    op = EntityOperator(choices)
    return TextRedactor(analyzer, op, link=op.links).redact(text).text or "", choices


def create_app(settings: UiSettings, *, analyzer: Any = None) -> Any:
    """The ASGI app, wrapped in :class:`~veil.ui._security.Guard`.

    ``analyzer`` is the text view's :class:`~veil.text.TextAnalyzer` (default: the built-in
    recognizers without NER, made on first use).
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
    from starlette.templating import Jinja2Templates

    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    workdir = settings.workdir.resolve()
    cache: dict[str, Any] = {"analyzer": analyzer}
    lock = threading.Lock()

    def get_analyzer() -> Any:
        with lock:
            if cache["analyzer"] is None:
                from veil.text import TextAnalyzer

                cache["analyzer"] = TextAnalyzer.from_config(ner=False)
            return cache["analyzer"]

    def warm() -> None:
        """Import what the views need and build the analyzer, so the first page a user
        opens does not wait for it (``veil ui`` calls this in a thread once listening)."""
        import veil.io
        import veil.policy._draft  # noqa: F401

        get_analyzer().analyze("warm up 212-555-0175")

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        base = {
            "csrf": request.scope["state"]["csrf"],
            "workdir_name": workdir.name,
            "entity_css": _ENTITY_CLASS,
        }
        return templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    def error(exc: VeilError) -> dict[str, str | None]:
        return {"message": exc.message, "hint": exc.hint}

    async def home(request: Request) -> Response:
        return RedirectResponse("/data", status_code=303)

    async def data_page(request: Request) -> Response:
        from veil.ui._sql import DEFAULT_SQL_ENV, describe_sql, sql_tables

        tables = list_tables(workdir)
        relative = request.query_params.get("path")
        sql_env = request.query_params.get("sql_env") or DEFAULT_SQL_ENV
        sql_table = request.query_params.get("sql_table")
        table, problem, status = None, None, 200
        sql: dict[str, Any] = {"env": sql_env, "tables": None, "selected": sql_table}
        started = time.perf_counter()
        if relative:
            try:
                table = describe_table(workdir, relative)
            except VeilError as exc:
                problem, status = error(exc), 400
        elif "sql_env" in request.query_params or sql_table:
            try:
                sql["tables"] = sql_tables(sql_env)
                if sql_table:
                    table = describe_sql(sql_env, sql_table)
                    table["sql_env"], table["sql_table"] = sql_env, sql_table
            except VeilError as exc:
                problem, status = error(exc), 400
        log.info(
            "data view: %s in %.2f s",
            "refused" if problem else "rendered",
            time.perf_counter() - started,
        )
        return page(
            request,
            "data.html",
            {
                "tables": tables,
                "table": table,
                "problem": problem,
                "selected": relative,
                "sql": sql,
            },
            status,
        )

    async def text_page(request: Request) -> Response:
        from veil.ui._redact import DEFAULT_OPERATOR, UI_OPERATORS

        context: dict[str, Any] = {
            "text": "",
            "result": None,
            "redacted": None,
            "operators": UI_OPERATORS,
            "choices": {"*": DEFAULT_OPERATOR},
            "problem": None,
            "files": list_tables(workdir, TEXT_SUFFIXES),
            "selected": request.query_params.get("path"),
        }
        status = 200
        if request.method == "GET" and context["selected"]:
            try:
                context["text"] = load_text(workdir, context["selected"])
                context["result"] = explain_text(get_analyzer(), context["text"])
            except VeilError as exc:
                context["problem"], status = error(exc), 400
            log.info(
                "text view (file): %d findings", len((context["result"] or {}).get("findings", []))
            )
        if request.method == "POST":
            # a urlencoded form, parsed here: Starlette's own parser needs python-multipart
            form = parse_qs((await request.body()).decode("utf-8", "replace"))
            text = (form.get("text") or [""])[0].replace("\r\n", "\n")
            context["text"] = text
            if len(text) > _MAX_TEXT_CHARS:
                context["problem"] = {
                    "message": f"the text is longer than {_MAX_TEXT_CHARS:,} characters",
                    "hint": "paste a shorter part, or use `veil redact` for files",
                }
                status = 400
            else:
                try:
                    context["result"] = explain_text(get_analyzer(), text)
                    choices = {
                        k[3:]: v[0] for k, v in form.items() if k.startswith("op.") and v and v[0]
                    }
                    if choices:
                        context["redacted"], context["choices"] = redact_text(
                            get_analyzer(), text, choices
                        )
                except VeilError as exc:
                    context["problem"], status = error(exc), 400
            log.info("text view: %d findings", len((context["result"] or {}).get("findings", [])))
        return page(request, "text.html", context, status)

    async def api_tables(request: Request) -> Response:
        return JSONResponse({"workdir": workdir.name, "tables": list_tables(workdir)})

    async def api_table(request: Request) -> Response:
        try:
            return JSONResponse(describe_table(workdir, request.query_params.get("path", "")))
        except VeilError as exc:
            return JSONResponse({"error": error(exc)}, status_code=400)

    async def api_policy_draft(request: Request) -> Response:
        try:
            info = describe_table(workdir, request.query_params.get("path", ""))
        except VeilError as exc:
            return JSONResponse({"error": error(exc)}, status_code=400)
        return Response(
            info["policy_yaml"],
            media_type="application/yaml",
            headers={"content-disposition": 'attachment; filename="policy.yaml"'},
        )

    async def api_explain(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse(
                {"error": {"message": "the body is not JSON", "hint": 'send {"text": "..."}'}},
                status_code=400,
            )
        text = body.get("text") if isinstance(body, dict) else None
        if not isinstance(text, str) or len(text) > _MAX_TEXT_CHARS:
            return JSONResponse(
                {
                    "error": {
                        "message": "text must be a string of at most "
                        f"{_MAX_TEXT_CHARS:,} characters",
                        "hint": 'send {"text": "..."}',
                    }
                },
                status_code=400,
            )
        try:
            findings = get_analyzer().explain(text)
        except VeilError as exc:
            return JSONResponse({"error": error(exc)}, status_code=400)
        return JSONResponse({"findings": findings})

    routes = [
        Route("/", home),
        Route("/data", data_page),
        Route("/text", text_page, methods=["GET", "POST"]),
        Route("/api/tables", api_tables),
        Route("/api/table", api_table),
        Route("/api/table/policy.yaml", api_policy_draft),
        Route("/api/text/explain", api_explain, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static"),
    ]
    from veil.ui._dp_query import dp_routes
    from veil.ui._erasure import erasure_routes
    from veil.ui._explore import explore_routes
    from veil.ui._fl_views import fl_routes
    from veil.ui._redact_views import redact_routes
    from veil.ui._runs import Runs
    from veil.ui._workflow import workflow_routes

    runs = Runs(workdir)
    routes[-1:-1] = workflow_routes(
        workdir,
        page,
        lambda suffixes: list_tables(workdir, suffixes),
        runs,
        settings.ledger_url,
    ) + explore_routes(workdir, page, runs)
    routes[-1:-1] = redact_routes(
        workdir, page, lambda suffixes: list_tables(workdir, suffixes), get_analyzer
    ) + dp_routes(
        workdir, page, lambda suffixes: list_tables(workdir, suffixes), settings.ledger_url
    )
    routes[-1:-1] = fl_routes(
        workdir, page, lambda suffixes: list_tables(workdir, suffixes), settings.ledger_url
    ) + erasure_routes(workdir, page)
    inner = Starlette(routes=routes)
    hosts = allowed_hosts(settings.host, settings.port)
    scheme = "https" if settings.tls else "http"
    return Guard(
        inner,
        sessions=settings.sessions,
        hosts=hosts,
        origins=frozenset(f"{scheme}://{h}" for h in hosts),
        secure_cookie=settings.tls,
        warm=warm,
        port=settings.port,
    )
