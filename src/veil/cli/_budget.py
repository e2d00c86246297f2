"""``veil budget``: the persistent privacy-budget ledger (init, show, history, spend, release)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import console, print_json

__all__ = ["register"]

budget_app = typer.Typer(
    name="budget",
    help="Track and enforce a dataset's differential-privacy budget across runs and people.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

LedgerOpt = Annotated[
    str | None,
    typer.Option(
        "--ledger",
        help="SQLAlchemy URL of the ledger (default: $VEIL_LEDGER_URL, else a SQLite file "
        "under the user data directory).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON only.")]
DatasetArg = Annotated[str, typer.Argument(help="Dataset name.")]


def check_ledger_choice(
    dataset: str | None, ledger_url: str | None, no_ledger: bool, *, paying: str, verb: str
) -> None:
    """Refuse a DP command's contradictory or missing say in who pays: --no-ledger with
    --dataset/--ledger, or neither --dataset nor --no-ledger (``paying``: "run", "fit";
    ``verb``: what the command does without recording the spend, "run", "train")."""
    from veil._errors import InputError

    if no_ledger and (dataset is not None or ledger_url is not None):
        raise InputError("--no-ledger contradicts --dataset/--ledger", hint="pass one or the other")
    if not no_ledger and dataset is None:
        raise InputError(
            f"say which dataset's privacy budget pays for this {paying}",
            hint="pass --dataset NAME (create it with: veil budget init NAME --epsilon E "
            f"--delta D), or --no-ledger to {verb} without recording the spend",
        )


def _ledger(url: str | None) -> Any:
    from veil.dp import BudgetLedger

    return BudgetLedger(url)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


@budget_app.command("init")
def init(
    dataset: DatasetArg,
    epsilon: Annotated[float, typer.Option("--epsilon", help="Total epsilon (> 0).")],
    delta: Annotated[float, typer.Option("--delta", help="Total delta, in [0, 1).")] = 0.0,
    composition: Annotated[
        str,
        typer.Option("--composition", help="How spends compose: basic, rdp or prv (enforced)."),
    ] = "basic",
    fingerprint: Annotated[
        str | None, typer.Option("--fingerprint", help="Content hash of the data.")
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="Compute the fingerprint from this table (csv, parquet)."),
    ] = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    ledger: LedgerOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Give DATASET a total privacy budget. Budgets are never reset."""
    if data is not None:
        from veil.cli._input import read_input
        from veil.dp import fingerprint_frame

        fingerprint = fingerprint_frame(read_input(data, separator, header))
    with _ledger(ledger) as led:
        led.init(
            dataset, epsilon=epsilon, delta=delta, composition=composition, fingerprint=fingerprint
        )
        status = led.status(dataset)
    if json_:
        print_json(status.as_dict())
    else:
        console.print(
            f"budget for {dataset}: epsilon={_fmt(epsilon)}, delta={delta:g} "
            f"({composition} composition) in {led!r}",
            highlight=False,
            soft_wrap=True,
        )


@budget_app.command("list")
def list_(ledger: LedgerOpt = None, json_: JsonOpt = False) -> None:
    """List the datasets that have a budget in the ledger."""
    with _ledger(ledger) as led:
        names = led.datasets()
        statuses = [led.status(n) for n in names]
    if json_:
        print_json([s.as_dict() for s in statuses])
        return
    if not statuses:
        console.print(f"no budgets in {led!r}", highlight=False, soft_wrap=True)
    for s in statuses:
        left = s.remaining
        console.print(
            f"{s.dataset}: epsilon {_fmt(left[0])} of {_fmt(s.epsilon_total)} left, "
            f"{s.n_spends} spend(s), {s.composition} composition",
            highlight=False,
        )


@budget_app.command("show")
def show(dataset: DatasetArg, ledger: LedgerOpt = None, json_: JsonOpt = False) -> None:
    """Show DATASET's budget, what is spent under each composition, and what is left."""
    with _ledger(ledger) as led:
        status = led.status(dataset)
    if json_:
        print_json(status.as_dict())
        return
    from rich.table import Table

    table = Table(title=f"privacy budget: {dataset}", header_style="bold")
    table.add_column("")
    table.add_column("epsilon", justify="right")
    table.add_column("delta", justify="right")
    table.add_row("total", _fmt(status.epsilon_total), f"{status.delta_total:.3g}")
    for name, c in status.spent.items():
        mark = " (enforced)" if name == status.composition else ""
        table.add_row(f"spent, {name}{mark}", _fmt(c.epsilon), f"{c.delta:.3g}")
    eps_left, delta_left = status.remaining
    table.add_row("remaining", _fmt(eps_left), f"{delta_left:.3g}")
    console.print(table)
    console.print(
        f"{status.n_spends} spend(s), {status.n_reserved} reserved (not yet committed)",
        highlight=False,
    )


@budget_app.command("history")
def history(dataset: DatasetArg, ledger: LedgerOpt = None, json_: JsonOpt = False) -> None:
    """List every spend on DATASET, oldest first."""
    with _ledger(ledger) as led:
        entries = led.history(dataset)
    if json_:
        print_json([e.as_dict() for e in entries])
        return
    from rich.table import Table

    table = Table(title=f"spends on {dataset}", header_style="bold")
    for col in ("#", "when (UTC)", "who", "mechanism", "epsilon", "delta", "status", "what"):
        table.add_column(col, justify="right" if col in ("#", "epsilon", "delta") else "left")
    for e in entries:
        when = e.created_at.strftime("%Y-%m-%d %H:%M:%S") if e.created_at else ""
        table.add_row(
            str(e.seq),
            when,
            e.who,
            e.mechanism + (" +curve" if e.curve else ""),
            _fmt(e.epsilon),
            f"{e.delta:.3g}",
            e.status,
            e.what,
        )
    console.print(table)


@budget_app.command("spend")
def spend(
    dataset: DatasetArg,
    epsilon: Annotated[float, typer.Option("--epsilon", help="Epsilon of the release.")],
    what: Annotated[str, typer.Option("--what", help="What was released.")],
    delta: Annotated[float, typer.Option("--delta", help="Delta of the release.")] = 0.0,
    mechanism: Annotated[str, typer.Option("--mechanism", help="Mechanism name.")] = "external",
    who: Annotated[str | None, typer.Option("--who", help="Who released it.")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check the budget; record nothing.")
    ] = False,
    ledger: LedgerOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Record a release made outside veil. Exit code 3 when it would exceed the budget."""
    with _ledger(ledger) as led:
        entry = led.spend(
            dataset,
            epsilon=epsilon,
            delta=delta,
            what=what,
            mechanism=mechanism,
            who=who,
            dry_run=dry_run,
        )
        left = led.remaining(dataset)
    if json_:
        print_json(
            {
                "spend": entry.as_dict(),
                "dry_run": dry_run,
                "remaining": {"epsilon": left[0], "delta": left[1]},
            }
        )
        return
    verb = "would spend (dry run, nothing recorded)" if dry_run else "spent"
    console.print(
        f"{verb} epsilon={_fmt(epsilon)}, delta={delta:g} on {dataset}; "
        f"remaining epsilon={_fmt(left[0])}, delta={left[1]:.3g}",
        highlight=False,
    )


@budget_app.command("release")
def release(
    dataset: DatasetArg,
    spend_id: Annotated[str, typer.Argument(help="Id of a reserved spend (see history --json).")],
    ledger: LedgerOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Remove a reservation left by a process that died before its result was released."""
    with _ledger(ledger) as led:
        entry = led.release(dataset, spend_id)
    if json_:
        print_json({"released": entry.as_dict()})
    else:
        console.print(f"released reservation {entry.id} on {dataset}", highlight=False)


def register(app: typer.Typer) -> None:
    """Register ``veil budget`` and ``veil dp`` (one line in ``_COMMAND_MODULES`` for both)."""
    from veil.cli import _dp

    app.add_typer(budget_app, name="budget")
    _dp.register(app)
