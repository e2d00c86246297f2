"""FF3-1 tokenization, on what mutation testing showed untested.

Building the transform from a policy (a key file relative to the policy's folder, a tweak
variable named but unset, the default tweak variable), and the check values recorded with
a release. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from veil import InputError, KeyMissingError
from veil._keystrength import key_check_value
from veil.policy._transform_models import TokenizeTransform
from veil.tabular import Secret, TokenizeTransformer, build_transformer

KEY_HEX = "5c0f9e2a7b31d84466e1a90f3c7d52b8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f3a6"
TWEAK = bytes.fromhex("a1b2c3d4e5f607")


def test_a_relative_key_file_is_read_from_the_policy_folder(tmp_path: Path) -> None:
    (tmp_path / "fpe.key").write_text(KEY_HEX)
    t = build_transformer(
        TokenizeTransform(key_file=Path("fpe.key"), key_env=None),
        column="ssn",
        base_dir=tmp_path,
        environ={},
    )
    assert isinstance(t, TokenizeTransformer)
    assert t.key == Secret(bytes.fromhex(KEY_HEX))
    assert t.tweak is None


def test_a_tweak_variable_named_in_the_policy_must_be_set() -> None:
    with pytest.raises(KeyMissingError) as info:
        build_transformer(
            TokenizeTransform(key_env="K", tweak_env="T"), column="ssn", environ={"K": KEY_HEX}
        )
    assert info.value.message == (
        "column 'ssn': the 'tokenize' transform names the tweak variable T, which is not set"
    )


def test_the_default_tweak_variable_unset_derives_the_tweak_from_the_key() -> None:
    t = build_transformer(TokenizeTransform(key_env="K"), column="ssn", environ={"K": KEY_HEX})
    assert isinstance(t, TokenizeTransformer)
    assert t.tweak is None
    t = build_transformer(
        TokenizeTransform(key_env="K"),
        column="ssn",
        environ={"K": KEY_HEX, "VEIL_FPE_TWEAK": TWEAK.hex()},
    )
    assert isinstance(t, TokenizeTransformer)
    assert t.tweak == Secret(TWEAK)


def test_key_checks_bind_a_tweak_given_apart() -> None:
    key = bytes.fromhex(KEY_HEX)
    assert TokenizeTransformer(key=None).key_checks() == {}
    assert TokenizeTransformer(key=Secret(key)).key_checks() == {"key_check": key_check_value(key)}
    expected = {
        "key_check": key_check_value(key),
        "tweak_check": key_check_value(key, b"tweak\x00" + TWEAK),
    }
    assert TokenizeTransformer(key=Secret(key), tweak=Secret(TWEAK)).key_checks() == expected
    # key and tweak given as bytes: the same values
    assert TokenizeTransformer(key=key, tweak=TWEAK).key_checks() == expected
    # no key: nothing to bind the tweak to
    assert TokenizeTransformer(key=None, tweak=TWEAK).key_checks() == {}


def test_a_value_longer_than_one_ff3_1_call_is_cut_into_chunks_with_their_own_tweaks() -> None:
    import hashlib
    import hmac

    import pandas as pd
    from ff3 import FF3Cipher

    key = bytes.fromhex(KEY_HEX)
    cipher = FF3Cipher.withCustomAlphabet(key.hex(), TWEAK.hex(), "0123456789")
    t = TokenizeTransformer(key=Secret(key), tweak=Secret(TWEAK), alphabet="digits")
    # 56 digits (2 * floor(96 / log2 10)): one FF3-1 call under the tweak itself
    v56 = "".join(str(i * 7 % 10) for i in range(56))
    assert t.fit_transform(pd.Series([v56])).tolist() == [cipher.encrypt(v56)]
    # 58 digits: two chunks of 29, each under HMAC(tweak, label k i)[:7]
    v58 = "".join(str(i * 3 % 10) for i in range(58))
    tweaks = [
        hmac.new(
            TWEAK,
            b"veil\x00ff3-1 chunk\x00" + (2).to_bytes(4, "big") + i.to_bytes(4, "big"),
            hashlib.sha256,
        ).digest()[:7]
        for i in range(2)
    ]
    expected = cipher.encrypt_with_tweak(v58[:29], tweaks[0].hex()) + cipher.encrypt_with_tweak(
        v58[29:], tweaks[1].hex()
    )
    out = t.fit_transform(pd.Series([v58])).tolist()
    assert out == [expected]
    assert t.inverse_transform(pd.Series(out)).tolist() == [v58]
    # 57 digits: chunks of 29 and 28 (the first takes the remainder), same tweaks
    v57 = v58[:57]
    expected = cipher.encrypt_with_tweak(v57[:29], tweaks[0].hex()) + cipher.encrypt_with_tweak(
        v57[29:], tweaks[1].hex()
    )
    assert t.transform(pd.Series([v57])).tolist() == [expected]


_SHORT_HINT = (
    "use a larger alphabet (alnum, letters), keep_format: true, or hash or mask this column "
    "instead; short values are refused because no padding keeps them both length-preserving "
    "and reversible"
)


def test_values_too_short_are_refused_by_count_with_the_rule_and_the_way_out() -> None:
    import pandas as pd

    key = Secret(bytes.fromhex(KEY_HEX))
    s = pd.Series(["12345", "123456", "C-1"], name="code")
    t = TokenizeTransformer(key=key).fit(s)
    with pytest.raises(InputError) as info:
        t.transform(s)
    assert info.value.message == (
        "column 'code': 2 of 3 value(s) cannot be tokenized: FF3-1 needs at least 6 "
        "characters from the 'digits' alphabet"
    )
    assert info.value.hint == _SHORT_HINT
    with pytest.raises(InputError) as info:
        t.inverse_transform(s)
    assert info.value.message.startswith("column 'code': 2 of 3 value(s) cannot be de-tokenized")
    strict = TokenizeTransformer(key=key, keep_format=False).fit(s)
    with pytest.raises(InputError) as info:
        strict.transform(pd.Series(["123456", "12-3456"], name="code"))
    assert info.value.message == (
        "column 'code': 1 of 2 value(s) cannot be tokenized: FF3-1 needs only characters "
        "from the 'digits' alphabet, at least 6"
    )


def test_fit_refusals_name_the_column_and_the_fix() -> None:
    import pandas as pd

    from veil import PolicyError, WeakKeyError

    s = pd.Series(["123456"], name="ssn")
    key = Secret(bytes.fromhex(KEY_HEX))
    with pytest.raises(PolicyError) as info:
        TokenizeTransformer(key=key, alphabet="hex").fit(s)
    assert info.value.message == "tokenize: unknown alphabet 'hex'"
    assert info.value.hint == "use one of: digits, lower, upper, alnum, letters"
    with pytest.raises(KeyMissingError) as info:
        TokenizeTransformer(key=None).fit(s)
    assert info.value.message == (
        "column 'ssn': the 'tokenize' transform has no key; veil refuses to run it unkeyed"
    )
    with pytest.raises(KeyMissingError) as info:
        TokenizeTransformer(key=Secret(bytes.fromhex(KEY_HEX)[:20])).fit(s)
    assert info.value.message == (
        "column 'ssn': the 'tokenize' key is 20 bytes; FF3-1 (AES) needs exactly 16, 24 or 32"
    )
    assert info.value.hint == "make one with 'veil keygen --out FILE'"
    with pytest.raises(WeakKeyError) as info:
        TokenizeTransformer(key=Secret(bytes(16), source="a test")).fit(s)
    assert info.value.message.startswith(
        "column 'ssn': the 'tokenize' key (a test) is one byte value repeated"
    )
    with pytest.raises(KeyMissingError) as info:
        TokenizeTransformer(key=key, tweak=TWEAK[:6]).fit(s)
    assert info.value.message == (
        "column 'ssn': the FF3-1 tweak is 6 bytes; it must be 7 bytes (56 bits, 14 hex digits)"
    )
    assert info.value.hint == "fix the tweak variable, or unset it to derive the tweak from the key"


def test_without_a_tweak_it_is_derived_from_the_key() -> None:
    import hashlib
    import hmac

    import pandas as pd
    from ff3 import FF3Cipher

    key = bytes.fromhex(KEY_HEX)
    tweak = hmac.new(key, b"veil\x00ff3-1 tweak\x00v1", hashlib.sha256).digest()[:7]
    t = TokenizeTransformer(key=Secret(key)).fit(pd.Series(["123456"]))
    assert repr(t.tweak_) == "Secret(7 bytes from tweak)"
    expected = FF3Cipher.withCustomAlphabet(key.hex(), tweak.hex(), "0123456789").encrypt("123456")
    assert t.transform(pd.Series(["123456"])).tolist() == [expected]
