"""veil's measurements of Adult releases against ARX's reference figures and pycanon.

ARX 3.9.2 figures come from shared/reference/arx-adult.md (row 4: k=5, 5 % suppression,
loss metric, levels 0,3,0,0,2,1,1,0). pycanon is run on the release with suppressed rows
removed and the index reset, the only input it handles correctly; its recursive (c,l) is not
compared (it sorts counts ascending) and its entropy l is floored to an integer.
"""

from __future__ import annotations

import math

import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS
from veil.risk import assess, verify
from veil.risk._reference import adult_release

QIS = list(ADULT_QUASI_IDENTIFIERS)
SA = "occupation"


def test_prosecutor_journalist_marketer_equal_arx():
    rel = adult_release((0, 3, 0, 0, 2, 1, 1, 0), k=5)
    a = assess(rel.data, QIS, [SA], suppressed=rel.suppressed)
    # the release itself matches ARX's: 1346 suppressed, 397 classes, smallest 5
    assert a.classes.n_suppressed == 1346 and a.classes.n_classes == 397 and a.levels.k == 5
    r = a.risk
    assert r.prosecutor["highest"] == 0.2
    assert r.prosecutor["average"] == pytest.approx(0.01377706829539145, rel=1e-14)
    assert r.prosecutor["records_at_highest"] == 240
    assert r.journalist["highest"] == 0.2
    assert r.journalist["average"] == pytest.approx(0.01377706829539145, rel=1e-14)
    assert r.marketer["average"] == pytest.approx(0.01377706829539145, rel=1e-14)


@pytest.mark.parametrize(
    ("levels", "kwargs", "suppressed", "classes", "smallest"),
    [
        ((0, 4, 1, 2, 3, 2, 0, 0), {}, 0, 26, 5),
        ((0, 3, 0, 0, 2, 1, 1, 0), {"l_distinct": 3}, 1400, 387, 5),
        ((1, 4, 1, 1, 3, 1, 2, 1), {"t_equal": 0.2}, 235, 6, 233),
        ((0, 0, 1, 1, 2, 2, 2, 0), {}, 889, 647, 5),
    ],
)
def test_release_shapes_match_arx(levels, kwargs, suppressed, classes, smallest):
    rel = adult_release(levels, **kwargs)
    rep = verify(rel.data, QIS, [SA], suppressed=rel.suppressed)
    assert (rep.n_suppressed, rep.n_classes, rep.k) == (suppressed, classes, smallest)
    if "l_distinct" in kwargs:
        assert rep.l_distinct >= 3
    if "t_equal" in kwargs:
        # t is measured against the retained rows' distribution; the release was cut against
        # the input's, so allow the small difference suppression makes
        assert rep.sensitive[SA].t_equal <= 0.2 + 0.01


def test_pycanon_agreement_on_a_sample():
    pycanon = pytest.importorskip("pycanon.anonymity")
    rel = adult_release((0, 3, 0, 0, 2, 1, 1, 0), k=5, rows=4000)
    kept = rel.data.loc[~rel.suppressed].reset_index(drop=True)
    ours = verify(rel.data, QIS, [SA], suppressed=rel.suppressed)
    s = ours.sensitive[SA]
    assert ours.k == pycanon.k_anonymity(kept, QIS)
    assert s.l_distinct == pycanon.l_diversity(kept, QIS, [SA])
    assert math.floor(s.l_entropy + 1e-9) == pycanon.entropy_l_diversity(kept, QIS, [SA])
    assert s.t_equal == pytest.approx(pycanon.t_closeness(kept, QIS, [SA]), abs=1e-12)
    alpha, k = pycanon.alpha_k_anonymity(kept, QIS, [SA])
    assert (s.alpha, ours.k) == (pytest.approx(alpha), k)
    assert s.beta_basic == pytest.approx(pycanon.basic_beta_likeness(kept, QIS, [SA]))
    assert s.delta_disclosure == pytest.approx(pycanon.delta_disclosure(kept, QIS, [SA]))
