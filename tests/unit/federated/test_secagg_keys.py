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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.federated import RoundAbortedError, SecAggSettings
from veil.federated._client import DROP_KEY, dropout_mod
from veil.federated._secagg import KeyPrefetch, secagg_round
from veil.federated._secagg_crypto import generate_key_pairs, keys_ahead
from veil.federated._secagg_keys import NEXT_KEYS, NEXT_SHARE, SETUP, secaggplus_mod

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
        self.exchanges = 0
        self.masked_with: list[bytes] = []  # the public keys of the masked vectors' states
        self.lose_shares: set[int] = set()  # these clients' unmask replies lose their shares

    @staticmethod
    def fresh(n: int) -> Context:
        return Context(run_id=1, node_id=n, node_config={}, state=RecordDict(), run_config={})

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Message]:
        self.exchanges += 1
        replies = []
        for sent in messages:
            self.sent.append(sent)
            msg = copy.deepcopy(sent)
            msg.metadata.__dict__["_message_id"] = f"m{len(self.sent)}"
            nid = msg.metadata.dst_node_id
            state = self.contexts[nid].state.config_records.get(RECORD_KEY_STATE)
            if state is not None and _stage(msg) == Stage.COLLECT_MASKED_VECTORS:
                self.masked_with += [bytes(state["pk1"]), bytes(state["pk2"])]

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
            if nid in self.lose_shares and reply.has_content():
                cfg = reply.content.config_records[RECORD_KEY_CONFIGS]
                if Key.SHARE_LIST in cfg:
                    cfg[Key.SHARE_LIST], cfg[Key.NODE_ID_LIST] = [], []
            reply.metadata.__dict__["_src_node_id"] = nid
            replies.append(reply)
        self.received += copy.deepcopy(replies)  # as sent: the server's grids take parts out
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
    following: list[int] | None = None,
) -> tuple[list[Any], int, dict[int, list[Any]]]:
    nodes = sorted(clients.contexts) if nodes is None else nodes
    clients.updates = _updates(nodes, seed=r)
    server = Context(run_id=1, node_id=0, node_config={}, state=RecordDict(), run_config={})
    zeros = [np.zeros(s, np.float32) for s in SHAPES]
    fit = {n: (zeros, {"clip": 1.0, DROP_KEY: n in drop}) for n in nodes}
    clients.sent, clients.received, clients.exchanges = [], [], 0
    clients.masked_with = []
    mean, finished = secagg_round(
        clients, server, fit, SETTINGS, r, prefetch=prefetch, next_clients=following
    )
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


@pytest.mark.parametrize("fold", [False, True], ids=["three", "two"])
def test_the_server_receives_public_keys_early_and_never_an_update_in_clear(fold: bool) -> None:
    nodes = [1, 2, 3, 4, 5]
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    for r in (1, 2, 3):
        _, _, updates = _round(clients, r, prefetch, following=nodes if fold else None)
        masked = []
        for reply in clients.received:
            assert all(len(rec) == 0 for rec in reply.content.array_records.values())
            # Flower's records (the fit's status and metrics with the masked vector), the
            # public keys made ahead with the masked vector, the next round's key sharing
            # with the unmasking
            extra = {"fitres.status", "fitres.metrics"}
            allowed = {RECORD_KEY_CONFIGS, NEXT_KEYS, NEXT_SHARE, *extra}
            assert set(reply.content.config_records) <= allowed
            if NEXT_KEYS in reply.content.config_records:
                # only the two public keys (PEM), nothing private
                ahead = reply.content.config_records[NEXT_KEYS]
                assert set(ahead) == {"pk1", "pk2"}
                assert all(bytes(v).startswith(b"-----BEGIN PUBLIC KEY") for v in ahead.values())
            if NEXT_SHARE in reply.content.config_records:
                # Flower's key-sharing reply: ciphertexts, each for one neighbour
                assert fold
                shared = reply.content.config_records[NEXT_SHARE]
                assert set(shared) == {Key.DESTINATION_LIST, Key.CIPHERTEXT_LIST}
                assert len(shared[Key.CIPHERTEXT_LIST]) == len(nodes) - 1
                assert reply.metadata.src_node_id not in shared[Key.DESTINATION_LIST]
            cfg = reply.content.config_records[RECORD_KEY_CONFIGS]
            if Key.MASKED_PARAMETERS in cfg:
                masked.append([bytes_to_ndarray(b) for b in cfg[Key.MASKED_PARAMETERS]])
        assert len(masked) == 5
        for vec in masked:
            flat = np.concatenate([v.ravel() for v in vec[1:]]).astype(np.float64)
            for upd in updates.values():
                quantized = np.concatenate([(u.ravel() + 1.0) / 2.0 * 2**22 for u in upd])
                assert np.abs(flat - quantized).mean() > 2**24


def test_with_the_next_rounds_clients_known_rounds_have_two_exchanges() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    seen_keys: set[bytes] = set()
    for r in (1, 2, 3, 4):
        following = nodes if r < 4 else None
        mean, finished, updates = _round(clients, r, prefetch, following=following)
        assert finished == 10
        _assert_plain_mean(mean, updates, nodes)
        stages = clients.stages_sent()
        # the first round sets up and shares keys; later rounds did both with the last
        # unmasking: masked vectors and unmasking only
        assert clients.exchanges == (4 if r == 1 else 2), r
        assert stages[Stage.SETUP] == stages[Stage.SHARE_KEYS] == (10 if r == 1 else 0), r
        assert stages[Stage.COLLECT_MASKED_VECTORS] == stages[Stage.UNMASK] == 10
        unmasks = [m for m in clients.sent if _stage(m) == Stage.UNMASK]
        carrying = [m for m in unmasks if NEXT_SHARE in m.content.config_records]
        assert len(carrying) == (10 if following else 0)
        # the keys the clients used this round are their own, fresh, used once
        keys = set(clients.masked_with)
        assert len(keys) == 20
        assert not keys & seen_keys, r
        seen_keys |= keys
    # the last round had no next round to share keys for: nothing is held for one
    assert prefetch.take_ahead() is None


def test_the_next_round_shares_keys_with_the_unmasking_only_if_all_its_clients_can() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch, following=nodes)
    # 2, 5 and 9 vanish in round 2 (keys shared in round 1): no keys of theirs for round 3,
    # so round 3's key sharing cannot go with round 2's unmasking
    drop = {2, 5, 9}
    mean, finished, updates = _round(clients, 2, prefetch, drop=drop, following=nodes)
    assert finished == 7
    _assert_plain_mean(mean, updates, [n for n in nodes if n not in drop])
    assert clients.exchanges == 2
    assert not [m for m in clients.sent if NEXT_SHARE in m.content.config_records]
    # round 3: the seven set up with their keys made ahead, the three in full
    mean, finished, updates = _round(clients, 3, prefetch, following=nodes[:6])
    assert finished == 10
    _assert_plain_mean(mean, updates, nodes)
    assert clients.exchanges == 4
    setups = {m.metadata.dst_node_id for m in clients.sent if _stage(m) == Stage.SETUP}
    assert setups == drop
    # round 4's clients (six of them) all unmasked in round 3: two exchanges, and a
    # dropout after the key sharing done ahead is recovered
    mean, finished, updates = _round(clients, 4, prefetch, drop={3}, nodes=nodes[:6])
    assert clients.exchanges == 2
    assert finished == 5
    _assert_plain_mean(mean, updates, [1, 2, 4, 5, 6])


def test_key_sharing_done_ahead_serves_only_its_own_round_and_clients() -> None:
    nodes = list(range(1, 8))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch, following=nodes)
    # the server samples other clients after all: the sharing done ahead is not used
    mean, finished, updates = _round(clients, 2, prefetch, nodes=nodes[:5])
    assert finished == 5
    _assert_plain_mean(mean, updates, nodes[:5])
    assert clients.exchanges == 4  # the setup exchange again
    assert clients.stages_sent()[Stage.SETUP] == 5
    assert prefetch.take_ahead() is None


def test_after_an_aborted_round_the_key_sharing_done_ahead_is_dropped() -> None:
    nodes = list(range(1, 11))
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch, following=nodes)
    # round 2's unmasking loses most shares: aborted after its unmasking shared round 3's keys
    clients.lose_shares = set(nodes[:7])
    with pytest.raises(RoundAbortedError, match="round 2 was aborted"):
        _round(clients, 2, prefetch, following=nodes)
    assert [m for m in clients.sent if NEXT_SHARE in m.content.config_records]
    assert prefetch.take_ahead() is None
    clients.lose_shares = set()
    mean, finished, updates = _round(clients, 3, prefetch, following=nodes)
    assert finished == 10
    _assert_plain_mean(mean, updates, nodes)
    assert clients.stages_sent()[Stage.SETUP] == 10  # a full setup


class _ReplayPrefetch(KeyPrefetch):
    """A server that may quote old public keys when it shares the next round's keys ahead."""

    def __init__(self) -> None:
        super().__init__()
        self.replayed: dict[int, tuple[bytes, bytes]] = {}

    def claim(self, nodes: Any) -> dict[int, tuple[bytes, bytes]] | None:
        held = super().claim(nodes)
        if held is None or not self.replayed:
            return held
        return {nid: self.replayed[nid] for nid in nodes}


def test_clients_refuse_a_key_sharing_ahead_that_quotes_old_keys() -> None:
    nodes = [1, 2, 3, 4, 5]
    clients = _Clients(nodes)
    prefetch = _ReplayPrefetch()
    _round(clients, 1, prefetch)
    old = dict(prefetch._keys)  # round 2's public keys
    _round(clients, 2, prefetch, following=nodes)  # round 3's key sharing ahead, honest
    assert prefetch.ahead is not None
    # in round 3 (two exchanges) the server shares round 4's keys ahead quoting round 2's
    prefetch.replayed = old
    mean, finished, updates = _round(clients, 3, prefetch, following=nodes)
    assert clients.exchanges == 2
    assert finished == 5  # the unmasking itself went through
    _assert_plain_mean(mean, updates, nodes)
    unmasks = [m for m in clients.received if Key.SHARE_LIST in _configs(m)]
    assert len(unmasks) == 5
    assert not [m for m in unmasks if NEXT_SHARE in m.content.config_records]  # all refused
    assert prefetch.take_ahead() is None
    # round 4 sets up in full, with fresh keys
    _, finished, _ = _round(clients, 4, prefetch)
    assert finished == 5
    assert clients.stages_sent()[Stage.SETUP] == 5
    assert not set(clients.masked_with) & {k for pair in old.values() for k in pair}


def _configs(m: Message) -> Any:
    return m.content.config_records[RECORD_KEY_CONFIGS] if m.has_content() else {}


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


@st.composite
def _schedules(draw: Any) -> list[tuple[list[int], set[int]]]:
    """Three rounds over clients 1..7: each round's sample (at least 3) and who vanishes
    (at most the 30 % the default settings survive)."""
    rounds = []
    for _ in range(3):
        sample = sorted(draw(st.sets(st.integers(1, 7), min_size=3, max_size=7)))
        drop = draw(st.sets(st.sampled_from(sample), max_size=int(0.3 * len(sample))))
        rounds.append((sample, drop))
    return rounds


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schedules())
def test_any_schedule_aggregates_every_round_and_folds_exactly_when_it_can(
    schedule: list[tuple[list[int], set[int]]],
) -> None:
    clients = _Clients(list(range(1, 8)))
    prefetch = KeyPrefetch()
    survivors: set[int] = set()  # the last round's clients that sent masked vectors
    for r, (sample, drop) in enumerate(schedule, start=1):
        following = schedule[r][0] if r < len(schedule) else None
        mean, finished, updates = _round(
            clients, r, prefetch, drop=drop, nodes=sample, following=following
        )
        alive = [n for n in sample if n not in drop]
        assert finished == len(alive)
        _assert_plain_mean(mean, updates, alive)
        # two exchanges exactly when every client of the round unmasked the last one
        assert clients.exchanges == (2 if r > 1 and set(sample) <= survivors else 4)
        survivors = set(alive)


def test_key_sharing_done_ahead_serves_the_next_secure_round_after_plain_ones() -> None:
    # fl_secagg_profile.py alternates plain and SecAgg+ rounds in one run
    nodes = [1, 2, 3, 4, 5]
    clients = _Clients(nodes)
    prefetch = KeyPrefetch()
    _round(clients, 1, prefetch, following=nodes)
    mean, finished, updates = _round(clients, 3, prefetch, following=nodes)
    assert clients.exchanges == 2
    assert finished == 5
    _assert_plain_mean(mean, updates, nodes)
