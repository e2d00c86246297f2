"""Key and hierarchy errors, found when a stage checks or runs, name the policy file and line."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from veil import KeyMissingError, load_policy
from veil.pipeline import plan

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

DATA = "id,ssn,age,zip\n1,123-45-6789,34,12345\n2,987-65-4321,51,12346\n"
POLICY = """\
version: 1
data: {path: k.csv}
columns:
  id: {role: identifier, action: drop}
  ssn:
    role: identifier
    transform:
      type: hash
      KEY
  age:
    role: quasi_identifier
    hierarchy:
      type: file
      path: HIER
  zip: {role: insensitive}
privacy:
  k_anonymity: {k: 2}
"""


def _policy(tmp_path: Path, key: str, hierarchy: str = "age.csv") -> Path:
    (tmp_path / "k.csv").write_text(DATA)
    (tmp_path / "age.csv").write_text("34;30-39;*\n51;50-59;*\n")
    (tmp_path / "ragged.csv").write_text("34;30-39;*\n51;*\n")
    key_file = tmp_path / "good.key"
    key_file.write_text(secrets.token_hex(32) + "\n")  # a strong key: weak ones are refused
    key_file.chmod(0o600)
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY.replace("KEY", key).replace("HIER", hierarchy))
    return path


@pytest.mark.parametrize(
    ("key", "line"),
    [("key_env: VEIL_TEST_UNSET_KEY_93b1", 9), ("key_file: missing.key", 9)],
)
def test_a_key_error_names_the_policy_file_and_line(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, line: int
) -> None:
    monkeypatch.delenv("VEIL_TEST_UNSET_KEY_93b1", raising=False)
    path = _policy(tmp_path, key)
    with pytest.raises(KeyMissingError) as info:
        plan(load_policy(path))
    assert str(info.value).startswith(f"{path}:{line}: column 'ssn'")
    for command in (["policy", "check"], ["run"]):
        r = cli(*command, path, *(["--out", tmp_path / "out"] if command == ["run"] else []))
        assert r.code == 2 and f"{path}:{line}: column 'ssn'" in r.err
        assert "123-45-6789" not in r.out + r.err + r.logs


@pytest.mark.parametrize(
    ("hierarchy", "expect"),
    [("missing.csv", "not found"), ("ragged.csv", "different lengths")],
)
def test_a_hierarchy_error_names_the_policy_file_and_line(
    cli, tmp_path: Path, hierarchy: str, expect: str
) -> None:
    path = _policy(tmp_path, "key_file: good.key", hierarchy)
    r = cli("run", path, "--out", tmp_path / "out")
    assert r.code == 2, r.err
    assert f"{path}:14: " in r.err and expect in r.err and "'age'" in r.err


def test_a_policy_built_in_python_keeps_the_plain_message(tmp_path: Path) -> None:
    # no file to name: the message is what it was
    path = _policy(tmp_path, "key_env: VEIL_TEST_UNSET_KEY_93b1")
    policy = load_policy(path).model_copy()
    with pytest.raises(KeyMissingError) as info:
        plan(policy)
    assert str(info.value).startswith("column 'ssn'")


def test_a_text_operator_key_error_names_the_policy_line(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the text operators' key errors name the operator, not the column
    monkeypatch.delenv("VEIL_TEST_UNSET_TEXT_KEY", raising=False)
    (tmp_path / "t.csv").write_text("id,notes\n1,call Jane at 555-123-4567\n")
    path = tmp_path / "policy.yaml"
    path.write_text(
        "version: 1\n"
        "data: {path: t.csv}\n"
        "columns:\n"
        "  id: {role: identifier, action: drop}\n"
        "  notes:\n"
        "    role: text\n"
        "    text:\n"
        "      operator: hash\n"
        "      operator_options: {key_env: VEIL_TEST_UNSET_TEXT_KEY}\n"
    )
    r = cli("run", path, "--out", tmp_path / "out")
    assert r.code == 2 and f"{path}:9: operator 'hash'" in r.err
    assert "555-123-4567" not in r.out + r.err + r.logs
