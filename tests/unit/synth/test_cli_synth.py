"""``veil synth fit | sample | evaluate`` in-process, on small tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# typer re-exports click helpers that click 8.3 deprecates (main's pyproject filters this too)
pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def _main(argv: list[str]) -> int:
    from veil.cli._app import main

    return main(argv)


@pytest.fixture
def tables(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(1)  # test data only
    n = 700
    age = rng.integers(18, 80, n)
    df = pd.DataFrame(
        {
            "age": age,
            "hours": np.minimum(age + rng.integers(0, 20, n), 99),
            "sex": rng.choice(["F", "M"], n),
            "y": np.where(age + rng.normal(0, 10, n) > 50, "hi", "lo"),
        }
    )
    real, hold = tmp_path / "real.csv", tmp_path / "hold.csv"
    df.iloc[:500].to_csv(real, index=False)
    df.iloc[500:].to_csv(hold, index=False)
    return real, hold


def test_fit_sample_evaluate_json(
    tables: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real, hold = tables
    model, synth = tmp_path / "m.veil", tmp_path / "s.csv"
    assert (
        _main(
            [
                "synth",
                "fit",
                str(real),
                "--method",
                "copula",
                "--out",
                str(model),
                "--constraint",
                "age <= hours",
                "--json",
            ]
        )
        == 0
    )
    fit = json.loads(capsys.readouterr().out)
    assert fit["cpu_seconds"] >= 0 and fit["peak_memory_mb"] > 0 and fit["rows"] == 500
    assert (
        _main(["synth", "sample", str(model), "-n", "300", "--out", str(synth), "--seed", "2"]) == 0
    )
    capsys.readouterr()
    out = pd.read_csv(synth)
    assert len(out) == 300 and (out["age"] <= out["hours"]).all()
    assert (
        _main(
            [
                "synth",
                "evaluate",
                str(real),
                str(synth),
                "--holdout",
                str(hold),
                "--target",
                "y",
                "--max-rows",
                "200",
                "--json",
            ]
        )
        == 0
    )
    ev = json.loads(capsys.readouterr().out)
    assert set(ev["quality"]) >= {"score", "column_shapes", "column_pair_trends"}
    assert set(ev["ml_efficacy"]) >= {"synthetic_auc", "real_auc"}
    assert set(ev["privacy"]) >= {"dcr_synthetic", "dcr_holdout", "exact_copy_rate", "mia_auc"}
    assert 0 <= ev["quality"]["score"] <= 1


def test_fit_prints_cpu_and_memory(
    tables: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real, _ = tables
    assert (
        _main(["-q", "synth", "fit", str(real), "--method", "copula", "--out", str(tmp_path / "m")])
        == 0
    )
    text = capsys.readouterr().out
    assert "CPU s" in text and "peak memory" in text


def test_cli_errors_are_one_line_with_exit_codes(
    tables: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real, _ = tables
    out = str(tmp_path / "m")
    assert (
        _main(["synth", "fit", str(real), "--method", "aim", "--epsilon", "1", "--out", out]) == 2
    )
    assert "--dataset" in capsys.readouterr().err
    assert (
        _main(["synth", "fit", str(real), "--method", "copula", "--epsilon", "1", "--out", out])
        == 2
    )
    assert _main(["synth", "fit", str(real), "--method", "nope", "--out", out]) == 2
    assert (
        _main(
            [
                "synth",
                "fit",
                str(real),
                "--method",
                "copula",
                "--out",
                out,
                "--constraint",
                "hours <= age",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "violates" in err and "Traceback" not in err
    url = f"sqlite:///{tmp_path / 'l.sqlite'}"
    from veil.dp import BudgetLedger

    with BudgetLedger(url) as led:
        led.init("t", epsilon=0.5)
    assert (
        _main(
            [
                "synth",
                "fit",
                str(real),
                "--method",
                "mst",
                "--epsilon",
                "1",
                "--dataset",
                "t",
                "--ledger",
                url,
                "--out",
                out,
            ]
        )
        == 3
    )
    assert not Path(out).exists()
