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

__all__ = [
    "draft_policy",
    "find_hierarchy_files",
    "guess_column",
    "hierarchy_paths",
    "policy_relative",
]

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

# "age" in the languages of the tables users bring; a whole word of the column name
# ("Age at admission", "age_years", "patient_age", "edad", "Alter"), never a part of one
# ("stage", "page", "average", "mileage")
_AGE_WORDS = frozenset(
    [
        "age",
        "ages",
        "edad",
        "alter",
        "idade",
        "età",
        "âge",
        "leeftijd",
        "alder",
        "ålder",
        "wiek",
        "vek",
        "yas",
        "yaş",
        "umur",
        "tuổi",
        "年龄",
        "年齢",
    ]
)
# the width of an age's first interval, doubled at each level (5, 10, 20, 40 years)
_AGE_INTERVAL = "{type: interval, width: 5}"

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
    if _is_age_name(name):
        numeric = _age_values(s)
        return {
            "dtype": "numeric" if numeric else dtype,
            "role": "quasi_identifier",
            "reason": "name suggests age"
            + ("" if numeric else " (values are not whole years: review the hierarchy)"),
            "distinct": distinct,
            "hierarchy": _AGE_INTERVAL if numeric else "{type: auto}",
        }
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


def _is_age_name(name: str) -> bool:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)  # AgeYears, patientAge
    return any(w in _AGE_WORDS for w in re.split(r"[\W_]+", spaced.lower()))


def _age_values(s: pd.Series) -> bool:
    """Whether a column holds ages in years: numbers (or numeric text), 0 to 130."""
    from veil._numeric import coerce_numbers

    values = coerce_numbers(s.dropna())
    if values.empty or values.isna().mean() > 0.01:
        return False
    values = values.dropna()
    return bool(values.between(0, 130).all())


def draft_policy(
    df: pd.DataFrame,
    *,
    data_path: Path,
    separator: str = ",",
    header: bool | None = None,
    hierarchies: dict[str, str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """Return a draft policy as YAML text and the per-column guesses.

    ``hierarchies`` maps a column to an ARX hierarchy file (its path as the policy should
    write it, see :func:`find_hierarchy_files`); a quasi-identifier gets it as its
    hierarchy, any other column a comment saying the file exists.
    """
    hierarchies = hierarchies or {}
    guesses = {str(c): guess_column(str(c), df[c]) for c in df.columns}
    for name, path in hierarchies.items():
        if name in guesses:
            guesses[name]["hierarchy_file"] = path
    lines = [
        "# Draft policy written by 'veil policy init'. REVIEW EVERY ROLE before running it:",
        "# the roles are guesses from column names and value shapes.",
        "version: 1",
        "data:",
        f"  path: {_yaml_scalar(data_path.as_posix())}",
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
            if "hierarchy_file" in g:
                entry += f", hierarchy: {{type: file, path: {_yaml_scalar(g['hierarchy_file'])}}}"
            else:
                entry += f", hierarchy: {g.get('hierarchy', '{type: auto}')}"
        entry += "}"
        note = f"{g['dtype']}, {g['distinct']} distinct: {g['reason']}"
        if "hierarchy_file" in g:
            note += (
                "; ARX hierarchy file"
                if role == "quasi_identifier"
                else f"; an ARX hierarchy file exists ({g['hierarchy_file']}): used if this "
                "column is made a quasi_identifier"
            )
        lines.append(f"  {_yaml_key(name)}: {entry:<60} # {note}")
    has_qi = any(g["role"] == "quasi_identifier" for g in guesses.values())
    if has_qi:
        lines += ["privacy:", "  k_anonymity: {k: 5}", "  suppression_limit: 0.05"]
        lines += ["search: {algorithm: optimal, metric: loss}"]
    lines += ["output: {path: out, format: parquet, report: [json, html]}", ""]
    return "\n".join(lines), guesses


def find_hierarchy_files(
    folder: Path, columns: list[str], *, data_stem: str | None = None
) -> dict[str, Path]:
    """ARX hierarchy files in ``folder`` for ``columns``: ``<name>_hierarchy_<COLUMN>.csv``.

    The column part is matched exactly, then ignoring case. Where several files name the
    same column (hierarchies of several data sets in one folder), the one whose prefix is
    the data file's stem wins, else the first by name.
    """
    found: dict[str, list[Path]] = {}
    lower = {c.lower(): c for c in columns}
    for path in sorted(folder.glob("*_hierarchy_*.csv")):
        _, _, column = path.stem.rpartition("_hierarchy_")
        match = column if column in columns else lower.get(column.lower())
        if match is not None:
            found.setdefault(match, []).append(path)
    chosen: dict[str, Path] = {}
    for column, paths in found.items():
        best = [p for p in paths if p.stem.rpartition("_hierarchy_")[0] == data_stem]
        chosen[column] = (best or paths)[0]
    return chosen


def hierarchy_paths(
    folder: Path, columns: list[str], *, data: Path, out: Path | None
) -> dict[str, str]:
    """:func:`find_hierarchy_files` with each path as the policy writes it: relative to the
    policy file's folder (``out``'s, or the working directory when printed)."""
    from veil._errors import InputError

    if not folder.is_dir():
        raise InputError(
            f"--hierarchies {folder}: not a folder",
            hint="give the folder that holds the ARX files *_hierarchy_<COLUMN>.csv",
        )
    found = find_hierarchy_files(folder, columns, data_stem=data.name.split(".")[0])
    return {c: policy_relative(p, out) for c, p in found.items()}


def policy_relative(path: Path, out: Path | None) -> str:
    """``path`` as a policy written to ``out`` names it: relative to the policy's folder
    (the working directory when the draft is printed), as the policy loader resolves it."""
    import os

    if out is None:
        return path.as_posix()
    base = out.parent.resolve()
    return Path(os.path.relpath(path.resolve(), base)).as_posix()


def _yaml_scalar(text: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_./-][A-Za-z0-9_./ -]*[A-Za-z0-9_./-]|[A-Za-z0-9_./-]", text):
        return text
    import json

    return json.dumps(text)  # a double-quoted YAML scalar


def _yaml_key(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
