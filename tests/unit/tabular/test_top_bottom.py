"""Top/bottom coding as hierarchy levels: labels and the coarsening property."""

from __future__ import annotations

import pandas as pd
import pytest

from veil._errors import InputError
from veil.data import adult_hierarchy_path
from veil.tabular._top_bottom import top_bottom_levels


def _coarsens(frame: pd.DataFrame) -> bool:
    for lv in range(1, frame.shape[1]):
        if (frame.groupby(frame.columns[lv - 1])[frame.columns[lv]].nunique() > 1).any():
            return False
    return True


def test_codes_extremes_without_a_hierarchy() -> None:
    f = top_bottom_levels([15, 30, 45, 95], bottom=18, top=90)
    assert f.values.tolist() == [
        ["15", "<18", "*"],
        ["30", "30", "*"],
        ["45", "45", "*"],
        ["95", ">=90", "*"],
    ]


def test_with_the_adult_age_hierarchy_every_level_coarsens() -> None:
    f = top_bottom_levels(bottom=18, top=80, hierarchy=adult_hierarchy_path("age"))
    assert _coarsens(f)
    row = f.set_index(0)
    assert row.loc["17"].tolist()[:3] == ["<18", "<18", "<18"]
    assert row.loc["85"].tolist()[0] == ">=80"
    assert row.loc["40"].tolist()[0] == "40"
    assert (f.iloc[:, -1] == "*").all()
    # once the hierarchy itself puts all low values in one node, that node is used
    assert row.loc["17"].tolist()[3] == row.loc["18"].tolist()[3]


def test_bad_arguments() -> None:
    with pytest.raises(InputError):
        top_bottom_levels([1, 2], bottom=5, top=3)
    with pytest.raises(InputError):
        top_bottom_levels([1, 2])
    with pytest.raises(InputError):
        top_bottom_levels(["a", "b"], top=3)
