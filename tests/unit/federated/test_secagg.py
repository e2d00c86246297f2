"""SecAgg+ rounds run in process: Flower's real workflow and ``secaggplus_mod``, no Ray.

A small in-memory grid delivers each message (a deep copy, as the wire would) to the
client-side mods of its node and hands the replies back to the server, recording every
reply: the tests inspect exactly what the server receives.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from flwr.app import Context, Message, RecordDict
from flwr.client.mod import secaggplus_mod
from flwr.common import Code, FitRes, Status, bytes_to_ndarray, ndarrays_to_parameters
from flwr.common.secure_aggregation.secaggplus_constants import (
    RECORD_KEY_CONFIGS,
    RECORD_KEY_STATE,
    Key,
)
from flwr.compat.common import recorddict_compat as compat

from veil._errors import InputError
from veil.federated import RoundAbortedError, SecAggSettings
from veil.federated._client import DROP_KEY, dropout_mod
from veil.federated._secagg import secagg_round

SHAPES = [(6, 4), (4,), (2, 4)]


def _updates(nodes: list[int], seed: int = 0, scale: float = 0.1) -> dict[int, list[Any]]:
    rng = np.random.default_rng(seed)
    return {n: [rng.normal(0, scale, s).astype(np.float32) for s in SHAPES] for n in nodes}


class _MemoryGrid:
    """Delivers messages to each node's mods in process; keeps every reply it returns."""

    def __init__(self, updates: dict[int, list[Any]], weights: dict[int, int]) -> None:
        self.updates = updates
        self.weights = weights
        self.contexts = {
            n: Context(run_id=1, node_id=n, node_config={}, state=RecordDict(), run_config={})
            for n in updates
        }
        self.received: list[Message] = []

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Message]:
        replies = []
        for sent in messages:
            msg = copy.deepcopy(sent)
            msg.metadata.__dict__["_message_id"] = f"m{len(self.received) + len(replies)}"
            nid = msg.metadata.dst_node_id

            def fit(m: Message, ctx: Context, nid: int = nid) -> Message:
                params = ndarrays_to_parameters(self.updates[nid])
                res = FitRes(Status(Code.OK, ""), params, self.weights[nid], {})
                return Message(compat.fitres_to_recorddict(res, True), reply_to=m)

            reply = dropout_mod(
                msg, self.contexts[nid], lambda m, c, fit=fit: secaggplus_mod(m, c, fit)
            )
            reply.metadata.__dict__["_src_node_id"] = nid
            replies.append(reply)
        self.received += replies
        return replies


pytestmark = pytest.mark.usefixtures("task_identity")


def _round(
    updates: dict[int, list[Any]],
    settings: SecAggSettings,
    weights: dict[int, int] | None = None,
    drop: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[Any], int, _MemoryGrid]:
    weights = weights or dict.fromkeys(updates, 1)
    grid = _MemoryGrid(updates, weights)
    server = Context(run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config={})
    zeros = [np.zeros(s, np.float32) for s in SHAPES]
    fit = {n: (zeros, {"clip": 1.0, DROP_KEY: n in drop}) for n in updates}
    mean, finished = secagg_round(grid, server, fit, settings, 1)
    return mean, finished, grid


def _max_err(a: list[Any], b: list[Any]) -> float:
    return max(
        float(np.abs(np.asarray(x, np.float64) - y).max()) for x, y in zip(a, b, strict=True)
    )


def test_the_aggregate_is_the_plain_mean_up_to_quantization() -> None:
    nodes = [3, 17, 29, 41, 56]
    updates = _updates(nodes)
    settings = SecAggSettings(1.0, 0.6, clipping_range=1.0, max_weight=1.0)
    mean, finished, _ = _round(updates, settings)
    plain = [np.mean([updates[n][i] for n in nodes], axis=0) for i in range(len(SHAPES))]
    assert finished == 5
    # one quantization step of [-1, 1] into 2**22 levels per client, averaged
    assert _max_err(mean, plain) <= 2 * 1.0 / 2**22 * 2


def test_weighted_by_row_counts_it_is_fedavgs_mean() -> None:
    nodes = [1, 2, 3, 4]
    updates = _updates(nodes, seed=1)
    rows = {1: 10, 2: 400, 3: 90, 4: 250}
    settings = SecAggSettings(1.0, 0.6, clipping_range=8.0, max_weight=400.0)
    mean, _, _ = _round(updates, settings, rows)
    total = sum(rows.values())
    plain = [sum(rows[n] * updates[n][i] for n in nodes) / total for i in range(len(SHAPES))]
    assert _max_err(mean, plain) < 1e-4


def test_the_server_never_receives_an_update_in_clear() -> None:
    nodes = [5, 6, 7, 8]
    updates = _updates(nodes, seed=2)
    settings = SecAggSettings(1.0, 0.6, clipping_range=1.0, max_weight=1.0)
    _, _, grid = _round(updates, settings)
    assert len(grid.received) == 4 * 4  # four stages, four clients
    masked = []
    for reply in grid.received:
        # no array record carries anything: the model arrays are cleared by the mod
        assert all(len(rec) == 0 for rec in reply.content.array_records.values())
        cfg = reply.content.config_records[RECORD_KEY_CONFIGS]
        if Key.MASKED_PARAMETERS in cfg:
            masked.append([bytes_to_ndarray(b) for b in cfg[Key.MASKED_PARAMETERS]])
    assert len(masked) == 4
    for vec in masked:
        flat = np.concatenate([v.ravel() for v in vec[1:]]).astype(np.float64)
        # a quantized update lies in [0, 2**22); a masked one is spread over [0, 2**32)
        assert flat.max() > 2**30
        for upd in updates.values():
            quantized = np.concatenate([(u.ravel() + 1.0) / 2.0 * 2**22 for u in upd])
            assert np.abs(flat - quantized).mean() > 2**24


def test_clients_that_vanish_after_key_sharing_are_unmasked_away() -> None:
    nodes = [10, 20, 30, 40, 50]
    updates = _updates(nodes, seed=3)
    settings = SecAggSettings(1.0, 0.6, clipping_range=1.0, max_weight=1.0)
    mean, finished, grid = _round(updates, settings, drop={20, 40})
    assert finished == 3
    alive = [10, 30, 50]
    plain = [np.mean([updates[n][i] for n in alive], axis=0) for i in range(len(SHAPES))]
    assert _max_err(mean, plain) <= 4 * 1.0 / 2**22
    # the vanished clients forgot their SecAgg+ state: their next round starts clean
    for n in (20, 40):
        assert RECORD_KEY_STATE not in grid.contexts[n].state.config_records


def test_more_dropout_than_the_threshold_aborts_with_nothing_aggregated() -> None:
    nodes = [1, 2, 3, 4, 5]
    updates = _updates(nodes, seed=4)
    settings = SecAggSettings(1.0, 0.8, clipping_range=1.0, max_weight=1.0)  # 4 of 5
    with pytest.raises(RoundAbortedError, match="round 1 was aborted") as info:
        _round(updates, settings, drop={1, 2})
    assert info.value.round_number == 1
    assert "--secagg-threshold" in str(info.value)


@pytest.mark.parametrize(
    ("shares", "threshold", "message"),
    [
        (2.0, 0.6, "at least 3"),
        (1.0, 0.5, "more than half"),
        (5.0, 2.0, "more than half"),
        (5.0, 5.0, "less than it"),
        (3.5, 0.6, "whole number"),
        (1.0, 0.0, "positive"),
        (float("nan"), 0.6, "positive"),
    ],
)
def test_invalid_settings_are_refused(shares: float, threshold: float, message: str) -> None:
    with pytest.raises(InputError, match=message):
        SecAggSettings(shares, threshold).check()


def test_the_defaults_survive_30_percent_dropout_wherever_it_falls() -> None:
    settings = SecAggSettings()
    settings.check()
    for n in [*range(3, 31), 50, 100]:
        shares, threshold = settings.resolve(n)
        assert 2 <= threshold < shares <= n, n
        assert threshold > shares / 2, n
        # the worst case puts every vanished client in one neighbourhood: its members left
        # must still reach the threshold
        tolerated = shares - threshold
        assert tolerated >= round(0.3 * n), n  # what --dropout 0.3 drops in a round
        assert tolerated >= math.floor(0.3 * n), n
        if 2 * math.ceil(0.3 * n) + 1 <= n:  # and no larger neighbourhood than that needs
            assert tolerated == math.ceil(0.3 * n), n
            assert shares == 2 * math.ceil(0.3 * n) + 1, n
    assert settings.resolve(2) == (2, 2)  # two clients: both shares needed, none may vanish
    assert settings.resolve(10) == (7, 4)
    assert settings.resolve(3) == (3, 2)
    # an explicit setting is Flower's: all clients, 60 % of them
    assert SecAggSettings(1.0, 0.6).resolve(10) == (10, 6)


def _share_numbers(grid: _MemoryGrid) -> set[int]:
    states = [c.state.config_records.get(RECORD_KEY_STATE) for c in grid.contexts.values()]
    return {int(s["share_num"]) for s in states if s is not None}


@pytest.mark.parametrize("drop", [{1, 2, 3}, {4, 5, 6}, {1, 5, 9}, {8, 9, 10}])
def test_ten_clients_with_the_defaults_lose_three_and_complete(drop: set[int]) -> None:
    # Flower shuffles the ring of neighbours, so each set is somewhere in it; with 7 shares
    # and a threshold of 4 no placement of three vanished clients can stop the round
    nodes = list(range(1, 11))
    updates = _updates(nodes, seed=7)
    mean, finished, grid = _round(
        updates, SecAggSettings(clipping_range=1.0, max_weight=1.0), drop=drop
    )
    assert finished == 7
    alive = [n for n in nodes if n not in drop]
    plain = [np.mean([updates[n][i] for n in alive], axis=0) for i in range(len(SHAPES))]
    assert _max_err(mean, plain) <= 7 * 1.0 / 2**22
    assert _share_numbers(grid) == {7}


def test_three_clients_with_the_defaults_lose_one_and_complete() -> None:
    # the deployment test's set-up: three SuperNodes, one gone after key sharing
    nodes = [11, 12, 13]
    updates = _updates(nodes, seed=8)
    mean, finished, grid = _round(
        updates, SecAggSettings(clipping_range=1.0, max_weight=1.0), drop={12}
    )
    assert finished == 2
    plain = [np.mean([updates[n][i] for n in (11, 13)], axis=0) for i in range(len(SHAPES))]
    assert _max_err(mean, plain) <= 2 * 1.0 / 2**22
    assert _share_numbers(grid) == {3}


def test_a_count_threshold_needs_a_count_of_shares() -> None:
    with pytest.raises(InputError, match="--secagg-shares as a count"):
        SecAggSettings(None, 4.0).check()
    SecAggSettings(7.0, 4.0).check()
    SecAggSettings(None, 0.6).check()


def test_adaptive_clippings_bits_are_summed_inside_secagg_never_sent_in_clear() -> None:
    # with --adaptive-clip each client appends its centred bit (+-1/2) to its update; the
    # server widens the range to at least 1/2 and gets the sum of the bits with the sum of
    # the updates
    nodes = [1, 2, 3, 4, 5]
    updates = _updates(nodes, seed=6, scale=0.05)
    bits = {1: 0.5, 2: -0.5, 3: 0.5, 4: 0.5, 5: -0.5}
    for n in nodes:
        updates[n].append(np.array([bits[n]], np.float32))
    settings = SecAggSettings(1.0, 0.6, clipping_range=0.5, max_weight=1.0)
    mean, finished, grid = _round(updates, settings)
    assert finished == 5
    assert float(mean[-1][0]) * finished == pytest.approx(sum(bits.values()), abs=1e-4)
    for reply in grid.received:
        assert all(len(rec) == 0 for rec in reply.content.array_records.values())
        # no bit in clear beside the masked vector: the only metric is the weight, 1
        for rec in reply.content.metric_records.values():
            assert dict(rec) == {"num_examples": 1}


def _flowers_own_helpers(side: str) -> dict[str, Any]:
    from flwr.common.secure_aggregation.crypto import shamir
    from flwr.supercore.primitives import asymmetric as keys

    # not the masks: Flower's fold their seed to 32 bits, veil's use all of it, so every
    # party runs veil's (test_secagg_crypto.py)
    both = {
        "bytes_to_private_key": keys.bytes_to_private_key,
        "bytes_to_public_key": keys.bytes_to_public_key,
    }
    if side == "server":
        return {**both, "combine_shares": shamir.combine_shares}
    return {
        **both,
        "create_shares": shamir.create_shares,
        "generate_key_pairs": keys.generate_key_pairs,
    }


@pytest.mark.parametrize("stock", ["server", "client"])
def test_flowers_own_helpers_on_one_side_aggregate_with_veils_on_the_other(
    monkeypatch: pytest.MonkeyPatch, stock: str
) -> None:
    """veil's helpers keep Flower's wire format: shares and keys made on one side are
    read by Flower's own helpers on the other, and a vanished client's mask (its private
    key rebuilt from shares, agreed with its neighbours) is removed either way."""
    import sys

    from veil.federated._secagg_crypto import install

    install()
    name = {
        "server": "flwr.server.workflow.secure_aggregation.secaggplus_workflow",
        "client": "flwr.client.mod.secure_aggregation.secaggplus_mod",
    }[stock]
    for attr, fn in _flowers_own_helpers(stock).items():
        monkeypatch.setattr(sys.modules[name], attr, fn)
    nodes = [10, 20, 30, 40, 50]
    updates = _updates(nodes, seed=9)
    settings = SecAggSettings(1.0, 0.6, clipping_range=1.0, max_weight=1.0)
    mean, finished, _ = _round(updates, settings, drop={40})
    assert finished == 4
    alive = [10, 20, 30, 50]
    plain = [np.mean([updates[n][i] for n in alive], axis=0) for i in range(len(SHAPES))]
    assert _max_err(mean, plain) <= 4 * 1.0 / 2**22


@pytest.mark.parametrize(
    ("drop", "rows", "mixed"),
    [(set(), None, False), ({30}, {10: 3, 20: 7, 30: 1, 40: 9, 50: 5}, False), (set(), None, True)],
)
def test_the_flat_masked_vector_stage_is_flowers_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, drop: set[int], rows: dict[int, int] | None, mixed: bool
) -> None:
    """veil's masked-vector stage against Flower's on the same state, configs, update and
    rounding draws: the same masked arrays byte for byte, the same key shares kept (also
    with a client vanishing at this stage, weighted; arrays of two dtypes: Flower's own
    stage runs)."""
    import sys

    from veil.federated import _secagg_crypto as fast

    fast.install()
    module = sys.modules["flwr.client.mod.secure_aggregation.secaggplus_mod"]
    flowers = fast._flower_stage
    assert module._collect_masked_vectors is fast.collect_masked_vectors
    assert flowers is not None and flowers is not fast.collect_masked_vectors
    compared: list[int] = []

    def both(state: Any, configs: Any, num_examples: int, parameters: Any) -> Any:
        theirs_state = copy.deepcopy(state)
        seed = 1000 + len(compared)
        np.random.seed(seed)
        theirs = flowers(theirs_state, configs, num_examples, parameters)
        np.random.seed(seed)
        ours = fast.collect_masked_vectors(state, configs, num_examples, parameters)
        assert ours[Key.MASKED_PARAMETERS] == theirs[Key.MASKED_PARAMETERS]
        assert state.rd_seed_share_dict == theirs_state.rd_seed_share_dict
        assert state.sk1_share_dict == theirs_state.sk1_share_dict
        compared.append(len(configs[Key.SOURCE_LIST]))
        return ours

    monkeypatch.setattr(module, "_collect_masked_vectors", both)
    nodes = [10, 20, 30, 40, 50]
    updates = _updates(nodes, seed=11)
    if mixed:
        for n in nodes:
            updates[n][1] = updates[n][1].astype(np.float64)
    settings = SecAggSettings(1.0, 0.6, clipping_range=1.0, max_weight=10.0)
    mean, finished, _ = _round(updates, settings, rows, drop)
    alive = [n for n in nodes if n not in drop]
    assert finished == len(alive) and len(compared) == len(alive)
    # shares forwarded from every other client that shared its keys, the vanished one too
    assert all(k == len(nodes) - 1 for k in compared)
    w = rows or dict.fromkeys(nodes, 1)
    plain = [
        sum(w[n] * updates[n][i] for n in alive) / sum(w[n] for n in alive)
        for i in range(len(SHAPES))
    ]
    assert _max_err(mean, plain) <= 1e-5
