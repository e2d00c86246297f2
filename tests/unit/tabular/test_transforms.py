"""Field transforms: behaviour, known answers, bad input, and no data value in any error."""

from __future__ import annotations

import hashlib
import hmac
import traceback
import typing

import numpy as np
import pandas as pd
import pytest

from veil import InputError, KeyMissingError, PolicyError, SchemaError, VeilError
from veil.policy import _models as models
from veil.tabular import (
    TRANSFORMS,
    AdditiveNoiseTransformer,
    DateGeneralizeTransformer,
    DateShiftTransformer,
    DropTransformer,
    GeoDisplaceTransformer,
    GeoRoundTransformer,
    KeepTransformer,
    KeyedHashTransformer,
    MaskTransformer,
    Secret,
    TokenizeTransformer,
    TopBottomCodeTransformer,
    build_transformer,
)

CANARY = "CANARY-93e1c7"


def sphere_distance_m(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Great-circle distance by the Vincenty formula on a sphere: a code path independent of
    veil's (haversine in the report, destination formula in the transform)."""
    p1, p2, dl = np.radians(lat1), np.radians(lat2), np.radians(np.asarray(lon2) - np.asarray(lon1))
    num = np.hypot(
        np.cos(p2) * np.sin(dl), np.cos(p1) * np.sin(p2) - np.sin(p1) * np.cos(p2) * np.cos(dl)
    )
    den = np.sin(p1) * np.sin(p2) + np.cos(p1) * np.cos(p2) * np.cos(dl)
    return 6_371_008.8 * np.arctan2(num, den)


KEY32 = Secret(
    bytes.fromhex("d329e93a4a538cdf31438819f731646e330676d742578350b4099d191a79df59"), source="test"
)
KEY16 = Secret(bytes.fromhex("fefb03525e22c49de2be63f18cc3e9ee"), source="test")


def assert_no_canary(exc: BaseException, *secrets: str) -> None:
    """The canary (and any secret) appears nowhere in the error, its hint or the chain shown."""
    parts: list[str] = []
    current: BaseException | None = exc
    while current is not None:
        parts += traceback.format_exception_only(current)
        parts.append(str(getattr(current, "hint", "")))
        chained = current.__cause__
        if chained is None and not current.__suppress_context__:
            chained = current.__context__
        current = chained
    text = " ".join(parts)
    for needle in (CANARY, *secrets):
        assert needle not in text


# --------------------------------------------------------------------------- registry / factory


def test_registry_covers_every_transform_type_of_the_policy() -> None:
    union = typing.get_args(typing.get_args(models.TransformConfig)[0])
    policy_types = {typing.get_args(m.model_fields["type"].annotation)[0] for m in union}
    assert set(TRANSFORMS.names()) == policy_types
    for name in TRANSFORMS.names():
        assert TRANSFORMS.get(name).name == name


def test_unknown_transform_lists_the_valid_ones() -> None:
    with pytest.raises(PolicyError, match="tokenize"):
        TRANSFORMS.get("scramble")


@pytest.mark.parametrize(
    ("config", "cls"),
    [
        (models.DropTransform(), DropTransformer),
        (models.KeepTransform(), KeepTransformer),
        (models.MaskTransform(keep_first=1, keep_last=2, char="#"), MaskTransformer),
        (models.DateGeneralizeTransform(level="year"), DateGeneralizeTransformer),
        (models.GeoRoundTransform(longitude_column="lon", grid=0.1), GeoRoundTransformer),
        (models.NoiseTransform(scale=3, seed=4), AdditiveNoiseTransformer),
        (models.TopBottomCodeTransform(upper_quantile=0.9), TopBottomCodeTransformer),
    ],
)
def test_factory_copies_the_policy_parameters(config, cls) -> None:
    built = build_transformer(config, column="c", environ={})
    assert type(built) is cls
    for field in type(config).model_fields:
        if field in built.get_params():
            assert built.get_params()[field] == getattr(config, field)


H_HEX = "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"
F_HEX = "f32819e4cf4dfa7a8d918d230eeb1972"


def test_factory_resolves_keys_and_maps_columns() -> None:
    env = {"H": H_HEX, "F": F_HEX, "T": "33" * 7}
    shift = build_transformer(
        models.DateShiftTransform(entity_column="pid", key_env="H", max_days=9),
        column="visit",
        environ=env,
    )
    assert isinstance(shift, DateShiftTransformer)
    assert (shift.column, shift.entity_column, shift.max_days) == ("visit", "pid", 9)
    assert shift.key == Secret(bytes.fromhex(H_HEX))
    token = build_transformer(
        models.TokenizeTransform(key_env="F", tweak_env="T", alphabet="alnum"),
        column="id",
        environ=env,
    )
    assert isinstance(token, TokenizeTransformer)
    assert token.tweak == Secret(bytes.fromhex("33" * 7)) and token.alphabet == "alnum"
    geo = build_transformer(
        models.GeoDisplaceTransform(longitude_column="lon", seed=3), column="lat", environ={}
    )
    assert geo.columns_in == ["lat", "lon"]


@pytest.mark.parametrize(
    "config",
    [
        models.HashTransform(key_env="VEIL_TEST_NO_SUCH_KEY"),
        models.TokenizeTransform(key_env="VEIL_TEST_NO_SUCH_KEY"),
        models.DateShiftTransform(entity_column="pid", key_env="VEIL_TEST_NO_SUCH_KEY"),
    ],
)
def test_factory_without_the_key_names_column_transform_and_variable(config) -> None:
    with pytest.raises(KeyMissingError) as info:
        build_transformer(config, column="patient", environ={"OTHER": "ab" * 32})
    msg = str(info.value)
    assert "'patient'" in msg and f"'{config.type}'" in msg and "VEIL_TEST_NO_SUCH_KEY" in msg
    assert_no_canary(info.value, "ab" * 8)


def test_factory_with_a_wrong_length_key_says_so_without_the_key() -> None:
    key = "0f1e2d3c4b5a6978" * 2 + "aabbccdd"  # 20 bytes: not an AES key size
    with pytest.raises(KeyMissingError, match="20 bytes") as info:
        build_transformer(models.TokenizeTransform(key_env="K"), column="ssn", environ={"K": key})
    assert_no_canary(info.value, key, key[:10])


def test_repr_and_params_never_show_key_bytes() -> None:
    t = KeyedHashTransformer(key=Secret(b"\xab" * 32))
    assert "ab" * 4 not in repr(t) and "<secret>" in repr(t)
    assert "ab" * 4 not in repr(t.get_params())


def test_transform_before_fit_is_an_error() -> None:
    with pytest.raises(VeilError, match="not fitted"):
        MaskTransformer().transform(pd.Series(["abc"]))


# --------------------------------------------------------------------------- drop / keep / mask


def test_drop_returns_no_columns_and_keep_copies() -> None:
    s = pd.Series(["a", None], name="email")
    assert DropTransformer().fit_transform(s).shape == (2, 0)
    kept = KeepTransformer().fit_transform(s)
    assert kept.tolist() == ["a", None] and kept is not s


@pytest.mark.parametrize(
    ("kwargs", "value", "expected"),
    [
        ({"keep_last": 4}, "123-45-6789", "*******6789"),
        ({"keep_first": 2, "keep_last": 0, "char": "#"}, "secret", "se####"),
        ({"keep_first": 1, "keep_last": 1}, "abcd", "a**d"),
        ({"keep_last": 4}, "1234", "****"),  # too short to keep anything: fully masked
        ({"keep_first": 2, "keep_last": 2}, "abc", "***"),
        ({"keep_last": 0}, "", ""),
    ],
)
def test_mask_examples(kwargs, value, expected) -> None:
    assert MaskTransformer(**kwargs).fit_transform(pd.Series([value])).tolist() == [expected]


def test_mask_passes_missing_and_counts_fully_masked() -> None:
    t = MaskTransformer(keep_last=2)
    s = pd.Series(["abcdef", None, "ab", np.nan], name="x")
    out = t.fit_transform(s)
    assert out[0] == "****ef" and out[1] is None and pd.isna(out[3]) and out[2] == "**"
    stats = t.summarize(s, out)
    assert stats == {"rows": 4, "missing": 2, "changed": 2, "fully_masked": 1}


def test_mask_rejects_a_multi_character_mask() -> None:
    with pytest.raises(PolicyError):
        MaskTransformer(char="**").fit(pd.Series(["abc"]))


# --------------------------------------------------------------------------- keyed hash


def test_hash_matches_an_independent_hmac_sha256() -> None:
    key = KEY32.reveal()
    out = KeyedHashTransformer(key=Secret(key), length=20).fit_transform(
        pd.Series(["alice", 123, 123.0, None])
    )
    expect = hmac.new(key, b"alice", hashlib.sha256).hexdigest()[:20]
    assert out[0] == expect
    assert out[1] == out[2] == hmac.new(key, b"123", hashlib.sha256).hexdigest()[:20]
    assert out[3] is None


def test_hash_refuses_to_run_unkeyed_or_with_a_short_key() -> None:
    s = pd.Series([CANARY], name="name")
    with pytest.raises(KeyMissingError, match="unkeyed") as info:
        KeyedHashTransformer(key=None).fit(s)
    assert "name" in str(info.value)
    assert_no_canary(info.value)
    with pytest.raises(KeyMissingError, match="8 bytes"):
        KeyedHashTransformer(key=Secret(b"k" * 8)).fit(s)


def test_hash_length_bounds_and_collision_count() -> None:
    with pytest.raises(PolicyError):
        KeyedHashTransformer(key=KEY32, length=4).fit(pd.Series(["a"]))
    t = KeyedHashTransformer(key=KEY32, length=8)
    s = pd.Series([str(i) for i in range(2000)])
    assert t.summarize(s, t.fit_transform(s))["collisions"] == 0


# --------------------------------------------------------------------------- FF3-1 tokenization


@pytest.mark.parametrize(
    ("alphabet", "key", "tweak", "plain", "cipher"),
    [
        # NIST ACVP FF3-1 vectors (56-bit tweaks), as published with the ff3 package's tests.
        (
            "digits",
            "2DE79D232DF5585D68CE47882AE256D6",
            "CBD09280979564",
            "3992520240",
            "8901801106",
        ),
        ("lower", "718385E6542534604419E83CE387A437", "B6F35084FA90E1", "wfmwlrorcd", "ywowehycyd"),
    ],
)
def test_tokenize_reproduces_nist_ff3_1_vectors(alphabet, key, tweak, plain, cipher) -> None:
    t = TokenizeTransformer(
        key=Secret(bytes.fromhex(key)), tweak=Secret(bytes.fromhex(tweak)), alphabet=alphabet
    )
    assert t.fit_transform(pd.Series([plain])).tolist() == [cipher]
    assert t.inverse_transform(pd.Series([cipher])).tolist() == [plain]


def test_tokenize_keeps_the_format_and_round_trips() -> None:
    t = TokenizeTransformer(key=KEY16, alphabet="digits")
    s = pd.Series(["123-45-6789", None, "4111 1111 1111 1111", 5551234567], name="id")
    out = t.fit_transform(s)
    assert out[0] != s[0] and out[0][3] == "-" and out[0][6] == "-" and len(out[0]) == 11
    assert out[1] is None
    assert [i for i, c in enumerate(out[2]) if c == " "] == [4, 9, 14]
    back = t.inverse_transform(out)
    assert back.tolist() == ["123-45-6789", None, "4111 1111 1111 1111", "5551234567"]


def test_tokens_are_deterministic_and_depend_on_key_and_tweak() -> None:
    s = pd.Series(["alice@example.com"])
    a = TokenizeTransformer(key=KEY32, alphabet="alnum").fit_transform(s)[0]
    b = TokenizeTransformer(key=KEY32, alphabet="alnum").fit_transform(s)[0]
    c = TokenizeTransformer(key=KEY16, alphabet="alnum").fit_transform(s)[0]
    d = TokenizeTransformer(key=KEY32, tweak=b"\x01" * 7, alphabet="alnum").fit_transform(s)[0]
    assert a == b and len({a, c, d}) == 3
    assert a[a.index("@")] == "@" and a.count(".") == 1


def test_tokenize_long_values_are_chunked_and_reversible() -> None:
    t = TokenizeTransformer(key=KEY32, alphabet="digits")
    value = "".join(str(i % 10) for i in range(131))  # > 56 digits: three chunks
    out = t.fit_transform(pd.Series([value]))[0]
    assert len(out) == 131 and out.isdigit() and out != value
    assert t.inverse_transform(pd.Series([out]))[0] == value


def test_tokenize_refuses_values_too_short_for_ff3_1_without_quoting_them() -> None:
    t = TokenizeTransformer(key=KEY32, alphabet="digits")
    with pytest.raises(InputError, match=r"2 of 3 value\(s\).*at least 6") as info:
        t.fit_transform(pd.Series(["12345", "123456", "C-1"], name="code"))
    assert "'code'" in str(info.value)
    assert_no_canary(info.value, "12345")


def test_tokenize_without_keep_format_rejects_other_characters() -> None:
    t = TokenizeTransformer(key=KEY32, alphabet="digits", keep_format=False)
    assert t.fit_transform(pd.Series(["123456789"]))[0].isdigit()
    with pytest.raises(InputError, match="only characters") as info:
        t.transform(pd.Series([f"{CANARY}123456"]))
    assert_no_canary(info.value)


def test_tokenize_key_and_tweak_lengths_are_checked() -> None:
    s = pd.Series(["123456789"], name="ssn")
    with pytest.raises(KeyMissingError, match="20 bytes"):
        TokenizeTransformer(key=Secret(b"k" * 20)).fit(s)
    with pytest.raises(KeyMissingError, match="8 bytes"):
        TokenizeTransformer(key=KEY16, tweak=b"t" * 8).fit(s)
    with pytest.raises(KeyMissingError, match="unkeyed"):
        TokenizeTransformer().fit(s)
    with pytest.raises(PolicyError, match="alphabet"):
        TokenizeTransformer(key=KEY16, alphabet="hex").fit(s)


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("day", ["2024-03-09", None, "1999-12-31"]),
        ("month", ["2024-03", None, "1999-12"]),
        ("quarter", ["2024Q1", None, "1999Q4"]),
        ("year", ["2024", None, "1999"]),
    ],
)
def test_date_generalize_levels(level, expected) -> None:
    s = pd.Series(["2024-03-09T10:30:00", None, "1999-12-31"], name="d")
    assert DateGeneralizeTransformer(level).fit_transform(s).tolist() == expected


def test_date_generalize_accepts_datetimes_and_time_zones() -> None:
    s = pd.Series(pd.to_datetime(["2024-07-01 23:30", None]).tz_localize("Europe/Paris"))
    out = DateGeneralizeTransformer("month").fit_transform(s)
    assert out[0] == "2024-07" and pd.isna(out[1])
    mixed = pd.Series(["2024-01-31", "03/02/2024", "Feb 5 2023"])
    assert DateGeneralizeTransformer("year").fit_transform(mixed).tolist() == [
        "2024",
        "2024",
        "2023",
    ]


def test_non_dates_in_a_date_column_are_counted_not_quoted() -> None:
    s = pd.Series(["2024-01-01", CANARY, "not a date either", None], name="birth")
    with pytest.raises(InputError, match=r"'birth': 2 of 4 value\(s\) are not dates") as info:
        DateGeneralizeTransformer("year").fit_transform(s)
    assert_no_canary(info.value, "not a date either")
    df = pd.DataFrame({"visit": [CANARY], "pid": [1]})
    with pytest.raises(InputError) as info:
        DateShiftTransformer(KEY32, column="visit", entity_column="pid").fit_transform(df)
    assert_no_canary(info.value)


def _expected_offset(key: bytes, entity: str, max_days: int) -> int:
    """The documented offset formula, computed here independently of veil's code."""
    subkey = hmac.new(key, b"veil\x00date_shift offset\x00v1", hashlib.sha256).digest()
    word = hmac.new(subkey, entity.encode(), hashlib.sha256).digest()[:8]
    return int.from_bytes(word, "big") % (2 * max_days + 1) - max_days


def test_date_shift_offsets_follow_the_documented_formula() -> None:
    df = pd.DataFrame(
        {
            "visit": ["2024-01-01", "2024-01-11", "2020-06-30 08:15", "2021-01-01", "2021-01-02"],
            "pid": [7, 7, 8, None, 9.0],
        }
    )
    t = DateShiftTransformer(KEY32, column="visit", entity_column="pid", max_days=45)
    out = t.fit_transform(df)
    assert out["pid"].equals(df["pid"])  # the entity column is read, not changed
    base = pd.to_datetime(df["visit"], format="ISO8601")
    for row, entity in ((0, "7"), (1, "7"), (2, "8"), (4, "9")):
        shift = _expected_offset(KEY32.reveal(), entity, 45)
        assert out["visit"][row] - base[row] == pd.Timedelta(days=shift)
    assert pd.isna(out["visit"][3])  # missing entity: no consistent offset, so missing
    assert t.summarize(df, out)["entity_missing"] == 1
    restored = t.inverse_transform(out)
    assert restored["visit"][[0, 1, 2, 4]].tolist() == base[[0, 1, 2, 4]].tolist()


def test_date_shift_out_of_range_is_an_error_without_the_date() -> None:
    df = pd.DataFrame({"visit": pd.to_datetime(["2262-04-10"]), "pid": [1]})
    t = DateShiftTransformer(KEY32, column="visit", entity_column="pid", max_days=3650)
    with pytest.raises(InputError, match="supported range") as info:
        for pid in range(50):  # some entity gets a positive offset
            t.fit_transform(df.assign(pid=pid))
    assert_no_canary(info.value, "2262-04")


def test_date_shift_needs_its_columns_and_a_key() -> None:
    df = pd.DataFrame({"visit": ["2024-01-01"]})
    with pytest.raises(SchemaError, match="pid"):
        DateShiftTransformer(KEY32, column="visit", entity_column="pid").fit(df)
    with pytest.raises(KeyMissingError, match="visit"):
        DateShiftTransformer(None, column="visit", entity_column="pid").fit(df)
    with pytest.raises(PolicyError):
        DateShiftTransformer(KEY32, column="visit", entity_column="visit").fit(df)


# --------------------------------------------------------------------------- geo


def test_geo_round_snaps_to_the_grid_and_passes_missing() -> None:
    df = pd.DataFrame({"lat": [48.85661, None, 89.99], "lon": [2.35222, 10.0, 179.99]})
    out = GeoRoundTransformer("lat", "lon", grid=0.01).fit_transform(df)
    assert out["lat"].tolist()[0] == 48.86 and out["lon"].tolist()[0] == 2.35
    assert np.isnan(out["lat"][1]) and out["lon"][1] == 10.0
    coarse = GeoRoundTransformer("lat", "lon", grid=7).fit_transform(df)
    assert coarse["lat"][2] == 90.0 and -180 <= coarse["lon"][2] <= 180


def test_geo_rejects_out_of_range_and_non_numeric_coordinates() -> None:
    with pytest.raises(InputError, match="latitude range"):
        GeoRoundTransformer("lat", "lon").fit_transform(pd.DataFrame({"lat": [91.0], "lon": [0.0]}))
    df = pd.DataFrame({"lat": [CANARY, "1.0"], "lon": [0.0, 0.0]})
    with pytest.raises(InputError, match="not numbers") as info:
        GeoDisplaceTransformer("lat", "lon", seed=1).fit_transform(df)
    assert_no_canary(info.value)
    with pytest.raises(SchemaError, match="lon"):
        GeoRoundTransformer("lat", "lon").fit(pd.DataFrame({"lat": [1.0]}))


def test_geo_displace_is_seeded_and_stays_in_the_donut() -> None:
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"lat": rng.uniform(-80, 80, 500), "lon": rng.uniform(-180, 180, 500)})
    t = GeoDisplaceTransformer("lat", "lon", min_radius_m=250, max_radius_m=1500, seed=42)
    a, b = t.fit_transform(df), t.fit_transform(df)
    assert a.equals(b)
    other = GeoDisplaceTransformer("lat", "lon", min_radius_m=250, max_radius_m=1500, seed=43)
    assert not a.equals(other.fit_transform(df))
    d = sphere_distance_m(df.lat.to_numpy(), df.lon.to_numpy(), a.lat.to_numpy(), a.lon.to_numpy())
    assert d.min() >= 250 - 1e-3 and d.max() <= 1500 + 1e-3
    # uniform over the annulus area: P(r < median radius) = 1/2
    r_med = np.sqrt((250**2 + 1500**2) / 2)
    assert 0.4 < float((d < r_med).mean()) < 0.6


def test_geo_displace_moves_a_repeated_point_to_one_place() -> None:
    df = pd.DataFrame({"lat": [10.0, 10.0, 10.0, 11.0], "lon": [20.0, 20.0, 20.0, 20.0]})
    out = GeoDisplaceTransformer("lat", "lon", seed=9).fit_transform(df)
    assert out.iloc[0].equals(out.iloc[1]) and out.iloc[0].equals(out.iloc[2])
    assert not out.iloc[0].equals(out.iloc[3])


def test_geo_displace_blanks_half_missing_pairs() -> None:
    df = pd.DataFrame({"lat": [10.0, None, 20.0], "lon": [10.0, 5.0, 20.0]})
    t = GeoDisplaceTransformer("lat", "lon", seed=0)
    out = t.fit_transform(df)
    assert np.isnan(out["lon"][1]) and np.isnan(out["lat"][1])
    assert t.summarize(df, out)["incomplete"] == 1


# --------------------------------------------------------------------------- numbers


def test_top_bottom_code_with_values_and_learned_quantiles() -> None:
    s = pd.Series(range(1, 101), name="income")
    out = TopBottomCodeTransformer(lower=10, upper=90).fit_transform(s)
    assert out.min() == 10 and out.max() == 90 and out.dtype == s.dtype
    t = TopBottomCodeTransformer(lower_quantile=0.05, upper_quantile=0.95).fit(s)
    assert (t.lower_, t.upper_) == (6.0, 95.0)  # learned in fit, values of the column
    applied = t.transform(pd.Series([0, 50, 1000, None]))
    assert applied[:3].tolist() == [6, 50, 95] and pd.isna(applied[3])
    stats = t.summarize(s, t.transform(s))
    assert (stats["bottom_coded"], stats["top_coded"]) == (5, 5)


def test_top_bottom_code_bad_input() -> None:
    with pytest.raises(InputError, match=r"1 of 3 value\(s\) are not numbers") as info:
        TopBottomCodeTransformer(upper=5).fit(pd.Series([1, CANARY, None], name="x"))
    assert_no_canary(info.value)
    with pytest.raises(PolicyError, match="lower bound is above"):
        TopBottomCodeTransformer(lower=10, upper=5).fit(pd.Series([1.0]))
    with pytest.raises(PolicyError):
        TopBottomCodeTransformer().fit(pd.Series([1.0]))
    with pytest.raises(InputError, match="no values"):
        TopBottomCodeTransformer(upper_quantile=0.9).fit(pd.Series([None, None], dtype=float))


def test_noise_is_seeded_passes_missing_and_scales() -> None:
    s = pd.Series(np.linspace(0, 100, 2001), name="v")
    a = AdditiveNoiseTransformer(scale=2.0, seed=1).fit_transform(s)
    b = AdditiveNoiseTransformer(scale=2.0, seed=1).fit_transform(s)
    assert a.equals(b)
    assert 1.8 < float((a - s).std()) < 2.2
    rel = AdditiveNoiseTransformer(scale=0.1, relative=True, seed=1).fit(s)
    assert rel.scale_ == pytest.approx(0.1 * s.std())
    uni = AdditiveNoiseTransformer(scale=3.0, distribution="uniform", seed=2).fit_transform(s)
    assert float((uni - s).abs().max()) <= 3.0
    ints = pd.Series([30, 40, 50], name="age")
    rounded = AdditiveNoiseTransformer(scale=5, round_to=0, seed=3).fit_transform(ints)
    assert rounded.dtype == ints.dtype
    with_missing = AdditiveNoiseTransformer(scale=1, seed=0).fit_transform(pd.Series([1.0, None]))
    assert pd.isna(with_missing[1]) and not pd.isna(with_missing[0])


def test_noise_bad_input() -> None:
    with pytest.raises(InputError, match="not numbers") as info:
        AdditiveNoiseTransformer(scale=1).fit(pd.Series([1.0, CANARY], name="salary"))
    assert "'salary'" in str(info.value)
    assert_no_canary(info.value)
    with pytest.raises(InputError, match="booleans"):
        AdditiveNoiseTransformer(scale=1).fit(pd.Series([True, False]))
    with pytest.raises(InputError, match="standard deviation"):
        AdditiveNoiseTransformer(scale=1, relative=True).fit(pd.Series([5.0, 5.0]))
    with pytest.raises(PolicyError):
        AdditiveNoiseTransformer(scale=1, distribution="laplace").fit(pd.Series([1.0]))


def test_noise_is_documented_as_not_differential_privacy() -> None:
    doc = AdditiveNoiseTransformer.__doc__ or ""
    assert "NOT differential privacy" in doc
    assert "epsilon" not in AdditiveNoiseTransformer._param_names()


def test_single_column_transforms_reject_wide_frames() -> None:
    with pytest.raises(InputError, match="one column"):
        MaskTransformer().fit(pd.DataFrame({"a": [1], "b": [2]}))
