"""SecAgg+ without its setup and key-sharing exchanges in steady state.

A SecAgg+ round (Flower's ``SecAggPlusWorkflow`` and ``secaggplus_mod``) has four exchanges
with every client: setup (the round's settings out, each client's two fresh public keys
back), key sharing (the neighbours' public keys out, each client's key shares back,
encrypted to each neighbour), masked vectors (with the local training) and unmasking. The
first two carry little work: in a simulation their cost is mostly the messaging through
Flower's engine. Here they ride on the round before:

- a client makes its key pairs for its *next* round when it answers this round's
  masked-vector message, keeps the private keys in its own state and sends the two public
  keys with its masked vector (:data:`NEXT_KEYS`);
- when the server knows the next round's clients at this round's unmasking (the simulation
  draws them then: the same clients for a seed), and every one of them sent its next keys
  and gets an unmask message, it runs the next round's setup on those keys (no message),
  and sends the next round's key sharing (the neighbours' public keys and the setup's
  settings) inside each unmask message (:data:`NEXT_SHARE`, :data:`SETUP`); the client
  unmasks, runs Flower's setup on the settings with the keys it made
  (:func:`veil.federated._secagg_crypto.keys_ahead`) and Flower's key sharing, and sends
  its encrypted shares back with its unmasking reply. The next round starts at the masked
  vectors: two exchanges a round;
- otherwise the next round's setup settings go with its key-sharing message to the clients
  whose keys came ahead, who run Flower's setup then its key sharing: three exchanges.

The protocol is unchanged: every round has its own fresh key pairs (made once, used for
one round and dropped: the server forgets the public keys it was sent when the next round
starts, the client its private keys when they are used or when a full setup arrives),
fresh mask seeds and shares, encrypted to each neighbour with that round's keys, the same
threshold; the server learns the public keys and the shares' ciphertexts one or two
exchanges earlier, and nothing else. A key sharing done ahead serves only the next secure
round, and only if it has the clients and settings it was made for; it is dropped when
the round before it is aborted. Whoever was not in the previous round's masked vectors (the first round, a
client not sampled, one that vanished, a round that was aborted before them) gets the
full setup exchange, as does every client when the server does not ask (veil's deployed
server keeps Flower's four exchanges: :func:`veil.federated._secagg.secagg_round` asks
only where the caller passes a :class:`KeyPrefetch`, which the simulation does). A client
asked to run a setup it has no keys for (its state lost), or whose own public keys the
server misquotes (a replay), fails that part: the server counts it as a client that
vanished before sharing its keys, as it would a setup timeout.

Server side: :class:`KeyPrefetch` keeps the public keys and the key sharing done ahead
between rounds and wraps the grid for the workflow's stages (:mod:`veil.federated._secagg`'s
``_workflow``). Client side: :func:`secaggplus_mod`, veil's ``secaggplus_mod`` that
answers all of these.
"""

from __future__ import annotations

from typing import Any

from veil.federated._secagg_crypto import install, keys_ahead
from veil.federated._secagg_crypto import secaggplus_mod as _flower_mod

__all__ = ["NEXT_KEYS", "NEXT_SHARE", "SETUP", "KeyPrefetch", "secaggplus_mod"]

SETUP = "veil.secaggplus.setup"  # with a key sharing: that round's setup settings
NEXT_KEYS = "veil.secaggplus.next-keys"  # in a masked-vector message (asked) and its reply
NEXT_SHARE = "veil.secaggplus.next-share"  # in an unmask message and its reply: next round's
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


def _next_round(msg: Any, context: Any, call_next: Any, setup: Any, sharing: Any) -> Any:
    """Flower's setup (with the pairs kept) then its key sharing; the key sharing's reply."""
    from flwr.app import ConfigRecord, RecordDict
    from flwr.common.secure_aggregation.secaggplus_constants import RECORD_KEY_CONFIGS

    kept = context.state.config_records
    if _AHEAD not in kept:
        raise ValueError(
            "SecAgg+: the server sent this round's setup with the key sharing, but this "
            "client kept no key pairs from its previous round; it needs a full setup "
            "(it is counted as vanished for this round)"
        )
    ahead = kept[_AHEAD]
    del context.state[_AHEAD]  # used for this round only, whatever happens next
    content = msg.content
    try:
        msg.content = RecordDict({RECORD_KEY_CONFIGS: ConfigRecord(dict(setup))})
        with keys_ahead([ahead["sk1"], ahead["sk2"]]):
            _flower_mod(msg, context, call_next)
        msg.content = RecordDict({RECORD_KEY_CONFIGS: ConfigRecord(dict(sharing))})
        return _flower_mod(msg, context, call_next)
    finally:
        msg.content = content


def secaggplus_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Flower's ``secaggplus_mod`` (with veil's helpers) that also makes keys a round ahead.

    - a masked-vector message that asks (:data:`NEXT_KEYS`): Flower's stage (the local
      training, the masking), then two fresh key pairs for the next round, private keys
      kept, public keys sent with the reply;
    - a key-sharing message with the round's setup settings (:data:`SETUP`): Flower's setup
      on them with the pairs kept (its reply, the public keys, is the server's already),
      then Flower's key sharing; no pairs kept is an error (the server drops the client);
    - an unmask message that carries the next round's key sharing (:data:`NEXT_SHARE`, with
      :data:`SETUP`): Flower's unmasking, then, for the next round, Flower's setup with the
      pairs kept and its key sharing, whose reply goes back under :data:`NEXT_SHARE`; if
      that part fails (no pairs kept, its keys misquoted), the unmasking's reply goes back
      alone and the server counts the client as vanished before the next round's key
      sharing;
    - a full setup: the pairs kept, if any, are dropped (the setup makes its own);
    - anything else: Flower's mod unchanged.
    """
    from flwr.app import ConfigRecord, MessageType
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
        sharing = dict(msg.content.config_records[RECORD_KEY_CONFIGS])
        return _next_round(msg, context, call_next, setup, sharing)
    if stage == Stage.COLLECT_MASKED_VECTORS and NEXT_KEYS in records:
        del msg.content[NEXT_KEYS]
        reply = _flower_mod(msg, context, call_next)
        if reply.has_content():
            reply.content[NEXT_KEYS] = ConfigRecord(_pairs_for_next_round(context))
        return reply
    if stage == Stage.UNMASK and NEXT_SHARE in records:
        sharing, setup = records[NEXT_SHARE], records.get(SETUP)
        del msg.content[NEXT_SHARE]
        if setup is not None:
            del msg.content[SETUP]
        reply = _flower_mod(msg, context, call_next)
        if not reply.has_content() or setup is None:
            return reply
        try:
            shared = _next_round(msg, context, call_next, setup, sharing)
        except Exception:  # noqa: BLE001 - the next round's part only: the server drops it
            if _AHEAD in context.state.config_records:
                del context.state[_AHEAD]
            return reply
        reply.content[NEXT_SHARE] = ConfigRecord(
            dict(shared.content.config_records[RECORD_KEY_CONFIGS])
        )
        return reply
    return _flower_mod(msg, context, call_next)


class KeyPrefetch:
    """The server's side, between rounds: clients' public keys for their next round, and
    the next round's key sharing when it was done with this round's unmasking.

    One per run, handed to every :func:`veil.federated._secagg.secagg_round`. The keys a
    round's masked-vector stage brought in serve the next round only: :meth:`take` empties
    the store when that round's setup starts. A key sharing done ahead (:attr:`ahead`)
    serves the next round, with the same clients and settings, or nobody.
    """

    def __init__(self) -> None:
        self._keys: dict[int, tuple[bytes, bytes]] = {}
        self.ahead: Any = None  # set by veil.federated._secagg: the next round's key sharing

    def __len__(self) -> int:
        return len(self._keys)

    def take(self) -> dict[int, tuple[bytes, bytes]]:
        """The stored public keys by node, forgotten here."""
        keys, self._keys = self._keys, {}
        return keys

    def claim(self, nodes: Any) -> dict[int, tuple[bytes, bytes]] | None:
        """The stored public keys of ``nodes``, forgotten here; ``None`` (and nothing
        forgotten) unless every one of them sent its keys."""
        if not all(nid in self._keys for nid in nodes):
            return None
        return {nid: self._keys.pop(nid) for nid in nodes}

    def take_ahead(self) -> Any:
        """The key sharing done ahead, if any, forgotten here."""
        ahead, self.ahead = self.ahead, None
        return ahead

    def masked_grid(self, grid: Any) -> Any:
        """A grid for the masked-vector stage: asks every client for its next round's keys."""
        return _MaskedGrid(grid, self._keys)

    def unmask_grid(self, grid: Any, fold: Any = None) -> Any:
        """A grid for the unmask stage; ``fold``, if given, is called with a grid that sends
        the next round's key sharing along with the unmasking (:class:`FoldGrid`)."""
        return _UnmaskGrid(grid, fold)


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


class _MaskedGrid(_Grid):
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
            del reply.content[NEXT_KEYS]
            pk1, pk2 = keys.get("pk1"), keys.get("pk2")
            if isinstance(pk1, bytes) and isinstance(pk2, bytes) and pk1 and pk2:
                self._store[int(reply.metadata.src_node_id)] = (pk1, pk2)
        return replies


class FoldGrid(_Grid):
    """The next round's key sharing sent with this round's unmask messages, one exchange.

    Holds the unmask messages (:attr:`recipients`: their nodes). The next round's setup
    stage, run on a :class:`SetupGrid` whose clients all made their keys ahead, sends
    nothing; its key-sharing stage calls :meth:`send_and_receive` here with its messages:
    each is put into its node's unmask message (:data:`NEXT_SHARE`, with the setup's
    settings under :data:`SETUP`), the merged messages are sent once, and each reply is
    split: the key sharing's part goes back to that stage (an error for a client whose
    reply has none), the unmasking's is kept in :attr:`replies` for the unmask stage.
    """

    def __init__(
        self, grid: Any, messages: list[Any], setup: dict[str, Any], timeout: float | None
    ) -> None:
        super().__init__(grid)
        self._messages = messages
        self._setup = setup
        self._timeout = timeout
        self.recipients = {int(m.metadata.dst_node_id) for m in messages}
        self.replies: list[Any] | None = None

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        from flwr.app import ConfigRecord, Error, Message, RecordDict
        from flwr.common.secure_aggregation.secaggplus_constants import RECORD_KEY_CONFIGS

        if self.replies is not None:
            raise RuntimeError("FoldGrid sends one exchange")
        sharing = {int(m.metadata.dst_node_id): m for m in messages}
        for m in self._messages:
            share = sharing.get(int(m.metadata.dst_node_id))
            if share is not None:
                cfg = share.content.config_records[RECORD_KEY_CONFIGS]
                m.content[NEXT_SHARE] = ConfigRecord(dict(cfg))
                m.content[SETUP] = ConfigRecord(dict(self._setup))
        self.replies = list(self._grid.send_and_receive(self._messages, timeout=self._timeout))
        out = []
        for reply in self.replies:
            nid = int(reply.metadata.src_node_id)
            share = sharing.pop(nid, None)
            if share is None:
                continue
            part = _records(reply).get(NEXT_SHARE)
            if part is None:
                out.append(Message(Error(code=0, reason="no key sharing"), reply_to=share))
                continue
            del reply.content[NEXT_SHARE]
            out.append(Message(RecordDict({RECORD_KEY_CONFIGS: part}), reply_to=share))
        for share in sharing.values():  # no unmask message to carry it, or no reply
            out.append(Message(Error(code=0, reason="no key sharing"), reply_to=share))
        return out


class _UnmaskGrid(_Grid):
    def __init__(self, grid: Any, fold: Any) -> None:
        super().__init__(grid)
        self._fold = fold

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        messages = list(messages)
        if self._fold is not None:
            replies = self._fold(self._grid, messages, timeout)
            if replies is not None:
                return list(replies)
        return list(self._grid.send_and_receive(messages, timeout=timeout))
