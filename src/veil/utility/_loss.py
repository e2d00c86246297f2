"""Information loss of a release, computed from the release itself (no hierarchy needed).

- **discernibility** (DM): ``sum over classes of size^2`` plus ``n`` for each suppressed record
  (Bayardo & Agrawal); lower is better, ``n`` is the floor (every record unique).
- **average class size** (AECS): ``records in classes / classes``, and normalized by ``k``
  (LeFevre et al.); 1 is the best a k-anonymous release can do.
- **non-uniform entropy**: ``sum over records and QIs of -log2 P(original value | released
  value)``, with the probabilities taken from the aligned original (ARX's non-uniform entropy
  without its monotonic variant; suppressed records lose the entropy of the whole column).
  Needs the original rows aligned with the released ones.
- **suppressed share**.

When the tabular engine measured its own metrics (``report["anonymize"]``), the report shows
those too; these here are an independent recomputation on what was written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil.risk._classes import EquivalenceClasses, encode_column

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["information_loss", "k_sweep"]


def _bits(counts: np.ndarray, probs: np.ndarray) -> float:
    """``-sum(count * log2(p))`` over the values present: the bits of the records behind the
    counts, summed per value (the same sum whether the records came as rows or as weighted
    rows)."""
    present = counts > 0
    return float(-(counts[present] * np.log2(probs[present])).sum())


def _cond_entropy_bits(
    orig: np.ndarray, rel: np.ndarray, keep: np.ndarray, weights: np.ndarray | None = None
) -> tuple[float, float, float]:
    """Sum of -log2 P(o | r) over kept records, the column's entropy sum for dropped records,
    and the column's entropy sum over all records."""
    w = np.ones(len(orig)) if weights is None else np.asarray(weights, dtype=float)
    n_o = int(orig.max()) + 1 if len(orig) else 1
    pair = rel * n_o + orig
    joint = np.bincount(pair[keep], weights=w[keep])
    marg = np.bincount(rel[keep], weights=w[keep])
    cells = np.flatnonzero(joint)  # pairs present, in code order
    kept_bits = _bits(joint[cells], joint[cells] / marg[cells // n_o])
    # a suppressed record's value is only known to come from the column's distribution
    all_counts = np.bincount(orig, weights=w, minlength=n_o)
    total = max(float(all_counts.sum()), 1.0)
    dropped = np.bincount(orig[~keep], weights=w[~keep], minlength=n_o)
    return kept_bits, _bits(dropped, all_counts / total), _bits(all_counts, all_counts / total)


def information_loss(
    classes: EquivalenceClasses,
    *,
    original: pd.DataFrame | None = None,
    released: pd.DataFrame | None = None,
    quasi_identifiers: Sequence[str] = (),
    k: int | None = None,
    weights: np.ndarray | None = None,
    retained: np.ndarray | None = None,
) -> dict[str, Any]:
    """Discernibility, AECS, non-uniform entropy and suppression of a release.

    ``original`` and ``released`` (aligned by position) enable the entropy measure. With
    ``weights`` they are weighted rows (records per row) and ``retained`` marks their rows
    kept in the release (``classes``, then, may be measured on other weighted rows).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.risk import equivalence_classes
    >>> ec = equivalence_classes(pd.DataFrame({"a": ["x", "x", "y", "y"]}), ["a"])
    >>> information_loss(ec)["discernibility"]
    8
    """
    n = classes.n_rows
    dm = int((classes.sizes.astype(np.int64) ** 2).sum()) + classes.n_suppressed * n
    aecs = classes.n_records / classes.n_classes if classes.n_classes else None
    out: dict[str, Any] = {
        "discernibility": dm,
        "discernibility_normalized": dm / (n * n) if n else None,
        "average_class_size": aecs,
        "average_class_size_normalized": (aecs / k) if (aecs is not None and k) else None,
        "suppressed_share": classes.n_suppressed / n if n else 0.0,
        "non_uniform_entropy": None,
    }
    if original is not None and released is not None and len(original) == len(released) and n:
        keep = classes.retained if retained is None else np.asarray(retained, dtype=bool)
        bits, total_bits = 0.0, 0.0
        per_col = {}
        for q in quasi_identifiers:
            o, _ = encode_column(original[q], q)
            r, _ = encode_column(released[q], q)
            kept, dropped, col_total = _cond_entropy_bits(o, r, keep, weights)
            per_col[q] = (kept + dropped) / col_total if col_total else 0.0
            bits += kept + dropped
            total_bits += col_total
        out["non_uniform_entropy"] = {
            "bits": bits,
            "normalized": bits / total_bits if total_bits else 0.0,
            "per_column": per_col,
        }
    return out


def k_sweep(
    classes: EquivalenceClasses, ks: Sequence[int] = (1, 2, 3, 5, 10, 20, 50, 100)
) -> list[dict[str, Any]]:
    """Risk and suppression if the release's classes smaller than ``k`` were suppressed.

    A cheap risk-utility trade-off curve at the release's generalization: for each ``k``,
    the share of records that would have to be suppressed and the prosecutor risk that
    would remain. Computed from the class-size histogram alone.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.risk import equivalence_classes
    >>> ec = equivalence_classes(pd.DataFrame({"a": ["x", "y", "y"]}), ["a"])
    >>> k_sweep(ec, [1, 2])[1]["suppressed_share"]
    0.3333333333333333
    """
    sizes = classes.sizes
    n_all = classes.n_rows
    out = []
    for k in ks:
        keep = sizes >= k
        recs = int(sizes[keep].sum())
        out.append(
            {
                "k": int(k),
                "suppressed_share": (n_all - recs) / n_all if n_all else 0.0,
                "highest_risk": float(1.0 / sizes[keep].min()) if recs else 0.0,
                "average_risk": float(keep.sum() / recs) if recs else 0.0,
                "classes": int(keep.sum()),
            }
        )
    return out
