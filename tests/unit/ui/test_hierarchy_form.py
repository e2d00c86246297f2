"""veil ui's hierarchy builder: fields per quasi-identifier written into the policy."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
    from starlette.testclient import TestClient

import itertools

from veil._errors import PolicyError
from veil.policy._loader import load_yaml_located
from veil.ui._hierarchy_form import (
    _tree_text,
    apply_hierarchy,
    grouping_tree,
    hierarchy_editors,
    ordinal_tree,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
POLICY = """version: 1
data: {path: people.csv}
columns:
  name: {role: identifier, transform: {type: drop}}
  age: {role: quasi_identifier, hierarchy: {type: auto}}
  zip: {role: quasi_identifier, hierarchy: {type: auto}}
  diagnosis: {role: quasi_identifier, hierarchy: {type: auto}}
  stage: {role: insensitive}
privacy:
  k_anonymity: {k: 5}
  suppression_limit: 0.1
output: {path: out, format: csv}
"""
DIAGNOSES = ["flu", "cold", "asthma", "diabetes"]
STAGES = ["I", "II", "III", "IV", "V"]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "people.csv").write_text(
        "name,age,zip,diagnosis,stage\n"
        + "".join(
            f"P{i},{20 + i % 50},{10000 + i % 7},{DIAGNOSES[i % 4]},{STAGES[i % 5]}\n"
            for i in range(80)
        )
    )
    # an ARX hierarchy: value;level1;top
    (root / "age_hierarchy.csv").write_text(
        "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 70))
    )
    return root


def _set(client: TestClient, csrf: str, text: str, column: str, kind: str, **fields):  # type: ignore[no-untyped-def]
    data = {"csrf": csrf, "target": "policy.yaml", "yaml": text, "action": "hierarchy"}
    data |= {"h.column": column, "h.kind": kind}
    data |= {f"h.{k}": v for k, v in fields.items()}
    return client.post("/policy", data=data)


def _yaml_of(page: str) -> str:
    found = re.search(r'<textarea id="yaml" name="yaml"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def _hierarchy(text: str, column: str) -> dict:
    data, _ = load_yaml_located(text, "policy.yaml")
    return data["columns"][column]["hierarchy"]


def test_each_kind_is_written_checked_and_previewed(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = _set(client, csrf, POLICY, "age", "interval", width="5", growth="2", levels="3", top="60")
    assert r.status_code == 200, r.text
    text = _yaml_of(r.text)
    assert _hierarchy(text, "age") == {
        "type": "interval",
        "width": 5,
        "growth": 2,
        "levels": 3,
        "top": 60,
    }
    assert r.text.count('class="grid hierarchy-preview"') == 3  # the preview follows
    r = _set(client, csrf, text, "zip", "mask", levels="2", char="#", **{"from": "left"})
    text = _yaml_of(r.text)
    assert _hierarchy(text, "zip") == {"type": "mask", "from": "left", "char": "#", "levels": 2}
    r = _set(
        client,
        csrf,
        text,
        "diagnosis",
        "grouping",
        groups="respiratory = flu, cold, asthma\nmetabolic = diabetes",
    )
    assert r.status_code == 200
    text = _yaml_of(r.text)
    assert _hierarchy(text, "diagnosis") == {
        "type": "taxonomy",
        "tree": {
            "flu": ["respiratory"],
            "cold": ["respiratory"],
            "asthma": ["respiratory"],
            "diabetes": ["metabolic"],
        },
    }
    # the preview of diagnosis: 4 values, then 2 groups, then one
    previews = re.findall(r'<table class="grid hierarchy-preview">(.*?)</table>', r.text, re.S)
    groups = [
        int(g)
        for g in re.findall(r'<tr><td class="num">\d+</td><td class="num">(\d+)</td>', previews[2])
    ]
    assert groups == [4, 2, 1]
    r = _set(client, csrf, text, "age", "file", path="age_hierarchy.csv")
    text = _yaml_of(r.text)
    assert _hierarchy(text, "age") == {"type": "file", "path": "age_hierarchy.csv"}
    assert 'id="check-ok"' in r.text and "not covered" not in r.text
    r = _set(client, csrf, text, "age", "interval", cuts="30, 45\n45")
    assert _hierarchy(_yaml_of(r.text), "age") == {"type": "interval", "cuts": [[30, 45], [45]]}
    assert not (workdir / "policy.yaml").exists()  # setting a hierarchy writes nothing


def test_ordinal_and_date_kinds(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir)
    text = POLICY.replace("stage: {role: insensitive}", "stage: {role: quasi_identifier}")
    r = _set(client, csrf, text, "stage", "ordinal", values="\n".join(STAGES), size="2")
    assert r.status_code == 200
    tree = _hierarchy(_yaml_of(r.text), "stage")["tree"]
    assert tree["I"] == ["I..II", "I..IV"] and tree["V"] == ["V", "V"]
    assert _hierarchy(
        apply_hierarchy(
            text,
            "policy.yaml",
            {"h.column": ["stage"], "h.kind": ["date"], "h.date_levels": ["month", "decade"]},
        ),
        "stage",
    ) == {"type": "date", "levels": ["month", "decade"]}


def test_uncovered_values_are_warned(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir)
    r = _set(client, csrf, POLICY, "diagnosis", "grouping", groups="respiratory = flu, cold")
    assert r.status_code == 200
    assert re.search(r"2 value\(s\) \(40 row\(s\)\) are not covered", r.text)


@pytest.mark.parametrize(
    ("kind", "fields", "status", "message"),
    [
        ("interval", {"width": "-3"}, 422, "greater than 0"),
        ("interval", {"width": "wide"}, 422, "width"),
        ("grouping", {"groups": "no equals sign"}, 400, "grouping line 1"),
        ("grouping", {"groups": "a = flu\nb = flu"}, 400, "already in another group"),
        ("grouping", {"groups": "a = flu, cold\nall = a\n"}, 400, ""),
        ("ordinal", {"values": "I\nII", "size": "2"}, 400, "at least 3 distinct"),
        ("ordinal", {"values": "I\nII\nIII", "size": "1"}, 400, "at least 2"),
        ("file", {"path": "../x.csv"}, 422, "leaves the working folder"),
        ("nonsense", {}, 400, "unknown hierarchy kind"),
    ],
)
def test_bad_fields_are_refused_with_the_key(
    workdir: Path,
    kind: str,
    fields: dict,
    status: int,
    message: str,
    ui_session: Callable[..., Any],
) -> None:
    client, csrf = ui_session(workdir)
    (workdir.parent / "x.csv").write_text((workdir / "age_hierarchy.csv").read_text())
    r = _set(client, csrf, POLICY, "age", kind, **fields)
    if kind == "grouping" and not message:  # different depths: flu/cold at 2, nothing else
        r = _set(client, csrf, POLICY, "age", kind, groups="a = flu, cold\nall = a, asthma")
        message = "different depths"
    assert r.status_code == status
    assert message in html.unescape(r.text)
    assert not (workdir / "policy.yaml").exists()


def test_a_column_that_is_no_qi_is_refused() -> None:
    with pytest.raises(PolicyError, match="not a quasi-identifier"):
        apply_hierarchy(POLICY, "policy.yaml", {"h.column": ["stage"], "h.kind": ["auto"]})


def test_the_editor_shows_a_taxonomy_as_grouping_lines() -> None:
    text = apply_hierarchy(
        POLICY,
        "policy.yaml",
        {
            "h.column": ["diagnosis"],
            "h.kind": ["grouping"],
            "h.groups": ["r = flu, cold\nm = asthma, diabetes\nall = r, m"],
        },
    )
    data, _ = load_yaml_located(text, "policy.yaml")
    editors = {e["name"]: e for e in hierarchy_editors(data)}
    assert set(editors) == {"age", "zip", "diagnosis"}
    assert editors["diagnosis"]["kind"] == "grouping"
    assert (
        editors["diagnosis"]["fields"]["groups"]
        == "r = flu, cold\nm = asthma, diabetes\nall = r, m"
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=1, max_size=12, unique=True),
    st.integers(1, 4),
)
def test_grouping_lines_round_trip(values: list[str], per_group: int) -> None:
    groups = [values[i : i + per_group] for i in range(0, len(values), per_group)]
    lines = "\n".join(f"G{n} = {', '.join(g)}" for n, g in enumerate(groups))
    tree = grouping_tree(lines, "c", "p.yaml")
    assert sorted(tree) == sorted(values)
    assert all(tree[v] == [f"G{n}"] for n, g in enumerate(groups) for v in g)
    assert grouping_tree(_tree_text(tree), "c", "p.yaml") == tree


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 40), st.integers(2, 6))
def test_ordinal_groups_are_runs_of_neighbours_that_coarsen(n: int, size: int) -> None:
    values = [f"v{i:02d}" for i in range(n)]
    tree = ordinal_tree("\n".join(values), str(size), "c", "p.yaml")
    depth = {len(chain) for chain in tree.values()}
    assert len(depth) == 1
    for level in range(depth.pop()):
        labels = [tree[v][level] for v in values]
        # each group is a run of neighbours (labels change only at run boundaries) ...
        runs = [labels[0]] + [b for a, b in itertools.pairwise(labels) if a != b]
        assert len(runs) == len(set(runs))
        # ... and each level's groups merge whole groups of the level below
        if level:
            below = [tree[v][level - 1] for v in values]
            assert all(labels[i] == labels[i + 1] for i in range(n - 1) if below[i] == below[i + 1])
        assert 1 < len(set(labels)) < n or n <= size
