"""What a run did, mapped to GDPR, HIPAA and CCPA de-identification, and what it cannot show.

The mapping is informational, not legal advice. veil measures the released table under
stated attacker models; whether data is anonymous, de-identified or minimised in law also
depends on the context of the release (who receives it, what else they hold, contracts,
organisational measures), which no tool can see. Each entry therefore says what the report
gives as evidence and, plainly, what it cannot establish.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compliance_section"]

_REVERSIBLE = {
    "hash",
    "tokenize",
    "mask",
    "date_shift",
    "geo_round",
    "geo_displace",
    "noise",
    "date_generalize",
    "top_bottom_code",
    "keep",
}


# How each anonymization algorithm coarsens the quasi-identifiers, for the minimisation line.
_RECODED_AS = {
    "mondrian": "locally recoded (Mondrian)",
    "mdav": "microaggregated (MDAV cluster means)",
    "cell_suppression": "with cells suppressed locally ('*')",
}


def _facts(report: dict[str, Any]) -> dict[str, Any]:
    columns = report.get("columns", [])
    algorithm = ((report.get("anonymize") or {}).get("search") or {}).get("algorithm")
    ids = [c for c in columns if c.get("role") == "identifier"]
    risk = report.get("risk") or {}
    rr = risk.get("risk") or {}
    return {
        "identifiers": len(ids),
        "identifiers_dropped": sum(1 for c in ids if not c.get("released")),
        "identifiers_kept_transformed": sorted(
            c["name"] for c in ids if c.get("released") and c.get("transform") in _REVERSIBLE
        ),
        "text_columns": [c["name"] for c in columns if c.get("role") == "text"],
        "dropped_columns": sum(1 for c in columns if not c.get("released")),
        "generalized": sorted(
            c["name"]
            for c in columns
            if c.get("hierarchy")
            or (algorithm in _RECODED_AS and c.get("role") == "quasi_identifier")
        ),
        "recoded_as": _RECODED_AS.get(str(algorithm), "generalized"),
        "k": risk.get("k"),
        "highest_risk": (rr.get("prosecutor") or {}).get("highest"),
        "suppressed": (report.get("summary") or {}).get("suppressed_rows", 0),
        "dp": "dp" in report,
        "synth": "synth" in report,
        "homogeneous": {
            s: v.get("homogeneous") for s, v in (risk.get("attribute_inference") or {}).items()
        },
    }


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * float(x):.2f} %"


def _model_entries(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Entries for a model audit: membership inference and model inversion."""
    mia = report.get("membership_inference")
    dpa = report.get("dp_audit")
    out: list[dict[str, Any]] = []
    if isinstance(mia, dict):
        attacks = mia.get("attacks") or {mia.get("attack", "attack"): mia}
        lines = [
            f"{name}: AUC {a.get('auc', float('nan')):.3f}, TPR {_pct((a.get('tpr_at_fpr') or {}).get('0.001'))} "
            f"at 0.1 % FPR and {_pct((a.get('tpr_at_fpr') or {}).get('0.01'))} at 1 % FPR "
            f"({a.get('members')} members, {a.get('nonmembers')} non-members)"
            for name, a in attacks.items()
        ]
        out.append(
            {
                "framework": "GDPR",
                "provision": "Recital 26 and Art. 32 (membership inference on a model)",
                "evidence": [
                    "membership-inference attacks were run on models trained the way the "
                    "audited model is: how well an attacker tells training rows from others",
                    *lines,
                ],
                "cannot_establish": [
                    "the risk under attacks stronger than those run (more shadow models, "
                    "more knowledge of the data): an attack's success is a lower bound on "
                    "what is possible, not an upper bound",
                    "that the model is anonymous: a model that leaks membership of some rows "
                    "is personal data for them, whatever the average AUC",
                ],
            }
        )
    if isinstance(dpa, dict):
        claim = dpa.get("epsilon_claimed")
        bound = dpa.get("epsilon_lower_bound")
        verdict = (
            "training was not private: the bound says how far from DP it is"
            if claim is None
            else (
                f"the lower bound is ABOVE the claimed epsilon {claim:g}: the DP claim is false"
                if dpa.get("bound_exceeds_claim")
                else f"no evidence against the claimed epsilon {claim:g}"
            )
        )
        out.append(
            {
                "framework": "GDPR",
                "provision": "Art. 25 and Art. 32 (model inversion and membership, DP claim)",
                "evidence": [
                    f"one-run DP audit: epsilon lower bound {bound:.3f} at "
                    f"{_pct(dpa.get('confidence'))} confidence from {dpa.get('canaries')} "
                    f"canaries; {verdict}",
                    "a true (epsilon, delta)-DP guarantee bounds every membership-inference "
                    "and model-inversion (attribute-inference) attack on the model, however "
                    "strong",
                ],
                "cannot_establish": [
                    "that the claim holds: an audit can refute a DP claim, never prove it; the "
                    "proof is the accounting of the training run",
                    "model inversion was not attacked directly: its risk is bounded through the "
                    "DP guarantee only",
                ],
            }
        )
    return out


def compliance_section(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Entries ``{framework, provision, evidence: [...], cannot_establish: [...]}``."""
    if "unlearning" in report and not report.get("columns"):
        # a model's report (veil unlearn, veil audit unlearning), not a released table's
        from veil.report._unlearning import unlearning_compliance

        return unlearning_compliance(report)
    model = _model_entries(report)
    if report.get("kind") == "model_audit":
        return model  # an audit of a model, not a release: the table entries do not apply
    f = _facts(report)
    k, hr = f["k"], f["highest_risk"]
    measured = (
        f"measured on the release: k = {k}, highest prosecutor re-identification risk "
        f"{hr:.4g} (a record's chance of being singled out by someone who knows it is in the data)"
        if k is not None and hr is not None
        else "no quasi-identifiers were declared, so no re-identification risk was measured"
    )
    pseudo = (
        f"identifier column(s) {', '.join(f['identifiers_kept_transformed'])} are released "
        "transformed (keyed hash, token, mask, shift or similar): that is pseudonymisation; "
        "whoever holds the key or other additional information can link them back"
        if f["identifiers_kept_transformed"]
        else None
    )
    homog = [s for s, v in f["homogeneous"].items() if v]
    homog_line = (
        f"in some classes every record shares the same value of {', '.join(homog)}: a person "
        "placed in such a class has that value disclosed even without being singled out"
        if homog
        else None
    )
    out: list[dict[str, Any]] = [
        {
            "framework": "GDPR",
            "provision": "Recital 26 (anonymous information)",
            "evidence": [
                measured,
                f"{f['identifiers_dropped']} of {f['identifiers']} identifier column(s) removed; "
                f"{f['suppressed']} record(s) suppressed",
                *(x for x in (pseudo, homog_line) if x),
            ],
            "cannot_establish": [
                "whether re-identification is reasonably unlikely given all the means likely to "
                "be used by the recipient or anyone else: that depends on who receives the data "
                "and what other data they hold, which veil cannot see",
                "pseudonymised data (keyed hashes, tokens) remains personal data under Recital 26",
                "free-text columns are only as clean as the PII detection, which has a measured, "
                "nonzero miss rate"
                if f["text_columns"]
                else "the risk of attributes not declared "
                "as quasi-identifiers being used for linkage",
            ],
        },
        {
            "framework": "GDPR",
            "provision": "Art. 5(1)(c) (data minimisation)",
            "evidence": [
                f"{f['dropped_columns']} column(s) not released",
                f"quasi-identifiers {f['recoded_as']}: {', '.join(f['generalized']) or 'none'}",
                "information loss and utility are measured in the utility section",
            ],
            "cannot_establish": [
                "whether what remains is adequate, relevant and limited to what the stated "
                "purpose needs: the purpose is not known to the tool",
            ],
        },
        {
            "framework": "GDPR",
            "provision": "Art. 17 (right to erasure)",
            "evidence": [
                "a truly anonymous release is outside the GDPR, so an erasure request does not "
                "reach it; a pseudonymised release is personal data and must honour erasure",
                "the released table is written as a new file: deleting a person from the source "
                "later does not change it; re-run the policy after erasures",
            ],
            "cannot_establish": [
                "which released record belongs to a requester (by design for an anonymous release)",
                "erasure from models or statistics already derived from the data",
            ],
        },
        {
            "framework": "HIPAA",
            "provision": "Safe Harbor, 45 CFR 164.514(b)(2)",
            "evidence": [
                f"{f['identifiers_dropped']} of {f['identifiers']} declared identifier column(s) "
                "removed",
                *(
                    [
                        pseudo + "; a code derived from an identifier is not a permitted "
                        "re-identification code (164.514(c))"
                    ]
                    if pseudo
                    else []
                ),
            ],
            "cannot_establish": [
                "that none of the 18 identifier types remains anywhere, including columns not "
                "declared as identifiers and free text",
                "the geographic rule (3-digit ZIP only where the area holds more than 20,000 "
                "people), dates reduced to the year and ages over 89 grouped, unless the policy "
                "did that and it is checked by you",
                "that the covered entity has no actual knowledge that the rest could identify "
                "someone",
            ],
        },
        {
            "framework": "HIPAA",
            "provision": "Expert Determination, 45 CFR 164.514(b)(1)",
            "evidence": [
                measured,
                "the report documents the methods (attacker models, population estimates, "
                "attack simulations) and their results, which an expert can rely on",
            ],
            "cannot_establish": [
                "the determination itself: a qualified expert must judge that the risk is very "
                "small for the anticipated recipient and document it; this report is input to "
                "that judgement, not a substitute",
            ],
        },
        {
            "framework": "CCPA",
            "provision": "De-identified information, Cal. Civ. Code 1798.140(m)",
            "evidence": [
                measured,
                *(["differential privacy was applied to released statistics"] if f["dp"] else []),
                *(["synthetic data was generated"] if f["synth"] else []),
            ],
            "cannot_establish": [
                "that the information cannot reasonably be linked to a consumer or household in "
                "the recipient's hands",
                "the organisational conditions: a public commitment not to re-identify and "
                "contracts binding every recipient to the same",
            ],
        },
    ]
    return out + model
