"""veil's stand-ins for Flower's SecAgg+ helpers against Flower's and pycryptodome's own.

The stand-ins must be drop-in: shares made by Flower's ``create_shares`` combine with
veil's ``combine_shares`` and the other way round, to the same secret, for every subset of
at least the threshold; the field arithmetic is pycryptodome's GF(2^128).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
from typing import Any

import pytest
from Crypto.Protocol.SecretSharing import _Element
from flwr.common.secure_aggregation.crypto import shamir as flower
from hypothesis import given, settings

from veil.federated import _secagg_crypto as fast


def _values(n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(128) or 1 for _ in range(n)]


def test_field_product_and_inverse_are_pycryptodomes() -> None:
    values = [*_values(40, 0), 1, 2, 3, 7, (1 << 127) | 1]
    for a, b in zip(values, reversed(values), strict=True):
        assert fast._gf_mul(a, b) == int(_Element(a) * _Element(b))
    for a in values:
        inv = fast._gf_inv(a)
        assert inv == int(_Element(a).inverse())
        assert fast._gf_mul(a, inv) == 1
    with pytest.raises(ValueError, match="zero"):
        fast._gf_inv(0)
    # the table products used to combine shares are the same products
    for xs in [(1, 2, 3), (2, 5, 6, 7), tuple(range(1, 18))]:
        for rows in fast._lagrange_at_zero(xs):
            c = fast._gf_mul_by(rows, 1)
            for b in values:
                assert fast._gf_mul_by(rows, b) == int(_Element(c) * _Element(b))


@pytest.mark.parametrize(("threshold", "num"), [(2, 3), (4, 7), (9, 17)])
def test_shares_combine_across_flower_and_veil(threshold: int, num: int) -> None:
    rng = random.Random(threshold * 100 + num)
    for size in (32, 40, 185):  # a mask seed, a short secret, a PEM private key's length
        secret = os.urandom(size)
        for make in (flower.create_shares, fast.create_shares):
            shares = make(secret, threshold, num)
            assert len(shares) == num
            assert all(len(s) == 4 + 16 * (size // 16 + 1) for s in shares)
            subsets = [rng.sample(shares, k) for k in (threshold, num) for _ in range(3)]
            for subset in subsets:
                assert fast.combine_shares(subset) == secret
                assert flower.combine_shares(subset) == secret


def test_fewer_shares_than_the_threshold_do_not_give_the_secret() -> None:
    secret = os.urandom(32)
    shares = fast.create_shares(secret, 4, 7)
    for subset in itertools.combinations(shares, 3):
        # the interpolated bytes may not even unpad
        with contextlib.suppress(ValueError):
            assert fast.combine_shares(list(subset)) != secret


def test_duplicate_shares_are_refused() -> None:
    shares = fast.create_shares(os.urandom(32), 2, 3)
    with pytest.raises(ValueError, match="Duplicate"):
        fast.combine_shares([shares[0], shares[0], shares[1]])


def test_install_puts_the_helpers_where_flowers_secagg_looks_them_up() -> None:
    import sys

    fast.install()
    client = sys.modules["flwr.client.mod.secure_aggregation.secaggplus_mod"]
    server = sys.modules["flwr.server.workflow.secure_aggregation.secaggplus_workflow"]
    assert client.create_shares is fast.create_shares
    assert server.combine_shares is fast.combine_shares
    assert client.pseudo_rand_gen is server.pseudo_rand_gen is fast.pseudo_rand_gen
    assert client.generate_key_pairs is fast.generate_key_pairs
    assert client._collect_masked_vectors is fast.collect_masked_vectors
    assert client.parameters_to_ndarrays is fast.parameters_to_ndarrays
    assert server.bytes_to_ndarray is fast.bytes_to_ndarray
    numpy_client = sys.modules["flwr.compat.client.numpy_client"]
    assert numpy_client.parameters_to_ndarrays is fast.parameters_to_ndarrays
    # a parsed key is the key: the same bytes serialize back
    from flwr.supercore.primitives.asymmetric import (
        generate_key_pairs,
        private_key_to_bytes,
        public_key_to_bytes,
    )

    sk, pk = generate_key_pairs()
    pem = private_key_to_bytes(sk)
    assert private_key_to_bytes(client.bytes_to_private_key(pem)) == pem
    assert public_key_to_bytes(client.bytes_to_public_key(public_key_to_bytes(pk))) == (
        public_key_to_bytes(pk)
    )


def _byte_stream(seed: int) -> object:
    rng = random.Random(seed)
    return lambda n: bytes(rng.getrandbits(8) for _ in range(n))


@pytest.mark.parametrize(
    ("threshold", "num", "size"),
    # up to 40 shares: products by evaluation points of 6 bits overflow 128 bits by 6
    [(2, 3, 32), (4, 7, 241), (9, 17, 40), (3, 40, 32)],
)
def test_shares_are_pycryptodomes_split_for_the_same_random_coefficients(
    monkeypatch: pytest.MonkeyPatch, threshold: int, num: int, size: int
) -> None:
    from Crypto.Protocol import SecretSharing
    from Crypto.Util.Padding import pad

    secret = os.urandom(size)
    monkeypatch.setattr(fast, "_random_bytes", _byte_stream(size))
    ours = fast.create_shares(secret, threshold, num)
    # pycryptodome's split, chunk by chunk, drawing from the same stream in its order
    monkeypatch.setattr(SecretSharing, "rng", _byte_stream(size))
    padded = pad(secret, 16)
    theirs = [bytearray(i.to_bytes(4, "little")) for i in range(1, num + 1)]
    for start in range(0, len(padded), 16):
        for idx, share in SecretSharing.Shamir.split(threshold, num, padded[start : start + 16]):
            theirs[idx - 1] += share
    assert ours == [bytes(t) for t in theirs]


def _fold32(seed: bytes) -> int:
    out = 0
    for i in range(0, len(seed), 4):
        out ^= int.from_bytes(seed[i : i + 4], "little")
    return out


def test_masks_depend_on_the_whole_seed_where_flowers_had_32_bits() -> None:
    """Two seeds that Flower's helper folds to the same 32 bits give Flower the same mask
    (so a server can search 2**32 seeds for a pairwise mask); veil's masks differ."""
    import numpy as np
    from flwr.common.secure_aggregation.secaggplus_utils import pseudo_rand_gen

    a = bytearray(os.urandom(32))
    b = bytearray(a)
    b[0] ^= 0x5A  # flip bits in the first word and the same bits in the second:
    b[4] ^= 0x5A  # the XOR fold to 32 bits is unchanged
    assert bytes(a) != bytes(b) and _fold32(bytes(a)) == _fold32(bytes(b))
    dims = [(64,)]
    np.testing.assert_array_equal(
        pseudo_rand_gen(bytes(a), 1 << 22, dims)[0], pseudo_rand_gen(bytes(b), 1 << 22, dims)[0]
    )
    ours_a = fast.pseudo_rand_gen(bytes(a), 1 << 22, dims)[0]
    ours_b = fast.pseudo_rand_gen(bytes(b), 1 << 22, dims)[0]
    assert not np.array_equal(ours_a, ours_b)


def test_masks_are_deterministic_in_range_and_shaped_as_asked() -> None:
    import numpy as np

    dims = [(32, 99), (128,), (2, 128), ()]
    for num_range in [1 << 22, 7 * (1 << 22) + 1, (1 << 40) + 3, 5]:
        seed = os.urandom(32)
        masks = fast.pseudo_rand_gen(seed, num_range, dims)
        assert [m.shape for m in masks] == [(32, 99), (128,), (2, 128), ()]
        for m in masks:
            assert m.dtype == np.int64
            assert int(m.min()) >= 0 and int(m.max()) <= num_range - 2  # Flower's range
        # the same seed, on the server or another client, rebuilds the same masks
        for m, again in zip(masks, fast.pseudo_rand_gen(seed, num_range, dims), strict=True):
            np.testing.assert_array_equal(m, again)
    # uniform enough to hide an update: every residue of a small range is hit about equally
    draws = fast.pseudo_rand_gen(os.urandom(32), 9, [(90_000,)])[0]
    counts = np.bincount(draws, minlength=8)
    assert len(counts) == 8 and counts.min() > 10_000 and counts.max() < 12_500
    with pytest.raises(ValueError, match="at least 2"):
        fast.pseudo_rand_gen(os.urandom(32), 1, [(3,)])


def test_p256_keys_agree_through_flowers_own_helpers() -> None:
    """Flower's server rebuilds a vanished client's private key from its PEM and agrees a
    key with each neighbour's public key: veil's P-256 keys must go through those helpers."""
    from flwr.common.secure_aggregation.crypto.symmetric_encryption import (
        decrypt,
        encrypt,
        generate_shared_key,
    )
    from flwr.supercore.primitives import asymmetric as flower_keys

    sk_a, pk_a = fast.generate_key_pairs()
    sk_b, pk_b = fast.generate_key_pairs()
    assert sk_a.curve.name == "secp256r1"
    pem_a = flower_keys.private_key_to_bytes(sk_a)
    rebuilt = flower_keys.bytes_to_private_key(
        fast.combine_shares(fast.create_shares(pem_a, 3, 5)[1:4])
    )
    pub_b = flower_keys.bytes_to_public_key(flower_keys.public_key_to_bytes(pk_b))
    key_ab = generate_shared_key(rebuilt, pub_b)
    assert key_ab == generate_shared_key(sk_b, pk_a)
    assert decrypt(key_ab, encrypt(generate_shared_key(sk_b, pk_a), b"share")) == b"share"


def _per_array_masks(seed: bytes, num_range: int, dims: list[tuple[int, ...]]) -> list[Any]:
    """The masks as veil drew them before one flat draw: one cipher, one update per array."""
    import hashlib

    import numpy as np
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    key = hashlib.sha256(b"veil-secagg-mask-v1\x00" + seed).digest()
    stream = Cipher(algorithms.ChaCha20(key, bytes(16)), mode=None).encryptor()
    out = []
    for dim in dims:
        count = int(np.prod(dim, dtype=np.int64)) if len(dim) else 1
        words = np.frombuffer(stream.update(bytes(8 * count)), dtype="<u8")
        values = (words % np.uint64(num_range - 1)).astype(np.int64)
        out.append(values.reshape(dim) if len(dim) else np.array(values[0]))
    return out


@pytest.mark.parametrize("num_range", [1 << 32, 1 << 22, 7 * (1 << 22) + 1, 5])
def test_one_flat_draw_gives_the_per_array_masks_bit_for_bit(num_range: int) -> None:
    import numpy as np

    dims = [(1,), (32, 99), (128, 33), (128,), (), (0,), (2, 128), (2,)]
    for _ in range(3):
        seed = os.urandom(32)
        old = _per_array_masks(seed, num_range, dims)
        new = fast.pseudo_rand_gen(seed, num_range, dims)
        flat = fast.mask_stream(seed, num_range, sum(int(np.prod(d)) for d in dims))
        assert [m.shape for m in new] == [m.shape for m in old]
        for a, b in zip(old, new, strict=True):
            assert b.dtype == np.int64
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(np.concatenate([np.ravel(m) for m in old]), flat)
    with pytest.raises(ValueError, match="at least 2"):
        fast.mask_stream(os.urandom(32), 1, 3)


def _numpy_arrays() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    dtypes = st.sampled_from(
        ["<f2", "<f4", "<f8", ">f4", "<i1", "<i2", "<i4", "<i8", ">i8", "<u1", "<u4", "<u8", "?"]
    )
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
    return st.builds(
        lambda a, fortran: np_asfortran(a) if fortran else a,
        dtypes.flatmap(lambda d: hnp.arrays(d, shapes)),
        st.booleans(),
    )


def np_asfortran(a: Any) -> Any:
    import numpy as np

    return np.asfortranarray(a)


@settings(max_examples=300, deadline=None)
@given(array=_numpy_arrays())
def test_the_npy_reader_reads_what_numpy_reads(array: Any) -> None:
    import numpy as np
    from flwr.compat.common.parameter import bytes_to_ndarray, ndarray_to_bytes

    data = ndarray_to_bytes(array)
    ours, numpys = fast.bytes_to_ndarray(data), bytes_to_ndarray(data)
    assert ours.dtype == numpys.dtype and ours.shape == numpys.shape
    # writable, and not a view of the message's bytes (a later change must not reach them)
    assert ours.flags.writeable and numpys.flags.writeable
    assert not np.shares_memory(ours, np.frombuffer(data, dtype=np.uint8))
    np.testing.assert_array_equal(ours, numpys)
    assert ours.tobytes() == numpys.tobytes()  # NaNs and signed zeros too


def test_a_malformed_npy_document_is_read_or_refused_as_numpy_does() -> None:
    import numpy as np
    from flwr.compat.common.parameter import bytes_to_ndarray, ndarray_to_bytes

    good = ndarray_to_bytes(np.arange(12, dtype=np.int64).reshape(3, 4))
    cases = [good[:-8], good + b"\x00" * 8, good[:9], b"not an array", good[:60]]
    # an object array's header, never read by the fast path (numpy.load refuses pickles)
    cases.append(good.replace(b"'<i8'", b"'|O' "))
    # a forged shape far larger than the body (and than an int64), the header's length kept
    size = int.from_bytes(good[8:10], "little")
    forged = b"{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999999999999, 4), }"
    cases.append(good[:10] + forged.ljust(size - 1) + b"\n" + good[10 + size :])
    assert fast._npy_layout(cases[-1][10 : 10 + size]) is not None  # the fast path reads it
    refused = 0
    for bad in cases:
        try:
            theirs = bytes_to_ndarray(bad)
        except Exception as exc:
            refused += 1
            with pytest.raises(type(exc)):
                fast.bytes_to_ndarray(bad)
        else:  # numpy.load ignores bytes after the data
            np.testing.assert_array_equal(fast.bytes_to_ndarray(bad), theirs)
    assert refused == len(cases) - 1


def test_the_division_free_remainder_is_the_remainder() -> None:
    import numpy as np

    m = (1 << 32) - 1
    edges = [0, 1, m - 1, m, m + 1, 1 << 32, (1 << 33) - 2, m * m, m * (m + 2), m * (m + 2) - 1]
    edges += [(1 << 63), (1 << 64) - 2, (1 << 64) - 1]
    words = np.array(edges, dtype=np.uint64)
    rng = np.random.default_rng(0)
    words = np.concatenate(
        [words, rng.integers(0, 1 << 64, 10_000, dtype=np.uint64, endpoint=False)]
    )
    got = fast._mod_2_32_minus_1(words)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, (words % np.uint64(m)).astype(np.int64))
    assert [int(x) for x in got[: len(edges)]] == [e % m for e in edges]


def test_stochastic_rounding_is_flowers_draw_for_draw() -> None:
    import numpy as np

    values = np.random.default_rng(1).random(5000) * 2**22
    values[:4] = [0.0, 1.0, 2.5, 2**22]

    def flowers(v: Any) -> Any:
        rounded = np.ceil(v).astype(np.int32)
        draws = np.random.rand(*rounded.shape)
        rounded[draws < rounded - v] -= 1
        return rounded

    for dtype in (np.float64, np.float32):
        v = values.astype(dtype)
        np.random.seed(7)
        expected = flowers(v)
        np.random.seed(7)
        got = fast._stochastic_round(v)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
