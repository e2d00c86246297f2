"""``veil fl``: federated learning on Flower (``veil fl simulate``, ``veil fl app``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, print_json, state

__all__ = ["register"]

# Every option that `simulate` and `app` both take is declared once here; each command gives
# its own default where they differ. `--clients`, `--strategy`, `--dp` and `--out` stay in
# each command: they mean different things there (simulated clients or SuperNodes waited
# for, scaffold only in simulation, sample DP only in simulation, a report folder or the
# server's output folder).
TargetOpt = Annotated[str, typer.Option("--target", help="The column to predict.")]
RoundsOpt = Annotated[int, typer.Option("--rounds", help="Federated rounds.")]
LocalEpochsOpt = Annotated[
    int, typer.Option("--local-epochs", help="Epochs each client trains per round.")
]
FractionFitOpt = Annotated[
    float, typer.Option("--fraction-fit", help="Share of the clients sampled per round.")
]
BatchSizeOpt = Annotated[int, typer.Option("--batch-size", help="Local batch size.")]
LrOpt = Annotated[
    float | None,
    typer.Option("--lr", help="Clients' SGD learning rate (default 0.05; SCAFFOLD 0.0125)."),
]
ProximalMuOpt = Annotated[float, typer.Option("--proximal-mu", help="FedProx's proximal weight.")]
TestFractionOpt = Annotated[
    float,
    typer.Option(
        "--test-fraction", help="Share of the rows held out for evaluation (each client's)."
    ),
]
DropOpt = Annotated[
    list[str] | None, typer.Option("--drop", help="A column not to learn from (repeatable).")
]
EpsilonOpt = Annotated[float | None, typer.Option("--epsilon", help="Target epsilon with --dp.")]
DeltaOpt = Annotated[float, typer.Option("--delta", help="Target delta with --dp.")]
SeedOpt = Annotated[
    int, typer.Option("--seed", help="Hold-out split, partition and initialization.")
]
ClipNormOpt = Annotated[
    float,
    typer.Option(
        "--clip-norm",
        help="L2 bound of a client's update (--dp client) or of a row's gradient (--dp sample).",
    ),
]
AccountantOpt = Annotated[
    str,
    typer.Option(
        "--accountant",
        help="With --dp: rdp (Renyi DP) or prv (privacy loss distribution: a tighter bound, "
        "so less noise for the same target).",
    ),
]
LedgerOpt = Annotated[
    str | None,
    typer.Option("--ledger", help="Ledger URL (default: the local SQLite file of the server)."),
]
DatasetOpt = Annotated[
    str | None, typer.Option("--dataset", help="Dataset name whose budget pays (with --dp).")
]
NoLedgerOpt = Annotated[
    bool, typer.Option("--no-ledger", help="Run --dp without recording the spend.")
]
SecAggOpt = Annotated[
    bool, typer.Option("--secagg", help="Aggregate with SecAgg+: the server sees only sums.")
]
SecAggSharesOpt = Annotated[
    float | None,
    typer.Option(
        "--secagg-shares",
        help="Clients each secret is split among: a share of the round's (<= 1) or a count "
        "(default: per round, the fewest with which any 30 % of its clients may vanish).",
    ),
]
SecAggThresholdOpt = Annotated[
    float | None,
    typer.Option(
        "--secagg-threshold",
        help="Shares that rebuild a secret: a share of --secagg-shares (<= 1) or a count "
        "(default: the fewest above half).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


fl_app = typer.Typer(
    name="fl",
    help="Federated learning: train across data holders whose rows never leave them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _print_human(summary: dict[str, Any]) -> None:
    from rich.table import Table

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.2f} %"

    table = Table(title=f"veil fl simulate ({summary['strategy']})", header_style="bold")
    for col in ("round", "accuracy", "loss", "clients", "dropped"):
        table.add_column(col, justify="right")
    for r in summary["rounds"]:
        loss = "-" if r["loss"] is None else f"{r['loss']:.4f}"
        table.add_row(
            str(r["round"]), pct(r["accuracy"]), loss, str(r["clients"]), str(r["dropped"])
        )
    console.print(table)
    console.print(
        f"federated: {pct(summary['accuracy'])}; centralized on the same rows: "
        f"{pct(summary['centralized']['accuracy'])}; majority class: "
        f"{pct(summary['majority_class_accuracy'])}"
    )
    sa = summary["secagg"]
    if sa["enabled"]:
        console.print(
            f"secure aggregation (SecAgg+): {sa['rounds_completed']} rounds completed, "
            f"{sa['dropped']} client drop-outs recovered; the server saw only sums"
        )
    if summary["epsilon_spent"] is not None:
        dp = summary["dp"]
        if dp["mode"] == "client":
            noise = f"noise multiplier {dp['noise_multiplier']:.4f}"
            if "adaptive_clip" in dp:
                ac = dp["adaptive_clip"]
                noise += (
                    f" (updates {dp['update_noise_multiplier']:.4f}, count of unclipped "
                    f"{ac['count_noise']:.4g}); adaptive clip norm "
                    f"{ac['clip_norms'][0]:.4g} -> {ac['clip_norms'][-1]:.4g}"
                )
            level = "client-level DP"
        else:
            noise = f"noise multipliers up to {max(dp['noise_multipliers']):.4f}"
            level = "sample-level DP-SGD"
        console.print(
            f"{level}: epsilon spent {summary['epsilon_spent']:.4f}, delta "
            f"{summary['delta']:g}, {noise}"
        )
        ledger = summary.get("ledger")
        console.print(
            f"ledger: spend {ledger['spend_id']} on {ledger['dataset']!r}"
            if ledger
            else "ledger: not recorded (--no-ledger)"
        )
    else:
        console.print("not private: no differential privacy (pass --dp client or --dp sample)")


@fl_app.command("simulate")
def simulate(
    data: Annotated[Path, typer.Argument(help="The table to train on (CSV, Parquet, JSONL).")],
    target: TargetOpt,
    clients: Annotated[int, typer.Option("--clients", help="Simulated clients.")] = 10,
    rounds: RoundsOpt = 20,
    partition: Annotated[
        str, typer.Option("--partition", help="iid, dirichlet:ALPHA or column:NAME.")
    ] = "iid",
    strategy: Annotated[
        str, typer.Option("--strategy", help="fedavg, fedprox, fedadam or scaffold.")
    ] = "fedavg",
    local_epochs: LocalEpochsOpt = 1,
    fraction_fit: FractionFitOpt = 1.0,
    batch_size: BatchSizeOpt = 64,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help="mlp (veil's tabular MLP) or logistic (fewer parameters: for --dp client).",
        ),
    ] = "mlp",
    lr: LrOpt = None,
    proximal_mu: ProximalMuOpt = 0.01,
    test_fraction: TestFractionOpt = 0.2,
    drop: DropOpt = None,
    dp: Annotated[
        str | None,
        typer.Option(
            "--dp",
            help="client: client-level DP (clipping + noise); sample: DP-SGD in each client.",
        ),
    ] = None,
    epsilon: EpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    clip_norm: ClipNormOpt = 1.0,
    accountant: AccountantOpt = "rdp",
    adaptive_clip: Annotated[
        bool,
        typer.Option(
            "--adaptive-clip",
            help="--dp client: the clip norm (starting at --clip-norm) tracks --clip-quantile "
            "of the update norms, estimated privately within the same budget.",
        ),
    ] = False,
    clip_quantile: Annotated[
        float,
        typer.Option("--clip-quantile", help="--adaptive-clip: share of updates left unclipped."),
    ] = 0.5,
    clip_lr: Annotated[
        float,
        typer.Option("--clip-lr", help="--adaptive-clip: geometric learning rate of the clip."),
    ] = 0.2,
    clip_count_noise: Annotated[
        float | None,
        typer.Option(
            "--clip-count-noise",
            help="--adaptive-clip: noise on the count of unclipped updates (default: "
            "expected clients per round / 20, at least the noise multiplier).",
        ),
    ] = None,
    seed: SeedOpt = 0,
    ledger_url: LedgerOpt = None,
    dataset: DatasetOpt = None,
    no_ledger: NoLedgerOpt = False,
    workers: Annotated[
        int | None,
        typer.Option("--workers", help="Ray workers running the clients (default: one per CPU)."),
    ] = None,
    secagg: SecAggOpt = False,
    secagg_shares: SecAggSharesOpt = None,
    secagg_threshold: SecAggThresholdOpt = None,
    dropout: Annotated[
        float,
        typer.Option("--dropout", help="Share of each round's clients that vanish mid-round."),
    ] = 0.0,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write report.json and report.html into this folder."),
    ] = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Simulate federated training of veil's tabular model on Flower, against centralized.

    With --dp (client or sample) the run is paid for in the privacy-budget ledger before the first
    round: pass --dataset NAME (created with `veil budget init NAME`), or --no-ledger.
    """
    from veil._errors import InputError
    from veil.federated import FLConfig, simulate_federated

    config = FLConfig(
        clients=clients,
        rounds=rounds,
        model=model,
        partition=partition,
        strategy=strategy,
        local_epochs=local_epochs,
        fraction_fit=fraction_fit,
        batch_size=batch_size,
        lr=lr,
        proximal_mu=proximal_mu,
        test_fraction=test_fraction,
        seed=seed,
        dp=dp,
        epsilon=epsilon,
        delta=delta,
        clip_norm=clip_norm,
        accountant=accountant,
        adaptive_clip=adaptive_clip,
        clip_quantile=clip_quantile,
        clip_lr=clip_lr,
        clip_count_noise=clip_count_noise,
        workers=workers,
        secagg=secagg,
        secagg_shares=secagg_shares,
        secagg_threshold=secagg_threshold,
        dropout=dropout,
    )
    config.validate()
    if dp is None:
        if dataset is not None or ledger_url is not None or no_ledger:
            raise InputError(
                "--dataset/--ledger/--no-ledger apply to --dp runs only",
                hint="a run without --dp spends no privacy budget",
            )
    else:
        from veil.cli._budget import check_ledger_choice

        check_ledger_choice(dataset, ledger_url, no_ledger, paying="run", verb="run")
    from veil.cli._input import read_input

    frame = read_input(data, separator, header)
    ledger = None
    fingerprint = None
    if dp is not None and not no_ledger:
        from veil.dp import BudgetLedger, fingerprint_frame

        ledger = BudgetLedger(ledger_url)
        fingerprint = fingerprint_frame(frame)
    try:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            summary = simulate_federated(
                frame,
                target,
                config,
                drop=drop or (),
                ledger=ledger,
                dataset_name=dataset,
                fingerprint=fingerprint,
                progress=progress,
            )
    finally:
        if ledger is not None:
            ledger.close()
    if out is not None:
        from veil.federated import write_fl_report

        write_fl_report(summary, out)
    if json_:
        print_json(summary)
    else:
        _print_human(summary)


@fl_app.command("app")
def app_cmd(
    directory: Annotated[Path, typer.Argument(help="The folder to write the Flower App into.")],
    target: TargetOpt,
    schema: Annotated[
        Path,
        typer.Option(
            "--schema",
            help="A PUBLIC table (CSV, Parquet, JSONL) whose columns, categories and numeric "
            "statistics every party shares: it is copied into the app.",
        ),
    ],
    clients: Annotated[
        int, typer.Option("--clients", help="SuperNodes the server waits for before round 1.")
    ] = 3,
    rounds: RoundsOpt = 20,
    strategy: Annotated[
        str, typer.Option("--strategy", help="fedavg, fedprox or fedadam.")
    ] = "fedavg",
    local_epochs: LocalEpochsOpt = 1,
    fraction_fit: FractionFitOpt = 1.0,
    batch_size: BatchSizeOpt = 64,
    lr: LrOpt = None,
    proximal_mu: ProximalMuOpt = 0.01,
    test_fraction: TestFractionOpt = 0.2,
    drop: DropOpt = None,
    dp: Annotated[
        str | None, typer.Option("--dp", help="client: client-level DP (clipping + noise).")
    ] = None,
    epsilon: EpsilonOpt = None,
    delta: DeltaOpt = 1e-5,
    clip_norm: ClipNormOpt = 1.0,
    seed: SeedOpt = 0,
    secagg: SecAggOpt = False,
    secagg_shares: SecAggSharesOpt = None,
    secagg_threshold: SecAggThresholdOpt = None,
    max_weight: Annotated[
        float,
        typer.Option("--max-weight", help="Most rows a client may weigh in a SecAgg+ sum."),
    ] = 100_000.0,
    round_timeout: Annotated[
        float, typer.Option("--round-timeout", help="Seconds to wait for a round's replies.")
    ] = 120.0,
    wait_timeout: Annotated[
        float,
        typer.Option("--wait-timeout", help="Seconds to wait for --clients SuperNodes."),
    ] = 600.0,
    out: Annotated[
        str,
        typer.Option("--out", help="Where the server writes report.json and model.pt."),
    ] = "veil-fl-out",
    ledger_url: LedgerOpt = None,
    dataset: DatasetOpt = None,
    no_ledger: NoLedgerOpt = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the contents of a non-empty folder.")
    ] = False,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Write a Flower App that trains across real SuperNodes (flower-superlink, TLS).

    Each SuperNode trains on its own table (--node-config 'data-path="..."'); the app's README
    has the commands for the certificates, the SuperLink, the SuperNodes and flwr run.
    """
    from veil._errors import InputError
    from veil.federated import AppSettings, write_flower_app

    settings = AppSettings(
        rounds=rounds,
        clients=clients,
        strategy=strategy,
        fraction_fit=fraction_fit,
        local_epochs=local_epochs,
        batch_size=batch_size,
        lr=lr,
        proximal_mu=proximal_mu,
        test_fraction=test_fraction,
        seed=seed,
        dp=dp,
        epsilon=epsilon,
        delta=delta,
        clip_norm=clip_norm,
        secagg=secagg,
        secagg_shares=secagg_shares,
        secagg_threshold=secagg_threshold,
        max_weight=max_weight,
        round_timeout=round_timeout,
        wait_timeout=wait_timeout,
        out_dir=out,
        ledger=ledger_url or "",
        dataset=dataset or "",
        no_ledger=no_ledger,
    )
    settings.validate()
    if directory.exists() and not directory.is_dir():
        raise InputError(f"{directory} exists and is not a folder", hint="name a new folder")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise InputError(
            f"{directory} exists and is not empty",
            hint="name a new folder, or pass --force to replace its contents",
        )
    from veil.cli._input import read_input
    from veil.train import TabularEncoder

    frame = read_input(schema, separator, header)
    encoder = TabularEncoder(target=target, drop=list(drop or ())).fit(frame)
    files = write_flower_app(directory, settings, encoder.to_dict(), force=force)
    if json_:
        print_json({"app": str(directory), "files": [str(f) for f in files]})
        return
    console.print(f"wrote a Flower App to {directory} ({len(files)} files)")
    console.print(f"next: follow {directory / 'README.md'} (certificates, SuperLink, SuperNodes)")


def register(app: typer.Typer) -> None:
    app.add_typer(fl_app, name="fl")
