"""The model file: a zip archive of one JSON document and plain numpy arrays. No pickle.

Layout::

    model.json          {"format": "veil-synth", "version": 1, "method": ..., ...}
    arrays/<key>.npy    numeric arrays, written with ``allow_pickle=False``

Loading reads the JSON with :mod:`json` and each array with ``numpy.load(...,
allow_pickle=False)``, so opening a model file cannot run code, unlike a pickle (or
``torch.load`` without ``weights_only``). The file is written atomically: a crash leaves
either the old file or the new one.

A model file holds what the synthesizer learned, which includes the column domain
(category names, numeric bounds) and, for the non-DP methods, statistics of the data.
Treat it like the data it was fitted on unless it came from a DP method.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from veil._errors import InputError
from veil.io import atomic_path

__all__ = ["FORMAT", "VERSION", "read_model_file", "write_model_file"]

FORMAT = "veil-synth"
VERSION = 1
_KEY = re.compile(r"^[A-Za-z0-9_.\-]{1,200}$")
_MAX_MEMBER = 2**31


def write_model_file(
    path: str | Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]
) -> Path:
    """Write ``meta`` (JSON-able) and ``arrays`` (numeric numpy arrays) to ``path`` atomically."""
    doc = {"format": FORMAT, "version": VERSION, **meta}
    text = json.dumps(doc, indent=1, sort_keys=True, allow_nan=True)
    target = Path(path)
    with (
        atomic_path(target) as tmp,
        zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf,
    ):
        zf.writestr("model.json", text)
        for key, arr in arrays.items():
            if not _KEY.match(key):
                raise ValueError(f"bad array key {key!r}")
            a = np.asarray(arr)
            if a.dtype == object:
                raise TypeError(f"array {key!r} has dtype object; only numeric arrays are stored")
            buf = io.BytesIO()
            np.save(buf, a, allow_pickle=False)
            zf.writestr(f"arrays/{key}.npy", buf.getvalue())
    return target


def read_model_file(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a model file written by :func:`write_model_file`; never unpickles anything.

    Raises
    ------
    InputError
        The file is missing, not a veil model, or of an unknown version.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"no model file at {p}")
    try:
        with zipfile.ZipFile(p) as zf:
            names = zf.namelist()
            if "model.json" not in names:
                raise InputError(f"{p} is not a veil synthesizer model (no model.json)")
            meta = json.loads(zf.read("model.json").decode("utf-8"))
            arrays: dict[str, np.ndarray] = {}
            for name in names:
                if not (name.startswith("arrays/") and name.endswith(".npy")):
                    continue
                info = zf.getinfo(name)
                if info.file_size > _MAX_MEMBER:
                    raise InputError(f"{p}: array {name} is implausibly large")
                key = name[len("arrays/") : -len(".npy")]
                arrays[key] = np.load(io.BytesIO(zf.read(name)), allow_pickle=False)
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(
            f"{p} is not a readable veil synthesizer model ({type(exc).__name__})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"{p} is not a veil synthesizer model")
    if meta.get("version") != VERSION:
        raise InputError(
            f"{p} has model format version {meta.get('version')!r}; this veil reads {VERSION}"
        )
    return meta, arrays
