"""delta-presence and k-map against a population: models, encoding, policy keys, errors (counts,
never values), the sample-column mode and the independent re-check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError, VerificationError
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, Hierarchy, anonymize, verify_release
from veil.tabular._encoding import encode
from veil.tabular._privacy_models import (
    POPULATION,
    DeltaPresenceModel,
    KMapModel,
    build_models,
)

AGE = Hierarchy.from_rows(
    "age",
    [
        ["30", "30-39", "*"],
        ["35", "30-39", "*"],
        ["41", "40-49", "*"],
        ["47", "40-49", "*"],
    ],
)
SEX = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])
HIER = {"age": AGE, "sex": SEX}


def _population(n: int = 40) -> pd.DataFrame:
    ages = ["30", "35", "41", "47"]
    return pd.DataFrame(
        {
            "age": [ages[i % 4] for i in range(n)],
            "sex": ["F" if (i // 4) % 2 else "M" for i in range(n)],
            "disease": ["flu" if i % 3 else "cold" for i in range(n)],
        }
    )


def _subset(pop: pd.DataFrame, every: int = 4) -> pd.DataFrame:
    return pop.iloc[::every].reset_index(drop=True)


def _cfg(privacy: dict, population: pd.DataFrame | None = None, **kw) -> AnonymizeConfig:
    return AnonymizeConfig(
        ("age", "sex"),
        HIER,
        PrivacyConfig.model_validate(privacy),
        SearchConfig.model_validate(kw.pop("search", {})),
        kw.pop("sensitive", ()),
        population=population,
        **kw,
    )


DELTA = {"delta_min": 0.0, "delta_max": 0.3, "population": "population.csv"}


# --------------------------------------------------------------------------- models


def test_delta_presence_model_is_checked_per_class_and_ignores_empty_classes():
    m = DeltaPresenceModel(delta_min=0.2, delta_max=0.5)
    hist = {POPULATION: np.array([[10], [10], [10], [4], [7]])}
    sizes = np.array([1, 2, 5, 3, 0])
    assert m.satisfied(sizes, hist).tolist() == [False, True, True, False, True]
    assert m.deltas(sizes, hist).tolist()[:3] == [0.1, 0.2, 0.5]
    assert not m.monotonic_generalization and not m.monotonic_suppression
    assert m.describe() == {"model": "delta_presence", "delta_min": 0.2, "delta_max": 0.5}


def test_k_map_model_reads_the_population_histogram_or_estimates():
    exact = KMapModel(k=5)
    assert exact.column == POPULATION
    hist = {POPULATION: np.array([[5], [4]])}
    assert exact.satisfied(np.array([1, 1]), hist).tolist() == [True, False]
    assert exact.monotonic_suppression
    estimated = KMapModel(k=5, sampling_fraction=0.5)
    assert estimated.column is None
    assert estimated.satisfied(np.array([3, 2]), {}).tolist() == [True, False]


def test_models_without_a_population_histogram_say_what_is_missing():
    from veil._errors import PolicyError

    with pytest.raises(PolicyError, match="needs a population table"):
        DeltaPresenceModel(delta_min=0.0, delta_max=0.5).satisfied(np.array([1]), {})


def test_build_models_from_a_policy_section():
    privacy = PrivacyConfig.model_validate(
        {"delta_presence": {"delta_max": 0.5, "sample_column": "in_study"}, "k_map": {"k": 3}}
    )
    models = build_models(privacy, {})
    assert [m.name for m in models] == ["delta_presence", "k_map"]
    assert models[1].describe()["population"] == "table"


# --------------------------------------------------------------------------- encoding


def test_population_combinations_enter_the_frequency_table_with_zero_records():
    pop = _population(8)
    sub = pop.iloc[[0, 1]].reset_index(drop=True)  # ages 30 and 35, both M
    ft = encode(sub, ["age", "sex"], HIER, population=pop)
    assert ft.n_rows == 2 and ft.row_combo.shape == (2,)
    assert ft.population_counts is not None
    assert int(ft.population_counts.sum()) == 8
    assert len(ft.counts) == 8  # every population combination, 6 of them without subset rows
    assert int((ft.counts == 0).sum()) == 6
    cid, code, cnt = ft.pairs[POPULATION]
    assert code.tolist() == [0] * len(cid) and int(cnt.sum()) == 8
    # the subset's own statistics (metrics) ignore the population
    assert int(ft.qis[0].value_counts.sum()) == 2


# --------------------------------------------------------------------------- the search


def test_delta_presence_release_with_a_population_table():
    pop = _population(40)
    sub = _subset(pop, 4)  # 10 of 40: every fourth, all age 30
    result = anonymize(sub, _cfg({"delta_presence": DELTA}, pop))
    assert result.satisfied == {"delta_presence": True}
    stats = result.population
    assert stats is not None and stats["source"] == "table"
    assert stats["rows"] == 40 and stats["subset_rows"] == 10
    assert 0.0 <= stats["delta_min"] <= stats["delta_max"] <= 0.3
    doc = result.to_dict()
    assert doc["population"] == stats and doc["rows"] == 10
    # a release above delta_max would be found by a narrower range; none exists here:
    # the whole subset is a quarter of the population, all from one age
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        anonymize(sub, _cfg({"delta_presence": {**DELTA, "delta_max": 0.2}}, pop))
    assert "0.25 of the population" in (exc.value.hint or "")


def test_k_map_with_a_population_table_and_combined_with_k_anonymity():
    pop = _population(40)
    sub = _subset(pop, 2)
    result = anonymize(
        sub,
        _cfg(
            {
                "k_anonymity": {"k": 2},
                "k_map": {"k": 8, "population": "population.csv"},
            },
            pop,
        ),
    )
    assert result.satisfied == {"k_anonymity": True, "k_map": True}
    assert result.population is not None and result.population["min_class_population"] >= 8
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        anonymize(sub, _cfg({"k_map": {"k": 41, "population": "p.csv"}}, pop))
    assert "40 records, fewer than the k-map k=41" in (exc.value.hint or "")


def test_classes_only_in_the_population_do_not_count_against_k_anonymity():
    pop = _population(40)
    sub = pop[(pop["age"] == "30") & (pop["sex"] == "M")].reset_index(drop=True)
    result = anonymize(sub, _cfg({"k_anonymity": {"k": 5}, "delta_presence": DELTA}, pop))
    assert result.suppressed_records == 0
    assert result.equivalence_classes >= 1


def test_sample_column_mode_releases_only_the_marked_rows_without_the_marker():
    pop = _population(40)
    pop["in_study"] = [1 if i % 4 == 0 else 0 for i in range(40)]
    privacy = {"delta_presence": {"delta_max": 0.3, "sample_column": "in_study"}, "k_map": {"k": 5}}
    result = anonymize(pop, _cfg(privacy))
    assert len(result.data) == 10 and "in_study" not in result.data.columns
    assert result.population is not None and result.population["source"] == "sample_column"
    assert result.population["rows"] == 40
    assert result.satisfied == {"delta_presence": True, "k_map": True}
    half = {"delta_presence": {"delta_max": 0.5, "sample_column": "in_study"}}
    for marker in ([True, False] * 20, ["true", "false"] * 20, [1.0, 0.0] * 20):
        pop["in_study"] = marker
        assert len(anonymize(pop, _cfg(half)).data) == 20


def test_mondrian_refuses_population_models_before_reading_the_population():
    with pytest.raises(InputError, match="optimal search"):
        anonymize(
            _population(8),
            _cfg(
                {"k_map": {"k": 2, "population": "nowhere.csv"}}, search={"algorithm": "mondrian"}
            ),
        )


def test_population_file_is_read_relative_to_base_dir(tmp_path):
    pop = _population(40)
    pop.to_csv(tmp_path / "population.csv", sep=";", index=False)
    cfg = _cfg({"delta_presence": DELTA}, base_dir=tmp_path, read_options={"separator": ";"})
    assert anonymize(_subset(pop), cfg).population["rows"] == 40
    missing = _cfg({"delta_presence": {**DELTA, "population": "gone.csv"}}, base_dir=tmp_path)
    with pytest.raises(InputError, match="population table: input file not found"):
        anonymize(_subset(pop), missing)


# --------------------------------------------------------------------------- errors


def test_population_missing_a_quasi_identifier_names_the_column():
    pop = _population(40)
    with pytest.raises(SchemaError) as exc:
        anonymize(_subset(pop), _cfg({"delta_presence": DELTA}, pop.drop(columns=["sex"])))
    assert "lacks 1 quasi-identifier column(s): sex" in str(exc.value)


def test_population_value_missing_from_the_hierarchy_is_counted_not_shown():
    pop = _population(40)
    pop.loc[[3, 5], "age"] = "SECRET-77"
    with pytest.raises(InputError) as exc:
        anonymize(_subset(pop, 8), _cfg({"delta_presence": DELTA}, pop))
    msg = str(exc.value)
    assert msg.startswith("population table: 1 distinct value(s) of column 'age' (2 record(s))")
    assert "SECRET" not in msg


def test_subset_not_contained_in_the_population_gives_counts():
    pop = _population(40)
    sub = _subset(pop, 4)  # the five (30, M) and the five (30, F) of the population
    sub = pd.concat([sub, sub.iloc[[0]]], ignore_index=True)  # a sixth (30, M)
    with pytest.raises(InputError) as exc:
        anonymize(sub, _cfg({"delta_presence": DELTA}, pop))
    msg = str(exc.value)
    assert "not a subset of the population table: 1 of its 11 record(s)" in msg
    assert "1 distinct combination(s)" in msg


def test_numeric_quasi_identifier_is_checked_in_the_population_too():
    pop = _population(8)
    pop.loc[[1, 2], "age"] = "unknown"
    cfg = _cfg({"delta_presence": DELTA}, pop, numeric=frozenset({"age"}))
    with pytest.raises(InputError) as exc:
        anonymize(_subset(pop.assign(age=["30"] * 8)), cfg)
    assert str(exc.value).startswith("population table: 2 value(s) of numeric")
    assert "unknown" not in str(exc.value)


def test_empty_population_and_empty_subset():
    pop = _population(8)
    with pytest.raises(InputError, match="population table is empty"):
        anonymize(_subset(pop), _cfg({"delta_presence": DELTA}, pop.iloc[0:0]))
    pop["in_study"] = 0
    privacy = {"delta_presence": {"delta_max": 0.3, "sample_column": "in_study"}}
    with pytest.raises(InputError, match="marks no row"):
        anonymize(pop, _cfg(privacy))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([1, 2] * 4, "4 value(s) other than 0 and 1"),
        (["yes", "maybe"] * 4, "4 value(s) that are not 0/1"),
        ([1.0, None] * 4, "4 missing value(s)"),
    ],
)
def test_sample_column_values_are_checked_by_count(values, message):
    pop = _population(8)
    pop["in_study"] = values
    privacy = {"delta_presence": {"delta_max": 0.3, "sample_column": "in_study"}}
    with pytest.raises(InputError) as exc:
        anonymize(pop, _cfg(privacy))
    assert message in str(exc.value) and "maybe" not in str(exc.value)


def test_sample_column_missing_from_the_data():
    privacy = {"delta_presence": {"delta_max": 0.3, "sample_column": "in_study"}}
    with pytest.raises(SchemaError, match="sample column 'in_study' is not in the data"):
        anonymize(_population(8), _cfg(privacy))


# --------------------------------------------------------------------------- policy keys


@pytest.mark.parametrize(
    ("privacy", "message"),
    [
        ({"delta_presence": {"delta_max": 0.5}}, "exactly one of 'population'"),
        (
            {"delta_presence": {"delta_max": 0.5, "population": "p.csv", "sample_column": "s"}},
            "exactly one of 'population'",
        ),
        (
            {"delta_presence": {"delta_min": 0.6, "delta_max": 0.5, "population": "p.csv"}},
            "larger than delta_max",
        ),
        ({"k_map": {"k": 3}}, "k_map needs 'population'"),
        (
            {"k_map": {"k": 3, "population": "p.csv", "sampling_fraction": 0.1}},
            "not both",
        ),
        (
            {
                "delta_presence": {"delta_max": 0.5, "population": "a.csv"},
                "k_map": {"k": 3, "population": "b.csv"},
            },
            "different populations",
        ),
    ],
)
def test_privacy_section_population_keys(privacy, message):
    with pytest.raises(ValidationError, match=message):
        PrivacyConfig.model_validate(privacy)


def test_k_map_shares_the_delta_presence_population():
    privacy = PrivacyConfig.model_validate(
        {"delta_presence": {"delta_max": 0.5, "population": "a.csv"}, "k_map": {"k": 3}}
    )
    assert privacy.uses_population
    assert not PrivacyConfig.model_validate(
        {"k_map": {"k": 3, "sampling_fraction": 0.1}}
    ).uses_population


def _policy_text(sample: str) -> str:
    return (
        "data: {path: d.csv}\n"
        "columns:\n"
        "  age: {role: quasi_identifier, hierarchy: {type: auto}}\n"
        f"{sample}"
        "privacy:\n"
        "  delta_presence: {delta_max: 0.5, sample_column: in_study}\n"
    )


@pytest.mark.parametrize(
    ("column", "message", "key"),
    [
        ("", "does not list", "privacy.delta_presence.sample_column"),
        (
            "  in_study: {role: quasi_identifier, hierarchy: {type: auto}}\n",
            "give it role: insensitive",
            "privacy.delta_presence.sample_column",
        ),
        (
            "  in_study: {role: insensitive, transform: {type: noise, scale: 1}}\n",
            "takes no transform",
            "columns.in_study.transform",
        ),
    ],
)
def test_sample_column_policy_checks(tmp_path, column, message, key):
    from veil._errors import PolicyError
    from veil.policy import load_policy

    path = tmp_path / "policy.yaml"
    path.write_text(_policy_text(column))
    with pytest.raises(PolicyError) as exc:
        load_policy(path)
    assert message in str(exc.value)
    assert exc.value.key == key


def test_stage_check_fails_early_on_a_missing_file_and_on_transformed_qis(tmp_path):
    from veil._errors import PolicyError
    from veil.policy import load_policy
    from veil.tabular._anonymize_stage import check_policy

    path = tmp_path / "policy.yaml"
    base = (
        "data: {path: d.csv}\n"
        "columns:\n"
        "  age: {role: quasi_identifier, hierarchy: {type: auto}TRANSFORM}\n"
        "privacy:\n"
        "  k_map: {k: 3, population: pop.csv}\n"
    )
    path.write_text(base.replace("TRANSFORM", ""))
    with pytest.raises(PolicyError, match="population table not found") as exc:
        check_policy(load_policy(path))
    assert exc.value.key == "privacy.k_map.population"
    (tmp_path / "pop.csv").write_text("age\n30\n")
    check_policy(load_policy(path))
    path.write_text(base.replace("TRANSFORM", ", transform: {type: noise, scale: 1}"))
    with pytest.raises(PolicyError, match="read as is"):
        check_policy(load_policy(path))
    path.write_text(base.replace("TRANSFORM", "") + "search: {algorithm: mondrian}\n")
    with pytest.raises(PolicyError, match="optimal search"):
        check_policy(load_policy(path))


# --------------------------------------------------------------------------- the re-check


def test_verification_generalizes_the_population_on_its_own():
    pop = _population(40)
    sub = _subset(pop, 4)
    cfg = _cfg({"delta_presence": DELTA, "k_map": {"k": 10}}, pop)
    result = anonymize(sub, cfg)
    hier = {"age": AGE, "sex": SEX}
    assert verify_release(sub, result, cfg, population=pop, hierarchies=hier) == {
        "delta_presence": True,
        "k_map": True,
    }
    # a smaller population than the one released against: deltas grow past delta_max
    with pytest.raises(VerificationError):
        verify_release(sub, result, cfg, population=pop.iloc[:15], hierarchies=hier)
    with pytest.raises(VerificationError, match="without the population"):
        verify_release(sub, result, cfg)
    # a tampered summary is caught too
    result.population = {**(result.population or {}), "delta_max": 0.01}
    with pytest.raises(VerificationError, match="reported delta_max"):
        verify_release(sub, result, cfg, population=pop, hierarchies=hier)
