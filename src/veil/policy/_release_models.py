"""The policy's ``dp`` and ``synth`` sections: what is released beside the protected table.

Apart from :mod:`veil.policy._models` (the table's columns, guarantee and output), which
holds the :class:`~veil.policy._models.Policy` that names them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from veil.policy._base import _Model

__all__ = ["DPConfig", "SynthConfig"]


class DPConfig(_Model):
    """Differentially private statistics released with the table (the dp stage)."""

    dataset: str
    ledger: str | None = None  # SQLAlchemy URL; None = the default SQLite file
    queries: tuple[dict[str, Any], ...] = ()


class SynthConfig(_Model):
    """Synthetic data released instead of (or beside) the protected table."""

    method: Literal["copula", "mst", "aim", "tvae"] = "copula"
    rows: int | None = Field(None, ge=1)
    epsilon: float | None = Field(None, gt=0)
    delta: float | None = Field(None, gt=0, lt=1)
    dataset: str | None = None
    ledger: str | None = None
    seed: int | None = None
    # the public domain (docs/synthetic-data.md): declared bounds and category lists cost no
    # budget; other columns' domains are estimated under DP (mst, aim), or read from the
    # data outside the guarantee with domain_from_data: true (then stated in the report)
    bounds: dict[str, tuple[float, float]] = Field(default_factory=dict)
    categories: dict[str, tuple[Any, ...]] = Field(default_factory=dict)
    public_domain: str | None = None  # a JSON/YAML file {bounds: ..., categories: ...}
    domain_from_data: bool = False
    # mst, aim: a column to be predicted (its pair with every column is measured, and the
    # report's train-on-synthetic AUC predicts it); triples: the target with two other
    # columns at once, on coarse groups (docs/synthetic-data.md, "Target triples")
    target: str | None = None
    triples: bool = False
