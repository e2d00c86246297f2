"""``veil unlearn fit|forget|verify|log``: SISA training, erasure requests and their proof."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, print_json, state

if TYPE_CHECKING:
    from veil.tabular._keys import Secret
    from veil.unlearning import SISAModel

__all__ = ["register", "unlearn_app"]

unlearn_app = typer.Typer(
    help="Train models that can forget a person's rows exactly (SISA), and prove it.",
    no_args_is_help=True,
)

KEY_ENV = "VEIL_UNLEARN_KEY"

KeyEnvOpt = Annotated[
    str,
    typer.Option(
        "--key-env", help="Variable holding the erasure key (hashes ids, signs the manifest)."
    ),
]
KeyFileOpt = Annotated[
    Path | None, typer.Option("--key-file", help="File holding the erasure key.")
]
LogOpt = Annotated[
    str | None,
    typer.Option(
        "--log", help="Erasure log URL (default: SQLite in the model folder; PostgreSQL for teams)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def erasure_key(key_env: str, key_file: Path | None) -> Secret:
    """The erasure key from ``--key-file`` or ``$key_env`` (weak keys refused)."""
    from veil.tabular._keys import resolve_key

    return resolve_key(
        key_env=key_env,
        key_file=key_file,
        column="(erasure ids)",
        transform="unlearn",
        purpose="hmac",
    )


@unlearn_app.command("fit")
def fit(
    data: Annotated[Path, typer.Argument(help="The table to train on (CSV, Parquet, JSONL).")],
    target: Annotated[str, typer.Option("--target", help="The column to predict.")],
    id_column: Annotated[
        str, typer.Option("--id-column", help="The column identifying each row (for erasure).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The new model folder.")],
    shards: Annotated[int, typer.Option("--shards", min=1, help="Disjoint shards.")] = 5,
    slices: Annotated[int, typer.Option("--slices", min=1, help="Slices per shard.")] = 4,
    epochs: Annotated[
        int, typer.Option("--epochs", min=1, help="Epochs per slice stage (and monolithic).")
    ] = 5,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Batch size.")] = 128,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam learning rate.")] = 5e-3,
    aggregation: Annotated[
        str, typer.Option("--aggregation", help="mean (probabilities, default) or vote.")
    ] = "mean",
    test_fraction: Annotated[
        float, typer.Option("--test-fraction", help="Share of rows held out for accuracy.")
    ] = 0.2,
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="A column not to learn from (repeatable).")
    ] = None,
    monolithic: Annotated[
        bool,
        typer.Option("--monolithic/--no-monolithic", help="Also train the monolithic baseline."),
    ] = True,
    seed: Annotated[int, typer.Option("--seed", help="Split, shards, slices, init, order.")] = 0,
    epsilon: Annotated[
        float | None,
        typer.Option("--epsilon", help="Train the shards with DP-SGD to this epsilon (the model)."),
    ] = None,
    delta: Annotated[float, typer.Option("--delta", help="DP-SGD delta; below 1/n.")] = 1e-5,
    max_grad_norm: Annotated[
        float, typer.Option("--max-grad-norm", help="DP-SGD per-sample clipping norm.")
    ] = 1.0,
    accountant: Annotated[str, typer.Option("--accountant", help="prv (default) or rdp.")] = "prv",
    ledger_url: Annotated[
        str | None, typer.Option("--ledger", help="Ledger URL (default: the local SQLite file).")
    ] = None,
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Dataset name whose budget pays for the fit.")
    ] = None,
    no_ledger: Annotated[
        bool, typer.Option("--no-ledger", help="Train with DP without recording the spend.")
    ] = False,
    log_url: LogOpt = None,
    key_env: KeyEnvOpt = KEY_ENV,
    key_file: KeyFileOpt = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Train veil's tabular classifier in shards x slices (SISA) so rows can be forgotten.

    The erasure key (at least 16 random bytes: `veil keygen --out FILE`) hashes the ids and
    signs the model folder; keep it: every later command needs it. With --epsilon every
    shard trains with DP-SGD and the model is (epsilon, delta)-DP for the training rows
    (parallel composition over the disjoint shards), paid once from the ledger: pass
    --dataset NAME (created with `veil budget init NAME`), or --no-ledger. Erasures never
    refund the budget.
    """
    from veil._errors import InputError
    from veil.cli._input import read_input
    from veil.unlearning import fit_table

    if epsilon is None and (dataset is not None or ledger_url is not None or no_ledger):
        raise InputError(
            "--dataset/--ledger/--no-ledger are for DP training, which needs --epsilon",
            hint="pass --epsilon E to train the shards with DP-SGD, or drop those options",
        )
    if epsilon is not None:  # without it, the check above refused any of the three
        from veil.cli._budget import check_ledger_choice

        check_ledger_choice(dataset, ledger_url, no_ledger, paying="fit", verb="train")
    key = erasure_key(key_env, key_file)
    frame = read_input(data, separator, header)
    ledger = None
    fingerprint = None
    if epsilon is not None and not no_ledger:
        from veil.dp import BudgetLedger, fingerprint_frame

        ledger = BudgetLedger(ledger_url)
        fingerprint = fingerprint_frame(frame)  # the ledger refuses a budget of other data
    try:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            model = fit_table(
                frame,
                target,
                id_column,
                out=out,
                key=key,
                shards=shards,
                slices=slices,
                epochs=epochs,
                batch_size=batch_size,
                learning_rate=learning_rate,
                aggregation=aggregation,
                test_fraction=test_fraction,
                drop=drop or (),
                seed=seed,
                log_url=log_url,
                monolithic=monolithic,
                progress=progress,
                epsilon=epsilon,
                delta=delta,
                max_grad_norm=max_grad_norm,
                accountant=accountant,
                ledger=ledger,
                dataset_name=dataset,
                fingerprint=fingerprint,
            )
    finally:
        if ledger is not None:
            ledger.close()
    with model:
        metrics = model.manifest["metrics"]
        result = {
            "accuracy": metrics["accuracy"],
            "monolithic": metrics["monolithic"],
            "seconds": metrics["seconds"],
            "cpu_seconds": metrics.get("cpu_seconds"),
            "shards": shards,
            "slices": slices,
            "aggregation": aggregation,
            "n_train": metrics["n_train"],
            "n_test": metrics["n_test"],
            "model": str(out),
            "model_version": model.version,
            "dp": _model_dp(model),
            "ledger": model.config.get("ledger"),
        }
        result["report"] = write_report(model, None, {"operation": {"fit": result}})
    if json_:
        print_json(result)
        return
    mono = metrics["monolithic"] or {}
    console.print(
        f"SISA: {shards} shard(s) x {slices} slice(s), held-out accuracy "
        f"{_pct(metrics['accuracy'])} in {metrics['seconds']:.1f} s; monolithic "
        f"{_pct(mono.get('accuracy'))} in {_sec(mono.get('seconds'))}"
    )
    if result["dp"]:
        ledger_rec = result["ledger"]
        console.print(
            f"DP-SGD shards: (epsilon {result['dp']['epsilon']:g}, delta "
            f"{result['dp']['delta']:g}) for the whole model (parallel composition); "
            + (
                f"charged to {ledger_rec['dataset']!r} (spend {ledger_rec['spend_id']})"
                if ledger_rec
                else "not recorded (--no-ledger)"
            )
        )
    console.print(f"model written to {out}; report: {result['report']['html']}")


def write_report(
    model: SISAModel, folder: Path | None, extra: dict[str, Any]
) -> dict[str, str] | None:
    """report.json + report.html into ``folder`` (default: the model folder)."""
    from veil.report._unlearning import write_model_report

    return write_model_report(model, folder, extra)


def _model_dp(model: SISAModel) -> dict[str, Any] | None:
    from veil.report._unlearning import dp_summary

    return dp_summary(model)


def _budget_kept(model: SISAModel) -> dict[str, Any] | None:
    from veil.report._unlearning import budget_kept

    return budget_kept(model)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f} %"


def _sec(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f} s"


def _read_ids(id_: list[str] | None, ids_file: Path | None) -> list[str]:
    from veil._errors import InputError

    if bool(id_) == (ids_file is not None):
        raise InputError(
            "say which rows to forget: --id X (repeatable) or --ids FILE, not both",
            hint="--ids FILE holds one id per line",
        )
    if ids_file is not None:
        try:
            text = ids_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"cannot read the ids file {ids_file} ({type(exc).__name__})",
                hint="a UTF-8 text file with one id per line",
            ) from None
        ids = [line.strip() for line in text.splitlines() if line.strip()]
        if not ids:
            raise InputError(f"the ids file {ids_file} holds no id", hint="one id per line")
        return ids
    return list(id_ or [])


def _open(path: Path, key_env: str, key_file: Path | None, log_url: str | None) -> SISAModel:
    from veil.unlearning import SISAModel

    return SISAModel.open(path, key=erasure_key(key_env, key_file), log_url=log_url)


@unlearn_app.command("forget")
def forget(
    model_dir: Annotated[Path, typer.Argument(help="The model folder.")],
    id_: Annotated[
        list[str] | None, typer.Option("--id", help="An id to forget (repeatable).")
    ] = None,
    ids_file: Annotated[
        Path | None, typer.Option("--ids", help="A file of ids to forget, one per line.")
    ] = None,
    reason: Annotated[
        str | None, typer.Option("--reason", help="Why (recorded in the erasure log).")
    ] = None,
    log_url: LogOpt = None,
    key_env: KeyEnvOpt = KEY_ENV,
    key_file: KeyFileOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Forget rows by id: retrain only their shards, from the last clean slice.

    An id forgotten before is a recorded no-op; an id the model does not know fails the
    whole request (nothing retrained, nothing logged). `seconds` is the command's work:
    opening the model (manifest, stored rows) and the whole erasure (imports and the
    accuracy evaluated after it excluded); `speedup` compares it with the monolithic
    model's training time measured at fit (`speedup_cpu`: the same in CPU seconds, steadier
    on a busy machine). A DP model's budget is never refunded (`privacy_budget`).
    """
    ids = _read_ids(id_, ids_file)
    from veil.unlearning._tabular import warm_up

    warm_up()  # imports (torch) are start-up, not the erasure; fit's timings exclude them too
    t0, c0 = time.perf_counter(), time.process_time()
    with _open(model_dir, key_env, key_file, log_url) as model:
        open_seconds, open_cpu = time.perf_counter() - t0, time.process_time() - c0
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            result = model.forget(ids, reason=reason, progress=progress)
        # opening + the erasure; the held-out accuracy evaluated afterwards is reporting
        seconds = open_seconds + result["seconds"]
        cpu = open_cpu + result["cpu_seconds"]
        full, full_cpu = result["full_retrain_seconds"], result["full_retrain_cpu_seconds"]
        result["seconds"] = seconds
        result["speedup"] = None if not full else full / seconds
        result["cpu_seconds"] = cpu
        result["speedup_cpu"] = None if not full_cpu else full_cpu / cpu
        result["privacy_budget"] = _budget_kept(model)
        result["report"] = write_report(model, None, {"operation": {"forget": result}})
    if json_:
        print_json(result)
        return
    if result["forgotten"] == 0:
        console.print(
            f"{result['already_forgotten']} id(s) were already forgotten: nothing retrained "
            "(the request is recorded)"
        )
    else:
        console.print(
            f"forgot {result['forgotten']} id(s) "
            f"({result['already_forgotten']} already forgotten): retrained shard(s) "
            f"{', '.join(map(str, result['shards_retrained'])) or 'none'} in {seconds:.2f} s"
            + (f", {result['speedup']:.1f}x faster than retraining" if result["speedup"] else "")
        )
    console.print(
        f"model version {result['model_version']}; held-out accuracy {_pct(result['accuracy'])}"
    )


@unlearn_app.command("verify")
def verify(
    model_dir: Annotated[Path, typer.Argument(help="The model folder.")],
    all_shards: Annotated[
        bool, typer.Option("--all", help="Check every shard, not only those erasures retrained.")
    ] = False,
    log_url: LogOpt = None,
    key_env: KeyEnvOpt = KEY_ENV,
    key_file: KeyFileOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Prove the erasures exact: retrain shards from scratch, compare parameters bit for bit.

    Exits 4 when a parameter differs or a forgotten row is still stored.
    """
    with _open(model_dir, key_env, key_file, log_url) as model:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            shards = list(range(model.config["shards"])) if all_shards else None
            result = model.verify(shards=shards, progress=progress)
        result["report"] = write_report(model, None, {"verify": result})
        if json_:
            print_json(result)
        elif result["exact"]:
            console.print(
                f"[green]exact[/]: shard(s) {', '.join(map(str, result['shards_checked']))} "
                "retrained from scratch without the forgotten rows are bit-identical; no "
                "forgotten row is stored"
            )
        model.require_exact(result)


@unlearn_app.command("log")
def show_log(
    model_dir: Annotated[Path, typer.Argument(help="The model folder.")],
    log_url: LogOpt = None,
    key_env: KeyEnvOpt = KEY_ENV,
    key_file: KeyFileOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Show the erasure log: every request, its time, reason, shards retrained and version."""
    with _open(model_dir, key_env, key_file, log_url) as model:
        requests = model.erasure_log()
        result = {
            "model_id": model.model_id,
            "model_version": model.version,
            "requests": requests,
        }
    if json_:
        print_json(result)
        return
    from rich.table import Table

    table = Table(title=f"erasure log (model version {model.version})", header_style="bold")
    for col in ("time", "kind", "reason", "ids", "forgotten", "already", "shards", "version"):
        table.add_column(col)
    for r in requests:
        table.add_row(
            r["created"],
            r["kind"],
            r["reason"] or "",
            str(r["ids"]),
            str(r["forgotten"]),
            str(r["already_forgotten"]),
            ", ".join(map(str, r["shards_retrained"])) or "-",
            str(r["model_version"]),
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(unlearn_app, name="unlearn")
