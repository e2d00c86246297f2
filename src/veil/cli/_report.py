"""``veil report RUN_DIR``: rebuild report.html from report.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from veil.cli._ui import console, print_json

__all__ = ["register"]


def report(
    run_dir: Annotated[
        Path, typer.Argument(help="Output folder of `veil run` (holds report.json).")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the HTML here (default RUN_DIR/report.html)."),
    ] = None,
    examples: Annotated[
        int,
        typer.Option(
            "--examples",
            help="Also show the released values of the N riskiest classes. This puts DATA "
            "VALUES (generalized) into the page; off by default.",
        ),
    ] = 0,
    json_: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
) -> None:
    """Rebuild the self-contained HTML report from report.json (e.g. after an upgrade)."""
    from veil._errors import InputError
    from veil.io import write_text_atomic
    from veil.report import render_html

    src = run_dir / "report.json" if run_dir.is_dir() else run_dir
    if not src.is_file():
        raise InputError(
            f"no report.json in {run_dir}", hint="pass the output folder of `veil run`"
        )
    try:
        data = json.loads(src.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(
            f"{src} is not valid JSON", hint="re-run the policy to write it again"
        ) from None
    if not isinstance(data, dict) or not str(data.get("report_version", "")).startswith("1."):
        raise InputError(
            f"{src} is not a veil report of format 1.x",
            hint="rebuild it with the veil version that wrote it",
        )
    page = render_html(data)
    if examples > 0:
        from veil.report._examples import examples_section, inject

        page = inject(page, examples_section(data, src.parent, examples))
    target = out or src.parent / "report.html"
    write_text_atomic(target, page)
    if json_:
        print_json({"report_html": str(target), "bytes": len(page.encode("utf-8"))})
    else:
        console.print(f"wrote {target} ({len(page.encode('utf-8')) / 1024:.0f} kB)")


def register(app: typer.Typer) -> None:
    app.command("report")(report)
