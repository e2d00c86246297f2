"""A Gaussian copula synthesizer on numpy/scipy (not differentially private).

Each column is mapped to a standard normal score, the correlation matrix of the scores is
estimated, and sampling draws correlated normals and maps each back through the column's
empirical distribution:

- numeric, integer and date columns: the empirical CDF (stored as 1,001 quantiles), with
  ties broken at random so the scores are exactly normal; samples are interpolated between
  the quantiles (and rounded for integers and dates);
- categorical columns: each category owns an interval of ``[0, 1]`` as wide as its
  frequency, and a row's score is a uniform draw inside its category's interval. The
  *order* of the intervals decides which associations a single correlation can carry. It
  is the order of the categories on the first axis of a multiple correspondence analysis
  of all columns, the ordering under which the categories co-vary most with the rest of
  the table, so pairs of categorical columns keep their trends (frequency order, the
  usual choice, loses most of them);
- missing values: a missing category for categorical columns, and for numeric columns an
  extra latent "is missing" variable correlated with the others.

Privacy: none. The model stores quantiles and category frequencies of the data. Use it
for test data and development; use ``mst``/``aim`` (or ``tvae`` with DP) for releases.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from veil._numeric import coerce_numbers
from veil._progress import Progress
from veil.synth._base import Synthesizer, synthesizers
from veil.synth._schema import ColumnSpec, TableSchema

__all__ = ["GaussianCopulaSynthesizer"]

_GRID = 1001
_EPS = 1e-6


def _ndtri(u: np.ndarray) -> np.ndarray:
    return np.asarray(special.ndtri(np.clip(u, _EPS, 1 - _EPS)))


def _as_float(s: pd.Series, spec: ColumnSpec) -> np.ndarray:
    if spec.kind == "datetime":
        return np.where(s.isna(), np.nan, s.astype("int64", errors="ignore").astype("float64"))
    return coerce_numbers(s).to_numpy(dtype="float64")


def _codes(s: pd.Series, spec: ColumnSpec) -> np.ndarray:
    """Category index per row; ``len(categories)`` for missing."""
    cat = pd.Categorical(s, categories=spec.categories)
    codes = np.asarray(cat.codes, dtype=np.int64)
    codes[codes < 0] = len(spec.categories)
    return codes


def _mca_order(codes: list[np.ndarray], sizes: list[int]) -> list[np.ndarray]:
    """Coordinates of every category on the first axis of a multiple correspondence analysis."""
    n = len(codes[0])
    offsets = np.cumsum([0, *sizes])
    total_j = int(offsets[-1])
    # Burt matrix B = G^T G of the indicator matrix G, built from pairwise contingencies.
    burt = np.zeros((total_j, total_j))
    for i, ci in enumerate(codes):
        for j, cj in enumerate(codes):
            if j < i:
                continue
            table = np.bincount(ci * sizes[j] + cj, minlength=sizes[i] * sizes[j])
            block = table.reshape(sizes[i], sizes[j]).astype(float)
            burt[offsets[i] : offsets[i + 1], offsets[j] : offsets[j + 1]] = block
            burt[offsets[j] : offsets[j + 1], offsets[i] : offsets[i + 1]] = block.T
    q = len(codes)
    col_mass = np.diag(burt) / (n * q)
    keep = col_mass > 0
    p = burt[np.ix_(keep, keep)] / (n * q * q)
    c = col_mass[keep]
    s = (p - np.outer(c, c)) / np.sqrt(np.outer(c, c))
    vals, vecs = np.linalg.eigh(s)
    first = vecs[:, int(np.argmax(vals))]
    coord = np.zeros(total_j)
    coord[keep] = first / np.sqrt(c)
    return [coord[offsets[i] : offsets[i + 1]] for i in range(q)]


@synthesizers.register("copula")
class GaussianCopulaSynthesizer(Synthesizer):
    """Gaussian copula over empirical marginals (fast; not differentially private).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [i % 37 * 1.5 for i in range(100)], "b": ["x", "y"] * 50})
    >>> syn = GaussianCopulaSynthesizer(seed=0).fit(df)
    >>> syn.sample(5).shape
    (5, 2)
    """

    dp = False

    def _fit(self, data: pd.DataFrame, schema: TableSchema, progress: Progress) -> None:
        rng = np.random.default_rng(self.seed)
        n = len(data)
        specs = [s for s in schema.modelled]
        # Discrete view of every column (numeric in deciles) for the category ordering.
        disc_codes: list[np.ndarray] = []
        disc_sizes: list[int] = []
        cat_index: dict[str, int] = {}
        for spec in specs:
            if spec.continuous:
                x = _as_float(data[spec.name], spec)
                ok = ~np.isnan(x)
                ranks = np.full(n, 10, dtype=np.int64)
                if ok.any():
                    r = pd.Series(x[ok]).rank(method="first").to_numpy()
                    ranks[ok] = np.minimum((r - 1) * 10 // ok.sum(), 9).astype(np.int64)
                disc_codes.append(ranks)
                disc_sizes.append(11)
            else:
                cat_index[spec.name] = len(disc_codes)
                disc_codes.append(_codes(data[spec.name], spec))
                disc_sizes.append(len(spec.categories) + 1)
        coords = _mca_order(disc_codes, disc_sizes) if cat_index else []

        latents: list[np.ndarray] = []
        self.columns_: list[dict[str, Any]] = []
        self.arrays_: dict[str, np.ndarray] = {}
        with progress.task("copula: marginals", total=len(specs)) as task:  # type: ignore[attr-defined]
            for spec in specs:
                col: dict[str, Any] = {"name": spec.name, "kind": spec.kind}
                if spec.continuous:
                    x = _as_float(data[spec.name], spec)
                    ok = ~np.isnan(x)
                    grid = np.linspace(0, 1, _GRID)
                    self.arrays_[f"q.{len(self.columns_)}"] = np.quantile(x[ok], grid)
                    z = np.empty(n)
                    # random tie-breaking: uniform ranks, exactly standard-normal scores
                    order = np.lexsort((rng.random(int(ok.sum())), x[ok]))
                    u = np.empty(int(ok.sum()))
                    u[order] = (np.arange(len(order)) + rng.random(len(order))) / len(order)
                    z[ok] = _ndtri(u)
                    z[~ok] = rng.standard_normal(int((~ok).sum()))
                    latents.append(z)
                    col["missing_latent"] = bool((~ok).any())
                    if col["missing_latent"]:
                        rate = float((~ok).mean())
                        col["missing_rate"] = rate
                        um = np.where(~ok, rng.random(n) * rate, rate + rng.random(n) * (1 - rate))
                        latents.append(_ndtri(um))
                else:
                    codes = _codes(data[spec.name], spec)
                    k = len(spec.categories) + 1
                    freq = np.bincount(codes, minlength=k) / n
                    coord = coords[cat_index[spec.name]]
                    order = np.lexsort((np.arange(k), coord))
                    order = order[freq[order] > 0]
                    starts = np.zeros(k)
                    widths = np.zeros(k)
                    cum = np.concatenate([[0.0], np.cumsum(freq[order])])
                    starts[order] = cum[:-1]
                    widths[order] = freq[order]
                    u = starts[codes] + rng.random(n) * widths[codes]
                    latents.append(_ndtri(u))
                    self.arrays_[f"order.{len(self.columns_)}"] = order.astype(np.int64)
                    self.arrays_[f"cum.{len(self.columns_)}"] = cum
                self.columns_.append(col)
                task.advance()
        z_all = np.column_stack(latents)
        corr = np.corrcoef(z_all, rowvar=False) if z_all.shape[1] > 1 else np.ones((1, 1))
        corr = np.nan_to_num(corr, nan=0.0)
        np.fill_diagonal(corr, 1.0)
        vals, vecs = np.linalg.eigh(corr)
        corr = (vecs * np.clip(vals, 1e-6, None)) @ vecs.T
        d = np.sqrt(np.diag(corr))
        self.arrays_["corr"] = corr / np.outer(d, d)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        corr = self.arrays_["corr"]
        chol = np.linalg.cholesky(corr + 1e-9 * np.eye(len(corr)))
        z = rng.standard_normal((n, len(corr))) @ chol.T
        u = special.ndtr(z)
        out: dict[str, Any] = {}
        j = 0
        for i, col in enumerate(self.columns_):
            spec = self.schema_[col["name"]]
            if spec.continuous:
                q = self.arrays_[f"q.{i}"]
                x = np.interp(u[:, j], np.linspace(0, 1, len(q)), q)
                if spec.kind in ("integer", "datetime"):
                    x = np.round(x)
                j += 1
                if col.get("missing_latent"):
                    x = np.where(u[:, j] < col["missing_rate"], np.nan, x)
                    j += 1
                out[col["name"]] = x
            else:
                order = self.arrays_[f"order.{i}"]
                cum = self.arrays_[f"cum.{i}"]
                pos = np.clip(np.searchsorted(cum, u[:, j], side="right") - 1, 0, len(order) - 1)
                codes = order[pos]
                cats = np.array([*spec.categories, None], dtype=object)
                out[col["name"]] = cats[codes]
                j += 1
        return pd.DataFrame(out)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"columns": self.columns_}, dict(self.arrays_)

    def _set_state(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.columns_ = list(meta["columns"])
        self.arrays_ = dict(arrays)
