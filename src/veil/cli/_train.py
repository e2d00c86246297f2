"""``veil train``: DP-SGD training of the built-in tabular classifier, with its baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, err_console, print_json, state

__all__ = ["register"]


def _print_human(summary: dict[str, Any], out: Path | None) -> None:
    from rich.table import Table

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.2f} %"

    table = Table(title="veil train (DP-SGD)", show_header=True, header_style="bold")
    table.add_column("measure")
    table.add_column("DP-SGD", justify="right")
    table.add_column("non-private baseline", justify="right")
    base = summary.get("baseline") or {}
    table.add_row("held-out accuracy", pct(summary["accuracy"]), pct(base.get("accuracy")))
    table.add_row(
        "seconds (training)",
        f"{summary['train_seconds']:.1f}",
        "-" if base.get("seconds") is None else f"{base['seconds']:.1f}",
    )
    table.add_row("epsilon spent", f"{summary['epsilon_spent']:.4f}", "not private")
    table.add_row("delta", f"{summary['delta']:g}", "")
    console.print(table)
    rdp = summary.get("rdp_noise_multiplier")
    saving = summary.get("noise_saving_vs_rdp")
    line = f"noise multiplier {summary['noise_multiplier']:.4f} ({summary['accountant']})"
    if rdp is not None and saving is not None:
        line += (
            f"; Opacus' default RDP calibration: {rdp:.4f} (PRV's is {100 * saving:.1f} % lower)"
        )
    console.print(line)
    per_epoch = ", ".join(f"{e['epsilon']:.2f}" for e in summary["epsilon_per_epoch"])
    console.print(f"epsilon after each epoch: {per_epoch}")
    if summary.get("module_fixes"):
        console.print("ModuleValidator.fix: " + "; ".join(summary["module_fixes"]))
    ledger = summary.get("ledger")
    if ledger:
        console.print(
            f"ledger: charged epsilon {ledger['epsilon_charged']:g}, delta "
            f"{ledger['delta_charged']:g} to {ledger['dataset']!r} (spend {ledger['spend_id']})"
        )
    else:
        console.print("ledger: not recorded (--no-ledger)")
    if out is not None:
        console.print(f"model written to {out}")
    console.print(
        "[dim]The model's category lists, classes and numeric scaling come from the data and "
        "are not covered by the DP guarantee; held-out accuracy is not private.[/]"
    )


def train(
    data: Annotated[Path, typer.Argument(help="The table to train on (CSV, Parquet, JSONL).")],
    target: Annotated[str, typer.Option("--target", help="The column to predict.")],
    epsilon: Annotated[float, typer.Option("--epsilon", help="Target epsilon of the run.")],
    delta: Annotated[float, typer.Option("--delta", help="Target delta; below 1/n.")] = 1e-5,
    epochs: Annotated[int, typer.Option("--epochs", help="Planned epochs.")] = 30,
    batch_size: Annotated[
        int | None,
        typer.Option("--batch-size", help="Expected batch size (default: n/6, at most 4096)."),
    ] = None,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam learning rate.")] = 5e-3,
    max_grad_norm: Annotated[
        float, typer.Option("--max-grad-norm", help="Per-sample clipping norm.")
    ] = 1.0,
    accountant: Annotated[str, typer.Option("--accountant", help="prv (default) or rdp.")] = "prv",
    grad_sample_mode: Annotated[
        str, typer.Option("--grad-sample-mode", help="auto, fused, ghost or hooks.")
    ] = "auto",
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="A column not to learn from (repeatable).")
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option("--policy", help="A policy: drops identifier/text columns, uses dtypes."),
    ] = None,
    test_fraction: Annotated[
        float, typer.Option("--test-fraction", help="Share of rows held out for accuracy.")
    ] = 0.2,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Split and initialization (never the noise).")
    ] = 0,
    threads: Annotated[
        int,
        typer.Option(
            "--threads",
            min=0,
            help="torch CPU threads (default 1: the built-in model is small; 0: torch's choice).",
        ),
    ] = 1,
    ledger_url: Annotated[
        str | None, typer.Option("--ledger", help="Ledger URL (default: the local SQLite file).")
    ] = None,
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Dataset name whose budget pays for the run.")
    ] = None,
    no_ledger: Annotated[
        bool, typer.Option("--no-ledger", help="Train without recording the spend anywhere.")
    ] = False,
    baseline: Annotated[
        bool, typer.Option("--baseline/--no-baseline", help="Also train without DP.")
    ] = True,
    baseline_only: Annotated[
        bool,
        typer.Option(
            "--baseline-only",
            help="Train only the non-private baseline (no model written, no budget spent).",
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the DP model here.")
    ] = None,
    checkpoint: Annotated[
        Path | None, typer.Option("--checkpoint", help="Checkpoint file, updated every epoch.")
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Train a classifier with DP-SGD to (epsilon, delta) and compare it with non-private training.

    The run is paid for in the privacy-budget ledger before the first step: pass
    --dataset NAME (created with `veil budget init NAME`), or --no-ledger to train without
    recording the spend.
    """
    from veil._errors import InputError

    if baseline_only:
        if out is not None or checkpoint is not None:
            raise InputError(
                "--baseline-only trains without DP: its model is never written",
                hint="drop --out/--checkpoint, or drop --baseline-only to train with DP",
            )
        no_ledger, dataset, ledger_url = True, None, None
    from veil.cli._budget import check_ledger_choice

    check_ledger_choice(dataset, ledger_url, no_ledger, paying="run", verb="train")
    if out is not None and out.is_dir():
        raise InputError(f"--out is a folder: {out}", hint="give a file name, e.g. model.pt")

    from veil.cli._input import read_input
    from veil.train import DPTrainConfig, check_budget, train_tabular, train_tabular_baseline

    frame = read_input(data, separator, header)
    pol = None
    if policy is not None:
        from veil.policy import load_policy

        pol = load_policy(policy)
    n_rows = int(frame[target].notna().sum()) if target in frame.columns else len(frame)
    n_train = n_rows - round(n_rows * test_fraction) if 0 <= test_fraction < 1 else n_rows
    # Validate the target before touching the ledger or torch.
    check_budget(epsilon, delta, max(n_train, 0))
    bs = batch_size if batch_size is not None else max(1, min(4096, n_train // 6))
    config = DPTrainConfig(
        epsilon=epsilon,
        delta=delta,
        epochs=epochs,
        batch_size=bs,
        learning_rate=learning_rate,
        max_grad_norm=max_grad_norm,
        accountant=accountant,
        grad_sample_mode=grad_sample_mode,
    )
    if threads:
        import torch

        torch.set_num_threads(threads)
    # what the DP run and its non-private baseline share: the same split, model and optimizer
    common: dict[str, Any] = {
        "config": config,
        "drop": drop or (),
        "policy": pol,
        "test_fraction": test_fraction,
        "seed": seed,
    }
    if baseline_only:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            result = train_tabular_baseline(frame, target, progress=progress, **common)
        result["batch_size"] = bs
        if json_:
            print_json(result)
        else:
            acc = result["baseline"]["accuracy"]
            console.print(
                f"non-private baseline: held-out accuracy "
                f"{'-' if acc is None else f'{100 * acc:.2f} %'}, "
                f"{result['baseline']['seconds']:.1f} s training; no model written, "
                "no budget spent"
            )
        return
    ledger = None
    fingerprint = None
    if not no_ledger:
        from veil.dp import BudgetLedger, fingerprint_frame

        ledger = BudgetLedger(ledger_url)
        # Refused by the ledger when the budget was created for other data.
        fingerprint = fingerprint_frame(frame)
    try:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            report = train_tabular(
                frame,
                target,
                **common,
                baseline=baseline,
                ledger=ledger,
                dataset_name=dataset,
                fingerprint=fingerprint,
                checkpoint_path=checkpoint,
                progress=progress,
            )
        if out is not None:
            report.classifier.save(out)
    finally:
        if ledger is not None:
            ledger.close()
    summary = report.summary()
    summary["model"] = str(out) if out is not None else None
    summary["batch_size"] = bs
    if json_:
        print_json(summary)
    else:
        _print_human(summary, out)
        if report.dp.stopped_early:
            err_console.print("[yellow]training stopped early to stay within the budget[/]")


def register(app: typer.Typer) -> None:
    app.command("train")(train)
