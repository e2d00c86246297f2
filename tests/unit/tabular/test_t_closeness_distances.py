"""The three t-closeness distances, against their definitions.

Each expected value is worked out by hand in a comment (equal distance: half the
variational distance; ordered: Li et al. 2007, ``sum_i |sum_{j<=i} (p_j - q_j)| / (m - 1)``
over the values in order; hierarchical: Li et al.'s tree EMD as ARX computes it, every inner
node at level ``j`` of a hierarchy of height ``H`` costing ``j / H * min(pos, neg)`` of its
children's extras), or computed by ``_emd``, a transportation linear program over the
ground distance of each definition that shares no code with the module. Fast and
deterministic: mutation testing runs these per mutant (docs/mutation.md), where the
hypothesis property test took 8 to 30 s a mutant.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from veil.tabular._privacy_models import (
    EqualDistanceTClosenessModel,
    HierarchicalDistanceTClosenessModel,
    OrderedDistanceTClosenessModel,
    SensitiveDomain,
)


def _h(*rows: list[int]) -> np.ndarray:
    return np.array(rows, dtype=np.int64)


def _dom(counts: list[int], **kw: object) -> SensitiveDomain:
    return SensitiveDomain("s", np.array(counts, dtype=np.int64), **kw)  # type: ignore[arg-type]


# -- an independent oracle: the EMD as a transportation problem ----------------------------


def _emd(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """Minimal cost of moving distribution ``p`` onto ``q`` with ``ground[i, j]`` per unit."""
    m = len(p)
    rows = np.zeros((2 * m, m * m))
    for i in range(m):
        rows[i, i * m : (i + 1) * m] = 1.0  # everything leaving i is p_i
        rows[m + i, i::m] = 1.0  # everything arriving at i is q_i
    res = linprog(ground.ravel(), A_eq=rows, b_eq=np.concatenate([p, q]), method="highs")
    assert res.status == 0
    return float(res.fun)


def _equal_ground(m: int) -> np.ndarray:
    return 1.0 - np.eye(m)


def _ordered_ground(order: list[int]) -> np.ndarray:
    rank = {code: r for r, code in enumerate(order)}
    m = len(order)
    return np.array([[abs(rank[i] - rank[j]) / (m - 1) for j in range(m)] for i in range(m)])


def _tree_ground(levels: list[list[int]]) -> np.ndarray:
    """level of the lowest common ancestor / height; a top level of several nodes gets a
    root above it (height + 1)."""
    height = len(levels) + (len(set(levels[-1])) > 1)
    m = len(levels[0])

    def lca(i: int, j: int) -> int:
        if i == j:
            return 0
        for lv, ids in enumerate(levels, start=1):
            if ids[i] == ids[j]:
                return lv
        return height

    return np.array([[lca(i, j) / height for j in range(m)] for i in range(m)])


def _dist(counts: np.ndarray) -> np.ndarray:
    return counts / counts.sum()


# -- equal distance ------------------------------------------------------------------------


def test_equal_distance_is_half_the_variational_distance() -> None:
    # p = (1/2, 1/4, 1/4)
    dom = _dom([2, 1, 1])
    h = _h([0, 2, 2], [1, 0, 0], [4, 2, 2], [0, 0, 3], [1, 1, 0])
    m = EqualDistanceTClosenessModel(t=0.5, domain=dom)
    # (0, 1/2, 1/2): (1/2 + 1/4 + 1/4) / 2 = 1/2; (1, 0, 0): (1/2 + 1/4 + 1/4) / 2 = 1/2;
    # the global distribution itself: 0; (0, 0, 1): (1/2 + 1/4 + 3/4) / 2 = 3/4;
    # (1/2, 1/2, 0): (0 + 1/4 + 1/4) / 2 = 1/4
    assert m.distances({"s": h}).tolist() == [0.5, 0.5, 0.0, 0.75, 0.25]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [True, True, True, False, True]


# -- ordered distance ----------------------------------------------------------------------


def test_ordered_distance_by_hand_in_code_order() -> None:
    # p = (1/2, 1/4, 1/4), values in code order (no order given)
    dom = _dom([2, 1, 1])
    h = _h([0, 0, 2], [1, 1, 0], [2, 1, 1], [1, 0, 0], [0, 3, 0])
    m = OrderedDistanceTClosenessModel(t=0.3, domain=dom)
    # r = p - q, D = sum |cumsum r| / (m - 1), m - 1 = 2:
    # (0, 0, 1): r = (1/2, 1/4, -3/4), cumsum 1/2, 3/4, 0: 5/4 / 2 = 5/8
    # (1/2, 1/2, 0): r = (0, -1/4, 1/4), cumsum 0, -1/4, 0: 1/8
    # the global distribution: 0
    # (1, 0, 0): r = (-1/2, 1/4, 1/4), cumsum -1/2, -1/4, 0: 3/8
    # (0, 1, 0): r = (1/2, -3/4, 1/4), cumsum 1/2, -1/4, 0: 3/8
    assert m.distances({"s": h}).tolist() == [0.625, 0.125, 0.0, 0.375, 0.375]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, True, True, False, False]


def test_ordered_distance_follows_the_value_order_not_the_codes() -> None:
    # codes 0, 1, 2 hold values ranked 2, 0, 1: order (the code of each rank) = (1, 2, 0)
    dom = _dom([1, 1, 1], order=np.array([1, 2, 0]))
    h = _h([0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0])
    m = OrderedDistanceTClosenessModel(t=0.4, domain=dom)
    # in rank order the classes are (1, 0, 0), (0, 1, 0), (0, 0, 1), (1/2, 0, 1/2) against
    # (1/3, 1/3, 1/3): cumsums -2/3, -1/3 -> 1/2; 1/3, -1/3 -> 1/3; 1/3, 2/3 -> 1/2;
    # -1/6, 1/6 -> 1/6 (each sum / 2)
    got = m.distances({"s": h})
    assert got.tolist() == pytest.approx([1 / 2, 1 / 3, 1 / 2, 1 / 6], abs=1e-15)
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, True, False, True]
    # the same classes with the codes taken as the order: (0, 1, 0) -> 1/3, (0, 0, 1) ->
    # 1/2, (1, 0, 0) -> 1/2, (1/2, 1/2, 0): cumsums -1/6, -1/3 -> 1/4
    plain = OrderedDistanceTClosenessModel(t=0.4, domain=_dom([1, 1, 1]))
    assert plain.distances({"s": h}).tolist() == pytest.approx(
        [1 / 3, 1 / 2, 1 / 2, 1 / 4], abs=1e-15
    )


def test_ordered_distance_of_two_values_is_the_moved_mass() -> None:
    # m = 2: the one step between the values costs 1 (divided by m - 1 = 1)
    dom = _dom([1, 3])
    h = _h([1, 0], [0, 4], [1, 3], [3, 1])
    m = OrderedDistanceTClosenessModel(t=0.5, domain=dom)
    # p = (1/4, 3/4): 3/4 of the mass moves, 1/4, none, 1/2
    assert m.distances({"s": h}).tolist() == [0.75, 0.25, 0.0, 0.5]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, True, True, True]


def test_ordered_distance_is_the_earth_movers_distance_of_li_et_al() -> None:
    rng = np.random.default_rng(20071)
    for m in (2, 3, 4, 6):
        for _ in range(4):
            counts = rng.integers(1, 9, size=m)
            order = rng.permutation(m)
            classes = rng.integers(0, 5, size=(5, m))
            classes[classes.sum(axis=1) == 0, 0] = 1
            model = OrderedDistanceTClosenessModel(t=0.2, domain=_dom(counts.tolist(), order=order))
            ground = _ordered_ground(order.tolist())
            want = [_emd(_dist(counts), _dist(c), ground) for c in classes]
            assert model.distances({"s": classes}).tolist() == pytest.approx(want, abs=1e-9)


# -- hierarchical distance -----------------------------------------------------------------

#: leaves a, b, c, d; level 1 groups {a, b} and {c, d}
_PAIRS = [0, 0, 1, 1]


@pytest.mark.parametrize(
    "levels",
    [(np.array(_PAIRS),), (np.array(_PAIRS), np.zeros(4, dtype=np.int64))],
    ids=["root-implicit", "root-given"],
)
def test_hierarchical_distance_by_hand(levels: tuple[np.ndarray, ...]) -> None:
    # height 2 either way (a top level of two groups gets a root above it). p = 1/4 each,
    # extra = p - q:
    # (1, 0, 0, 0): extras (-3/4, 1/4, 1/4, 1/4); {a, b}: 1/2 * min(1/4, 3/4) = 1/8, its
    #   extra -1/2; {c, d}: 0, extra 1/2; root: 2/2 * min(1/2, 1/2) = 1/2. Total 5/8
    # (1, 1, 0, 0): {a, b} and {c, d} cost nothing, root 1 * 1/2: 1/2
    # (1, 0, 1, 0): {a, b} and {c, d} 1/2 * 1/4 each, root nothing: 1/4
    # (2, 2, 2, 2): 0
    dom = _dom([1, 1, 1, 1], hierarchy=levels)
    h = _h([1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [2, 2, 2, 2])
    m = HierarchicalDistanceTClosenessModel(t=0.5, domain=dom)
    assert m.distances({"s": h}).tolist() == [0.625, 0.5, 0.25, 0.0]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, True, True, True]


def test_hierarchical_distance_of_a_three_level_tree_by_hand() -> None:
    # leaves a b c d e f; level 1: {a, b} {c} {d, e} {f}; level 2: {a, b, c} {d, e, f};
    # level 3: the root. H = 3, p = 1/6 each. Class (1, 0, 0, 0, 0, 0): extras -5/6 then 1/6
    # each; {a, b}: 1/3 * min(1/6, 5/6) = 1/18, extra -4/6; {a, b, c}: 2/3 * min(1/6, 4/6)
    # = 1/9, extra -1/2; {d, e, f}: extra +1/2; root: 1 * 1/2. Total 1/18 + 2/18 + 9/18 = 2/3
    # Class (0, 0, 0, 1, 1, 0): extras 1/6 (a b c f) and -1/3 (d e); {d, e}: extra -2/3, no
    # cost; {d, e, f}: 2/3 * min(1/6, 2/3) = 1/9, extra -1/2; root 1/2. Total 11/18
    levels = (
        np.array([0, 0, 1, 2, 2, 3]),
        np.array([0, 0, 0, 1, 1, 1]),
        np.zeros(6, dtype=np.int64),
    )
    dom = _dom([1] * 6, hierarchy=levels)
    h = _h([1, 0, 0, 0, 0, 0], [0, 0, 0, 1, 1, 0], [3, 3, 3, 3, 3, 3])
    got = HierarchicalDistanceTClosenessModel(t=0.5, domain=dom).distances({"s": h})
    assert got.tolist() == pytest.approx([2 / 3, 11 / 18, 0.0], abs=1e-15)


def test_a_given_root_is_not_topped_by_another() -> None:
    # one level of two groups under a given root: height 2. Were a second root added
    # (height 3), the class (1, 0, 0, 0) would cost 1/3 * 1/4 + 2/3 * 1/2 = 5/12, not 5/8
    dom = _dom([1, 1, 1, 1], hierarchy=(np.array(_PAIRS), np.zeros(4, dtype=np.int64)))
    m = HierarchicalDistanceTClosenessModel(t=0.5, domain=dom)
    assert m.distances({"s": _h([1, 0, 0, 0])}).tolist() == [0.625]
    # a single level that is already one node is the root: height 1, every move costs 1
    flat = _dom([1, 1, 1, 1], hierarchy=(np.zeros(4, dtype=np.int64),))
    one = HierarchicalDistanceTClosenessModel(t=0.5, domain=flat)
    # (1, 0, 0, 0): 3/4 of the mass moves, at 1: 3/4 (the equal distance)
    assert one.distances({"s": _h([1, 0, 0, 0], [1, 1, 0, 0])}).tolist() == [0.75, 0.5]


def test_hierarchical_distance_weighs_unequal_counts_exactly() -> None:
    # p = (3/8, 1/8, 2/8, 2/8) under {a, b} {c, d} and a root given; the class (0, 1, 1, 0):
    # extras p - q = (3/8, -3/8, -2/8, 2/8): {a, b}: 1/2 * 3/8 = 3/16, extra 0; {c, d}:
    # 1/2 * 2/8 = 1/8, extra 0; root nothing. Total 5/16
    dom = _dom([3, 1, 2, 2], hierarchy=(np.array(_PAIRS), np.zeros(4, dtype=np.int64)))
    m = HierarchicalDistanceTClosenessModel(t=0.3, domain=dom)
    h = _h([0, 1, 1, 0], [0, 3, 3, 0], [6, 2, 4, 4])  # the same distribution at any size
    assert m.distances({"s": h}).tolist() == [0.3125, 0.3125, 0.0]
    assert m.satisfied(h.sum(axis=1), {"s": h}).tolist() == [False, False, True]


def _random_tree(rng: np.random.Generator, m: int) -> list[np.ndarray]:
    level1 = np.unique(rng.integers(0, max(1, m - 1), size=m), return_inverse=True)[1]
    levels = [level1]
    if rng.random() < 0.5:  # a second level grouping level 1's nodes
        parent = rng.integers(0, 2, size=int(level1.max()) + 1)
        levels.append(np.unique(parent[level1], return_inverse=True)[1])
    if rng.random() < 0.5:
        levels.append(np.zeros(m, dtype=np.int64))  # the root given
    return levels


def test_hierarchical_distance_is_the_earth_movers_distance_of_its_tree() -> None:
    rng = np.random.default_rng(20072)
    for m in (2, 3, 5, 7):
        for _ in range(5):
            counts = rng.integers(1, 9, size=m)
            levels = _random_tree(rng, m)
            classes = rng.integers(0, 5, size=(5, m))
            classes[classes.sum(axis=1) == 0, -1] = 2
            dom = _dom(counts.tolist(), hierarchy=tuple(levels))
            model = HierarchicalDistanceTClosenessModel(t=0.2, domain=dom)
            ground = _tree_ground([lv.tolist() for lv in levels])
            want = [_emd(_dist(counts), _dist(c), ground) for c in classes]
            assert model.distances({"s": classes}).tolist() == pytest.approx(want, abs=1e-9)


def test_equal_distance_is_the_earth_movers_distance_of_unit_moves() -> None:
    rng = np.random.default_rng(20073)
    for m in (2, 4, 5):
        counts = rng.integers(1, 9, size=m)
        classes = rng.integers(0, 5, size=(6, m))
        classes[classes.sum(axis=1) == 0, 0] = 1
        model = EqualDistanceTClosenessModel(t=0.2, domain=_dom(counts.tolist()))
        want = [_emd(_dist(counts), _dist(c), _equal_ground(m)) for c in classes]
        assert model.distances({"s": classes}).tolist() == pytest.approx(want, abs=1e-9)


# -- the bar, and edge cases shared by the three ---------------------------------------------

_TREE = (np.array(_PAIRS), np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize(
    ("cls", "row", "d"),
    [
        # p = 1/4 each: equal (1, 0, 0, 0) moves 3/4
        (EqualDistanceTClosenessModel, [1, 0, 0, 0], 0.75),
        # ordered (1, 0, 0, 0): cumsums -3/4, -1/2, -1/4, 0: 3/2 / 3 = 1/2
        (OrderedDistanceTClosenessModel, [1, 0, 0, 0], 0.5),
        # hierarchical (1, 0, 0, 0): 5/8 (above)
        (HierarchicalDistanceTClosenessModel, [1, 0, 0, 0], 0.625),
    ],
)
def test_a_class_at_the_bar_is_kept_and_one_just_over_it_is_not(
    cls: type, row: list[int], d: float
) -> None:
    dom = _dom([1, 1, 1, 1], hierarchy=_TREE)
    h = _h(row)
    assert cls(t=d, domain=dom).distances({"s": h}).tolist() == [d]
    assert cls(t=d, domain=dom).satisfied(h.sum(axis=1), {"s": h}).tolist() == [True]
    below = math.nextafter(d, 0.0)
    assert cls(t=below, domain=dom).satisfied(h.sum(axis=1), {"s": h}).tolist() == [False]
    ok, share = cls(t=below, domain=dom).check(h.sum(axis=1), {"s": h})
    assert ok.tolist() == [False]
    assert 0.0 <= share[0] < 1e-8  # just over the bar: little is known of the parts


@pytest.mark.parametrize(
    "cls",
    [
        EqualDistanceTClosenessModel,
        OrderedDistanceTClosenessModel,
        HierarchicalDistanceTClosenessModel,
    ],
)
def test_edge_cases_of_every_distance(cls: type) -> None:
    # one value only: every class holds the global distribution
    one = _dom([5], order=np.array([0]), hierarchy=(np.zeros(1, dtype=np.int64),))
    h1 = _h([1], [4])
    assert cls(t=0.0, domain=one).distances({"s": h1}).tolist() == [0.0, 0.0]
    assert cls(t=0.0, domain=one).satisfied(h1.sum(axis=1), {"s": h1}).tolist() == [True, True]
    # all classes alike (and equal to the table): distance 0, at any size, at t = 0
    dom = _dom([2, 1, 1], hierarchy=(np.array([0, 0, 1]),))
    same = _h([2, 1, 1], [4, 2, 2], [20, 10, 10])
    assert cls(t=0.0, domain=dom).distances({"s": same}).tolist() == [0.0, 0.0, 0.0]
    assert cls(t=0.0, domain=dom).satisfied(same.sum(axis=1), {"s": same}).all()
    # no class at all: nothing to judge
    none = np.zeros((0, 3), dtype=np.int64)
    assert cls(t=0.2, domain=dom).distances({"s": none}).shape == (0,)
    ok, share = cls(t=0.2, domain=dom).check(np.zeros(0, dtype=np.int64), {"s": none})
    assert ok.shape == (0,) and share.shape == (0,)
    # a class of population records only (0 of the input): a finite distance, never NaN
    # (the search weighs each class's share by its size, and 0 * NaN would poison the sum)
    empty = _h([0, 0, 0], [1, 0, 0])
    dist = cls(t=0.2, domain=dom).distances({"s": empty})
    assert np.isfinite(dist).all()
    _, share = cls(t=0.2, domain=dom).check(np.array([0, 1]), {"s": empty})
    assert np.isfinite(share).all()


def test_an_empty_class_costs_nothing_in_the_hierarchical_distance() -> None:
    # its extras are p_i * 0 - 0 * P = 0 at every node (ARX skips such a class)
    dom = _dom([2, 1, 1], hierarchy=(np.array([0, 0, 1]),))
    m = HierarchicalDistanceTClosenessModel(t=0.0, domain=dom)
    assert m.distances({"s": _h([0, 0, 0])}).tolist() == [0.0]


def test_a_class_missing_values_of_the_table_is_judged_on_what_it_holds() -> None:
    # p = (1/2, 1/4, 1/4, 0): the fourth value occurs nowhere (a hierarchy leaf, say), the
    # class (0, 2, 2, 0) holds two of the three that occur
    dom = _dom([2, 1, 1, 0], hierarchy=(np.array(_PAIRS),))
    h = _h([0, 2, 2, 0])
    # equal: (1/2 + 1/4 + 1/4 + 0) / 2 = 1/2
    assert EqualDistanceTClosenessModel(t=0.5, domain=dom).distances({"s": h}).tolist() == [0.5]
    # ordered (m = 4): r = (1/2, -1/4, -1/4, 0), cumsums 1/2, 1/4, 0, 0: 3/4 / 3 = 1/4
    got = OrderedDistanceTClosenessModel(t=0.5, domain=dom).distances({"s": h})
    assert got.tolist() == pytest.approx([0.25], abs=1e-15)
    # hierarchical: {a, b} extras (1/2, -1/4): 1/2 * 1/4, extra 1/4; {c, d} extras (-1/4, 0):
    # extra -1/4; root 1 * 1/4. Total 3/8
    hier = HierarchicalDistanceTClosenessModel(t=0.5, domain=dom).distances({"s": h})
    assert hier.tolist() == [0.375]


@pytest.mark.parametrize(
    "cls",
    [
        EqualDistanceTClosenessModel,
        OrderedDistanceTClosenessModel,
        HierarchicalDistanceTClosenessModel,
    ],
)
def test_a_column_without_any_value_puts_every_class_at_distance_zero(cls: type) -> None:
    # no code at all (and a hierarchy level that maps nothing): nothing to move, no error
    dom = _dom([], order=np.zeros(0, dtype=np.int64), hierarchy=(np.zeros(0, dtype=np.int64),))
    h = np.zeros((2, 0), dtype=np.int64)
    assert cls(t=0.0, domain=dom).distances({"s": h}).tolist() == [0.0, 0.0]
