"""``veil dp query``: differentially private statistics, spent from the budget ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import console, print_json

__all__ = ["register"]

dp_app = typer.Typer(
    name="dp",
    help="Differentially private statistics on a table (OpenDP), spent from the ledger.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


@dp_app.command("query")
def query(
    data: Annotated[
        Path,
        typer.Argument(
            help="The table (csv, parquet, jsonl); with --engine ray also a folder or glob "
            "of partitions."
        ),
    ],
    queries: Annotated[
        list[str],
        typer.Option(
            "--query",
            "-q",
            help='A query, e.g. "mean(age, bounds=[17, 90], epsilon=0.5)" or a JSON object; '
            "repeat for several (answered together or not at all).",
        ),
    ],
    dataset: Annotated[
        str | None,
        typer.Option("--dataset", help="Ledger dataset to spend from (default: the file name)."),
    ] = None,
    ledger: Annotated[
        str | None,
        typer.Option("--ledger", help="SQLAlchemy URL of the ledger (default: user data dir)."),
    ] = None,
    epsilon: Annotated[
        float | None,
        typer.Option("--epsilon", help="Epsilon for queries that do not give one."),
    ] = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    no_fingerprint: Annotated[
        bool,
        typer.Option("--no-fingerprint", help="Do not check the data's content hash."),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Check queries and budget; compute and record nothing."),
    ] = False,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="'local' (this process, the default) or 'ray': each partition reduced to "
            "its exact aggregates by a Ray task, the noise drawn once here (counts, "
            "histograms, group-by counts with categories, integer sums).",
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="Ray cluster to run on (HOST:PORT or ray://HOST:PORT); without it, --engine "
            "ray starts a local Ray runtime and shuts it down at the end.",
        ),
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print JSON only.")] = False,
) -> None:
    """Answer DP queries on DATA. Exit code 3 when the budget would be exceeded."""
    from veil.cli._input import read_input, separator_value
    from veil.cli._text import _engine
    from veil.dp import BudgetLedger, dp_query_many, fingerprint_frame, parse_query

    specs = [parse_query(q, epsilon=epsilon) for q in queries]  # fail before reading data
    glob = any(c in str(data) for c in "*?[")
    name = dataset or (data.parent.name if glob else data.stem)
    if _engine(engine) == "ray":
        from veil.engine import expand_inputs, ray_session
        from veil.engine._dp import check_ray_queries, ray_dp_query_many

        check_ray_queries(specs)  # before Ray starts
        _kind, files = expand_inputs(data)
        with BudgetLedger(ledger) as led:
            with ray_session(ray_address) as ray:
                answers = ray_dp_query_many(
                    ray,
                    files,
                    specs,
                    ledger=led,
                    dataset=name,
                    fingerprint=not no_fingerprint,
                    dry_run=dry_run,
                    separator=separator_value(separator),
                    header=header,
                )
            left = led.remaining(name)
    else:
        if ray_address is not None:
            from veil._errors import InputError

            raise InputError(
                "--ray-address needs the Ray engine", hint="add --engine ray, or leave it out"
            )
        df = read_input(data, separator, header)
        fp = None if no_fingerprint else fingerprint_frame(df)
        with BudgetLedger(ledger) as led:
            answers = dp_query_many(
                df, specs, ledger=led, dataset=name, fingerprint=fp, dry_run=dry_run
            )
            left = led.remaining(name)
    out = {
        "dataset": name,
        "dry_run": dry_run,
        "answers": [a.as_dict() for a in answers],
        "spent": {
            "epsilon": sum(s.epsilon for s in specs),
            "delta": sum(s.delta for s in specs),
        },
        "remaining": {"epsilon": left[0], "delta": left[1]},
    }
    if json_:
        print_json(out)
        return
    if dry_run:
        console.print(
            f"dry run: {len(specs)} quer{'y' if len(specs) == 1 else 'ies'} fit the budget of "
            f"{name}; nothing computed or recorded",
            highlight=False,
        )
    for a in answers:
        console.print(f"[bold]{a.query}[/] = {_fmt(a.value)}", highlight=False)
        if a.interval is not None:
            console.print(
                f"  {a.confidence:.0%} interval {_fmt(a.interval)}  ({a.mechanism}, "
                f"epsilon={a.epsilon:g}" + (f", delta={a.delta:g}" if a.delta else "") + ")",
                highlight=False,
            )
        else:
            console.print(
                f"  {a.mechanism}, epsilon={a.epsilon:g}; {'; '.join(a.notes)}", highlight=False
            )
    console.print(
        f"remaining on {name}: epsilon={left[0]:.6g}, delta={left[1]:.3g}", highlight=False
    )


def register(app: typer.Typer) -> None:
    app.add_typer(dp_app, name="dp")
