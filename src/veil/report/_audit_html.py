"""The HTML of model audits: membership inference (log-log ROC) and the one-run DP bound."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["dp_audit_html", "membership_inference_html"]


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * float(x):.2f} %"


def _ci(ci: Any) -> str:
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return ""
    return f" [{_pct(ci[0])}, {_pct(ci[1])}]"


def membership_inference_html(report: dict[str, Any]) -> str:
    """A section: one row per attack (AUC, TPR at 0.1 % and 1 % FPR with intervals), the ROC."""
    from veil.report._html import _e, _table
    from veil.report._svg import roc_chart

    mia = report["membership_inference"]
    if not isinstance(mia, dict):
        return ""
    attacks = mia.get("attacks") or {mia.get("attack", "attack"): mia}
    rows = []
    curves = {}
    for name, a in attacks.items():
        tpr = a.get("tpr_at_fpr") or {}
        tci = a.get("tpr_at_fpr_ci") or {}
        auc_ci = a.get("auc_ci")
        rows.append(
            [
                name,
                f"{a.get('auc', float('nan')):.4f}"
                + (f" [{auc_ci[0]:.4f}, {auc_ci[1]:.4f}]" if auc_ci else ""),
                _pct(tpr.get("0.001")) + _ci(tci.get("0.001")),
                _pct(tpr.get("0.01")) + _ci(tci.get("0.01")),
                a.get("members"),
                a.get("nonmembers"),
            ]
        )
        if a.get("roc"):
            curves[name] = a["roc"]
    head = ["attack", "AUC", "TPR at 0.1 % FPR", "TPR at 1 % FPR", "members", "non-members"]
    first = next(iter(attacks.values()))
    res = first.get("fpr_resolution")
    notes = (
        f'<p class="muted">Intervals: {_e(first.get("ci_method", "none"))}, '
        f"{_e(_pct(first.get('confidence')))} confidence. With {_e(first.get('nonmembers'))} "
        f"non-members the smallest false-positive rate that can be measured is "
        f"{_e(_pct(res))}; a TPR at a lower FPR is the TPR at no false positive.</p>"
    )
    # the axes start one decade below the smallest measurable FPR (at most 1e-2, at least 1e-6)
    floor = 10.0 ** max(-6, math.floor(math.log10(min(float(res or 1e-3), 1e-2))) - 1)
    chart = roc_chart("mia-roc", "Membership inference ROC (log-log)", curves, floor=floor)
    if not curves:
        chart = ""
    model = mia.get("model") or {}
    model_line = (
        f"<p>Model: {_e(model.get('model', 'model'))}, "
        + (
            f"DP-SGD at epsilon {_e(model.get('epsilon'))}, delta {_e(model.get('delta'))}"
            if model.get("epsilon") is not None
            else "trained without DP"
        )
        + f"; {_e(mia.get('targets', 1))} target model(s), {_e(mia.get('shadows', 0))} shadow "
        "model(s), each on a random half of the rows.</p>"
    )
    return (
        '<section id="membership-inference"><h2>Membership inference</h2>'
        f"{model_line}{_table(head, rows, 'mia-table')}{notes}{chart}</section>"
    )


def dp_audit_html(report: dict[str, Any]) -> str:
    """A section: the lower bound beside the claim (red when above it), and the guesses."""
    from veil.report._html import _e, _table
    from veil.report._svg import bar_chart

    d = report["dp_audit"]
    if not isinstance(d, dict):
        return ""
    claim, bound = d.get("epsilon_claimed"), float(d.get("epsilon_lower_bound", 0.0))
    conf = d.get("confidence")
    if claim is None:
        verdict = (
            f'<p class="muted">Non-private training: epsilon lower bound {bound:.3f} at '
            f"{_e(_pct(conf))} confidence (the model is not differentially private at any "
            "epsilon below it).</p>"
        )
    elif bound > float(claim):
        verdict = (
            f'<p class="bad">The lower bound {bound:.3f} is above the claimed epsilon '
            f"{float(claim):g}: with {_e(_pct(conf))} confidence the training is not "
            f"({float(claim):g}, {_e(d.get('delta'))})-DP. This is a bug in the DP "
            "implementation or its accounting.</p>"
        )
    else:
        verdict = (
            f'<p class="ok">Lower bound {bound:.3f} at or below the claimed epsilon '
            f"{float(claim):g} ({_e(_pct(conf))} confidence): no evidence against the claim. "
            "A bound below the claim does not show the claim is tight.</p>"
        )
    labels = ["lower bound"] + ([] if claim is None else ["claimed"])
    values = [bound] + ([] if claim is None else [float(claim)])
    chart = bar_chart("dp-audit-bound", "Epsilon: one-run lower bound vs claim", labels, values)
    rows = [
        [p.get("k"), p.get("guesses"), p.get("correct"), p.get("epsilon_lower_bound")]
        for p in d.get("per_k") or []
    ]
    table = _table(["k", "guesses", "correct", "epsilon lower bound"], rows, "dp-audit-guesses")
    method = (
        f'<p class="muted">{_e(d.get("canaries"))} canaries ({_e(d.get("canary_kind"))}), '
        f"{_e(d.get('included'))} of them trained on; score: {_e(d.get('score'))}. "
        f"{_e(d.get('method'))}.</p>"
    )
    return (
        f'<section id="dp-audit"><h2>DP audit (one run)</h2>{verdict}{chart}{table}{method}'
        "</section>"
    )
