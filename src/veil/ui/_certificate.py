"""The release certificate of ``veil ui``: what a finished run guarantees, re-checked now.

A one-page summary of a release, printable to PDF from the browser: which file (its
SHA-256, so the certificate names one exact table), from which policy and veil version, the
privacy models required and measured (the report's re-check on the release), the attacker
models' re-identification risk, suppression, utility and the leak scan. It adds its own
independent re-check: the released file is read back from disk and grouped by its
quasi-identifiers with plain pandas (:func:`veil.risk.verify`, which shares no code with
the search), and k and each sensitive column's distinct l are compared with the report's.
No value of the table is shown: counts and measures only.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from veil._errors import InputError

__all__ = ["ATTACKERS", "certificate", "recheck_release"]

# why each attacker model matters, in words (shown beside its measure)
ATTACKERS = {
    "prosecutor": "knows the person is in the release and their quasi-identifiers; "
    "the risk of a record is 1 / the size of its class",
    "journalist": "knows the quasi-identifiers of someone who may or may not be in the "
    "release; the risk uses the population (or the sample when none is given)",
    "marketer": "tries to re-identify as many records as possible; the average risk is "
    "the share of records expected to be re-identified",
}
_SUPPRESSED = "*"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def recheck_release(table: Path, report: dict[str, Any]) -> dict[str, Any]:
    """Group the released file by its quasi-identifiers (suppressed rows: every one ``*``)
    and compare k and distinct l with the report's measured values."""
    from veil.io import read_table
    from veil.risk import verify

    risk = report.get("risk") or {}
    qis = [str(q) for q in risk.get("quasi_identifiers") or []]
    policy_columns = (report.get("policy") or {}).get("columns") or {}
    frame = read_table(table)
    sensitive = [
        str(c)
        for c, spec in policy_columns.items()
        if isinstance(spec, dict) and spec.get("role") == "sensitive" and c in frame.columns
    ]
    missing = [q for q in qis if q not in frame.columns]
    if not qis or missing:
        return {"done": False, "why": "the released file keeps no quasi-identifier to group by"}
    levels = verify(frame.astype(str), qis, sensitive, marker=_SUPPRESSED)
    measured = {r["model"]: r for r in risk.get("requirements") or [] if "model" in r}
    checks = []
    k_report = (measured.get("k-anonymity") or {}).get("measured", risk.get("k"))
    checks.append({"what": "k (smallest class)", "report": k_report, "recheck": levels.k})
    for s in sensitive:
        reported = next(
            (
                r.get("measured")
                for r in risk.get("requirements") or []
                if r.get("model") == "distinct l-diversity" and r.get("column") == s
            ),
            None,
        )
        if reported is not None:
            checks.append(
                {
                    "what": f"distinct l of {s}",
                    "report": reported,
                    "recheck": levels.sensitive[s].l_distinct,
                }
            )
    suppressed = int(levels.n_suppressed)
    reported_sup = (report.get("summary") or {}).get("suppressed_rows")
    for c in checks:
        c["agrees"] = (
            c["report"] is not None
            and c["recheck"] is not None
            and float(c["report"]) == float(c["recheck"])
        )
    return {
        "done": True,
        "rows": len(frame),
        "classes": levels.n_classes,
        "suppressed_rows": suppressed,
        "report_suppressed_rows": reported_sup,
        "checks": checks,
        "agrees": all(c["agrees"] for c in checks)
        and (reported_sup is None or suppressed == reported_sup),
    }


def certificate(outputs: dict[str, Path], workdir: Path) -> dict[str, Any]:
    """The certificate of a finished run from its ``report_json`` and released ``table``
    (both inside ``workdir``); :class:`InputError` when the report is missing."""
    root = workdir.resolve()
    source = outputs.get("report_json")
    if source is None or not source.resolve().is_relative_to(root) or not source.is_file():
        raise InputError("this run wrote no report.json", hint="run the policy with report: json")
    report = json.loads(source.read_text(encoding="utf-8"))
    summary = report.get("summary") or {}
    risk = report.get("risk") or {}
    rr = risk.get("risk") or {}
    attackers = []
    for name in ("prosecutor", "journalist", "marketer"):
        m = rr.get(name) or {}
        if m:
            attackers.append(
                {
                    "model": name,
                    "why": ATTACKERS[name],
                    "highest": m.get("highest"),
                    "average": m.get("average"),
                    "records_above_threshold": m.get("records_above_threshold"),
                }
            )
    table = outputs.get("table")
    release: dict[str, Any] = {"table": None, "sha256": None, "bytes": None}
    recheck: dict[str, Any] = {"done": False, "why": "the run wrote no table file"}
    if table is not None and table.resolve().is_relative_to(root) and table.is_file():
        release = {
            "table": table.resolve().relative_to(root).as_posix(),
            "sha256": _sha256(table),
            "bytes": table.stat().st_size,
        }
        recheck = recheck_release(table, report)
    leak = report.get("leak_scan") or {}
    return {
        "created": report.get("created"),
        "veil_version": report.get("veil_version"),
        "release": release,
        "rows": {
            "input": summary.get("input_rows"),
            "released": summary.get("released_rows"),
            "suppressed": summary.get("suppressed_rows"),
            "classes": summary.get("equivalence_classes"),
        },
        "quasi_identifiers": risk.get("quasi_identifiers") or [],
        "requirements": risk.get("requirements") or [],
        "all_met": all(r.get("met") for r in risk.get("requirements") or []),
        "attackers": attackers,
        "risk_threshold": rr.get("threshold"),
        "utility": {
            k: summary.get(k)
            for k in ("information_loss_entropy", "mean_total_variation", "ml_accuracy_delta")
            if summary.get(k) is not None
        },
        "leak_scan": {"hits": leak.get("hits"), "failing": leak.get("failing")},
        "warnings": [str(w.get("message", w.get("code"))) for w in report.get("warnings") or []],
        "recheck": recheck,
    }
