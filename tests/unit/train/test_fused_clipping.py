"""Fused clipping against Opacus' own per-sample gradients (hooks mode), the reference."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("opacus")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from opacus import GradSampleModule  # noqa: E402
from torch import nn  # noqa: E402

from veil._errors import InputError  # noqa: E402
from veil.train._fused import FusedLinearClipper, fused_supported  # noqa: E402


def _reference(model: nn.Module, x: torch.Tensor, y: torch.Tensor, c: float) -> list[torch.Tensor]:
    """Sum over the batch of per-sample gradients clipped to norm c, from Opacus' hooks."""
    gsm = GradSampleModule(model, loss_reduction="sum")
    loss = nn.functional.cross_entropy(gsm(x), y, reduction="sum")
    with warnings.catch_warnings():  # torch: the inputs need no gradient (data never do)
        warnings.filterwarnings("ignore", message="Full backward hook is firing")
        loss.backward()
    params = [p for p in model.parameters() if p.requires_grad]
    per_sample = torch.cat([p.grad_sample.reshape(len(x), -1) for p in params], dim=1)
    coef = (c / (per_sample.norm(dim=1) + 1e-6)).clamp(max=1.0)
    out = [torch.einsum("b,b...->...", coef, p.grad_sample) for p in params]
    gsm._close()
    return out


def _fused(model: nn.Module, x: torch.Tensor, y: torch.Tensor, c: float) -> list[torch.Tensor]:
    clipper = FusedLinearClipper(model, c)
    for p in model.parameters():
        p.grad = None
    clipper.backward(nn.functional.cross_entropy(model(x), y, reduction="none"))
    clipper.close()
    return [p.grad for p in model.parameters() if p.requires_grad]


def _mlp(d_in: int, hidden: int, bias: bool, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(d_in, hidden, bias=bias), nn.ReLU(), nn.Linear(hidden, 3), nn.Tanh()
    )


@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 40),
    d_in=st.integers(1, 12),
    hidden=st.integers(1, 16),
    bias=st.booleans(),
    clip=st.sampled_from([1e-3, 0.1, 1.0, 100.0]),
    seed=st.integers(0, 2**16),
)
def test_clipped_sums_equal_opacus_per_sample_gradients(
    batch: int, d_in: int, hidden: int, bias: bool, clip: float, seed: int
) -> None:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, d_in, generator=gen) * 3
    y = torch.randint(0, 3, (batch,), generator=gen)
    model = _mlp(d_in, hidden, bias, seed)
    want = _reference(model, x, y, clip)
    got = _fused(model, x, y, clip)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-6)


class _Sequence(nn.Module):
    """A Linear over positions (B, T, d): per-sample norms need the T x T ghost products."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 5)
        self.head = nn.Linear(5, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.proj(x)).mean(1))


def test_inputs_with_a_sequence_dimension_match_opacus() -> None:
    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(9, 6, 4, generator=gen), torch.randint(0, 3, (9,), generator=gen)
    torch.manual_seed(0)
    model = _Sequence()
    want = _reference(model, x, y, 0.5)
    for w, g in zip(want, _fused(model, x, y, 0.5), strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-6)


def test_frozen_layers_get_no_gradient_and_do_not_count_in_the_norm() -> None:
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(16, 6, generator=gen), torch.randint(0, 3, (16,), generator=gen)
    model = _mlp(6, 8, True, 1)
    for p in model[0].parameters():
        p.requires_grad_(False)
    want = _reference(model, x, y, 0.3)
    got = _fused(model, x, y, 0.3)
    assert model[0].weight.grad is None
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-6)


def test_every_clipped_sample_contributes_at_most_c() -> None:
    # One sample alone: its clipped gradient's norm is min(norm, C).
    model = _mlp(5, 7, True, 2)
    x, y = torch.randn(1, 5) * 50, torch.tensor([1])
    clipper = FusedLinearClipper(model, 0.25)
    norms = clipper.backward(nn.functional.cross_entropy(model(x), y, reduction="none"))
    total = torch.sqrt(sum((p.grad**2).sum() for p in model.parameters()))
    assert float(total) == pytest.approx(min(float(norms[0]), 0.25), rel=1e-4)


def test_empty_batch_gives_zero_gradients() -> None:
    model = _mlp(3, 4, True, 0)
    clipper = FusedLinearClipper(model, 1.0)
    out = model(torch.zeros(0, 3))
    norms = clipper.backward(
        nn.functional.cross_entropy(out, torch.zeros(0, dtype=torch.long), reduction="none")
    )
    assert norms.shape == (0,)
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())


def test_a_layer_called_twice_and_unsupported_layers_are_refused() -> None:
    shared = nn.Linear(4, 4)

    class _Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.shared = shared

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.shared(self.shared(x))

    model = _Twice()
    clipper = FusedLinearClipper(model, 1.0)
    loss = nn.functional.cross_entropy(
        model(torch.randn(3, 4)), torch.tensor([0, 1, 2]), reduction="none"
    )
    with pytest.raises(InputError, match="more than once"):
        clipper.backward(loss)
    assert not fused_supported(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)))
    with pytest.raises(InputError, match=r"nn\.Linear"):
        FusedLinearClipper(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)), 1.0)
    single = nn.Linear(4, 3)
    once = FusedLinearClipper(single, 1.0)
    mean_loss = nn.functional.cross_entropy(single(torch.randn(3, 4)), torch.tensor([0, 1, 2]))
    with pytest.raises(InputError, match="one value per sample"):
        once.backward(mean_loss)
