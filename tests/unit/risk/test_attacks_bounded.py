"""Recoding and linkage use sparse tables: memory linear in the rows, answers as dense ones."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd

from veil.risk import learn_recoding, linkage_attack


def _dense_recoding(o: pd.Series, r: pd.Series) -> dict:
    """The dense reference: for each original value, its most frequent released value (the
    first seen on ties)."""
    o_codes, o_uniq = pd.factorize(o.to_numpy())
    r_codes, r_uniq = pd.factorize(r.to_numpy())
    table = np.zeros((len(o_uniq), len(r_uniq)), dtype=np.int64)
    np.add.at(table, (o_codes, r_codes), 1)
    best = table.argmax(axis=1)
    return {o_uniq[i]: r_uniq[best[i]] for i in range(len(o_uniq))}


def test_recoding_matches_the_dense_argmax_ties_included():
    rng = np.random.default_rng(5)
    o = pd.Series(rng.integers(0, 40, size=3000))
    # local recoding with noise: several released values per original, with ties
    r = pd.Series([f"g{(v // 5 + rng.integers(0, 3)) % 9}" for v in o])
    got = learn_recoding(pd.DataFrame({"a": o}), pd.DataFrame({"a": r}), ["a"])["a"]
    assert got == _dense_recoding(o, r)
    assert list(got) == list(pd.unique(o))  # original values in order of appearance


def test_recoding_a_near_unique_column_stays_small():
    n = 6000
    o = pd.DataFrame({"id": np.arange(n) * 7})
    r = pd.DataFrame({"id": (np.arange(n) * 7).astype(str)})  # the same ids, now text
    tracemalloc.start()
    try:
        got = learn_recoding(o, r, ["id"])["id"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got[7] == "7" and len(got) == n
    # dense: 6,000 x 6,000 int64 counts, 288 MB
    assert peak < 16 * 2**20, f"recoding peaked at {peak / 2**20:.1f} MiB"


def test_linkage_inference_matches_the_dense_table_and_stays_small():
    rng = np.random.default_rng(9)
    n = 8000
    rel = pd.DataFrame(
        {
            "zip": rng.choice([f"{z:04d}" for z in range(1000)], size=n),
            "dx": [f"v{i}" for i in rng.integers(0, 6000, size=n)],  # near-unique sensitive
        }
    )
    ext = rel.sample(800, random_state=1).reset_index(drop=True)
    tracemalloc.start()
    try:
        res = linkage_attack(rel, ext, on=["zip"], sensitive="dx")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # dense reference of the guess: the most frequent value per zip, first seen on ties
    codes, uniq = pd.factorize(pd.concat([rel["dx"], ext["dx"]], ignore_index=True))
    rel_codes = codes[:n]
    right, share = [], []
    for z, truth in zip(ext["zip"], codes[n:], strict=True):
        vals = rel_codes[(rel["zip"] == z).to_numpy()]
        counts = np.bincount(vals, minlength=len(uniq))
        right.append(counts.argmax() == truth)
        share.append(counts[truth] / len(vals))
    assert res["inferred"] == float(np.mean(right))
    assert abs(res["expected_inferred"] - float(np.mean(share))) < 1e-12
    # dense: ~1,000 keys x ~4,300 values of int64 is 34 MB (and its bincount as much)
    assert peak < 8 * 2**20, f"linkage peaked at {peak / 2**20:.1f} MiB"
