"""``--out DIR``: report.json and a self-contained report.html from a simulation summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veil._errors import OutputError
from veil.federated import render_fl_html, write_fl_report


def _summary(rounds: int = 3) -> dict[str, Any]:
    return {
        "accuracy": 0.81,
        "centralized": {"accuracy": 0.83, "seconds": 1.5},
        "majority_class_accuracy": 0.75,
        "rounds": [
            {
                "round": r,
                "accuracy": 0.7 + 0.04 * r,
                "loss": 0.6 - 0.05 * r,
                "clients": 7,
                "dropped": 3,
            }
            for r in range(1, rounds + 1)
        ],
        "epsilon_spent": 2.97,
        "delta": 1e-5,
        "secagg": {"enabled": True, "dropped": 3 * rounds, "rounds_completed": rounds},
        "seconds": 12.0,
        "strategy": "fedavg",
        "partition": "dirichlet:0.5",
        "clients": 10,
        "dp": {"mode": "client", "noise_multiplier": 1.1},
        "secagg_settings": {"shares": 1.0, "threshold": 0.6, "dropout": 0.3},
        "ledger": {"dataset": "adult", "spend_id": "abc"},
    }


def test_report_files_hold_the_summary_and_a_plot_against_the_baseline(tmp_path: Path) -> None:
    summary = _summary()
    paths = write_fl_report(summary, tmp_path / "out")
    assert [p.name for p in paths] == ["report.json", "report.html"]
    assert json.loads(paths[0].read_text()) == summary
    page = paths[1].read_text()
    assert page.startswith("<!DOCTYPE html>")
    # nothing loaded from anywhere: no script, stylesheet link, image or other source
    assert "<script" not in page and "<link" not in page and " src=" not in page
    # one line for the federated accuracy, one for the baseline, one for the majority class
    assert page.count("<polyline") == 3
    assert 'id="fl-rounds"' in page and page.count("<tr>") >= 4
    assert "2.97" in page  # epsilon spent


def test_a_summary_without_privacy_says_so() -> None:
    summary = {**_summary(1), "epsilon_spent": None, "delta": None, "dp": None, "ledger": None}
    page = render_fl_html(summary)
    assert "not private" in page


def test_an_unwritable_folder_is_an_output_error_and_nothing_is_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError):
        write_fl_report(_summary(), blocker / "out")
    assert blocker.read_text() == "x"
