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


def _cond_entropy_bits(orig: np.ndarray, rel: np.ndarray, keep: np.ndarray) -> tuple[float, float]:
    """Sum of -log2 P(o | r) over kept rows, and the column's entropy sum for dropped rows."""
    n_o = int(orig.max()) + 1 if len(orig) else 1
    pair = rel * n_o + orig
    joint = np.bincount(pair[keep])
    marg = np.bincount(rel[keep], minlength=int(rel.max()) + 1 if len(rel) else 1)
    kept_pairs = pair[keep]
    with np.errstate(divide="ignore"):
        p = joint[kept_pairs] / marg[rel[keep]]
    kept_bits = float(-np.log2(p).sum())
    # a suppressed record's value is only known to come from the column's distribution
    all_counts = np.bincount(orig, minlength=n_o)
    probs = all_counts[orig[~keep]] / max(len(orig), 1)
    dropped_bits = float(-np.log2(probs).sum()) if len(probs) else 0.0
    return kept_bits, dropped_bits


def information_loss(
    classes: EquivalenceClasses,
    *,
    original: pd.DataFrame | None = None,
    released: pd.DataFrame | None = None,
    quasi_identifiers: Sequence[str] = (),
    k: int | None = None,
) -> dict[str, Any]:
    """Discernibility, AECS, non-uniform entropy and suppression of a release.

    ``original`` and ``released`` (aligned by position) enable the entropy measure.

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
        keep = classes.retained
        bits, total_bits = 0.0, 0.0
        per_col = {}
        for q in quasi_identifiers:
            o, _ = encode_column(original[q], q)
            r, _ = encode_column(released[q], q)
            kept, dropped = _cond_entropy_bits(o, r, keep)
            col_total = float(-np.log2(np.bincount(o)[o] / len(o)).sum())
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
