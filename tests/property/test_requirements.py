"""Hypothesis: the re-check and the anonymizer's models, two independent codes, agree on any
release: same t (equal, ordered, hierarchical) against the whole input, suppressed rows
included; same verdict for k, distinct, entropy and recursive (c,l)-diversity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.policy import PrivacyConfig
from veil.risk._requirements import check_release
from veil.tabular import Hierarchy
from veil.tabular._privacy_models import (
    DistinctLDiversityModel,
    EntropyLDiversityModel,
    EqualDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
    KAnonymityModel,
    OrderedDistanceTClosenessModel,
    RecursiveCLDiversityModel,
    SensitiveDomain,
)


@st.composite
def releases(draw):
    """Classes of sensitive values 1..m (numbers: their order is their value), suppressed
    rows, and a grouping of the values for a hierarchy (with or without a root level)."""
    m = draw(st.integers(2, 6))
    value = st.integers(1, m)
    classes = draw(st.lists(st.lists(value, min_size=1, max_size=8), min_size=1, max_size=5))
    suppressed = draw(st.lists(value, max_size=6))
    groups = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
    rooted = draw(st.booleans())
    return m, classes, suppressed, groups, rooted


def _frame(classes, suppressed):
    g = [f"g{i}" for i, c in enumerate(classes) for _ in c] + ["*"] * len(suppressed)
    s = [v for c in classes for v in c] + list(suppressed)
    mask = np.array([False] * (len(g) - len(suppressed)) + [True] * len(suppressed))
    return pd.DataFrame({"g": g, "s": s}), mask


def _engine_inputs(classes, suppressed, groups, rooted):
    """The anonymizer's view: histograms over the values present in the input."""
    present = sorted({v for c in classes for v in c} | set(suppressed))
    code = {v: i for i, v in enumerate(present)}
    hist = np.zeros((len(classes), len(present)), dtype=np.int64)
    for i, c in enumerate(classes):
        for v in c:
            hist[i, code[v]] += 1
    total = hist.sum(axis=0)
    for v in suppressed:
        total[code[v]] += 1
    _, level1 = np.unique([groups[v - 1] for v in present], return_inverse=True)
    levels = (level1, np.zeros(len(present), dtype=np.int64)) if rooted else (level1,)
    domain = SensitiveDomain("s", total, order=np.arange(len(present)), hierarchy=levels)
    sizes = hist.sum(axis=1)
    return domain, sizes, {"s": hist}


def _hierarchy(m, groups, rooted):
    rows = [[str(v), f"G{groups[v - 1]}", *(["*"] if rooted else [])] for v in range(1, m + 1)]
    return Hierarchy.from_rows("s", rows)


@settings(max_examples=150, deadline=None)
@given(releases(), st.sampled_from(["equal", "ordered", "hierarchical"]))
def test_t_matches_the_anonymizers_distance(release, distance):
    m, classes, suppressed, groups, rooted = release
    rel, mask = _frame(classes, suppressed)
    cfg = PrivacyConfig.model_validate({"t_closeness": {"t": 0.5, "distance": distance}})
    (req,) = check_release(
        rel, ["g"], cfg, ["s"], suppressed=mask, hierarchies={"s": _hierarchy(m, groups, rooted)}
    )
    domain, _, hist = _engine_inputs(classes, suppressed, groups, rooted)
    model = {
        "equal": EqualDistanceTClosenessModel,
        "ordered": OrderedDistanceTClosenessModel,
        "hierarchical": HierarchicalDistanceTClosenessModel,
    }[distance](t=0.5, domain=domain)
    assert req.measured == pytest.approx(float(model.distances(hist).max()), abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    releases(),
    st.sampled_from(
        [
            ("k", 2, None),
            ("k", 3, None),
            ("distinct", 2, None),
            ("distinct", 3, None),
            ("entropy", 1.5, None),
            ("entropy", 2, None),
            ("entropy", 2.5, None),
            ("recursive", 2, 1.0),
            ("recursive", 2, 2.0),
            ("recursive", 3, 1.5),
            ("recursive", 2, 3.0),
        ]
    ),
)
def test_k_and_l_verdicts_match_the_anonymizers_models(release, model_spec):
    _m, classes, suppressed, groups, rooted = release
    variant, level, c = model_spec
    rel, mask = _frame(classes, suppressed)
    _, sizes, hist = _engine_inputs(classes, suppressed, groups, rooted)
    if variant == "k":
        cfg = {"k_anonymity": {"k": level}}
        model = KAnonymityModel(k=level)
    else:
        cfg = {"l_diversity": {"l": level, "variant": variant, "c": c}}
        model = {
            "distinct": lambda: DistinctLDiversityModel(l=level, column="s"),
            "entropy": lambda: EntropyLDiversityModel(l=level, column="s"),
            "recursive": lambda: RecursiveCLDiversityModel(c=c, l=int(level), column="s"),
        }[variant]()
    privacy = PrivacyConfig.model_validate(cfg)
    (req,) = check_release(rel, ["g"], privacy, ["s"], suppressed=mask)
    assert req.met is bool(model.satisfied(sizes, hist).all())
