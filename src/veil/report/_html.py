"""Render report.json as one self-contained HTML page (no external scripts, fonts or images)."""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;
color:#1d2330;padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;border-bottom:1px solid #dde;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}td,th{border:1px solid #dde;padding:.25rem .6rem;text-align:left}
th{background:#f3f5f9}.ok{color:#0a7d32;font-weight:600}.bad{color:#b3261e;font-weight:600}
.muted{color:#667}code,pre{background:#f6f7fa;padding:.1rem .3rem;border-radius:3px}
pre{padding:.6rem;overflow-x:auto;font-size:.8rem}.grid{display:flex;flex-wrap:wrap;gap:1.5rem}
figure{margin:0}figcaption{font-size:.85rem;color:#445}
"""


def _e(v: Any) -> str:
    return html.escape(str(v))


def _kv_table(d: dict[str, Any], table_id: str) -> str:
    rows = "".join(
        f"<tr><th>{_e(k.replace('_', ' '))}</th><td>{_e(_fmt(v))}</td></tr>" for k, v in d.items()
    )
    return f'<table id="{table_id}">{rows}</table>'


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def _columns_table(columns: list[dict[str, Any]]) -> str:
    head = "<tr><th>column</th><th>role</th><th>treatment</th><th>released</th></tr>"
    rows = []
    for c in columns:
        treat = c.get("transform") or c.get("hierarchy") or c.get("operator") or "kept"
        if c.get("hierarchy"):
            treat = f"generalized ({c['hierarchy']} hierarchy)"
        rows.append(
            f"<tr><td>{_e(c['name'])}</td><td>{_e(c['role'])}</td><td>{_e(treat)}</td>"
            f"<td>{'yes' if c['released'] else 'no'}</td></tr>"
        )
    return f'<table id="columns">{head}{"".join(rows)}</table>'


# Sections later stages add render through these hooks: name -> function(report) -> html.
SECTION_RENDERERS: dict[str, Any] = {}


def render_html(report: dict[str, Any]) -> str:
    """Return the report as a complete HTML document (inline CSS and SVG only)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>veil privacy report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>veil privacy report</h1>",
        f'<p class="muted">veil {_e(report.get("veil_version"))} · report format '
        f'{_e(report.get("report_version"))} · {_e(report.get("created"))}</p>',
        '<section id="summary"><h2>Summary</h2>',
        _kv_table(report.get("summary", {}), "summary-table"),
        "</section>",
        '<section id="columns-section"><h2>Columns</h2>',
        _columns_table(report.get("columns", [])),
        "</section>",
    ]
    for name, renderer in SECTION_RENDERERS.items():
        if name in report:
            parts.append(renderer(report))
    parts += [
        '<section id="policy"><h2>Policy</h2>',
        f"<pre>{_e(json.dumps(report.get('policy', {}), indent=2))}</pre></section>",
        '<section id="timings"><h2>Timings (s)</h2>',
        _kv_table(report.get("timings", {}), "timings-table"),
        "</section></body></html>",
    ]
    return "\n".join(parts)
