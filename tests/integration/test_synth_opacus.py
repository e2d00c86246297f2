"""The TVAE with and without DP-SGD, on real PyTorch and Opacus, with a real ledger."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from veil.data import adult_frame
from veil.dp import BudgetLedger
from veil.synth import TVAESynthesizer, load_synthesizer
from veil.synth._quality import quality_report

# Opacus warns about its secure RNG mode and about full backward hooks; both are expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Secure RNG turned off:UserWarning"),
    pytest.mark.filterwarnings("ignore:Using a non-full backward hook:UserWarning"),
    pytest.mark.filterwarnings(
        "ignore:.*Optimal order is the (largest|smallest) alpha.*:UserWarning"
    ),
]


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    return adult_frame(1500)[["sex", "age", "race", "education", "salary-class"]]


def test_tvae_without_dp_learns_and_roundtrips(small: pd.DataFrame, tmp_path: Path) -> None:
    syn = TVAESynthesizer(epochs=15, batch_size=250, seed=0).fit(small)
    out = syn.sample(2000, seed=1)
    assert list(out.columns) == list(small.columns)
    assert out["age"].dtype == small["age"].dtype
    assert quality_report(small, out)["column_shapes"] > 0.8
    again = load_synthesizer(syn.save(tmp_path / "tvae.veil"))
    pd.testing.assert_frame_equal(again.sample(300, seed=4), syn.sample(300, seed=4))


def test_tvae_dp_sgd_reaches_its_budget_and_charges_the_ledger(
    small: pd.DataFrame, tmp_path: Path
) -> None:
    with BudgetLedger(f"sqlite:///{tmp_path / 'l.sqlite'}") as led:
        led.init("adult", epsilon=5.0, delta=1e-5)
        syn = TVAESynthesizer(
            epochs=3, batch_size=250, epsilon=3.0, delta=1e-5, ledger=led, dataset="adult", seed=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Opacus' own notices during training
            syn.fit(small)
        info = syn.fit_info_
        assert info["differential_privacy"] and info["noise_multiplier"] > 0
        assert 0 < info["epsilon_spent"] <= 3.0 + 1e-6
        hist = led.history("adult")
        assert [h.status for h in hist] == ["committed"] and hist[0].epsilon == pytest.approx(3.0)
    out = syn.sample(500, seed=0)
    assert out["age"].between(small["age"].min(), small["age"].max()).all()
    assert load_synthesizer(syn.save(tmp_path / "dp.veil")).fit_info_["epsilon"] == 3.0


def test_dp_noise_does_not_follow_the_seed(small: pd.DataFrame) -> None:
    # Same seed, same data: without DP the weights repeat; with DP-SGD the noise (drawn from
    # OS entropy) must make them differ, or the seed would let anyone remove the noise.
    import numpy as np

    def weights(**kw: object) -> list[np.ndarray]:
        syn = TVAESynthesizer(epochs=1, batch_size=250, seed=7, account=False, **kw)  # type: ignore[arg-type]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            syn.fit(small.iloc[:400])
        return [syn.state_[k] for k in sorted(syn.state_)]

    a, b = weights(), weights()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c, d = weights(epsilon=5.0, delta=1e-5), weights(epsilon=5.0, delta=1e-5)
    assert not all(np.array_equal(x, y) for x, y in zip(c, d, strict=True))
