"""Opt-in examples for the HTML report: released values of the riskiest classes.

The report holds no data value by default. ``veil report RUN_DIR --examples N`` adds this
section, read from the released table (never from the input), so that a reviewer can see what
the smallest classes look like. The values shown are those already released.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

__all__ = ["examples_section", "inject"]


def _released_path(report: dict[str, Any], run_dir: Path) -> Path | None:
    table = (report.get("outputs") or {}).get("table")
    candidates = []
    if table:
        candidates += [run_dir / Path(table).name, Path(table)]
    candidates += sorted(run_dir.glob("released.*"))
    return next((c for c in candidates if c.is_file()), None)


def examples_section(report: dict[str, Any], run_dir: Path, n: int) -> str:
    """HTML of the ``n`` smallest released classes (values and size), or a note why not."""
    from veil.io import read_table
    from veil.risk import equivalence_classes

    qis = (report.get("risk") or {}).get("quasi_identifiers") or []
    path = _released_path(report, run_dir)
    head = '<section id="examples"><h2>Examples (contains released data values)</h2>'
    if not qis or path is None:
        return head + '<p class="muted">No released table or quasi-identifiers found.</p></section>'
    df = read_table(path)
    ec = equivalence_classes(df, qis, marker="*")
    order = ec.sizes.argsort(kind="stable")[:n]
    first = {}
    for pos, c in enumerate(ec.class_of_row):
        if c >= 0 and c not in first:
            first[c] = pos
    rows = []
    for c in order:
        vals = df.iloc[first[int(c)]][qis]
        cells = "".join(f"<td>{html.escape(str(v))}</td>" for v in vals)
        rows.append(f"<tr>{cells}<td>{int(ec.sizes[c])}</td></tr>")
    th = "".join(f"<th>{html.escape(q)}</th>" for q in qis)
    return head + f"<table><tr>{th}<th>class size</th></tr>{''.join(rows)}</table></section>"


def inject(page: str, section: str) -> str:
    """Insert a section before the compliance section (or the end of the body)."""
    marker = '<section id="compliance">'
    if marker in page:
        return page.replace(marker, section + marker, 1)
    return page.replace("</body>", section + "</body>", 1)
