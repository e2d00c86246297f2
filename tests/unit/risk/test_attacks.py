"""Linkage and attribute-inference attacks: a naive release fails, a k-anonymous one holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS
from veil.risk import attribute_inference, equivalence_classes, learn_recoding, linkage_attack
from veil.risk._reference import adult_release

QIS = list(ADULT_QUASI_IDENTIFIERS)


@pytest.fixture(scope="module")
def releases():
    from veil.data import adult_frame

    original = adult_frame()
    naive = original.copy()  # identifiers dropped only: QIs kept as they are
    kanon = adult_release((0, 3, 0, 0, 2, 1, 1, 0), k=5)
    # the attacker's external table: 2,000 people with their QIs and true occupation
    external = original.sample(2000, random_state=7)
    return original, naive, kanon, external


def test_naive_release_fails_where_k_anonymous_holds(releases):
    original, naive, kanon, external = releases
    naive_attack = linkage_attack(naive, external, on=QIS, sensitive="occupation")
    recode = learn_recoding(original, kanon.data, QIS, suppressed=kanon.suppressed)
    k_attack = linkage_attack(
        kanon.data,
        external,
        on=QIS,
        sensitive="occupation",
        recode=recode,
        suppressed=kanon.suppressed,
    )
    # naive: a large share singled out, and their occupation learned
    assert naive_attack["reidentified"] > 0.1
    assert naive_attack["inferred"] > 0.3
    # k-anonymous: nobody singled out (every candidate set has at least 5 records)
    assert k_attack["reidentified"] == 0.0
    assert k_attack["inferred"] < naive_attack["inferred"]
    assert k_attack["expected_inferred"] < naive_attack["expected_inferred"]
    # suppressed people match nothing, everyone else matches one class
    assert 0.9 < k_attack["matched"] <= 1.0
    assert k_attack["single_class"] == pytest.approx(k_attack["matched"])


def test_linkage_by_hand():
    rel = pd.DataFrame({"zip": ["130", "130", "148", "150"], "dx": ["flu", "hiv", "flu", "flu"]})
    ext = pd.DataFrame({"zip": ["148", "130", "999"], "dx": ["flu", "hiv", "flu"]})
    res = linkage_attack(rel, ext, on=["zip"], sensitive="dx")
    assert res["matched"] == pytest.approx(2 / 3)
    assert res["reidentified"] == pytest.approx(1 / 3)
    # 148 -> flu (right); 130 -> tie flu/hiv, first in order is 'flu' (wrong for hiv)
    assert res["inferred"] == pytest.approx(1 / 3)
    assert res["expected_inferred"] == pytest.approx((1 + 0.5) / 3)


def test_attribute_inference_homogeneity():
    df = pd.DataFrame({"q": list("aaabbb"), "s": ["x", "x", "x", "x", "y", "z"]})
    res = attribute_inference(equivalence_classes(df, ["q"]), df, ["s"])["s"]
    assert res["homogeneous"] == 0.5
    assert res["majority_guess"] == pytest.approx(4 / 6)
    assert res["baseline"] == pytest.approx(4 / 6)
    assert res["lift"] == pytest.approx(0.0)


def test_learn_recoding_is_exact_under_global_recoding(releases):
    original, _, kanon, _ = releases
    recode = learn_recoding(original, kanon.data, ["age"], suppressed=kanon.suppressed)
    keep = ~kanon.suppressed
    mapped = original["age"].map(recode["age"]).to_numpy()[keep]
    assert np.array_equal(mapped, kanon.data["age"].to_numpy()[keep])
