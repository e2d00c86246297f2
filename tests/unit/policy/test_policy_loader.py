"""Policy loading: every error names the file, the line and the key, and suggests a fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veil import PolicyError, load_policy
from veil.policy import Role, policy_schema

GOOD = """\
data: {path: people.csv}
columns:
  name: {role: identifier, action: drop}
  age:  {role: quasi_identifier, hierarchy: {type: interval, width: 5}}
  zip:  {role: quasi_identifier, hierarchy: {type: mask, from: right}}
  diagnosis: {role: sensitive}
  notes: {role: text, entities: [PERSON], operator: placeholder}
privacy:
  k_anonymity: {k: 5}
  l_diversity: {l: 2}
  suppression_limit: 0.05
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_policy_loads_with_views_and_relative_paths(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path, GOOD))
    assert policy.quasi_identifiers == ["age", "zip"]
    assert policy.sensitive == ["diagnosis"]
    assert policy.text_columns == ["notes"]
    assert policy.columns["name"].transform is not None
    assert policy.columns["name"].transform.type == "drop"
    assert policy.columns["notes"].role is Role.text
    assert policy.columns["notes"].text is not None
    assert policy.columns["notes"].text.entities == ("PERSON",)
    assert policy.resolve(policy.data.path) == tmp_path.resolve() / "people.csv"


def test_policy_is_frozen(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path, GOOD))
    with pytest.raises(ValueError, match="frozen"):
        policy.privacy.suppression_limit = 0.5  # type: ignore[misc]


def test_unknown_key_names_file_line_key_and_suggestion(tmp_path: Path) -> None:
    path = write(
        tmp_path, GOOD.replace("l_diversity: {l: 2}", "l_diversity: {l: 2, varient: distinct}")
    )
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    err = info.value
    assert err.line == 10
    assert err.key == "privacy.l_diversity.varient"
    assert err.file == str(path)
    assert "did you mean 'variant'" in str(err)
    assert err.exit_code == 2


def test_wrong_type_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("k: 5", "k: five"))
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    assert info.value.line == 9
    assert info.value.key == "privacy.k_anonymity.k"


def test_constraint_violation(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("k: 5", "k: 1"))
    with pytest.raises(PolicyError, match="greater than or equal to 2"):
        load_policy(path)


@pytest.mark.parametrize(
    ("change", "message", "key"),
    [
        (
            "  diagnosis: {role: sensitive}\n",
            "needs a column with role: sensitive",
            "privacy.l_diversity",
        ),
        ("hierarchy: {type: interval, width: 5}", "have no hierarchy", "columns.age"),
        ("{role: identifier, action: drop}", "must be dropped or transformed", "columns.name"),
    ],
)
def test_cross_field_checks_point_at_the_key(
    tmp_path: Path, change: str, message: str, key: str
) -> None:
    replacement = {
        "hierarchy: {type: interval, width: 5}": "dtype: numeric",
        "{role: identifier, action: drop}": "{role: identifier}",
    }.get(change, "")
    text = GOOD.replace(change, replacement)
    with pytest.raises(PolicyError, match=message) as info:
        load_policy(write(tmp_path, text))
    assert info.value.key == key
    assert info.value.line is not None and info.value.line > 1


def test_unknown_transform_type_lists_valid_ones(tmp_path: Path) -> None:
    text = GOOD.replace(
        "{role: identifier, action: drop}", "{role: identifier, transform: {type: scramble}}"
    )
    with pytest.raises(PolicyError) as info:
        load_policy(write(tmp_path, text))
    assert info.value.line == 3
    assert "tokenize" in str(info.value)


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="not valid YAML") as info:
        load_policy(write(tmp_path, GOOD.replace("privacy:\n", "privacy: [\n")))
    assert info.value.line is not None


@pytest.mark.parametrize("text", ["", "- a\n- b\n"])
def test_empty_or_non_mapping_policy(tmp_path: Path, text: str) -> None:
    with pytest.raises(PolicyError):
        load_policy(write(tmp_path, text))


def test_missing_policy_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="not found"):
        load_policy(tmp_path / "nope.yaml")


def test_schema_is_json_schema_with_the_policy_keys() -> None:
    schema = json.loads(policy_schema())
    assert schema["$schema"].endswith("2020-12/schema")
    assert {"data", "columns", "privacy", "search", "output"} <= set(schema["properties"])
    assert "base_dir" not in schema["properties"]
    assert schema["additionalProperties"] is False


def test_partitioned_output_needs_files(tmp_path: Path) -> None:
    """``output.partitioned`` releases a file per input file: a SQL source has none."""
    text = GOOD.replace("data: {path: people.csv}", "data: {url: 'sqlite:///x.db', table: people}")
    with pytest.raises(PolicyError, match=r"it needs data\.path") as info:
        load_policy(write(tmp_path, text + "output: {partitioned: true}\n"))
    assert info.value.key == "output.partitioned"
    assert load_policy(write(tmp_path, GOOD + "output: {partitioned: true}\n")).output.partitioned
