"""``veil synth fit`` domain options, privacy statements and bad inputs (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def _main(argv: list[str]) -> int:
    from veil.cli._app import main

    return main(argv)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)  # test data only
    n = 400
    path = tmp_path / "t.csv"
    pd.DataFrame(
        {
            "zip": [f"{v:03d}" for v in rng.integers(1, 60, n)],
            "charges": np.round(np.exp(rng.normal(8, 1, n)), 2),
            "stay": 1 + rng.poisson(3, n),
            "sex": rng.choice(["F", "M"], n),
        }
    ).to_csv(path, index=False)
    return path


def test_copula_says_it_is_not_differentially_private_everywhere(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, out = tmp_path / "m", tmp_path / "s.csv"
    assert _main(["synth", "fit", str(table), "-m", "copula", "-o", str(model), "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    assert fit["fit"]["privacy_statement"].startswith("not differentially private")
    assert _main(["synth", "fit", str(table), "-m", "copula", "-o", str(model)]) == 0
    assert "not differentially private" in capsys.readouterr().err
    assert _main(["synth", "sample", str(model), "-n", "50", "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["differential_privacy"] is False
    assert "not differentially private" in summary["privacy_statement"]
    # text formats: leading zeros kept, charges with the input's 2 decimals at most
    text = out.read_text().splitlines()[1:]
    assert all(len(line.split(",")[0]) == 3 for line in text)
    assert all(len(line.split(",")[1].partition(".")[2]) <= 2 for line in text)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bounds", "charges=abc"], "expected COL=LOW:HIGH"),
        (["--bounds", "nope=0:1"], "not in the data: nope"),
        (["--bounds", "stay=100:200"], "exclude"),
        (["--categories", "sex"], "expected COL=FILE"),
        (["--categories", "sex=/nonexistent/cats.txt"], "cannot read the category file"),
        (["--domain-from-data"], "mst and aim methods only"),
    ],
)
def test_bad_domain_options_exit_2(
    table: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    model = tmp_path / "m"
    code = _main(["synth", "fit", str(table), "-m", "copula", "-o", str(model), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err
    assert not model.exists()  # nothing half-written


def test_category_file_missing_a_value_of_the_data(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cats = tmp_path / "sex.txt"
    cats.write_text("F\n")
    code = _main(
        [
            "synth",
            "fit",
            str(table),
            "-m",
            "copula",
            "-o",
            str(tmp_path / "m"),
            "--categories",
            f"sex={cats}",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "outside the declared categories" in err
    assert "'M'" not in err  # no data value in the message


def test_declared_domain_is_used_and_reported(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dom = tmp_path / "dom.json"
    dom.write_text(json.dumps({"bounds": {"stay": [1, 60]}, "categories": {"sex": ["F", "M"]}}))
    model = tmp_path / "m"
    assert (
        _main(
            [
                "synth",
                "fit",
                str(table),
                "-m",
                "copula",
                "-o",
                str(model),
                "--json",
                "--public-domain",
                str(dom),
                "--bounds",
                "charges=0:1000000",
            ]
        )
        == 0
    )
    fit = json.loads(capsys.readouterr().out)
    from veil.synth import load_synthesizer

    syn = load_synthesizer(model)
    assert (syn.schema_["stay"].low, syn.schema_["stay"].high) == (1.0, 60.0)
    assert syn.schema_["charges"].high == 1_000_000.0
    assert fit["fit"]["differential_privacy"] is False
