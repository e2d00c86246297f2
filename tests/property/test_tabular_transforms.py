"""Invariants of the field transforms, checked on generated inputs (hypothesis)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from veil.tabular import (
    DateShiftTransformer,
    GeoDisplaceTransformer,
    KeyedHashTransformer,
    MaskTransformer,
    Secret,
    TokenizeTransformer,
    TopBottomCodeTransformer,
)
from veil.tabular._fpe import ALPHABETS, max_length, min_length

SEPARATORS = "-. @/_+"


def sphere_distance_m(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Great-circle distance by the Vincenty formula on a sphere: a code path independent of
    veil's (haversine in the report, destination formula in the transform)."""
    p1, p2, dl = np.radians(lat1), np.radians(lat2), np.radians(np.asarray(lon2) - np.asarray(lon1))
    num = np.hypot(
        np.cos(p2) * np.sin(dl), np.cos(p1) * np.sin(p2) - np.sin(p1) * np.cos(p2) * np.cos(dl)
    )
    den = np.sin(p1) * np.sin(p2) + np.cos(p1) * np.cos(p2) * np.cos(dl)
    return 6_371_008.8 * np.arctan2(num, den)


@st.composite
def fpe_case(draw: st.DrawFn) -> tuple[str, str]:
    """An alphabet name and a value with enough of its characters, separators mixed in."""
    name = draw(st.sampled_from(sorted(ALPHABETS)))
    chars = ALPHABETS[name]
    core = draw(
        st.text(
            alphabet=chars,
            min_size=min_length(name),
            max_size=max_length(name) * 2 + 3,  # also exercises chunked long values
        )
    )
    seps = draw(
        st.lists(st.tuples(st.integers(0, len(core)), st.sampled_from(SEPARATORS)), max_size=4)
    )
    value = list(core)
    for pos, sep in sorted(seps, reverse=True):
        value.insert(pos, sep)
    return name, "".join(value)


# keys drawn as random bytes (a seed through SHAKE-256): the transforms refuse guessable keys
# (all zero, sequences: what hypothesis would otherwise draw first), see test_keystrength.py
def _keys(*sizes: int) -> st.SearchStrategy[bytes]:
    return st.tuples(st.integers(0, 2**64), st.sampled_from(sizes)).map(
        lambda seed_n: hashlib.shake_256(seed_n[0].to_bytes(9, "big")).digest(seed_n[1])
    )


aes_keys = _keys(16, 24, 32)
hmac_keys = _keys(16, 20, 32, 48)


@settings(max_examples=150, deadline=None)
@given(case=fpe_case(), key=aes_keys, tweak=st.none() | st.binary(min_size=7, max_size=7))
def test_fpe_round_trips_and_keeps_alphabet_length_and_separators(case, key, tweak) -> None:
    name, value = case
    chars = set(ALPHABETS[name])
    t = TokenizeTransformer(key=Secret(key), tweak=tweak, alphabet=name)
    token = t.fit_transform(pd.Series([value]))[0]
    assert len(token) == len(value)
    for a, b in zip(value, token, strict=True):
        if a in chars:
            assert b in chars
        else:
            assert a == b  # characters outside the alphabet stay in place
    assert t.inverse_transform(pd.Series([token]))[0] == value


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=20),
    k1=hmac_keys,
    k2=hmac_keys,
)
def test_hmac_is_stable_for_one_key_and_differs_across_keys(values, k1, k2) -> None:
    s = pd.Series(values)
    a = KeyedHashTransformer(key=Secret(k1), length=32).fit_transform(s)
    b = KeyedHashTransformer(key=Secret(k1), length=32).fit_transform(s)
    assert a.tolist() == b.tolist()
    # equal inputs, equal outputs; different inputs, different outputs (128 bits kept)
    assert len(set(a)) == len(set(values))
    if k1 != k2:
        c = KeyedHashTransformer(key=Secret(k2), length=32).fit_transform(s)
        assert all(x != y for x, y in zip(a, c, strict=True))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 5),
            st.dates(
                min_value=pd.Timestamp("1900-01-01").date(),
                max_value=pd.Timestamp("2100-01-01").date(),
            ),
        ),
        min_size=1,
        max_size=30,
    ),
    max_days=st.integers(1, 3650),
    key=hmac_keys,
)
def test_date_shift_keeps_intervals_within_an_entity(rows, max_days, key) -> None:
    df = pd.DataFrame({"pid": [r[0] for r in rows], "d": pd.to_datetime([r[1] for r in rows])})
    out = DateShiftTransformer(
        Secret(key), column="d", entity_column="pid", max_days=max_days
    ).fit_transform(df)
    shift = (out["d"] - df["d"]).dt.days
    assert shift.abs().max() <= max_days
    # one offset per entity, so every interval within an entity is unchanged
    assert (shift.groupby(df["pid"]).nunique() == 1).all()
    for _, idx in df.groupby("pid").groups.items():
        before = df.loc[idx, "d"].diff().dropna()
        after = out.loc[idx, "d"].diff().dropna()
        assert before.tolist() == after.tolist()


@settings(max_examples=100, deadline=None)
@given(
    lat=st.floats(-89.0, 89.0),
    lon=st.floats(-180.0, 180.0),
    r0=st.floats(0.0, 50_000.0),
    width=st.floats(1.0, 50_000.0),
    seed=st.integers(0, 2**32),
)
def test_displacement_stays_in_the_donut(lat, lon, r0, width, seed) -> None:
    n = 25
    step = np.arange(n) * 1e-4  # distinct points, so each gets its own draw
    df = pd.DataFrame(
        {"lat": np.clip(lat + step, -89.9, 89.9), "lon": (lon + 180 + step) % 360 - 180}
    )
    t = GeoDisplaceTransformer("lat", "lon", min_radius_m=r0, max_radius_m=r0 + width, seed=seed)
    out = t.fit_transform(df)
    assert out["lat"].between(-90, 90).all() and out["lon"].between(-180, 180).all()
    d = sphere_distance_m(
        df.lat.to_numpy(), df.lon.to_numpy(), out.lat.to_numpy(), out.lon.to_numpy()
    )
    tol = 1e-6 * (r0 + width) + 1e-3
    assert d.min() >= r0 - tol and d.max() <= r0 + width + tol


@settings(deadline=None)  # a shared CI machine can stall any single example
@given(
    values=st.lists(st.text(max_size=40) | st.none(), min_size=1, max_size=20),
    first=st.integers(0, 6),
    last=st.integers(0, 6),
)
def test_mask_keeps_length_and_the_kept_characters(values, first, last) -> None:
    out = MaskTransformer(keep_first=first, keep_last=last, char="#").fit_transform(
        pd.Series(values, dtype=object)
    )
    for before, after in zip(values, out, strict=True):
        if before is None:
            assert after is None
            continue
        assert len(after) == len(before)
        if len(before) > first + last:
            assert after[:first] == before[:first]
            assert after[len(after) - last :] == before[len(before) - last :]
            assert set(after[first : len(after) - last]) <= {"#"}
        else:
            assert set(after) <= {"#"}


@settings(deadline=None)
@given(
    values=st.lists(st.floats(-1e9, 1e9) | st.none(), min_size=1, max_size=50),
    lq=st.none() | st.floats(0, 0.5),
    uq=st.none() | st.floats(0.5, 1),
)
def test_top_bottom_coding_bounds(values, lq, uq) -> None:
    s = pd.Series(values, dtype=float)
    assume((lq is not None or uq is not None) and s.notna().any())
    t = TopBottomCodeTransformer(lower_quantile=lq, upper_quantile=uq).fit(s)
    out = t.transform(s)
    assert out.isna().equals(s.isna())
    lo = -np.inf if t.lower_ is None else t.lower_
    hi = np.inf if t.upper_ is None else t.upper_
    present = s.notna()
    assert out[present].between(lo, hi).all()
    inside = present & s.between(lo, hi)
    assert out[inside].equals(s[inside])  # values within the bounds are untouched
