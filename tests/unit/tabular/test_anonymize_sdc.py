"""``anonymize()`` with ``search: {algorithm: mdav | cell_suppression}``: release, re-check, errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from veil._errors import (
    InputError,
    PolicyError,
    PrivacyRequirementNotMet,
    SchemaError,
    VerificationError,
)
from veil.io import read_table, write_table
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, anonymize, verify_release
from veil.tabular._anonymize_sdc import class_size_bound

CANARY = "CANARY-3e9b"


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 240
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": rng.lognormal(10, 0.5, n).round(2),
            "zip": rng.choice(["1001", "1002", "1003", "2001", "2002"], n),
            "sex": rng.choice(["F", "M"], n),
            "dx": rng.choice(["flu", "cold", "none"], n),
        }
    )


def _cfg(qis: list[str], algorithm: str, **kw) -> AnonymizeConfig:
    return AnonymizeConfig.build(qis, {}, algorithm=algorithm, **kw)


def _sizes(df: pd.DataFrame, qis: list[str]) -> pd.Series:
    """Class sizes by a plain group-by of the released values."""
    return df.groupby(qis, dropna=False).size()


# --------------------------------------------------------------------------- MDAV


@pytest.mark.parametrize("k", [2, 5, 17])
def test_mdav_release_is_k_anonymous_and_reports_like_the_others(people, k) -> None:
    qis = ["age", "income"]
    res = anonymize(people, _cfg(qis, "mdav", k=k))
    sizes = _sizes(res.data, qis)
    assert sizes.min() >= k
    assert res.equivalence_classes == len(sizes) and res.min_class_size == sizes.min()
    assert res.satisfied == {"k_anonymity": True}
    assert res.transformation is None and res.suppressed_records == 0
    assert not res.suppressed.any()
    doc = res.to_dict()
    assert doc["metric"] == "sse" and 0 < doc["information_loss"]["sse"] < 1
    assert {"checked", "seconds"} <= set(doc["search"]) and doc["search"]["algorithm"] == "mdav"
    assert doc["details"]["cluster_size"] == k
    assert doc["details"]["aggregated_columns"] == qis
    # each released value is the mean of the original values of its class
    means = people[qis].groupby(res.data.groupby(qis).ngroup()).transform("mean")
    np.testing.assert_allclose(res.data[qis].to_numpy(), means.to_numpy())
    # the other columns are untouched
    pd.testing.assert_frame_equal(res.data[["zip", "sex", "dx"]], people[["zip", "sex", "dx"]])


def test_mdav_round_to_keeps_integers_integer(people) -> None:
    res = anonymize(people, _cfg(["age", "income"], "mdav", k=5, round_to=0))
    assert pd.api.types.is_integer_dtype(res.data["age"])
    assert (res.data["income"] == res.data["income"].round()).all()
    assert _sizes(res.data, ["age", "income"]).min() >= 5
    assert res.to_dict()["details"]["round_to"] == 0


def test_mdav_refuses_categorical_quasi_identifiers_by_name(people) -> None:
    df = people.assign(zip=people["zip"].where(people.index != 3, CANARY))
    with pytest.raises(SchemaError) as info:
        anonymize(df, _cfg(["age", "zip", "sex"], "mdav", k=5))
    msg = str(info.value)
    assert "'zip'" in msg and "'sex'" in msg and "'age'" not in msg
    assert "mondrian" in msg and CANARY not in msg


def test_mdav_counts_stray_text_and_missing_values_without_showing_them(people) -> None:
    df = people.astype({"age": object})
    df.loc[7, "age"] = CANARY
    df.loc[[1, 2], "income"] = np.nan
    with pytest.raises(SchemaError) as info:
        anonymize(df, _cfg(["age", "income"], "mdav", k=5))
    msg = str(info.value)
    assert "'age' (1 of 240 values are not numbers)" in msg
    assert "'income' (2 missing values)" in msg
    assert CANARY not in msg


@pytest.mark.parametrize("algorithm", ["mdav", "cell_suppression"])
def test_k_larger_than_the_table_and_empty_table(people, algorithm) -> None:
    with pytest.raises(PrivacyRequirementNotMet, match="larger than the table"):
        anonymize(people.head(4), _cfg(["age"], algorithm, k=5))
    with pytest.raises(InputError, match="empty"):
        anonymize(people.head(0), _cfg(["age"], algorithm, k=2))


@pytest.mark.parametrize("algorithm", ["mdav", "cell_suppression"])
def test_models_beyond_class_size_are_refused(people, algorithm) -> None:
    with pytest.raises(PolicyError, match="l_diversity") as info:
        anonymize(people, _cfg(["age"], algorithm, k=2, l=2, sensitive=["dx"]))
    assert "mondrian" in str(info.value)
    with pytest.raises(PolicyError, match="t_closeness"):
        anonymize(people, _cfg(["age"], algorithm, k=2, t=0.5, sensitive=["dx"]))


@pytest.mark.parametrize(
    ("k", "fraction", "size"), [(10, 0.3, 3), (10, 0.5, 5), (3, 0.1, 2), (7, 1.0, 7)]
)
def test_k_map_with_a_sampling_fraction_is_a_class_size(k, fraction, size) -> None:
    privacy = PrivacyConfig.model_validate({"k_map": {"k": k, "sampling_fraction": fraction}})
    got = class_size_bound(privacy, "mdav", 100)
    assert got == size
    assert got / fraction >= k  # the re-check's own test


@pytest.mark.parametrize("algorithm", ["mdav", "cell_suppression"])
def test_k_map_release_passes_the_recheck(people, algorithm) -> None:
    privacy = PrivacyConfig.model_validate(
        {"k_anonymity": {"k": 2}, "k_map": {"k": 20, "sampling_fraction": 0.2}}
    )
    qis = ["age", "income"] if algorithm == "mdav" else ["zip", "sex"]
    cfg = AnonymizeConfig(tuple(qis), {}, privacy, SearchConfig(algorithm=algorithm))
    res = anonymize(people, cfg)
    assert res.satisfied == {"k_anonymity": True, "k_map": True}
    assert _sizes(res.data, qis).min() >= 4


# --------------------------------------------------------------------------- cell suppression


@pytest.mark.parametrize("k", [2, 5, 12])
def test_cell_suppression_release_is_k_anonymous_with_star_as_a_value(people, k) -> None:
    qis = ["age", "zip", "sex"]
    res = anonymize(people, _cfg(qis, "cell_suppression", k=k))
    sizes = _sizes(res.data, qis)
    assert sizes.min() >= k
    assert res.equivalence_classes == len(sizes) and res.min_class_size == sizes.min()
    assert res.satisfied == {"k_anonymity": True}
    assert res.suppressed_records == 0 and not res.suppressed.any()
    details = res.to_dict()["details"]
    starred = np.column_stack([(res.data[q].astype(str) == "*").to_numpy() for q in qis])
    assert details["cells_suppressed"] == int(starred.sum()) > 0
    assert details["records_affected"] == int(starred.any(axis=1).sum())
    assert details["cells"] == len(people) * len(qis)
    assert res.information_loss["ncp"] == pytest.approx(starred.sum() / starred.size)
    # every cell not starred is the original value
    for j, q in enumerate(qis):
        kept = ~starred[:, j]
        assert (res.data[q][kept].astype(str) == people[q][kept].astype(str)).all()
    # non-QI columns untouched
    pd.testing.assert_frame_equal(res.data[["income", "dx"]], people[["income", "dx"]])


def test_cell_suppression_release_survives_parquet_and_csv(people, tmp_path) -> None:
    qis = ["age", "zip", "sex"]
    res = anonymize(people, _cfg(qis, "cell_suppression", k=5))
    for fmt in ("parquet", "csv"):
        path = write_table(res.data, tmp_path / f"r.{fmt}")
        back = read_table(path)
        assert _sizes(back.astype({q: str for q in qis}), qis).min() >= 5


def test_cell_suppression_keeps_missing_values_as_a_value() -> None:
    df = pd.DataFrame({"a": ["x", "x", None, None, "y"], "b": [1, 1, 2, 2, 3]})
    res = anonymize(df, _cfg(["a", "b"], "cell_suppression", k=2))
    assert _sizes(res.data, ["a", "b"]).min() >= 2
    assert res.data["a"].isna().sum() == 2


# --------------------------------------------------------------------------- the re-check


def test_recheck_rejects_an_mdav_value_that_is_not_its_class_mean(people) -> None:
    qis = ["age", "income"]
    cfg = _cfg(qis, "mdav", k=3)
    res = anonymize(people, cfg)
    # move one whole class: sizes stay >= k, but the values are no longer the means
    ids = res.data.groupby(qis).ngroup().to_numpy()
    data = res.data.copy()
    data.loc[ids == 0, "age"] = data.loc[ids == 0, "age"] + 1000
    with pytest.raises(VerificationError, match="mean of their class"):
        verify_release(people, dataclasses.replace(res, data=data), cfg)


def test_recheck_rejects_an_altered_cell_and_a_small_class(people) -> None:
    qis = ["zip", "sex"]
    cfg = _cfg(qis, "cell_suppression", k=3)
    res = anonymize(people, cfg)
    ids = res.data.groupby(qis).ngroup().to_numpy()
    # relabel one whole class: sizes stay >= k, but its cells are no longer the originals
    data = res.data.astype({"zip": object})
    data.loc[ids == 0, "zip"] = CANARY
    with pytest.raises(VerificationError, match="altered") as info:
        verify_release(people, dataclasses.replace(res, data=data), cfg)
    assert CANARY not in str(info.value)
    data = res.data.astype({"zip": object})
    data.loc[0, "zip"] = CANARY
    with pytest.raises(VerificationError, match="smaller than k") as info:
        verify_release(people, dataclasses.replace(res, data=data), cfg)
    assert CANARY not in str(info.value)
