"""Draft a policy from a table: guess each column's type and role from its name and contents.

The guesses are a starting point for a person to review, never a policy to run unread. Only
column names and aggregate statistics are used; no value is copied into the draft.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["draft_policy", "guess_column"]

_NAME_RULES: list[tuple[str, str, str]] = [
    # (regex on the column name, role, reason)
    (
        r"(^|_)(ssn|social_?security|passport|licen[cs]e|national_?id|tax_?id)($|_)",
        "identifier",
        "government id",
    ),
    (r"(e_?mail)", "identifier", "email"),
    (r"(phone|mobile|fax|tel)($|_)", "identifier", "phone"),
    (r"(credit_?card|card_?(no|num)|iban|account_?(no|num))", "identifier", "financial id"),
    (r"^(first_?|last_?|full_?|sur)?name$|^patient$|^customer$", "identifier", "name"),
    (r"(^|_)(id|uuid|mrn|record_?(no|num|id))$", "identifier", "record id"),
    (r"(^|_)(ip|ip_?address|mac)$", "identifier", "network id"),
    (r"(street|address)", "identifier", "address"),
    (r"(lat|latitude|lon|lng|longitude)$", "quasi_identifier", "coordinates"),
    (r"(zip|postal|postcode)", "quasi_identifier", "postal code"),
    (r"(birth|dob)", "quasi_identifier", "birth date"),
    (
        r"^(age|sex|gender|race|ethnicity|marital|education|native|country|city|state|workclass)",
        "quasi_identifier",
        "demographic",
    ),
    (
        r"(diagnos|disease|condition|salary|income|occupation|religion|health)",
        "sensitive",
        "sensitive attribute",
    ),
    (r"(note|comment|description|text|message|review|summary)", "text", "free text"),
]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)
_SSN = re.compile(r"^\d{3}-\d{2}-\d{4}$")
_PHONE = re.compile(r"^\+?[\d\s().-]{7,}$")


def guess_column(name: str, s: pd.Series) -> dict[str, Any]:
    """Guess a column's dtype and role. Returns ``{dtype, role, reason, distinct}``."""
    import pandas as pd

    nonnull = s.dropna()
    n = max(len(nonnull), 1)
    distinct = int(nonnull.nunique())
    if pd.api.types.is_numeric_dtype(s):
        dtype = "numeric"
    elif pd.api.types.is_datetime64_any_dtype(s):
        dtype = "date"
    else:
        dtype = "categorical"
        sample = nonnull.astype(str).head(200)
        if (
            len(sample)
            and pd.to_datetime(sample, errors="coerce", format="mixed").notna().mean() > 0.9
            and sample.str.len().mean() >= 8
        ):
            dtype = "date"
    lname = name.lower().replace("-", "_").replace(" ", "_")
    for pattern, role, reason in _NAME_RULES:
        if re.search(pattern, lname):
            return {
                "dtype": dtype,
                "role": role,
                "reason": f"name suggests {reason}",
                "distinct": distinct,
            }
    if dtype == "categorical" and len(nonnull):
        sample = nonnull.astype(str).head(200)
        for rx, reason in ((_EMAIL, "email"), (_SSN, "SSN"), (_PHONE, "phone")):
            if sample.str.match(rx).mean() > 0.8:
                return {
                    "dtype": dtype,
                    "role": "identifier",
                    "reason": f"values look like {reason}",
                    "distinct": distinct,
                }
        if sample.str.len().mean() > 40:
            return {
                "dtype": dtype,
                "role": "text",
                "reason": "long free text",
                "distinct": distinct,
            }
        if distinct / n > 0.9:
            return {
                "dtype": dtype,
                "role": "identifier",
                "reason": "nearly unique per row",
                "distinct": distinct,
            }
    if dtype == "categorical" and distinct <= 100:
        return {
            "dtype": dtype,
            "role": "quasi_identifier",
            "reason": "low-cardinality category (review)",
            "distinct": distinct,
        }
    return {
        "dtype": dtype,
        "role": "insensitive",
        "reason": "no rule matched (review)",
        "distinct": distinct,
    }


def draft_policy(
    df: pd.DataFrame, *, data_path: Path, separator: str = ",", header: bool | None = None
) -> tuple[str, dict[str, Any]]:
    """Return a draft policy as YAML text and the per-column guesses."""
    guesses = {str(c): guess_column(str(c), df[c]) for c in df.columns}
    lines = [
        "# Draft policy written by 'veil policy init'. REVIEW EVERY ROLE before running it:",
        "# the roles are guesses from column names and value shapes.",
        "version: 1",
        "data:",
        f"  path: {data_path.as_posix()}",
    ]
    if separator != ",":
        lines.append(f"  separator: {json.dumps(separator)}")  # YAML reads "\t" as a tab
    if header is not None:
        lines.append(f"  header: {str(header).lower()}")
    lines.append("columns:")
    for name, g in guesses.items():
        role = g["role"]
        entry = f"{{role: {role}"
        if role == "identifier":
            entry += ", action: drop"
        elif role == "quasi_identifier":
            entry += ", hierarchy: {type: auto}"
        entry += "}"
        lines.append(
            f"  {_yaml_key(name)}: {entry:<60} # {g['dtype']}, {g['distinct']} distinct: {g['reason']}"
        )
    has_qi = any(g["role"] == "quasi_identifier" for g in guesses.values())
    if has_qi:
        lines += ["privacy:", "  k_anonymity: {k: 5}", "  suppression_limit: 0.05"]
        lines += ["search: {algorithm: optimal, metric: loss}"]
    lines += ["output: {path: out, format: parquet, report: [json, html]}", ""]
    return "\n".join(lines), guesses


def _yaml_key(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
