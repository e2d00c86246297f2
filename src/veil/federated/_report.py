"""``veil fl simulate --out DIR``: report.json and a self-contained report.html.

The page reuses the privacy report's inline SVG line chart and table helpers
(:mod:`veil.report`): accuracy by round against the centralized baseline, a table of the
rounds (accuracy, loss, clients that finished, clients that dropped), the privacy spent and
the secure-aggregation outcome. No script, font or image is loaded from anywhere. The
summary holds no data value (only counts, settings and metrics), so neither does the page.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["render_fl_html", "write_fl_report"]


def render_fl_html(summary: dict[str, Any]) -> str:
    """The report page of a simulation summary (as :func:`simulate_federated` returns it).

    Examples
    --------
    >>> page = render_fl_html({"accuracy": 0.8, "centralized": {"accuracy": 0.81, "seconds": 1.0},
    ...     "majority_class_accuracy": 0.75, "rounds": [{"round": 1, "accuracy": 0.8,
    ...     "loss": 0.4, "clients": 3, "dropped": 0}], "epsilon_spent": None, "delta": None,
    ...     "secagg": {"enabled": False, "dropped": 0, "rounds_completed": 1}, "seconds": 2.0})
    >>> page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    True
    """
    from veil.report._html import _CSS, _e, _kv_table, _table
    from veil.report._svg import line_chart

    rounds = summary["rounds"]
    xs = [float(r["round"]) for r in rounds]
    fed = [float(r["accuracy"] or 0.0) for r in rounds]
    series: dict[str, Sequence[float]] = {"federated": fed}
    base = summary["centralized"]["accuracy"]
    if base is not None:
        series["centralized"] = [float(base)] * len(rounds)
    if summary.get("majority_class_accuracy") is not None:
        series["majority class"] = [float(summary["majority_class_accuracy"])] * len(rounds)
    chart = line_chart(
        "fl-accuracy",
        "Held-out accuracy by round",
        xs,
        series,
        x_label="round",
        y_label="accuracy",
    )
    head = {
        "accuracy (last round)": summary["accuracy"],
        "centralized baseline accuracy": base,
        "majority-class accuracy": summary.get("majority_class_accuracy"),
        "strategy": summary.get("strategy"),
        "partition": summary.get("partition"),
        "clients": summary.get("clients"),
        "seconds": summary["seconds"],
    }
    privacy = {
        "epsilon spent": summary["epsilon_spent"],
        "delta": summary["delta"],
        "differential privacy": summary.get("dp") or "none (not private)",
        "ledger": summary.get("ledger") or "not recorded",
    }
    table = _table(
        ["round", "accuracy", "loss", "clients", "dropped"],
        [[r["round"], r["accuracy"], r["loss"], r["clients"], r["dropped"]] for r in rounds],
        "fl-rounds",
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            "<title>veil federated learning report</title>",
            f"<style>{_CSS}</style></head><body>",
            "<h1>veil federated learning report</h1>",
            '<section id="summary"><h2>Summary</h2>',
            _kv_table(head, "fl-summary"),
            "</section>",
            '<section id="accuracy"><h2>Accuracy by round</h2>',
            f"<figure>{chart}<figcaption>The global model on the held-out rows after each "
            "round, against the same model trained centrally on the same rows.</figcaption>"
            "</figure>",
            table,
            "</section>",
            '<section id="privacy"><h2>Privacy</h2>',
            _kv_table(privacy, "fl-privacy"),
            "</section>",
            '<section id="secagg"><h2>Secure aggregation</h2>',
            _kv_table(
                {**summary["secagg"], "settings": summary.get("secagg_settings")}, "fl-secagg"
            ),
            "</section>",
            f'<p class="muted">{_e("report written by veil fl simulate")}</p>',
            "</body></html>",
        ]
    )


def write_fl_report(summary: dict[str, Any], out: str | Path) -> list[Path]:
    """Write ``report.json`` and ``report.html`` into ``out``, both or neither (atomic)."""
    from veil.io._atomic import atomic_dir

    out = Path(out)
    page = render_fl_html(summary)
    with atomic_dir(out) as stage:
        (stage / "report.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        (stage / "report.html").write_text(page, encoding="utf-8")
    return [out / "report.json", out / "report.html"]
