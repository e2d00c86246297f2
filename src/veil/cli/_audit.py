"""``veil audit mia`` and ``veil audit dp``: privacy audits of models trained on a table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, err_console, print_json, state

__all__ = ["audit_app", "register"]

audit_app = typer.Typer(
    help="Audit models for privacy: membership inference, and empirical DP lower bounds.",
    no_args_is_help=True,
)

DataArg = Annotated[
    Path, typer.Argument(help="The table to train on (CSV, Parquet, JSONL).", show_default=False)
]
TargetOpt = Annotated[str, typer.Option("--target", help="The column the model predicts.")]
EpsilonOpt = Annotated[
    float | None,
    typer.Option("--epsilon", help="Train with DP-SGD at this epsilon (default: without DP)."),
]
DeltaOpt = Annotated[float, typer.Option("--delta", help="DP-SGD's delta; below 1/n.")]
SeedOpt = Annotated[
    int, typer.Option("--seed", help="Row splits, canaries and initializations (never DP noise).")
]
EpochsOpt = Annotated[int, typer.Option("--epochs", min=1, help="Training epochs of each model.")]
BatchOpt = Annotated[
    int | None,
    typer.Option("--batch-size", min=1, help="Batch size (default: a sixth of the rows)."),
]
LrOpt = Annotated[float, typer.Option("--lr", help="Adam learning rate.")]
HiddenOpt = Annotated[
    list[int] | None, typer.Option("--hidden", min=1, help="Hidden layer width (repeatable).")
]
DropOpt = Annotated[
    list[str] | None, typer.Option("--drop", help="A column not to learn from (repeatable).")
]
ThreadsOpt = Annotated[
    int, typer.Option("--threads", min=0, help="torch CPU threads (default 1; 0: torch's).")
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write report.json and report.html into this folder."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _threads(n: int) -> None:
    if n:
        import torch

        torch.set_num_threads(n)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f} %"


def mia(
    data: DataArg,
    target: TargetOpt,
    seed: SeedOpt,
    epsilon: EpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    attack: Annotated[
        str, typer.Option("--attack", help="loss, lira, lira-offline or rmia.")
    ] = "lira",
    shadows: Annotated[
        int, typer.Option("--shadows", help="Shadow (reference) models; at least 2 for LiRA/RMIA.")
    ] = 8,
    targets: Annotated[
        int,
        typer.Option(
            "--targets", min=1, help="Target models, each on its own random half (pooled)."
        ),
    ] = 1,
    epochs: EpochsOpt = 30,
    batch_size: BatchOpt = None,
    learning_rate: LrOpt = 5e-3,
    hidden: HiddenOpt = None,
    drop: DropOpt = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples of the intervals.")
    ] = 200,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    threads: ThreadsOpt = 1,
    out: OutOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Attack veil's tabular model with membership inference and report the ROC.

    The model is trained on a random half of the rows (its members) and attacked with the
    other half (non-members); LiRA and RMIA train --shadows more models the same way.
    Reports AUC and the true-positive rate at 0.1 % and 1 % false-positive rate, with
    bootstrap confidence intervals.
    """
    from veil.audit import audit_membership, check_attack

    check_attack(attack, shadows)  # before reading anything
    from veil.cli._input import read_input

    frame = read_input(data, separator, header)
    _threads(threads)
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        result = audit_membership(
            frame,
            target,
            epsilon=epsilon,
            delta=delta,
            attacks=[attack],
            shadows=shadows,
            targets=targets,
            seed=seed,
            epochs=epochs,
            batch_size=batch_size,
            learning_rate=learning_rate,
            hidden=tuple(hidden) if hidden else (128,),
            drop=drop or (),
            n_boot=bootstrap,
            progress=progress,
        )
    written = None
    if out is not None:
        from veil.audit import audit_report, write_audit_report

        summary = {
            "attack": attack,
            "auc": result["auc"],
            "tpr_at_0.1%_fpr": result["tpr_at_fpr"]["0.001"],
            "tpr_at_1%_fpr": result["tpr_at_fpr"]["0.01"],
            "members": result["members"],
            "nonmembers": result["nonmembers"],
            "epsilon": epsilon,
        }
        written = write_audit_report(out, audit_report("membership_inference", result, summary))
    if json_:
        shown = {k: v for k, v in result.items() if k != "attacks"}
        shown["outputs"] = [str(p) for p in written] if written else []
        print_json(shown)
        return
    _print_mia(result, written)


def _print_mia(result: dict[str, Any], written: list[Path] | None) -> None:
    from rich.table import Table

    table = Table(title=f"veil audit mia ({result['attack']})", header_style="bold")
    for col in ("measure", "value", "95 % interval"):
        table.add_column(col)
    ci = result.get("auc_ci")
    table.add_row("ROC AUC", f"{result['auc']:.4f}", f"{ci[0]:.4f} - {ci[1]:.4f}" if ci else "")
    tci = result.get("tpr_at_fpr_ci") or {}
    for lv, name in (("0.001", "TPR at 0.1 % FPR"), ("0.01", "TPR at 1 % FPR")):
        c = tci.get(lv)
        table.add_row(
            name, _pct(result["tpr_at_fpr"][lv]), f"{_pct(c[0])} - {_pct(c[1])}" if c else ""
        )
    console.print(table)
    m = result["model"]
    how = "without DP" if m.get("epsilon") is None else f"DP-SGD at epsilon {m['epsilon']:g}"
    console.print(
        f"{result['members']} members, {result['nonmembers']} non-members; models trained "
        f"{how}; {result['shadows']} shadow model(s)"
    )
    if written:
        console.print(f"report written to {written[0].parent}")


def dp(
    data: DataArg,
    target: TargetOpt,
    seed: SeedOpt,
    epsilon: EpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    canaries: Annotated[
        int, typer.Option("--canaries", help="Canaries, each trained on with probability 1/2.")
    ] = 500,
    confidence: Annotated[
        float, typer.Option("--confidence", help="Confidence of the lower bound.")
    ] = 0.95,
    epochs: EpochsOpt = 30,
    batch_size: BatchOpt = None,
    learning_rate: LrOpt = 5e-3,
    hidden: HiddenOpt = None,
    drop: DropOpt = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    threads: ThreadsOpt = 1,
    fl: Annotated[
        bool,
        typer.Option(
            "--fl", help="Audit federated training with client-level DP (veil fl simulate)."
        ),
    ] = False,
    clients: Annotated[int, typer.Option("--clients", min=1, help="With --fl: clients.")] = 10,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="With --fl: rounds.")] = 20,
    local_epochs: Annotated[
        int, typer.Option("--local-epochs", min=1, help="With --fl: local epochs per round.")
    ] = 1,
    clip_norm: Annotated[
        float, typer.Option("--clip-norm", help="With --fl: clipping norm of a client's update.")
    ] = 1.0,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="With --fl: Ray workers (default one per CPU)."),
    ] = None,
    out: OutOpt = None,
    json_: JsonOpt = False,
) -> None:
    """One-run DP audit: an epsilon lower bound from canaries in one DP-SGD training run.

    --canaries mislabelled rows are each included with probability 1/2, veil's DP-SGD
    trains once at --epsilon (without DP when omitted), and the canaries' losses give a
    lower bound on epsilon at --confidence (Steinke, Nasr, Jagielski 2023). With --fl the
    run is a federated simulation with client-level DP at --epsilon (`veil fl simulate --dp
    client`; --clients, --rounds, --local-epochs, --clip-norm), the canaries spread over the
    clients' rows. A bound above the claimed epsilon is a bug in the DP implementation:
    exit 4.
    """
    from veil._errors import InputError
    from veil.audit import DPAuditFailed, audit_dp_training

    if not 0 < confidence < 1:
        raise InputError(f"--confidence must be in (0, 1), got {confidence!r}")
    from veil.cli._input import read_input

    frame = read_input(data, separator, header)
    _threads(threads)
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        if fl:
            from veil.audit import audit_dp_federated

            result = audit_dp_federated(
                frame,
                target,
                epsilon=epsilon,
                delta=delta,
                canaries=canaries,
                seed=seed,
                confidence=confidence,
                clients=clients,
                rounds=rounds,
                local_epochs=local_epochs,
                clip_norm=clip_norm,
                drop=drop or (),
                workers=workers,
                progress=progress,
            )
        else:
            result = audit_dp_training(
                frame,
                target,
                epsilon=epsilon,
                delta=delta,
                canaries=canaries,
                seed=seed,
                confidence=confidence,
                epochs=epochs,
                batch_size=batch_size,
                learning_rate=learning_rate,
                hidden=tuple(hidden) if hidden else (128,),
                drop=drop or (),
                progress=progress,
            )
    written = None
    if out is not None:
        from veil.audit import audit_report, write_audit_report

        summary = {
            "epsilon_claimed": result["epsilon_claimed"],
            "epsilon_lower_bound": result["epsilon_lower_bound"],
            "confidence": result["confidence"],
            "canaries": result["canaries"],
            "bound_exceeds_claim": result["bound_exceeds_claim"],
        }
        written = write_audit_report(out, audit_report("dp_audit", result, summary))
    claim = result["epsilon_claimed"]
    if json_:
        print_json({**result, "outputs": [str(p) for p in written] if written else []})
    else:
        console.print(
            f"epsilon lower bound {result['epsilon_lower_bound']:.3f} at "
            f"{_pct(result['confidence'])} confidence ({result['canaries']} canaries, "
            f"{result['correct']} of {result['guesses']} guesses right); claimed: "
            + ("none (trained without DP)" if claim is None else f"{claim:g}")
        )
        if written:
            console.print(f"report written to {written[0].parent}")
    if result["bound_exceeds_claim"]:
        err_console.print("[bold red]the lower bound is above the claimed epsilon[/]")
        raise DPAuditFailed(
            f"the one-run audit's epsilon lower bound ({result['epsilon_lower_bound']:.3f}) "
            f"is above the claimed epsilon ({claim:g}) at {_pct(result['confidence'])} "
            "confidence: the training is not as private as claimed",
            hint="this is a bug in the DP implementation or its accounting; report it",
        )


def audit_unlearning_cmd(
    model_dir: Annotated[Path, typer.Argument(help="A model folder of 'veil unlearn fit'.")],
    data: Annotated[
        Path, typer.Option("--data", help="The table the model was fitted on (with its ids).")
    ],
    fpr: Annotated[
        float,
        typer.Option("--fpr", help="Share of never-seen rows the member threshold flags."),
    ] = 0.05,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for report.json/html (default: the model)."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Unused by this audit (deterministic); accepted.")
    ] = 0,
    log_url: Annotated[
        str | None, typer.Option("--log", help="The model's erasure log URL.")
    ] = None,
    key_env: Annotated[
        str, typer.Option("--key-env", help="Variable holding the erasure key.")
    ] = "VEIL_UNLEARN_KEY",
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="File holding the erasure key.")
    ] = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Score the rows a SISA model forgot against rows it never saw, row by row.

    A row is scored as a member when its loss is below the threshold that flags --fpr of the
    held-out rows; the forgotten rows are also scored by the model retrained without them.
    """
    from veil.audit import audit_unlearning_table
    from veil.cli._input import read_input
    from veil.cli._unlearn import _open, write_report

    frame = read_input(data, separator, header)
    with _open(model_dir, key_env, key_file, log_url) as model:
        result = audit_unlearning_table(model, frame, fpr=fpr)
        result["report"] = write_report(model, out, {"audit": result})
    if json_:
        print_json(result)
        return
    share = result["member_share"]
    console.print(
        f"{result['forgotten']} forgotten row(s) scored against {result['heldout']} held-out "
        f"and {result['training']} training row(s) (threshold at {fpr:g} of held-out):"
    )
    console.print(
        f"  scored as members: forgotten {share['forgotten']:.3f}, held-out "
        f"{share['heldout']:.3f}, training {share['training'] if share['training'] is None else round(share['training'], 3)}"
    )
    auc = result["auc"]["forgotten_vs_heldout"]
    console.print(
        f"  AUC forgotten vs held-out {auc:.3f} (0.5: indistinguishable); binomial p-value "
        f"{result['forgotten_member_pvalue']:.3g}; retrained model's losses identical: "
        f"{result['retrained']['identical']}"
    )
    console.print(f"report: {result['report']['html']}")


def register(app: typer.Typer) -> None:
    audit_app.command("mia")(mia)
    audit_app.command("dp")(dp)
    audit_app.command("unlearning")(audit_unlearning_cmd)
    app.add_typer(audit_app, name="audit")
