"""ARX-format inputs read as ARX reads them: every value a string, trimmed, never guessed.

ARX reads a CSV value as the text written (without surrounding whitespace): ``01`` and ``1``
are two values, and so are ``NA`` (a country code), ``NULL`` and an empty cell. pandas would
read the first pair as one number and the rest as one missing value, and the search would
then merge records ARX keeps apart. Each fixture is a few lines written here.
"""

from __future__ import annotations

import pandas as pd
import pytest

from veil.tabular import AnonymizeConfig, Hierarchy, anonymize, read_arx_hierarchy


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
