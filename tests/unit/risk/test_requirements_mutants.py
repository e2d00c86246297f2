"""The re-check of the privacy models on what mutation testing showed untested.

Each test pins a behaviour a mutant of :mod:`veil.risk._requirements` changed without any
other test noticing (docs/mutation.md): the figures that reach the report and the refusal
message, the population models' bounds, a hierarchy with several top nodes, an ordered
distance on text, a sensitive value distribution that does not cancel inside a node, and the
block-wise distance of many classes. Every expected figure is worked out by hand in the
comments.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

import veil.risk._requirements as req_mod
from veil._errors import InputError
from veil.policy import PrivacyConfig
from veil.risk._requirements import (
    Requirement,
    check_release,
    failure_lines,
    population_requirements,
    spelled,
)
from veil.tabular import Hierarchy


def _cfg(privacy: dict[str, Any]) -> PrivacyConfig:
    return PrivacyConfig.model_validate({**privacy, "suppression_limit": 1.0})


def _one(rel: pd.DataFrame, privacy: dict[str, Any], **kw: Any) -> Requirement:
    (req,) = check_release(rel, ["g"], _cfg(privacy), ["s"], **kw)
    return req


# ------------------------------------------------------------------ what the report shows


def test_to_dict_of_a_recursive_requirement_carries_every_field():
    rel = pd.DataFrame({"g": ["x"] * 6, "s": list("aaabbc")})
    req = _one(rel, {"l_diversity": {"l": 2, "c": 2, "variant": "recursive"}})
    # counts 3, 2, 1 at l = 2: r1 / (r2 + r3) = 3 / 3
    assert req.to_dict() == {
        "model": "recursive (c,l)-diversity",
        "column": "s",
        "required": 2.0,
        "measured": 1.0,
        "met": True,
        "l": 2,
        "condition": "every class r1 < 2 * (r2 + ... + rm)",
        "note": "required and measured are c: the largest r1 / (r2 + ... + rm), at the "
        "policy's l = 2",
    }


def test_to_dict_leaves_out_what_a_requirement_does_not_have():
    req = Requirement("k-anonymity", "k_anonymity", 3, 2, False)
    assert req.to_dict() == {"model": "k-anonymity", "required": 3, "measured": 2, "met": False}


def test_line_of_a_requirement_without_column_or_condition():
    assert Requirement("k-anonymity", "k_anonymity", 3, 2, False).line() == (
        "k-anonymity: required 3, measured 2: NOT met"
    )
    assert Requirement("m", "m", 0.25, 1 / 3, True).line() == (
        "m: required 0.25, measured 0.333333: met"
    )


def test_line_of_a_class_with_too_few_values_says_none():
    rel = pd.DataFrame({"g": ["x"] * 3, "s": list("aab")})
    req = _one(rel, {"l_diversity": {"l": 3, "c": 5, "variant": "recursive"}})
    assert req.line() == (
        "recursive (c,l)-diversity of column 's': required every class r1 < 5 * (r3 + ... + rm), "
        "measured none: NOT met"
    )


def test_failure_lines_are_the_unmet_requirements_only():
    met = Requirement("k-anonymity", "k_anonymity", 2, 2, True)
    unmet = Requirement("k-map", "k_map", 10, 8.0, False)
    assert failure_lines([met, unmet]) == ["k-map: required 10, measured 8: NOT met"]


def test_a_dropped_column_names_its_model_required_figure_and_column():
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "b"]})
    cfg = _cfg({"l_diversity": {"l": 2, "variant": "distinct"}})
    (req,) = check_release(rel.drop(columns="s"), ["g"], cfg, ["s"])
    assert (req.model, req.required, req.column) == ("distinct l-diversity", 2, "s")
    assert req.line() == ("distinct l-diversity of column 's': required 2, measured none: met")


def test_spelled_values_show_missing_as_null():
    assert spelled(pd.Series(["a", None, "b"], dtype=object)).tolist() == ["a", "NULL", "b"]
    assert spelled(pd.Series([], dtype=object)).tolist() == []


# ------------------------------------------------------------------- bad input and no class


def test_a_mask_of_the_wrong_length_is_refused():
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "b"]})
    with pytest.raises(InputError, match="suppression mask has 3 entries for 2 rows"):
        _one(rel, {"k_anonymity": {"k": 2}}, suppressed=[False, False, True])


@pytest.mark.parametrize("model", ["l_diversity", "t_closeness"])
def test_a_sensitive_model_without_a_sensitive_column_is_refused(model):
    rel = pd.DataFrame({"g": ["x", "x"]})
    privacy = {"l_diversity": {"l": 2}} if model == "l_diversity" else {"t_closeness": {"t": 0.2}}
    with pytest.raises(InputError, match="needs a sensitive column"):
        check_release(rel, ["g"], _cfg(privacy), [])


@pytest.mark.parametrize(
    "privacy",
    [
        {"k_anonymity": {"k": 5}},
        {"l_diversity": {"l": 3, "variant": "distinct"}},
        {"l_diversity": {"l": 3, "variant": "entropy"}},
        {"t_closeness": {"t": 0.01}},
        {"k_map": {"k": 5, "sampling_fraction": 0.5}},
    ],
    ids=["k", "distinct", "entropy", "t", "k-map"],
)
def test_a_release_with_every_row_suppressed_has_no_class_to_fail(privacy):
    rel = pd.DataFrame({"g": ["*"] * 3, "s": list("abc")})
    req = _one(rel, privacy, suppressed=[True] * 3)
    assert (req.measured, req.met) == (None, True)


def test_entropy_needs_ceil_l_distinct_values_beyond_the_tolerance():
    # two equal values: entropy ln 2, within the 1e-9 tolerance of ln(2 + 1e-10), but
    # entropy l-diversity at l > 2 needs 3 distinct values
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "b"]})
    req = _one(rel, {"l_diversity": {"l": 2 + 1e-10, "variant": "entropy"}})
    assert req.met is False
    assert req.measured == pytest.approx(2.0)


def test_k_map_with_a_sampling_fraction_at_the_bound():
    # classes of 3 and 4 at f = 0.3: the smallest estimate is 3 / 0.3 = 10
    rel = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 4, "s": ["a"] * 7})
    at = _one(rel, {"k_map": {"k": 10, "sampling_fraction": 0.3}})
    assert at.measured == pytest.approx(10.0) and at.met is True
    assert (at.model, at.key, at.required) == ("k-map", "k_map", 10)
    above = _one(rel, {"k_map": {"k": 11, "sampling_fraction": 0.3}})
    assert above.met is False


# ----------------------------------------------------------------------- t-closeness figures


def test_hierarchical_distance_where_a_node_does_not_cancel():
    # a, b -> ab; c, d -> cd; -> * (height 2). p = 1/4 each; a class of a's: extra p - q =
    # (-3/4, 1/4, 1/4, 1/4). Level 1: ab min(1/4, 3/4) = 1/4, cd min(1/2, 0) = 0 -> 1/2 * 1/4;
    # ab is left -1/2 and cd +1/2. Level 2: min(1/2, 1/2) = 1/2 -> 1 * 1/2. Total 5/8 (as the
    # EMD: 1/4 moved within ab at 1/2, 1/2 moved across the root at 1).
    tree = {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"]}
    hier = Hierarchy.from_rows("s", [[v, *up] for v, up in tree.items()])
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "a"]})
    ref = pd.DataFrame({"s": list("abcd")})
    privacy = {"t_closeness": {"t": 0.625, "distance": "hierarchical"}}
    req = _one(rel, _with_tree(privacy, tree), reference=ref, hierarchies={"s": hier})
    assert req.measured == pytest.approx(5 / 8, abs=1e-12)
    assert req.met is True


def _with_tree(privacy: dict[str, Any], tree: dict[str, list[str]]) -> dict[str, Any]:
    tc = privacy["t_closeness"]
    return {"t_closeness": {**tc, "hierarchy": {"type": "taxonomy", "tree": tree}}}


def test_hierarchical_distance_puts_a_root_above_several_top_nodes():
    # a, b -> ab; c, d -> cd and no common top: a root above them makes the height 2.
    # Class (a, c) against 1/4 each: level 1 ab min(1/4, 1/4), cd the same -> 1/2 * 1/2;
    # nothing is left to move across the root. 1/4 (with height 1 it would read 1/2).
    tree = {"a": ["ab"], "b": ["ab"], "c": ["cd"], "d": ["cd"]}
    hier = Hierarchy.from_rows("s", [[v, *up] for v, up in tree.items()])
    rel = pd.DataFrame({"g": ["x", "x", "y", "y"], "s": ["a", "c", "b", "d"]})
    privacy = {"t_closeness": {"t": 0.25, "distance": "hierarchical"}}
    req = _one(rel, _with_tree(privacy, tree), hierarchies={"s": hier})
    assert req.measured == pytest.approx(1 / 4, abs=1e-12)
    assert req.met is True


def test_hierarchical_distance_moves_mass_across_the_root():
    # the same tree. Class (a, b) against 1/4 each: level 1 ab min(0, 1/2) = 0, cd
    # min(1/2, 0) = 0; ab is left -1/2 and cd +1/2, moved across the root at cost
    # 2/2 * 1/2 = 1/2 (without the root the class would read 0)
    tree = {"a": ["ab"], "b": ["ab"], "c": ["cd"], "d": ["cd"]}
    hier = Hierarchy.from_rows("s", [[v, *up] for v, up in tree.items()])
    rel = pd.DataFrame({"g": ["x", "x", "y", "y"], "s": ["a", "b", "c", "d"]})
    privacy = {"t_closeness": {"t": 0.5, "distance": "hierarchical"}}
    req = _one(rel, _with_tree(privacy, tree), hierarchies={"s": hier})
    assert req.measured == pytest.approx(1 / 2, abs=1e-12)


def test_hierarchical_distance_of_an_empty_release_has_no_class():
    tree = {"a": ["*"], "b": ["*"]}
    hier = Hierarchy.from_rows("s", [[v, *up] for v, up in tree.items()])
    rel = pd.DataFrame({"g": pd.Series([], dtype=object), "s": pd.Series([], dtype=object)})
    privacy = _with_tree({"t_closeness": {"t": 0.2, "distance": "hierarchical"}}, tree)
    req = _one(rel, privacy, hierarchies={"s": hier})
    assert (req.measured, req.met) == (None, True)


def test_hierarchical_distance_without_its_hierarchy_is_refused():
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "b"]})
    tree = {"a": ["*"], "b": ["*"]}
    privacy = _with_tree({"t_closeness": {"t": 0.2, "distance": "hierarchical"}}, tree)
    with pytest.raises(InputError) as info:
        _one(rel, privacy)
    assert info.value.message == (
        "hierarchical t-closeness of column 's' was re-checked without its hierarchy"
    )
    assert info.value.hint == "give privacy.t_closeness.hierarchy"


def test_ordered_distance_orders_text_alphabetically():
    # values met in the order c, a, b; alphabetically a < b < c. A class of b's against 1/3
    # each: cum q - cum p = (-1/3, 1/3, 0) -> 2/3 / 2 = 1/3 (in the order met, c, a, b, it
    # would be (-1/3, -2/3, 0) -> 1/2)
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["b", "b"]})
    ref = pd.DataFrame({"s": ["c", "a", "b"]})
    req = _one(rel, {"t_closeness": {"t": 0.5, "distance": "ordered"}}, reference=ref)
    assert req.measured == pytest.approx(1 / 3, abs=1e-12)


def test_ordered_distance_of_a_single_value_is_zero():
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "a"]})
    req = _one(rel, {"t_closeness": {"t": 1e-12, "distance": "ordered"}})
    assert (req.measured, req.met) == (0.0, True)


@pytest.mark.parametrize("distance", ["equal", "ordered", "hierarchical"])
def test_distances_of_many_classes_are_the_same_in_blocks_of_one(monkeypatch, distance):
    # the class-by-value matrix is built in blocks of classes; with one class per block the
    # worst class (the last: b, b against 3/4 a, 1/4 b... see below) must still be found.
    # Classes (a, a, a), (a, a, a), (b, b): p = (6/8, 2/8). Equal: class of b's 1/2 * (6/8 +
    # 6/8) = 3/4; ordered (m = 2): |0 - 6/8| / 1 = 3/4; hierarchical (a, b -> *, height 1):
    # min(6/8, 6/8) = 3/4. The classes of a's are at 1/4.
    tree = {"a": ["*"], "b": ["*"]}
    hier = Hierarchy.from_rows("s", [[v, *up] for v, up in tree.items()])
    rel = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 3 + ["z"] * 2, "s": list("aaaaaabb")})
    privacy = _with_tree({"t_closeness": {"t": 0.75, "distance": distance}}, tree)
    whole = _one(rel, privacy, hierarchies={"s": hier})
    monkeypatch.setattr(req_mod, "_BLOCK_CELLS", 1)
    blocked = _one(rel, privacy, hierarchies={"s": hier})
    assert whole.measured == pytest.approx(3 / 4, abs=1e-12)
    assert blocked.measured == pytest.approx(3 / 4, abs=1e-12)


# ------------------------------------------------------------- population models (report)


def _privacy_with_population(dp: bool, km: bool) -> PrivacyConfig:
    doc: dict[str, Any] = {}
    if dp:
        doc["delta_presence"] = {"delta_min": 0.2, "delta_max": 0.5, "sample_column": "in"}
    if km:
        doc["k_map"] = {"k": 5} if dp else {"k": 5, "population": "pop.csv"}
    return _cfg(doc)


@pytest.mark.parametrize(
    ("lo", "hi", "met"),
    [
        (0.2, 0.5, True),  # both at their bounds
        (0.2 - 1e-6, 0.5, False),
        (0.2, 0.5 + 1e-6, False),
        (0.2 - 1e-10, 0.5 + 1e-10, True),  # within the 1e-9 slack
        (0.2 - 1e-9, 0.5 + 1e-9, True),  # at the edge of the slack
    ],
)
def test_delta_presence_figures_from_the_anonymizer_at_the_bounds(lo, hi, met):
    privacy = _privacy_with_population(dp=True, km=False)
    (req,) = population_requirements(privacy, {"population": {"delta_min": lo, "delta_max": hi}})
    assert (req.model, req.key, req.required) == ("delta-presence", "delta_presence", "0.2 to 0.5")
    assert req.met is met
    assert req.measured == f"{lo:.4g} to {hi:.4g}"
    assert req.note == "re-checked by the anonymize stage against the population table"


@pytest.mark.parametrize("missing", ["delta_min", "delta_max"])
def test_delta_presence_without_a_figure_is_unmeasured(missing):
    privacy = _privacy_with_population(dp=True, km=False)
    figures = {"delta_min": 0.9, "delta_max": 0.95}
    del figures[missing]
    (req,) = population_requirements(privacy, {"population": figures})
    assert (req.measured, req.met) == (None, True)


@pytest.mark.parametrize(("smallest", "met"), [(5, True), (4, False), (None, True)])
def test_k_map_against_the_population_at_the_bound(smallest, met):
    privacy = _privacy_with_population(dp=False, km=True)
    anonymize = {"population": {"min_class_population": smallest}}
    (req,) = population_requirements(privacy, anonymize)
    assert (req.model, req.key, req.required, req.measured) == ("k-map", "k_map", 5, smallest)
    assert req.met is met
    assert req.note == "re-checked by the anonymize stage against the population table"


def test_both_population_models_in_policy_order():
    privacy = _privacy_with_population(dp=True, km=True)
    figures = {"delta_min": 0.25, "delta_max": 0.4, "min_class_population": 8}
    reqs = population_requirements(privacy, {"population": figures})
    assert [(r.key, r.met) for r in reqs] == [("delta_presence", True), ("k_map", True)]


@pytest.mark.parametrize("anonymize", [None, [], {"population": None}, {"other": {}}])
def test_no_population_figures_give_no_population_requirement(anonymize):
    privacy = _privacy_with_population(dp=True, km=True)
    assert population_requirements(privacy, anonymize) == []


def test_k_map_with_a_sampling_fraction_is_not_a_population_requirement():
    privacy = _cfg({"k_map": {"k": 5, "sampling_fraction": 0.5}})
    figures = {"min_class_population": 1}
    assert population_requirements(privacy, {"population": figures}) == []


def test_no_population_model_gives_nothing():
    assert population_requirements(_cfg({"k_anonymity": {"k": 2}}), {"population": {}}) == []


def test_float_figures_print_with_six_significant_digits():
    req = Requirement("m", "m", np.float64(0.1), 2 / 3, False)
    assert req.line() == "m: required 0.1, measured 0.666667: NOT met"


# ------------------------------------------------------------------ classes and l-diversity


def test_the_sensitive_values_given_apart_from_the_release_are_the_ones_measured():
    # the release masks the sensitive column; the values the caller gives are judged
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["*", "*"]})
    values = pd.DataFrame({"s": ["a", "b"]})
    req = _one(rel, {"l_diversity": {"l": 2, "variant": "distinct"}}, values=values)
    assert (req.measured, req.met) == (2, True)


def test_a_mask_of_zeros_and_ones_is_a_mask():
    rel = pd.DataFrame({"g": ["x", "x", "y"], "s": ["a", "b", "c"]})
    req = _one(rel, {"k_anonymity": {"k": 2}}, suppressed=np.array([0, 0, 1]))
    assert (req.measured, req.met) == (2, True)


def test_without_quasi_identifiers_the_whole_release_is_one_class():
    rel = pd.DataFrame({"s": ["a", "b", "c"]})
    (req,) = check_release(rel, [], _cfg({"k_anonymity": {"k": 3}}), ["s"])
    assert (req.measured, req.met) == (3, True)


def test_missing_quasi_identifier_values_form_a_class_of_their_own():
    # two rows with a missing zip are one class of 2, as ARX reads NULL
    rel = pd.DataFrame({"g": [None, None, "x", "x", "x"], "s": list("abcde")})
    req = _one(rel, {"k_anonymity": {"k": 2}})
    assert (req.measured, req.met) == (2, True)


def test_unused_categories_of_a_quasi_identifier_are_no_empty_class():
    cat = pd.CategoricalDtype(["w", "x", "y"])
    rel = pd.DataFrame(
        {
            "g": pd.Series(["x", "x", "y", "y"], dtype=cat),
            "h": pd.Series(["y", "y", "x", "x"], dtype=cat),
            "s": list("abab"),
        }
    )
    (req,) = check_release(rel, ["g", "h"], _cfg({"k_anonymity": {"k": 2}}), ["s"])
    assert (req.measured, req.met) == (2, True)


@pytest.mark.parametrize(
    ("l_value", "model", "condition"),
    [
        (3, "distinct l-diversity", "every class at least 3 distinct values"),
        (2.5, "entropy l-diversity", "every class entropy >= ln 2.5"),
    ],
)
def test_l_diversity_names_its_variant_and_condition(l_value, model, condition):
    variant = model.split()[0]
    rel = pd.DataFrame({"g": ["x"] * 3, "s": list("abc")})
    req = _one(rel, {"l_diversity": {"l": l_value, "variant": variant}})
    assert (req.model, req.key, req.required, req.column) == (model, "l_diversity", l_value, "s")
    assert req.condition == condition


@pytest.mark.parametrize(
    ("variant", "model"),
    [
        ("distinct", "distinct l-diversity"),
        ("entropy", "entropy l-diversity"),
        ("recursive", "recursive (c,l)-diversity"),
    ],
)
def test_l_diversity_of_a_release_with_every_row_suppressed(variant, model):
    rel = pd.DataFrame({"g": ["*"] * 3, "s": list("abc")})
    privacy = {"l_diversity": {"l": 2, "c": 3, "variant": variant}}
    req = _one(rel, privacy, suppressed=[True] * 3)
    assert (req.model, req.key, req.column, req.measured, req.met) == (
        model,
        "l_diversity",
        "s",
        None,
        True,
    )
    assert req.required == (3 if variant == "recursive" else 2)


def test_recursive_diversity_sums_the_counts_of_the_tail_in_each_class():
    # class x counts 2, 2 at l = 2: 2 / 2 = 1. Class y counts 5, 3, 1: r1 = 5 and
    # r2 + r3 = 4 rows (3 distinct values would read 5 / 2): c = 5 / 4 = 1.25, the largest.
    rel = pd.DataFrame({"g": ["x"] * 4 + ["y"] * 9, "s": list("aabb") + list("aaaaabbbc")})
    at = _one(rel, {"l_diversity": {"l": 2, "c": 1.25, "variant": "recursive"}})
    assert at.measured == pytest.approx(1.25, abs=1e-12)
    assert at.met is False  # r1 < c * tail: 5 < 5 fails
    above = _one(rel, {"l_diversity": {"l": 2, "c": 1.26, "variant": "recursive"}})
    assert above.met is True


def _entropy(counts: list[int]) -> float:
    n = sum(counts)
    return -sum(c / n * math.log(c / n) for c in counts)


def test_entropy_tolerance_is_relative_to_ln_l_above_one():
    # counts 2 and eleven 1s: H = 2.4583; ln l = H + 1.5e-9 is within 1e-9 * ln l (2.46e-9)
    counts = [2] + [1] * 11
    h = _entropy(counts)
    rel = pd.DataFrame({"g": ["x"] * 13, "s": ["v0"] * 2 + [f"v{i}" for i in range(1, 12)]})
    req = _one(rel, {"l_diversity": {"l": math.exp(h + 1.5e-9), "variant": "entropy"}})
    assert req.met is True
    beyond = _one(rel, {"l_diversity": {"l": math.exp(h + 3e-9), "variant": "entropy"}})
    assert beyond.met is False


def test_entropy_tolerance_for_ln_l_between_one_and_two():
    # counts 2, 1, 1, 1, 1: H = 1.5607; the tolerance is 1e-9 * H = 1.56e-9, so H + 1.8e-9
    # is beyond it (a tolerance of 2e-9 would accept it)
    h = _entropy([2, 1, 1, 1, 1])
    rel = pd.DataFrame({"g": ["x"] * 6, "s": list("aabcde")})
    req = _one(rel, {"l_diversity": {"l": math.exp(h + 1.8e-9), "variant": "entropy"}})
    assert req.met is False
    within = _one(rel, {"l_diversity": {"l": math.exp(h + 1.2e-9), "variant": "entropy"}})
    assert within.met is True


def test_spelled_values_are_objects_so_no_text_is_cut():
    assert spelled(pd.Series(["a", "bb"])).dtype == object
    assert spelled(pd.Series([], dtype=object)).dtype == object


# ------------------------------------------------- each model's report entry, from the release


def test_k_anonymity_entry():
    rel = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 4, "s": ["a"] * 7})
    req = _one(rel, {"k_anonymity": {"k": 3}})
    assert req.to_dict() == {
        "model": "k-anonymity",
        "required": 3,
        "measured": 3,
        "met": True,
        "condition": "every class at least 3 rows",
    }
    assert req.line() == "k-anonymity: required every class at least 3 rows, measured 3: met"


def test_t_closeness_entry():
    rel = pd.DataFrame({"g": ["x"] * 4 + ["y"] * 2, "s": list("aaabbb")})
    req = _one(rel, {"t_closeness": {"t": 0.5}})
    assert req.to_dict() == {
        "model": "t-closeness (equal distance)",
        "column": "s",
        "required": 0.5,
        "measured": 0.5,
        "met": True,
        "condition": "t <= 0.5",
        "note": "against the sensitive column over the whole input (as ARX)",
    }


def test_k_map_entry():
    rel = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 4, "s": ["a"] * 7})
    req = _one(rel, {"k_map": {"k": 10, "sampling_fraction": 0.3}})
    assert req.to_dict() == {
        "model": "k-map",
        "required": 10,
        "measured": pytest.approx(10.0),
        "met": True,
        "condition": "every class at least 10 people (size / 0.3)",
        "note": "population sizes estimated as class size / sampling fraction",
    }


def test_a_dropped_column_under_t_closeness_and_the_next_column_still_measured():
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["a", "b"]})
    first, second = check_release(rel, ["g"], _cfg({"t_closeness": {"t": 0.2}}), ["gone", "s"])
    assert (first.model, first.required, first.column, first.measured) == (
        "t-closeness (equal distance)",
        0.2,
        "gone",
        None,
    )
    assert (second.column, second.measured, second.met) == ("s", 0.0, True)


@pytest.mark.parametrize("model", ["l", "t"])
def test_the_missing_sensitive_column_message(model):
    privacy = {"l_diversity": {"l": 2}} if model == "l" else {"t_closeness": {"t": 0.2}}
    with pytest.raises(InputError) as info:
        check_release(pd.DataFrame({"g": ["x"]}), ["g"], _cfg(privacy), [])
    name = "l-diversity" if model == "l" else "t-closeness"
    assert info.value.message == f"{name} needs a sensitive column"


def test_t_at_the_edge_of_its_tolerance_is_met():
    # the class of b's is at exactly 1/2; t + 1e-9 is exactly 1/2 in floating point
    rel = pd.DataFrame({"g": ["x"] * 4 + ["y"] * 2, "s": list("aaabbb")})
    t = 0.5 - 1e-9
    assert t + 1e-9 == 0.5
    assert _one(rel, {"t_closeness": {"t": t}}).met is True


def test_entropy_at_the_edge_of_its_tolerance_is_met():
    # counts 2, 1, 1: H = 1.5 ln 2 summed as the definition reads; this l puts
    # ln l - 1e-9 * ln l exactly on H (found by a search over floats, checked here)
    h = -(0.5 * math.log(0.5) + 0.25 * math.log(0.25) + 0.25 * math.log(0.25))
    l_value = 2.828427127686964
    assert math.log(l_value) - 1e-9 * max(1.0, math.log(l_value)) == h
    rel = pd.DataFrame({"g": ["x"] * 4, "s": list("aabc")})
    assert _one(rel, {"l_diversity": {"l": l_value, "variant": "entropy"}}).met is True


def test_a_reference_of_one_record_is_a_distribution():
    # p = (1): a class holding that value is at distance 0
    rel = pd.DataFrame({"g": ["x"], "s": ["a"]})
    req = _one(rel, {"t_closeness": {"t": 0.1}})
    assert (req.measured, req.met) == (0.0, True)


def test_a_released_value_absent_from_the_reference_counts_as_probability_zero():
    # reference (a, a): p = (1, 0); the class (b, b) is at 1/2 (|0 - 1| + |1 - 0|) = 1
    rel = pd.DataFrame({"g": ["x", "x"], "s": ["b", "b"]})
    ref = pd.DataFrame({"s": ["a", "a"]})
    req = _one(rel, {"t_closeness": {"t": 0.5}}, reference=ref)
    assert (req.measured, req.met) == (pytest.approx(1.0, abs=1e-12), False)
