"""The anonymizer's re-check on weighted rows (the Ray engine's aggregates): the suppression
limit counts records, not rows, and weights are refused where a model cannot take them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil._errors import VerificationError
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, verify_release
from veil.tabular._anonymize import AnonymizationResult


def _config(privacy: dict[str, Any], algorithm: str = "optimal") -> AnonymizeConfig:
    return AnonymizeConfig(
        ("g",), {}, PrivacyConfig.model_validate(privacy), SearchConfig(algorithm=algorithm)
    )


def _result(data: pd.DataFrame, suppressed: list[bool]) -> AnonymizationResult:
    mask = np.array(suppressed)
    return AnonymizationResult(
        data=data,
        suppressed=mask,
        transformation=None,
        information_loss={},
        metric="loss",
        suppressed_records=int(mask.sum()),
        equivalence_classes=0,
        min_class_size=0,
        satisfied={},
        search={},
    )


# two aggregate rows: a class of 8 records, and one row standing for 2 suppressed records
ORIG = pd.DataFrame({"g": ["a", "b"]})
REL = pd.DataFrame({"g": ["a", "*"]})
WEIGHTS = [8, 2]


def test_the_suppression_limit_counts_the_records_a_row_stands_for() -> None:
    # 10 records at 0.15: 1 may be suppressed; the one suppressed row holds 2 records
    cfg = _config({"k_anonymity": {"k": 2}, "suppression_limit": 0.15})
    with pytest.raises(VerificationError) as info:
        verify_release(ORIG, _result(REL, [False, True]), cfg, weights=WEIGHTS)
    assert "2 records suppressed, the limit allows 1" in info.value.message
    # at 0.2 the 2 records are within the limit, and the class of 8 meets k
    ok = _config({"k_anonymity": {"k": 8}, "suppression_limit": 0.2})
    assert verify_release(ORIG, _result(REL, [False, True]), ok, weights=WEIGHTS) == {
        "k_anonymity": True
    }


@pytest.mark.parametrize(
    ("privacy", "algorithm", "weights"),
    [
        ({"k_anonymity": {"k": 2}}, "optimal", [8]),  # one weight for two rows
        ({"k_anonymity": {"k": 2}}, "mdav", WEIGHTS),  # microaggregation: per record
        ({"k_anonymity": {"k": 2}}, "cell_suppression", WEIGHTS),
        (
            {
                "k_anonymity": {"k": 2},
                "delta_presence": {"delta_min": 0.0, "delta_max": 0.5, "population": "p.csv"},
            },
            "optimal",
            WEIGHTS,
        ),
    ],
)
def test_weights_where_they_cannot_apply_are_refused(
    privacy: dict[str, Any], algorithm: str, weights: list[int]
) -> None:
    cfg = _config({**privacy, "suppression_limit": 1.0}, algorithm)
    with pytest.raises(ValueError, match=r"^weights: one per row, and k, l and t models only$"):
        verify_release(ORIG, _result(REL, [False, True]), cfg, weights=weights)
