"""``--model``: veil's tabular MLP or a logistic regression, built alike on every party."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.federated import FLConfig
from veil.federated._client import _train
from veil.federated._local import local_train
from veil.federated._model import evaluate, fresh_model, logistic_model, prepare


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    from veil.data import adult_frame

    return adult_frame().sample(600, random_state=2)


def test_an_unknown_model_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(InputError, match="mlp, logistic"):
        FLConfig(model="forest").validate()


@settings(max_examples=25, deadline=None)
@given(
    cards=st.lists(st.integers(1, 6), max_size=4),
    n_num=st.integers(0, 3),
    n_classes=st.integers(2, 4),
    rows=st.integers(1, 5),
)
def test_logistic_regression_has_one_weight_per_feature_and_non_reference_class(
    cards: list[int], n_num: int, n_classes: int, rows: int
) -> None:
    if not cards and n_num == 0:
        n_num = 1
    model = logistic_model(cards, n_num, n_classes)
    features = sum(c + 1 for c in cards) + n_num
    assert sum(p.numel() for p in model.parameters()) == (features + 1) * (n_classes - 1)
    g = torch.Generator().manual_seed(rows)
    columns = [torch.randint(0, c + 1, (rows,), generator=g) for c in cards]
    xc = torch.stack(columns, 1) if columns else torch.zeros(rows, 0, dtype=torch.long)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(generator=g)
        logits = model(xc, torch.randn(rows, n_num, generator=g))
    assert logits.shape == (rows, n_classes)
    assert not logits[:, 0].any()  # the reference class's logit is fixed at 0


def test_every_party_builds_the_same_logistic_model_and_it_learns(frame: pd.DataFrame) -> None:
    data = prepare(frame, "salary-class", FLConfig(clients=2, model="logistic"), ())
    assert data.model == "logistic"
    a, b = fresh_model(data.arch, 1, data.model), fresh_model(data.arch, 2, data.model)
    for x, y in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(x, y)
    before, _ = evaluate(a, data.train)
    local_train(a, data.train, epochs=5, batch_size=32, lr=0.1, seed=0)
    after, _ = evaluate(a, data.train)
    assert before is not None and after is not None
    # zero weights predict the reference class only; trained, it beats the majority class
    majority = float(torch.bincount(data.train[2]).max()) / len(data.train[2])
    assert after > majority + 0.02


def test_dp_sgd_clients_train_the_logistic_model(frame: pd.DataFrame) -> None:
    data = prepare(frame, "salary-class", FLConfig(clients=2, model="logistic"), ())
    weights = [
        p.detach().numpy().copy() for p in fresh_model(data.arch, 0, "logistic").parameters()
    ]
    cfg = {
        "epochs": 1,
        "batch_size": 32,
        "lr": 0.05,
        "seed": 3,
        "mu": 0.0,
        "clip": 0.0,
        "dp_sigmas": [1.5, 1.5],
        "dp_epsilon": 3.0,
        "dp_delta": 1e-5,
        "dp_clip": 1.0,
    }
    res = _train(data, 0, weights, cfg, None)
    assert [d.shape for d in res.delta] == [w.shape for w in weights]
    assert all(np.isfinite(d).all() and d.any() for d in res.delta)
