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
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="'local' (this process) or 'ray' (tasks over the partitions of a file, "
            "folder or glob of CSV/Parquet/JSONL files; the search runs here on their "
            "aggregate). Default: the policy's engine.type, else local.",
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="Ray cluster to run on (HOST:PORT or ray://HOST:PORT; overrides the "
            "policy's engine.address); without one, --engine ray starts a local Ray runtime "
            "and shuts it down at the end.",
        ),
    ] = None,
) -> None:
    """Apply a policy: write the released table, report.json and report.html."""
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    pol = load_policy(policy)
    which, address, num_cpus = _engine_choice(pol, engine, ray_address)
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        if which == "ray":
            from veil.engine import ray_run_policy, ray_session
            from veil.engine._tables import check_ray_policy

            check_ray_policy(pol)  # before Ray starts: seconds
            with ray_session(address, num_cpus=num_cpus) as ray:
                result = ray_run_policy(
                    ray,
                    pol,
                    out_dir=out,
                    progress=progress,
                    engine={"address": address, "num_cpus": num_cpus},
                )
        else:
            _one_file(pol)
            result = run_policy(pol, out_dir=out, progress=progress)
    if json_:
        print_json(
            {
                "summary": result.report.get("summary", {}),
                "outputs": {k: str(v) for k, v in result.outputs.items()},
                "seconds": round(result.seconds, 3),
                "engine": which,
            }
        )
    else:
        _summary_table(result.report, result.outputs)
    _print_warnings(result.report)
    skipped = (result.report.get("engine") or {}).get("not_run")
    if skipped and not state.quiet:
        from veil.cli._ui import err_console

        err_console.print(
            f"note: not run on the Ray engine yet: {', '.join(skipped)} (report.json: engine)",
            highlight=False,
        )


def _one_file(policy: Any) -> None:
    """The local engine reads one file: a folder or glob of partitions is Ray's input."""
    from veil._errors import InputError

    if policy.data.path is None:
        return
    path = policy.resolve(policy.data.path)
    if path.is_dir() or (not path.exists() and any(ch in str(path) for ch in "*?[")):
        raise InputError(
            f"data.path {policy.data.path} is a folder or a pattern: the local engine reads "
            "one file",
            hint="run it with --engine ray (a local Ray runtime without --ray-address), or "
            "point data.path at one file",
        )


def _engine_choice(
    policy: Any, engine: str | None, ray_address: str | None
) -> tuple[str, str | None, int | None]:
    """(engine, address, num_cpus): the command line's, else the policy's ``engine:``."""
    from veil._errors import InputError
    from veil.engine._runtime import ENGINES

    if engine is not None and engine not in ENGINES:
        raise InputError(f"--engine must be one of {', '.join(ENGINES)}, got an unknown name")
    cfg = policy.engine
    which = engine or cfg.type
    if which != "ray":
        if ray_address is not None:
            raise InputError(
                "--ray-address needs the Ray engine", hint="add --engine ray, or leave it out"
            )
        return which, None, None
    address = ray_address or cfg.address
    return which, address, cfg.num_cpus if address is None else None


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
