"""Discrete codes for the marginal-based synthesizers (MST, AIM) and back.

- categorical and boolean: one code per category, plus one for "missing" if the column
  had missing values;
- numeric, integer and date: equal-width bins between the column's bounds (integers get
  whole-number widths), plus a "missing" code. Decoding draws uniformly inside the bin.

The bins depend only on the bounds, not on the distribution of the data; with declared
bounds the encoding is data-independent, as a DP guarantee needs (see the module notes of
:mod:`veil.synth._marginal`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from veil.synth._schema import ColumnSpec, TableSchema

__all__ = ["Discretizer"]


class Discretizer:
    """Map each modelled column to integer codes ``0..size-1`` and back."""

    def __init__(self, schema: TableSchema, max_bins: int = 32) -> None:
        self.columns: list[dict[str, Any]] = []
        for spec in schema.modelled:
            col: dict[str, Any] = {"name": spec.name, "missing": spec.has_missing}
            if spec.continuous:
                lo, hi = float(spec.low or 0.0), float(spec.high or 0.0)
                if spec.kind == "integer":
                    width = max(1.0, float(math.ceil((hi - lo + 1) / max_bins)))
                    nb = math.ceil((hi - lo + 1) / width)
                else:
                    nb = max_bins
                    width = (hi - lo) / nb if hi > lo else 1.0
                col.update(kind="bins", low=lo, high=hi, width=width, bins=nb)
                col["size"] = nb + int(spec.has_missing)
            else:
                col.update(kind="cat", size=len(spec.categories) + int(spec.has_missing))
            self.columns.append(col)

    @property
    def sizes(self) -> dict[str, int]:
        return {c["name"]: int(c["size"]) for c in self.columns}

    def encode(self, data: pd.DataFrame, schema: TableSchema) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for col in self.columns:
            spec: ColumnSpec = schema[col["name"]]
            s = data[col["name"]]
            if col["kind"] == "cat":
                codes = np.asarray(
                    pd.Categorical(s, categories=spec.categories).codes, dtype=np.int64
                )
                codes[codes < 0] = len(spec.categories)
            else:
                x = (
                    np.where(s.isna(), np.nan, s.astype("int64", errors="ignore").astype(float))
                    if spec.kind == "datetime"
                    else pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
                )
                b = np.floor((np.nan_to_num(x, nan=col["low"]) - col["low"]) / col["width"])
                codes = np.clip(b, 0, col["bins"] - 1).astype(np.int64)
                codes[np.isnan(x)] = col["bins"]
            out[col["name"]] = codes
        return out

    def decode(
        self, codes: dict[str, np.ndarray], schema: TableSchema, rng: np.random.Generator
    ) -> pd.DataFrame:
        out: dict[str, Any] = {}
        for col in self.columns:
            spec = schema[col["name"]]
            c = np.asarray(codes[col["name"]], dtype=np.int64)
            if col["kind"] == "cat":
                cats = np.array([*spec.categories, None], dtype=object)
                out[col["name"]] = cats[np.minimum(c, len(spec.categories))]
            else:
                missing = c >= col["bins"]
                left = col["low"] + np.minimum(c, col["bins"] - 1) * col["width"]
                if spec.kind == "integer":
                    right = np.minimum(left + col["width"] - 1, col["high"])
                    x = np.floor(left + rng.random(len(c)) * (right - left + 1))
                else:
                    right = np.minimum(left + col["width"], col["high"])
                    x = left + rng.random(len(c)) * (right - left)
                    if spec.kind == "datetime":
                        x = np.round(x)
                out[col["name"]] = np.where(missing, np.nan, x)
        return pd.DataFrame(out)
