"""Render report.json as one self-contained HTML page (no external scripts, fonts or images).

Charts are inline SVG (:mod:`veil.report._svg`); the page has no script at all. Sections the
renderer knows get tables and charts; any other section of the report (a stage added later)
is rendered generically as nested tables, so nothing measured is hidden. The page shows only
what the JSON holds, and the JSON holds no data value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from veil.report._audit_html import dp_audit_html, membership_inference_html
from veil.report._compliance import compliance_section
from veil.report._html_base import _CSS, _e, _figure, _fmt, _generic, _kv_table, _Raw, _table
from veil.report._leak_html import leak_scan_html
from veil.report._svg import bar_chart, grouped_bar_chart, line_chart
from veil.report._synth_html import synth_html

# the building blocks stay importable from here (the section modules import them lazily)
__all__ = [
    "SECTION_RENDERERS",
    "_CSS",
    "_Raw",
    "_e",
    "_figure",
    "_fmt",
    "_generic",
    "_kv_table",
    "_table",
    "render_html",
]

# --------------------------------------------------------------------------- sections


def _requirements(report: dict[str, Any]) -> str:
    reqs = (report.get("risk") or {}).get("requirements") or []
    if not reqs:
        return ""
    rows = []
    for r in reqs:
        mark = _Raw(
            '<span class="ok">met</span>' if r.get("met") else '<span class="bad">NOT met</span>'
        )
        required = r.get("required")
        if r.get("l") is not None:  # recursive (c,l): c is measured at the policy's l
            required = f"c = {_fmt(required)} at l = {r['l']}"
        rows.append(
            [
                r.get("model"),
                r.get("column", "–"),
                required,
                r.get("measured"),
                mark,
                r.get("condition") or r.get("note") or "",
            ]
        )
    return (
        '<section id="guarantees"><h2>Guarantees, re-checked on the release</h2>'
        + _table(
            ["model", "column", "required", "measured", "status", "condition"],
            rows,
            "guarantees-table",
        )
        + "</section>"
    )


_SIZE_BINS = (
    (1, 1),
    (2, 2),
    (3, 4),
    (5, 9),
    (10, 19),
    (20, 49),
    (50, 99),
    (100, 999),
    (1000, None),
)


def _risk(report: dict[str, Any]) -> str:
    risk = report["risk"]
    if "risk" not in risk:
        return '<section id="risk"><h2>Re-identification risk</h2>' + _generic(risk) + "</section>"
    rr = risk["risk"]
    parts = ['<section id="risk"><h2>Re-identification risk</h2>']
    if risk.get("note"):
        parts.append(f'<p class="bad">{_e(risk["note"])}</p>')
    p, j, m = rr["prosecutor"], rr["journalist"], rr["marketer"]
    parts.append(
        _table(
            [
                "attacker model",
                "highest",
                "average",
                "records at highest",
                f"records above {rr['threshold']:g}",
            ],
            [
                [
                    "prosecutor (knows the person is in the data)",
                    p["highest"],
                    p["average"],
                    p["records_at_highest"],
                    p["records_above_threshold"],
                ],
                [
                    f"journalist (population: {j.get('population', 'sample')})",
                    j["highest"],
                    j["average"],
                    j["records_at_highest"],
                    j["records_above_threshold"],
                ],
                ["marketer (re-identify as many as possible)", None, m["average"], None, None],
            ],
            "risk-table",
        )
    )
    parts.append(
        f"<p>{rr['records']} records in {rr['classes']} equivalence classes; "
        f"{risk.get('suppressed_rows', 0)} suppressed rows; sample uniques: "
        f"{rr['sample_uniques']['records']} ({rr['sample_uniques']['share']:.2%}).</p>"
    )
    sizes = rr.get("class_sizes", [])
    labels, counts = [], []
    for lo, hi in _SIZE_BINS:
        labels.append(f"{lo}" if lo == hi else (f"{lo}-{hi}" if hi else f"{lo}+"))
        counts.append(
            sum(s["classes"] for s in sizes if s["size"] >= lo and (hi is None or s["size"] <= hi))
        )
    dist = rr.get("distribution", [])
    risk_labels = [f"≤{d['upper']:.0%}" if d["upper"] < 1 else "≤100%" for d in dist]
    parts.append('<div class="grid">')
    parts.append(
        _figure(
            bar_chart(
                "class-size-histogram",
                "Equivalence-class sizes",
                labels,
                counts,
                x_label="class size (records)",
                y_label="classes",
            ),
            "How many classes have each size. Classes of size 1 are sample uniques.",
        )
    )
    parts.append(
        _figure(
            bar_chart(
                "risk-distribution",
                "Prosecutor risk of records",
                risk_labels,
                [d["records"] for d in dist],
                x_label="re-identification risk (upper bound of bucket)",
                y_label="records",
            ),
            "Records by their re-identification risk, 1 / size of their class.",
        )
    )
    parts.append("</div>")
    if risk.get("sensitive"):
        rows = []
        for s in risk["sensitive"]:
            rows.append(
                [
                    s["column"],
                    s["distinct_values"],
                    s["l"]["distinct"],
                    s["l"]["entropy"],
                    s["recursive"]["c"],
                    s["t"]["equal"],
                    s["t"]["ordered"],
                    s["alpha"],
                    s["beta_likeness"]["basic"],
                    s["delta_disclosure"],
                ]
            )
        parts.append("<h3>Anonymity levels per sensitive attribute</h3>")
        parts.append(
            _table(
                [
                    "column",
                    "values",
                    "l distinct",
                    "l entropy",
                    "recursive c",
                    "t equal",
                    "t ordered",
                    "alpha",
                    "beta",
                    "delta",
                ],
                rows,
                "levels-table",
            )
        )
    inf = risk.get("attribute_inference") or {}
    if inf:
        parts.append("<h3>Attribute inference (homogeneity)</h3>")
        parts.append(
            _table(
                [
                    "sensitive attribute",
                    "records in homogeneous classes",
                    "majority-guess accuracy",
                    "without quasi-identifiers",
                    "lift",
                ],
                [
                    [s, v["homogeneous"], v["majority_guess"], v["baseline"], v["lift"]]
                    for s, v in inf.items()
                ],
                "inference-table",
            )
        )
    if risk.get("linkage"):
        parts.append("<h3>Linkage attack</h3>" + _generic(risk["linkage"]))
    pu = risk.get("population_uniqueness")
    if pu:
        parts.append("<h3>Population uniqueness</h3>")
        parts.append(
            _table(
                ["model", "estimated population uniques", "share of population"],
                [[k, v["uniques"], v["share"]] for k, v in pu["estimates"].items()],
                "uniqueness-table",
            )
        )
        parts.append(
            f'<p class="muted">Dankar et al. rule chose {_e(pu["dankar_model"])}; '
            f"population {pu['population_size']}, sampling fraction {pu['sampling_fraction']:.4g}.</p>"
        )
    parts.append("</section>")
    return "".join(parts)


def _generalization(report: dict[str, Any]) -> str:
    anon = report.get("anonymize") or {}
    trans = anon.get("transformation")
    parts = ['<section id="generalization"><h2>Generalization per quasi-identifier</h2>']
    levels: dict[str, float] = {}
    maxes: dict[str, float] = {}
    if isinstance(trans, dict):
        for q, v in trans.items():
            if isinstance(v, dict):
                levels[q] = float(v.get("level", 0))
                if v.get("max") is not None:
                    maxes[q] = float(v["max"])
            elif isinstance(v, int | float):
                levels[q] = float(v)
    elif isinstance(trans, list):
        qis = (report.get("risk") or {}).get("quasi_identifiers") or []
        levels = {
            q: float(v) for q, v in zip(qis, trans, strict=False) if isinstance(v, int | float)
        }
    for q, v in (anon.get("max_levels") or {}).items():
        maxes.setdefault(q, float(v))
    if levels:
        parts.append(
            _figure(
                bar_chart(
                    "generalization-levels",
                    "Generalization level",
                    list(levels),
                    list(levels.values()),
                    x_label="quasi-identifier",
                    y_label="level",
                ),
                "Hierarchy level applied to each quasi-identifier (0 = original values)."
                + (
                    " Maximum levels: " + ", ".join(f"{q} {int(m)}" for q, m in maxes.items())
                    if maxes
                    else ""
                ),
            )
        )
    else:
        cols = [c for c in (report.get("utility") or {}).get("columns", []) if c.get("generalized")]
        if cols:
            parts.append(
                _figure(
                    grouped_bar_chart(
                        "generalization-levels",
                        "Distinct values kept",
                        [c["column"] for c in cols],
                        {
                            "original": [c["distinct_original"] for c in cols],
                            "released": [c["distinct_released"] for c in cols],
                        },
                        x_label="quasi-identifier",
                        y_label="distinct values",
                    ),
                    "The anonymization stage reported no transformation; shown instead: how many distinct "
                    "values each generalized column has before and after.",
                )
            )
        else:
            parts.append('<p class="muted">No generalization was applied or reported.</p>')
    parts.append("</section>")
    return "".join(parts)


_LOSS_LABELS = {
    "discernibility": "discernibility (DM, suppressed records cost n each)",
    "discernibility_normalized": "discernibility / n²",
    "average_class_size": "average class size (kept records / kept classes)",
    "average_class_size_normalized": "average class size / k",
}


def _sweep_series(points: list[dict[str, Any]], metric: str | None) -> dict[str, Sequence[float]]:
    series: dict[str, Sequence[float]] = {
        "highest risk": [p["highest_risk"] for p in points],
        "average risk": [p["average_risk"] for p in points],
        "records suppressed": [p["suppressed_share"] for p in points],
    }
    if metric == "loss":  # on [0, 1] like the rest; other metrics have their own scales
        series["information loss"] = [p["information_loss"] for p in points]
    return series


def _utility(report: dict[str, Any]) -> str:
    u = report["utility"]
    parts = ['<section id="utility"><h2>Utility</h2>']
    cols = u.get("columns") or []
    if cols:
        parts.append("<h3>Distribution distance per column</h3>")
        parts.append(
            _table(
                [
                    "column",
                    "generalized",
                    "distinct (original)",
                    "distinct (released)",
                    "total variation",
                    "KS",
                ],
                [
                    [
                        c["column"],
                        c["generalized"],
                        c["distinct_original"],
                        c["distinct_released"],
                        c["total_variation"],
                        c.get("ks"),
                    ]
                    for c in cols
                ],
                "utility-table",
            )
        )
        parts.append('<div id="distributions" class="grid">')
        for i, c in enumerate(cols[:12]):
            prof = c.get("profile")
            if not prof:
                continue
            n = len(prof["original"])
            labels = [f"#{j + 1}" for j in range(n)]
            if n and len(prof["original"]) > 12:
                labels[-1] = "rest"
            parts.append(
                _figure(
                    grouped_bar_chart(
                        f"dist-{i}",
                        f"{c['column']}: original vs released",
                        labels,
                        {"original": prof["original"], "released": prof["released"]},
                        x_label="values by rank in the original",
                        y_label="share of records",
                    ),
                    "Shares of the most frequent values (unlabeled: the report holds no data values); "
                    "generalized columns are compared at the released granularity.",
                )
            )
        parts.append("</div>")
    assoc = u.get("associations") or {}
    if assoc.get("pairs"):
        parts.append(
            f"<h3>Associations between columns</h3><p>Cramér's V over {len(assoc['pairs'])} column pairs: "
            f"mean absolute change {assoc['mean_abs_change']:.4g}, largest {assoc['max_abs_change']:.4g}.</p>"
        )
        if assoc.get("reduced"):  # columns with many values, binned or capped first
            parts.append(
                f"<p>{len(assoc['reduced'])} column(s) with more than {assoc.get('max_categories')} "
                "values were reduced first: numbers written as text to 10 quantile bins, other "
                "text to its most frequent values plus one 'other'.</p>"
            )
    loss = u.get("information_loss")
    if loss:
        flat = {_LOSS_LABELS.get(k, k): v for k, v in loss.items() if not isinstance(v, dict)}
        nue = loss.get("non_uniform_entropy") or {}
        if nue:
            flat["non_uniform_entropy (normalized)"] = nue.get("normalized")
        parts.append(
            "<h3>Information loss, measured on the release</h3>"
            '<p class="muted">veil\'s definitions: discernibility (DM) charges each suppressed '
            "record the table's size; the average class size counts kept records and classes "
            "only.</p>" + _kv_table(flat, "information-loss-table")
        )
    if u.get("engine_metrics"):
        parts.append(
            "<h3>Scores of the anonymization search</h3>"
            '<p class="muted">ARX\'s definitions, as the search ranked the candidates: dm is '
            "ARX's DM* (suppression not penalized), aecs is ARX's AECS (n / (kept classes x s "
            "+ g)); with suppressed records they differ from the figures above.</p>"
            + _generic(u["engine_metrics"])
        )
    ml = u.get("ml")
    if ml:
        rows = []
        for name, r in ml["models"].items():
            rows.append(
                [
                    name.replace("_", " "),
                    r["original"]["accuracy"],
                    r["released"]["accuracy"],
                    r["accuracy_delta"],
                    r["original"]["auc"],
                    r["released"]["auc"],
                    r["auc_delta"],
                ]
            )
        parts.append(
            f"<h3>ML utility</h3><p>Predicting <code>{_e(ml['target'])}</code> ({ml['classes']} classes) "
            f"from {len(ml['features'])} columns; trained on {ml['train_rows']['original']} original and "
            f"{ml['train_rows']['released']} released rows, tested on {ml['test_rows']} held-out original rows.</p>"
        )
        parts.append(
            _table(
                [
                    "model",
                    "accuracy (original)",
                    "accuracy (released)",
                    "Δ accuracy",
                    "AUC (original)",
                    "AUC (released)",
                    "Δ AUC",
                ],
                rows,
                "ml-table",
            )
        )
        if ml.get("note"):
            parts.append(f'<p class="muted">{_e(ml["note"])}</p>')
    anon_section = report.get("anonymize")
    anon: dict[str, Any] = anon_section if isinstance(anon_section, dict) else {}
    optimal = [p for p in anon.get("k_sweep") or [] if p.get("feasible")]
    if optimal:
        ks = [p["k"] for p in optimal]
        parts.append(
            '<div id="tradeoff">'
            + _figure(
                line_chart(
                    "tradeoff-curve",
                    "Risk-utility trade-off across k",
                    ks,
                    _sweep_series(optimal, anon.get("metric")),
                    x_label="k (log scale)",
                    y_label="share",
                    x_log=True,
                ),
                "The optimal release searched again at each k (other models and the "
                "suppression limit unchanged): the risk left, the records suppressed and, for "
                "the loss metric, the information loss.",
            )
            + "</div>"
        )
    sweep = [] if optimal else u.get("k_sweep")
    if sweep:
        ks = [s["k"] for s in sweep]
        parts.append(
            '<div id="tradeoff">'
            + _figure(
                line_chart(
                    "tradeoff-curve",
                    "Risk-utility trade-off across k",
                    ks,
                    {
                        "highest risk": [s["highest_risk"] for s in sweep],
                        "average risk": [s["average_risk"] for s in sweep],
                        "records suppressed": [s["suppressed_share"] for s in sweep],
                    },
                    x_label="k (log scale)",
                    y_label="share",
                    x_log=True,
                ),
                "If the release's classes smaller than k were also suppressed: the risk left and the "
                "share of records lost, at the release's generalization.",
            )
            + "</div>"
        )
    parts.append("</section>")
    return "".join(parts)


def _dp(report: dict[str, Any]) -> str:
    dp = report["dp"]
    parts = ['<section id="dp"><h2>Differential privacy: budget spent</h2>']
    spends: list[tuple[str, float]] = []
    if isinstance(dp, dict):
        for item in dp.get("queries") or dp.get("spends") or []:
            if isinstance(item, dict) and isinstance(item.get("epsilon"), int | float):
                spends.append(
                    (
                        str(item.get("name") or item.get("query") or len(spends) + 1),
                        float(item["epsilon"]),
                    )
                )
        total = dp.get("epsilon_spent") or dp.get("epsilon")
        budget = dp.get("budget") or dp.get("epsilon_budget")
        if spends:
            parts.append(
                _figure(
                    bar_chart(
                        "dp-budget",
                        "Epsilon spent per release",
                        [s[0] for s in spends],
                        [s[1] for s in spends],
                        x_label="query",
                        y_label="epsilon",
                    ),
                    "Privacy budget (epsilon) each differentially private statistic spent.",
                )
            )
        if total is not None or budget is not None:
            parts.append(f"<p>Epsilon spent: {_e(_fmt(total))}; budget: {_e(_fmt(budget))}.</p>")
    parts.append(_generic(dp))
    parts.append("</section>")
    return "".join(parts)


def _compliance(report: dict[str, Any]) -> str:
    entries = report.get("compliance") or compliance_section(report)
    parts = [
        '<section id="compliance"><h2>Compliance mapping</h2>',
        '<p class="muted">Informational, not legal advice. veil measures the released table under '
        "stated attacker models; the legal status of a release also depends on its context, which no "
        "tool can see.</p>",
    ]
    for e in entries:
        ev = "".join(f"<li>{_e(x)}</li>" for x in e["evidence"])
        ce = "".join(f"<li>{_e(x)}</li>" for x in e["cannot_establish"])
        parts.append(
            f"<h3>{_e(e['framework'])}: {_e(e['provision'])}</h3>"
            f"<p><b>What this run shows</b></p><ul>{ev}</ul>"
            f"<p><b>What veil cannot establish</b></p><ul>{ce}</ul>"
        )
    parts.append("</section>")
    return "".join(parts)


def _unlearning_html(report: dict[str, Any]) -> str:
    from veil.report._unlearning import unlearning_html

    return unlearning_html(report)


# Sections rendered specially; any other report key not in _SKIP is rendered generically.
SECTION_RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "leak_scan": leak_scan_html,
    "risk": _risk,
    "utility": _utility,
    "dp": _dp,
    "membership_inference": membership_inference_html,
    "dp_audit": dp_audit_html,
    "unlearning": _unlearning_html,
    "synth": synth_html,
}
_SKIP = {
    "report_version",
    "veil_version",
    "created",
    "python",
    "policy",
    "stages",
    "timings",
    "summary",
    "columns",
    "outputs",
    "compliance",
    "kind",
    "warnings",
    "examples",
    "$schema",
}


def _warnings(report: dict[str, Any]) -> str:
    items = report.get("warnings") or []
    if not items:
        return ""
    rows = "".join(
        f'<li><span class="bad">{_e(w.get("code", "warning"))}</span>: {_e(w.get("message", ""))}</li>'
        for w in items
        if isinstance(w, dict)
    )
    return f'<section id="warnings"><h2>Warnings</h2><ul>{rows}</ul></section>'


def _compact(value: Any) -> Any:
    """The policy without its empty and unset keys, for reading (report.json keeps all)."""
    if isinstance(value, dict):
        kept = {k: _compact(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, {}, [], ())}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def _policy(policy: dict[str, Any]) -> str:
    import yaml

    text = yaml.safe_dump(
        _compact(policy), default_flow_style=None, sort_keys=False, width=100, allow_unicode=True
    )
    n = len(policy.get("columns") or {})
    return (
        '<section id="policy"><h2>Policy</h2><details><summary>The policy that ran '
        f"({n} columns; unset keys left out; report.json has it whole)</summary>"
        f"<pre>{_e(text)}</pre></details></section>"
    )


def _columns_table(columns: list[dict[str, Any]]) -> str:
    rows = []
    for c in columns:
        treat = c.get("transform") or c.get("operator") or "kept"
        if c.get("transformed_with"):
            treat = f"{treat} (with {c['transformed_with']})"
        if c.get("generalization"):
            treat = c["generalization"]
        elif c.get("hierarchy"):
            treat = f"generalized ({c['hierarchy']} hierarchy)"
        rows.append([c["name"], c["role"], treat, c["released"]])
    return _table(["column", "role", "treatment", "released"], rows, "columns")


def render_html(report: dict[str, Any]) -> str:
    """Return the report as a complete HTML document (inline CSS and SVG only, no script).

    Examples
    --------
    >>> page = render_html({"summary": {"k": 5}, "columns": []})
    >>> page.startswith("<!DOCTYPE html>") and "<script" not in page
    True
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>veil privacy report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>veil privacy report</h1>",
        f'<p class="muted">veil {_e(report.get("veil_version"))} · report format '
        f"{_e(report.get('report_version'))} · {_e(report.get('created'))}</p>",
        '<section id="summary"><h2>Summary</h2>',
        _kv_table(report.get("summary", {}), "summary-table"),
        "</section>",
    ]
    parts.append(_warnings(report))
    if "risk" in report:
        parts.append(_requirements(report))
    if report.get("kind") != "model_audit":  # a model audit has no released columns
        parts += [
            '<section id="columns-section"><h2>Columns</h2>',
            _columns_table(report.get("columns", [])),
            "</section>",
        ]
    for name, renderer in SECTION_RENDERERS.items():
        if name in report and report[name] is not None:
            parts.append(renderer(report))
            if name == "risk":
                parts.append(_generalization(report))
    for name, section in report.items():
        if name in SECTION_RENDERERS or name in _SKIP:
            continue
        parts.append(
            f'<section id="section-{_e(name)}" class="generic"><h2>{_e(name.replace("_", " ").capitalize())}</h2>'
            f"{_generic(section)}</section>"
        )
    parts.append(_compliance(report))
    parts += [
        _policy(report.get("policy") or {}) if report.get("kind") != "model_audit" else "",
        '<section id="timings"><h2>Timings (s)</h2>',
        _kv_table(report.get("timings", {}), "timings-table"),
        "</section></body></html>",
    ]
    return "\n".join(parts)
