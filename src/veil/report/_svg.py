"""Small inline-SVG charts for the HTML report: bars, grouped bars and lines.

Written by hand rather than with a plotting library: a chart is a few dozen elements, the
page stays small (Adult's report is well under 100 kB) and renders offline everywhere.
Every chart is an ``<svg role="img">`` with a ``<title>`` for screen readers.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

__all__ = ["bar_chart", "grouped_bar_chart", "line_chart", "roc_chart"]

_COLORS = ("#3b6fb6", "#e08a2c", "#4f9d5d", "#b5475b", "#7a5cad")
_W, _H = 460, 240
_ML, _MR, _MT, _MB = 56, 12, 26, 52


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 1:
        return f"{v:.3g}"
    return f"{v:.2g}"


def _nice_max(v: float) -> float:
    if v <= 0 or not math.isfinite(v):
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= v:
            return m * exp
    return 10 * exp


def _frame(svg_id: str, title: str, y_max: float, y_label: str, log_hint: str = "") -> list[str]:
    ph = _H - _MT - _MB
    parts = [
        f'<svg id="{_e(svg_id)}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" font-family="sans-serif" font-size="11">',
        f"<title>{_e(title)}</title>",
        f'<text x="{_W / 2}" y="15" text-anchor="middle" font-size="12" font-weight="600">{_e(title)}</text>',
    ]
    for i in range(5):
        y = _MT + ph - ph * i / 4
        parts.append(
            f'<line x1="{_ML}" x2="{_W - _MR}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e6ec"/>'
            f'<text x="{_ML - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#445">{_fmt(y_max * i / 4)}</text>'
        )
    parts.append(
        f'<text transform="translate(12 {_MT + ph / 2}) rotate(-90)" text-anchor="middle" '
        f'fill="#445">{_e(y_label)}{_e(log_hint)}</text>'
    )
    return parts


def _x_labels(labels: Sequence[str], xs: Sequence[float], x_label: str) -> list[str]:
    parts = []
    step = max(1, math.ceil(len(labels) / 14))
    slanted = any(len(lab) > 5 for lab in labels) and len(labels) > 3
    y = _H - _MB + 14
    for i, (lab, x) in enumerate(zip(labels, xs, strict=True)):
        if i % step:
            continue
        short = lab if len(lab) <= 12 else lab[:11] + "…"
        if slanted:
            parts.append(
                f'<text transform="translate({x:.1f} {y - 4}) rotate(-30)" text-anchor="end" '
                f'fill="#445">{_e(short)}</text>'
            )
        else:
            parts.append(
                f'<text x="{x:.1f}" y="{y}" text-anchor="middle" fill="#445">{_e(short)}</text>'
            )
    if not slanted:
        parts.append(
            f'<text x="{_ML + (_W - _ML - _MR) / 2}" y="{_H - 10}" text-anchor="middle" '
            f'fill="#445">{_e(x_label)}</text>'
        )
    return parts


def grouped_bar_chart(
    svg_id: str,
    title: str,
    labels: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    x_label: str = "",
    y_label: str = "",
) -> str:
    """Bars per label, one bar per series side by side, with a legend."""
    n = max(len(labels), 1)
    pw, ph = _W - _ML - _MR, _H - _MT - _MB
    y_max = _nice_max(max((max(v, default=0.0) for v in series.values()), default=0.0))
    parts = _frame(svg_id, title, y_max, y_label)
    slot = pw / n
    k = max(len(series), 1)
    bw = max(1.0, slot * 0.8 / k)
    centers = []
    for i in range(len(labels)):
        x0 = _ML + slot * i + slot * 0.1
        centers.append(x0 + slot * 0.4)
        for j, (name, vals) in enumerate(series.items()):
            v = float(vals[i]) if i < len(vals) else 0.0
            h = ph * v / y_max if y_max else 0
            parts.append(
                f'<rect x="{x0 + j * bw:.1f}" y="{_MT + ph - h:.1f}" width="{bw:.1f}" height="{h:.1f}" '
                f'fill="{_COLORS[j % len(_COLORS)]}"><title>{_e(name)}: {_fmt(v)}</title></rect>'
            )
    parts += _x_labels(list(labels), centers, x_label)
    if len(series) > 1:
        for j, name in enumerate(series):
            x = _W - _MR - 110
            y = _MT + 4 + j * 14
            parts.append(
                f'<rect x="{x}" y="{y}" width="10" height="10" fill="{_COLORS[j % len(_COLORS)]}"/>'
                f'<text x="{x + 14}" y="{y + 9}" fill="#223">{_e(name)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(
    svg_id: str,
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    x_label: str = "",
    y_label: str = "",
) -> str:
    """A single-series bar chart."""
    return grouped_bar_chart(
        svg_id, title, labels, {y_label or "value": values}, x_label=x_label, y_label=y_label
    )


def line_chart(
    svg_id: str,
    title: str,
    xs: Sequence[float],
    series: dict[str, Sequence[float]],
    *,
    x_label: str = "",
    y_label: str = "",
    x_log: bool = False,
) -> str:
    """Lines over a shared x axis (optionally logarithmic), points marked, legend."""
    pw, ph = _W - _ML - _MR, _H - _MT - _MB
    y_max = _nice_max(max((max(v, default=0.0) for v in series.values()), default=0.0))
    parts = _frame(svg_id, title, y_max, y_label)
    tx = [math.log10(x) if x_log else float(x) for x in xs] if xs else [0.0]
    lo, hi = min(tx), max(tx)
    span = (hi - lo) or 1.0

    def px(i: int) -> float:
        return _ML + pw * (tx[i] - lo) / span

    for j, (name, vals) in enumerate(series.items()):
        color = _COLORS[j % len(_COLORS)]
        pts = [(px(i), _MT + ph - ph * float(v) / y_max) for i, v in enumerate(vals)]
        if pts:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>'
            )
        for (x, y), v, xv in zip(pts, vals, xs, strict=False):
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"><title>{_e(name)} at '
                f"{_fmt(float(xv))}: {_fmt(float(v))}</title></circle>"
            )
        lx, ly = _W - _MR - 150, _MT + 4 + j * 14
        parts.append(
            f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{color}"/>'
            f'<text x="{lx + 14}" y="{ly + 9}" fill="#223">{_e(name)}</text>'
        )
    parts += _x_labels([_fmt(float(x)) for x in xs], [px(i) for i in range(len(xs))], x_label)
    parts.append("</svg>")
    return "".join(parts)


def roc_chart(
    svg_id: str,
    title: str,
    curves: dict[str, Sequence[Sequence[float]]],
    *,
    floor: float = 1e-4,
) -> str:
    """ROC curves on log-log axes (FPR and TPR from ``floor`` to 1), with the chance line.

    ``curves`` maps a name to [fpr, tpr] points; points at 0 are drawn at ``floor`` (the
    axes cannot show 0), so a curve's start reads "TPR at no false positive".
    """
    pw, ph = _W - _ML - _MR, _H - _MT - _MB
    lo = math.log10(floor)

    def px(f: float) -> float:
        return _ML + pw * (math.log10(max(f, floor)) - lo) / -lo

    def py(t: float) -> float:
        return _MT + ph - ph * (math.log10(max(t, floor)) - lo) / -lo

    parts = [
        f'<svg id="{_e(svg_id)}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" font-family="sans-serif" font-size="11">',
        f"<title>{_e(title)}</title>",
        f'<text x="{_W / 2}" y="15" text-anchor="middle" font-size="12" font-weight="600">{_e(title)}</text>',
    ]
    decade = 0
    while 10.0**-decade >= floor:
        v = 10.0**-decade
        lab = f"{v:g}"
        parts.append(
            f'<line x1="{_ML}" x2="{_W - _MR}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#e3e6ec"/>'
            f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{_MT}" y2="{_MT + ph}" stroke="#e3e6ec"/>'
            f'<text x="{_ML - 4}" y="{py(v) + 4:.1f}" text-anchor="end" fill="#445">{lab}</text>'
            f'<text x="{px(v):.1f}" y="{_H - _MB + 14}" text-anchor="middle" fill="#445">{lab}</text>'
        )
        decade += 1
    parts.append(
        f'<line x1="{px(floor):.1f}" y1="{py(floor):.1f}" x2="{px(1):.1f}" y2="{py(1):.1f}" '
        'stroke="#999" stroke-dasharray="4 3"><title>chance (TPR = FPR)</title></line>'
        f'<text x="{_ML + pw / 2}" y="{_H - 10}" text-anchor="middle" fill="#445">'
        "false-positive rate (log)</text>"
        f'<text transform="translate(12 {_MT + ph / 2}) rotate(-90)" text-anchor="middle" '
        'fill="#445">true-positive rate (log)</text>'
    )
    for j, (name, pts) in enumerate(curves.items()):
        color = _COLORS[j % len(_COLORS)]
        # a step function: the TPR holds until the next FPR
        path: list[str] = []
        prev_t = None
        for f, t in pts:
            if prev_t is not None:
                path.append(f"{px(f):.1f},{py(prev_t):.1f}")
            path.append(f"{px(f):.1f},{py(t):.1f}")
            prev_t = t
        if path:
            parts.append(
                f'<polyline points="{" ".join(path)}" fill="none" stroke="{color}" '
                f'stroke-width="2"><title>{_e(name)}</title></polyline>'
            )
        lx, ly = _ML + 8, _MT + 4 + j * 14
        parts.append(
            f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{color}"/>'
            f'<text x="{lx + 14}" y="{ly + 9}" fill="#223">{_e(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
