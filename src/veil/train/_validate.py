"""Making a user's model trainable with DP-SGD: Opacus' ``ModuleValidator``, reported."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from veil._deps import require
from veil._errors import InputError

if TYPE_CHECKING:
    from torch import nn

__all__ = ["ModelNotPrivatizable", "make_private_compatible"]

log = logging.getLogger(__name__)


class ModelNotPrivatizable(InputError):
    """Opacus cannot train this model with per-sample clipping, even after ``fix``.

    ``problems`` lists what ``ModuleValidator`` found (module names and types, no data).
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        )
        super().__init__(
            f"Opacus cannot make this model private: {shown}",
            hint="replace the listed layers (e.g. BatchNorm by GroupNorm, or register a "
            "grad sampler for a custom layer), or call opacus.validators.ModuleValidator.fix",
        )


def _module_types(model: nn.Module) -> dict[str, str]:
    return {name or "<root>": type(mod).__name__ for name, mod in model.named_modules()}


def _problems(model: nn.Module) -> list[str]:
    from opacus.grad_sample import GradSampleModule
    from opacus.validators import ModuleValidator

    # Opacus' messages name the module, its shape and the reason (e.g. "BatchNorm cannot
    # support training with differential privacy ..."); they never contain tensor values.
    errors = [str(e) for e in ModuleValidator.validate(model, strict=False)]
    # Per-sample gradients of a trainable layer that also holds buffers are not supported.
    errors += [str(e) for e in GradSampleModule.validate(model, strict=False)]
    return list(dict.fromkeys(errors))


def make_private_compatible(model: nn.Module, *, fix: bool = True) -> tuple[nn.Module, list[str]]:
    """Check a model with Opacus' ``ModuleValidator`` and fix what can be fixed.

    Parameters
    ----------
    model
        The model to train. It is not modified; a fixed copy is returned when needed.
    fix
        Run ``ModuleValidator.fix`` (e.g. BatchNorm -> GroupNorm) when validation fails.

    Returns
    -------
    model, changes
        The model to train (the original when nothing needed fixing) and one line per
        replaced module, e.g. ``"bn: BatchNorm1d -> GroupNorm"``.

    Raises
    ------
    ModelNotPrivatizable
        When problems remain after fixing (or ``fix`` is false), listing them all.

    Examples
    --------
    >>> from torch import nn
    >>> m, changes = make_private_compatible(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8)))
    >>> changes
    ['1: BatchNorm1d -> GroupNorm']
    """
    require("opacus", extra="dp", purpose="DP-SGD training")
    from opacus.validators import ModuleValidator

    problems = _problems(model)
    if not problems:
        return model, []
    if not fix:
        raise ModelNotPrivatizable(problems)
    before = _module_types(model)
    try:
        fixed = ModuleValidator.fix(model)
    except Exception as exc:  # noqa: BLE001 - a fixer may fail on an unusual module
        raise ModelNotPrivatizable(
            [*problems, f"ModuleValidator.fix failed ({type(exc).__name__})"]
        ) from None
    after = _module_types(fixed)
    changes = [
        f"{name}: {before[name]} -> {after[name]}"
        for name in before
        if name in after and before[name] != after[name]
    ]
    remaining = _problems(fixed)
    if remaining:
        raise ModelNotPrivatizable(remaining)
    for line in changes:
        log.info("ModuleValidator.fix replaced %s", line)
    return fixed, changes
