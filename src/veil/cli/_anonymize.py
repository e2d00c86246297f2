"""``veil anonymize POLICY --out DIR [--json]``: field transforms and anonymization only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._ui import RichProgressAdapter, console, print_json, state

__all__ = ["register"]


# the search's scores under ARX's definitions (veil.tabular._metrics); "loss: loss" read as
# a stutter and did not say whose definition
_METRIC_NAMES = {
    "loss": "information loss (ARX loss)",
    "entropy": "non-uniform entropy (ARX, bits)",
    "dm": "discernibility (ARX DM*)",
    "aecs": "average class size (ARX AECS)",
    "height": "height (sum of levels)",
    "precision": "precision (ARX)",
    "ncp": "certainty penalty (NCP)",
}


def _table(section: dict[str, Any], outputs: dict[str, str]) -> None:
    from rich.table import Table

    table = Table(title="veil anonymize", header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    if section.get("transformation"):
        levels = ", ".join(f"{k}={v}" for k, v in section["transformation"].items())
        table.add_row("transformation", levels)
    for name, value in section["information_loss"].items():
        table.add_row(_METRIC_NAMES.get(name, name), f"{value:.6g}")
    for key in ("suppressed_records", "equivalence_classes", "min_class_size"):
        table.add_row(key.replace("_", " "), str(section[key]))
    table.add_row("satisfied", ", ".join(f"{k}={v}" for k, v in section["satisfied"].items()))
    pop = section.get("population")
    if pop:
        table.add_row("population rows", f"{pop['rows']} ({pop['subset_rows']} in the subset)")
        if pop.get("delta_min") is not None:
            table.add_row("delta reached", f"{pop['delta_min']:.4g} to {pop['delta_max']:.4g}")
            table.add_row("smallest class population", str(pop["min_class_population"]))
    s = section["search"]
    table.add_row("search", f"{s['algorithm']}: {s['checked']} checked in {s['seconds']:.3f}s")
    for key, value in (section.get("details") or {}).items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        table.add_row(key.replace("_", " "), str(value))
    console.print(table)
    for name, path in outputs.items():
        console.print(f"  {name:<12} {path}")


def anonymize(
    policy: Annotated[Path, typer.Argument(help="The policy YAML file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")],
    json_: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Release the table of a policy with its privacy models met at the least loss."""
    from veil.policy import load_policy
    from veil.tabular._anonymize_stage import run_anonymize

    pol = load_policy(policy)
    if not pol.privacy.any_model:
        from veil._errors import PolicyError

        raise PolicyError("the policy sets no privacy model", key="privacy")
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        report, outputs, seconds = run_anonymize(pol, out_dir=out, progress=progress)
    section = dict(report.get("anonymize", {}))
    section.pop("summary", None)
    if json_:
        print_json({**section, "outputs": outputs, "seconds": round(seconds, 3)})
    else:
        _table(section, outputs)
    from veil.cli._run import _print_warnings

    _print_warnings(report)


def register(app: typer.Typer) -> None:
    app.command("anonymize")(anonymize)
