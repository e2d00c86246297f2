"""The Ray engine's table pieces that need no Ray: the policy's ``engine:`` section, what is
refused before Ray starts, and the merge of the partitions' aggregates."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from veil._errors import PolicyError
from veil.engine._table_parts import FIRST, N, groups
from veil.engine._tables import _merge, check_ray_policy
from veil.policy import Policy


def _policy(**over: object) -> Policy:
    spec: dict[str, object] = {
        "data": {"path": "parts"},
        "columns": {
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
            "dx": {"role": "sensitive"},
        },
        "privacy": {"k_anonymity": {"k": 2}},
    }
    spec.update(over)
    return Policy.model_validate(spec)


def test_engine_section_defaults_and_validation() -> None:
    assert _policy().engine.type == "local"
    pol = _policy(engine={"type": "ray", "address": "10.0.0.5:6379"})
    assert (pol.engine.type, pol.engine.address) == ("ray", "10.0.0.5:6379")
    assert _policy(engine={"type": "ray", "num_cpus": 2}).engine.num_cpus == 2
    with pytest.raises(ValidationError, match="need type: ray"):
        _policy(engine={"address": "10.0.0.5:6379"})
    with pytest.raises(ValidationError, match="a cluster has its own"):
        _policy(engine={"type": "ray", "address": "h:1", "num_cpus": 2})
    with pytest.raises(ValidationError):
        _policy(engine={"type": "spark"})


def test_a_supported_policy_passes() -> None:
    check_ray_policy(_policy())
    columns = {
        "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
        "dx": {"role": "sensitive"},
        "city": {"role": "insensitive", "transform": {"type": "mask", "keep_last": 1}},
    }
    check_ray_policy(_policy(columns=columns))


@pytest.mark.parametrize(
    ("over", "what", "key"),
    [
        ({"data": {"url": "sqlite://", "table": "t"}}, "not a SQL source", "data.url"),
        (
            {
                "columns": {
                    "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
                    "note": {"role": "text"},
                }
            },
            "text columns",
            "columns.note.role",
        ),
        (
            {
                "columns": {
                    "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
                    "name": {"role": "identifier", "transform": {"type": "drop"}},
                }
            },
            "identifier columns",
            "columns.name.role",
        ),
        (
            {
                "columns": {
                    "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
                    "pay": {
                        "role": "insensitive",
                        "transform": {"type": "top_bottom_code", "upper_quantile": 0.99},
                    },
                }
            },
            "the top_bottom_code transform",
            "columns.pay.transform",
        ),
        ({"search": {"algorithm": "mondrian"}}, "search: mondrian", "search.algorithm"),
        (
            {
                "columns": {"dx": {"role": "sensitive"}, "city": {"role": "insensitive"}},
                "privacy": {},
            },
            "without a privacy model",
            "privacy",
        ),
    ],
)
def test_unsupported_parts_are_refused_naming_the_key(
    over: dict[str, object], what: str, key: str
) -> None:
    with pytest.raises(PolicyError) as err:
        check_ray_policy(_policy(**over))
    assert what in err.value.message
    assert err.value.key == key
    assert "--engine local" in (err.value.hint or "")


_ROWS = st.lists(
    st.tuples(st.sampled_from([30, 40, 50]), st.sampled_from(["a", "b", None]), st.integers(0, 2)),
    min_size=1,
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(rows=_ROWS, cuts=st.lists(st.integers(0, 60), max_size=4))
def test_merged_partition_aggregates_are_the_whole_tables(
    rows: list[tuple[int, str | None, int]], cuts: list[int]
) -> None:
    """Merging the partitions' aggregates gives the aggregate of the concatenated table:
    the same distinct rows in the same order (of their first record), counts and first
    positions; and every partition's groups point at the rows holding their values."""
    cols = ["age", "zip", "dx"]
    whole = pd.DataFrame(rows, columns=cols)
    bounds = sorted({0, len(whole), *(c for c in cuts if c < len(whole))})
    parts = [whole.iloc[a:b].reset_index(drop=True) for a, b in itertools.pairwise(bounds)]
    local = [groups(p, cols) for p in parts]
    offsets = np.array(bounds[:-1], dtype=np.int64)
    merged, to_global = _merge([agg for _, agg in local], offsets, cols)
    _, expected = groups(whole, cols)
    pd.testing.assert_frame_equal(merged, expected, check_dtype=False)
    for part, (ids, _), rows_of in zip(parts, local, to_global, strict=True):
        back = merged.iloc[rows_of[ids]][cols].reset_index(drop=True)
        pd.testing.assert_frame_equal(back, part, check_dtype=False)
    assert int(merged[N].sum()) == len(whole)
    assert list(merged[FIRST]) == sorted(merged[FIRST])
