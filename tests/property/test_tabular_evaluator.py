"""Hypothesis: the shortcuts of the search's node evaluator agree with a full check.

The evaluator groups a node by rolling up the smallest cached predecessor and builds
sensitive histograms lazily, composing class maps through tables that were only checked
for k; it checks the other models on the classes that pass k only, and groups keys by
sorting. Here every node of random lattices is evaluated in a random order (so tables
are cached and lazy in varied ways), on both key paths, and compared with a check of the
node grouped from the frequency table itself.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabular_tables import qi_tables

from veil.policy import PrivacyConfig
from veil.tabular._encoding import encode, factorize_sorted, factorize_uniques
from veil.tabular._metrics import NodeClasses
from veil.tabular._privacy_models import build_models
from veil.tabular._search import _Evaluator, evaluate_node


class _WideKeyEvaluator(_Evaluator):
    FAST_LIMIT = 0  # the path for keys too wide for one int64


@st.composite
def tables(draw):
    qis, hier, df = draw(qi_tables(rows=(4, 50), values=(2, 7), sensitive="abcde"))
    privacy: dict = {"k_anonymity": {"k": draw(st.integers(2, 4))}}
    if draw(st.booleans()):
        variant = draw(st.sampled_from(["distinct", "entropy", "recursive"]))
        privacy["l_diversity"] = {"l": draw(st.integers(2, 3)), "variant": variant}
        if variant == "recursive":
            privacy["l_diversity"]["c"] = draw(st.sampled_from([1.0, 2.0]))
    if draw(st.booleans()) or "l_diversity" not in privacy:
        privacy["t_closeness"] = {
            "t": draw(st.sampled_from([0.1, 0.2, 0.4])),
            "distance": draw(st.sampled_from(["equal", "ordered"])),
        }
    limit = draw(st.integers(0, len(df)))
    return df, qis, hier, privacy, limit


def _classes(node: NodeClasses, mask: np.ndarray) -> dict[tuple[int, ...], int]:
    """Generalized codes -> size of the classes selected by ``mask`` (order-free)."""
    rows = node.gen_rows(mask)
    return {tuple(int(x) for x in r): int(s) for r, s in zip(rows, node.sizes[mask], strict=True)}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tables(), st.booleans(), st.randoms(use_true_random=False))
def test_rolled_up_evaluation_agrees_with_the_full_check(problem, wide, rnd):
    df, qis, hier, privacy, limit = problem
    ft = encode(df, qis, hier, ["s"])
    models = build_models(PrivacyConfig.model_validate(privacy), ft.domains, default_column="s")
    ev = (_WideKeyEvaluator if wide else _Evaluator)(
        ft, models, monotone_with_suppression=limit > 0
    )
    nodes = list(itertools.product(*[range(h.height) for h in hier.values()]))
    rnd.shuffle(nodes)  # the order decides which tables are cached and how lazy they are
    for levels in nodes:
        got, _ = ev.evaluate(levels, abort_above=limit)
        full = evaluate_node(ft, models, levels)
        assert _classes(got, np.ones(len(got.sizes), dtype=bool)) == _classes(
            full, np.ones(len(full.sizes), dtype=bool)
        )
        assert got.suppressed_records == int(got.sizes[~got.kept].sum())
        if full.suppressed_records <= limit:
            # a node the search may keep is always checked exactly
            assert _classes(got, got.kept) == _classes(full, full.kept)
        else:
            # a rejected node: some of its failing classes, already more than the limit
            assert limit < got.suppressed_records <= full.suppressed_records
            failing = _classes(full, ~full.kept)
            assert _classes(got, ~got.kept).items() <= failing.items()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda bits: st.tuples(
            st.just(bits),
            st.lists(st.integers(0, (1 << bits) - 1), min_size=1, max_size=300),
        )
    )
)
def test_sorted_grouping_equals_hashing(case):
    bits, values = case
    key = np.array(values, dtype=np.int64)
    found = factorize_sorted(key, bits)
    assert found is not None
    codes, uniques = found
    assert np.array_equal(uniques[codes], key)
    assert np.all(np.diff(uniques) > 0)
    h_codes, h_uniques = factorize_uniques(key)
    assert len(uniques) == len(h_uniques)
    # the same partition of the positions
    assert len(set(zip(codes.tolist(), h_codes.tolist(), strict=True))) == len(uniques)


def test_sorted_grouping_declines_keys_too_wide_to_pack():
    key = np.arange(5, dtype=np.int64)
    assert factorize_sorted(key, 61) is None  # 61 bits + 3 bits of positions > 63
    assert factorize_sorted(key, 60) is not None
