"""Hierarchy builders, ARX CSV import and privacy models on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from veil._errors import InputError
from veil.data import adult_hierarchy_path
from veil.tabular import (
    auto_hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mask_hierarchy,
    read_arx_hierarchy,
    taxonomy_hierarchy,
)
from veil.tabular._privacy_models import (
    DistinctLDiversityModel,
    EntropyLDiversityModel,
    EqualDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
    KAnonymityModel,
    OrderedDistanceTClosenessModel,
    RecursiveCLDiversityModel,
    SensitiveDomain,
)


def test_arx_csv_import():
    h = read_arx_hierarchy(adult_hierarchy_path("age"), "age").validate()
    assert h.height == 5
    assert h.table[0].tolist()[-1] == "*"


def test_interval_fixed_growing_and_open_bins():
    h = interval_hierarchy("x", ["1", "7", "12", "95"], width=5, growth=2, bottom=0, top=90)
    rows = {r[0]: r for r in h.table.tolist()}
    assert rows["1"][1] == "[0, 5)" and rows["7"][1] == "[5, 10)" and rows["7"][2] == "[0, 10)"
    assert rows["95"][1] == ">=90" and rows["95"][-1] == "*"
    assert h.problems() == []


def test_interval_cuts():
    h = interval_hierarchy("x", ["1", "7", "12"], cuts=[[5, 10], [10]])
    rows = {r[0]: r for r in h.table.tolist()}
    assert rows["7"][1:] == ["[5, 10)", "[-inf, 10)", "*"]
    with pytest.raises(InputError, match="does not coarsen"):
        interval_hierarchy("x", ["1", "7", "12"], cuts=[[10], [5]])


def test_dates_and_mask_and_taxonomy():
    d = date_hierarchy("d", ["1999-12-31"], levels=["month", "quarter", "year", "decade"])
    assert d.table[0].tolist() == ["1999-12-31", "1999-12", "1999-Q4", "1999", "1990s", "*"]
    m = mask_hierarchy("zip", ["13053", "14850"])
    assert m.table[1].tolist() == ["14850", "1485*", "148**", "14***", "1****", "*"]
    t = taxonomy_hierarchy(
        "dx", {"flu": ["respiratory"], "cold": ["respiratory"], "gout": ["joint"]}
    )
    assert t.table.tolist()[0] == ["flu", "respiratory", "*"]
    with pytest.raises(InputError, match="not dates"):
        date_hierarchy("d", ["nope"], levels=["year"])


def test_auto():
    assert auto_hierarchy("x", ["a", "b"]).table.tolist() == [["a", "*"], ["b", "*"]]
    num = auto_hierarchy("n", [str(v) for v in range(0, 100, 3)])
    assert num.height >= 3 and num.problems() == []


def test_models_on_hand_computed_classes():
    sizes = np.array([3, 3, 5])
    h = {"s": np.array([[1, 1, 1], [3, 0, 0], [0, 0, 5]])}
    assert KAnonymityModel(4).satisfied(sizes, h).tolist() == [False, False, True]
    assert DistinctLDiversityModel(2, column="s").satisfied(sizes, h).tolist() == [
        True,
        False,
        False,
    ]
    assert EntropyLDiversityModel(3, column="s").satisfied(sizes, h).tolist() == [
        True,
        False,
        False,
    ]
    assert RecursiveCLDiversityModel(2.0, 2, column="s").satisfied(sizes, h).tolist() == [
        True,
        False,
        False,
    ]
    dom = SensitiveDomain(
        "s", np.array([3, 3, 4]), order=np.array([0, 1, 2]), hierarchy=(np.array([0, 0, 1]),)
    )
    # p = (.3, .3, .4); q of class 1 = (1, 0, 0): equal EMD = .5 * (.7 + .3 + .4) = .7
    eq = EqualDistanceTClosenessModel(t=0.5, domain=dom).distances(h)
    assert eq == pytest.approx([1 / 15, 0.7, 0.6])
    # ordered: cumulative diffs (.7, .4, 0) / (m - 1) = .55
    od = OrderedDistanceTClosenessModel(t=0.5, domain=dom).distances(h)
    assert od[1] == pytest.approx(0.55)
    dom2 = SensitiveDomain(
        "s", np.array([3, 3, 4]), hierarchy=(np.array([0, 0, 1]), np.array([0, 0, 0]))
    )
    hd = HierarchicalDistanceTClosenessModel(t=0.5, domain=dom2).distances(h)
    assert hd[1] == pytest.approx(0.55)


def test_data_spelling_differences_match_the_hierarchy():
    import pandas as pd

    from veil.tabular import AnonymizeConfig, Hierarchy, anonymize

    zips = Hierarchy.from_rows(
        "zip",
        [["01234", "0123*", "*"], ["01235", "0123*", "*"], ["NULL", "NULL", "*"]],
    )
    # pandas reads the codes as integers and an empty cell as NaN
    df = pd.DataFrame({"zip": [1234, 1235, 1234, 1235, None, None]})
    res = anonymize(df, AnonymizeConfig.build(["zip"], {"zip": zips}, k=2))
    assert res.transformation == {"zip": 0}
    assert sorted(res.data["zip"].astype(str).unique()) == ["01234", "01235", "NULL"]
