"""Connecting to Ray: a cluster at an address, or a local runtime veil starts and stops."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from veil._errors import InputError, MissingDependencyError

__all__ = ["ENGINES", "import_ray", "ray_session"]

ENGINES = ("local", "ray")
logger = logging.getLogger(__name__)


def import_ray() -> Any:
    """``ray`` (with Ray Data), or an error naming the extra to install."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise MissingDependencyError(
            "--engine ray needs Ray with Ray Data", hint="pip install 'veil[ray]'"
        ) from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """The TCP endpoint of ``host:port`` or ``ray://host:port``; None for ``auto``/``local``."""
    body = address.removeprefix("ray://")
    if body in ("auto", "local"):
        return None
    host, sep, port = body.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError(
            f"--ray-address {address!r} is not HOST:PORT",
            hint="e.g. --ray-address 10.0.0.5:6379 (the head node's GCS port) or "
            "ray://10.0.0.5:10001",
        )
    return host.strip("[]"), int(port)


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, naming the address, where nothing listens (ray.init would retry for long)."""
    endpoint = _host_port(address)
    if endpoint is None:
        return
    try:
        with socket.create_connection(endpoint, timeout=timeout):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot reach the Ray cluster at {address} ({type(exc).__name__})",
            hint="start it with 'ray start --head' on that machine, check the address and "
            "port, or leave --ray-address out to run a local Ray runtime",
        ) from None


@contextmanager
def ray_session(address: str | None = None, *, num_cpus: int | None = None) -> Iterator[Any]:
    """Ray, connected for the block: to ``address``, or to a local runtime started here.

    A runtime this process already has (``ray.init`` called before) is used as it is and
    left running; one started here is shut down on the way out, error or not.
    """
    ray = import_ray()
    if address is not None:
        _check_reachable(address)
    with _quiet_ray_logs(), _no_ray_prints(ray):
        if ray.is_initialized():
            yield ray
            return
        yield from _started(ray, address, num_cpus)


@contextmanager
def _quiet_ray_logs() -> Iterator[None]:
    """Ray's and Ray Data's log lines are not veil's output, and their errors can quote data:
    a failed read task logs its traceback, whose message (a CSV parser's, say) may hold a
    row. Silenced while veil runs; veil raises its own, data-free error instead."""
    names = ("ray", "ray.data")
    before = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for n, level in before.items():
            logging.getLogger(n).setLevel(level)


@contextmanager
def _no_ray_prints(ray: Any) -> Iterator[None]:
    """Ray's driver prints the cluster's error messages ("A worker died or was killed ...")
    to ``sys.stdout`` from a thread of its own, ``log_to_driver=False`` or not: in the middle
    of ``--json`` output, which stops parsing. Dropped while veil runs: veil reports a
    failed run itself (a lost worker Ray recovers from is no error)."""
    module = getattr(getattr(ray, "_private", None), "worker", None)
    original = getattr(module, "print_to_stdstream", None)
    if original is None:  # another Ray: nothing to patch
        yield
        return
    module.print_to_stdstream = lambda data, ignore_prefix: None  # type: ignore[union-attr]
    try:
        yield
    finally:
        module.print_to_stdstream = original  # type: ignore[union-attr]


def _started(ray: Any, address: str | None, num_cpus: int | None) -> Iterator[Any]:
    # Ray's FutureWarning "tip" on every start: opt in to its future behaviour (veil asks
    # for no GPU, and leaves the visible devices as the user set them)
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,
    }
    if address is None:
        kwargs["num_cpus"] = num_cpus
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise InputError(
            f"cannot connect to the Ray cluster at {address or 'a local runtime'} "
            f"({type(exc).__name__})",
            hint="check the address, and that the cluster runs the same Ray and Python",
        ) from None
    try:
        yield ray
    finally:
        ray.shutdown()
