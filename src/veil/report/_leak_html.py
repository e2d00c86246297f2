"""The HTML of the release leak scan (``report["leak_scan"]``, see :mod:`veil.audit`)."""

from __future__ import annotations

from typing import Any

__all__ = ["leak_scan_html"]


def leak_scan_html(report: dict[str, Any]) -> str:
    """A section: the verdict, the counts, and one row per (identifier, released column)."""
    from veil.report._html import _e, _table

    scan = report["leak_scan"]
    if not isinstance(scan, dict):
        return ""
    failing = int(scan.get("failing", 0) or 0)
    hits = int(scan.get("hits", 0) or 0)
    if hits == 0:
        verdict = '<p class="ok">No original identifier value found in the release.</p>'
    elif failing == 0:
        verdict = (
            f'<p class="muted">{hits} released cell(s) hold an original identifier value, '
            "all in pairs the policy allows (privacy.leak_scan.allow).</p>"
        )
    else:
        verdict = (
            f'<p class="bad">{failing} released cell(s) hold an original identifier value '
            "the policy does not allow.</p>"
        )
    allowed = scan.get("allowed_by_column") or {}
    rows = [
        [src, rel, n, "allowed" if rel in allowed.get(src, {}) else "leak"]
        for src, by_rel in (scan.get("by_column") or {}).items()
        for rel, n in by_rel.items()
    ]
    counts = (
        f"<p>Searched {_e(scan.get('values_scanned'))} identifier values and "
        f"{_e(scan.get('name_parts_scanned'))} name parts in {_e(', '.join(scan.get('tables', [])))}; "
        f"{_e(scan.get('skipped_short'))} values under {_e(scan.get('min_length'))} characters "
        f"not searched, {_e(scan.get('same_row_only'))} short numbers searched in their own row "
        f"only. Hits: {_e(scan.get('same_row'))} in the same row, {_e(scan.get('cross_row'))} "
        f"from another row, in {_e(scan.get('rows_with_hits'))} row(s).</p>"
    )
    table = (
        _table(["identifier column", "released column", "cells", "status"], rows, "leak-scan")
        if rows
        else ""
    )
    return f'<section id="leak-scan"><h2>Release leak scan</h2>{verdict}{counts}{table}</section>'
