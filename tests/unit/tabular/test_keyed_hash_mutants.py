"""The keyed hash, on what mutation testing showed untested.

Its refusals (no key, a short key, a weak key, a length out of range) with their exact
messages and edges, a key given as bytes, text that is not valid UTF-8, and the collision
count of the report. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import hashlib
import hmac

import pandas as pd
import pytest

from veil import KeyMissingError, PolicyError
from veil.tabular import KeyedHashTransformer, Secret
from veil.tabular._keys import HMAC_MIN_BYTES

KEY = bytes.fromhex("d329e93a4a538cdf31438819f731646e330676d742578350b4099d191a79df59")
VALUE = "CANARY-5c1d"


def _hmac(key: bytes, text: str, length: int) -> str:
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:length]


def test_no_key_is_refused_naming_the_column_and_how_to_get_one() -> None:
    with pytest.raises(KeyMissingError) as info:
        KeyedHashTransformer(key=None).fit(pd.Series([VALUE], name="ssn"))
    assert info.value.message == (
        "column 'ssn': the 'hash' transform has no key; veil refuses to run it unkeyed"
    )
    assert info.value.hint == (
        "give a key from an environment variable or a key file ('veil keygen --out FILE' "
        "makes one); an unkeyed hash of a low-entropy identifier is reversible by enumeration"
    )
    assert VALUE not in str(info.value)


def test_a_key_of_the_minimum_length_is_accepted_one_byte_less_is_refused() -> None:
    s = pd.Series(["a", "b"], name="id")
    ok = KeyedHashTransformer(key=Secret(KEY[:HMAC_MIN_BYTES])).fit(s)
    assert ok.transform(s).tolist() == [_hmac(KEY[:16], "a", 16), _hmac(KEY[:16], "b", 16)]
    with pytest.raises(KeyMissingError) as info:
        KeyedHashTransformer(key=Secret(KEY[: HMAC_MIN_BYTES - 1])).fit(s)
    assert info.value.message == (
        "column 'id': the 'hash' key is 15 bytes; an HMAC key needs at least 16"
    )
    assert info.value.hint == "make one with 'veil keygen --out FILE'"


def test_a_key_given_as_bytes_is_used_as_given() -> None:
    s = pd.Series(["alice"], name="name")
    t = KeyedHashTransformer(key=KEY, length=64).fit(s)
    assert t.key_.reveal() == KEY
    assert t.key_.source == "argument"
    assert t.transform(s).tolist() == [_hmac(KEY, "alice", 64)]


def test_a_weak_key_is_refused_naming_the_column_and_transform() -> None:
    from veil import WeakKeyError

    with pytest.raises(WeakKeyError) as info:
        KeyedHashTransformer(key=Secret(bytes(32), source="a test")).fit(
            pd.Series([VALUE], name="mrn")
        )
    assert info.value.message.startswith(
        "column 'mrn': the 'hash' key (a test) is one byte value repeated"
    )


@pytest.mark.parametrize(("length", "ok"), [(7, False), (8, True), (64, True), (65, False)])
def test_the_length_runs_from_8_to_64_hex_characters(length: int, ok: bool) -> None:
    s = pd.Series(["a"], name="id")
    t = KeyedHashTransformer(key=KEY, length=length)
    if not ok:
        with pytest.raises(PolicyError) as info:
            t.fit(s)
        assert info.value.message == "hash: length must be between 8 and 64 hex characters"
        return
    assert t.fit_transform(s).tolist() == [_hmac(KEY, "a", length)]


def test_default_length_is_16_and_missing_values_stay_missing() -> None:
    s = pd.Series(["a", None, "a"], name="id", index=[10, 20, 30])
    out = KeyedHashTransformer(key=KEY).fit_transform(s)
    assert out.index.tolist() == [10, 20, 30]
    assert out.tolist() == [_hmac(KEY, "a", 16), None, _hmac(KEY, "a", 16)]


def test_text_that_is_not_valid_utf8_is_hashed_not_refused() -> None:
    # a lone surrogate (from a file read with errors="surrogateescape") still has one hash
    s = pd.Series(["caf\udce9", "caf\udce9", "cafe"], name="name")
    out = KeyedHashTransformer(key=KEY).fit_transform(s)
    assert out.tolist() == [_hmac(KEY, "caf\udce9", 16)] * 2 + [_hmac(KEY, "cafe", 16)]


def test_the_report_counts_collisions_and_changed_cells_never_values() -> None:
    s = pd.Series(["a", "b", "b", "c", None], name="id")
    t = KeyedHashTransformer(key=KEY, length=8).fit(s)
    summary = t.summarize(s, t.transform(s))
    assert summary == {"rows": 5, "missing": 1, "changed": 4, "collisions": 0}
    # two inputs that came out the same (as 8 hex characters can): distinct in - distinct out
    collided = pd.Series(["h1", "h1", "h1", "h2", None])
    assert t.summarize(s, collided)["collisions"] == 1
