"""Text operators, on what mutation testing showed untested.

The keyed operators' outputs recomputed from their documented construction (HMAC-SHA256
subkeys with a label, AES-SIV/AES-GCM from ``cryptography``), so a changed label, length or
option name changes a value the test knows; their options' edges and their key check
values. docs/mutation.md lists the mutants these kill.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from veil import KeyMissingError, PolicyError
from veil._keystrength import key_check_value
from veil.text.replacement._operators import (
    EncryptOperator,
    FpeOperator,
    HashOperator,
    MaskOperator,
    Operator,
    PlaceholderOperator,
    RedactOperator,
    SurrogateOperator,
    VaultOperator,
    make_operator,
)

KEY = bytes.fromhex("8c1f4be0a97d23561e0c7f3a92d4b6e85f01a3c7d9e2b4f6a8c0e2d4f6a8b0c2")


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for env in ("VEIL_HMAC_KEY", "VEIL_ENC_KEY", "VEIL_FPE_KEY"):
        monkeypatch.setenv(env, "hex:" + KEY.hex())


def _derive(key: bytes, label: str, length: int = 32) -> bytes:
    """The documented subkey: HMAC-SHA256 expansion of ``veil-text NUL label counter``."""
    out, counter = b"", 0
    while len(out) < length:
        counter += 1
        out += hmac.new(
            key, b"veil-text\x00" + label.encode() + bytes([counter]), hashlib.sha256
        ).digest()
    return out[:length]


def _hmac_hex(label: str, message: bytes) -> str:
    return hmac.new(_derive(KEY, label), message, hashlib.sha256).hexdigest()


def test_hash_is_hmac_of_the_normalised_value_under_the_hash_subkey() -> None:
    op = HashOperator()
    assert op.length == 16 and op.prefix is False
    # a phone number loses its separators; the entity type is bound in front
    assert (
        op.replace("617-555-0199", "PHONE_NUMBER")
        == _hmac_hex("hash", b"PHONE_NUMBER\x006175550199")[:16]
    )
    assert op.key_check == key_check_value(KEY)


def test_hash_length_and_prefix_options() -> None:
    expected = _hmac_hex("hash", b"PERSON\x00ann lee")
    assert HashOperator(length=64).replace("Ann  Lee", "PERSON") == expected
    assert HashOperator(length=8, prefix=True).replace("ann lee", "PERSON") == (
        "PERSON_" + expected[:8]
    )
    for bad in (7, 65):
        with pytest.raises(PolicyError) as info:
            HashOperator(length=bad)
        assert info.value.message == "operator 'hash': length must be between 8 and 64"


def test_hash_without_a_key_names_the_operator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEIL_HMAC_KEY")
    with pytest.raises(KeyMissingError) as info:
        HashOperator()
    assert info.value.message == "operator 'hash' needs a secret key and none was given"


def _open(token: str) -> tuple[bytes, bytes]:
    assert token.startswith("ENC[") and token.endswith("]")
    body = token[4:-1]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    entity, _, blob = raw.partition(b"\x00")
    return entity, blob


def test_encrypt_tokens_open_with_the_documented_subkeys() -> None:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESSIV

    op = EncryptOperator()
    assert op.deterministic is True
    assert op.key_check == key_check_value(KEY)
    entity, blob = _open(op.replace("ann@example.org", "EMAIL_ADDRESS"))
    assert (entity, blob[:1]) == (b"EMAIL_ADDRESS", b"S")
    siv = AESSIV(_derive(KEY, "aes-siv", 64))
    assert siv.decrypt(blob[1:], [b"EMAIL_ADDRESS"]) == b"ann@example.org"
    entity, blob = _open(EncryptOperator(deterministic=False).replace("4111", "CREDIT_CARD"))
    assert (entity, blob[:1]) == (b"CREDIT_CARD", b"G")
    gcm = AESGCM(_derive(KEY, "aes-gcm", 32))
    assert gcm.decrypt(blob[1:13], blob[13:], b"CREDIT_CARD") == b"4111"


def test_encrypt_without_a_key_names_the_operator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEIL_ENC_KEY")
    with pytest.raises(KeyMissingError) as info:
        EncryptOperator()
    assert info.value.message == "operator 'encrypt' needs a secret key and none was given"


def test_keyed_surrogate_names_are_seeded_by_the_person_hmac() -> None:
    op = SurrogateOperator()
    assert op.keyed and op.key_check == key_check_value(KEY)
    digest = hmac.new(_derive(KEY, "surrogate"), b"PERSON\x00ann lee", hashlib.sha256).digest()
    seed = int.from_bytes(digest[:8], "big")
    assert op.seed_for("Ann Lee", "PERSON") == seed
    assert op.person_parts("Ann Lee", 2) == op.factory.person_parts(2, seed)


def test_redact_writes_its_replacement() -> None:
    assert RedactOperator().replace("Ann Lee", "PERSON") == ""
    assert RedactOperator(replacement="[gone]").replace("Ann Lee", "PERSON") == "[gone]"


def test_mask_options() -> None:
    assert MaskOperator().replace("4111-1111", "CREDIT_CARD") == "****-****"
    assert MaskOperator(keep_first=2).replace("4111-1111", "CREDIT_CARD") == "41**-****"
    assert MaskOperator(keep_last=3).replace("4111-1111", "CREDIT_CARD") == "****-*111"
    assert MaskOperator(char="#-").replace("12-34", "X") == "##-##"  # one character only
    assert MaskOperator(char="").replace("12-34", "X") == "**-**"  # empty: the default
    assert MaskOperator(keep_separators=False).replace("12-34", "X") == "*****"


def test_mask_never_returns_the_value_whole() -> None:
    # keep_first + keep_last covering every character would release it: all is masked
    assert MaskOperator(keep_first=2, keep_last=2).replace("12-34", "X") == "**-**"
    assert MaskOperator(keep_first=2, keep_last=1).replace("12-34", "X") == "12-*4"


def test_mask_of_a_secret_keeps_only_its_layout() -> None:
    op = MaskOperator(keep_first=2, keep_last=2, char="#")
    assert op.replace("sk_live 12-ab", "API_KEY") == "####### #####"


def test_placeholder_numbers_per_entity_type_and_scope() -> None:
    op = PlaceholderOperator(numbered=True)
    assert op.template == "<{entity}_{n}>"
    assert [op.replace(v, t) for v, t in [("Ann", "PERSON"), ("a@b.org", "EMAIL_ADDRESS")]] == [
        "<PERSON_1>",
        "<EMAIL_ADDRESS_1>",
    ]
    assert op.replace("ANN", "PERSON") == "<PERSON_1>"  # the same value, any case
    assert op.replace("Bob", "PERSON") == "<PERSON_2>"
    op.reset()  # a new document starts counting again
    assert op.replace("Bob", "PERSON") == "<PERSON_1>"
    run = PlaceholderOperator(numbered=True, scope="run")
    assert run.replace("Ann", "PERSON") == "<PERSON_1>"
    run.reset()  # per run: the numbers carry over documents
    assert run.replace("Bob", "PERSON") == "<PERSON_2>"


def test_placeholder_template_and_its_refusals() -> None:
    assert PlaceholderOperator().replace("Ann", "PERSON") == "<PERSON>"
    custom = PlaceholderOperator(template="[{entity}:{n}]")
    assert custom.replace("Ann", "PERSON") == "[PERSON:0]"  # not numbered: n is 0
    with pytest.raises(PolicyError) as info:
        PlaceholderOperator(scope="file")
    assert info.value.message == "operator 'placeholder': scope must be 'document' or 'run'"


def _ff3(key: bytes, tweak_seed: bytes, entity: str, alphabet: str, plain: str) -> str:
    from ff3 import FF3Cipher

    tweak = _derive(tweak_seed, f"fpe-tweak:{entity}", 7).hex()
    return FF3Cipher.withCustomAlphabet(key.hex(), tweak, alphabet).encrypt(plain)


def test_fpe_is_ff3_1_under_the_key_and_a_tweak_per_entity_type() -> None:
    op = FpeOperator()
    assert op.key_check == key_check_value(KEY)
    digits = _ff3(KEY, KEY, "US_SSN", "0123456789", "123456789")
    token = op.replace("123-45-6789", "US_SSN")
    assert token == f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"
    assert op.replace("123-45-6789", "PHONE_NUMBER") != token  # another entity type
    assert op.decrypt(token, "US_SSN") == "123-45-6789"
    # a value that ends like a token's bracket is still an FF3-1 token, and round-trips
    bracket = op.replace("123456]", "ID")
    assert bracket == _ff3(KEY, KEY, "ID", "0123456789", "123456") + "]"
    assert op.decrypt(bracket, "ID") == "123456]"


def test_fpe_derives_an_aes_key_from_a_key_of_another_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for length, derived in ((20, True), (24, False), (16, False)):
        key = KEY[:length]
        monkeypatch.setenv("VEIL_FPE_KEY", "hex:" + key.hex())
        aes = _derive(key, "fpe-aes", 32) if derived else key  # also the tweak seed
        assert FpeOperator().replace("123456", "ID") == _ff3(aes, aes, "ID", "0123456789", "123456")


def test_fpe_tweak_from_its_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    tweak = bytes(7)  # a tweak is not a secret: even all zeros is taken
    monkeypatch.setenv("TW", "hex:" + tweak.hex())
    op = FpeOperator(tweak_env="TW")
    assert op.replace("123456", "ID") == _ff3(KEY, tweak, "ID", "0123456789", "123456")
    monkeypatch.setenv("TW", "hex:" + bytes(6).hex())
    with pytest.raises(KeyMissingError) as info:
        FpeOperator(tweak_env="TW")
    assert info.value.message == (
        "operator 'fpe': the key in the environment variable TW is 6 bytes; at least 7 are needed"
    )


def test_fpe_values_ff3_1_cannot_take_become_siv_tokens() -> None:
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    op = FpeOperator()
    token = op.replace("02139", "ZIP")  # 5 digits: below FF3-1's minimum
    entity, blob = _open(token)
    assert (entity, blob[:1]) == (b"ZIP", b"S")
    assert AESSIV(_derive(KEY, "fpe-siv", 64)).decrypt(blob[1:], [b"ZIP"]) == b"02139"
    assert op.too_short == 1
    assert op.decrypt(token, "ZIP") == "02139"
    with pytest.raises(KeyMissingError) as info:
        op.decrypt("12", "ZIP")
    assert info.value.message == "a token does not decrypt with this key (damaged token)"


def test_fpe_without_a_key_or_without_ff3_names_what_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from veil import MissingDependencyError

    monkeypatch.delenv("VEIL_FPE_KEY")
    with pytest.raises(KeyMissingError) as info:
        FpeOperator()
    assert info.value.message == "operator 'fpe' needs a secret key and none was given"
    monkeypatch.setitem(sys.modules, "ff3", None)  # as if not installed
    with pytest.raises(MissingDependencyError) as dep:
        FpeOperator()
    assert dep.value.message == (
        "the fpe text operator needs the Python package 'ff3', which is not installed"
    )
    assert dep.value.hint == "pip install 'veil[text]'"


def test_encrypted_tokens_round_trip_whatever_their_bytes() -> None:
    op = EncryptOperator()
    # values of 6 characters: 30 bytes a token, a whole number of base64 quanta, so a body
    # may end in any character. Among these, ciphertexts holding a NUL byte and bodies
    # ending in "X" (deterministic under the fixed key): the entity type is split at the
    # first NUL, and only "=" padding is stripped
    tokens = {v: op.replace(v, "PERSON") for v in (f"n{i:05d}" for i in range(300))}
    raws = [_open(t)[1] for t in tokens.values()]
    assert any(b"\x00" in r for r in raws)
    assert any(t[:-1].endswith("X") for t in tokens.values())
    assert all(op.decrypt(t) == v for v, t in tokens.items())
    # bodies of every length modulo 4 get their padding back
    for v in ("a", "ab", "abc", "abcd"):
        assert op.decrypt(op.replace(v, "ID")) == v
    # the body alone (without ENC[ ]) opens too
    some = next(iter(tokens.values()))
    assert op.decrypt(some[4:-1]) == next(iter(tokens))


def test_a_token_under_another_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    token = EncryptOperator().replace("Ann", "PERSON")
    monkeypatch.setenv("VEIL_ENC_KEY", "hex:" + bytes(reversed(KEY)).hex())
    with pytest.raises(KeyMissingError) as info:
        EncryptOperator().decrypt(token)
    assert info.value.message == (
        "a token does not decrypt with this key (wrong key or damaged token)"
    )


_CASEFOLD = (
    "EMAIL_ADDRESS",
    "URL",
    "PERSON",
    "LOCATION",
    "ORGANIZATION",
    "NRP",
    "IBAN_CODE",
    "MAC_ADDRESS",
)
_ALNUM = ("PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "US_ITIN", "IBAN_CODE", "ABA_ROUTING_NUMBER")


@pytest.mark.parametrize("entity", sorted({*_CASEFOLD, *_ALNUM, "DATE_TIME"}))
def test_each_entity_type_is_normalised_as_documented(entity: str) -> None:
    # whitespace collapsed always; case folded for names, e-mails, URLs...; only letters
    # and digits kept for numbers (IBAN both)
    norm = "Ab C-1"
    if entity in _CASEFOLD:
        norm = norm.casefold()
    if entity in _ALNUM:
        norm = "".join(c for c in norm if c.isalnum())
    expected = _hmac_hex("hash", entity.encode() + b"\x00" + norm.encode())[:16]
    assert HashOperator().replace("Ab   C-1", entity) == expected


def test_unkeyed_surrogates_are_seeded_or_random(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEIL_HMAC_KEY")
    seeded = SurrogateOperator(seed=7)
    assert (seeded.keyed, seeded.key_check) == (False, None)
    seed_key = hashlib.sha256(b"veil-seed:7").digest()
    digest = hmac.new(seed_key, b"PERSON\x00ann lee", hashlib.sha256).digest()
    assert seeded.seed_for("Ann Lee", "PERSON") == int.from_bytes(digest[:8], "big")
    # without key or seed: fresh randomness per operator (consistent within one)
    a, b = SurrogateOperator(), SurrogateOperator()
    assert a.keyed is False
    assert a.seed_for("Ann Lee", "PERSON") == a.seed_for("ann  lee", "PERSON")
    assert a.seed_for("Ann Lee", "PERSON") != b.seed_for("Ann Lee", "PERSON")


def test_a_short_surrogate_key_is_refused_naming_the_operator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VEIL_HMAC_KEY", "hex:" + KEY[:8].hex())
    with pytest.raises(KeyMissingError) as info:
        SurrogateOperator()
    assert info.value.message == (
        "operator 'surrogate': the key in the environment variable VEIL_HMAC_KEY is 8 bytes; "
        "at least 16 are needed"
    )


def test_surrogate_locale_and_its_cache_bound() -> None:
    assert SurrogateOperator().factory.locale == "en_US"
    assert SurrogateOperator(locale="de_DE").factory.locale == "de_DE"
    assert SurrogateOperator()._cache_size == 10_000
    op = SurrogateOperator(cache_size=2)
    first = op.replace("Ann Lee", "PERSON")
    assert op.replace("Ann Lee", "PERSON") == first  # a cache hit
    op.replace("Bob Ray", "PERSON")
    assert len(op._cache) == 2
    op.replace("Cy Fox", "PERSON")  # the oldest entry goes
    assert list(op._cache) == [("PERSON", "Bob Ray"), ("PERSON", "Cy Fox")]
    assert op.replace("Ann Lee", "PERSON") == first  # recomputed alike from its seed


def test_unknown_options_are_named_with_the_ones_taken() -> None:
    with pytest.raises(PolicyError) as info:
        make_operator("hash", {"zz": 1, "bogus": 2})
    assert info.value.message == "operator 'hash': unknown option(s) bogus, zz"
    assert info.value.hint == "it takes: key_env, key_file, length, prefix"
    with pytest.raises(PolicyError) as info:
        Operator(x=1)
    assert info.value.hint == "it takes: (no options)"


def test_a_key_from_the_variable_the_policy_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEIL_HMAC_KEY")
    monkeypatch.setenv("MY_KEY", "hex:" + KEY[:16].hex())  # 16 bytes: the minimum
    op = HashOperator(key_env="MY_KEY")
    assert op.key_check == key_check_value(KEY[:16])
    derived = hmac.new(
        hmac.new(KEY[:16], b"veil-text\x00hash\x01", hashlib.sha256).digest(),
        b"PERSON\x00ann",
        hashlib.sha256,
    ).hexdigest()[:16]
    assert op.replace("Ann", "PERSON") == derived


def test_vault_operator_settings_and_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_VAULT_KEY", "hex:" + KEY.hex())
    op = VaultOperator()  # opens nothing until used
    assert (op.url, op.actor, op.key_check) == (
        "sqlite:///veil-vault.db",
        "veil",
        key_check_value(KEY),
    )
    op = VaultOperator(url="sqlite:///x.db", actor="ann")
    assert (op.url, op.actor) == ("sqlite:///x.db", "ann")
    monkeypatch.delenv("VEIL_VAULT_KEY")
    with pytest.raises(KeyMissingError) as info:
        VaultOperator()
    assert info.value.message == "operator 'vault' needs a secret key and none was given"
