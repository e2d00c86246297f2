"""Invariants of ``anonymize()`` with MDAV and local cell suppression on random small tables.

Checked with plain pandas, independently of the engine and of its re-check:

- every release has classes (identical released quasi-identifier tuples, ``*`` a value of its
  own) of at least k records, and no record is removed;
- MDAV releases the mean of each released class (within the rounding asked for);
- cell suppression changes a quasi-identifier cell only to ``*`` and leaves every other
  column alone;
- when either refuses, k really is larger than the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil._errors import PrivacyRequirementNotMet
from veil.tabular import AnonymizeConfig, anonymize

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 40))

    def column(values: st.SearchStrategy) -> list:
        return draw(st.lists(values, min_size=n, max_size=n))

    return pd.DataFrame(
        {
            "age": column(st.integers(0, 30)),
            "score": column(st.sampled_from([0.5, 1.25, 3.0, -2.0, 1e6])),
            "zip": column(st.sampled_from(["z1", "z2", "z3", "*", "z5"])),
            "sex": column(st.sampled_from(["F", "M", None])),
            "other": column(st.integers(0, 3)),
        }
    )


def _class_sizes(df: pd.DataFrame, qis: list[str]) -> pd.Series:
    return df.groupby(qis, dropna=False).size()


@_SETTINGS
@given(
    tables(),
    st.integers(2, 8),
    st.sampled_from([None, 0, 1]),
    st.sampled_from([["age"], ["age", "score"], ["score"]]),
)
def test_mdav_release_is_k_anonymous_with_class_means(df, k, round_to, qis) -> None:
    cfg = AnonymizeConfig.build(qis, {}, k=k, algorithm="mdav", round_to=round_to)
    if k > len(df):
        try:
            anonymize(df, cfg)
        except PrivacyRequirementNotMet:
            return
        raise AssertionError("k larger than the table was accepted")
    res = anonymize(df, cfg)
    assert len(res.data) == len(df)
    assert _class_sizes(res.data, qis).min() >= k
    ids = res.data.groupby(qis).ngroup().to_numpy()
    slack = 0.5 * 10.0 ** (-round_to) if round_to is not None else 0.0
    for q in qis:
        means = df[q].astype(float).groupby(ids).transform("mean").to_numpy()
        released = res.data[q].to_numpy(dtype=float)
        assert (np.abs(released - means) <= slack + 1e-6 * max(1.0, np.abs(means).max())).all()
    pd.testing.assert_frame_equal(
        res.data.drop(columns=qis), df.drop(columns=qis), check_dtype=False
    )


@_SETTINGS
@given(
    tables(),
    st.integers(2, 8),
    st.sampled_from([["zip"], ["zip", "sex"], ["age", "zip", "sex"], ["age", "score", "sex"]]),
)
def test_cell_suppression_release_is_k_anonymous_and_only_stars(df, k, qis) -> None:
    cfg = AnonymizeConfig.build(qis, {}, k=k, algorithm="cell_suppression")
    if k > len(df):
        try:
            anonymize(df, cfg)
        except PrivacyRequirementNotMet:
            return
        raise AssertionError("k larger than the table was accepted")
    res = anonymize(df, cfg)
    assert len(res.data) == len(df) and res.suppressed_records == 0
    assert _class_sizes(res.data, qis).min() >= k
    for q in qis:
        rel, orig = res.data[q], df[q]
        starred = (rel.astype(object) == "*").to_numpy()
        same = (rel.isna() & orig.isna()).to_numpy() | (
            pd.to_numeric(rel, errors="coerce") == pd.to_numeric(orig, errors="coerce")
        ).to_numpy()
        same |= (rel.astype(str) == orig.astype(str)).to_numpy()
        assert (starred | same).all()
    rest = [c for c in df.columns if c not in qis]
    pd.testing.assert_frame_equal(res.data[rest], df[rest])
