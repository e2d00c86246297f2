"""``veil run`` and ``veil demo``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._ui import RichProgressAdapter, console, print_json, state

__all__ = ["register"]


def _summary_table(report: dict[str, Any], outputs: dict[str, Path]) -> None:
    from rich.table import Table

    table = Table(title="veil release", show_header=True, header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in report.get("summary", {}).items():
        if value is None:  # not applicable to this run (e.g. the epsilon of a non-DP synthesizer)
            continue
        table.add_row(key.replace("_", " "), str(value))
    console.print(table)
    for name, path in outputs.items():
        console.print(f"  {name:<12} {path}")


def _print_warnings(report: dict[str, Any]) -> None:
    """The report's warnings, one line each on stderr (also with --json and -q: they are
    about what was released)."""
    from rich.markup import escape

    from veil.cli._ui import err_console

    for w in report.get("warnings") or []:
        err_console.print(
            f"[bold yellow]warning:[/] {escape(str(w.get('message', w.get('code'))))}",
            highlight=False,
            soft_wrap=True,
        )


def run(
    policy: Annotated[Path, typer.Argument(help="The policy YAML file.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (overrides the policy).")
    ] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the summary and outputs as JSON.")
    ] = False,
) -> None:
    """Apply a policy: write the released table, report.json and report.html."""
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    pol = load_policy(policy)
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        result = run_policy(pol, out_dir=out, progress=progress)
    if json_:
        print_json(
            {
                "summary": result.report.get("summary", {}),
                "outputs": {k: str(v) for k, v in result.outputs.items()},
                "seconds": round(result.seconds, 3),
            }
        )
    else:
        _summary_table(result.report, result.outputs)
    _print_warnings(result.report)


def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("out/demo"),
    rows: Annotated[
        int | None, typer.Option("--rows", help="Use only the first N rows of Adult.")
    ] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the summary and outputs as JSON.")
    ] = False,
) -> None:
    """Run the whole pipeline on UCI Adult with generated identifiers and notes."""
    from veil.demo import run_demo

    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        result = run_demo(out, rows=rows, progress=progress)
    outputs = {k: str(v) for k, v in result.outputs.items()}
    if json_:
        print_json(
            {
                "summary": result.report.get("summary", {}),
                "outputs": outputs,
                "seconds": round(result.seconds, 3),
            }
        )
    else:
        _summary_table(result.report, result.outputs)
    _print_warnings(result.report)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("demo")(demo)
