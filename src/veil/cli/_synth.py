"""``veil synth fit | sample | evaluate``: synthetic tables from the command line."""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, err_console, print_json, state

__all__ = ["register"]

synth_app = typer.Typer(
    name="synth",
    help="Fit synthesizers, sample synthetic tables and evaluate them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _peak_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def _read(path: Path, sep: str | None, header: bool | None = None) -> Any:
    from veil.cli._input import read_input

    return read_input(path, sep, header)


def _constraints(texts: list[str], files: list[Path]) -> list[Any]:
    from veil._errors import InputError
    from veil.synth._constraints import constraint_from_dict, parse_constraint

    out = [parse_constraint(t) for t in texts]
    for f in files:
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(
                f"cannot read the constraints file {f} ({type(exc).__name__})"
            ) from None
        items = doc if isinstance(doc, list) else doc.get("constraints", [])
        out.extend(constraint_from_dict(d) for d in items)
    return out


def _domain_options(
    bounds: list[str], categories: list[str], public_domain: Path | None, df: Any
) -> tuple[dict[str, tuple[float, float]], dict[str, list[Any]]]:
    """``--bounds COL=LO:HI``, ``--categories COL=FILE`` and ``--public-domain FILE``."""
    from veil._errors import InputError
    from veil.synth._domain import read_public_domain

    out_b: dict[str, tuple[float, float]] = {}
    out_c: dict[str, list[Any]] = {}
    if public_domain is not None:
        out_b, out_c = read_public_domain(public_domain)
    for text in bounds:
        name, sep, rng = text.rpartition("=")
        lo, colon, hi = rng.partition(":")
        try:
            if not (sep and colon and name):
                raise ValueError
            out_b[name] = (float(lo), float(hi))
        except ValueError:
            raise InputError(
                f"--bounds {text!r}: expected COL=LOW:HIGH with two numbers",
                hint="e.g. --bounds age=0:120",
            ) from None
    for text in categories:
        name, sep, file = text.partition("=")
        if not (sep and name and file):
            raise InputError(
                f"--categories {text!r}: expected COL=FILE", hint="e.g. --categories sex=sex.txt"
            )
        try:
            lines = Path(file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"--categories: cannot read the category file {file} ({type(exc).__name__})"
            ) from None
        out_c[name] = [line.strip() for line in lines if line.strip()]
    unknown = sorted({*out_b, *out_c} - {str(c) for c in df.columns})
    if unknown:
        raise InputError(
            f"the declared domain names column(s) not in the data: {', '.join(unknown)}"
        )
    for name, cats in out_c.items():  # a numeric column's categories are numbers
        if df[name].dtype.kind in "iuf":
            try:
                out_c[name] = [float(v) if df[name].dtype.kind == "f" else int(v) for v in cats]
            except (TypeError, ValueError):
                raise InputError(
                    f"--categories {name}: the column is numeric but the file lists non-numbers"
                ) from None
    return out_b, out_c


def fit(
    data: Annotated[Path, typer.Argument(help="Training table (csv, parquet, jsonl).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Model file to write.")],
    method: Annotated[
        str, typer.Option("--method", "-m", help="copula, mst, aim or tvae.")
    ] = "aim",
    epsilon: Annotated[
        float | None, typer.Option("--epsilon", help="DP budget (mst, aim; tvae: DP-SGD).")
    ] = None,
    delta: Annotated[
        float | None, typer.Option("--delta", help="DP delta (default 1e-9; tvae 1e-6).")
    ] = None,
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Ledger dataset to charge.")
    ] = None,
    ledger: Annotated[
        str | None, typer.Option("--ledger", help="Ledger URL (default: local SQLite).")
    ] = None,
    no_ledger: Annotated[
        bool, typer.Option("--no-ledger", help="Skip budget accounting on purpose.")
    ] = False,
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="Column to leave out (repeatable).")
    ] = None,
    categorical: Annotated[
        list[str] | None,
        typer.Option("--categorical", help="Declare a column categorical (repeatable)."),
    ] = None,
    constraint: Annotated[
        list[str] | None,
        typer.Option("--constraint", help="'a <= b' or 'lo <= col <= hi' (repeatable)."),
    ] = None,
    constraints_file: Annotated[
        list[Path] | None, typer.Option("--constraints", help="JSON file of constraints.")
    ] = None,
    bounds: Annotated[
        list[str] | None,
        typer.Option("--bounds", help="Public bounds of a numeric column: COL=LO:HI (repeatable)."),
    ] = None,
    categories: Annotated[
        list[str] | None,
        typer.Option("--categories", help="Public categories of a column: COL=FILE, one per line."),
    ] = None,
    public_domain: Annotated[
        Path | None,
        typer.Option(
            "--public-domain",
            help="JSON/YAML file {bounds: {COL: [LO, HI]}, categories: {COL: [...]}}.",
        ),
    ] = None,
    domain_from_data: Annotated[
        bool,
        typer.Option(
            "--domain-from-data",
            help="mst/aim: read undeclared bounds and categories from the data, outside DP.",
        ),
    ] = False,
    epochs: Annotated[int | None, typer.Option("--epochs", help="tvae training epochs.")] = None,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            help="mst/aim: a column to be predicted; its pairs with every column are measured.",
        ),
    ] = None,
    triples: Annotated[
        bool,
        typer.Option(
            "--triples",
            help="mst/aim with --target: also measure the target with two other columns at "
            "once, on coarse groups (same budget; see docs/synthetic-data.md).",
        ),
    ] = False,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the ordinary randomness.")
    ] = None,
    sep: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the fit summary as JSON.")] = False,
) -> None:
    """Fit a synthesizer and save it; prints the CPU seconds and peak memory used."""
    from veil._errors import InputError
    from veil.synth import synthesizers

    cls = synthesizers.get(method)
    df = _read(data, sep, header)
    if drop:
        unknown = [c for c in drop if c not in df.columns]
        if unknown:
            raise InputError(f"--drop names column(s) not in the data: {', '.join(unknown)}")
        df = df.drop(columns=drop)
    kw: dict[str, Any] = {
        "seed": seed,
        "constraints": _constraints(constraint or [], constraints_file or []),
    }
    if method in ("mst", "aim") or (method == "tvae" and epsilon is not None):
        if epsilon is None:
            raise InputError(f"the {method} synthesizer needs --epsilon")
        kw.update(epsilon=epsilon)
        if delta is not None:
            kw["delta"] = delta
        if domain_from_data:
            if method not in ("mst", "aim"):
                raise InputError("--domain-from-data applies to the mst and aim methods only")
            kw["domain_from_data"] = True
        if no_ledger:
            kw["account"] = False
        else:
            if dataset is None:
                raise InputError(
                    "a DP fit is charged to the privacy-budget ledger: give --dataset NAME",
                    hint="or --no-ledger to skip accounting on purpose",
                )
            from veil.dp import BudgetLedger  # type: ignore[attr-defined]

            kw.update(ledger=BudgetLedger(url=ledger), dataset=dataset)
    elif epsilon is not None:
        raise InputError(f"the {method} synthesizer is not differentially private; drop --epsilon")
    elif domain_from_data:
        raise InputError(
            f"--domain-from-data applies to the mst and aim methods only; {method} without "
            "--epsilon is not differentially private and reads everything from the data"
        )
    dom_bounds, dom_categories = _domain_options(bounds or [], categories or [], public_domain, df)
    if epochs is not None:
        if method != "tvae":
            raise InputError("--epochs applies to the tvae method only")
        kw["epochs"] = epochs
    if target is not None:
        if method not in ("mst", "aim"):
            raise InputError("--target applies to the mst and aim methods only")
        if target not in df.columns:
            raise InputError(
                f"--target names a column not in the data: {target}",
                hint="give one of the table's column names (after --drop)",
            )
        kw["target"] = target
    if triples:  # without --target the synthesizer refuses it (_check_triples)
        if method not in ("mst", "aim"):
            raise InputError("--triples applies to the mst and aim methods only")
        kw["triples"] = True
    # columns whose numeric parse rewrites their text ("01", "3.50") are learnt as written
    from veil.io._exact import read_exact_text_file, text_forms_for_synthesis

    df, formats = text_forms_for_synthesis(
        df, read_exact_text_file(data, df, separator=sep), as_categories="epsilon" not in kw
    )
    cpu0, wall0 = time.process_time(), time.perf_counter()
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        syn = cls(**kw).fit(
            df,
            declared={c: "categorical" for c in categorical or []},
            bounds=dom_bounds,
            categories=dom_categories,
            progress=progress,
        )
        if formats:  # saved with the model: `veil synth sample` writes values as the input did
            syn.fit_info_["text_formats"] = {c: list(f) for c, f in formats.items()}
        syn.save(out)
    summary = {
        "method": method,
        "model": str(out),
        "rows": len(df),
        "columns": df.shape[1],
        "cpu_seconds": round(time.process_time() - cpu0, 2),
        "wall_seconds": round(time.perf_counter() - wall0, 2),
        "peak_memory_mb": _peak_mb(),
        "fit": syn.fit_info_,
    }
    if json_:
        print_json(summary)
        return
    console.print(
        f"fitted {method} on {len(df)} rows x {df.shape[1]} columns: "
        f"{summary['cpu_seconds']} CPU s, peak memory {summary['peak_memory_mb']} MiB -> {out}"
    )
    info = syn.fit_info_
    statement = info.get("privacy_statement") or ""
    if info.get("differential_privacy"):
        console.print(f"  {statement}; unit: {info.get('unit')}")
        if info.get("domain_from_data"):
            err_console.print(
                "  warning: the domain of column(s) "
                f"{', '.join(info['domain_from_data'])} was read from the data without DP"
            )
    else:
        err_console.print(f"  warning: {method} is {statement}")
    for note in info.get("notes", []):
        err_console.print(f"  note: {note}")


def sample(
    model: Annotated[Path, typer.Argument(help="Model file written by 'veil synth fit'.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Table to write (csv, parquet, jsonl).")],
    n: Annotated[int, typer.Option("-n", "--rows", help="Number of rows.", min=0)] = 1000,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed of the draw.")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print a summary as JSON.")] = False,
) -> None:
    """Draw rows from a saved synthesizer and write them atomically."""
    from veil.io import write_table
    from veil.synth import load_synthesizer

    cpu0 = time.process_time()
    syn = load_synthesizer(model)
    from veil.io._exact import format_like_input

    formats = syn.fit_info_.get("text_formats") or {}
    df = format_like_input(
        syn.sample(n, seed=seed), {c: (f[0], int(f[1])) for c, f in formats.items()}
    )
    write_table(df, out)
    info = syn.fit_info_
    summary = {
        "model": str(model),
        "method": syn.name,
        "rows": len(df),
        "out": str(out),
        "cpu_seconds": round(time.process_time() - cpu0, 2),
        "differential_privacy": bool(info.get("differential_privacy")),
        "privacy_statement": info.get("privacy_statement"),
    }
    if json_:
        print_json(summary)
    else:
        console.print(f"wrote {len(df)} synthetic rows ({syn.name}) to {out}")
        if summary["privacy_statement"]:
            stream = console if summary["differential_privacy"] else err_console
            stream.print(f"  {syn.name}: {summary['privacy_statement']}")


def evaluate(
    real: Annotated[Path, typer.Argument(help="The real training table.")],
    synth: Annotated[Path, typer.Argument(help="The synthetic table.")],
    holdout: Annotated[
        Path | None, typer.Option("--holdout", help="Real rows NOT used for fitting.")
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="Column for ML efficacy (AUC).")
    ] = None,
    max_rows: Annotated[
        int, typer.Option("--max-rows", help="Rows per side in distance measures.")
    ] = 2000,
    sep: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the full evaluation as JSON.")
    ] = False,
) -> None:
    """Quality, ML efficacy (train on synthetic, test on holdout) and privacy measures."""
    from veil.synth._evaluate import evaluate as run_evaluation

    r = _read(real, sep, header)
    s = _read(synth, sep, header)
    h = _read(holdout, sep, header) if holdout is not None else None
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        result = run_evaluation(r, s, h, target=target, max_rows=max_rows, progress=progress)
    if json_:
        print_json(result)
        return
    from rich.table import Table

    table = Table(title="synthetic data evaluation", header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    q = result["quality"]

    def _row(label: str, key: str) -> None:
        table.add_row(label, "n/a" if q.get(key) is None else f"{q[key]:.4f}")

    _row("quality, every pair scored", "score_all_pairs")
    worst_col, worst_pair = q.get("worst_column"), q.get("worst_pair")
    if worst_col:
        why = f" ({worst_col['reason']})" if worst_col.get("reason") else ""
        table.add_row(f"worst column: {worst_col['column']}{why}", f"{worst_col['score']:.4f}")
    if worst_pair:
        table.add_row(
            f"worst pair: {' x '.join(worst_pair['columns'])}", f"{worst_pair['score']:.4f}"
        )
    _row("quality column shapes", "column_shapes")
    _row("quality every pair (mean)", "all_pairs")
    _row("quality, sdmetrics definition (peer)", "score")
    _row("quality sdmetrics pair trends", "column_pair_trends")
    table.add_row(
        "pairs scored (sdmetrics / all)", f"{q.get('pairs_scored')} / {q.get('pairs_total')}"
    )
    for section in ("ml_efficacy", "privacy"):
        for key, value in result.get(section, {}).items():
            if isinstance(value, float):
                table.add_row(
                    f"{section.replace('_', ' ')} {key.replace('_', ' ')}", f"{value:.4f}"
                )
    console.print(table)


def register(app: typer.Typer) -> None:
    synth_app.command("fit")(fit)
    synth_app.command("sample")(sample)
    synth_app.command("evaluate")(evaluate)
    app.add_typer(synth_app, name="synth")
