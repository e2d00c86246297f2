"""SecAgg+ without its setup exchange in steady state: next round's keys made at unmasking.

A SecAgg+ round (Flower's ``SecAggPlusWorkflow`` and ``secaggplus_mod``) has four exchanges
with every client: setup (the round's settings out, each client's two fresh public keys
back), key sharing, masked vectors (with the local training) and unmasking. The setup
carries no work of its own to speak of: in a simulation its cost is the messaging through
Flower's engine (about 8 ms a round at 10 clients on an idle 2-core machine, a twelfth of
a plain round). Here a client makes its key pairs for its *next* round when it answers
this round's unmasking, keeps the private keys in its own state, and sends the two public
keys with its unmasking reply; in the next round the server sends the setup's settings
with the key-sharing message instead of on their own, and the client runs Flower's setup
on them with the keys it made (:func:`veil.federated._secagg_crypto.keys_ahead`), then the
key sharing. The round has three exchanges.

The protocol is unchanged: every round has its own fresh key pairs (made once, used for
one round and dropped: the server forgets the public keys it was sent when the next round
starts, the client its private keys when they are used or when a full setup arrives),
fresh mask seeds and shares; the server learns the public keys one exchange earlier, and
nothing else. Whoever was not in the previous round's unmasking (the first round, a client
not sampled, one that vanished, a round that was aborted before it) gets the full setup
exchange, as does every client when the server does not ask (veil's deployed server keeps
Flower's four exchanges: :func:`veil.federated._secagg.secagg_round` asks only where the
caller passes a :class:`KeyPrefetch`, which the simulation does). A client asked to run a
setup it has no keys for (its state lost) fails that message: the server counts it as a
client that vanished before sharing its keys, as it would a setup timeout.

Server side: :class:`KeyPrefetch` keeps the public keys between rounds and wraps the grid
for the workflow's three stages that change (:mod:`veil.federated._secagg`'s ``_workflow``).
Client side: :func:`secaggplus_mod`, veil's ``secaggplus_mod`` that answers both.
"""

from __future__ import annotations

from typing import Any

from veil.federated._secagg_crypto import install, keys_ahead
from veil.federated._secagg_crypto import secaggplus_mod as _flower_mod

__all__ = ["NEXT_KEYS", "SETUP", "KeyPrefetch", "secaggplus_mod"]

SETUP = "veil.secaggplus.setup"  # in a key-sharing message: this round's setup settings
NEXT_KEYS = "veil.secaggplus.next-keys"  # in an unmask message (asked) and its reply (keys)
_AHEAD = "veil.secaggplus.keys-ahead"  # in a client's state: its next round's private keys


def _records(msg: Any) -> Any:
    return msg.content.config_records if msg.has_content() else {}


def _pairs_for_next_round(context: Any) -> dict[str, Any]:
    """Make and keep a client's two key pairs of its next round; its public keys."""
    from flwr.app import ConfigRecord
    from flwr.supercore.primitives.asymmetric import private_key_to_bytes, public_key_to_bytes

    from veil.federated._secagg_crypto import generate_key_pairs

    private: list[bytes] = []
    public: dict[str, Any] = {}
    for name in ("pk1", "pk2"):
        sk, pk = generate_key_pairs()
        private.append(private_key_to_bytes(sk))
        public[name] = public_key_to_bytes(pk)
    context.state.config_records[_AHEAD] = ConfigRecord({"sk1": private[0], "sk2": private[1]})
    return public


def secaggplus_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Flower's ``secaggplus_mod`` (with veil's helpers) that also makes keys a round ahead.

    - an unmask message that asks (:data:`NEXT_KEYS`): Flower's unmasking, then two fresh
      key pairs for the next round, private keys kept, public keys sent with the reply;
    - a key-sharing message with the round's setup settings (:data:`SETUP`): Flower's setup
      on them with the pairs kept (its reply, the public keys, is the server's already),
      then Flower's key sharing; no pairs kept is an error (the server drops the client);
    - a full setup: the pairs kept, if any, are dropped (the setup makes its own);
    - anything else: Flower's mod unchanged.
    """
    from flwr.app import ConfigRecord, MessageType, RecordDict
    from flwr.common.secure_aggregation.secaggplus_constants import (
        RECORD_KEY_CONFIGS,
        Key,
        Stage,
    )

    install()
    if msg.metadata.message_type != MessageType.TRAIN:
        return _flower_mod(msg, context, call_next)
    records = _records(msg)
    configs = records.get(RECORD_KEY_CONFIGS)
    stage = None if configs is None else configs.get(Key.STAGE)
    kept = context.state.config_records
    if stage == Stage.SETUP:
        if _AHEAD in kept:
            del context.state[_AHEAD]
        return _flower_mod(msg, context, call_next)
    if stage == Stage.SHARE_KEYS and SETUP in records:
        setup = records[SETUP]
        del msg.content[SETUP]
        if _AHEAD not in kept:
            raise ValueError(
                "SecAgg+: the server sent this round's setup with the key sharing, but this "
                "client kept no key pairs from its previous round's unmasking; it needs a "
                "full setup (it is counted as vanished for this round)"
            )
        ahead = kept[_AHEAD]
        del context.state[_AHEAD]  # used for this round only, whatever happens next
        sharing = msg.content
        msg.content = RecordDict({RECORD_KEY_CONFIGS: ConfigRecord(dict(setup))})
        try:
            with keys_ahead([ahead["sk1"], ahead["sk2"]]):
                _flower_mod(msg, context, call_next)
        finally:
            msg.content = sharing
        return _flower_mod(msg, context, call_next)
    if stage == Stage.UNMASK and NEXT_KEYS in records:
        del msg.content[NEXT_KEYS]
        reply = _flower_mod(msg, context, call_next)
        if reply.has_content():
            reply.content[NEXT_KEYS] = ConfigRecord(_pairs_for_next_round(context))
        return reply
    return _flower_mod(msg, context, call_next)


class KeyPrefetch:
    """The server's side: public keys clients sent for their next round, between rounds.

    One per run, handed to every :func:`veil.federated._secagg.secagg_round`. The keys a
    round's unmasking brought in are used by the next round only: :meth:`take` empties
    the store when that round's setup starts.
    """

    def __init__(self) -> None:
        self._keys: dict[int, tuple[bytes, bytes]] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def take(self) -> dict[int, tuple[bytes, bytes]]:
        """The stored public keys by node, forgotten here."""
        keys, self._keys = self._keys, {}
        return keys

    def unmask_grid(self, grid: Any) -> Any:
        """A grid for the unmask stage: asks every client for its next round's keys."""
        return _UnmaskGrid(grid, self._keys)


class _Grid:
    def __init__(self, grid: Any) -> None:
        self._grid = grid

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)


class SetupGrid(_Grid):
    """The setup stage's grid: clients with keys in ``ahead`` answered a round early.

    Their setup messages are not sent; each gets, as its reply, the public keys it sent
    with its last unmasking. The settings those messages held are kept (:attr:`setup`,
    the same for every client), with the nodes (:attr:`held`), for the key-sharing
    messages (:class:`ShareKeysGrid`). The other clients get the setup exchange.
    """

    def __init__(self, grid: Any, ahead: dict[int, tuple[bytes, bytes]]) -> None:
        super().__init__(grid)
        self._ahead = ahead
        self.setup: dict[str, Any] | None = None
        self.held: set[int] = set()

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        from flwr.app import ConfigRecord, Message, RecordDict
        from flwr.common.secure_aggregation.secaggplus_constants import RECORD_KEY_CONFIGS, Key

        send, early = [], []
        for m in messages:
            nid = m.metadata.dst_node_id
            if nid not in self._ahead:
                send.append(m)
                continue
            self.held.add(nid)
            self.setup = dict(m.content.config_records[RECORD_KEY_CONFIGS])
            pk1, pk2 = self._ahead[nid]
            keys = ConfigRecord({Key.PUBLIC_KEY_1: pk1, Key.PUBLIC_KEY_2: pk2})
            early.append(Message(RecordDict({RECORD_KEY_CONFIGS: keys}), reply_to=m))
        replies = list(self._grid.send_and_receive(send, timeout=timeout)) if send else []
        return early + replies


class ShareKeysGrid(_Grid):
    """The key-sharing stage's grid: the setup settings go along to the ``held`` nodes."""

    def __init__(self, grid: Any, held: set[int], setup: dict[str, Any]) -> None:
        super().__init__(grid)
        self._held = held
        self._setup = setup

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        from flwr.app import ConfigRecord

        messages = list(messages)
        for m in messages:
            if m.metadata.dst_node_id in self._held:
                m.content[SETUP] = ConfigRecord(dict(self._setup))
        return list(self._grid.send_and_receive(messages, timeout=timeout))


class _UnmaskGrid(_Grid):
    def __init__(self, grid: Any, store: dict[int, tuple[bytes, bytes]]) -> None:
        super().__init__(grid)
        self._store = store

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        from flwr.app import ConfigRecord

        messages = list(messages)
        for m in messages:
            m.content[NEXT_KEYS] = ConfigRecord({"request": True})
        replies = list(self._grid.send_and_receive(messages, timeout=timeout))
        for reply in replies:
            keys = _records(reply).get(NEXT_KEYS)
            if keys is None:
                continue  # an error, or a client that does not make keys ahead
            pk1, pk2 = keys.get("pk1"), keys.get("pk2")
            if isinstance(pk1, bytes) and isinstance(pk2, bytes) and pk1 and pk2:
                self._store[int(reply.metadata.src_node_id)] = (pk1, pk2)
        return replies
