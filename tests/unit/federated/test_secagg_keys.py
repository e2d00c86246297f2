"""Consecutive SecAgg+ rounds with keys made a round ahead (``_secagg_keys``), in process.

Flower's real workflow (veil's subclass) and veil's ``secaggplus_mod`` on every client, no
Ray: a small grid hands each message (a deep copy) to its node's mods, with the node's
context kept from round to round, turns a client's exception into its error reply (as
Flower's engine does) and records what was sent and what the server received.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import numpy as np
import pytest
from flwr.app import Context, Error, Message, RecordDict
from flwr.common import Code, FitRes, Status, bytes_to_ndarray, ndarrays_to_parameters
from flwr.common.secure_aggregation.secaggplus_constants import (
    RECORD_KEY_CONFIGS,
    RECORD_KEY_STATE,
    Key,
    Stage,
)
from flwr.compat.common import recorddict_compat as compat

from veil.federated import RoundAbortedError, SecAggSettings
from veil.federated._client import DROP_KEY, dropout_mod
from veil.federated._secagg import KeyPrefetch, secagg_round
from veil.federated._secagg_crypto import generate_key_pairs, keys_ahead
from veil.federated._secagg_keys import NEXT_KEYS, SETUP, secaggplus_mod

SHAPES = [(6, 4), (4,), (2, 4)]
SETTINGS = SecAggSettings(clipping_range=1.0, max_weight=1.0)


def _updates(nodes: list[int], seed: int) -> dict[int, list[Any]]:
    rng = np.random.default_rng(seed)
    return {n: [rng.normal(0, 0.1, s).astype(np.float32) for s in SHAPES] for n in nodes}


class _Clients:
    """The clients of a run: each node's context lives on from one round to the next."""

    def __init__(self, nodes: list[int]) -> None:
        self.contexts = {n: self.fresh(n) for n in nodes}
        self.updates: dict[int, list[Any]] = {}
        self.sent: list[Message] = []
        self.received: list[Message] = []

    @staticmethod
    def fresh(n: int) -> Context:
        return Context(run_id=1, node_id=n, node_config={}, state=RecordDict(), run_config={})

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Message]:
        replies = []
        for sent in messages:
            self.sent.append(sent)
            msg = copy.deepcopy(sent)
            msg.metadata.__dict__["_message_id"] = f"m{len(self.sent)}"
            nid = msg.metadata.dst_node_id

            def fit(m: Message, ctx: Context, nid: int = nid) -> Message:
                params = ndarrays_to_parameters(self.updates[nid])
                res = FitRes(Status(Code.OK, ""), params, 1, {})
                return Message(compat.fitres_to_recorddict(res, True), reply_to=m)

            try:
                reply = dropout_mod(
                    msg, self.contexts[nid], lambda m, c, fit=fit: secaggplus_mod(m, c, fit)
                )
            except Exception as ex:  # the engine's error reply
                reply = Message(Error(code=0, reason=str(ex)), reply_to=msg)
            reply.metadata.__dict__["_src_node_id"] = nid
            replies.append(reply)
        self.received += replies
        return replies

    def stages_sent(self) -> Counter[str]:
        return Counter(
            str(m.content.config_records[RECORD_KEY_CONFIGS][Key.STAGE]) for m in self.sent
        )


pytestmark = pytest.mark.usefixtures("task_identity")


def _round(
    clients: _Clients,
    r: int,
    prefetch: KeyPrefetch | None,
    drop: set[int] = frozenset(),  # type: ignore[assignment]
    nodes: list[int] | None = None,
) -> tuple[list[Any], int, dict[int, list[Any]]]:
    nodes = sorted(clients.contexts) if nodes is None else nodes
    clients.updates = _updates(nodes, seed=r)
    server = Context(run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config={})
    zeros = [np.zeros(s, np.float32) for s in SHAPES]
    fit = {n: (zeros, {"clip": 1.0, DROP_KEY: n in drop}) for n in nodes}
    clients.sent, clients.received = [], []
    mean, finished = secagg_round(clients, server, fit, SETTINGS, r, prefetch=prefetch)
    return mean, finished, clients.updates


def _assert_plain_mean(mean: list[Any], updates: dict[int, list[Any]], alive: list[int]) -> None:
    plain = [np.mean([updates[n][i] for n in alive], axis=0) for i in range(len(SHAPES))]
    err = max(
        float(np.abs(np.asarray(m, np.float64) - p).max()) for m, p in zip(mean, plain, strict=True)
    )
    assert err <= len(alive) * 2.0 / 2**22


def _public_keys(clients: _Clients) -> set[bytes]:
    """The public keys this round's clients used (from their SecAgg+ state)."""
    out = set()
    for ctx in clients.contexts.values():
        state = ctx.state.config_records.get(RECORD_KEY_STATE)
        if state is not None:
            out |= {bytes(state["pk1"]), bytes(state["pk2"])}
    return out


def test_rounds_after_the_first_skip_the_setup_and_aggregate_the_same() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    seen_keys: set[bytes] = set()
    for r in (1, 2, 3):
        mean, finished, updates = _round(clients, r, prefetch)
        assert finished == 10
        _assert_plain_mean(mean, updates, nodes)
        stages = clients.stages_sent()
        # the first round has Flower's setup; later rounds none, its settings ride along
        assert stages[Stage.SETUP] == (10 if r == 1 else 0), r
        assert stages[Stage.SHARE_KEYS] == stages[Stage.UNMASK] == 10
        riding = [m for m in clients.sent if SETUP in m.content.config_records]
        assert len(riding) == (0 if r == 1 else 10)
        # every round's key pairs are new: none was used in an earlier round
        keys = _public_keys(clients)
        assert len(keys) == 20
        assert not keys & seen_keys, r
        seen_keys |= keys
        assert len(prefetch) == 10  # the next round's, sent with this unmasking


def test_the_server_receives_public_keys_early_and_never_an_update_in_clear() -> None:
    nodes = [1, 2, 3, 4, 5]
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    for r in (1, 2):
        _, _, updates = _round(clients, r, prefetch)
        masked = []
        for reply in clients.received:
            assert all(len(rec) == 0 for rec in reply.content.array_records.values())
            # Flower's records (the fit's status and metrics with the masked vector), and
            # the public keys made ahead with the unmasking
            extra = {"fitres.status", "fitres.metrics"}
            assert set(reply.content.config_records) <= {RECORD_KEY_CONFIGS, NEXT_KEYS, *extra}
            if NEXT_KEYS in reply.content.config_records:
                # only the two public keys (PEM), nothing private
                ahead = reply.content.config_records[NEXT_KEYS]
                assert set(ahead) == {"pk1", "pk2"}
                assert all(bytes(v).startswith(b"-----BEGIN PUBLIC KEY") for v in ahead.values())
            cfg = reply.content.config_records[RECORD_KEY_CONFIGS]
            if Key.MASKED_PARAMETERS in cfg:
                masked.append([bytes_to_ndarray(b) for b in cfg[Key.MASKED_PARAMETERS]])
        assert len(masked) == 5
        for vec in masked:
            flat = np.concatenate([v.ravel() for v in vec[1:]]).astype(np.float64)
            for upd in updates.values():
                quantized = np.concatenate([(u.ravel() + 1.0) / 2.0 * 2**22 for u in upd])
                assert np.abs(flat - quantized).mean() > 2**24


def test_after_a_dropout_the_vanished_clients_get_a_full_setup() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch)
    drop = {2, 5, 9}
    mean, finished, updates = _round(clients, 2, prefetch, drop=drop)
    assert finished == 7
    _assert_plain_mean(mean, updates, [n for n in nodes if n not in drop])
    assert clients.stages_sent()[Stage.SETUP] == 0  # all ten had keys from round 1
    mean, finished, updates = _round(clients, 3, prefetch)
    assert finished == 10
    _assert_plain_mean(mean, updates, nodes)
    setups = {m.metadata.dst_node_id for m in clients.sent if _stage(m) == Stage.SETUP}
    assert setups == drop  # they missed round 2's unmasking: no keys made ahead


def _stage(m: Message) -> str:
    return str(m.content.config_records[RECORD_KEY_CONFIGS][Key.STAGE])


def test_clients_not_in_the_last_round_get_a_full_setup() -> None:
    clients = _Clients(list(range(1, 9)))
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch, nodes=[1, 2, 3, 4, 5])
    mean, finished, updates = _round(clients, 2, prefetch, nodes=[4, 5, 6, 7, 8])
    assert finished == 5
    _assert_plain_mean(mean, updates, [4, 5, 6, 7, 8])
    setups = {m.metadata.dst_node_id for m in clients.sent if _stage(m) == Stage.SETUP}
    assert setups == {6, 7, 8}
    # 1-3 were not sampled: the server forgot their keys; their next round sets up in full
    _, finished, _ = _round(clients, 3, prefetch, nodes=[1, 2, 3, 4, 5])
    assert finished == 5
    setups = {m.metadata.dst_node_id for m in clients.sent if _stage(m) == Stage.SETUP}
    assert setups == {1, 2, 3}


def test_a_client_that_lost_its_keys_is_dropped_and_the_round_completes() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch)
    clients.contexts[4] = _Clients.fresh(4)  # restarted: its kept keys are gone
    mean, finished, updates = _round(clients, 2, prefetch)
    assert finished == 9
    _assert_plain_mean(mean, updates, [n for n in nodes if n != 4])
    failed = [m for m in clients.received if m.has_error()]
    assert [m.metadata.src_node_id for m in failed] == [4]
    assert "kept no key pairs" in failed[0].error.reason
    # it missed the unmasking: a full setup next round, and it is back
    _, finished, _ = _round(clients, 3, prefetch)
    assert finished == 10
    assert {m.metadata.dst_node_id for m in clients.sent if _stage(m) == Stage.SETUP} == {4}


def test_kept_keys_serve_one_round_and_a_full_setup_drops_them() -> None:
    nodes = [1, 2, 3, 4]
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch)
    ahead = prefetch.take()
    assert set(ahead) == set(nodes)
    replay = KeyPrefetch()
    replay._keys.update(ahead)
    _, finished, _ = _round(clients, 2, replay)
    assert finished == 4
    # a server that hands round 1's public keys out again in round 3: the clients kept
    # round 3's own pairs (made at round 2's unmasking), see their keys misquoted, refuse
    replay.take()
    replay._keys.update(ahead)
    with pytest.raises(RoundAbortedError, match="round 3 was aborted"):
        _round(clients, 3, replay)
    assert clients.received and all(m.has_error() for m in clients.received)
    assert all("Own public keys" in m.error.reason for m in clients.received)
    # a full setup (no prefetch) makes new keys and drops any kept
    _round(clients, 4, prefetch)  # keys kept again for round 5
    kept = [
        c.state.config_records.get("veil.secaggplus.keys-ahead") for c in clients.contexts.values()
    ]
    assert all(k is not None for k in kept)
    _round(clients, 5, None)
    assert all(
        "veil.secaggplus.keys-ahead" not in c.state.config_records
        for c in clients.contexts.values()
    )


def test_without_a_prefetch_every_round_has_flowers_four_exchanges() -> None:
    nodes = [1, 2, 3, 4, 5]
    clients = _Clients(nodes)
    for r in (1, 2):
        mean, finished, updates = _round(clients, r, None)
        assert finished == 5
        _assert_plain_mean(mean, updates, nodes)
        assert clients.stages_sent()[Stage.SETUP] == 5
        for m in clients.sent + clients.received:
            if m.has_content():
                assert not {SETUP, NEXT_KEYS} & set(m.content.config_records)


def test_keys_ahead_hands_out_the_given_keys_then_fresh_ones() -> None:
    from flwr.supercore.primitives.asymmetric import private_key_to_bytes, public_key_to_bytes

    made = [private_key_to_bytes(generate_key_pairs()[0]) for _ in range(2)]
    with keys_ahead(made):
        got = [generate_key_pairs() for _ in range(3)]
    assert [private_key_to_bytes(sk) for sk, _ in got[:2]] == made
    assert private_key_to_bytes(got[2][0]) not in made
    # the public key is the private key's (a setup sends it; a neighbour agrees with it)
    for sk, pk in got:
        assert public_key_to_bytes(pk) == public_key_to_bytes(sk.public_key())
    assert private_key_to_bytes(generate_key_pairs()[0]) not in made  # outside: fresh
