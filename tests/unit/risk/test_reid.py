"""Prosecutor, journalist and marketer risk as ARX defines them; uniqueness estimators."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil import InputError
from veil.risk import (
    assess,
    equivalence_classes,
    population_class_sizes,
    population_uniqueness,
    reidentification_risk,
)


def _classes(sizes: list[int]):
    df = pd.DataFrame({"q": np.repeat(np.arange(len(sizes)), sizes)})
    return equivalence_classes(df, ["q"])


def test_prosecutor_by_hand():
    r = reidentification_risk(_classes([2, 2, 3, 10]), threshold=0.4)
    p = r.prosecutor
    assert p["highest"] == 0.5
    assert p["average"] == pytest.approx(4 / 17)
    assert p["lowest"] == pytest.approx(0.1)
    assert p["records_at_highest"] == 4
    assert p["records_above_threshold"] == 4  # 1/2 > 0.4, 1/3 is not
    # without population information journalist equals prosecutor and marketer is C/n
    assert r.journalist["highest"] == p["highest"]
    assert r.journalist["average"] == pytest.approx(p["average"])
    assert r.marketer["average"] == pytest.approx(4 / 17)
    assert r.sample_uniques == 0


def test_journalist_with_population_table():
    sample = pd.DataFrame({"q": ["a", "a", "b"]})
    pop = pd.DataFrame({"q": ["a"] * 5 + ["b"] * 2 + ["c"] * 9})
    ec = equivalence_classes(sample, ["q"])
    sizes = population_class_sizes(ec, sample, pop)
    assert sorted(sizes.tolist()) == [2, 5]
    r = reidentification_risk(ec, population_sizes=sizes)
    assert r.journalist["highest"] == 0.5  # class b: 2 in the population
    # ARX: max(C / sum F, (1/n) sum f/F) = max(2/7, (2/5 + 1/2)/3)
    assert r.journalist["average"] == pytest.approx(max(2 / 7, (2 / 5 + 1 / 2) / 3))
    assert r.marketer["average"] == pytest.approx((2 / 5 + 1 / 2) / 3)
    assert r.prosecutor["highest"] == 1.0  # class b has one record in the sample


def test_journalist_with_sampling_fraction():
    r = reidentification_risk(_classes([1, 4]), sampling_fraction=0.1)
    assert r.journalist["highest"] == pytest.approx(0.1)  # F = 1 / 0.1 = 10
    # ARX: (1/n) sum over classes of f/F = 2 classes * 0.1 / 5 records
    assert r.marketer["average"] == pytest.approx(0.04)


def test_bad_parameters():
    ec = _classes([2, 3])
    with pytest.raises(InputError):
        reidentification_risk(ec, threshold=0)
    with pytest.raises(InputError):
        reidentification_risk(ec, sampling_fraction=1.5)
    with pytest.raises(InputError):
        reidentification_risk(ec, population_sizes=[1, 2, 3])


def test_all_suppressed_gives_zero_risk_and_a_note():
    df = pd.DataFrame({"a": ["*"] * 3, "s": ["x", "y", "z"]})
    a = assess(df, ["a"], ["s"], marker="*")
    d = a.to_dict()
    assert d["k"] is None and d["risk"]["prosecutor"]["highest"] == 0.0
    assert "suppressed" in d["note"]


def test_risk_distribution_sums_to_records():
    r = reidentification_risk(_classes([1, 2, 3, 7, 50, 200]))
    assert sum(b["records"] for b in r.distribution) == 263
    assert r.distribution[-1]["records"] == 1  # the unique record, risk 1


def test_uniqueness_zero_without_sample_uniques():
    est = population_uniqueness(np.array([2, 3, 5]), sampling_fraction=0.1)
    assert est.pitman == est.zayatz == est.snb == est.dankar == 0.0


def test_uniqueness_estimates_are_plausible_and_follow_dankar():
    from veil.data import adult_frame

    # a real class-size histogram with many sample uniques
    sizes = equivalence_classes(
        adult_frame(), ["age", "education", "native-country", "workclass"]
    ).sizes
    c1 = int((sizes == 1).sum())
    low = population_uniqueness(sizes, sampling_fraction=0.05)
    n = int(sizes.sum())
    for v in (low.pitman, low.zayatz):
        assert v is not None and 0 < v <= low.population_size
    # Dankar: Pitman at a sampling fraction <= 10 %
    assert low.dankar_model == "pitman" and low.dankar == low.pitman
    high = population_uniqueness(sizes, population_size=2 * n)
    assert high.dankar_model in ("zayatz", "snb")
    if high.snb is not None and high.zayatz is not None:
        assert high.dankar == min(high.snb, high.zayatz)
    # a larger population hides uniques better: fewer population uniques relative to its size
    assert low.pitman / low.population_size < c1 / n


def test_uniqueness_input_errors():
    with pytest.raises(InputError):
        population_uniqueness(np.array([1, 2]))
    with pytest.raises(InputError):
        population_uniqueness(np.array([1, 2]), population_size=2)
