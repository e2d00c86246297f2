"""The ``search`` section: MDAV and cell suppression keys and what they refuse, with line and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veil import PolicyError, load_policy
from veil.policy import policy_schema

BASE = """\
data: {path: people.csv}
columns:
  age: {role: quasi_identifier}
  income: {role: quasi_identifier}
  diagnosis: {role: sensitive}
privacy:
  k_anonymity: {k: 5}
search: {algorithm: ALGO}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str):
    return load_policy(write(tmp_path, text))


@pytest.mark.parametrize("algorithm", ["mdav", "cell_suppression"])
def test_algorithms_need_no_hierarchy(tmp_path, algorithm) -> None:
    policy = load(tmp_path, BASE.replace("ALGO", algorithm))
    assert policy.search.algorithm == algorithm
    assert policy.search.round_to is None


def test_round_to_belongs_to_mdav(tmp_path) -> None:
    policy = load(tmp_path, BASE.replace("ALGO", "mdav, round_to: 0"))
    assert policy.search.round_to == 0
    with pytest.raises(PolicyError) as info:
        load(tmp_path, BASE.replace("ALGO", "cell_suppression, round_to: 0"))
    assert info.value.key == "search.round_to" and info.value.line == 8
    with pytest.raises(PolicyError) as info:
        load(tmp_path, BASE.replace("ALGO", "mdav, round_to: -1"))
    assert info.value.key == "search.round_to"


@pytest.mark.parametrize("algorithm", ["mdav", "cell_suppression"])
@pytest.mark.parametrize(
    ("model", "line"),
    [
        ("l_diversity: {l: 2}", 8),
        ("t_closeness: {t: 0.2}", 8),
        ("delta_presence: {delta_max: 0.5, population: pop.csv}", 8),
        ("k_map: {k: 5, population: pop.csv}", 8),
    ],
)
def test_models_beyond_class_size_are_refused_at_their_key(tmp_path, algorithm, model, line):
    text = BASE.replace("ALGO", algorithm).replace(
        "  k_anonymity: {k: 5}\n", f"  k_anonymity: {{k: 5}}\n  {model}\n"
    )
    with pytest.raises(PolicyError) as info:
        load(tmp_path, text)
    name = model.split(":")[0]
    assert info.value.key == f"privacy.{name}" and info.value.line == line
    assert "mondrian" in str(info.value) or "optimal" in str(info.value)


def test_k_map_with_a_sampling_fraction_is_accepted(tmp_path) -> None:
    text = BASE.replace("ALGO", "mdav").replace(
        "  k_anonymity: {k: 5}\n", "  k_map: {k: 5, sampling_fraction: 0.5}\n"
    )
    assert load(tmp_path, text).privacy.k_map is not None


def test_mdav_refuses_a_quasi_identifier_declared_categorical(tmp_path) -> None:
    text = BASE.replace("ALGO", "mdav").replace(
        "income: {role: quasi_identifier}", "income: {role: quasi_identifier, dtype: categorical}"
    )
    with pytest.raises(PolicyError) as info:
        load(tmp_path, text)
    assert info.value.key == "columns.income.dtype" and info.value.line == 4
    assert "income" in str(info.value) and "cell_suppression" in str(info.value)
    # cell suppression takes categories
    load(tmp_path, text.replace("algorithm: mdav", "algorithm: cell_suppression"))


def test_unknown_algorithm_lists_the_valid_ones(tmp_path) -> None:
    with pytest.raises(PolicyError) as info:
        load(tmp_path, BASE.replace("ALGO", "microaggregation"))
    for name in ("optimal", "mondrian", "mdav", "cell_suppression"):
        assert name in str(info.value)


def test_schema_lists_the_algorithms_and_round_to() -> None:
    search = json.loads(policy_schema())["$defs"]["SearchConfig"]["properties"]
    assert set(search["algorithm"]["enum"]) == {"optimal", "mondrian", "mdav", "cell_suppression"}
    assert "round_to" in search
