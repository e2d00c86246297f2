"""The one re-check of the policy's privacy models, branch by branch, at the smallest margin.

Every case is a release that meets its model exactly at the bound, or misses it by the
smallest step the model allows (a class of k - 1, one distinct value short, entropy just
below ln l, recursive c equal to the bound, t a hair above the distance). Each goes through
the three places that judge a release: the measurement itself
(:func:`veil.risk._requirements.check_release`), the anonymizer's re-check
(:func:`veil.tabular.verify_release`, which raises) and the report's re-check (the ``risk``
stage, which makes ``anonymize.satisfied`` agree and refuses with exit 4). Expected figures
are computed by hand in the comments, never by the code under test.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil._errors import VerificationError
from veil.pipeline import RunContext
from veil.policy import Policy, PrivacyConfig, SearchConfig
from veil.risk._requirements import check_release
from veil.risk._stage import RiskStage
from veil.tabular import AnonymizeConfig, Hierarchy, verify_release
from veil.tabular._anonymize import AnonymizationResult

# a, b -> ab; c, d -> cd; -> * (height 2)
TREE = {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["cd", "*"], "d": ["cd", "*"]}
HIER = Hierarchy.from_rows("s", [[v, *up] for v, up in TREE.items()])


def _release(classes: list[list[Any]], suppressed: list[Any] = ()) -> tuple[pd.DataFrame, Any]:
    """Class i is quasi-identifier value ``g<i>``; suppressed rows have ``*``."""
    g = [f"g{i}" for i, c in enumerate(classes) for _ in c] + ["*"] * len(suppressed)
    s = [v for c in classes for v in c] + list(suppressed)
    mask = np.array([False] * (len(g) - len(suppressed)) + [True] * len(suppressed))
    return pd.DataFrame({"g": g, "s": s}), mask


T_EQ = [["a", "a", "a", "b"], ["b", "b"]]  # table 3a 3b: class distances 1/4 and 1/2
T_ORD = [[1, 1, 1], [2, 2, 2], [3, 3, 3]]  # class of 1s: cum (2/3, 1/3, 0) / 2 = 1/2
T_HIER = [["a", "c"], ["b", "d"]]  # (1/2, 0, 1/2, 0) vs 1/4 each: 2 * 1/2 * 1/4 = 1/4
E = -(0.4 * math.log(0.4) * 2 + 0.2 * math.log(0.2))  # entropy of counts 2, 2, 1

CASES = [
    # id, privacy, classes, suppressed rows, measured, met
    ("k at k", {"k_anonymity": {"k": 3}}, [["a"] * 3, ["b"] * 4], [], 3, True),
    ("k-1 class", {"k_anonymity": {"k": 3}}, [["a"] * 3, ["b"] * 2], [], 2, False),
    ("distinct at l", {"l_diversity": {"l": 3}}, [list("abc"), list("abcc")], [], 3, True),
    ("distinct one short", {"l_diversity": {"l": 3}}, [list("abc"), list("abb")], [], 2, False),
    (
        "entropy at l",
        {"l_diversity": {"l": 3, "variant": "entropy"}},
        [list("abc")],
        [],
        3.0,
        True,
    ),
    (
        "entropy just above",
        {"l_diversity": {"l": math.exp(E) * (1 - 1e-6), "variant": "entropy"}},
        [list("aabbc")],
        [],
        math.exp(E),
        True,
    ),
    (
        "entropy just below",
        {"l_diversity": {"l": math.exp(E) * (1 + 1e-6), "variant": "entropy"}},
        [list("aabbc")],
        [],
        math.exp(E),
        False,
    ),
    # counts 3, 2, 1 at the policy's l = 2: r1 = 3, r2 + r3 = 3; at the distinct l reached
    # (3) it would be 3 / 1 and (c=2, l=2) would read "not met"
    (
        "recursive (2,2) met with 3 values",
        {"l_diversity": {"l": 2, "c": 2, "variant": "recursive"}},
        [list("aaabbc")],
        [],
        1.0,
        True,
    ),
    (
        "recursive c at the bound",
        {"l_diversity": {"l": 2, "c": 1, "variant": "recursive"}},
        [list("aaabbc")],
        [],
        1.0,
        False,
    ),
    (
        "recursive c just above the bound",
        {"l_diversity": {"l": 2, "c": 1.001, "variant": "recursive"}},
        [list("aaabbc")],
        [],
        1.0,
        True,
    ),
    (
        "recursive too few values",
        {"l_diversity": {"l": 3, "c": 5, "variant": "recursive"}},
        [list("aaabbc"), list("aab")],
        [],
        None,
        False,
    ),
    ("t equal at t", {"t_closeness": {"t": 0.5}}, T_EQ, [], 0.5, True),
    # the mean of the class distributions (3/8, 5/8) would give 3/8 and pass
    ("t equal just above", {"t_closeness": {"t": 0.4999}}, T_EQ, [], 0.5, False),
    # reference over the whole input, suppressed rows included: 7/8 a, 1/8 b, so the class
    # (1/2, 1/2) is at 3/8; against the released rows alone it would be 0 and pass
    ("t vs whole input at t", {"t_closeness": {"t": 0.375}}, [["a", "b"]], ["a"] * 6, 0.375, True),
    (
        "t vs whole input just above",
        {"t_closeness": {"t": 0.3749}},
        [["a", "b"]],
        ["a"] * 6,
        0.375,
        False,
    ),
    (
        "t ordered at t",
        {"t_closeness": {"t": 0.5, "distance": "ordered"}},
        T_ORD,
        [],
        0.5,
        True,
    ),
    (
        "t ordered just above",
        {"t_closeness": {"t": 0.4999, "distance": "ordered"}},
        T_ORD,
        [],
        0.5,
        False,
    ),
    # equal distance would be 1/2 here: measured as equal, t = 1/4 would fail
    (
        "t hierarchical at t",
        {"t_closeness": {"t": 0.25, "distance": "hierarchical"}},
        T_HIER,
        [],
        0.25,
        True,
    ),
    (
        "t hierarchical just above",
        {"t_closeness": {"t": 0.2499, "distance": "hierarchical"}},
        T_HIER,
        [],
        0.25,
        False,
    ),
    (
        "k-map at k",
        {"k_map": {"k": 10, "sampling_fraction": 0.5}},
        [["a"] * 5, ["a"] * 6],
        [],
        10.0,
        True,
    ),
    (
        "k-map one short",
        {"k_map": {"k": 11, "sampling_fraction": 0.5}},
        [["a"] * 5, ["a"] * 6],
        [],
        10.0,
        False,
    ),
]
IDS = [c[0] for c in CASES]


def _privacy(privacy: dict[str, Any]) -> dict[str, Any]:
    out = {**privacy, "suppression_limit": 1.0}
    tc = out.get("t_closeness")
    if tc is not None and tc.get("distance") == "hierarchical":
        out["t_closeness"] = {**tc, "hierarchy": {"type": "taxonomy", "tree": TREE}}
    return out


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), CASES, ids=IDS)
def test_measured_at_the_smallest_margin(name, privacy, classes, sup, measured, met):
    rel, mask = _release(classes, sup)
    cfg = PrivacyConfig.model_validate(_privacy(privacy))
    (req,) = check_release(rel, ["g"], cfg, ["s"], suppressed=mask, hierarchies={"s": HIER})
    assert req.met is met
    if measured is None:
        assert req.measured is None
    else:
        assert req.measured == pytest.approx(measured, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), CASES, ids=IDS)
def test_the_anonymizers_recheck_rejects_what_fails(name, privacy, classes, sup, measured, met):
    rel, mask = _release(classes, sup)
    config = AnonymizeConfig(
        ("g",),
        {},
        PrivacyConfig.model_validate(_privacy(privacy)),
        SearchConfig(),
        sensitive=("s",),
        sensitive_hierarchies={"s": HIER},
    )
    result = AnonymizationResult(
        data=rel,
        suppressed=mask,
        transformation={"g": 0},
        information_loss={},
        metric="loss",
        suppressed_records=int(mask.sum()),
        equivalence_classes=len(classes),
        min_class_size=min(len(c) for c in classes),
        satisfied={},
        search={},
    )
    original = rel.assign(g=[f"g{i}" for i, c in enumerate(classes) for _ in c] + ["x"] * len(sup))
    if met:
        assert all(verify_release(original, result, config).values())
    else:
        with pytest.raises(VerificationError, match="re-check"):
            verify_release(original, result, config)


def _policy(privacy: dict[str, Any]) -> Policy:
    return Policy.model_validate(
        {
            "data": {"path": "input.csv"},
            "columns": {
                "g": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
                "s": {"role": "sensitive"},
            },
            "privacy": _privacy(privacy),
        }
    )


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), CASES, ids=IDS)
def test_the_reports_recheck_agrees_or_refuses(name, privacy, classes, sup, measured, met):
    rel, mask = _release(classes, sup)
    ctx = RunContext(policy=_policy(privacy), original=rel, data=rel, suppressed=mask)
    key = next(iter(privacy))
    ctx.report["anonymize"] = {"satisfied": {key: True}}
    stage = RiskStage(ml=False)
    if not met:
        with pytest.raises(VerificationError) as info:
            stage.run(ctx)
        assert info.value.exit_code == 4
        assert "NOT met" in info.value.message
        assert ctx.report["anonymize"]["satisfied"][key] is False
        return
    stage.run(ctx)
    (req,) = ctx.report["risk"]["requirements"]
    assert req["met"] is True
    assert set(req) >= {"model", "required", "measured", "met"}
    assert ctx.report["anonymize"]["satisfied"] == {key: True}


def test_failure_line_names_model_required_and_measured():
    rel, _ = _release(T_EQ)
    cfg = PrivacyConfig.model_validate({"t_closeness": {"t": 0.2, "distance": "ordered"}})
    (req,) = check_release(rel.assign(s=[1, 1, 1, 2, 2, 2]), ["g"], cfg, ["s"])
    line = req.line()
    assert line.startswith("t-closeness (ordered distance) of column 's'")
    assert "required t <= 0.2" in line and "measured 0.5" in line and "NOT met" in line


def test_ordered_distance_orders_numbers_by_value():
    # 9 < 10 < 100 by value; as text 10 < 100 < 9. A class of 10s against 1/3 each:
    # by value cum (-1/3, 1/3, 0) -> 2/3 / 2 = 1/3; as text cum (2/3, 1/3, 0) -> 1/2
    rel = pd.DataFrame({"g": ["x", "x"], "s": [10, 10]})
    ref = pd.DataFrame({"s": [9, 10, 100]})
    cfg = PrivacyConfig.model_validate({"t_closeness": {"t": 0.5, "distance": "ordered"}})
    (req,) = check_release(rel, ["g"], cfg, ["s"], reference=ref)
    assert req.measured == pytest.approx(1 / 3)


def test_a_dropped_sensitive_column_has_nothing_to_infer():
    rel, _ = _release(T_EQ)
    cfg = PrivacyConfig.model_validate({"l_diversity": {"l": 5}, "t_closeness": {"t": 0.01}})
    reqs = check_release(rel.drop(columns="s"), ["g"], cfg, ["s"])
    assert [(r.key, r.measured, r.met) for r in reqs] == [
        ("l_diversity", None, True),
        ("t_closeness", None, True),
    ]
    assert all(r.note == "the release drops this column" for r in reqs)


# --------------------------------------------------------------- the second sensitive column
# A model that names no column applies to every sensitive column. Each l and t case above is
# replayed with ``s`` as the SECOND sensitive column, after a column ``s0`` that meets the
# model with room to spare (a new value on every row for l; one value everywhere, t = 0, for
# t): the verdict and figure for ``s`` must be the same as alone. Hierarchical t is left out:
# one hierarchy describes one column, and the policy makes it name that column.
SECOND = [
    c
    for c in CASES
    if next(iter(c[1])) in ("l_diversity", "t_closeness")
    and c[1].get("t_closeness", {}).get("distance") != "hierarchical"
]


def _two_columns(privacy: dict[str, Any], rel: pd.DataFrame) -> pd.DataFrame:
    unique = [f"u{i}" for i in range(len(rel))]
    first = unique if "l_diversity" in privacy else ["z"] * len(rel)
    return rel.assign(s0=first)[["g", "s0", "s"]]


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), SECOND)
def test_second_column_measured_at_the_smallest_margin(name, privacy, classes, sup, measured, met):
    rel, mask = _release(classes, sup)
    rel = _two_columns(privacy, rel)
    cfg = PrivacyConfig.model_validate(_privacy(privacy))
    first, second = check_release(rel, ["g"], cfg, ["s0", "s"], suppressed=mask)
    assert (first.column, first.met, second.column) == ("s0", True, "s")
    assert second.met is met
    if measured is None:
        assert second.measured is None
    else:
        assert second.measured == pytest.approx(measured, rel=1e-12, abs=1e-12)
    # naming the first column leaves the second unmeasured
    key = next(iter(privacy))
    named = PrivacyConfig.model_validate(_privacy({key: {**privacy[key], "column": "s0"}}))
    assert [r.column for r in check_release(rel, ["g"], named, ["s0", "s"], suppressed=mask)] == [
        "s0"
    ]


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), SECOND)
def test_the_anonymizers_recheck_reads_the_second_column(
    name, privacy, classes, sup, measured, met
):
    rel, mask = _release(classes, sup)
    rel = _two_columns(privacy, rel)
    config = AnonymizeConfig(
        ("g",),
        {},
        PrivacyConfig.model_validate(_privacy(privacy)),
        SearchConfig(),
        sensitive=("s0", "s"),
    )
    result = AnonymizationResult(
        data=rel,
        suppressed=mask,
        transformation={"g": 0},
        information_loss={},
        metric="loss",
        suppressed_records=int(mask.sum()),
        equivalence_classes=len(classes),
        min_class_size=min(len(c) for c in classes),
        satisfied={},
        search={},
    )
    original = rel.assign(g=[f"g{i}" for i, c in enumerate(classes) for _ in c] + ["x"] * len(sup))
    if met:
        assert all(verify_release(original, result, config).values())
    else:
        with pytest.raises(VerificationError, match="of column 's'"):
            verify_release(original, result, config)


@pytest.mark.parametrize(("name", "privacy", "classes", "sup", "measured", "met"), SECOND)
def test_the_reports_recheck_refuses_on_the_second_column(
    name, privacy, classes, sup, measured, met
):
    rel, mask = _release(classes, sup)
    rel = _two_columns(privacy, rel)
    doc = _policy(privacy).model_dump(mode="json", exclude_none=True)
    doc["columns"] = {**doc["columns"], "s0": {"role": "sensitive"}}
    doc["columns"] = {c: doc["columns"][c] for c in ("g", "s0", "s")}
    policy = Policy.model_validate(doc)
    assert policy.sensitive == ["s0", "s"]
    ctx = RunContext(policy=policy, original=rel, data=rel, suppressed=mask)
    key = next(iter(privacy))
    ctx.report["anonymize"] = {"satisfied": {key: True}}
    stage = RiskStage(ml=False)
    if not met:
        with pytest.raises(VerificationError) as info:
            stage.run(ctx)
        assert info.value.exit_code == 4
        assert "of column 's'" in info.value.message and "of column 's0'" not in info.value.message
        assert ctx.report["anonymize"]["satisfied"][key] is False
        return
    stage.run(ctx)
    reqs = ctx.report["risk"]["requirements"]
    assert [(r["column"], r["met"]) for r in reqs] == [("s0", True), ("s", True)]
    assert ctx.report["anonymize"]["satisfied"] == {key: True}
