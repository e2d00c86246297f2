"""``veil audit ...``: empirical privacy audits of trained models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import console, print_json

__all__ = ["audit_app", "register"]

audit_app = typer.Typer(
    name="audit",
    help="Measure what a trained model leaks about its training rows.",
    no_args_is_help=True,
)


# --- veil audit unlearning (self-contained: the unlearning feature's command) ---------------
@audit_app.command("unlearning")
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
    app.add_typer(audit_app, name="audit")
