"""Hypothesis: the share bound of :meth:`PrivacyModel.check` holds for any split of a class.

The optimal search rejects every specialization of a node at once when the node's classes
prove, through these shares, that any split of them suppresses more than the limit. For
t-closeness this rests on every EMD being convex in the class distribution and at most 1.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.tabular._privacy_models import (
    EqualDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
    OrderedDistanceTClosenessModel,
    SensitiveDomain,
)

T_MODELS = (
    EqualDistanceTClosenessModel,
    OrderedDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
)


@st.composite
def domains(draw):
    m = draw(st.integers(2, 6))
    counts = np.array(draw(st.lists(st.integers(1, 20), min_size=m, max_size=m)))
    order = np.array(draw(st.permutations(range(m))))
    n_groups = draw(st.integers(1, m))
    level1 = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=m, max_size=m)))
    _, level1 = np.unique(level1, return_inverse=True)  # ancestor ids 0..g-1
    levels = (level1, np.zeros(m, dtype=np.int64)) if draw(st.booleans()) else (level1,)
    return SensitiveDomain("s", counts, order=order, hierarchy=levels)


@settings(max_examples=300, deadline=None)
@given(
    domains(),
    st.sampled_from([0.05, 0.1, 0.2, 0.35, 0.5, 0.8]),
    st.data(),
)
def test_t_closeness_share_bound_holds_for_any_split(domain, t, data):
    m = domain.n_codes
    part = st.lists(st.integers(0, 6), min_size=m, max_size=m).filter(lambda h: sum(h) > 0)
    parts = np.array(data.draw(st.lists(part, min_size=1, max_size=5)), dtype=np.int64)
    merged = parts.sum(axis=0)[None, :]
    sizes = parts.sum(axis=1)
    for cls in T_MODELS:
        model = cls(t=t, domain=domain)
        assert np.all(model.distances({"s": merged}) <= 1 + 1e-12)
        ok, share = model.check(merged.sum(axis=1), {"s": merged})
        assert bool(ok[0]) == bool(model.satisfied(merged.sum(axis=1), {"s": merged})[0])
        failing = ~model.satisfied(sizes, {"s": parts})
        assert sizes[failing].sum() / sizes.sum() >= share[0] - 1e-12
