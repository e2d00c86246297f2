"""An l-diversity or t-closeness model that names no column protects every sensitive column.

The table below has two sensitive columns: ``a`` alternates within every zip code (2
distinct values in every class, whatever the generalization), ``b`` is one value per zip
code (1 distinct value per class until two zip codes share a class). The optimum for ``a``
alone keeps the zip codes; it releases every ``b`` exactly, one value per class. Before,
the search, Mondrian and both re-checks read only the first sensitive column and released
that table; now the second column must meet l and t as well, or the run exits 4.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil._errors import PolicyError, PrivacyRequirementNotMet
from veil.policy import PrivacyConfig, SearchConfig, load_policy
from veil.tabular import AnonymizeConfig, Hierarchy, anonymize
from veil.tabular._partition_checks import GroupChecker
from veil.tabular._privacy_models import SensitiveDomain, build_models

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

ZIPS = ["1301", "1302", "1401", "1402"]
ZIP_TREE = Hierarchy.from_rows("zip", [[z, z[:2] + "**", "*"] for z in ZIPS])


def _table(b_values: list[str] | None = None, per_zip: int = 10) -> pd.DataFrame:
    b_of = dict(zip(ZIPS, b_values or ["flu", "hiv", "cold", "gout"], strict=True))
    rows = [(z, ["x", "y"][i % 2], b_of[z]) for z in ZIPS for i in range(per_zip)]
    return pd.DataFrame(rows, columns=["zip", "a", "b"])


def _config(privacy: dict, algorithm: str = "optimal") -> AnonymizeConfig:
    return AnonymizeConfig(
        ("zip",),
        {"zip": ZIP_TREE},
        PrivacyConfig.model_validate(privacy),
        SearchConfig.model_validate({"algorithm": algorithm}),
        sensitive=("a", "b"),
    )


def _classes(released: pd.DataFrame, suppressed: np.ndarray) -> pd.core.groupby.DataFrameGroupBy:
    kept = released.loc[~np.asarray(suppressed, dtype=bool)]
    return kept.groupby(kept["zip"].astype(str))


def _equal_distance(released: pd.DataFrame, original: pd.DataFrame, col: str) -> float:
    """Largest 1/2 sum |q - p| of a class to the column over the whole input (by hand)."""
    p = original[col].value_counts(normalize=True)
    worst = 0.0
    for _, grp in released.groupby(released["zip"].astype(str)):
        q = grp[col].value_counts(normalize=True).reindex(p.index, fill_value=0.0)
        worst = max(worst, 0.5 * float((p - q).abs().sum()))
    return worst


def test_the_optimum_for_the_first_column_breaks_l_for_the_second() -> None:
    """The premise: naming column ``a`` gives the release the bug used to give for both."""
    df = _table()
    res = anonymize(df, _config({"k_anonymity": {"k": 2}, "l_diversity": {"l": 2, "column": "a"}}))
    assert res.transformation == {"zip": 0}
    assert _classes(res.data, res.suppressed)["b"].nunique().min() == 1


@pytest.mark.parametrize("algorithm", ["optimal", "mondrian"])
def test_l_with_no_column_is_met_by_every_sensitive_column(algorithm: str) -> None:
    df = _table()
    res = anonymize(df, _config({"k_anonymity": {"k": 2}, "l_diversity": {"l": 2}}, algorithm))
    distinct = _classes(res.data, res.suppressed)[["a", "b"]].nunique()
    assert distinct["a"].min() >= 2 and distinct["b"].min() >= 2
    assert int(np.asarray(res.suppressed).sum()) == 0  # suppression limit 0
    if algorithm == "optimal":
        assert res.transformation == {"zip": 1}  # 13** / 14**: two values of b per class
        assert [(m["model"], m.get("column")) for m in res.models] == [
            ("k_anonymity", None),
            ("l_diversity", "a"),
            ("l_diversity", "b"),
        ]


@pytest.mark.parametrize("algorithm", ["optimal", "mondrian"])
def test_t_with_no_column_is_met_by_every_sensitive_column(algorithm: str) -> None:
    # b over the whole input: 1/4 each. A class of one zip code is at 3/4, of two at 1/2.
    df = _table()
    privacy = {"k_anonymity": {"k": 2}, "t_closeness": {"t": 0.5}}
    res = anonymize(df, _config(privacy, algorithm))
    kept = res.data.loc[~np.asarray(res.suppressed, dtype=bool)]
    assert _equal_distance(kept, df, "a") <= 0.5 + 1e-12
    assert _equal_distance(kept, df, "b") <= 0.5 + 1e-12
    if algorithm == "optimal":
        assert res.transformation == {"zip": 1}


@pytest.mark.parametrize("algorithm", ["optimal", "mondrian"])
def test_a_second_column_that_cannot_meet_l_exits_4(algorithm: str) -> None:
    df = _table(b_values=["flu"] * 4)  # one value of b in the whole table: l = 2 is impossible
    with pytest.raises(PrivacyRequirementNotMet) as info:
        anonymize(df, _config({"k_anonymity": {"k": 2}, "l_diversity": {"l": 2}}, algorithm))
    assert info.value.exit_code == 4
    text = f"{info.value.message} {info.value.hint}"
    assert "column(s) 'b'" in text and "'a'" not in text  # the column that fails, by name
    assert "flu" not in text


def test_build_models_gives_one_model_per_sensitive_column() -> None:
    doms = {c: SensitiveDomain(c, np.array([3, 1])) for c in ("a", "b")}
    privacy = PrivacyConfig.model_validate(
        {"l_diversity": {"l": 2, "variant": "recursive", "c": 2}, "t_closeness": {"t": 0.3}}
    )
    models = build_models(privacy, doms, sensitive=["a", "b"])
    assert [(m.name, m.column) for m in models] == [
        ("l_diversity", "a"),
        ("l_diversity", "b"),
        ("t_closeness", "a"),
        ("t_closeness", "b"),
    ]
    # a class that is diverse in a and not in b fails: each column is judged on its own
    sizes = np.array([4])
    hists = {"a": np.array([[2, 2]]), "b": np.array([[4, 0]])}
    assert [bool(m.satisfied(sizes, hists)[0]) for m in models[:2]] == [True, False]
    named = PrivacyConfig.model_validate({"l_diversity": {"l": 2, "column": "b"}})
    assert [m.column for m in build_models(named, doms, sensitive=["a", "b"])] == ["b"]
    # the one-column shorthand still reads that column
    assert [m.column for m in build_models(named, doms, default_column="a")] == ["b"]


def test_mondrians_group_check_reads_every_sensitive_column() -> None:
    df = _table(per_zip=2)  # rows: zip 1301 x flu, y flu, 1302 x hiv, y hiv, ...
    privacy = PrivacyConfig.model_validate({"l_diversity": {"l": 2}})
    checker = GroupChecker(df, privacy, ["a", "b"])
    rows = np.arange(len(df))
    one_zip = np.repeat(np.arange(4), 2)  # a group per zip code: b has one value in each
    assert not checker.ok(one_zip, 4, rows).any()
    two_zips = np.repeat(np.arange(2), 4)  # 13** and 14**: two values of b in each
    assert checker.ok(two_zips, 2, rows).all()


def _policy(privacy: dict) -> dict:
    return {
        "data": {"path": "people.csv"},
        "columns": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
            "a": {"role": "sensitive"},
            "b": {"role": "sensitive"},
        },
        "privacy": privacy,
    }


def test_hierarchical_t_with_several_sensitive_columns_must_name_its_column(
    tmp_path: Path,
) -> None:
    import yaml

    tree = {"type": "taxonomy", "tree": {"x": ["*"], "y": ["*"]}}
    tc = {"t": 0.5, "distance": "hierarchical", "hierarchy": tree}
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump(_policy({"k_anonymity": {"k": 2}, "t_closeness": tc})))
    with pytest.raises(PolicyError, match="name the one it describes with 'column'") as info:
        load_policy(path)
    assert info.value.key == "privacy.t_closeness"
    assert info.value.line is not None and info.value.exit_code == 2
    named = {"k_anonymity": {"k": 2}, "t_closeness": {**tc, "column": "a"}}
    path.write_text(yaml.safe_dump(_policy(named)))
    assert load_policy(path).privacy.t_closeness is not None


def test_veil_run_reports_and_meets_l_for_each_sensitive_column(tmp_path: Path, capsys) -> None:
    import yaml

    from veil.cli import main

    _table().to_csv(tmp_path / "people.csv", index=False)
    policy = _policy({"k_anonymity": {"k": 2}, "l_diversity": {"l": 2}})
    policy["output"] = {"path": "out", "format": "csv"}
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    code = main(["run", str(tmp_path / "policy.yaml"), "--json"])
    err = capsys.readouterr().err
    assert code == 0, err
    released = pd.read_csv(tmp_path / "out" / "released.csv", dtype=str)
    assert released.groupby("zip")["b"].nunique().min() >= 2
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    ls = [r for r in report["risk"]["requirements"] if r["model"] == "distinct l-diversity"]
    assert [(r["column"], r["measured"], r["met"]) for r in ls] == [("a", 2, True), ("b", 2, True)]
