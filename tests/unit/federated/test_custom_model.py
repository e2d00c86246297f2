"""A user's ``nn.Module`` in federated training: how every party builds it, and what is
refused before any round (or ledger spend) runs."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch import nn

from veil._errors import InputError
from veil.federated import FLConfig
from veil.federated._model import FLData, check_model, fresh_model, model_name
from veil.train import ModelNotPrivatizable

ARCH = ([4, 3], 2, 2)  # two categorical columns (cardinalities), two numerics, two classes


class Embed(nn.Module):
    """Embeds each category, concatenates the numerics: the shape veil's rows have."""

    def __init__(self, cards: list[int], n_numeric: int, n_classes: int, norm: Any = None):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(c + 1, 3) for c in cards)
        width = 3 * len(cards) + n_numeric
        self.norm = norm if norm is not None else nn.Identity()
        self.out = nn.Linear(width, n_classes)

    def forward(self, x_cat: torch.Tensor, x_num: torch.Tensor) -> torch.Tensor:
        parts = [e(x_cat[:, i]) for i, e in enumerate(self.emb)]
        return self.out(self.norm(torch.cat([*parts, x_num], dim=1)))


def make_embed(cards: list[int], n_numeric: int, n_classes: int) -> nn.Module:
    return Embed(cards, n_numeric, n_classes)


def _data(model: Any) -> FLData:
    gen = torch.Generator().manual_seed(0)
    xc = torch.stack([torch.randint(0, 5, (8,), generator=gen) % 4, torch.arange(8) % 3], 1)
    xn = torch.randn(8, 2, generator=gen)
    y = torch.arange(8) % 2
    rows = (xc, xn, y)
    return FLData([rows], rows, rows, ARCH, init_seed=7, model=model)


def test_a_factory_builds_the_same_model_on_every_party_from_the_seed() -> None:
    a = fresh_model(ARCH, 7, make_embed)
    b = fresh_model(ARCH, 7, make_embed)
    c = fresh_model(ARCH, 8, make_embed)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)
    assert not all(torch.equal(p, q) for p, q in zip(a.parameters(), c.parameters(), strict=True))
    # the factory got the encoding's sizes
    assert len(a.emb) == 2 and a.emb[0].num_embeddings == 5 and a.out.out_features == 2


def test_a_module_is_copied_so_parties_never_share_its_weights() -> None:
    net = Embed(*ARCH)
    copy = fresh_model(ARCH, 7, net)
    assert copy is not net
    with torch.no_grad():
        next(copy.parameters()).add_(1.0)
    assert not torch.equal(next(copy.parameters()), next(net.parameters()))
    assert model_name(net) == "custom:Embed"
    assert model_name(make_embed) == "custom:make_embed"
    assert model_name("logistic") == "logistic"


def test_a_model_that_fits_the_rows_passes_the_check_with_and_without_dp() -> None:
    for dp in (None, "client", "sample"):
        check_model(_data(make_embed), dp)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (lambda c, n, k: nn.Linear(3, k), "failed on veil's encoded rows"),
        (lambda c, n, k: Embed(c, n, 5), "returned (2, 5) for 2 rows"),
        (lambda c, n, k: Embed(c, n, k, norm=nn.BatchNorm1d(8)), "running statistics in norm"),
        (lambda c, n, k: "not a module", "returned a str, not a torch nn.Module"),
    ],
)
def test_a_model_that_cannot_be_federated_is_refused_with_the_reason(
    model: Any, message: str
) -> None:
    with pytest.raises(InputError, match="the model") as err:
        check_model(_data(model), None)
    assert message in str(err.value)


def test_a_model_with_nothing_to_train_is_refused() -> None:
    def frozen(c: list[int], n: int, k: int) -> nn.Module:
        net = Embed(c, n, k)
        for p in net.parameters():
            p.requires_grad_(False)
        return net

    with pytest.raises(InputError, match="no trainable parameter"):
        check_model(_data(frozen), None)


def test_opacus_layers_are_checked_only_for_sample_level_dp() -> None:
    def untracked(c: list[int], n: int, k: int) -> nn.Module:
        return Embed(c, n, k, norm=nn.BatchNorm1d(8, track_running_stats=False))

    check_model(_data(untracked), None)  # averaging its parameters is fine
    check_model(_data(untracked), "client")  # clipping a whole update is fine
    with pytest.raises(ModelNotPrivatizable, match="BatchNorm"):
        check_model(_data(untracked), "sample")  # per-row gradients mix rows in BatchNorm


def test_the_config_refuses_a_model_that_is_neither_a_name_nor_callable() -> None:
    with pytest.raises(InputError, match=r"an nn\.Module or a factory"):
        FLConfig(model=42).validate()  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown --model"):
        FLConfig(model="resnet").validate()
    FLConfig(model=make_embed).validate()
    FLConfig(model=Embed(*ARCH)).validate()
