"""Mondrian local recoding: the release, its guarantees (re-checked by plain pandas) and errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.policy import PrivacyConfig
from veil.tabular._leaf_tree import as_leaf_tree
from veil.tabular._mondrian import mondrian
from veil.tabular._ncp import ncp

QIS = list(ADULT_QUASI_IDENTIFIERS)


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return adult_frame()


@pytest.fixture(scope="module")
def hier() -> dict[str, object]:
    return {c: adult_hierarchy_path(c) for c in [*QIS, "occupation"]}


@pytest.fixture(scope="module")
def adult_k5(adult, hier):
    return mondrian(
        adult, QIS, PrivacyConfig(k_anonymity={"k": 5}), ["occupation"], hierarchies=hier
    )


def _range(label: str) -> tuple[float, float]:
    m = re.fullmatch(r"\[(-?[\d.]+)-(-?[\d.]+)\]", label)
    if m:
        return float(m.group(1)), float(m.group(2))
    return float(label), float(label)


def test_small_numeric_table_is_cut_at_medians() -> None:
    df = pd.DataFrame({"age": [61, 21, 22, 35, 36, 50, 51, 60], "x": range(8)})
    res = mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}), [])
    assert res.data["age"].tolist() == [
        "[60-61]",
        "[21-22]",
        "[21-22]",
        "[35-36]",
        "[35-36]",
        "[50-51]",
        "[50-51]",
        "[60-61]",
    ]
    assert res.data["x"].tolist() == list(range(8))  # other columns untouched
    assert res.classes == 4 and res.min_class_size == 2
    # NCP by hand: each class spans 1 year of the 40-year domain.
    assert res.ncp == pytest.approx(1 / 40)


def test_six_values_with_k2_cannot_split_a_half_of_three() -> None:
    # The median cut gives 3 | 3; a half of 3 can only be cut 1 | 2, which breaks k=2.
    df = pd.DataFrame({"age": [21, 22, 35, 36, 50, 51]})
    res = mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}), [])
    assert res.data["age"].tolist() == ["[21-35]"] * 3 + ["[36-51]"] * 3


def test_adult_k5_release_is_k_anonymous_by_plain_groupby(adult, adult_k5) -> None:
    rel = adult_k5.data
    assert rel.shape == adult.shape
    assert (rel.index == adult.index).all()
    sizes = rel.groupby(QIS).size()
    assert sizes.min() >= 5
    assert adult_k5.classes == len(sizes)
    assert adult_k5.min_class_size == sizes.min()
    assert not adult_k5.suppressed.any()
    assert (rel["occupation"] == adult["occupation"]).all()
    assert 0 < adult_k5.ncp < 0.2


def test_adult_release_covers_every_original_value(adult, adult_k5, hier) -> None:
    rel = adult_k5.data
    bounds = np.array([_range(v) for v in rel["age"]])
    assert ((adult["age"] >= bounds[:, 0]) & (adult["age"] <= bounds[:, 1])).all()
    for col in ["education", "native-country", "marital-status", "workclass"]:
        tree = as_leaf_tree(hier[col])
        under = {lab: {tree.leaves[i] for i in idx} for lab, idx in tree.label_leaves().items()}
        assert all(o in under[r] for o, r in zip(adult[col], rel[col], strict=True))


def test_strict_partitioning_keeps_identical_rows_together(adult, adult_k5) -> None:
    per_tuple = pd.Series(adult_k5.class_ids).groupby([adult[q] for q in QIS]).nunique()
    assert (per_tuple == 1).all()


def test_reported_ncp_equals_the_ncp_function(adult, adult_k5, hier) -> None:
    assert adult_k5.ncp == pytest.approx(
        ncp(adult, adult_k5.data, QIS, hierarchies=hier), abs=1e-12
    )
    assert adult_k5.seconds > 0


def test_mondrian_beats_the_arx_full_domain_optimum_on_ncp(adult, adult_k5, hier) -> None:
    # ARX's optimum for k=5, 0 % suppression (reference file): levels 0,4,1,2,3,2,0,0.
    levels = dict(zip(QIS, [0, 4, 1, 2, 3, 2, 0, 0], strict=True))
    full = adult.copy()
    for q in QIS:
        tree = as_leaf_tree(hier[q])
        lab = {
            tree.leaves[i]: tree.labels[levels[q]][tree.anc[levels[q], i]]
            for i in range(len(tree.leaves))
        }
        full[q] = adult[q].astype(str).map(lab)
    assert full.groupby(QIS).size().min() >= 5
    full_ncp = ncp(adult, full, QIS, hierarchies=hier, levels=levels)
    assert adult_k5.ncp < full_ncp


def test_distinct_l_diversity_holds_per_released_class(adult, hier) -> None:
    df = adult.iloc[:4000]
    cfg = PrivacyConfig(k_anonymity={"k": 3}, l_diversity={"l": 3})
    res = mondrian(df, QIS, cfg, ["occupation"], hierarchies=hier)
    assert res.data.groupby(QIS)["occupation"].nunique().min() >= 3


def test_equal_t_closeness_holds_per_released_class(adult, hier) -> None:
    df = adult.iloc[:4000]
    cfg = PrivacyConfig(k_anonymity={"k": 3}, t_closeness={"t": 0.3})
    res = mondrian(df, QIS, cfg, ["occupation"], hierarchies=hier)
    q = df["occupation"].value_counts(normalize=True)
    for _, grp in res.data.groupby(QIS):
        p = grp["occupation"].value_counts(normalize=True).reindex(q.index, fill_value=0.0)
        assert 0.5 * (p - q).abs().sum() <= 0.3 + 1e-9


def test_categorical_without_hierarchy_is_released_as_sets() -> None:
    df = pd.DataFrame({"city": list("aaabbbccd"), "n": [1] * 9})
    res = mondrian(df, ["city"], PrivacyConfig(k_anonymity={"k": 3}), [])
    labels = res.data["city"]
    assert labels.groupby(labels).size().min() >= 3
    for orig, lab in zip(df["city"], labels, strict=True):
        members = lab[1:-1].split(",") if lab.startswith("{") else [lab]
        assert orig in members
    assert set(labels) == {"a", "b", "{c,d}"}


def test_categorical_with_hierarchy_releases_lowest_common_ancestors() -> None:
    tree = {"x1": ["X", "*"], "x2": ["X", "*"], "y1": ["Y", "*"], "y2": ["Y", "*"]}
    df = pd.DataFrame({"c": ["x1", "x1", "x2", "x2", "y1", "y1", "y1", "y2"]})
    res = mondrian(df, ["c"], PrivacyConfig(k_anonymity={"k": 2}), [], hierarchies={"c": tree})
    assert res.data["c"].tolist() == ["x1", "x1", "x2", "x2", "Y", "Y", "Y", "Y"]


def test_progress_gets_one_tick_per_round(adult, hier) -> None:
    ticks: list[float] = []

    class _Task:
        def advance(self, n: float = 1) -> None:
            ticks.append(n)

    class _Progress:
        from contextlib import contextmanager

        @contextmanager
        def task(self, description: str, total: float | None = None):
            yield _Task()

    res = mondrian(
        adult.iloc[:500],
        QIS,
        PrivacyConfig(k_anonymity={"k": 5}),
        [],
        hierarchies=hier,
        progress=_Progress(),
    )
    assert len(ticks) == res.rounds > 1


# --------------------------------------------------------------------------- bad input


def test_non_numeric_value_in_numeric_qi_is_a_schema_error() -> None:
    df = pd.DataFrame({"age": ["31", "40", "secret-value", "50"]})
    with pytest.raises(SchemaError) as exc:
        mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}), [], numeric={"age"})
    assert "secret-value" not in str(exc.value)
    assert "1 value" in str(exc.value)


def test_k_larger_than_table_is_an_unmet_requirement() -> None:
    df = pd.DataFrame({"age": [1, 2, 3]})
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 5}), [])
    assert exc.value.exit_code == 4


def test_empty_table_is_an_input_error() -> None:
    df = pd.DataFrame({"age": pd.Series([], dtype=int)})
    with pytest.raises(InputError, match="empty"):
        mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}), [])


def test_value_missing_from_hierarchy_gives_a_count_not_the_value() -> None:
    df = pd.DataFrame({"c": ["a", "b", "zz-private"]})
    with pytest.raises(InputError) as exc:
        mondrian(
            df,
            ["c"],
            PrivacyConfig(k_anonymity={"k": 2}),
            [],
            hierarchies={"c": {"a": ["*"], "b": ["*"]}},
        )
    assert "zz-private" not in str(exc.value) and "1 distinct" in str(exc.value)


def test_unreachable_l_diversity_is_an_unmet_requirement() -> None:
    df = pd.DataFrame({"age": range(10), "s": ["x"] * 9 + ["y"]})
    with pytest.raises(PrivacyRequirementNotMet):
        mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}, l_diversity={"l": 3}), ["s"])


def test_missing_column_and_population_models_are_refused() -> None:
    df = pd.DataFrame({"age": range(10)})
    with pytest.raises(SchemaError):
        mondrian(df, ["nope"], PrivacyConfig(k_anonymity={"k": 2}), [])
    cfg = PrivacyConfig(
        k_anonymity={"k": 2}, delta_presence={"delta_max": 0.5, "population": "pop.csv"}
    )
    with pytest.raises(InputError, match="optimal search"):
        mondrian(df, ["age"], cfg, [])


def test_entropy_l_diversity_bound_on_each_class(adult, hier) -> None:
    df = adult.iloc[:3000]
    cfg = PrivacyConfig(l_diversity={"l": 2.5, "variant": "entropy"})
    res = mondrian(df, QIS, cfg, ["occupation"], hierarchies=hier)
    for _, grp in res.data.groupby(QIS):
        p = grp["occupation"].value_counts(normalize=True).to_numpy()
        assert -(p * np.log(p)).sum() >= math.log(2.5) - 1e-9


def test_engine_hierarchies_give_the_same_release_as_csv_paths(adult, adult_k5) -> None:
    from veil.tabular._hierarchy import read_arx_hierarchy

    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    res = mondrian(
        adult, QIS, PrivacyConfig(k_anonymity={"k": 5}), ["occupation"], hierarchies=hier
    )
    assert res.data.equals(adult_k5.data)
