"""NodeClasses.gen_rows: the classes' generalized codes decoded from their keys, by shifts
and masks for bit fields (the evaluator's fast path), by division otherwise."""

from __future__ import annotations

import numpy as np

from veil.tabular._metrics import NodeClasses


def _node(codes: np.ndarray, radix: list[int]) -> NodeClasses:
    mult = np.ones(len(radix), dtype=np.int64)
    for j in range(len(radix) - 2, -1, -1):
        mult[j] = mult[j + 1] * radix[j + 1]
    n = len(codes)
    return NodeClasses(
        (0,) * len(radix),
        None,
        None,
        np.ones(n, dtype=np.int64),
        np.ones(n, dtype=bool),
        0,
        key=codes @ mult,
        mult=mult,
        radix=np.asarray(radix, dtype=np.int64),
    )


def test_bit_fields_and_mixed_radix_decode_to_the_same_codes() -> None:
    rng = np.random.default_rng(3)
    sizes = [5, 3, 17, 2, 9]
    codes = np.stack([rng.integers(0, s, size=400) for s in sizes], axis=1).astype(np.int64)
    mask = rng.random(400) < 0.4
    bits = [1 << max(s - 1, 1).bit_length() for s in sizes]  # powers of two: shifts
    mixed = [6, 3, 17, 2, 9]  # one field not a power of two: division
    for radix in (bits, mixed):
        got = _node(codes, radix).gen_rows(mask)
        assert got.dtype == np.int64 and got.shape == (int(mask.sum()), len(sizes))
        np.testing.assert_array_equal(got, codes[mask])


def test_an_empty_selection_decodes_to_no_rows() -> None:
    codes = np.array([[1, 2], [3, 0]], dtype=np.int64)
    out = _node(codes, [4, 4]).gen_rows(np.zeros(2, dtype=bool))
    assert out.shape == (0, 2)


def test_the_fields_given_by_the_evaluator_decode_as_its_key_does() -> None:
    # the precomputed shifts and masks must decode exactly as mult and radix do
    rng = np.random.default_rng(5)
    sizes = [5, 3, 17, 2, 9]
    codes = np.stack([rng.integers(0, s, size=300) for s in sizes], axis=1).astype(np.int64)
    mask = rng.random(300) < 0.5
    bits = [1 << max(s - 1, 1).bit_length() for s in sizes]
    plain = _node(codes, bits)
    assert plain.mult is not None and plain.radix is not None
    shifts = np.array([int(m).bit_length() - 1 for m in plain.mult], dtype=np.int64)[None, :]
    masks = (plain.radix - 1)[None, :]
    given = _node(codes, bits)
    given.fields = (shifts, masks)
    np.testing.assert_array_equal(given.gen_rows(mask), codes[mask])
    np.testing.assert_array_equal(given.gen_rows(mask), plain.gen_rows(mask))
    # a wrong mask would show: the fields are what decodes
    given.fields = (shifts, np.zeros_like(masks))
    assert not np.array_equal(given.gen_rows(mask), codes[mask])
