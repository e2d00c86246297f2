"""Bad input: clear errors with counts (never values), the right exit code, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from veil._errors import InputError, PrivacyRequirementNotMet, VerificationError
from veil.tabular import AnonymizeConfig, Hierarchy, anonymize, verify_release
from veil.tabular._hierarchy import interval_hierarchy

AGE = Hierarchy.from_rows(
    "age", [["30", "30-39", "*"], ["35", "30-39", "*"], ["41", "40-49", "*"], ["47", "40-49", "*"]]
)
SEX = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])


def _df(n: int = 8) -> pd.DataFrame:
    ages = ["30", "35", "41", "47"]
    return pd.DataFrame(
        {
            "age": [ages[i % 4] for i in range(n)],
            "sex": ["F" if i % 2 else "M" for i in range(n)],
            "disease": ["flu" if i % 3 else "cold" for i in range(n)],
        }
    )


def _cfg(**kw) -> AnonymizeConfig:
    kw.setdefault("k", 2)
    return AnonymizeConfig.build(["age", "sex"], {"age": AGE, "sex": SEX}, **kw)


def test_value_missing_from_hierarchy_reports_count_not_value():
    df = _df()
    df.loc[0, "age"] = "SECRET-99"
    with pytest.raises(InputError) as exc:
        anonymize(df, _cfg())
    msg = str(exc.value)
    assert "1 distinct value(s)" in msg and "'age'" in msg
    assert "SECRET" not in msg


def test_non_coarsening_hierarchy():
    bad = Hierarchy.from_rows("sex", [["F", "x", "*"], ["M", "x", "*"], ["X", "y", "*"]])
    bad2 = Hierarchy.from_rows("sex", [["F", "a", "*"], ["F2", "a", "b"]])
    with pytest.raises(InputError, match="does not coarsen"):
        bad2.validate()
    assert bad.problems() == []


def test_duplicate_values_in_hierarchy():
    # a repeated identical row is accepted (as ARX does); two generalizations of one value are not
    assert Hierarchy.from_rows("sex", [["F", "*"], ["F", "*"]]).problems() == []
    dup = Hierarchy.from_rows("sex", [["F", "a", "*"], ["F", "b", "*"], ["M", "b", "*"]])
    with pytest.raises(InputError, match=r"1 original value.* different generalizations"):
        dup.validate()


def test_non_numeric_value_in_numeric_qi():
    with pytest.raises(InputError) as exc:
        interval_hierarchy("age", ["30", "abc", "40"], width=10)
    assert "1 distinct value(s)" in str(exc.value)
    assert "abc" not in str(exc.value)
    df = pd.DataFrame({"age": ["30", "oops", "40"], "sex": ["F", "M", "F"]})
    cfg = AnonymizeConfig(
        ("age", "sex"),
        {"age": AGE, "sex": SEX},
        _cfg().privacy,
        _cfg().search,
        numeric=frozenset({"age"}),
    )
    with pytest.raises(InputError, match="not numbers"):
        anonymize(df, cfg)


def test_k_larger_than_table_says_largest_k():
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        anonymize(_df(4), _cfg(k=10))
    assert exc.value.exit_code == 4
    assert "largest k that works is 4" in str(exc.value)


def test_empty_table():
    with pytest.raises(InputError, match="empty"):
        anonymize(_df().iloc[0:0], _cfg())


def test_no_transformation_within_limit_says_smallest_limit():
    # the whole table fails entropy 2-diversity (6 flu, 2 cold); the women's class passes,
    # so suppressing the 6 men works: the hint must say a limit of 0.75
    df = pd.DataFrame(
        {
            "age": ["30"] * 8,
            "sex": ["F", "F"] + ["M"] * 6,
            "disease": ["flu", "cold"] + ["flu"] * 6,
        }
    )
    from veil.policy import PrivacyConfig

    base = _cfg(k=2, sensitive=["disease"])
    privacy = PrivacyConfig.model_validate(
        {"k_anonymity": {"k": 2}, "l_diversity": {"l": 2, "variant": "entropy"}}
    )
    cfg = AnonymizeConfig(
        base.quasi_identifiers, base.hierarchies, privacy, base.search, ("disease",)
    )
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        anonymize(df, cfg)
    assert exc.value.exit_code == 4
    assert "smallest suppression limit that works is about 0.75" in (exc.value.hint or "")
    ok = AnonymizeConfig(
        base.quasi_identifiers,
        base.hierarchies,
        privacy.model_copy(update={"suppression_limit": 0.75}),
        base.search,
        ("disease",),
    )
    assert anonymize(df, ok).suppressed_records == 6


def test_distinct_l_impossible_even_for_whole_table():
    df = _df(8)
    df["disease"] = "flu"
    with pytest.raises(PrivacyRequirementNotMet) as exc:
        anonymize(df, _cfg(k=2, l=2, sensitive=["disease"], suppression_limit=0.5))
    assert "whole table" in (exc.value.hint or "")


def test_verification_catches_a_tampered_release():
    df = _df(8)
    cfg = _cfg(k=3)
    result = anonymize(df, cfg)
    tampered = result.data.copy()
    tampered["age"] = df["age"].to_numpy()
    tampered["sex"] = df["sex"].to_numpy()
    result.data = tampered
    with pytest.raises(VerificationError):
        verify_release(df, result, cfg)


def main(argv: list[str]) -> int:
    """The CLI entry point, imported late: typer's import trips a click deprecation warning
    (not ours) that pytest would turn into an error at collection."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from veil.cli._app import main as cli_main
    return cli_main(argv)


def _policy(tmp_path: Path, k: int) -> Path:
    _df(8).to_csv(tmp_path / "data.csv", index=False)
    for h in (AGE, SEX):
        pd.DataFrame(h.table).to_csv(
            tmp_path / f"h_{h.name}.csv", sep=";", header=False, index=False
        )
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "data: {path: data.csv}\n"
        "columns:\n"
        "  age: {role: quasi_identifier, hierarchy: {type: file, path: h_age.csv}}\n"
        "  sex: {role: quasi_identifier, hierarchy: {type: file, path: h_sex.csv}}\n"
        "  disease: {role: sensitive}\n"
        f"privacy: {{k_anonymity: {{k: {k}}}}}\n"
        "output: {format: csv, report: [json]}\n"
    )
    return policy


def test_cli_exit_code_4_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["anonymize", str(_policy(tmp_path, 50)), "--out", str(out), "--json"])
    assert code == 4
    assert not out.exists()
    assert "largest k" in capsys.readouterr().err


def test_cli_json_keys(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["anonymize", str(_policy(tmp_path, 2)), "--out", str(out), "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    for key in (
        "transformation",
        "information_loss",
        "suppressed_records",
        "equivalence_classes",
        "min_class_size",
        "satisfied",
        "search",
    ):
        assert key in doc
    assert set(doc["transformation"]) == {"age", "sex"}
    assert doc["min_class_size"] >= 2
    assert {"checked", "seconds"} <= set(doc["search"])
    assert (out / "released.csv").is_file()
    released = pd.read_csv(out / "released.csv", dtype=str)
    assert released.groupby(["age", "sex"]).size().min() >= 2


def test_hierarchical_t_closeness_from_a_policy(tmp_path):
    from veil.policy import load_policy
    from veil.tabular._anonymize_stage import run_anonymize

    policy = _policy(tmp_path, 2)
    text = policy.read_text().replace(
        "privacy: {k_anonymity: {k: 2}}",
        "privacy:\n  k_anonymity: {k: 2}\n  t_closeness:\n    t: 0.5\n    distance: hierarchical\n"
        "    hierarchy: {type: taxonomy, tree: {flu: [resp], cold: [resp]}}",
    )
    policy.write_text(text)
    report, _, _ = run_anonymize(load_policy(policy), out_dir=tmp_path / "o")
    assert report["anonymize"]["satisfied"] == {"k_anonymity": True, "t_closeness": True}
    assert (tmp_path / "o" / "released.csv").is_file()


def test_mondrian_dispatch():
    """search: {algorithm: mondrian} goes to the Mondrian module when it is installed."""
    import importlib.util

    from veil._errors import StageUnavailableError

    cfg = _cfg(k=2, algorithm="mondrian")
    if importlib.util.find_spec("veil.tabular._mondrian") is None:
        with pytest.raises(StageUnavailableError):
            anonymize(_df(8), cfg)
        return
    result = anonymize(_df(8), cfg)
    assert result.search["algorithm"] == "mondrian"
    assert result.min_class_size >= 2
    assert result.satisfied["k_anonymity"] is True


def test_k_map_with_sampling_fraction_and_without_a_population():
    from pydantic import ValidationError

    from veil.policy import PrivacyConfig

    base = _cfg(k=2)
    km = PrivacyConfig.model_validate({"k_map": {"k": 4, "sampling_fraction": 0.5}})
    res = anonymize(
        _df(8), AnonymizeConfig(base.quasi_identifiers, base.hierarchies, km, base.search)
    )
    assert res.min_class_size / 0.5 >= 4
    assert res.satisfied == {"k_map": True}
    with pytest.raises(ValidationError, match="population"):
        PrivacyConfig.model_validate({"k_map": {"k": 4}})
