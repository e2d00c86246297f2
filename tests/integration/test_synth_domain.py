"""MST on real mbi/OpenDP with a skewed table: the numeric columns survive, the domain is
estimated under DP and its cost accounted; reading it from the data is stated (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from veil.synth import MSTSynthesizer

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def _table(n: int = 8000) -> pd.DataFrame:
    rng = np.random.default_rng(0)  # test data only
    stay = 1 + rng.poisson(3, n)
    return pd.DataFrame(
        {
            "stay": stay,
            "charges": np.round(np.exp(8.6 + 0.2 * stay + rng.normal(0, 0.6, n)), 2),
            "procedures": np.where(rng.random(n) < 0.6, 0, 1 + rng.poisson(2, n)),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def test_mst_dp_domain_keeps_skewed_columns_and_accounts_for_it() -> None:
    df = _table()
    syn = MSTSynthesizer(epsilon=1.0, account=False, seed=0).fit(df)
    info = syn.fit_info_
    assert {e["source"] for e in info["domain"].values()} == {"dp"}
    # no exact count read from the data (values clipped, categories dropped) in what is
    # saved with the model: each column's domain as released (bounds, the kept categories'
    # number), never a count of what it left out
    allowed = {"source", "kind", "low", "high", "categories", "keep_above_rows"}
    assert all(set(e) <= allowed for e in info["domain"].values()), info["domain"]
    assert info["domain_from_data"] == []
    assert "covers the values and the domain" in info["privacy_statement"]
    assert info["domain_budget"]["delta_thresholds"] == pytest.approx(0.5e-9)
    assert info["rho_spent"] == pytest.approx(info["rho"], rel=1e-6)
    assert info["epsilon_spent"] <= 1.0 + 1e-6
    out = syn.sample(len(df), seed=1)
    # the 0.90 is the benchmark's (40,000 rows, benchmarks/synth_skewed.py); here one
    # unseeded DP draw on 8,000 rows: charges ranged 0.87 to 0.95 over runs, so the bar has a
    # margin; the uniform-within-bin sampling this replaced scored 0.38 (stay) and 0.67
    for c in ("stay", "charges", "procedures"):
        assert 1 - ks_2samp(df[c], out[c], method="asymp").statistic >= 0.8, c
    assert out["stay"].dtype.kind == "i" and out.notna().all().all()
    assert abs(out["stay"].median() - df["stay"].median()) <= 1


def test_cli_domain_from_data_is_stated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from veil.cli._app import main

    path = tmp_path / "t.csv"
    _table(3000).to_csv(path, index=False)
    args = ["synth", "fit", str(path), "-m", "mst", "--epsilon", "1", "--no-ledger"]
    assert (
        main(
            [
                *args,
                "-o",
                str(tmp_path / "m"),
                "--domain-from-data",
                "--bounds",
                "stay=1:60",
                "--json",
            ]
        )
        == 0
    )
    fit = json.loads(capsys.readouterr().out)["fit"]
    assert fit["domain_from_data"] == ["charges", "procedures", "sex"]
    assert "not the domain of columns charges, procedures, sex" in fit["privacy_statement"]
    assert fit["domain"]["stay"]["source"] == "declared"
