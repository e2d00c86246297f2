"""Policy YAML that would release data in clear or exhaust memory is refused with file and line."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from veil import PolicyError, load_policy
from veil.policy._loader import MAX_NODES, expanded_size, load_yaml_located

# the classic 11-line "billion laughs": 9 levels of 9 aliases, 9**9 leaves once expanded
BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
version: 1
columns: *i
"""

DUPLICATE_COLUMN = """\
version: 1
data: {path: people.csv}
columns:
  ssn: {role: identifier, action: drop}
  age: {role: quasi_identifier}
  ssn: {role: insensitive}
"""


def write(tmp_path: Path, text: str, name: str = "policy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_column_declared_twice_is_an_error_naming_file_line_and_key(tmp_path: Path) -> None:
    # before: the last declaration won and the identifier was released raw as 'insensitive'
    path = write(tmp_path, DUPLICATE_COLUMN)
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    err = info.value
    assert (err.file, err.line, err.key) == (str(path), 6, "columns.ssn")
    assert "duplicate key" in str(err) and "line 4" in str(err)


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("version: 1\nversion: 1\ncolumns: {a: {role: insensitive}}\n", 2, "version"),
        (  # inside a column's transform
            "columns:\n  a:\n    role: identifier\n    action: drop\n    action: keep\n",
            5,
            "columns.a.action",
        ),
        (  # inside a flow mapping, in the privacy section
            "columns: {a: {role: quasi_identifier}}\nprivacy: {k_anonymity: {k: 5, k: 2}}\n",
            2,
            "privacy.k_anonymity.k",
        ),
    ],
)
def test_a_duplicated_key_anywhere_is_an_error(
    tmp_path: Path, text: str, line: int, key: str
) -> None:
    with pytest.raises(PolicyError) as info:
        load_policy(write(tmp_path, text))
    assert (info.value.line, info.value.key) == (line, key)


def test_a_merge_key_may_be_overridden(tmp_path: Path) -> None:
    # '<<' is YAML's merge, not a duplicate: an explicit key beside it is the documented override
    text = (
        "data: {path: people.csv}\n"
        "columns:\n"
        "  a: &s {role: sensitive}\n"
        "  b: {<<: *s, role: insensitive}\n"
    )
    policy = load_policy(write(tmp_path, text))
    assert policy.sensitive == ["a"] and policy.columns["b"].role.value == "insensitive"


def test_alias_bomb_is_refused_quickly_in_process(tmp_path: Path) -> None:
    path = write(tmp_path, BOMB)
    t0 = time.perf_counter()
    with pytest.raises(PolicyError, match="aliases") as info:
        load_policy(path)
    assert time.perf_counter() - t0 < 1.0
    assert info.value.file == str(path) and info.value.line is not None


def test_alias_bomb_makes_policy_check_exit_2_in_under_a_second(tmp_path: Path) -> None:
    # a fresh interpreter, as a user runs it: the limit covers start-up too
    path = write(tmp_path, BOMB)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "veil", "policy", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:" in proc.stderr and "aliases" in proc.stderr
    assert "lol" not in proc.stderr + proc.stdout
    # the command's whole wall time, interpreter start included, on a loaded 2-core machine
    assert elapsed < 5.0, elapsed


def test_aliases_within_the_bound_still_work(tmp_path: Path) -> None:
    text = (
        "data: {path: people.csv}\n"
        "columns:\n"
        "  a: &qi {role: quasi_identifier, hierarchy: {type: interval, width: 5}}\n"
        "  b: *qi\n"
        "privacy: {k_anonymity: {k: 2}}\n"
    )
    policy = load_policy(write(tmp_path, text))
    assert policy.quasi_identifiers == ["a", "b"]


def test_expanded_size_counts_shared_nodes_once_per_use() -> None:
    import yaml

    node = yaml.compose("a: &x [1, 2]\nb: [*x, *x]\n", Loader=yaml.SafeLoader)
    # root + (a, [1, 2] = 3) + (b, [*x, *x] = 1 + 3 + 3)
    assert expanded_size(node, "<t>") == 1 + 1 + 3 + 1 + 7
    with pytest.raises(PolicyError, match="more than 10 nodes"):
        expanded_size(node, "<t>", limit=10)
    assert MAX_NODES >= 10_000  # a large real policy (hundreds of columns) must fit


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(PolicyError, match="recursive"):
        load_yaml_located("a: &x [1, *x]\n", "p.yaml")


def test_taxonomy_file_gets_the_same_guards(tmp_path: Path) -> None:
    from veil.policy._models import TaxonomyHierarchyConfig
    from veil.tabular._hierarchy import build_hierarchy

    tax = write(tmp_path, "A: [x]\nB: [y]\nA: [z]\n", "tax.yaml")
    config = TaxonomyHierarchyConfig(type="taxonomy", path=tax)
    with pytest.raises(PolicyError) as info:
        build_hierarchy("c", config, ["A", "B"])
    assert info.value.file == str(tax) and info.value.line == 3


@pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)
@pytest.mark.parametrize("command", ["policy check", "run", "anonymize"])
def test_duplicate_column_exits_2_from_every_policy_command(
    cli, tmp_path: Path, command: str
) -> None:
    (tmp_path / "people.csv").write_text("ssn,age\n536-22-1234,34\n078-05-1120,51\n")
    path = write(tmp_path, DUPLICATE_COLUMN)
    extra = [] if command == "policy check" else ["--out", str(tmp_path / "out")]
    r = cli(*command.split(), path, *extra)
    assert r.code == 2
    assert f"{path}:6: columns.ssn: duplicate key (first given on line 4)" in r.err
    assert "536-22-1234" not in r.out + r.err + r.logs
    assert not (tmp_path / "out").exists()
