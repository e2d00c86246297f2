"""``veil risk``: anonymity levels and re-identification risk of any table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veil.cli._ui import console, print_json

__all__ = ["register"]


def _names(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def risk(
    data: Annotated[Path, typer.Argument(help="The table to measure (CSV, Parquet, JSONL).")],
    qi: Annotated[str, typer.Option("--qi", help="Quasi-identifiers, comma-separated.")],
    sensitive: Annotated[
        str | None, typer.Option("--sensitive", help="Sensitive attributes, comma-separated.")
    ] = None,
    suppressed_marker: Annotated[
        str | None,
        typer.Option(
            "--suppressed-marker",
            help="A row whose every quasi-identifier equals this is suppressed and left out "
            "of the classes (ARX writes '*').",
        ),
    ] = None,
    separator: Annotated[str, typer.Option("--separator", help="CSV separator.")] = ",",
    threshold: Annotated[
        float, typer.Option("--threshold", help="Risk above which a record is at risk.")
    ] = 0.2,
    population: Annotated[
        Path | None,
        typer.Option(
            "--population", help="Population table (same QIs, released domain) for journalist risk."
        ),
    ] = None,
    sampling_fraction: Annotated[
        float | None,
        typer.Option("--sampling-fraction", help="Share of the population the table covers."),
    ] = None,
    population_size: Annotated[
        int | None, typer.Option("--population-size", help="Size of the population.")
    ] = None,
    recursive_l: Annotated[
        int | None, typer.Option("--recursive-l", help="l of recursive (c,l)-diversity.")
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the measurements as JSON.")] = False,
) -> None:
    """Measure k, l, t (and more) and re-identification risk of a table.

    Prints no data value: only counts, shares and column names.
    """
    from veil.io import read_table
    from veil.risk import assess

    df = read_table(data, separator=separator)
    pop = read_table(population, separator=separator) if population is not None else None
    result = assess(
        df,
        _names(qi),
        _names(sensitive),
        marker=suppressed_marker,
        threshold=threshold,
        population=pop,
        sampling_fraction=sampling_fraction,
        population_size=population_size,
        recursive_l=recursive_l,
    )
    if json_:
        print_json(result.to_dict())
    else:
        console.print(result)


def register(app: typer.Typer) -> None:
    app.command("risk")(risk)
