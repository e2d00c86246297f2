"""Faster stand-ins for helpers of Flower's SecAgg+, with the same inputs and outputs.

Flower's SecAgg+ (``flwr.client.mod.secaggplus_mod`` on the clients,
``SecAggPlusWorkflow`` on the server) spends much of a round's CPU outside the protocol's own
work (measured with ``benchmarks/fl_secagg_profile.py`` and cProfile):

- ``combine_shares`` (server, once per client and round) runs pycryptodome's
  ``Shamir.combine``, whose GF(2^128) multiplication walks a 128-character string per bit of
  its operand, and recomputes the Lagrange coefficients and their inverses for every
  16-byte chunk of every secret; it also starts a thread pool per secret;
- ``create_shares`` (client, twice a round) starts a thread pool per secret and multiplies
  in the field with pycryptodome's general product, though the evaluation points are 1..n;
- ``pseudo_rand_gen`` (client, once per neighbour and round; server, once per client) folds
  its seed to 32 bits and builds a new ``numpy.random.RandomState`` with it (which seeds
  itself from the OS first): most of the cost of a mask of a few thousand coordinates, and
  masks with 2**32 possible values (see :func:`pseudo_rand_gen`, which replaces it with a
  stream cipher keyed by the whole seed; its reduction to Flower's range, modulo
  ``2**32 - 1``, folds each word's halves instead of dividing, :func:`mask_stream`);
- the clients parse their own PEM private key once per neighbour (and the neighbours'
  public keys once per use), not once per round;
- the key pairs are on P-384, whose key agreement (twice per neighbour and round) costs
  about 0.8 ms where P-256's costs 0.06 ms (see :func:`generate_key_pairs`);
- the client's masked-vector stage works array by array, a list of masks per neighbour,
  about a hundred small NumPy operations per client and round (see
  :func:`collect_masked_vectors`, which does the same on one flat vector);
- ``numpy.load`` parses each array's header with ``ast.literal_eval`` (see
  :func:`bytes_to_ndarray`).

:func:`combine_shares` interpolates with integer arithmetic in the same field (the
polynomial ``x^128 + x^7 + x^2 + x + 1``, shares as pycryptodome encodes them) and keeps,
for an index set, tables of products by its Lagrange coefficients (a product is 32 look-ups);
:func:`create_shares` evaluates pycryptodome's polynomial (the same random coefficients,
from the OS, in the same order) by Horner's rule with products by small integers, every
chunk of the secret at once; :func:`pseudo_rand_gen` draws the masks from ChaCha20
keyed by the whole seed; the key parsers keep the last few keys they parsed. The wire
format and the protocol are Flower's: shares made by either side combine with the other
(``tests/unit/federated/test_secagg_crypto.py``), and a round aggregates to the same sum.
The masks are veil's, so the server and every client must run veil's helpers.

:func:`install` puts them in place of Flower's helpers in the two SecAgg+ modules (module
attributes those modules look up when they run, the client's masked-vector stage among
them); it is idempotent and is called by veil's SecAgg+ client mods and server workflow
before they run.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import math
import os
import re
from collections.abc import Iterator
from typing import Any

__all__ = [
    "bytes_to_ndarray",
    "collect_masked_vectors",
    "combine_shares",
    "create_shares",
    "generate_key_pairs",
    "install",
    "keys_ahead",
    "mask_stream",
    "parameters_to_ndarrays",
    "pseudo_rand_gen",
    "secaggplus_mod",
]

# private keys (PEM) that generate_key_pairs hands out before making new ones (keys_ahead)
_KEYS_AHEAD: contextvars.ContextVar[list[bytes] | None] = contextvars.ContextVar(
    "_KEYS_AHEAD", default=None
)
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


def _times_x(a: int) -> int:
    a <<= 1
    return a ^ _IRR if a >> 128 else a


@functools.lru_cache(maxsize=256)
def _lagrange_at_zero(xs: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Products by the coefficients that interpolate the shares at ``xs`` to the value at 0.

    For each coefficient ``c``, a table of ``c * v * x^(4k)`` for every 4-bit ``v`` and
    position ``k``: a product by ``c`` is then 32 look-ups (:func:`_gf_mul_by`) where
    :func:`_gf_mul` loops over 128 bits; every chunk of every secret shared among the same
    neighbours is multiplied by the same coefficients.
    """
    out = []
    for j, xj in enumerate(xs):
        num = den = 1
        for m, xm in enumerate(xs):
            if m != j:
                num = _gf_mul(num, xm)
                den = _gf_mul(den, xj ^ xm)
        a = _gf_mul(num, _gf_inv(den))
        rows = []
        for _ in range(32):
            row = [0] * 16
            for bit in (1, 2, 4, 8):
                row[bit] = a
                a = _times_x(a)
            for v in range(3, 16):
                low = v & -v
                row[v] = row[low] ^ row[v ^ low]
            rows.append(tuple(row))
        out.append(tuple(rows))
    return tuple(out)


def _gf_mul_by(rows: tuple[tuple[int, ...], ...], b: int) -> int:
    """``c * b`` in GF(2^128), ``rows`` being ``c``'s table from :func:`_lagrange_at_zero`."""
    z = 0
    for row in rows:
        if not b:
            break
        z ^= row[b & 15]
        b >>= 4
    return z


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
            value ^= _gf_mul_by(c, int.from_bytes(share[start : start + _CHUNK], "big"))
        out += value.to_bytes(_CHUNK, "big")
    try:
        return bytes(unpad(bytes(out), _CHUNK))
    except ValueError:
        raise ValueError("Failed to combine shares") from None


def _random_bytes(n: int) -> bytes:
    return os.urandom(n)  # what pycryptodome's Shamir.split draws its coefficients from


def create_shares(secret: bytes, threshold: int, num: int) -> list[bytes]:
    """Flower's ``create_shares``: each padded 16-byte chunk split as ``Shamir.split`` does.

    For every chunk a polynomial of degree ``threshold - 1`` whose constant term is the chunk
    and whose other coefficients are 16 fresh random bytes each (drawn in pycryptodome's
    order), evaluated by Horner's rule at ``x = 1 .. num``. The evaluation points are small,
    so a product by one is a few shifts and a reduction of the few bits that overflow; all
    the chunks of the secret are evaluated at once, each in its own slot of one integer
    (wide enough that the shifts never reach the next slot), so each Horner step is a few
    integer operations however long the secret (pycryptodome walks all 128 bits of a
    general product, in Python, per chunk).
    """
    from Crypto.Util.Padding import pad

    padded = pad(secret, _CHUNK)
    chunks = len(padded) // _CHUNK
    spare = num.bit_length()  # a product by x <= num overflows 128 bits by at most this
    width = 128 + spare + 1
    low = sum(((1 << 128) - 1) << (width * i) for i in range(chunks))
    high = sum(((1 << spare) - 1) << (width * i) for i in range(chunks))
    # pycryptodome's order: each chunk's coefficients, highest degree first, chunk by chunk
    drawn = [
        [int.from_bytes(_random_bytes(_CHUNK), "big") for _ in range(threshold - 1)]
        for _ in range(chunks)
    ]
    packed = [sum(drawn[i][d] << (width * i) for i in range(chunks)) for d in range(threshold - 1)]
    packed.append(
        sum(
            int.from_bytes(padded[i * _CHUNK : (i + 1) * _CHUNK], "big") << (width * i)
            for i in range(chunks)
        )
    )
    shares = []
    for x in range(1, num + 1):
        y = 0
        for c in packed:
            z = 0  # y * x, carry-less, in every slot
            for bit in range(spare):
                if x >> bit & 1:
                    z ^= y << bit
            over = (z >> 128) & high  # the bits past 128 of each slot: x^128 = x^7+x^2+x+1
            y = (z & low) ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7) ^ c
        share = bytearray(x.to_bytes(4, "little", signed=False))
        for i in range(chunks):
            share += ((y >> (width * i)) & ((1 << 128) - 1)).to_bytes(_CHUNK, "big")
        shares.append(bytes(share))
    return shares


def mask_stream(seed: bytes, num_range: int, count: int) -> Any:
    """``count`` mask values of :func:`pseudo_rand_gen` for ``seed``, as one flat int64 array.

    The values a call of :func:`pseudo_rand_gen` with dimensions of ``count`` elements in
    all returns, in the same order (one key stream, cut into the arrays one after the
    other): a caller that masks one flat vector draws each mask in one call.
    """
    import hashlib

    import numpy as np
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    if num_range < 2:
        raise ValueError("the masks' range must hold at least 2 values")
    key = hashlib.sha256(b"veil-secagg-mask-v1\x00" + bytes(seed)).digest()
    stream = Cipher(algorithms.ChaCha20(key, bytes(16)), mode=None).encryptor()
    words = np.frombuffer(stream.update(bytes(8 * count)), dtype="<u8")
    if num_range == 1 << 32:  # Flower's modulus: a 64-bit division per value is most of the cost
        return _mod_2_32_minus_1(words)
    return (words % np.uint64(num_range - 1)).astype(np.int64)


def _mod_2_32_minus_1(words: Any) -> Any:
    """``words % (2**32 - 1)`` for uint64 ``words``, as int64, without a division.

    ``2**32`` is 1 modulo ``2**32 - 1``, so a word is congruent to the sum of its two 32-bit
    halves (below ``2**33``), that sum to the sum of its halves (at most ``2**32``), and
    one conditional subtraction leaves the remainder: the same values as ``%``.
    """
    import numpy as np

    m = np.uint64(0xFFFFFFFF)  # the modulus, and the mask of a low half
    folded = (words >> np.uint64(32)) + (words & m)
    folded = (folded >> np.uint64(32)) + (folded & m)
    folded[folded >= m] -= m
    return folded.astype(np.int64)


def pseudo_rand_gen(
    seed: bytes, num_range: int, dimensions_list: list[tuple[int, ...]]
) -> list[Any]:
    """The masks of SecAgg+: integers in ``[0, num_range - 1)`` (Flower's range), drawn
    from a stream cipher keyed by the whole ``seed``.

    Flower's own ``pseudo_rand_gen`` folds the seed (a 32-byte self-mask seed, or the
    pairwise key two clients agreed) to 32 bits by XOR and seeds NumPy's Mersenne Twister
    with it, so every mask has at most 2**32 possible values. A server that removes the
    masks it is entitled to remove (a survivor's self mask, a vanished client's pairwise
    masks) is then left, for a client with one surviving neighbour, with one 32-bit search
    to read that client's update in clear; with more neighbours, 32 bits each. Here the
    mask is ChaCha20's key stream under SHA-256 of the whole seed (256 bits; a fresh seed
    every round, so the fixed nonce is never reused with a key), 64 bits per coordinate
    reduced modulo the range (a bias below ``num_range / 2**64``), the arrays of
    ``dimensions_list`` cut from the stream one after the other (:func:`mask_stream`).
    Server and clients must both use it: :func:`install` puts it in both of Flower's
    SecAgg+ modules, and veil's simulated and deployed apps run veil on every party (as
    with the P-256 keys).
    """
    import numpy as np

    sizes = [int(np.prod(d, dtype=np.int64)) if len(d) else 1 for d in dimensions_list]
    values = mask_stream(seed, num_range, sum(sizes))
    output = []
    start = 0
    for dimension, size in zip(dimensions_list, sizes, strict=True):
        part = values[start : start + size]
        start += size
        output.append(part.reshape(dimension) if len(dimension) else np.array(part[0]))
    return output


_NPY_HEADER = re.compile(
    rb"\{'descr': '(<f[248]|<[iu][248]|\|[iub]1)', 'fortran_order': False, 'shape': \(((?:\d+, )*\d*,?)\), \} *\n"
)


@functools.lru_cache(maxsize=64)
def _npy_layout(header: bytes) -> tuple[Any, tuple[int, ...], int] | None:
    """dtype, shape and element count of a simple ``.npy`` header, else ``None``."""
    import numpy as np

    match = _NPY_HEADER.fullmatch(header)
    if match is None:
        return None
    shape = tuple(int(d) for d in match.group(2).decode("ascii").replace(",", " ").split())
    count = math.prod(shape)  # exact: a forged header's size fails the length check below
    return np.dtype(match.group(1).decode("ascii")), shape, count


def bytes_to_ndarray(tensor: bytes) -> Any:
    """Flower's ``bytes_to_ndarray`` (``numpy.load`` of an ``.npy`` document), faster.

    ``numpy.load`` reads a document's header with ``ast.literal_eval``: about 40
    microseconds an array, where a round of SecAgg+ reads six arrays per client on the
    server and five more on each client. A header as ``numpy.save`` writes it for a
    little-endian (or single-byte) number array in C order, with the data of exactly its
    size, is read here with one regular expression (once per distinct header) and
    ``numpy.frombuffer``, into a writable array of its own as ``numpy.load`` returns; any
    other document (another version, dtype or layout, a short or long body) goes to
    ``numpy.load``, which reads it or raises as before (never with pickles).
    """
    import numpy as np

    if tensor[:8] == b"\x93NUMPY\x01\x00" and len(tensor) >= 10:
        end = 10 + int.from_bytes(tensor[8:10], "little")
        layout = _npy_layout(bytes(tensor[10:end]))
        if layout is not None:
            dtype, shape, count = layout
            if len(tensor) - end == count * dtype.itemsize:
                flat = np.frombuffer(tensor, dtype=dtype, count=count, offset=end)
                return flat.reshape(shape).copy()
    from flwr.compat.common.parameter import bytes_to_ndarray as flower

    return flower(tensor)


def parameters_to_ndarrays(parameters: Any) -> list[Any]:
    """Flower's ``parameters_to_ndarrays`` with :func:`bytes_to_ndarray`."""
    return [bytes_to_ndarray(tensor) for tensor in parameters.tensors]


def _stochastic_round(values: Any) -> Any:
    # Flower's quantization._stochastic_round, on one array
    import numpy as np

    rounded = np.ceil(values).astype(np.int32)
    draws = np.random.rand(*rounded.shape)  # Flower's draws (rounding, not a secret)
    # Flower's rounded[draws < rounded - values] -= 1, without the masked assignment
    rounded -= draws < rounded - values
    return rounded


def collect_masked_vectors(
    state: Any, configs: Any, num_examples: int, updated_parameters: Any
) -> dict[str, Any]:
    """Flower's ``_collect_masked_vectors`` (a client's SecAgg+ stage 2), over one flat vector.

    Flower's stage builds the masked vector array by array: it scales, clips and rounds
    each array of the update, prepends the weight factor, then for the self mask and each
    neighbour draws a list of masks (one per array) and adds or subtracts them list by
    list, and takes each array modulo the range: with the default MLP's five arrays and
    seven masks about a hundred small NumPy operations, a few microseconds of Python each,
    per client and round. This does the same arithmetic on the arrays concatenated: one
    rounding, one draw per mask (:func:`mask_stream`: the values the per-array draws give,
    in the same order), one running sum, one reduction, then cuts the result back into
    the arrays. The output is Flower's bit for bit: the same elementwise float operations
    in the same dtype (the arrays must share one, and the mod must draw veil's masks;
    otherwise Flower's own stage runs), the
    same draws from NumPy's global generator for the stochastic rounding (``rand(n)`` is
    ``rand(a)`` then ``rand(n - a)``), the same integer sums (exact in int64: seven masks
    below the range and a quantized value), the same int64 arrays serialized the same way
    (``tests/unit/federated/test_secagg_crypto.py`` compares the two). The checks on the
    forwarded key shares, and their errors, are Flower's.
    """
    import importlib

    import numpy as np
    from flwr.common.logger import log
    from flwr.common.secure_aggregation.crypto.symmetric_encryption import (
        decrypt,
        generate_shared_key,
    )
    from flwr.common.secure_aggregation.secaggplus_constants import Key
    from flwr.common.secure_aggregation.secaggplus_utils import share_keys_plaintext_separate
    from flwr.compat.common.parameter import ndarray_to_bytes

    module = importlib.import_module(_CLIENT_MOD)
    parameters = parameters_to_ndarrays(updated_parameters)
    if len({a.dtype for a in parameters}) > 1 or module.pseudo_rand_gen is not pseudo_rand_gen:
        # concatenating would change some arrays' dtype, or the mod draws other masks than
        # mask_stream's: Flower's stage, array by array
        flower = _flower_stage or module._collect_masked_vectors
        return flower(state, configs, num_examples, updated_parameters)  # type: ignore[no-any-return]

    available_clients: list[int] = []
    ciphertexts = configs[Key.CIPHERTEXT_LIST]
    srcs = configs[Key.SOURCE_LIST]
    if len(ciphertexts) + 1 < state.threshold:
        raise ValueError("Not enough available neighbour clients.")

    for src, ciphertext in zip(srcs, ciphertexts, strict=True):
        shared_key = state.ss2_dict[src]
        plaintext = decrypt(shared_key, ciphertext)
        actual_src, dst, rd_seed_share, sk1_share = share_keys_plaintext_separate(plaintext)
        available_clients.append(src)
        if src != actual_src:
            raise ValueError(
                f"Node {state.nid}: received ciphertext from {actual_src} instead of {src}."
            )
        if dst != state.nid:
            raise ValueError(
                f"Node {state.nid}: received an encrypted message for Node {dst} from Node {src}."
            )
        state.rd_seed_share_dict[src] = rd_seed_share
        state.sk1_share_dict[src] = sk1_share

    ratio = num_examples / state.max_weight
    if ratio > 1:
        log(
            logging.WARNING,
            "Potential overflow warning: the provided weight (%s) exceeds the specified"
            " max_weight (%s). This may lead to overflow issues.",
            num_examples,
            state.max_weight,
        )
    q_ratio = round(ratio * state.target_range)
    dq_ratio = q_ratio / state.target_range

    shapes = [a.shape for a in parameters]
    flat = np.concatenate([a.ravel() for a in parameters]) if parameters else np.zeros(0)
    # Flower's parameters_multiply and quantize, elementwise in the arrays' dtype
    flat = flat * dq_ratio
    clip = state.clipping_range
    pre = (np.clip(flat, -clip, clip) + clip) * (state.target_range / (2 * clip))
    total = np.empty(len(pre) + 1, dtype=np.int64)  # the weight factor first (factor_combine)
    total[0] = q_ratio
    total[1:] = _stochastic_round(pre)

    mod_range = state.mod_range
    total += mask_stream(state.rd_seed, mod_range, len(total))  # the self mask
    # the key parsers the client mod holds (veil's, once installed), as Flower's stage
    private_key = module.bytes_to_private_key(state.sk1)
    for node_id in available_clients:
        shared_key = generate_shared_key(
            private_key, module.bytes_to_public_key(state.public_keys_dict[node_id][0])
        )
        pairwise = mask_stream(shared_key, mod_range, len(total))
        if state.nid > node_id:
            total += pairwise
        else:
            total -= pairwise
    if mod_range & (mod_range - 1) == 0:  # Flower's parameters_mod
        total &= mod_range - 1
    else:
        total %= mod_range

    out = [ndarray_to_bytes(total[:1])]
    start = 1
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
        part = total[start : start + size]
        start += size
        out.append(ndarray_to_bytes(part.reshape(shape)))
    return {Key.MASKED_PARAMETERS: out}


def generate_key_pairs() -> tuple[Any, Any]:
    """A client's key pair of a round, on NIST P-256 (Flower's own uses P-384).

    The keys only derive Fernet keys (AES-128 and HMAC-SHA256: a 128-bit level) and the
    masks' seeds, so P-384's 192-bit level adds nothing the symmetric layer keeps; P-256
    (128-bit, NIST SP 800-57's match for AES-128) does key agreement about 13 times faster,
    and each client agrees keys with every neighbour twice a round. The keys travel as the
    same PEM documents, which name their curve: Flower's server workflow, which parses a
    vanished client's rebuilt key and agrees keys with it, takes them unchanged. Clients of
    one round must share the curve, as veil's simulated and deployed apps (all veil
    clients) do; a stock Flower client among them fails its key agreement and is dropped.
    """
    from cryptography.hazmat.primitives.asymmetric import ec

    ahead = _KEYS_AHEAD.get()
    if ahead:
        # a setup run with the pairs made at the client's previous unmasking
        # (:mod:`veil.federated._secagg_keys`): each is handed out once, in order
        private_key = _private_key(ahead.pop(0))
        return private_key, private_key.public_key()
    private_key = ec.generate_private_key(ec.SECP256R1())
    return private_key, private_key.public_key()


@contextlib.contextmanager
def keys_ahead(private_keys: list[bytes]) -> Iterator[None]:
    """Within this block, :func:`generate_key_pairs` hands out these (PEM) private keys.

    In order, one a call, then fresh pairs again; for a setup stage run with key pairs a
    client made in advance (:mod:`veil.federated._secagg_keys`).
    """
    token = _KEYS_AHEAD.set(list(private_keys))
    try:
        yield
    finally:
        _KEYS_AHEAD.reset(token)


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
_CLIENT_MOD = "flwr.client.mod.secure_aggregation.secaggplus_mod"
_flower_stage: Any = None  # Flower's own masked-vector stage, once replaced


def install() -> None:
    """Use these helpers in Flower's SecAgg+ client mod and server workflow (idempotent).

    Also the ``.npy`` reader in Flower's ``NumPyClient`` wrapper (the SecAgg+ client's
    ``fit`` is a ``NumPyClient``'s), which reads the same documents as ``numpy.load``.

    Only names the two modules already hold are replaced: a Flower release that moves or
    renames them keeps its own helpers (slower, same protocol) instead of failing a round.
    """
    global _installed
    if _installed:
        return
    import importlib

    global _flower_stage
    swaps: dict[str, dict[str, Any]] = {
        _CLIENT_MOD: {
            "_collect_masked_vectors": collect_masked_vectors,
            "create_shares": create_shares,
            "generate_key_pairs": generate_key_pairs,
            "parameters_to_ndarrays": parameters_to_ndarrays,
            "pseudo_rand_gen": pseudo_rand_gen,
            "bytes_to_private_key": _private_key,
            "bytes_to_public_key": _public_key,
        },
        # the SecAgg+ client is a NumPyClient: its fit reads the round's weights from .npy
        "flwr.compat.client.numpy_client": {"parameters_to_ndarrays": parameters_to_ndarrays},
        "flwr.server.workflow.secure_aggregation.secaggplus_workflow": {
            "bytes_to_ndarray": bytes_to_ndarray,
            "combine_shares": combine_shares,
            "pseudo_rand_gen": pseudo_rand_gen,
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
                if attr == "_collect_masked_vectors" and module._collect_masked_vectors is not fn:
                    _flower_stage = module._collect_masked_vectors  # for mixed dtypes
                setattr(module, attr, fn)
    _installed = True


def secaggplus_mod(msg: Any, context: Any, call_next: Any) -> Any:
    """Flower's ``secaggplus_mod`` with these helpers installed in the process it runs in."""
    install()
    from flwr.client.mod import secaggplus_mod as flower_mod

    return flower_mod(msg, context, call_next)
