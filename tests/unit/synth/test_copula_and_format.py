"""Gaussian copula: mixed types, missing values, dates; the pickle-free model file."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.synth import GaussianCopulaSynthesizer, load_synthesizer
from veil.synth._quality import quality_report


def _mixed(n: int = 1500) -> pd.DataFrame:
    rng = np.random.default_rng(5)  # test data only
    z = rng.normal(size=n)
    group = np.where(z + rng.normal(scale=0.5, size=n) > 0, "high", "low")
    income = np.round(30000 + 10000 * z + rng.normal(scale=2000, size=n))
    income[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "group": group,
            "income": income,
            "age": (40 + 10 * z).round().astype(int),
            "city": rng.choice(["a", "b", None], n, p=[0.5, 0.4, 0.1]),
            "joined": pd.to_datetime("2015-01-01")
            + pd.to_timedelta((z * 300).astype(int) + 1000, unit="D"),
        }
    )


def test_copula_keeps_types_missing_rates_and_trends() -> None:
    df = _mixed()
    syn = GaussianCopulaSynthesizer(seed=0).fit(df)
    out = syn.sample(3000)
    assert list(out.columns) == list(df.columns)
    assert out["age"].dtype == df["age"].dtype
    assert pd.api.types.is_datetime64_any_dtype(out["joined"])
    assert abs(out["income"].isna().mean() - 0.1) < 0.03
    assert abs(out["city"].isna().mean() - df["city"].isna().mean()) < 0.03
    # the numeric-categorical and numeric-numeric associations survive
    real_corr = df["age"].corr(df["income"])
    assert abs(out["age"].corr(out["income"]) - real_corr) < 0.1
    gap = out.groupby("group")["age"].mean()
    assert gap["high"] - gap["low"] > 5
    assert quality_report(df, out)["score"] > 0.85


def test_sampling_is_repeatable_with_a_seed(tmp_path: Path) -> None:
    syn = GaussianCopulaSynthesizer(seed=0).fit(_mixed(400))
    a, b = syn.sample(100, seed=7), syn.sample(100, seed=7)
    pd.testing.assert_frame_equal(a, b)
    path = syn.save(tmp_path / "m.veil")
    again = load_synthesizer(path)
    pd.testing.assert_frame_equal(again.sample(100, seed=7), a)


def test_model_file_is_json_and_npy_only(tmp_path: Path) -> None:
    path = GaussianCopulaSynthesizer(seed=0).fit(_mixed(300)).save(tmp_path / "m.veil")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert "model.json" in names
        assert all(
            n == "model.json" or (n.startswith("arrays/") and n.endswith(".npy")) for n in names
        )
        for n in names:
            if n.endswith(".npy"):
                # numpy's header says whether an object (pickled) array is inside
                assert b"'descr': '|O'" not in zf.read(n)[:200]
    assert not list(tmp_path.glob(".*tmp"))  # atomic write left nothing behind


def test_bad_model_files_are_rejected(tmp_path: Path) -> None:
    junk = tmp_path / "junk.veil"
    junk.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a readable"):
        load_synthesizer(junk)
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as zf:
        zf.writestr("model.json", '{"format": "something-else"}')
    with pytest.raises(InputError, match="not a veil"):
        load_synthesizer(tmp_path / "other.zip")
    with pytest.raises(InputError, match="no model file"):
        load_synthesizer(tmp_path / "missing.veil")


def test_unfitted_and_bad_arguments() -> None:
    with pytest.raises(InputError, match="not fitted"):
        GaussianCopulaSynthesizer().sample(3)
    syn = GaussianCopulaSynthesizer(seed=0).fit(_mixed(200))
    with pytest.raises(InputError):
        syn.sample(-1)
    assert len(syn.sample(0)) == 0
    with pytest.raises(InputError):
        GaussianCopulaSynthesizer().fit([[1, 2]])  # type: ignore[arg-type]
