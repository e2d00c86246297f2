"""Server rules, client-side clipping and local training, without the Flower engine."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from veil._errors import InputError
from veil.federated import FLConfig, clip_update, make_strategy
from veil.federated._local import local_train
from veil.train import make_tabular_mlp


def test_clip_update_bounds_the_norm_and_keeps_direction() -> None:
    delta = [np.full((3, 4), 2.0, dtype=np.float32), np.full(5, -1.0, dtype=np.float32)]
    clipped, norm = clip_update(delta, 1.0)
    assert norm == pytest.approx(math.sqrt(12 * 4 + 5))
    new_norm = math.sqrt(sum(float((c**2).sum()) for c in clipped))
    assert new_norm == pytest.approx(1.0, rel=1e-5)
    assert np.allclose(clipped[0] / clipped[0].max(), 1.0)


def test_clip_update_of_a_zero_update_is_finite() -> None:
    # Flower's fixedclipping_mod divides by this norm and returns NaNs
    zero = [np.zeros((2, 2), dtype=np.float32)]
    clipped, norm = clip_update(zero, 1.0)
    assert norm == 0.0
    assert np.isfinite(clipped[0]).all() and not clipped[0].any()


def test_fedavg_weights_by_examples() -> None:
    s = make_strategy("fedavg")
    mean = s.mean_delta([[np.array([1.0])], [np.array([4.0])]], [3, 1])
    assert mean[0][0] == pytest.approx((3 * 1 + 4) / 4)
    assert s.step([np.array([10.0])], mean)[0][0] == pytest.approx(10 + 7 / 4)


def test_fedadam_moves_against_the_sign_with_bounded_step() -> None:
    s = make_strategy("fedadam")
    w = [np.zeros(3)]
    out = s.step(w, [np.array([5.0, -0.01, 0.0])])
    assert out[0][0] > 0 and out[0][1] < 0 and out[0][2] == 0
    assert np.abs(out[0]).max() <= s.server_lr / (1 - s.beta1) * 1.01


def test_scaffold_control_variate_tracks_client_corrections() -> None:
    s = make_strategy("scaffold")
    # two of four clients replied, with 3 and 1 rows: c += 2/4 * (3 * 2 + 1 * 4) / 4
    s.update_control([[np.array([2.0])], [np.array([4.0])]], [3, 1], n_clients=4)
    assert s.c_ is not None and s.c_[0][0] == pytest.approx(0.5 * 2.5)


def test_unknown_strategy_lists_the_valid_ones() -> None:
    with pytest.raises(InputError, match="fedavg, fedprox, fedadam, scaffold"):
        make_strategy("fedsgd")


def _client_data(n: int = 64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    xn = torch.randn(n, 3, generator=g)
    y = (xn[:, 0] > 0).long()
    return torch.zeros(n, 0, dtype=torch.long), xn, y


def test_proximal_term_keeps_the_update_closer_to_the_global_model() -> None:
    sizes = []
    for mu in (0.0, 5.0):  # stable while lr * mu < 2
        torch.manual_seed(0)
        model = make_tabular_mlp([], 3, 2)
        res = local_train(
            model, _client_data(), epochs=3, batch_size=16, lr=0.1, seed=0, proximal_mu=mu
        )
        sizes.append(math.sqrt(sum(float((d**2).sum()) for d in res.delta)))
    assert sizes[1] < sizes[0]


def test_local_training_clips_what_leaves_the_client() -> None:
    torch.manual_seed(0)
    model = make_tabular_mlp([], 3, 2)
    res = local_train(model, _client_data(), epochs=2, batch_size=8, lr=0.5, seed=0, clip=0.01)
    assert res.norm > 0.01
    assert math.sqrt(sum(float((d**2).sum()) for d in res.delta)) == pytest.approx(0.01, rel=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"strategy": "nope"}, "unknown --strategy"),
        ({"partition": "nope"}, "--partition"),
        ({"fraction_fit": 0.0}, "--fraction-fit"),
        ({"rounds": 0}, "--rounds"),
        ({"dp": "client"}, "--epsilon"),
        ({"dp": "user", "epsilon": 1.0}, "unknown --dp"),
        ({"dp": "client", "epsilon": 1.0, "strategy": "scaffold"}, "scaffold"),
    ],
)
def test_config_refuses_bad_settings(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InputError, match=match):
        FLConfig(**kwargs).validate()  # type: ignore[arg-type]
