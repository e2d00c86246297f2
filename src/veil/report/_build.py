"""Assemble report.json from what the stages measured.

The report holds column names, configuration, counts and measurements, never a data value.
Its shape is described by the JSON Schema ``veil/report/schema.json`` (see :func:`schema`);
``report_version`` changes its major number when a key is removed or changes meaning, and its
minor number when keys are added.
"""

from __future__ import annotations

import datetime as dt
import platform
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veil._version import __version__

if TYPE_CHECKING:
    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["REPORT_VERSION", "ReleaseFacts", "build_report", "schema"]

REPORT_VERSION = "1.1"


def schema() -> dict[str, Any]:
    """The JSON Schema of report.json (draft 2020-12)."""
    import json
    from importlib.resources import files

    text = (files("veil.report") / "schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


def policy_for_report(policy: Policy) -> dict[str, Any]:
    """The policy as JSON, with the parts that can hold data values replaced by counts,
    and database URLs without their password.

    Allow and deny lists hold literal terms (often names) and custom patterns may embed
    literal values: the report says how many there are, never what they are.
    """
    dumped: dict[str, Any] = policy.model_dump(mode="json", exclude={"base_dir"})
    for block in ("data", "output"):
        section = dumped.get(block)
        if isinstance(section, dict) and section.get("url"):
            from veil.dp._store import redact_url

            section["url"] = redact_url(str(section["url"]))  # no password in the report
    for column in dumped.get("columns", {}).values():
        text = column.get("text")
        if not isinstance(text, dict):
            continue
        for key in ("allow_list", "deny_list"):
            if text.get(key):
                text[key] = f"<{len(text[key])} term(s) withheld>"
        if text.get("patterns"):
            text["patterns"] = [
                {k: v for k, v in p.items() if k in ("name", "entity", "entity_type", "score")}
                | {"regex": "<withheld>"}
                for p in text["patterns"]
            ]
    return dumped


@dataclass(frozen=True)
class ReleaseFacts:
    """What the report reads from the rows, measured elsewhere: the Ray engine merges these
    from the partitions, and gives :func:`build_report` frames that hold only the columns."""

    input_rows: int
    released_rows: int
    suppressed_rows: int
    generalized: list[str] | None  # the quasi-identifiers the release changed
    warnings: list[dict[str, Any]]  # release_warnings of the whole release


def _column_section(ctx: RunContext, facts: ReleaseFacts | None = None) -> list[dict[str, Any]]:
    out = []
    released = set(map(str, ctx.data.columns))
    # A two-column transform (geo) rewrites its partner column too: say so on the partner.
    partners = {
        getattr(col.transform, "longitude_column", None): (name, col.transform.type)
        for name, col in ctx.policy.columns.items()
        if col.transform is not None
    }
    from veil.report._warnings import _generalized_qis, generalization_labels

    compared = _generalized_qis(ctx) if facts is None else facts.generalized
    changed = set(compared) if compared is not None else None
    shown = generalization_labels(ctx, changed)
    for name, col in ctx.policy.columns.items():
        entry: dict[str, Any] = {
            "name": name,
            "role": col.role.value,
            "released": name in released,
        }
        if col.transform is not None:
            entry["transform"] = col.transform.type
        elif name in partners:
            entry["transform"] = partners[name][1]
            entry["transformed_with"] = partners[name][0]
        if col.hierarchy is not None:
            entry["hierarchy"] = col.hierarchy.type
        if name in shown:
            entry["generalization"] = shown[name]
            entry["generalized"] = not shown[name].startswith("not generalized")
        if col.text is not None:
            entry["operator"] = col.text.operator
        out.append(entry)
    return out


def build_report(
    ctx: RunContext,
    *,
    timings: dict[str, float],
    stages: list[str],
    facts: ReleaseFacts | None = None,
) -> dict[str, Any]:
    """Build the JSON report of a run (see ``veil/report/schema.json``).

    ``facts``: the row counts, generalized columns and warnings, when ``ctx``'s frames do
    not hold the rows (the Ray engine); else they are measured on ``ctx.original`` and
    ``ctx.data``.
    """
    if facts is not None:
        suppressed = facts.suppressed_rows
    else:
        suppressed = int(ctx.suppressed.sum()) if ctx.suppressed is not None else 0
    summary: dict[str, Any] = {
        "input_rows": len(ctx.original) if facts is None else facts.input_rows,
        "input_columns": len(ctx.original.columns),
        "released_rows": len(ctx.data) if facts is None else facts.released_rows,
        "released_columns": len(ctx.data.columns),
        "suppressed_rows": suppressed,
        "dropped_columns": len(ctx.original.columns) - len(ctx.data.columns),
    }
    for section in ctx.report.values():
        if isinstance(section, dict):
            summary.update(section.get("summary", {}))
    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "veil_version": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "policy": policy_for_report(ctx.policy),
        "stages": stages,
        "timings": timings,
        "summary": summary,
        "columns": _column_section(ctx, facts),
    }
    report.update(ctx.report)
    from veil.report._warnings import release_warnings

    found = release_warnings(ctx) if facts is None else facts.warnings
    report["warnings"] = [*report.get("warnings", []), *found]
    from veil.report._compliance import compliance_section

    report["compliance"] = compliance_section(report)
    return report
