"""Simulated attacks on a release: linkage with an external table, attribute inference.

**Linkage attack.** The attacker holds an external table of named people with some
quasi-identifiers (a voter list, say) and, for the evaluation only, their true sensitive
values. Each external person is matched to the released records that agree on the shared
quasi-identifiers. If the release is generalized, the attacker first recodes the external
values the way the release did (an attacker who reads the release's hierarchy can): pass
``recode``, per column a mapping from original to released values; :func:`learn_recoding`
learns it from the original and released tables when rows are aligned. The attack reports:

- ``matched``: share of external people who match at least one released record;
- ``single_class``: share whose candidates all lie in one released equivalence class
  (over the released quasi-identifiers);
- ``reidentified``: share matched to exactly one released record;
- ``inferred``: share whose sensitive value the attacker guesses right by taking the most
  frequent value among the candidates (the first in the release's order on ties);
- ``expected_inferred``: the probability of a right guess when picking one candidate at
  random (no tie-breaking luck).

**Attribute inference (homogeneity).** Per sensitive attribute of a release: the share of
records in classes where every record has the same value (the value is disclosed outright),
and the accuracy of guessing each record's value as the most frequent one of its class,
next to the accuracy of the same guess without the quasi-identifiers (the global most
frequent value). The difference is what the quasi-identifiers leak.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError
from veil.risk._classes import EquivalenceClasses, check_columns, encode_column

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["attribute_inference", "learn_recoding", "linkage_attack"]


def learn_recoding(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str],
    *,
    suppressed: Any = None,
    weights: Any = None,
) -> dict[str, dict[Any, Any]]:
    """Per column, the released value most often given to each original value.

    Rows of ``original`` and ``released`` must be aligned by position (``veil run`` keeps
    them aligned; suppressed rows are ignored). Under global recoding each original value
    has one released value, so the mapping is exact. ``weights``: the records each row
    stands for (weighted distinct rows in the order of their first record: the same map).
    """
    import pandas as pd

    if len(original) != len(released):
        raise InputError(
            f"original ({len(original)} rows) and release ({len(released)} rows) are not aligned",
            hint="pass recode= explicitly",
        )
    keep = (
        np.ones(len(original), dtype=bool) if suppressed is None else ~np.asarray(suppressed, bool)
    )
    out: dict[str, dict[Any, Any]] = {}
    for col in columns:
        o_codes, o_uniq = pd.factorize(original[col].to_numpy()[keep])
        r_codes, r_uniq = pd.factorize(released[col].to_numpy()[keep])
        ok = (o_codes >= 0) & (r_codes >= 0)  # missing values are not recoded
        m_r = max(len(r_uniq), 1)
        # the most frequent released value of each original one (sparse: a near-unique
        # column made a distinct x distinct table, 20 GB for 50,000 values)
        w = None if weights is None else np.asarray(weights)[keep][ok]
        keys, counts = _pair_counts(o_codes[ok], r_codes[ok], m_r, w)
        o_best, r_best, _ = _top_per_row(keys, counts, m_r)
        out[col] = {o_uniq[i]: r_uniq[j] for i, j in zip(o_best, r_best, strict=True)}
    return out


def _pair_counts(
    rows: np.ndarray, cols: np.ndarray, n_cols: int, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A sparse contingency table: the distinct ``row * n_cols + col`` keys (sorted) and their
    counts (of records, with ``weights``). Memory is linear in the number of pairs, whatever
    the two cardinalities."""
    pairs = rows.astype(np.int64) * np.int64(n_cols) + cols.astype(np.int64)
    if weights is None:
        keys, counts = np.unique(pairs, return_counts=True)
        return keys, counts
    keys, inverse = np.unique(pairs, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=weights, minlength=len(keys))
    return keys, np.rint(summed).astype(np.int64)


def _top_per_row(
    keys: np.ndarray, counts: np.ndarray, n_cols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row present in a sparse table: its most frequent column (the lowest on ties, as a
    dense ``argmax`` gives), and that count; rows in ascending order."""
    rows, cols = keys // n_cols, keys % n_cols
    order = np.lexsort((cols, -counts, rows))
    r_sorted = rows[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = r_sorted[1:] != r_sorted[:-1]
    sel = order[first]
    return rows[sel], cols[sel], counts[sel]


def _count_of(keys: np.ndarray, counts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Counts of the ``wanted`` keys in a sparse table (0 where absent)."""
    if not len(keys):
        return np.zeros(len(wanted), dtype=np.int64)
    idx = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[idx] == wanted, counts[idx], 0)


def _joint_codes(frames: list[pd.DataFrame], columns: Sequence[str]) -> list[np.ndarray]:
    import pandas as pd

    both = pd.concat([f.loc[:, list(columns)] for f in frames], ignore_index=True)
    key = np.zeros(len(both), dtype=np.int64)
    for c in columns:
        codes, card = encode_column(both[c], c)
        key = pd.factorize(key * max(card, 1) + codes)[0].astype(np.int64)
    out, start = [], 0
    for f in frames:
        out.append(key[start : start + len(f)])
        start += len(f)
    return out


def linkage_attack(
    released: pd.DataFrame,
    external: pd.DataFrame,
    *,
    on: Sequence[str],
    sensitive: str | None = None,
    truth: str | None = None,
    classes: EquivalenceClasses | None = None,
    recode: Mapping[str, Mapping[Any, Any]] | None = None,
    suppressed: Any = None,
) -> dict[str, Any]:
    """Link an external table to a release on shared quasi-identifiers.

    Parameters
    ----------
    released
        The release.
    external
        The attacker's table: the ``on`` columns (original values, recoded with ``recode``,
        or already in the release's domain) and, to score inference, the true sensitive value.
    on
        Quasi-identifiers both tables hold.
    sensitive
        Sensitive column of the release whose value the attacker infers.
    truth
        Column of ``external`` with the true sensitive value (default: ``sensitive``).
    classes
        Equivalence classes of the release, for ``single_class`` (default: over ``on``).
    recode
        Per column, original value -> released value, applied to ``external``. Values the
        mapping lacks match nothing.
    suppressed
        Mask of suppressed released rows; they match nobody.

    Examples
    --------
    >>> import pandas as pd
    >>> rel = pd.DataFrame({"zip": ["130", "130", "148"], "dx": ["flu", "hiv", "flu"]})
    >>> ext = pd.DataFrame({"zip": ["148", "130"], "dx": ["flu", "hiv"]})
    >>> linkage_attack(rel, ext, on=["zip"], sensitive="dx")["reidentified"]
    0.5
    """
    import pandas as pd

    on = [str(c) for c in on]
    check_columns(released, on, "linkage")
    check_columns(external, on, "linkage (external table)")
    truth = truth or sensitive
    if sensitive is not None:
        check_columns(released, [sensitive], "sensitive")
        check_columns(external, [str(truth)], "sensitive (external table)")
    m = len(external)
    if m == 0:
        raise InputError("the external table is empty", hint="give at least one row")
    ext = external.loc[:, on].copy()
    known = np.ones(m, dtype=bool)
    if recode:
        for c, mapping in recode.items():
            if c in ext.columns:
                mapped = ext[c].map(dict(mapping))
                known &= ext[c].isin(list(mapping.keys())).to_numpy()
                ext[c] = mapped
    rel = released.loc[:, on]
    keep = (
        np.ones(len(released), dtype=bool) if suppressed is None else ~np.asarray(suppressed, bool)
    )
    r_key, e_key = _joint_codes([rel, ext], on)
    e_key = np.where(known, e_key, -1)
    r_key = np.where(keep, r_key, -2)
    n_keys = int(max(r_key.max(initial=-1), e_key.max(initial=-1))) + 1
    cand = np.bincount(r_key[r_key >= 0], minlength=n_keys)  # candidate records per key
    matches = np.where(e_key >= 0, cand[np.maximum(e_key, 0)], 0)
    matched = matches > 0
    # single class: all candidates of the key in one class of the release
    if classes is None:
        from veil.risk._classes import equivalence_classes

        classes = equivalence_classes(released, on, suppressed=~keep)
    cls = classes.class_of_row
    sel = (r_key >= 0) & (cls >= 0)
    kc = pd.DataFrame({"k": r_key[sel], "c": cls[sel]}).drop_duplicates()
    classes_per_key = np.bincount(kc["k"].to_numpy(), minlength=n_keys)
    single = matched & (classes_per_key[np.maximum(e_key, 0)] == 1)
    result: dict[str, Any] = {
        "external_rows": m,
        "on": on,
        "matched": float(matched.mean()),
        "single_class": float(single.mean()),
        "reidentified": float((matches == 1).mean()),
    }
    if sensitive is not None:
        s_codes_both = _joint_codes(
            [
                released.loc[:, [sensitive]],
                external.loc[:, [str(truth)]].set_axis([sensitive], axis=1),
            ],
            [sensitive],
        )
        s_rel, s_ext = s_codes_both
        n_vals = int(max(s_rel.max(initial=-1), s_ext.max(initial=-1))) + 1
        valid = r_key >= 0
        # sparse key x value table (a dense one is n_keys x n_vals cells)
        keys, counts = _pair_counts(r_key[valid], s_rel[valid], n_vals)
        k_best, v_best, _ = _top_per_row(keys, counts, n_vals)
        guess = np.full(n_keys, -1, dtype=np.int64)
        guess[k_best] = v_best
        hit_key = np.maximum(e_key, 0)
        right = matched & (guess[hit_key] == s_ext)
        hits = _count_of(keys, counts, hit_key.astype(np.int64) * n_vals + s_ext)
        share_true = np.where(matched, hits / np.maximum(cand[hit_key], 1), 0.0)
        result["sensitive"] = sensitive
        result["inferred"] = float(right.mean())
        result["expected_inferred"] = float(share_true.mean())
    return result


def attribute_inference(
    classes: EquivalenceClasses, released: pd.DataFrame, sensitive: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Homogeneity and majority-guess accuracy per sensitive attribute (module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.risk import equivalence_classes
    >>> df = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]})
    >>> attribute_inference(equivalence_classes(df, ["q"]), df, ["s"])["s"]["homogeneous"]
    0.5
    """
    out: dict[str, dict[str, float]] = {}
    keep = classes.retained
    w = classes.retained_weights()  # weighted rows: counts of records
    n = int(keep.sum()) if w is None else int(w.sum())
    for s in sensitive:
        check_columns(released, [s], "sensitive")
        if n == 0:
            out[s] = {"homogeneous": 0.0, "majority_guess": 0.0, "baseline": 0.0, "lift": 0.0}
            continue
        codes, m = encode_column(released[s].iloc[keep] if not keep.all() else released[s], s)
        cls = classes.class_of_row[keep]
        pair = cls * m + codes
        if w is None:
            uniq, cnt = np.unique(pair, return_counts=True)
            per_value = np.bincount(codes)
        else:
            uniq, inverse = np.unique(pair, return_inverse=True)
            cnt = np.bincount(inverse.ravel(), weights=w, minlength=len(uniq)).astype(np.int64)
            per_value = np.bincount(codes, weights=w).astype(np.int64)
        c_of = uniq // m
        distinct = np.bincount(c_of, minlength=classes.n_classes)
        top = np.zeros(classes.n_classes, dtype=np.int64)
        np.maximum.at(top, c_of, cnt)
        homogeneous = float(classes.sizes[distinct == 1].sum() / n)
        majority = float(top.sum() / n)
        baseline = float(per_value.max() / n)
        out[s] = {
            "homogeneous": homogeneous,
            "majority_guess": majority,
            "baseline": baseline,
            "lift": majority - baseline,
        }
    return out
