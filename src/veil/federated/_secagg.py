"""Secure aggregation with SecAgg+ (Bell et al. 2020) through Flower's legacy workflow.

Flower runs SecAgg+ only on its legacy path (``SecAggPlusWorkflow`` with a ``LegacyContext``
and an old-style ``Strategy``); veil's server loop is written with the Message API. Each
round that aggregates securely therefore builds a :class:`_RoundStrategy` that hands the
workflow this round's fit instructions and catches the aggregate it produces, and runs the
workflow for that one round. The server only ever receives public keys, encrypted key
shares (ciphertexts for other clients), masked quantized vectors and the shares needed to
remove the masks: no client's update in clear. The aggregate is exact up to quantization
(``clipping_range / quantization_range`` per coordinate and client).

Settings
--------
``shares``: how many clients each client's secrets are split among (itself included: its
neighbourhood); a number at most 1 is a share of the round's clients (Flower's float form),
a whole number above 1 is a count (at least 3). ``threshold``: how many shares rebuild a
secret; at most 1, a share of ``shares``; above 1, a count below ``shares``. It must be more
than half of the shares, or a dishonest server could collect both the mask seed and the key
of the same client. A round completes only if every sampled client keeps at least
``threshold`` neighbours that reached the masked-vector stage; otherwise it is aborted,
nothing is aggregated, and :class:`RoundAbortedError` says so.

The defaults (``None``) are chosen for each round from its number of clients ``n`` so that
any ``D = ceil(0.3 n)`` of them may vanish after key sharing (:data:`TOLERATED_DROPOUT`):
a neighbourhood of ``s = min(n, 2 D + 1)`` clients and a threshold of ``s // 2 + 1``, the
smallest more than half. Whichever ``D`` clients vanish, every neighbourhood keeps at least
``s - D = D + 1`` of its ``s`` members, which is the threshold, so the masks can be removed;
a smaller neighbourhood could lose more than half of its members to ``D`` dropouts, and a
threshold of half or fewer is refused above. (Where ``2 D + 1 > n``, as with 4 clients, the
neighbourhood is all ``n`` and the round survives ``n - (n // 2 + 1)`` vanished clients,
``floor(0.3 n)`` or more.) At 10 clients that is 7 shares and a threshold of 4, at 3 clients
3 and 2, at 50 clients 31 and 16: each client does key agreement, encryption and masking
with ``s - 1`` neighbours instead of all ``n - 1``.

Known Flower problems handled here: Flower's ``fixedclipping_mod`` divides by the update's
norm (NaN for a zero update), so clients clip with :func:`veil.federated.clip_update`; a
dropped or late client could answer the next round's setup from a stale SecAgg+ state, so
the simulated dropout clears it, and the workflow runs without a timeout in simulation (a
vanished client answers with an error at once, so no reply can arrive after the round).
Flower's workflow counts every sampled client that did not send its masked vector as
dropped, and asks the others for their shares of its key: a client that vanished before it
shared its keys (one that never answered the setup, as a crashed SuperNode still listed
online does) has no such shares, so every other client failed the unmasking and the round
was lost. :func:`_workflow` counts only the clients that shared their keys, as the protocol
does (their pairwise masks are the only ones in the masked vectors).

In simulation the server passes a :class:`KeyPrefetch` and the next round's clients:
clients make their next round's key pairs with this round's masked vectors, and the next
round's key sharing goes with this round's unmasking, so a round whose clients all took
part in the previous one has two exchanges (masked vectors, unmasking) instead of four
(:mod:`veil.federated._secagg_keys`; the protocol unchanged). The deployed server does not,
and keeps Flower's four.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from veil._errors import InputError, VeilError
from veil.federated._secagg_crypto import install
from veil.federated._secagg_keys import FoldGrid, KeyPrefetch, SetupGrid, ShareKeysGrid

__all__ = [
    "TOLERATED_DROPOUT",
    "KeyPrefetch",
    "RoundAbortedError",
    "SecAggSettings",
    "secagg_round",
]

TOLERATED_DROPOUT = 0.3  # the share of a round's clients the default settings survive losing


class RoundAbortedError(VeilError, RuntimeError):
    """A secure-aggregation round could not complete; nothing of it was aggregated."""

    exit_code = 1

    def __init__(self, message: str, *, round_number: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.round_number = round_number


def _as_count_or_share(value: float, flag: str) -> int | float:
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{flag} must be a positive number", hint=f"e.g. {flag} 0.6")
    if value <= 1:
        return float(value)
    if value != int(value):
        raise InputError(
            f"{flag} above 1 is a count and must be a whole number",
            hint="pass a whole number of clients, or a share in (0, 1]",
        )
    return int(value)


@dataclass(frozen=True)
class SecAggSettings:
    """SecAgg+ parameters (see the module docstring); ``clipping_range`` bounds each coordinate.

    ``shares`` or ``threshold`` left ``None`` is chosen for each round (module docstring).
    """

    shares: float | None = None
    threshold: float | None = None
    clipping_range: float = 8.0
    max_weight: float = 1000.0

    def check(self) -> None:
        """Refuse settings Flower would refuse or that give a dishonest server both secrets."""
        shares = None if self.shares is None else _as_count_or_share(self.shares, "--secagg-shares")
        threshold = None
        if self.threshold is not None:
            threshold = _as_count_or_share(self.threshold, "--secagg-threshold")
        if isinstance(shares, int) and shares < 3:
            raise InputError(
                "--secagg-shares as a count must be at least 3",
                hint="pass 3 or more, or a share of the round's clients such as 1.0",
            )
        if isinstance(threshold, float) and threshold <= 0.5:
            raise InputError(
                "--secagg-threshold must be more than half of the shares: with half or fewer, "
                "a dishonest server could rebuild both secrets of one client",
                hint="e.g. --secagg-threshold 0.6",
            )
        if isinstance(threshold, int):
            if isinstance(shares, int) and not shares / 2 < threshold < shares:
                raise InputError(
                    f"--secagg-threshold {threshold} must be more than half of "
                    f"--secagg-shares {shares} and less than it",
                    hint=f"e.g. --secagg-threshold {shares // 2 + 1}",
                )
            if threshold < 2:
                raise InputError("--secagg-threshold as a count must be at least 2")
            if shares is None:
                raise InputError(
                    "--secagg-threshold as a count needs --secagg-shares as a count too: "
                    "the default shares change with each round's number of clients",
                    hint="pass --secagg-shares N as well, or a threshold share such as 0.6",
                )

    def resolve(self, sampled: int) -> tuple[int, int]:
        """The (shares, threshold) Flower will use for a round of ``sampled`` clients."""
        if self.shares is None:
            dropped = math.ceil(TOLERATED_DROPOUT * sampled - 1e-9)
            shares = min(sampled, 2 * dropped + 1)
        elif self.shares <= 1:
            shares = round(self.shares * sampled)
            if shares < sampled and shares % 2 == 0:
                shares += 1
            if shares <= 2:
                shares = sampled
        else:
            shares = int(self.shares)
        if self.threshold is None:
            threshold = max(shares // 2 + 1, 2)
        elif self.threshold <= 1:
            threshold = max(round(self.threshold * shares), 2)
        else:
            threshold = int(self.threshold)
        return shares, threshold

    def workflow_args(self, sampled: int) -> tuple[int | float, int | float]:
        """``num_shares`` and ``reconstruction_threshold`` in Flower's int-or-float form."""
        shares, threshold = self.resolve(sampled)
        shares_arg: int | float = shares if shares >= 3 else 1.0  # Flower counts only > 2
        if self.shares is not None:
            shares_arg = float(self.shares) if self.shares <= 1 else int(self.shares)
        threshold_arg: int | float = threshold
        if self.threshold is not None:
            threshold_arg = float(self.threshold) if self.threshold <= 1 else int(self.threshold)
        return shares_arg, threshold_arg


def _round_strategy(fitins: dict[int, Any]) -> Any:
    from flwr.server.strategy import Strategy

    class _RoundStrategy(Strategy):
        """Gives the workflow one round's fit instructions; keeps the aggregate it makes."""

        def __init__(self) -> None:
            self.aggregate: list[Any] | None = None
            self.received = 0

        def initialize_parameters(self, client_manager: Any) -> None:
            return None

        def configure_fit(self, server_round: int, parameters: Any, client_manager: Any) -> Any:
            from flwr.server.compat.grid_client_proxy import GridClientProxy

            return [(GridClientProxy(nid, None, 0), ins) for nid, ins in fitins.items()]  # type: ignore[arg-type]

        def aggregate_fit(self, server_round: int, results: Any, failures: Any) -> Any:
            from flwr.common import parameters_to_ndarrays

            self.received = len(results)
            if results:
                self.aggregate = parameters_to_ndarrays(results[0][1].parameters)
            return None, {}

        def configure_evaluate(self, server_round: int, parameters: Any, cm: Any) -> Any:
            return []

        def aggregate_evaluate(self, server_round: int, results: Any, failures: Any) -> Any:
            return None, {}

        def evaluate(self, server_round: int, parameters: Any) -> None:
            return None

    return _RoundStrategy()


@dataclass
class _Ahead:
    """A round's setup and key sharing, done with the previous round's unmasking."""

    round_number: int  # the round it was made for (its messages' group)
    nodes: frozenset[int]
    settings: SecAggSettings
    state: Any  # Flower's WorkflowState after the key sharing


# what the setup and key-sharing stages leave in Flower's WorkflowState for the next stages
_AHEAD_FIELDS = (
    "sampled_node_ids",
    "active_node_ids",
    "num_shares",
    "threshold",
    "clipping_range",
    "quantization_range",
    "mod_range",
    "max_weight",
    "nid_to_neighbours",
    "nid_to_publickeys",
    "forward_srcs",
    "forward_ciphertexts",
    "failures",
)


def _legacy(fitins: dict[int, Any], round_number: int, context: Any = None) -> Any:
    """A ``LegacyContext`` whose strategy hands out ``fitins`` (node id -> FitIns)."""
    from flwr.app import ArrayRecord, ConfigRecord, Context, RecordDict
    from flwr.server.compat.legacy_context import LegacyContext

    if context is None:
        context = Context(run_id=0, node_id=0, node_config={}, state=RecordDict(), run_config={})
    legacy = LegacyContext(context, strategy=_round_strategy(fitins))
    legacy.state.config_records["config"] = ConfigRecord({"current_round": round_number})
    # the workflow reads the global parameters only to hand them to configure_fit, which
    # ignores them (the fit instructions hold each client's)
    legacy.state.array_records["parameters"] = ArrayRecord()
    return legacy


def _workflow_kwargs(settings: SecAggSettings, sampled: int, timeout: float | None) -> Any:
    shares, threshold = settings.workflow_args(sampled)
    return {
        "num_shares": shares,
        "reconstruction_threshold": threshold,
        "clipping_range": settings.clipping_range,
        "max_weight": settings.max_weight,
        "timeout": timeout,
    }


def _fold(
    prefetch: KeyPrefetch,
    nodes: list[int],
    settings: SecAggSettings,
    round_number: int,
    timeout: float | None,
) -> Any:
    """The unmask grid's hook that runs round ``round_number``'s setup and key sharing
    with the unmasking before it, when every one of its ``nodes`` made its keys ahead and
    gets an unmask message; else it sends nothing (``None``: the plain unmasking)."""
    from flwr.common import FitIns, Parameters
    from flwr.server.workflow import SecAggPlusWorkflow
    from flwr.server.workflow.secure_aggregation.secaggplus_workflow import WorkflowState

    def run(grid: Any, messages: list[Any], wait: float | None) -> list[Any] | None:
        recipients = {int(m.metadata.dst_node_id) for m in messages}
        if len(nodes) < 2 or not set(nodes) <= recipients:
            return None  # a client gets no unmask message: the next round sets up on its own
        held = prefetch.claim(nodes)
        if held is None:
            return None  # a client without keys made ahead: the next round sets up on its own
        empty = FitIns(Parameters(tensors=[], tensor_type=""), {})
        legacy = _legacy(dict.fromkeys(nodes, empty), round_number)
        workflow = SecAggPlusWorkflow(**_workflow_kwargs(settings, len(nodes), timeout))
        state = WorkflowState()
        setup = SetupGrid(grid, held)  # every client answered it: nothing is sent
        if not workflow.setup_stage(setup, legacy, state) or setup.setup is None:  # type: ignore[arg-type]
            return None
        fold = FoldGrid(grid, messages, setup.setup, wait)
        ok = workflow.share_keys_stage(fold, legacy, state)  # type: ignore[arg-type]
        # the masked vectors hold pairwise masks only with the clients that shared keys
        state.sampled_node_ids = set(state.active_node_ids)
        if ok:
            prefetch.ahead = _Ahead(round_number, frozenset(nodes), settings, state)
        return fold.replies

    return run


def _workflow(
    prefetch: KeyPrefetch | None = None,
    following: tuple[list[int], SecAggSettings] | None = None,
    settings: SecAggSettings | None = None,
    **kwargs: Any,
) -> Any:
    """Flower's ``SecAggPlusWorkflow``, counting as dropped only clients that shared keys.

    With ``prefetch``, clients make their next round's keys at the masked-vector stage;
    clients whose public keys for this round came with the previous round's masked vectors
    get no setup exchange: the setup's settings go with their key sharing. With
    ``following`` too (the next round's clients and settings), the next round's setup and
    key sharing go with this round's unmasking, and a round whose key sharing was done so
    starts at the masked vectors (:mod:`veil.federated._secagg_keys`). Without it,
    Flower's four exchanges.
    """
    from flwr.compat.common import recorddict_compat as compat
    from flwr.server.workflow import SecAggPlusWorkflow

    class _Workflow(SecAggPlusWorkflow):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            self.held: set[int] = set()  # this round's clients set up with keys made ahead
            self.setup: dict[str, Any] | None = None
            self.ahead = False  # this round's key sharing was done with the last unmasking

        def _adopt(self, context: Any, state: Any, ahead: _Ahead | None) -> bool:
            if ahead is None:
                return False
            cfg = context.state.config_records["config"]
            pairs = context.strategy.configure_fit(cfg["current_round"], None, None)
            nodes = frozenset(int(proxy.node_id) for proxy, _ in pairs)
            # the next secure round of the run (in veil's simulation, the next round; a
            # benchmark may put plain rounds between), with the same clients and settings
            if ahead.nodes != nodes or ahead.settings != settings:
                return False
            for name in _AHEAD_FIELDS:
                setattr(state, name, getattr(ahead.state, name))
            state.nid_to_fitins = {
                proxy.node_id: compat.fitins_to_recorddict(ins, True) for proxy, ins in pairs
            }
            state.nid_to_proxies = {proxy.node_id: proxy for proxy, _ in pairs}
            self.ahead = True
            return True

        def setup_stage(self, grid: Any, context: Any, state: Any) -> bool:
            if prefetch is None:
                return bool(super().setup_stage(grid, context, state))
            if self._adopt(context, state, prefetch.take_ahead()):
                prefetch.take()  # keys of clients not in this round: forgotten
                return bool(self._check_threshold(state))
            # the clients with keys made ahead answered this setup a round early
            wrapped = SetupGrid(grid, prefetch.take())
            ok = bool(super().setup_stage(wrapped, context, state))  # type: ignore[arg-type]
            self.held, self.setup = wrapped.held, wrapped.setup
            return ok

        def share_keys_stage(self, grid: Any, context: Any, state: Any) -> bool:
            if self.ahead:
                return True  # done with the previous round's unmasking
            if self.held and self.setup is not None:
                grid = ShareKeysGrid(grid, self.held, self.setup)
            ok: bool = super().share_keys_stage(grid, context, state)
            # the masked vectors hold pairwise masks only with these clients
            state.sampled_node_ids = set(state.active_node_ids)
            return ok

        def collect_masked_vectors_stage(self, grid: Any, context: Any, state: Any) -> bool:
            if prefetch is not None:
                grid = prefetch.masked_grid(grid)
            return bool(super().collect_masked_vectors_stage(grid, context, state))

        def unmask_stage(self, grid: Any, context: Any, state: Any) -> bool:
            if prefetch is not None:
                fold = None
                if following is not None:
                    cfg = context.state.config_records["config"]
                    nodes, next_settings = following
                    timeout = self.timeout
                    fold = _fold(prefetch, nodes, next_settings, cfg["current_round"] + 1, timeout)
                grid = prefetch.unmask_grid(grid, fold)
            return bool(super().unmask_stage(grid, context, state))

    return _Workflow(**kwargs)


def secagg_round(
    grid: Any,
    context: Any,
    fit: dict[int, tuple[list[Any], dict[str, Any]]],
    settings: SecAggSettings,
    round_number: int,
    timeout: float | None = None,
    prefetch: KeyPrefetch | None = None,
    next_clients: list[int] | None = None,
) -> tuple[list[Any], int]:
    """Run one SecAgg+ round over the clients in ``fit`` (node id -> weights, config).

    Returns the weighted mean of the updates of the clients that finished (weights as the
    clients reported them) and how many finished. Raises :class:`RoundAbortedError` when
    too few shares survive to remove the masks (nothing is aggregated). ``timeout`` bounds
    each stage's wait for replies: none in simulation (a vanished client answers with an
    error at once), a finite one on real SuperNodes (one that crashed never answers).
    ``prefetch`` (one per run; the simulation's server passes one) lets the clients that
    took part in the previous round's unmasking skip the setup exchange
    (:mod:`veil.federated._secagg_keys`); without it every round has Flower's four.
    """
    from flwr.common import FitIns, ndarrays_to_parameters

    install()
    # the clients of a round are sent the same weights: serialize them once, not per client
    serialized: dict[int, Any] = {}

    def parameters(weights: list[Any]) -> Any:
        if id(weights) not in serialized:
            serialized[id(weights)] = ndarrays_to_parameters(weights)
        return serialized[id(weights)]

    fitins = {nid: FitIns(parameters(w), dict(cfg)) for nid, (w, cfg) in fit.items()}
    legacy = _legacy(fitins, round_number, context)
    strategy = legacy.strategy
    following = None
    if prefetch is not None and next_clients is not None:
        following = (list(next_clients), settings)
    workflow = _workflow(
        prefetch,
        following,
        settings=settings,
        **_workflow_kwargs(settings, len(fit), timeout),
    )
    workflow(grid, legacy)
    if strategy.aggregate is None:
        if prefetch is not None:
            prefetch.take_ahead()  # after an abort, the next round sets up in full
        n_shares, n_threshold = settings.resolve(len(fit))
        raise RoundAbortedError(
            f"secure aggregation of round {round_number} was aborted: fewer than "
            f"{n_threshold} of a client's {n_shares} key shares were left to remove the "
            "masks, so nothing of this round was aggregated",
            round_number=round_number,
            hint="lower --secagg-threshold or --dropout, or raise --secagg-shares",
        )
    return strategy.aggregate, strategy.received
