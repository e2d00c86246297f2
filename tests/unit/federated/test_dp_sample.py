"""``--dp sample``: DP-SGD inside a client, and its calibration, without the Flower engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.federated import FLConfig
from veil.federated._client import _train
from veil.federated._model import fresh_model, prepare


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    from veil.data import adult_frame

    return adult_frame().sample(400, random_state=1)


def _cfg(sigma: float, clip: float = 1.0) -> dict[str, object]:
    return {
        "epochs": 1,
        "batch_size": 32,
        "lr": 0.05,
        "seed": 3,
        "mu": 0.0,
        "clip": 0.0,
        "dp_sigmas": [sigma, sigma],
        "dp_epsilon": 3.0,
        "dp_delta": 1e-5,
        "dp_clip": clip,
    }


def test_a_client_trains_with_dp_sgd_and_returns_a_noisy_update(frame: pd.DataFrame) -> None:
    data = prepare(frame, "salary-class", FLConfig(clients=2), ())
    weights = [p.detach().numpy().copy() for p in fresh_model(data.arch, 0).parameters()]
    a = _train(data, 0, weights, _cfg(1.5), None)
    b = _train(data, 0, weights, _cfg(1.5), None)
    assert [d.shape for d in a.delta] == [w.shape for w in weights]
    assert all(np.isfinite(d).all() for d in a.delta)
    # the noise is not reproducible from the seed: two runs from the same weights differ
    assert any(not np.allclose(x, y) for x, y in zip(a.delta, b.delta, strict=True))
    assert a.n_examples == len(data.parts[0][2])


def test_sample_level_dp_needs_an_epsilon_and_refuses_scaffold() -> None:
    with pytest.raises(InputError, match="--dp sample needs a target --epsilon"):
        FLConfig(dp="sample").validate()
    with pytest.raises(InputError, match="--epsilon must be a positive number"):
        FLConfig(dp="sample", epsilon=-1.0).validate()
    # DP-SGD clients return no control variates (the server failed on the missing record)
    with pytest.raises(InputError, match="--dp sample does not combine with --strategy scaffold"):
        FLConfig(dp="sample", epsilon=3.0, strategy="scaffold").validate()
    FLConfig(dp="sample", epsilon=3.0, strategy="fedprox").validate()
    with pytest.raises(InputError, match="scaffold"):
        FLConfig(dp="client", epsilon=3.0, strategy="scaffold").validate()
