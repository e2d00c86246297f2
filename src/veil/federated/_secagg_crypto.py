"""Faster stand-ins for three helpers of Flower's SecAgg+, with the same inputs and outputs.

Flower's SecAgg+ (``flwr.client.mod.secaggplus_mod`` on the clients,
``SecAggPlusWorkflow`` on the server) spends much of a round's CPU outside the protocol's own
work (measured with ``benchmarks/fl_secagg_profile.py``):

- ``combine_shares`` (server, once per client and round) runs pycryptodome's
  ``Shamir.combine``, whose GF(2^128) multiplication walks a 128-character string per bit of
  its operand, and recomputes the Lagrange coefficients and their inverses for every
  16-byte chunk of every secret; it also starts a thread pool per secret;
- ``create_shares`` (client, twice a round) starts a thread pool per secret to split chunks
  that take microseconds each;
- the clients parse their own PEM private key once per neighbour (and the neighbours'
  public keys once per use), not once per round.

:func:`combine_shares` interpolates with integer arithmetic in the same field (the
polynomial ``x^128 + x^7 + x^2 + x + 1``, shares as pycryptodome encodes them) and keeps the
Lagrange coefficients of an index set; :func:`create_shares` splits with pycryptodome's
``Shamir.split`` itself (the random polynomial is still drawn by pycryptodome), without the
thread pool; the key parsers keep the last few keys they parsed. The wire format, the
randomness and the protocol are Flower's: shares made by either side combine with the other
(``tests/unit/federated/test_secagg_crypto.py``), and a round aggregates to the same sum.

:func:`install` puts them in place of Flower's helpers in the two SecAgg+ modules (module
attributes those modules look up when they run); it is idempotent and is called by veil's
SecAgg+ client mods and server workflow before they run.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["combine_shares", "create_shares", "install", "secaggplus_mod"]

_IRR = (1 << 128) | 0x87  # x^128 + x^7 + x^2 + x + 1: pycryptodome's Shamir field
_CHUNK = 16


def _gf_mul(a: int, b: int) -> int:
    """Product of two elements of GF(2^128) (integers below 2**128)."""
    z = 0
    while b:
        if b & 1:
            z ^= a
        b >>= 1
        a <<= 1
        if a >> 128:
            a ^= _IRR
    return z


def _gf_inv(a: int) -> int:
    """Inverse of a non-zero element of GF(2^128) (binary extended Euclid)."""
    if a == 0:
        raise ValueError("Inversion of zero")
    u, v = a, _IRR
    g1, g2 = 1, 0
    while u != 1:
        j = u.bit_length() - v.bit_length()
        if j < 0:
            u, v, g1, g2 = v, u, g2, g1
            j = -j
        u ^= v << j
        g1 ^= g2 << j
    return g1


@functools.lru_cache(maxsize=256)
def _lagrange_at_zero(xs: tuple[int, ...]) -> tuple[int, ...]:
    """The coefficients that interpolate the shares at ``xs`` to the polynomial's value at 0."""
    out = []
    for j, xj in enumerate(xs):
        num = den = 1
        for m, xm in enumerate(xs):
            if m != j:
                num = _gf_mul(num, xm)
                den = _gf_mul(den, xj ^ xm)
        out.append(_gf_mul(num, _gf_inv(den)))
    return tuple(out)


def combine_shares(share_list: list[bytes]) -> bytes:
    """Flower's ``combine_shares``: the secret from shares ``<4-byte index><16-byte chunks>``."""
    from Crypto.Util.Padding import unpad

    chunks = (len(share_list[0]) - 4) >> 4
    # in index order, so that every secret shared among the same neighbours (all of them,
    # in a round without dropouts) reuses one set of coefficients
    share_list = sorted(share_list, key=lambda s: int.from_bytes(s[:4], "little"))
    xs = tuple(int.from_bytes(s[:4], "little", signed=False) for s in share_list)
    if len(set(xs)) != len(xs):
        raise ValueError("Duplicate share")
    coeffs = _lagrange_at_zero(xs)
    out = bytearray()
    for i in range(chunks):
        start = 4 + i * _CHUNK
        value = 0
        for share, c in zip(share_list, coeffs, strict=True):
            value ^= _gf_mul(int.from_bytes(share[start : start + _CHUNK], "big"), c)
        out += value.to_bytes(_CHUNK, "big")
    try:
        return bytes(unpad(bytes(out), _CHUNK))
    except ValueError:
        raise ValueError("Failed to combine shares") from None


def create_shares(secret: bytes, threshold: int, num: int) -> list[bytes]:
    """Flower's ``create_shares``, chunk by chunk in this thread (no pool)."""
    from Crypto.Protocol.SecretSharing import Shamir
    from Crypto.Util.Padding import pad

    padded = pad(secret, _CHUNK)
    shares = [bytearray(i.to_bytes(4, "little", signed=False)) for i in range(1, num + 1)]
    for start in range(0, len(padded), _CHUNK):
        for idx, share in Shamir.split(threshold, num, padded[start : start + _CHUNK], False):
            shares[idx - 1] += share
    return [bytes(s) for s in shares]


@functools.lru_cache(maxsize=4)
def _private_key(pem: bytes) -> Any:
    # a client's two private keys of the round (the PEM bytes are in its SecAgg+ state)
    from flwr.supercore.primitives.asymmetric import bytes_to_private_key

    return bytes_to_private_key(pem)


@functools.lru_cache(maxsize=256)
def _public_key(pem: bytes) -> Any:
    from flwr.supercore.primitives.asymmetric import bytes_to_public_key

    return bytes_to_public_key(pem)


_installed = False


def install() -> None:
    """Use these helpers in Flower's SecAgg+ client mod and server workflow (idempotent).

    Only names the two modules already hold are replaced: a Flower release that moves or
    renames them keeps its own helpers (slower, same protocol) instead of failing a round.
    """
    global _installed
    if _installed:
        return
    import importlib

    swaps = {
        "flwr.client.mod.secure_aggregation.secaggplus_mod": {
            "create_shares": create_shares,
            "bytes_to_private_key": _private_key,
            "bytes_to_public_key": _public_key,
        },
        "flwr.server.workflow.secure_aggregation.secaggplus_workflow": {
            "combine_shares": combine_shares,
            "bytes_to_private_key": _private_key,
            "bytes_to_public_key": _public_key,
        },
    }
    for name, helpers in swaps.items():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr, fn in helpers.items():
            if hasattr(module, attr):
                setattr(module, attr, fn)
    _installed = True


def secaggplus_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Flower's ``secaggplus_mod`` with these helpers installed in the process it runs in."""
    install()
    from flwr.client.mod import secaggplus_mod as flower_mod

    return flower_mod(msg, context, call_next)
