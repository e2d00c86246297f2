"""``FLConfig``: settings refused before any data, ledger or Ray is touched, and defaults."""

from __future__ import annotations

from typing import Any

import pytest

from veil._errors import InputError
from veil.federated import FLConfig


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"secagg": True, "clients": 2}, "at least 3 clients"),
        ({"secagg": True, "secagg_shares": 12.0}, "more than --clients"),
        ({"secagg": True, "strategy": "scaffold"}, "scaffold"),
        ({"secagg": True, "secagg_threshold": 0.3}, "more than half"),
        ({"dropout": 1.0}, "--dropout"),
        ({"dropout": -0.1}, "--dropout"),
    ],
)
def test_bad_secure_aggregation_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        FLConfig(**kwargs).validate()


def test_scaffold_defaults_to_a_smaller_learning_rate_unless_one_is_given() -> None:
    assert FLConfig().learning_rate == 0.05
    assert FLConfig(strategy="fedprox").learning_rate == 0.05
    assert FLConfig(strategy="scaffold").learning_rate == 0.0125
    assert FLConfig(strategy="scaffold", lr=0.1).learning_rate == 0.1
    with pytest.raises(InputError, match="--lr"):
        FLConfig(lr=0.0).validate()
