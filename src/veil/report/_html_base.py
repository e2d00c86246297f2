"""The building blocks of report.html: the page's style, escaping, number formatting,
tables, figures and the generic renderer of any JSON value (bounded nested tables)."""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["_CSS", "_Raw", "_e", "_figure", "_fmt", "_generic", "_kv_table", "_table"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;
color:#1d2330;padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;border-bottom:1px solid #dde;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1rem;margin:1.2rem 0 .3rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}td,th{border:1px solid #dde;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f3f5f9}.ok{color:#0a7d32;font-weight:600}.bad{color:#b3261e;font-weight:600}
.muted{color:#667}code,pre{background:#f6f7fa;padding:.1rem .3rem;border-radius:3px}
pre{padding:.6rem;overflow-x:auto;font-size:.8rem}.grid{display:flex;flex-wrap:wrap;gap:1.5rem}
figure{margin:0}figcaption{font-size:.85rem;color:#445;max-width:460px}
.num{text-align:right;font-variant-numeric:tabular-nums}ul{margin:.2rem 0 .6rem 1.2rem;padding:0}
"""


def _e(v: Any) -> str:
    return html.escape(str(v))


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _kv_table(d: dict[str, Any], table_id: str) -> str:
    rows = "".join(
        f"<tr><th>{_e(str(k).replace('_', ' '))}</th><td>{_generic(v, 1)}</td></tr>"
        for k, v in d.items()
    )
    return f'<table id="{_e(table_id)}">{rows}</table>'


def _table(head: list[str], rows: list[list[Any]], table_id: str | None = None) -> str:
    tid = f' id="{_e(table_id)}"' if table_id else ""
    h = "".join(f"<th>{_e(c)}</th>" for c in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{_e(_fmt(c))}</td>'
            if isinstance(c, int | float) and not isinstance(c, bool)
            else f"<td>{c if isinstance(c, _Raw) else _e(_fmt(c))}</td>"
            for c in r
        )
        + "</tr>"
        for r in rows
    )
    return f"<table{tid}><tr>{h}</tr>{body}</table>"


class _Raw(str):
    """HTML already escaped."""


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _generic(v: Any, depth: int = 0) -> str:
    """Render any JSON value as HTML (nested tables, bounded)."""
    if isinstance(v, dict):
        if not v:
            return '<span class="muted">–</span>'
        if depth >= 4:
            return f"<pre>{_e(json.dumps(v, indent=1, default=str)[:4000])}</pre>"
        rows = "".join(
            f"<tr><th>{_e(str(k).replace('_', ' '))}</th><td>{_generic(x, depth + 1)}</td></tr>"
            for k, x in list(v.items())[:200]
        )
        return f"<table>{rows}</table>"
    if isinstance(v, list):
        if not v:
            return '<span class="muted">none</span>'
        if all(isinstance(x, dict) for x in v) and depth < 4:
            keys: list[str] = []
            for x in v[:100]:
                keys += [k for k in x if k not in keys]
            cells: list[list[Any]] = [
                [_Raw(_generic(x.get(k), depth + 1)) for k in keys] for x in v[:100]
            ]
            more = f'<p class="muted">{len(v) - 100} more rows</p>' if len(v) > 100 else ""
            return _table(keys, cells) + more
        shown = ", ".join(_e(_fmt(x)) for x in v[:50])
        return shown + (f" … ({len(v)} in all)" if len(v) > 50 else "")
    return _e(_fmt(v))
