"""The anonymizer's privacy models, on what mutation testing showed untested.

Each model's verdict at its exact edge (worked out by hand), what it reports about itself
(``describe``, the smallest class that can satisfy it), its refusal without the histogram
it reads, and the models a policy's ``privacy:`` section builds. The selected unit tests
reached none of these directly (only searches did, too slow to run per mutant).
docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pytest

from veil import PolicyError
from veil.policy import PrivacyConfig
from veil.tabular._privacy_models import (
    POPULATION,
    DeltaPresenceModel,
    DistinctLDiversityModel,
    EntropyLDiversityModel,
    EqualDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
    KAnonymityModel,
    KMapModel,
    OrderedDistanceTClosenessModel,
    PrivacyModel,
    RecursiveCLDiversityModel,
    SensitiveDomain,
    build_models,
    classes_satisfying,
    whole_table_failures,
)


def _h(*rows: list[int]) -> np.ndarray:
    return np.array(rows, dtype=np.int64)


def test_recursive_cl_is_strict_at_its_edge_and_needs_l_values() -> None:
    m = RecursiveCLDiversityModel(c=2.0, l=2, column="s")
    # r1 < c * (r2 + ... + rm): (4, 2) is 4 < 4: fails; (3, 2) passes; (3, 1, 1) is 3 < 4;
    # (5, 0, 0) has one value (fewer than l); (2, 1, 0) is 2 < 2: fails
    h = _h([4, 2, 0], [3, 2, 0], [3, 1, 1], [5, 0, 0], [2, 1, 0])
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, True, True, False, False]
    # l = 3 reads from the third largest count on: (4, 1, 1) is 4 < 2 * 1 = 2: fails;
    # (1, 1, 1) is 1 < 2: passes; (2, 2, 0) has two values only
    m3 = RecursiveCLDiversityModel(c=2.0, l=3, column="s")
    h3 = _h([4, 1, 1], [1, 1, 1], [2, 2, 0])
    assert m3.satisfied(h3.sum(axis=1), {"s": h3}).tolist() == [False, True, False]
    # l beyond the number of codes: no class can hold l values
    m5 = RecursiveCLDiversityModel(c=9.0, l=4, column="s")
    assert m5.satisfied(h3.sum(axis=1), {"s": h3}).tolist() == [False, False, False]
    assert m5.satisfied(np.zeros(0), {"s": np.zeros((0, 3), dtype=np.int64)}).tolist() == []
    assert m3.minimal_class_size() == 3
    assert m.describe() == {
        "model": "l_diversity",
        "variant": "recursive",
        "c": 2.0,
        "l": 2,
        "column": "s",
    }


def test_each_model_reports_itself_and_its_smallest_class() -> None:
    dom = SensitiveDomain("s", np.array([1, 1]), hierarchy=(np.array([0, 0]),))
    assert KAnonymityModel(k=4).describe() == {"model": "k_anonymity", "k": 4}
    assert KAnonymityModel(k=4).minimal_class_size() == 4
    assert DistinctLDiversityModel(l=2.5, column="s").describe() == {
        "model": "l_diversity",
        "variant": "distinct",
        "l": 2.5,
        "column": "s",
    }
    assert DistinctLDiversityModel(l=2.5, column="s").minimal_class_size() == 3
    assert EntropyLDiversityModel(l=2.5, column="s").describe() == {
        "model": "l_diversity",
        "variant": "entropy",
        "l": 2.5,
        "column": "s",
    }
    assert EntropyLDiversityModel(l=2.5, column="s").minimal_class_size() == 3
    for cls, distance in (
        (EqualDistanceTClosenessModel, "equal"),
        (OrderedDistanceTClosenessModel, "ordered"),
        (HierarchicalDistanceTClosenessModel, "hierarchical"),
    ):
        model = cls(t=0.25, domain=dom)
        assert model.describe() == {
            "model": "t_closeness",
            "distance": distance,
            "t": 0.25,
            "column": "s",
        }
        assert model.minimal_class_size() == 1
    assert DeltaPresenceModel(delta_min=0.1, delta_max=0.6).describe() == {
        "model": "delta_presence",
        "delta_min": 0.1,
        "delta_max": 0.6,
    }
    assert KMapModel(k=5).describe() == {
        "model": "k_map",
        "k": 5,
        "sampling_fraction": None,
        "population": "table",
    }
    assert KMapModel(k=5, sampling_fraction=0.2).describe() == {
        "model": "k_map",
        "k": 5,
        "sampling_fraction": 0.2,
    }


def test_a_model_of_its_own_reports_its_name_and_smallest_class_by_default() -> None:
    class Even(PrivacyModel):
        name: ClassVar[str] = "even"

        def satisfied(self, sizes: np.ndarray, histograms: Any) -> np.ndarray:
            return np.asarray(sizes) % 2 == 0

    assert Even().describe() == {"model": "even"}
    assert Even().minimal_class_size() == 1


def test_delta_presence_bounds_are_inclusive_and_an_empty_class_is_not_judged() -> None:
    m = DeltaPresenceModel(delta_min=0.25, delta_max=0.5)
    sizes = np.array([1, 2, 3, 1, 0, 2])
    pop = np.array([[4], [4], [4], [5], [7], [0]])
    # deltas 1/4 (at the minimum), 1/2 (at the maximum), 3/4, 1/5 (below), an empty class,
    # and a class without population (delta read as size / 1)
    assert m.deltas(sizes, {POPULATION: pop}).tolist() == [0.25, 0.5, 0.75, 0.2, 0.0, 2.0]
    assert m.satisfied(sizes, {POPULATION: pop}).tolist() == [
        True,
        True,
        False,
        False,
        True,
        False,
    ]
    assert (m.monotonic_generalization, m.monotonic_suppression) == (False, False)


def test_k_map_counts_the_population_or_scales_the_class_up() -> None:
    table = KMapModel(k=5)
    assert table.column == POPULATION
    pop = np.array([[5], [4], [6]])
    assert table.satisfied(np.array([1, 1, 1]), {POPULATION: pop}).tolist() == [True, False, True]
    scaled = KMapModel(k=5, sampling_fraction=0.25)
    assert scaled.column is None
    # size / f: 1.25 -> 5 (at k), 1 -> 4, 2 -> 8
    assert scaled.satisfied(np.array([1.25, 1, 2]), {}).tolist() == [True, False, True]
    assert table.monotonic_suppression and scaled.monotonic_suppression


def test_a_model_without_its_histogram_is_refused_by_name() -> None:
    with pytest.raises(PolicyError) as info:
        KMapModel(k=5).satisfied(np.array([1]), {})
    assert info.value.message == "privacy.k_map.population: k_map needs a population table"
    assert info.value.key == "privacy.k_map.population"
    with pytest.raises(PolicyError) as info:
        DeltaPresenceModel(delta_min=0.0, delta_max=0.5).satisfied(np.array([1]), {})
    assert info.value.message == (
        "privacy.delta_presence.population: delta_presence needs a population table"
    )
    with pytest.raises(PolicyError) as info:
        DistinctLDiversityModel(l=2, column="dx").satisfied(np.array([1]), {})
    assert info.value.message == "l_diversity needs the histogram of sensitive column 'dx'"


def test_classes_satisfying_needs_every_model() -> None:
    h = _h([3, 0], [1, 1], [0, 4], [2, 2])
    models = [KAnonymityModel(k=3), DistinctLDiversityModel(l=2, column="s")]
    assert classes_satisfying(models, h.sum(axis=1), {"s": h}).tolist() == [
        False,
        False,
        False,
        True,
    ]
    assert classes_satisfying([], np.array([1, 2]), {}).tolist() == [True, True]
    # no class at all (every record suppressed): an empty mask, for every model
    empty = np.zeros((0, 2), dtype=np.int64)
    every = [*models, RecursiveCLDiversityModel(c=2.0, l=2, column="s")]
    assert classes_satisfying(every, np.zeros(0, dtype=np.int64), {"s": empty}).tolist() == []


def test_whole_table_failures_names_each_failing_column_once() -> None:
    doms = {
        "a": SensitiveDomain("a", np.array([5, 5])),
        "b": SensitiveDomain("b", np.array([10, 0])),
        "c": SensitiveDomain("c", np.array([9, 1])),
    }
    models = [
        KAnonymityModel(k=2),  # no column: skipped
        DistinctLDiversityModel(l=2, column="b"),
        EntropyLDiversityModel(l=2, column="b"),  # b again: named once
        DistinctLDiversityModel(l=2, column="a"),  # passes
        DistinctLDiversityModel(l=2, column="zz"),  # not an encoded column: skipped
        RecursiveCLDiversityModel(c=2.0, l=2, column="c"),  # 9 < 2 * 1 fails
    ]
    assert whole_table_failures(models, doms) == ["b", "c"]


def _doms(*names: str) -> dict[str, SensitiveDomain]:
    return {n: SensitiveDomain(n, np.array([2, 2]), hierarchy=(np.array([0, 0]),)) for n in names}


def test_build_models_turns_each_section_into_its_model() -> None:
    doms = _doms("dx", "pay")
    cfg = PrivacyConfig(
        k_anonymity={"k": 3},
        l_diversity={"l": 2, "variant": "recursive", "c": 1.5},
        t_closeness={"t": 0.3, "distance": "ordered", "column": "pay"},
        delta_presence={"delta_min": 0.1, "delta_max": 0.7, "population": "pop.csv"},
        k_map={"k": 4, "sampling_fraction": 0.5},
    )
    models = build_models(cfg, doms, sensitive=["dx", "pay"])
    assert [m.describe() for m in models] == [
        {"model": "k_anonymity", "k": 3},
        {"model": "l_diversity", "variant": "recursive", "c": 1.5, "l": 2, "column": "dx"},
        {"model": "l_diversity", "variant": "recursive", "c": 1.5, "l": 2, "column": "pay"},
        {"model": "t_closeness", "distance": "ordered", "t": 0.3, "column": "pay"},
        {"model": "delta_presence", "delta_min": 0.1, "delta_max": 0.7},
        {"model": "k_map", "k": 4, "sampling_fraction": 0.5},
    ]
    assert isinstance(models[1], RecursiveCLDiversityModel)
    assert isinstance(models[3], OrderedDistanceTClosenessModel)
    assert models[3].domain is doms["pay"]


@pytest.mark.parametrize(
    ("variant", "l", "cls"),
    [("distinct", 3.0, DistinctLDiversityModel), ("entropy", 2.5, EntropyLDiversityModel)],
)
def test_build_models_l_variants_and_the_default_column(variant: str, l: float, cls: type) -> None:  # noqa: E741
    cfg = PrivacyConfig(l_diversity={"l": l, "variant": variant})
    (model,) = build_models(cfg, _doms("dx"), default_column="dx")
    assert type(model) is cls
    assert (model.l, model.column) == (l, "dx")
    # an explicit sensitive list wins over the default column
    models = build_models(cfg, _doms("dx", "pay"), sensitive=["pay"], default_column="dx")
    assert [m.column for m in models] == ["pay"]


@pytest.mark.parametrize(
    ("distance", "cls"),
    [
        ("equal", EqualDistanceTClosenessModel),
        ("hierarchical", HierarchicalDistanceTClosenessModel),
    ],
)
def test_build_models_t_distances_one_model_per_column(distance: str, cls: type) -> None:
    doms = _doms("dx", "pay")
    models = build_models(
        PrivacyConfig(t_closeness={"t": 0.2, "distance": distance}), doms, sensitive=["dx", "pay"]
    )
    assert [type(m) for m in models] == [cls, cls]
    assert [(m.t, m.domain) for m in models] == [(0.2, doms["dx"]), (0.2, doms["pay"])]


def test_build_models_k_map_against_a_population_table() -> None:
    (model,) = build_models(PrivacyConfig(k_map={"k": 6, "population": "p.csv"}), {})
    assert isinstance(model, KMapModel)
    assert (model.k, model.sampling_fraction, model.column) == (6, None, POPULATION)


@pytest.mark.parametrize("section", ["l_diversity", "t_closeness"])
def test_build_models_refuses_a_model_without_its_sensitive_column(section: str) -> None:
    body = {"l": 2} if section == "l_diversity" else {"t": 0.2}
    name = section.replace("_", "-")
    with pytest.raises(PolicyError) as info:
        build_models(PrivacyConfig(**{section: body}), _doms("dx"))  # no sensitive column
    assert info.value.message == f"privacy.{section}: {name} needs a sensitive column"
    assert info.value.key == f"privacy.{section}"
    with pytest.raises(PolicyError) as info:  # a column that was not encoded
        build_models(PrivacyConfig(**{section: body}), _doms("dx"), sensitive=["dx", "pay"])
    assert info.value.message == f"privacy.{section}: {name} needs a sensitive column"


def test_k_anonymity_at_k_and_its_share_bound() -> None:
    ok, share = KAnonymityModel(k=3).check(np.array([3, 2, 4]), {})
    assert ok.tolist() == [True, False, True]
    assert share.tolist() == [0.0, 1.0, 0.0]  # every part of a class below k is below k


def test_entropy_l_diversity_is_judged_class_by_class() -> None:
    # l = 1.5: class (1, 1) has entropy ln 2 >= ln 1.5; class (9, 1) has 0.325 < ln 1.5 = 0.405
    h = _h([1, 1], [9, 1])
    m = EntropyLDiversityModel(l=1.5, column="s")
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [True, False]


def test_entropy_l_diversity_ignores_values_a_class_does_not_hold() -> None:
    # (1, 1, 0): entropy ln 2 exactly, l = 2 is met; the absent third value adds nothing
    h = _h([1, 1, 0], [2, 0, 2])
    m = EntropyLDiversityModel(l=2, column="s")
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [True, True]


def test_entropy_l_diversity_needs_ceil_l_values_in_the_class_itself() -> None:
    # l a hair above 2: the class (1, 1) has entropy ln 2, within the rounding slack of
    # ln l, but holds 2 values where ceil(l) = 3 are needed; the table holds 3 values
    h = _h([1, 1, 0], [0, 0, 4])
    m = EntropyLDiversityModel(l=2 * (1 + 1e-10), column="s")
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, False]


@pytest.mark.parametrize(("gap", "met"), [(0.5e-9, True), (1.5e-9, False)])
def test_entropy_slack_is_relative_with_a_floor_of_one(gap: float, met: bool) -> None:
    # class (2, 1, 1): sum f ln f = 2 ln 2 = 1.39 (between the floor 1 and 2), n = 4. l is
    # set so that the bound n (ln n - ln l) falls `gap` short of it: within the slack
    # 1e-9 * max(1, 2 ln 2) = 1.39e-9 it is met, beyond it not
    h = _h([2, 1, 1])
    l_ = 4 * math.exp(-(2 * math.log(2) - gap) / 4)
    m = EntropyLDiversityModel(l=l_, column="s")
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [met]


def test_check_reads_the_histograms_and_gives_one_share_per_class() -> None:
    # distinct l = 2, monotonic under suppression: a failing class fails in every part
    h = _h([1, 1], [3, 0], [0, 2])
    ok, share = DistinctLDiversityModel(l=2, column="s").check(h.sum(axis=1), {"s": h})
    assert ok.tolist() == [True, False, False]
    assert share.tolist() == [0.0, 1.0, 1.0]
    # entropy l-diversity is not monotonic under suppression: nothing is known of the parts,
    # a share of 0 for each class (an array as long as the classes, not a scalar)
    ok, share = EntropyLDiversityModel(l=2, column="s").check(h.sum(axis=1), {"s": h})
    assert ok.tolist() == [True, False, False]
    assert share.shape == (3,) and share.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(("gap", "met"), [(1e-8, True), (4e-8, False)])
def test_entropy_slack_grows_with_the_sum(gap: float, met: bool) -> None:
    # class (8, 4, 4): sum f ln f = 8 ln 8 + 8 ln 4 = 27.7, n = 16, ceil(l) = 3 values. The
    # slack is 1e-9 * 27.7 = 2.77e-8: a bound 1e-8 short is met, 4e-8 short is not (a slack
    # divided by the sum, 3.6e-11, would refuse both)
    h = _h([8, 4, 4])
    flogf = 8 * math.log(8) + 8 * math.log(4)
    l_ = 16 * math.exp(-(flogf - gap) / 16)
    assert math.ceil(l_) == 3
    m = EntropyLDiversityModel(l=l_, column="s")
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [met]


def test_hierarchical_t_closeness_without_a_hierarchy_is_refused_by_key() -> None:
    dom = SensitiveDomain("dx", np.array([2, 1, 1], dtype=np.int64))
    with pytest.raises(PolicyError) as info:
        HierarchicalDistanceTClosenessModel(t=0.2, domain=dom)
    assert info.value.message == (
        "privacy.t_closeness.hierarchy: "
        "hierarchical t-closeness needs a hierarchy for the sensitive column"
    )
    assert info.value.key == "privacy.t_closeness.hierarchy"


def test_t_closeness_at_t_and_its_share_bound() -> None:
    # global distribution (1/2, 1/2); equal-distance EMD of (1, 1), (1, 0), (3, 1): 0, 1/2, 1/4
    dom = SensitiveDomain("s", np.array([1, 1], dtype=np.int64))
    h = _h([1, 1], [1, 0], [3, 1])
    m = EqualDistanceTClosenessModel(t=0.25, domain=dom)
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [True, False, True]  # d = t is met
    ok, share = m.check(h.sum(axis=1), {"s": h})
    assert ok.tolist() == [True, False, True]
    # W >= (d - t) / (1 - t), less a slack of 1e-9 against rounding
    assert share.tolist() == [0.0, pytest.approx((0.5 - 0.25 - 1e-9) / 0.75, rel=1e-12), 0.0]
    # t = 1 allows every class (an EMD is at most 1): nothing is known of the parts
    whole = SensitiveDomain("s", np.array([1, 0], dtype=np.int64))
    h1 = _h([0, 3], [2, 0])
    ok, share = EqualDistanceTClosenessModel(t=1.0, domain=whole).check(h1.sum(axis=1), {"s": h1})
    assert ok.tolist() == [True, True]  # the first at distance exactly 1
    assert share.shape == (2,) and share.tolist() == [0.0, 0.0]


def test_t_closeness_of_an_empty_table_is_zero_not_nan() -> None:
    # no record at all: the global distribution is all zeros (not 0 / 0), so is a class's
    dom = SensitiveDomain("s", np.array([0, 0], dtype=np.int64))
    h = _h([0, 0])
    m = EqualDistanceTClosenessModel(t=0.1, domain=dom)
    assert m.distances({"s": h}).tolist() == [0.0]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [True]
