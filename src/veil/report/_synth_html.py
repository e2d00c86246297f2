"""The synthetic-data section of report.html: the privacy statement, the quality figures
with the worst column and pair, and real-vs-synthetic histograms per column."""

from __future__ import annotations

from typing import Any

from veil.report._html_base import _e, _figure, _fmt, _generic, _table
from veil.report._svg import grouped_bar_chart

__all__ = ["synth_html"]


def synth_html(report: dict[str, Any]) -> str:
    syn = report["synth"]
    parts = ['<section id="synth"><h2>Synthetic data</h2>']
    if not isinstance(syn, dict):
        parts.append(_generic(syn))
        parts.append("</section>")
        return "".join(parts)
    fit = syn.get("fit") or {}
    statement = syn.get("privacy_statement") or fit.get("privacy_statement")
    dp_fit = bool(fit.get("differential_privacy"))
    cls = "" if dp_fit and not syn.get("domain_from_data") else ' class="bad"'
    parts.append(
        f"<p{cls}><b>{_e(syn.get('method'))}</b>: {_e(statement or 'no privacy statement')}</p>"
    )
    q = ((syn.get("evaluation") or {}).get("quality")) or {}
    if q:
        wc, wp = q.get("worst_column") or {}, q.get("worst_pair") or {}
        rows = [
            ["quality, every pair scored", _fmt(q.get("score_all_pairs"))],
            [
                "worst column",
                f"{wc.get('column', 'n/a')} ({_fmt(wc.get('score'))}"
                + (f"; {wc['reason']})" if wc.get("reason") else ")")
                if wc
                else "n/a",
            ],
            [
                "worst pair",
                f"{' x '.join(wp.get('columns', []))} ({_fmt(wp.get('score'))})" if wp else "n/a",
            ],
            ["column shapes (mean)", _fmt(q.get("column_shapes"))],
            [
                "column pairs, every pair (mean; real-quantile bins)",
                _fmt(q.get("all_pairs")),
            ],
            ["quality, sdmetrics definition (peer figure)", _fmt(q.get("score"))],
            [
                "pairs scored (sdmetrics / every pair)",
                f"{q.get('pairs_scored')} / {q.get('pairs_total')}",
            ],
        ]
        parts.append(_table(["measure", "value"], rows, "synth-quality"))
        pairs = sorted(
            q.get("pairs") or [],
            key=lambda p: (p.get("joint_score") is not None, p.get("joint_score") or 0.0),
        )
        if pairs:
            parts.append("<h3>Every column pair, worst first</h3>")
            parts.append(
                _table(
                    ["pair", "joint score (real-quantile bins)", "sdmetrics score", "note"],
                    [
                        [
                            " x ".join(p.get("columns", [])),
                            _fmt(p.get("joint_score")),
                            _fmt(p.get("score")),
                            p.get("reason", ""),
                        ]
                        for p in pairs
                    ],
                    "synth-pairs",
                )
            )
    for i, h in enumerate(syn.get("histograms") or []):
        parts.append(
            _figure(
                grouped_bar_chart(
                    f"synth-hist-{i}",
                    f"{h.get('column')}: real vs synthetic",
                    list(h.get("labels") or []),
                    {"real": h.get("real") or [], "synthetic": h.get("synthetic") or []},
                    x_label="bin" if h.get("kind") == "numeric" else "category",
                    y_label="share of rows",
                ),
                f"Share of rows per {'bin' if h.get('kind') == 'numeric' else 'category'} of "
                f"column {h.get('column')}, real training rows beside synthetic rows"
                + ("" if h.get("labels_are_values") else " (labelled by position)")
                + ".",
            )
        )
    rest = {k: v for k, v in syn.items() if k not in ("histograms",)}
    parts.append(_generic(rest))
    parts.append("</section>")
    return "".join(parts)
