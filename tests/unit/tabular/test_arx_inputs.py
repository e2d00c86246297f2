"""ARX-format inputs read as ARX reads them: every value a string, trimmed, never guessed.

ARX reads a CSV value as the text written (without surrounding whitespace): ``01`` and ``1``
are two values, and so are ``NA`` (a country code), ``NULL`` and an empty cell. pandas would
read the first pair as one number and the rest as one missing value, and the search would
then merge records ARX keeps apart. Each fixture is a few lines written here.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from veil import InputError, load_policy, read_table
from veil.tabular import AnonymizeConfig, Hierarchy, anonymize, read_arx_hierarchy
from veil.tabular._anonymize_stage import run_anonymize


def _policy(tmp_path: Path, data: str, hierarchy: str, privacy: str, *, extra: str = "") -> Path:
    (tmp_path / "d.csv").write_text(data, encoding="utf-8")
    (tmp_path / "h.csv").write_text(hierarchy, encoding="utf-8")
    path = tmp_path / "policy.yaml"
    path.write_text(
        'data: {path: d.csv, separator: ";"' + extra + "}\n"
        "columns:\n"
        "  code: {role: quasi_identifier, hierarchy: {type: file, path: h.csv}}\n"
        "  s: {role: sensitive}\n"
        f"privacy: {privacy}\n"
        "output: {format: csv, report: [json]}\n",
        encoding="utf-8",
    )
    return path


def _run(path: Path) -> dict:
    report, _, _ = run_anonymize(load_policy(path), write=False)
    return report["anonymize"]


def test_codes_with_leading_zeros_stay_apart_from_the_same_number(tmp_path):
    # "01" and "1" are two values with two hierarchy rows: at level 0 each class has 2
    # records, but "02" and "2" are alone, so k=2 needs level 2 (level 1 leaves "2" alone)
    path = _policy(
        tmp_path,
        "code;s\n01;a\n1;b\n01;a\n1;b\n02;a\n2;b\n",
        "01;0*;*\n1;1;*\n02;0*;*\n2;2;*\n",
        "{k_anonymity: {k: 2}}",
    )
    section = _run(path)
    assert section["transformation"] == {"code": 2}
    # with the lone values gone, level 0 keeps four classes of two
    (tmp_path / "d.csv").write_text("code;s\n01;a\n1;b\n01;a\n1;b\n", encoding="utf-8")
    section = _run(path)
    assert section["transformation"] == {"code": 0}
    assert section["equivalence_classes"] == 2


def test_na_null_and_empty_are_three_values(tmp_path):
    path = _policy(
        tmp_path,
        "code;s\nNA;a\nNA;b\n;a\n;b\nNULL;a\nNULL;b\n",
        "NA;Africa;*\n;unknown;*\nNULL;unknown;*\n",
        "{k_anonymity: {k: 2}}",
    )
    section = _run(path)
    assert section["transformation"] == {"code": 0}
    assert section["equivalence_classes"] == 3


def test_policy_na_values_are_missing_even_in_raw_columns(tmp_path):
    # data.na_values was accepted but ignored; '?' now reads as missing, i.e. the value NULL
    path = _policy(
        tmp_path,
        "code;s\n?;a\n?;b\nDE;a\nDE;b\n",
        "NULL;*\nDE;*\n",
        "{k_anonymity: {k: 2}}",
        extra=', na_values: ["?"]',
    )
    assert _run(path)["equivalence_classes"] == 2


def test_sensitive_values_are_counted_as_written(tmp_path):
    # distinct 2-diversity: "NA" and "" are two sensitive values, so one class of four is fine
    path = _policy(
        tmp_path,
        "code;s\nx;NA\nx;\nx;NA\nx;\n",
        "x;*\n",
        "{k_anonymity: {k: 2}, l_diversity: {l: 2}}",
    )
    assert _run(path)["transformation"] == {"code": 0}


def test_release_keeps_the_type_of_the_sensitive_column(tmp_path):
    path = _policy(
        tmp_path,
        "code;s\n01;10\n01;20\n02;10\n02;20\n",
        "01;0*;*\n02;0*;*\n",
        "{k_anonymity: {k: 2}}",
    )
    report, outputs, _ = run_anonymize(load_policy(path), out_dir=tmp_path / "out")
    released = pd.read_csv(outputs["table"], dtype=str)
    assert sorted(released["code"]) == ["01", "01", "02", "02"]
    assert sorted(released["s"]) == ["10", "10", "20", "20"]
    assert report["anonymize"]["transformation"] == {"code": 0}


def test_read_table_raw_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a;b;c\n01; Male ;NA\n1;Male;\nNULL;?;x\n", encoding="utf-8")
    typed = read_table(path, separator=";")
    assert typed["a"].isna().sum() == 1 and typed["c"].isna().sum() == 2
    raw = read_table(path, separator=";", raw_columns=["a", "b", "not_there"])
    assert raw["a"].tolist() == ["01", "1", "NULL"]
    assert raw["b"].tolist() == ["Male", "Male", "?"]  # trimmed, as ARX trims
    assert raw["c"].isna().sum() == 2  # other columns keep pandas' missing values
    some = read_table(path, separator=";", raw_columns=["b"], na_values=["?"], columns=["b", "x"])
    assert list(some.columns) == ["b"]
    assert some["b"].isna().tolist() == [False, False, True]


def test_hierarchy_file_values_are_trimmed_and_blank_lines_skipped(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("Male ; * \r\n\r\n  Female;*\r\n", encoding="utf-8")
    h = read_arx_hierarchy(path, "sex").validate()
    assert h.table.tolist() == [["Male", "*"], ["Female", "*"]]


def test_data_values_match_their_hierarchy_row_without_surrounding_whitespace():
    sex = Hierarchy.from_rows("sex", [["Male", "*"], ["Female", "*"]])
    df = pd.DataFrame({"sex": [" Male", "Male ", "Female", " Female"]})
    res = anonymize(df, AnonymizeConfig.build(["sex"], {"sex": sex}, k=2))
    assert res.transformation == {"sex": 0}
    assert res.equivalence_classes == 2


def test_repeated_hierarchy_rows_count_in_domain_shares_as_in_arx():
    # ARX's domain share of a label is its share of the hierarchy's rows, repeats included:
    # "Male" covers 2 of 3 rows, so level 0 already loses (2 * 2/3 + 2 * 1/3 - m) / (n - m)
    sex = Hierarchy.from_rows("sex", [["Male", "*"], ["Female", "*"], ["Male", "*"]])
    df = pd.DataFrame({"sex": ["Male", "Male", "Female", "Female"]})
    res = anonymize(df, AnonymizeConfig.build(["sex"], {"sex": sex}, k=2))
    n, m = 4.0, 4.0 / 3.0
    assert res.information_loss["loss"] == pytest.approx((2.0 - m) / (n - m))


def test_population_table_is_read_like_the_input(tmp_path):
    (tmp_path / "pop.csv").write_text("code;s\n01;a\n01;b\n1;a\n1;b\n1;a\n1;b\n", encoding="utf-8")
    path = _policy(
        tmp_path,
        "code;s\n01;a\n01;b\n1;a\n1;b\n",
        "01;x;*\n1;x;*\n",
        "{k_anonymity: {k: 2}, delta_presence: {delta_min: 0.4, delta_max: 1.0, "
        "population: pop.csv}}",
    )
    section = _run(path)
    # "01": 2 of its 2 population records; "1": 2 of 4 (merged, both would be 4 of 6)
    assert section["transformation"] == {"code": 0}
    assert section["population"]["delta_min"] == pytest.approx(0.5)
    assert section["population"]["delta_max"] == pytest.approx(1.0)


def test_hierarchy_file_in_another_encoding_is_a_clear_error(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes("M\xfcnchen;*\nBerlin;*\n".encode("latin-1"))
    with pytest.raises(InputError, match="not valid utf-8 text") as info:
        read_arx_hierarchy(path, "city")
    assert "nchen" not in str(info.value) and "latin-1" in info.value.hint
    h = read_arx_hierarchy(path, "city", encoding="latin-1")
    assert h.table[:, 0].tolist() == ["M\xfcnchen", "Berlin"]


def test_hierarchy_file_is_read_again_when_it_changes(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a;*\nb;*\n", encoding="utf-8")
    assert read_arx_hierarchy(path, "c").height == 2
    path.write_text("a;x;*\nb;x;*\n", encoding="utf-8")
    assert read_arx_hierarchy(path, "c").table.tolist() == [["a", "x", "*"], ["b", "x", "*"]]
    path.write_text("a;x;*\nb;*\n", encoding="utf-8")
    with pytest.raises(InputError, match="rows of 2 different lengths"):
        read_arx_hierarchy(path, "c")


def test_numeric_quasi_identifier_read_as_written_keeps_its_missing_values(tmp_path):
    # read as text, 'NULL' and '' stay strings; declaring dtype: numeric must not call them
    # stray text, while a real non-number still is
    path = _policy(
        tmp_path,
        "code;s\n30;a\n30;b\nNULL;a\nNULL;b\n;a\n;b\n",
        "30;*\nNULL;*\n;*\n",
        "{k_anonymity: {k: 2}}",
    )
    text = path.read_text().replace(
        "role: quasi_identifier,", "role: quasi_identifier, dtype: numeric,"
    )
    path.write_text(text)
    assert _run(path)["equivalence_classes"] == 3
    (tmp_path / "d.csv").write_text("code;s\n30;a\n30;b\nabc;a\nabc;b\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("30;*\nabc;*\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"2 value.* of numeric quasi-identifier 'code'"):
        _run(path)


def test_missing_value_with_several_missing_spellings_in_the_hierarchy_is_refused():
    # read by pandas, NA (Namibia) and NULL both became NaN: no row can be chosen safely
    cc = Hierarchy.from_rows("cc", [["NA", "Africa", "*"], ["NULL", "?", "*"], ["DE", "EU", "*"]])
    df = pd.DataFrame({"cc": [None, None, "DE", "DE"]})
    with pytest.raises(InputError, match="2 spellings") as info:
        anonymize(df, AnonymizeConfig.build(["cc"], {"cc": cc}, k=2))
    assert "raw_columns" in info.value.hint
    # read as text, the same table is fine; with one spelling of missing, NaN is that one
    df = pd.DataFrame({"cc": ["NA", "NA", "DE", "DE"]})
    assert anonymize(df, AnonymizeConfig.build(["cc"], {"cc": cc}, k=2)).equivalence_classes == 2
    one = Hierarchy.from_rows("cc", [["NULL", "?", "*"], ["DE", "EU", "*"]])
    df = pd.DataFrame({"cc": [None, None, "DE", "DE"]})
    assert anonymize(df, AnonymizeConfig.build(["cc"], {"cc": one}, k=2)).equivalence_classes == 2
