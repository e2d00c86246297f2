"""ML utility: does a model trained on the release work as well as one trained on the original?

The original rows are split once (seeded) into a training part and a held-out test part.
The same two models, logistic regression and gradient boosting (scikit-learn's
``HistGradientBoostingClassifier``), are trained

- on the original training rows, and
- on the released rows of the same people (rows aligned by position, suppressed rows left
  out), or on the whole release when rows are not aligned (synthetic data; then the test
  rows also fed the release, which flatters it: the result says so),

and both are tested on the held-out *original* rows. A model trained on generalized values
cannot read original ones, so the test rows are first recoded the way the release recoded
the training rows (the value map learned from aligned rows; an unseen value is unknown to
the model). Accuracy and AUC (one-vs-rest, macro-averaged, for more than two classes) are
reported with the release's delta: negative means utility lost.

What the models read is a small set of rows (:class:`MLRows`): the training rows (at most
``max_train_rows`` of each table) and the test rows, which may come as weighted distinct
rows (the Ray engine's aggregate: each distinct test row once, with its count, in the order
of its first row in the split); accuracy and AUC are then the test records', equal to the
ones measured row by row (``tests/property/test_utility_weights.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MLRows", "labels", "ml_utility", "ml_utility_on_rows", "split_rows"]


@dataclass
class MLRows:
    """The rows ML utility reads (see the module docstring)."""

    rows: int  # rows of the original table
    train_original: pd.DataFrame  # original training rows, in the split's order
    train_released: pd.DataFrame  # their released rows, suppressed ones left out
    test: pd.DataFrame  # original test rows (distinct, with ``test_weights``), split order
    test_weights: np.ndarray | None  # records per test row; None: one each
    values: pd.DataFrame  # original rows, all or distinct: where the target's labels are read
    aligned: bool = True


def split_rows(n: int, test_size: float = 0.3, seed: int = 0) -> tuple[np.ndarray, int]:
    """The seeded order of ``n`` rows, and how many of its first rows are test rows."""
    return np.random.default_rng(seed).permutation(n), max(1, round(n * test_size))


def labels(s: pd.Series) -> np.ndarray:
    """A target column as the models read it (text, missing as ``<missing>``)."""
    return s.astype("string").fillna("<missing>").to_numpy(dtype=object)


def _prep(df: pd.DataFrame, features: Sequence[str]) -> pd.DataFrame:
    """Every feature as a string category (generalized numbers are intervals, not numbers)."""
    out = df.loc[:, list(features)].copy()
    for c in features:
        out[c] = out[c].astype("string").fillna("<missing>").astype(object)
    return out


def _models(seed: int) -> dict[str, Any]:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    return {
        "logistic_regression": lambda: make_pipeline(
            OneHotEncoder(handle_unknown="ignore", min_frequency=5),
            LogisticRegression(max_iter=200),
        ),
        # integer codes as ordered features: trees split them like any number
        "gradient_boosting": lambda: HistGradientBoostingClassifier(max_iter=50, random_state=seed),
    }


def _encode(frames: list[pd.DataFrame], feats: Sequence[str]) -> list[np.ndarray]:
    """Integer codes per feature, shared across the frames (an unseen value gets its own)."""
    import pandas as pd

    lengths = [len(f) for f in frames]
    cols = []
    for c in feats:
        both = pd.concat([f[c] for f in frames], ignore_index=True)
        codes, _ = pd.factorize(both, use_na_sentinel=False)
        cols.append(codes)
    mat = np.column_stack(cols).astype(np.int64) if cols else np.zeros((sum(lengths), 0))
    out, start = [], 0
    for n in lengths:
        out.append(mat[start : start + n])
        start += n
    return out


def _score(
    model: Any, x: np.ndarray, y: np.ndarray, classes: np.ndarray, w: np.ndarray | None = None
) -> dict[str, float | None]:
    from sklearn.metrics import accuracy_score, roc_auc_score

    pred = model.predict(x)
    # weighted: records right / records, the row-by-row mean bit for bit
    acc = float(accuracy_score(y, pred)) if w is None else int(w[pred == y].sum()) / int(w.sum())
    auc: float | None
    try:
        proba = model.predict_proba(x)
        known = list(model.classes_)
        full = np.zeros((len(x), len(classes)))
        for j, c in enumerate(classes):
            if c in known:
                full[:, j] = proba[:, known.index(c)]
        present = np.isin(classes, np.unique(y))
        if len(classes) == 2:
            auc = float(roc_auc_score(y == classes[1], full[:, 1], sample_weight=w))
        elif present.sum() >= 2:
            # one-vs-rest AUC of each class seen in the test rows, macro-averaged
            aucs = [
                roc_auc_score(y == c, full[:, j], sample_weight=w)
                for j, c in enumerate(classes)
                if present[j] and (y != c).any()
            ]
            auc = float(np.mean(aucs))
        else:
            auc = None
    except ValueError:
        auc = None
    return {"accuracy": acc, "auc": auc}


def ml_utility(
    original: pd.DataFrame,
    released: pd.DataFrame,
    *,
    target: str,
    features: Sequence[str],
    suppressed: Any = None,
    recode: Mapping[str, Mapping[Any, Any]] | None = None,
    test_size: float = 0.3,
    max_train_rows: int | None = 5000,
    seed: int = 0,
) -> dict[str, Any]:
    """Train on original vs released rows, test both on held-out original rows.

    Parameters
    ----------
    target
        Column to predict (present in both tables).
    features
        Predictor columns present in both tables.
    suppressed
        Mask of suppressed released rows (left out of training).
    recode
        Per generalized column, original -> released value, applied to the test rows.
    max_train_rows
        Train on at most this many rows (a seeded sample) to bound the time.

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> df = adult_frame(2000)
    >>> res = ml_utility(df, df, target="salary-class", features=["age", "education", "sex"])
    >>> res["models"]["logistic_regression"]["accuracy_delta"]
    0.0
    """
    feats = [str(f) for f in features if f != target and f in released.columns]
    _check(target, original.columns, released.columns, feats, len(original))
    n = len(original)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)  # split_rows(n, test_size, seed), and rng goes on below
    n_test = max(1, round(n * test_size))
    test_idx, train_idx = perm[:n_test], perm[n_test:]
    aligned = len(released) == n
    sup = np.zeros(len(released), bool) if suppressed is None else np.asarray(suppressed, bool)
    rel_idx = train_idx[~sup[train_idx]] if aligned else np.flatnonzero(~sup)
    if max_train_rows is not None:
        train_idx = train_idx[:max_train_rows]
        rel_idx = rel_idx[:max_train_rows] if aligned else rng.permutation(rel_idx)[:max_train_rows]
    rows = MLRows(
        rows=n,
        train_original=original.iloc[train_idx],
        train_released=released.iloc[rel_idx],
        test=original.iloc[test_idx],
        test_weights=None,
        values=original,
        aligned=aligned,
    )
    return _ml(rows, target, feats, recode, seed)


def _check(target: str, original: Any, released: Any, feats: list[str], n: int) -> None:
    if target not in original or target not in released:
        raise InputError(
            f"the ML-utility target {target!r} is not in both tables",
            hint="choose a column the release keeps",
        )
    if not feats:
        raise InputError("no feature column is in both tables", hint="keep at least one predictor")
    if n < 20:
        raise InputError(f"ML utility needs at least 20 rows, got {n}")


def ml_utility_on_rows(
    rows: MLRows,
    *,
    target: str,
    features: Sequence[str],
    recode: Mapping[str, Mapping[Any, Any]] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """:func:`ml_utility` on rows gathered elsewhere (the Ray engine's partitions): the
    training rows of the split, and its test rows, weighted or not (see :class:`MLRows`)."""
    feats = [str(f) for f in features if f != target and f in rows.train_released.columns]
    _check(target, rows.test.columns, rows.train_released.columns, feats, rows.rows)
    return _ml(rows, target, feats, recode, seed)


def _ml(
    rows: MLRows,
    target: str,
    feats: list[str],
    recode: Mapping[str, Mapping[Any, Any]] | None,
    seed: int,
) -> dict[str, Any]:
    x_test_orig = _prep(rows.test, feats)
    x_test_rel = rows.test.loc[:, feats].copy()
    for c in feats:
        if recode and c in recode:
            x_test_rel[c] = x_test_rel[c].map(dict(recode[c]))
    x_test_rel = _prep(x_test_rel, feats)
    xo, xr, xto, xtr = _encode(
        [
            _prep(rows.train_original, feats),
            _prep(rows.train_released, feats),
            x_test_orig,
            x_test_rel,
        ],
        feats,
    )
    train_sets = {
        "original": (xo, labels(rows.train_original[target]), xto),
        "released": (xr, labels(rows.train_released[target]), xtr),
    }
    w = None if rows.test_weights is None else np.asarray(rows.test_weights, dtype=np.int64)
    classes = np.unique(labels(rows.values[target]))
    models = _models(seed)
    from threadpoolctl import threadpool_limits

    # One thread: the tables are small, and OpenMP's spinning threads oversubscribe a busy
    # machine badly (a 60x slowdown measured on a loaded 2-core host).
    with threadpool_limits(limits=1):
        results = _fit_all(models, train_sets, labels(rows.test[target]), classes, w)
    return {
        "target": target,
        "features": feats,
        "classes": len(classes),
        "train_rows": {
            "original": len(rows.train_original),
            "released": len(rows.train_released),
        },
        "test_rows": len(rows.test) if w is None else int(w.sum()),
        "rows_aligned": rows.aligned,
        "note": None
        if rows.aligned
        else "release not aligned with the original: the test rows may have fed the release",
        "models": results,
    }


def _delta(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return float(a - b)


def _fit_all(
    models: dict[str, Any],
    train_sets: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    y_test: np.ndarray,
    classes: np.ndarray,
    w: np.ndarray | None = None,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name, make in models.items():
        scores: dict[str, dict[str, float | None]] = {}
        for which, (x, y, x_test) in train_sets.items():
            if len(np.unique(y)) < 2:
                scores[which] = {"accuracy": None, "auc": None}
                continue
            model = make()
            model.fit(x, y)
            scores[which] = _score(model, x_test, y_test, classes, w)
        o, r = scores["original"], scores["released"]
        results[name] = {
            "original": o,
            "released": r,
            "accuracy_delta": _delta(r["accuracy"], o["accuracy"]),
            "auc_delta": _delta(r["auc"], o["auc"]),
        }
    return results
