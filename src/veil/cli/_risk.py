"""``veil risk``: anonymity levels and re-identification risk of any table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
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
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
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
    external: Annotated[
        Path | None,
        typer.Option(
            "--external",
            help="Run a linkage attack with this table of known people (QIs in the release's "
            "domain, and the true sensitive value to score inference).",
        ),
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the measurements as JSON.")] = False,
) -> None:
    """Measure k, l, t (and more) and re-identification risk of a table.

    Prints no data value: only counts, shares and column names.
    """
    from veil.cli._input import read_input
    from veil.risk import assess

    df = read_input(data, separator, header)
    pop = read_input(population, separator, header) if population is not None else None
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
    out = result.to_dict()
    if external is not None:
        from veil.risk import linkage_attack

        ext = read_input(external, separator, header)
        on = [q for q in _names(qi) if q in ext.columns]
        sens = next((s for s in _names(sensitive) if s in ext.columns), None)
        if not on:
            from veil._errors import SchemaError

            raise SchemaError(
                "the external table shares no quasi-identifier with --qi",
                hint="give the external table the same column names",
            )
        out["linkage"] = linkage_attack(
            df, ext, on=on, sensitive=sens, suppressed=result.classes.class_of_row < 0
        )
    if json_:
        print_json(out)
    else:
        console.print(result)
        if "linkage" in out:
            lk = out["linkage"]
            console.print(
                f"linkage on {', '.join(lk['on'])}: matched {lk['matched']:.1%}, "
                f"re-identified {lk['reidentified']:.1%}"
                + (f", sensitive value inferred {lk['inferred']:.1%}" if "inferred" in lk else "")
            )


def register(app: typer.Typer) -> None:
    app.command("risk")(risk)
