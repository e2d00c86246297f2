"""``veil policy check|schema|init``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import console, print_json

__all__ = ["register"]

policy_app = typer.Typer(help="Check, describe and draft policies.", no_args_is_help=True)


@policy_app.command("check")
def check(
    policy: Annotated[Path, typer.Argument(help="The policy YAML file.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Validate a policy file; errors name the line and key."""
    from veil.pipeline import plan
    from veil.policy import load_policy

    pol = load_policy(policy)
    stages = [s.name for s in plan(pol)]
    summary = {
        "valid": True,
        "policy": str(policy),
        "columns": len(pol.columns),
        "quasi_identifiers": pol.quasi_identifiers,
        "sensitive": pol.sensitive,
        "text": pol.text_columns,
        "stages": stages,
    }
    if json_:
        print_json(summary)
    else:
        console.print(
            f"[green]ok[/] {policy}: {len(pol.columns)} columns, stages: {', '.join(stages)}"
        )


@policy_app.command("schema")
def schema() -> None:
    """Print the policy's JSON Schema (for editor completion)."""
    from veil.policy import policy_schema

    typer.echo(policy_schema())


@policy_app.command("init")
def init(
    data: Annotated[Path, typer.Argument(help="A CSV, Parquet or JSONL table.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the draft here.")] = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the guesses as JSON.")] = False,
    hierarchies: Annotated[
        Path | None,
        typer.Option(
            "--hierarchies",
            help="A folder of ARX hierarchy files (*_hierarchy_<COLUMN>.csv) to attach.",
        ),
    ] = None,
) -> None:
    """Draft a policy from a table: column types and a guess at roles, to review."""
    from veil.cli._input import separator_value
    from veil.io import infer_format, read_table, write_text_atomic
    from veil.io._sniff import sniff_separator
    from veil.policy._draft import draft_policy, hierarchy_paths, policy_relative

    sep = separator_value(separator)
    if sep is None and data.is_file() and infer_format(data) == "csv":
        sep = sniff_separator(data)  # the draft records it, so 'veil run' reads it the same
    df = read_table(data, separator=sep, header=header)
    files = (
        hierarchy_paths(hierarchies, [str(c) for c in df.columns], data=data, out=out)
        if hierarchies is not None
        else None
    )
    text, guesses = draft_policy(
        df,
        data_path=Path(policy_relative(data, out)),  # as the policy loader resolves it
        separator=sep or ",",
        header=header,
        hierarchies=files,
    )
    if out is not None:
        if out.exists():
            from veil._errors import InputError

            raise InputError(f"{out} already exists", hint="choose another --out or remove it")
        write_text_atomic(out, text)
    if json_:
        print_json({"columns": guesses, "out": str(out) if out else None})
    elif out is None:
        typer.echo(text)
    else:
        console.print(f"wrote a draft policy to {out}: review every role before using it")


def register(app: typer.Typer) -> None:
    app.add_typer(policy_app, name="policy")
