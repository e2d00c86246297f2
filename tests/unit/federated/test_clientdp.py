"""Client-level DP's server side: the noisy mean, adaptive clipping and its accounting."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from veil._errors import InputError
from veil.federated import (
    AdaptiveClip,
    ClientDPAggregator,
    FLConfig,
    combined_noise,
    split_noise,
    unclipped_bit,
)
from veil.federated._simulate import client_noise


def _run_on_norms(
    norms: np.ndarray, start: float, quantile: float, rounds: int, seed: int = 0
) -> ClientDPAggregator:
    """Rounds of adaptive clipping where the clients' update norms are ``norms``: each client
    reports its centred bit against the current clip, as the clients do."""
    rng = np.random.default_rng(seed)
    agg = ClientDPAggregator(
        noise_multiplier=0.05,
        clip_norm=start,
        expected_clients=len(norms),
        rng=rng,
        adaptive=AdaptiveClip(quantile=quantile, lr=0.2, count_noise=1.0),
    )
    for _ in range(rounds):
        bits = sum(unclipped_bit(float(n), agg.clip_norm) for n in norms)
        agg.aggregate([np.zeros(3, np.float32), np.array([bits], np.float32)])
    return agg


@pytest.mark.parametrize("quantile", [0.5, 0.9])
@pytest.mark.parametrize("start", [0.01, 100.0])
def test_the_clip_norm_moves_to_the_target_quantile_of_the_norms(
    quantile: float, start: float
) -> None:
    norms = np.random.default_rng(1).lognormal(mean=0.0, sigma=0.5, size=500)
    # from far above at quantile 0.9 each step is only lr * (1 - 0.9): 400 rounds
    agg = _run_on_norms(norms, start, quantile, rounds=400)
    target = float(np.quantile(norms, quantile))
    final = float(np.mean(agg.clip_history[-20:]))
    assert final == pytest.approx(target, rel=0.1)
    # it got there from far away, one geometric step of at most
    # lr * (max(quantile, 1 - quantile) + the count's noise share) at a time
    assert abs(math.log(agg.clip_history[0] / target)) > 2
    steps = np.diff(np.log(agg.clip_history))
    assert np.abs(steps).max() <= 0.2 * (max(quantile, 1 - quantile) + 5 * 1.0 / 500)


def test_the_share_of_unclipped_updates_ends_near_the_quantile() -> None:
    norms = np.random.default_rng(2).exponential(size=400)
    agg = _run_on_norms(norms, 1.0, 0.7, rounds=150)
    unclipped = float(np.mean(norms <= agg.clip_norm))
    assert unclipped == pytest.approx(0.7, abs=0.05)


def test_the_noisy_mean_divides_by_the_expected_clients_and_noises_by_the_clip() -> None:
    agg = ClientDPAggregator(2.0, 0.5, 10.0, np.random.default_rng(3))
    total = [np.full(20000, 3.0, np.float32)]
    mean = agg.aggregate(total)[0]
    assert mean.dtype == np.float32
    assert float(mean.mean()) == pytest.approx(0.3, abs=0.01)
    assert float(mean.std()) == pytest.approx(2.0 * 0.5 / 10.0, rel=0.03)
    assert agg.clip_history == [0.5] and agg.clip_norm == 0.5  # fixed clipping stays put


def test_adaptive_clipping_raises_the_update_noise_and_uses_the_clip_of_the_round() -> None:
    agg = ClientDPAggregator(
        2.0, 0.5, 10.0, np.random.default_rng(4), AdaptiveClip(count_noise=2.0)
    )
    assert agg.update_noise == pytest.approx(split_noise(2.0, 2.0))
    assert agg.update_noise > 2.0
    # every client clipped: the clip grows for the next round, this round used 0.5
    mean = agg.aggregate([np.zeros(20000, np.float32), np.array([-5.0], np.float32)])
    assert len(mean) == 1  # the bits are consumed, not applied to the model
    assert float(mean[0].std()) == pytest.approx(agg.update_noise * 0.5 / 10.0, rel=0.03)
    assert agg.clip_history == [0.5]
    assert agg.clip_norm > 0.5


def test_split_and_combined_noise_are_inverse_and_match_the_papers_relation() -> None:
    for z, sb in [(1.0, 5.0), (6.68, 6.68), (0.8, 0.5)]:
        zu = split_noise(z, sb)
        assert zu > z
        assert zu**-2 + (2 * sb) ** -2 == pytest.approx(z**-2)
        assert combined_noise(zu, sb) == pytest.approx(z)


def test_a_count_noise_too_small_for_the_budget_is_refused_with_the_bound() -> None:
    with pytest.raises(InputError, match=r"above 3\.34") as err:
        split_noise(6.68, 3.0)
    assert "--clip-count-noise" in str(err.value.hint)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"adaptive_clip": True}, "--dp client only"),
        ({"adaptive_clip": True, "dp": "sample", "epsilon": 3.0}, "--dp client only"),
        ({"adaptive_clip": True, "dp": "client", "epsilon": 3.0, "clip_quantile": 1.0}, "quantile"),
        ({"adaptive_clip": True, "dp": "client", "epsilon": 3.0, "clip_lr": 0.0}, "--clip-lr"),
        (
            {"adaptive_clip": True, "dp": "client", "epsilon": 3.0, "clip_count_noise": -1.0},
            "--clip-count-noise",
        ),
    ],
)
def test_bad_adaptive_clipping_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        FLConfig(**kwargs).validate()


def test_an_infeasible_count_noise_is_refused_before_any_spend() -> None:
    # client_noise runs before the ledger is charged (simulate_federated)
    config = FLConfig(
        clients=10, rounds=20, dp="client", epsilon=3.0, adaptive_clip=True, clip_count_noise=1.0
    )
    with pytest.raises(InputError, match="count noise"):
        client_noise(config)
    # the default count noise is always feasible, and the accounting is the fixed clip's
    adaptive = client_noise(
        FLConfig(clients=10, rounds=20, dp="client", epsilon=3.0, adaptive_clip=True)
    )
    fixed = client_noise(FLConfig(clients=10, rounds=20, dp="client", epsilon=3.0))
    assert adaptive == fixed
    assert adaptive[1] <= 3.0


def _opacus_epsilon(history: list[tuple[float, float, int]], delta: float) -> float:
    from opacus.accountants import RDPAccountant

    acc = RDPAccountant()
    acc.history = list(history)
    return float(acc.get_epsilon(delta))


def test_the_combined_mechanism_is_accounted_as_its_two_gaussians_composed() -> None:
    """Without client sampling the update noise and the count noise are two Gaussian
    mechanisms (sensitivities C and 1/2) on the same clients: Opacus' RDP accountant composing
    them as two entries must give the epsilon veil spends for the combined multiplier."""
    pytest.importorskip("opacus")
    from veil.train import epsilon_after

    rounds, delta = 20, 1e-5
    config = FLConfig(
        clients=100, rounds=rounds, dp="client", epsilon=3.0, delta=delta, adaptive_clip=True
    )
    z, spent = client_noise(config)
    sigma_b = max(100 / 20, z)
    zu = split_noise(z, sigma_b)
    composed = _opacus_epsilon([(zu, 1.0, rounds), (2 * sigma_b, 1.0, rounds)], delta)
    assert composed == pytest.approx(spent, rel=1e-6)
    assert epsilon_after(z, 1.0, rounds, delta, "rdp") == pytest.approx(composed, rel=1e-6)
    assert composed <= 3.0


def test_with_client_sampling_the_spend_is_opacus_for_the_effective_multiplier() -> None:
    pytest.importorskip("opacus")
    rounds, delta, q = 30, 1e-5, 0.3
    config = FLConfig(
        clients=100,
        rounds=rounds,
        fraction_fit=q,
        dp="client",
        epsilon=2.0,
        delta=delta,
        adaptive_clip=True,
        clip_count_noise=4.0,
    )
    z, spent = client_noise(config)
    zu = split_noise(z, 4.0)
    # one subsampled Gaussian on (update / C, (bit - 1/2) * 2): noise multiplier z
    effective = combined_noise(zu, 4.0)
    assert _opacus_epsilon([(effective, q, rounds)], delta) == pytest.approx(spent, rel=1e-6)
    assert spent <= 2.0
    # leaving the count out of the accounting would have understated the spend
    assert _opacus_epsilon([(zu, q, rounds)], delta) < spent


@pytest.mark.parametrize(("clip", "bit"), [(1e-6, -0.5), (1e6, 0.5)])
def test_a_client_appends_its_centred_bit_only_when_the_clip_is_adaptive(
    clip: float, bit: float
) -> None:
    from veil.data import adult_frame
    from veil.federated._client import ADAPTIVE_KEY, _train
    from veil.federated._model import fresh_model, prepare

    frame = adult_frame().sample(300, random_state=2)
    data = prepare(frame, "salary-class", FLConfig(clients=2, model="logistic"), ())
    weights = [
        p.detach().numpy().copy() for p in fresh_model(data.arch, 0, "logistic").parameters()
    ]
    cfg: dict[str, Any] = {"epochs": 1, "batch_size": 32, "lr": 0.1, "seed": 1, "mu": 0.0}
    fixed = _train(data, 0, weights, {**cfg, "clip": clip}, None)
    adaptive = _train(data, 0, weights, {**cfg, "clip": clip, ADAPTIVE_KEY: True}, None)
    assert len(fixed.delta) == len(weights)
    assert len(adaptive.delta) == len(weights) + 1
    assert adaptive.delta[-1].tolist() == [bit]
    for a, b in zip(fixed.delta, adaptive.delta, strict=False):
        np.testing.assert_array_equal(a, b)  # the update itself is the fixed clip's
