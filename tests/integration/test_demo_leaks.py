"""The demo releases no original identifier: its input and release compared row by row.

Every identifier of a demo row (e-mail, full name, first name, surname, phone, SSN, card,
ZIP code) is searched in the same released row's notes, and every whole value in every other
released cell of that row, as a whole word, with a regex written here (not veil's scanner).
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from veil.demo import demo_frame, run_demo

ROWS = 2000  # smaller demos hit an undefined ROC AUC in the synth evaluation (one class)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    out = tmp_path_factory.mktemp("demo") / "out"
    result = run_demo(out, rows=ROWS)
    released = pd.read_parquet(result.outputs["table"])
    return demo_frame(ROWS), released, result.report


def _word(value: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


def test_release_row_by_row_holds_no_original_identifier(demo_run) -> None:
    original, released, _ = demo_run
    assert len(released) == len(original)  # suppressed rows stay, generalized to '*'
    counts = dict.fromkeys(
        ("email", "full_name", "first_name", "surname", "phone", "ssn", "card", "zip"), 0
    )
    other = [c for c in released.columns if c != "notes"]
    for (_, a), (_, b) in zip(original.iterrows(), released.iterrows(), strict=True):
        note = b["notes"] if isinstance(b["notes"], str) else ""
        cells = " | ".join(str(b[c]) for c in other)
        first, *_, last = str(a["name"]).split()
        checks = {
            "email": a["email"],
            "full_name": a["name"],
            "first_name": first,
            "surname": last,
            "phone": a["phone"],
            "ssn": a["ssn"],
            "card": a["credit_card"],
            "zip": a["zip"],
        }
        for key, value in checks.items():
            # a part of a name alone counts in the text; in the other cells only whole values
            # ("White" is a surname and a label of race)
            whole = key not in ("first_name", "surname")
            if _word(str(value), note) or (whole and _word(str(value), cells)):
                counts[key] += 1
    assert counts == dict.fromkeys(counts, 0)


def test_notes_still_say_something(demo_run) -> None:
    # the redaction replaces the identifiers, not the whole note
    _, released, _ = demo_run
    notes = released["notes"].dropna()
    assert notes.str.contains("<PERSON>").mean() > 0.3
    assert notes.str.contains("satisfied|headache|Labs reviewed").mean() > 0.2


def test_report_leak_scan_is_clean(demo_run) -> None:
    _, _, report = demo_run
    scan = report["leak_scan"]
    assert scan["hits"] == 0 and scan["by_column"] == {}
    assert scan["values_scanned"] >= ROWS * 8
    assert scan["tables"] == ["release", "synthetic.parquet"]
