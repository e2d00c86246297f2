"""The quality metric: sdmetrics' QualityReport definitions, re-implemented.

sdmetrics itself is not a dependency (it requires ``copulas``, under the Business Source
License); when it is installed, the numbers must match it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.synth._quality import quality_report


def _tables(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)  # test data only
    n, m = 800, 600

    def make(k: int, shift: float) -> pd.DataFrame:
        z = rng.normal(size=k)
        cat = np.where(z + rng.normal(scale=0.4, size=k) > shift, "yes", "no")
        other = np.where(rng.random(k) < 0.5, cat, rng.choice(["yes", "no", "maybe"], k))
        x = 10 * z + rng.normal(size=k)
        y = 3 * z + rng.normal(scale=0.5 + shift, size=k)
        x[rng.random(k) < 0.05] = np.nan
        when = pd.to_datetime("2021-01-01") + pd.to_timedelta((z * 50).astype(int) + 100, unit="D")
        return pd.DataFrame(
            {
                "cat": cat,
                "other": other,
                "x": x,
                "y": y,
                "when": when,
                "flag": rng.random(k) < 0.3 + shift / 4,
            }
        )

    return make(n, 0.0), make(m, 0.4)


def test_identical_tables_score_one() -> None:
    real, _ = _tables(0)
    q = quality_report(real, real)
    assert q["score"] == pytest.approx(1.0)
    assert q["column_shapes"] == pytest.approx(1.0)
    assert q["column_pair_trends"] == pytest.approx(1.0)


def test_different_tables_score_less_and_in_range() -> None:
    real, syn = _tables(1)
    q = quality_report(real, syn)
    assert 0.0 <= q["score"] < 0.99
    rng = np.random.default_rng(2)  # test data only: a different permutation per column
    shuffled = pd.DataFrame({c: real[c].to_numpy()[rng.permutation(len(real))] for c in real})
    q2 = quality_report(real, shuffled)
    assert q2["column_shapes"] == pytest.approx(1.0)
    assert q2["column_pair_trends"] < 0.9  # shuffling each column destroys the trends


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # sdmetrics' own deprecation notices
@pytest.mark.filterwarnings("ignore::FutureWarning")  # pandas notices raised inside sdmetrics
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_sdmetrics_quality_report(seed: int) -> None:
    reports = pytest.importorskip("sdmetrics.reports.single_table")
    real, syn = _tables(seed)
    md = {
        "columns": {
            "cat": {"sdtype": "categorical"},
            "other": {"sdtype": "categorical"},
            "x": {"sdtype": "numerical"},
            "y": {"sdtype": "numerical"},
            "when": {"sdtype": "datetime", "datetime_format": "%Y-%m-%d"},
            "flag": {"sdtype": "boolean"},
        }
    }
    rep = reports.QualityReport()
    rep.generate(real, syn, md, verbose=False)
    ours = quality_report(real, syn)
    props = rep.get_properties().set_index("Property")["Score"]
    assert ours["column_shapes"] == pytest.approx(props["Column Shapes"], abs=1e-9)
    assert ours["column_pair_trends"] == pytest.approx(props["Column Pair Trends"], abs=1e-9)
    assert ours["score"] == pytest.approx(rep.get_score(), abs=1e-9)
