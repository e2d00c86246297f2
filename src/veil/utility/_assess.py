"""One call for the utility section of a report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil.utility._distance import association_preservation, column_distances
from veil.utility._loss import information_loss, k_sweep
from veil.utility._ml import MLRows, ml_utility, ml_utility_on_rows

if TYPE_CHECKING:
    import pandas as pd

    from veil.risk import EquivalenceClasses

__all__ = ["choose_target", "measure_utility"]


def choose_target(df: pd.DataFrame, candidates: Sequence[str], max_classes: int = 20) -> str | None:
    """The binary candidate that comes last in the table, else the first candidate with at
    most ``max_classes`` values.

    Binary targets come first: they are the usual ML task (and one tree per boosting round);
    among them the last column, where a dataset's label usually sits (Adult's salary class).
    """
    present = [c for c in candidates if c in df.columns]
    counts = {c: df[c].nunique() for c in present}
    position = {str(c): i for i, c in enumerate(df.columns)}
    binary = [c for c in present if counts[c] == 2]
    if binary:
        return str(max(binary, key=lambda c: position[str(c)]))
    for c in present:
        if 2 < counts[c] <= max_classes:
            return str(c)
    return None


def measure_utility(
    original: pd.DataFrame,
    released: pd.DataFrame,
    *,
    classes: EquivalenceClasses | None = None,
    quasi_identifiers: Sequence[str] = (),
    columns: Sequence[str] | None = None,
    suppressed: Any = None,
    target: str | None = None,
    k: int | None = None,
    ml: bool = True,
    max_train_rows: int = 5000,
    seed: int = 0,
    weights: Any = None,
    ml_rows: MLRows | None = None,
) -> dict[str, Any]:
    """Distances, association preservation, information loss, k sweep and ML utility.

    Rows of ``original`` and ``released`` are taken as aligned when their lengths match
    (``veil run`` keeps them aligned); generalized columns are then recoded for comparison.

    With ``weights`` the two tables are aligned weighted rows: each row stands for that many
    records (at least one), and rows come in the order of their first record (the Ray
    engine's aggregate of input and release). Every figure is then the records'; ``classes``
    are the release's classes (measured on any weighted rows), and ML utility reads
    ``ml_rows`` (the split's rows, gathered where the records are), not these rows.

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> df = adult_frame(500)
    >>> u = measure_utility(df, df, columns=["sex", "race"], ml=False)
    >>> u["columns"][0]["total_variation"]
    0.0
    """
    from veil.risk import learn_recoding

    cols = [c for c in (columns or original.columns) if c in released.columns]
    aligned = len(original) == len(released)
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.int64)
        if w.shape != (len(original),) or not aligned or (len(w) and int(w.min()) < 1):
            raise ValueError("weights: one count of at least 1 per row of both aligned tables")
    recode = None
    if aligned:
        # a column is generalized when a kept row's released value differs from its input
        # value, compared as text: a quasi-identifier at level 0 released as strings is not
        keep = (
            np.ones(len(released), dtype=bool)
            if suppressed is None
            else ~np.asarray(suppressed, dtype=bool)
        )
        generalized = [
            c
            for c in cols
            if (
                released[c].astype(str).to_numpy()[keep] != original[c].astype(str).to_numpy()[keep]
            ).any()
        ]
        recode = (
            learn_recoding(original, released, generalized, suppressed=suppressed, weights=w)
            if generalized
            else None
        )
    kept = None if suppressed is None else ~np.asarray(suppressed, bool)
    out: dict[str, Any] = {
        "rows_aligned": aligned,
        "columns": column_distances(original, released, cols, recode=recode, weights=w),
        "associations": association_preservation(
            original,
            released if kept is None else released.loc[kept],
            cols,
            weights=w,
            released_weights=None if w is None or kept is None else w[kept],
        ),
    }
    if classes is not None:
        out["information_loss"] = information_loss(
            classes,
            original=original if aligned else None,
            released=released if aligned else None,
            quasi_identifiers=quasi_identifiers,
            k=k,
            weights=w,
            retained=None if w is None else (np.ones(len(w), bool) if kept is None else kept),
        )
        out["k_sweep"] = k_sweep(classes)
    out["ml"] = None
    features = [c for c in cols if c != target]
    if ml and target is not None and ml_rows is not None:
        out["ml"] = ml_utility_on_rows(
            ml_rows, target=target, features=features, recode=recode, seed=seed
        )
    elif ml and target is not None and w is None:  # weighted rows are not the split's rows
        out["ml"] = ml_utility(
            original,
            released,
            target=target,
            features=features,
            suppressed=suppressed,
            recode=recode,
            max_train_rows=max_train_rows,
            seed=seed,
        )
    return out
