"""The report of a SISA model (``veil unlearn fit|forget``, ``veil audit unlearning``).

``report["unlearning"]`` holds the model (shards, slices, accuracy against the monolithic
baseline), the operation just run, the erasure log's summary and, after an audit, the
membership scores of the forgotten rows. Counts, settings and measurements only: never an
id (the log's keyed hashes are not copied either) or a data value.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._version import __version__

if TYPE_CHECKING:
    from veil.unlearning import SISAModel

__all__ = [
    "budget_kept",
    "dp_summary",
    "erasure_log_summary",
    "model_section",
    "unlearning_compliance",
    "unlearning_html",
    "unlearning_report",
    "write_model_report",
    "write_unlearning_report",
]


def erasure_log_summary(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over the log's requests, and every request without its reason text."""
    forgets = [r for r in requests if r["kind"] == "forget"]
    return {
        "requests": len(forgets),
        "ids_forgotten": sum(int(r["forgotten"]) for r in forgets),
        "resubmitted_no_ops": sum(int(r["already_forgotten"]) for r in forgets),
        "shards_retrained": sum(len(r["shards_retrained"]) for r in forgets),
        "model_version": max((int(r["model_version"]) for r in requests), default=None),
        "entries": [
            {
                "request_id": r["request_id"],
                "created": r["created"],
                "kind": r["kind"],
                "reason_given": bool(r.get("reason")),
                "ids": r["ids"],
                "forgotten": r["forgotten"],
                "already_forgotten": r["already_forgotten"],
                "shards_retrained": r["shards_retrained"],
                "slices_retrained": r["slices_retrained"],
                "model_version": r["model_version"],
                "seconds": r["seconds"],
            }
            for r in requests
        ],
    }


def unlearning_report(section: dict[str, Any]) -> dict[str, Any]:
    """A whole report (report.json) around an ``unlearning`` section."""
    model = section.get("model") or {}
    log = section.get("erasure_log") or {}
    from veil.report._build import REPORT_VERSION

    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "veil_version": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "summary": {
            "shards": model.get("shards"),
            "slices": model.get("slices"),
            "accuracy": model.get("accuracy"),
            "monolithic_accuracy": (model.get("monolithic") or {}).get("accuracy"),
            "model_version": model.get("version"),
            "erasure_requests": log.get("requests"),
            "ids_forgotten": log.get("ids_forgotten"),
        },
        "columns": [],
        "unlearning": section,
    }
    report["compliance"] = unlearning_compliance(report)
    return report


def unlearning_compliance(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The GDPR Art. 17 / CCPA 1798.105 entries for a SISA model's report."""
    sec = report.get("unlearning") or {}
    log = sec.get("erasure_log") or {}
    verify = sec.get("verify")
    audit = sec.get("audit")
    evidence = [
        f"{log.get('requests', 0)} erasure request(s) logged, {log.get('ids_forgotten', 0)} "
        f"id(s) forgotten, {log.get('resubmitted_no_ops', 0)} resubmission(s) recorded as "
        "no-ops; each with its time, the shards and slices retrained and the model version",
        "each forgotten row was removed from the stored training data and its shard retrained "
        "from the last checkpoint that never saw it; superseded versions are deleted",
        "the log holds ids only as keyed hashes",
    ]
    if verify is not None:
        evidence.append(
            f"verify retrained shard(s) {verify.get('shards_checked')} from scratch without the "
            f"forgotten rows: parameters {'bit-identical' if verify.get('exact') else 'DIFFERENT'}"
        )
    if audit is not None:
        share = (audit.get("member_share") or {}).get("forgotten")
        evidence.append(
            f"membership audit: {audit.get('forgotten')} forgotten row(s); share scored as "
            f"members {share if share is None else f'{share:.3f}'} against "
            f"{audit.get('fpr')} expected for rows never trained on"
        )
    return [
        {
            "framework": "GDPR",
            "provision": "Art. 17 (right to erasure), for the trained model",
            "evidence": evidence,
            "cannot_establish": [
                "erasure from copies of the model or of its folder made before the request "
                "(an older folder is refused when opened with the log, not destroyed)",
                "erasure from the source data, backups and other systems",
                "the preprocessing fitted on all rows (category lists, scaling) is kept",
                "a privacy budget spent on DP training is not refunded",
            ],
        },
        {
            "framework": "CCPA",
            "provision": "Cal. Civ. Code 1798.105 (right to delete)",
            "evidence": evidence[:2],
            "cannot_establish": ["deletion by service providers and third parties"],
        },
    ]


def unlearning_html(report: dict[str, Any]) -> str:
    """The section: the model, the operation, the erasure log and the audit."""
    from veil.report._html import _e, _generic, _table

    sec = report["unlearning"]
    if not isinstance(sec, dict):
        return ""
    parts = ['<section id="unlearning"><h2>Machine unlearning (SISA)</h2>']
    model = sec.get("model") or {}
    mono = model.get("monolithic") or {}
    parts.append(
        f"<p>{_e(model.get('shards'))} shard(s) x {_e(model.get('slices'))} slice(s), "
        f"aggregation {_e(model.get('aggregation'))}; held-out accuracy "
        f"{_e(model.get('accuracy'))} (monolithic {_e(mono.get('accuracy'))}); model version "
        f"{_e(model.get('version'))}.</p>"
    )
    verify = sec.get("verify")
    if verify is not None:
        cls = "ok" if verify.get("exact") else "bad"
        parts.append(
            f'<p class="{cls}">Verification: shards {_e(verify.get("shards_checked"))} '
            f"retrained from scratch; exact: {_e(verify.get('exact'))}.</p>"
        )
    log = sec.get("erasure_log") or {}
    rows = [
        [
            e["created"],
            e["kind"],
            e["ids"],
            e["forgotten"],
            e["already_forgotten"],
            ", ".join(map(str, e["shards_retrained"])) or "-",
            e["model_version"],
        ]
        for e in log.get("entries", [])
    ]
    parts.append("<h3>Erasure log</h3>")
    parts.append(
        _table(
            ["time", "kind", "ids", "forgotten", "already", "shards retrained", "version"],
            rows,
            "erasure-log",
        )
    )
    audit = sec.get("audit")
    if audit is not None:
        parts.append("<h3>Membership audit of the forgotten rows</h3>")
        parts.append(_generic({k: v for k, v in audit.items() if k != "rows"}))
        per_row = [
            [r["row"], r["loss"], r["loss_retrained"], r["heldout_percentile"], r["member"]]
            for r in audit.get("rows", [])[:200]
        ]
        parts.append(
            _table(
                ["row", "loss", "loss (retrained)", "held-out percentile", "scored member"],
                per_row,
                "audit-rows",
            )
        )
    op = sec.get("operation")
    if op is not None:
        parts.append(f"<h3>This operation</h3>{_generic(op)}")
    parts.append("</section>")
    return "".join(parts)


def write_unlearning_report(folder: str | Path, section: dict[str, Any]) -> dict[str, str]:
    """Write report.json and report.html into ``folder`` (atomically, as a pair)."""
    from veil.io import atomic_dir
    from veil.report._html import render_html

    report = unlearning_report(section)
    with atomic_dir(folder) as stage:
        (stage / "report.json").write_text(json.dumps(report, indent=1, default=str))
        (stage / "report.html").write_text(render_html(report), encoding="utf-8")
    return {"json": str(Path(folder) / "report.json"), "html": str(Path(folder) / "report.html")}


def dp_summary(model: SISAModel) -> dict[str, Any] | None:
    """A DP model's privacy settings and accounting, as its manifest records them."""
    dp = model.config.get("dp")
    if not dp:
        return None
    keys = (
        "epsilon",
        "delta",
        "noise_multiplier",
        "sample_rate",
        "steps_per_stage",
        "accountant",
        "epsilon_accountant",
        "max_grad_norm",
    )
    return {k: dp[k] for k in keys}


def budget_kept(model: SISAModel) -> dict[str, Any] | None:
    """What a DP model's erasure does to its privacy budget: nothing (recorded so)."""
    if not model.config.get("dp"):
        return None
    return {
        "refunded": False,
        "ledger": model.config.get("ledger"),
        "why": "the model versions already released were trained on the erased rows; "
        "the spend stays in the ledger",
    }


def model_section(model: SISAModel) -> dict[str, Any]:
    """The model part of the report: settings, version, accuracy against its baselines."""
    cfg, metrics = model.config, model.manifest.get("metrics") or {}
    return {
        "shards": cfg["shards"],
        "slices": cfg["slices"],
        "aggregation": cfg["aggregation"],
        "seed": cfg["seed"],
        "trainer": cfg["trainer"],
        "target": cfg.get("target"),
        "version": model.version,
        "accuracy": model.accuracy(),
        "accuracy_at_fit": metrics.get("accuracy"),
        "monolithic": metrics.get("monolithic"),
        "n_train": sum(len(d["y"]) for d in model.data),
        "n_test": None if model.test is None else len(model.test["y"]),
        "dp": dp_summary(model),
        "ledger": cfg.get("ledger"),
    }


def write_model_report(
    model: SISAModel, folder: str | Path | None, extra: dict[str, Any]
) -> dict[str, str] | None:
    """report.json + report.html for ``model`` into ``folder`` (default: the model folder),
    as ``veil unlearn fit|forget|verify`` and the app's erasure requests write them."""
    section = {
        "model": model_section(model),
        "erasure_log": erasure_log_summary(model.erasure_log()),
        **extra,
    }
    return write_unlearning_report(folder or model.path, section)
