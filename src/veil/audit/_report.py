"""report.json and report.html of a model audit (``veil audit mia|dp --out DIR``)."""

from __future__ import annotations

import datetime as dt
import json
import platform
from pathlib import Path
from typing import Any

from veil._version import __version__

__all__ = ["audit_report", "write_audit_report"]


def audit_report(section: str, result: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    """A report holding one audit section (``membership_inference`` or ``dp_audit``).

    ``kind`` is ``"model_audit"``: the compliance section then maps the model's risks
    (membership inference, model inversion) and not a table release's.
    """
    from veil.report import REPORT_VERSION, compliance_section

    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "veil_version": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "kind": "model_audit",
        "summary": summary,
        section: result,
    }
    report["compliance"] = compliance_section(report)
    return report


def write_audit_report(out: str | Path, report: dict[str, Any]) -> list[Path]:
    """Write report.json and report.html into ``out`` as one set (both or neither)."""
    from veil.io import atomic_dir
    from veil.report import render_html

    page = render_html(report).replace("veil privacy report", "veil model audit", 2)
    text = json.dumps(report, indent=2, default=str) + "\n"
    out = Path(out)
    with atomic_dir(out) as stage:
        (stage / "report.json").write_text(text, encoding="utf-8")
        (stage / "report.html").write_text(page, encoding="utf-8")
    return [out / "report.json", out / "report.html"]
