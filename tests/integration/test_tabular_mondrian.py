"""Mondrian through the engine's ``anonymize()`` (search: mondrian) on Adult, re-verified."""

from __future__ import annotations

import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.tabular import AnonymizeConfig, anonymize, read_arx_hierarchy
from veil.tabular._ncp import ncp

QIS = list(ADULT_QUASI_IDENTIFIERS)


@pytest.mark.parametrize(("k", "l"), [(5, None), (5, 3)])
def test_anonymize_with_mondrian_passes_the_engines_recheck(k, l) -> None:  # noqa: E741
    df = adult_frame()
    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    cfg = AnonymizeConfig.build(QIS, hier, k=k, l=l, sensitive=["occupation"], algorithm="mondrian")
    res = anonymize(df, cfg)
    assert res.transformation is None
    assert all(res.satisfied.values()) and res.satisfied
    sizes = res.data.groupby(QIS).size()
    assert sizes.min() >= k and res.min_class_size == sizes.min()
    if l is not None:
        assert res.data.groupby(QIS)["occupation"].nunique().min() >= l
    assert res.information_loss["ncp"] == pytest.approx(
        ncp(df, res.data, QIS, hierarchies=hier), abs=1e-12
    )
    # hierarchy labels, not sets, when the engine hands over its hierarchies
    assert not res.data["education"].str.startswith("{").any()
