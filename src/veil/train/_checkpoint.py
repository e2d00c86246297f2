"""DP-SGD checkpoints: model, optimizer and the accountant's state, written atomically.

A checkpoint holds everything needed to resume training without losing track of the privacy
spent so far: the accountant's history (noise multiplier, sampling rate, steps), the
calibration, the number of steps taken and the ledger entry that paid for the schedule.
It is a ``torch.save`` file read back with ``weights_only=True`` (tensors and plain Python
values only), so loading a checkpoint from elsewhere cannot run code.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.io import write_bytes_atomic

__all__ = ["CHECKPOINT_FORMAT", "load_checkpoint", "save_checkpoint"]

CHECKPOINT_FORMAT = "veil-dpsgd-checkpoint/1"


def save_checkpoint(path: str | Path, state: dict[str, Any]) -> Path:
    """Write a checkpoint atomically: a crash mid-write leaves the previous one intact."""
    import torch

    buf = io.BytesIO()
    torch.save({"format": CHECKPOINT_FORMAT, **state}, buf)
    return write_bytes_atomic(path, buf.getvalue())


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_checkpoint`.

    Raises
    ------
    InputError
        When the file is missing, unreadable or not a veil DP-SGD checkpoint.
    """
    import torch

    path = Path(path)
    if not path.is_file():
        raise InputError(f"checkpoint not found: {path}")
    try:
        state = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a bad file
        raise InputError(
            f"{path}: not a readable checkpoint ({type(exc).__name__})",
            hint="pass a file written by veil's DP-SGD training",
        ) from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise InputError(f"{path}: not a veil DP-SGD checkpoint")
    return state
