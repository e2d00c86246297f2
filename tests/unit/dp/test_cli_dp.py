"""``veil budget`` and ``veil dp query`` end to end (in-process, real SQLite ledgers)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# typer re-exports click helpers that click 8.3 deprecates (main's pyproject filters this too);
# the CLI is imported inside the tests so that this filter applies to the import.
pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def main(argv: list[str]) -> int:
    from veil.cli._app import main as veil_main

    return veil_main(argv)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ledger.sqlite'}"


@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)  # test data only
    path = tmp_path / "people.csv"
    pd.DataFrame({"age": rng.integers(18, 80, 2000), "sex": rng.choice(["F", "M"], 2000)}).to_csv(
        path, index=False
    )
    return path


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> object:
    assert main(argv) == code
    out = capsys.readouterr().out
    return json.loads(out) if out.strip() else None


def test_budget_lifecycle(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    st = _json(
        capsys,
        ["budget", "init", "adult", "--epsilon", "1", "--delta", "1e-6", "--ledger", url, "--json"],
    )
    assert st["total"] == {"epsilon": 1.0, "delta": 1e-6}
    sp = _json(
        capsys,
        [
            "budget",
            "spend",
            "adult",
            "--epsilon",
            "0.4",
            "--what",
            "published counts",
            "--ledger",
            url,
            "--json",
        ],
    )
    assert sp["remaining"]["epsilon"] == pytest.approx(0.6) and sp["spend"]["status"] == "committed"
    dry = _json(
        capsys,
        [
            "budget",
            "spend",
            "adult",
            "--epsilon",
            "0.5",
            "--what",
            "x",
            "--dry-run",
            "--ledger",
            url,
            "--json",
        ],
    )
    assert dry["dry_run"] is True and dry["spend"]["id"] is None
    assert (
        main(["budget", "spend", "adult", "--epsilon", "0.7", "--what", "x", "--ledger", url]) == 3
    )
    err = capsys.readouterr().err
    assert "exceed" in err and "Traceback" not in err
    show = _json(capsys, ["budget", "show", "adult", "--ledger", url, "--json"])
    assert show["spent"]["basic"]["epsilon"] == pytest.approx(0.4) and show["n_spends"] == 1
    hist = _json(capsys, ["budget", "history", "adult", "--ledger", url, "--json"])
    assert [h["what"] for h in hist] == ["published counts"]
    assert main(["budget", "show", "adult", "--ledger", url]) == 0
    assert "remaining" in capsys.readouterr().out
    assert main(["budget", "history", "adult", "--ledger", url]) == 0


def test_budget_errors_exit_codes(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["budget", "show", "nothing", "--ledger", url]) == 2
    assert main(["budget", "init", "x", "--epsilon", "-1", "--ledger", url]) == 2
    assert (
        main(["budget", "show", "x", "--ledger", "postgresql+psycopg://u:pw@127.0.0.1:1/db"]) == 1
    )
    err = capsys.readouterr().err
    assert "pw" not in err.replace("hint", "")  # no password shown


def test_dp_query_spends_and_reports(
    url: str, table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["budget", "init", "people", "--epsilon", "2", "--data", str(table), "--ledger", url])
        == 0
    )
    capsys.readouterr()
    out = _json(
        capsys,
        [
            "dp",
            "query",
            str(table),
            "--ledger",
            url,
            "--json",
            "-q",
            "mean(age, bounds=[18, 80], epsilon=0.5)",
            "-q",
            '{"stat": "histogram", "column": "sex", "categories": ["F", "M"], "epsilon": 0.5}',
        ],
    )
    assert out["dataset"] == "people"
    assert [a["stat"] for a in out["answers"]] == ["mean", "histogram"]
    assert out["remaining"]["epsilon"] == pytest.approx(1.0)
    assert all(a["spend_id"] for a in out["answers"])
    dry = _json(
        capsys,
        [
            "dp",
            "query",
            str(table),
            "--ledger",
            url,
            "--json",
            "--dry-run",
            "-q",
            "count(epsilon=1)",
        ],
    )
    assert dry["answers"] == [] and dry["remaining"]["epsilon"] == pytest.approx(1.0)
    assert main(["dp", "query", str(table), "--ledger", url, "-q", "count(epsilon=1.5)"]) == 3
    assert (
        main(["dp", "query", str(table), "--ledger", url, "-q", "count()", "--epsilon", "0.1"]) == 0
    )
    assert "count()" in capsys.readouterr().out
    # another table under the same dataset name is refused (fingerprint)
    other = table.with_name("other.csv")
    pd.read_csv(table).iloc[:-5].to_csv(other, index=False)
    assert (
        main(
            [
                "dp",
                "query",
                str(other),
                "--dataset",
                "people",
                "--ledger",
                url,
                "-q",
                "count(epsilon=0.1)",
            ]
        )
        == 2
    )
    assert main(["dp", "query", str(table), "--ledger", url, "-q", "nonsense(("]) == 2
