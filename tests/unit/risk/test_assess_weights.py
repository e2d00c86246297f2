"""The risk measurement on weighted rows (the Ray engine's aggregate of a release: each
distinct row once, with the records it stands for) gives the figures the records give:
levels, re-identification risk, attribute inference, requirements, suppression included."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.policy import Policy
from veil.risk import assess, equivalence_classes
from veil.risk._stage import risk_section

_RECORD = st.tuples(
    st.sampled_from(["<30", ">=30", None]),  # a quasi-identifier with missing values
    st.sampled_from(["F", "M"]),
    st.sampled_from(["flu", "hiv", "cold", None]),  # sensitive, text
    st.integers(0, 4),  # sensitive, numbers (ordered distance)
    st.booleans(),  # suppressed
)
_RECORDS = st.lists(_RECORD, min_size=1, max_size=40)


def _table(records: list[tuple[Any, ...]]) -> tuple[pd.DataFrame, np.ndarray]:
    df = pd.DataFrame(records, columns=["age", "sex", "dx", "n", "sup"])
    sup = df.pop("sup").to_numpy(dtype=bool)
    return df, sup


def _aggregate(df: pd.DataFrame, sup: np.ndarray) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Distinct rows (with the suppression flag) in order of their first record, counts."""
    view = df.assign(sup=sup)
    ids = view.groupby(list(view.columns), dropna=False, sort=False).ngroup().to_numpy()
    _, first = np.unique(ids, return_index=True)
    order = np.sort(first)
    agg = view.iloc[order].reset_index(drop=True)
    counts = np.bincount(ids)[ids[order]]
    return agg.drop(columns="sup"), agg["sup"].to_numpy(dtype=bool), counts


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return bool(a == b)


@settings(max_examples=50, deadline=None)
@given(records=_RECORDS, recursive=st.sampled_from([None, 2]), shuffle=st.randoms())
def test_weighted_rows_measure_as_the_records(
    records: list[tuple[Any, ...]], recursive: int | None, shuffle: Any
) -> None:
    df, sup = _table(records)
    agg, agg_sup, counts = _aggregate(df, sup)
    kwargs: dict[str, Any] = {"threshold": 0.3, "recursive_l": recursive}
    rows = assess(df, ["age", "sex"], ["dx", "n"], suppressed=sup, **kwargs).to_dict()
    weighted = assess(
        agg, ["age", "sex"], ["dx", "n"], suppressed=agg_sup, weights=counts, **kwargs
    ).to_dict()
    # in the order of the first records (how the Ray engine merges): the same figures
    assert weighted == rows
    # in any order: the same figures up to the order of floating-point sums
    perm = np.array(shuffle.sample(range(len(agg)), len(agg)), dtype=np.int64)
    shuffled = assess(
        agg.iloc[perm].reset_index(drop=True),
        ["age", "sex"],
        ["dx", "n"],
        suppressed=agg_sup[perm],
        weights=counts[perm],
        **kwargs,
    ).to_dict()
    assert _close(shuffled, rows)


_POLICIES = [
    "k_anonymity: {k: 2}\n  l_diversity: {l: 2, variant: recursive, c: 3}",
    "k_anonymity: {k: 2}\n  t_closeness: {t: 0.4}",
    "l_diversity: {l: 2, variant: entropy, column: dx}\n"
    "  t_closeness: {t: 0.5, distance: ordered, column: n}",
]


def _policy(privacy: str) -> Policy:
    return Policy.model_validate(
        yaml.safe_load(
            f"""version: 1
data: {{path: in.csv}}
columns:
  age: {{role: quasi_identifier, hierarchy: {{type: auto}}}}
  sex: {{role: quasi_identifier, hierarchy: {{type: auto}}}}
  dx: {{role: sensitive}}
  n: {{role: sensitive}}
privacy:
  {privacy}
  suppression_limit: 1.0
"""
        )
    )


@settings(max_examples=40, deadline=None)
@given(records=_RECORDS, privacy=st.sampled_from(_POLICIES), masked=st.booleans())
def test_risk_section_on_weighted_rows_is_the_records(
    records: list[tuple[Any, ...]], privacy: str, masked: bool
) -> None:
    df, sup = _table(records)
    # the reference (the input's sensitive values) may differ from the released ones
    reference = df.assign(dx=df["dx"].where(~masked | (df["n"] != 1), "other"))
    both = pd.concat([df, reference.add_prefix("ref_")], axis=1)
    agg, agg_sup, counts = _aggregate(both, sup)
    policy = _policy(privacy)

    def section(rel: pd.DataFrame, ref: pd.DataFrame, s: np.ndarray, w: Any) -> dict[str, Any]:
        out, _ = risk_section(
            policy, rel, suppressed=s, values=rel, reference=ref, anonymize=None, weights=w
        )
        return out

    rows = section(df, reference, sup, None)
    ref_agg = agg[[f"ref_{c}" for c in df.columns]].set_axis(list(df.columns), axis=1)
    weighted = section(agg[list(df.columns)], ref_agg, agg_sup, counts)
    assert weighted == rows
    assert rows["requirements"]  # the policy's models were re-checked


def test_weights_count_records_in_every_count() -> None:
    df = pd.DataFrame({"q": ["a", None, "b"], "s": ["x", "y", "x"]})
    ec = equivalence_classes(df, ["q"], suppressed=[False, False, True], weights=[3, 2, 5])
    assert (ec.n_rows, ec.n_suppressed, ec.n_records) == (10, 5, 5)
    assert ec.sizes.tolist() == [3, 2] and ec.missing_values == {"q": 2}


@pytest.mark.parametrize("weights", [[1, 2], [1, 0, 1], [1, -1, 1], [1.5, 1, 1]])
def test_bad_weights_are_refused(weights: list[Any]) -> None:
    df = pd.DataFrame({"q": ["a", "a", "b"]})
    with pytest.raises(InputError, match="weight"):
        equivalence_classes(df, ["q"], weights=weights)
