"""Fused per-sample clipping for models whose trainable layers are all ``nn.Linear``.

DP-SGD needs, per step, the sum over the batch of each sample's gradient clipped to norm C.
Opacus' ghost clipping gets there with two backward passes: the first computes each
sample's gradient norm from hooks, the second back-propagates the loss re-weighted by the
clipping coefficients. For a Linear layer both passes are avoidable work: with ``a_i`` the
layer's input and ``g_i`` the gradient of sample i's loss with respect to its output,

* sample i's weight gradient is the outer product ``g_i a_i^T``, whose squared Frobenius
  norm is ``|g_i|^2 |a_i|^2`` (for inputs with extra dimensions, sum over positions:
  ``sum_{t,s} (a_t . a_s)(g_t . g_s)``); the bias gradient is ``g_i`` (summed over
  positions);
* the clipped sum is ``sum_i c_i g_i a_i^T = (c * G)^T A``: one matrix product, the same one
  an ordinary backward pass makes.

So one backward pass, asked only for the gradients with respect to each layer's *output*
(``torch.autograd.grad``), gives every ``g_i``; the norms, the coefficients
``c_i = min(1, C / (norm_i + 1e-6))`` (Opacus' formula) and the clipped sums follow from
matrix products. The result is written to ``p.grad`` and handed to Opacus'
``DPOptimizerFastGradientClipping``, which adds the Gaussian noise, averages by the expected
batch size and steps its accountant, exactly as in ghost mode. ``tests`` check the clipped
sums against Opacus' per-sample gradients (hooks mode).

Assumptions (the same as Opacus' ghost clipping): samples do not interact in the forward
pass (no batch statistics), and each Linear layer is called once per forward pass; a layer
called twice is detected and refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veil._errors import InputError

if TYPE_CHECKING:
    import torch
    from torch import nn

__all__ = ["FusedLinearClipper", "fused_supported", "trainable_modules"]

_EPS = 1e-6  # Opacus' get_clipping_coef: C / (norm + 1e-6), clamped at 1


def trainable_modules(model: nn.Module) -> list[nn.Module]:
    """Modules that own a parameter needing a gradient."""
    return [m for m in model.modules() if any(p.requires_grad for p in m.parameters(recurse=False))]


def fused_supported(model: nn.Module) -> bool:
    """Whether every module with a trainable parameter of its own is an ``nn.Linear``."""
    from torch import nn

    trainable = trainable_modules(model)
    return bool(trainable) and all(type(m) is nn.Linear for m in trainable)


class FusedLinearClipper:
    """Captures each trainable Linear layer's input and output in the forward pass, then
    turns a batch's per-sample losses into clipped, summed gradients in ``p.grad``.

    Use: ``out = model(x)``; ``clipper.backward(per_sample_loss)``; then the DP optimizer's
    ``step()``. Call :meth:`close` to remove the hooks.
    """

    def __init__(self, model: nn.Module, max_grad_norm: float) -> None:
        if not fused_supported(model):
            raise InputError(
                "fused clipping needs every trainable layer to be nn.Linear",
                hint="use grad_sample_mode='ghost' or 'hooks'",
            )
        self.max_grad_norm = float(max_grad_norm)
        self.layers: list[nn.Linear] = trainable_modules(model)  # type: ignore[assignment]
        self._seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self._reused = False
        self._handles = [model.register_forward_pre_hook(self._start)]
        self._handles += [m.register_forward_hook(self._capture) for m in self.layers]

    def _start(self, module: nn.Module, inputs: tuple[Any, ...]) -> None:
        self._seen = {}  # a new forward pass of the whole model
        self._reused = False

    def _capture(self, module: nn.Module, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
        import torch

        if not (module.training and torch.is_grad_enabled()):
            return
        key = id(module)
        if key in self._seen:
            self._reused = True
        self._seen[key] = (inputs[0].detach(), output)

    def close(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []

    def backward(self, loss_per_sample: torch.Tensor) -> torch.Tensor:
        """Write the sum of clipped per-sample gradients into each parameter's ``grad``.

        Returns the per-sample gradient norms (before clipping).
        """
        import torch

        seen, self._seen = self._seen, {}
        if self._reused:
            self._reused = False
            raise InputError(
                "a Linear layer was called more than once in one forward pass; fused "
                "clipping cannot split its per-sample gradients",
                hint="use grad_sample_mode='ghost' or 'hooks'",
            )
        if loss_per_sample.dim() != 1:
            raise InputError(
                "the loss must give one value per sample (reduction='none')",
                hint="pass a loss function with a 'reduction' attribute, such as nn.CrossEntropyLoss()",
            )
        batch = loss_per_sample.shape[0]
        if batch == 0:  # an empty Poisson batch: no gradient, the optimizer adds noise only
            for m in self.layers:
                for p in m.parameters(recurse=False):
                    if p.requires_grad:
                        p.grad = torch.zeros_like(p)
            return loss_per_sample.new_zeros(0)
        used = [(m, *seen[id(m)]) for m in self.layers if id(m) in seen]
        outputs = [out for _, _, out in used]
        grads = torch.autograd.grad(loss_per_sample.sum(), outputs, allow_unused=True)
        sq_norms = loss_per_sample.new_zeros(batch)
        flat: list[tuple[nn.Linear, torch.Tensor, torch.Tensor]] = []
        for (m, a, out), g in zip(used, grads, strict=True):
            if g is None:
                g = torch.zeros_like(out)
            a3 = a.reshape(batch, -1, a.shape[-1])  # (B, T, d_in); T = 1 for plain 2-D input
            g3 = g.reshape(batch, -1, g.shape[-1])  # (B, T, d_out)
            if a3.shape[1] == 1:
                a3, g3 = a3[:, 0], g3[:, 0]  # the common case, kept 2-D for speed
                g_sq = torch.linalg.vector_norm(g3, dim=1).square()
                if m.weight.requires_grad:
                    sq_norms += g_sq * torch.linalg.vector_norm(a3, dim=1).square()
                if m.bias is not None and m.bias.requires_grad:
                    sq_norms += g_sq
            else:
                if m.weight.requires_grad:
                    aa = torch.bmm(a3, a3.transpose(1, 2))
                    gg = torch.bmm(g3, g3.transpose(1, 2))
                    sq_norms += (aa * gg).sum((1, 2))
                if m.bias is not None and m.bias.requires_grad:
                    sq_norms += torch.linalg.vector_norm(g3.sum(1), dim=1).square()
            flat.append((m, a3, g3))
        coef = (self.max_grad_norm / (sq_norms.sqrt() + _EPS)).clamp(max=1.0)
        for m, a3, g3 in flat:
            if a3.dim() == 3:
                coef_t = coef.repeat_interleave(a3.shape[1])  # one coefficient per position
                a2, g2 = a3.reshape(-1, a3.shape[-1]), g3.reshape(-1, g3.shape[-1])
            else:
                coef_t, a2, g2 = coef, a3, g3
            if m.weight.requires_grad:
                # scale whichever side is narrower: the temporary is (B*T) x min(d_in, d_out)
                if g2.shape[1] <= a2.shape[1]:
                    m.weight.grad = (g2 * coef_t[:, None]).t() @ a2
                else:
                    m.weight.grad = g2.t() @ (a2 * coef_t[:, None])
            if m.bias is not None and m.bias.requires_grad:
                m.bias.grad = coef_t @ g2
        touched = {id(m) for m, _, _ in flat}
        for m in self.layers:  # a layer the forward pass skipped contributes nothing
            if id(m) not in touched:
                for p in m.parameters(recurse=False):
                    if p.requires_grad:
                        p.grad = torch.zeros_like(p)
        return sq_norms.sqrt()
