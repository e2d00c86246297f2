"""Key resolution: the cases that mutation testing of ``veil.tabular._keys`` showed were not
pinned by ``test_keys.py`` (docs/mutation.md lists each surviving mutant and what kills it)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import random
from pathlib import Path

import pytest

from veil import KeyMissingError, WeakKeyError
from veil.tabular import Secret, decode_key_text, derive_subkey, resolve_key, resolve_tweak

# 32 fixed bytes that pass the strength check (a byte sequence such as range(7, 39) is refused)
RAW = hashlib.sha256(b"veil test key: tabular/_keys mutants").digest()
HEX = RAW.hex()


def _resolve(**kw):  # type: ignore[no-untyped-def]
    args = {"key_env": "K", "key_file": None, "column": "ssn", "transform": "hash"}
    args.update(kw)
    return resolve_key(purpose=args.pop("purpose", "hmac"), **args)


def test_subkey_is_hmac_sha256_of_the_documented_label() -> None:
    """The derivation is part of the release format: a changed label would silently change
    every date offset and FF3-1 tweak derived from an existing key."""
    sub = derive_subkey(Secret(RAW, source="env K"), "date_shift offset")
    expected = hmac.new(RAW, b"veil\x00date_shift offset\x00v1", hashlib.sha256).digest()
    assert sub.reveal() == expected
    assert sub.source == "env K (derived: date_shift offset)"


def test_secret_hash_follows_equality() -> None:
    assert hash(Secret(RAW)) == hash(Secret(bytes(RAW)))
    assert hash(Secret(RAW)) != hash(Secret(RAW[::-1]))
    assert len({Secret(RAW), Secret(bytes(RAW)), Secret(RAW[::-1])}) == 2


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("abcdef0", "raw"),  # hex digits but odd length: not hex
        ("abcd" * 5 + "efg", "raw"),  # base64 letters, length not a multiple of 4
        ("abcd" * 5 + "ef==", "base64"),
    ],
)
def test_decode_key_text_length_rules(text: str, encoding: str) -> None:
    assert decode_key_text(text)[1] == encoding


def test_key_file_with_control_characters_is_raw_bytes(tmp_path: Path) -> None:
    # ASCII, but not printable text (control characters): used whole, as bytes
    rng = random.Random(7)
    data = bytes(rng.choice([*range(1, 32), *range(33, 127)]) for _ in range(40))
    assert any(b < 32 for b in data)
    path = tmp_path / "k.bin"
    path.write_bytes(data)
    os.chmod(path, 0o600)
    assert _resolve(key_file=path, environ={}).reveal() == data
    blank = tmp_path / "blank.key"
    blank.write_bytes(b" " * 20)  # whitespace only: raw bytes, one repeated byte: refused
    os.chmod(blank, 0o600)
    with pytest.raises(WeakKeyError):
        _resolve(key_file=blank, environ={})


def test_invalid_encoding_in_a_key_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "k.txt"
    path.write_text("hex:zz" + "0" * 40)
    os.chmod(path, 0o600)
    with pytest.raises(KeyMissingError, match="not valid hex") as info:
        _resolve(key_file=path, environ={})
    assert "k.txt" in str(info.value) and "'ssn'" in str(info.value)


def test_unreadable_key_file_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "k.hex"
    path.write_text(HEX)

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(KeyMissingError, match="cannot be read \\(Permission denied\\)") as info:
        _resolve(key_file=path, environ={})
    assert info.value.hint == "check the file's permissions"


def test_private_key_file_is_not_warned_about(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "k.hex"
    path.write_text(HEX)
    os.chmod(path, 0o600)
    with caplog.at_level(logging.WARNING):
        _resolve(key_file=path, environ={})
    assert "chmod" not in caplog.text


def test_key_and_tweak_read_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_TEST_KEY_M", HEX)
    monkeypatch.setenv("VEIL_TEST_TWEAK_M", "ab" * 7)
    assert _resolve(key_env="VEIL_TEST_KEY_M").reveal() == RAW
    tweak = resolve_tweak(tweak_env="VEIL_TEST_TWEAK_M", required=True, column="c")
    assert tweak is not None and tweak.reveal() == b"\xab" * 7
    assert tweak.source == "environment variable VEIL_TEST_TWEAK_M"


def test_tweak_errors_name_column_variable_and_fix() -> None:
    with pytest.raises(KeyMissingError) as info:
        resolve_tweak(tweak_env="T", required=True, column="acct", environ={})
    assert "column 'acct': the 'tokenize' transform" in str(info.value)
    assert "export T=<14 hex digits>" in (info.value.hint or "")
    with pytest.raises(KeyMissingError) as info:
        resolve_tweak(tweak_env="T", required=False, column="acct", environ={"T": "ab" * 8})
    assert info.value.message == (
        "column 'acct': the 'tokenize' transform: the tweak from environment variable T (read "
        "as hex) is 8 bytes; FF3-1 needs 7 bytes (56 bits, 14 hex digits)"
    )
    assert "set T to 14 hex digits" in (info.value.hint or "")
    with pytest.raises(KeyMissingError, match=r"environment variable T: .*not valid hex"):
        resolve_tweak(tweak_env="T", required=False, column="acct", environ={"T": "hex:zz"})


def test_secret_source_and_type_error() -> None:
    assert repr(Secret(RAW)) == "Secret(32 bytes from memory)"
    assert Secret(RAW, source="env X").source == "env X"
    with pytest.raises(TypeError, match=r"^key material must be bytes, got str$"):
        Secret("text")  # type: ignore[arg-type]


def test_explicit_base64_is_validated() -> None:
    # with validation off, base64 would drop the '!' and read a different key
    with pytest.raises(ValueError, match=r"^the key after 'base64:' is not valid base64$"):
        decode_key_text("base64:" + "ab!c" * 8)


def test_every_message_names_what_is_needed(tmp_path: Path) -> None:
    for purpose, need in (
        ("hmac", "a key of at least 16 bytes"),
        ("aes", "a key of 16, 24 or 32 bytes"),
    ):
        with pytest.raises(KeyMissingError) as info:
            _resolve(purpose=purpose, environ={})
        assert f"'hash' transform needs {need}, but the environment variable K is not set" in str(
            info.value
        )
        with pytest.raises(KeyMissingError) as info:
            _resolve(purpose=purpose, key_file=tmp_path / "none.key", environ={})
        assert f"needs {need}, but its key file" in str(info.value)
        assert (
            info.value.hint
            == "make one with 'veil keygen --out FILE', or fix key_file in the policy"
        )


def test_unkeyed_message_and_hint() -> None:
    with pytest.raises(KeyMissingError) as info:
        _resolve(key_env=None, environ={})
    assert "has no key configured; veil refuses to run it unkeyed" in str(info.value)
    assert info.value.hint == (
        "set key_env: NAME or key_file: PATH on the transform (make one with 'veil keygen "
        "--out FILE'); an unkeyed hash of a low-entropy identifier is reversible by enumeration"
    )


def test_key_sources_are_recorded(tmp_path: Path) -> None:
    assert _resolve(environ={"K": HEX}).source == "environment variable K"
    path = tmp_path / "k.hex"
    path.write_text(HEX)
    os.chmod(path, 0o600)
    assert _resolve(key_file=path, environ={}).source == f"key file {path}"


def test_relative_key_file_without_base_dir_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "k.hex").write_text(HEX)
    os.chmod(tmp_path / "k.hex", 0o600)
    monkeypatch.chdir(tmp_path)
    assert _resolve(key_file=Path("k.hex"), environ={}).reveal() == RAW


def test_oserror_without_a_reason_names_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "k.hex"
    path.write_text(HEX)

    def refuse(self: Path) -> bytes:
        raise OSError("no strerror")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(KeyMissingError, match=r"cannot be read \(OSError\)"):
        _resolve(key_file=path, environ={})


def test_open_key_file_warning_names_the_file(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "k.hex"
    path.write_text(HEX)
    os.chmod(path, 0o644)
    with caplog.at_level(logging.WARNING):
        _resolve(key_file=path, environ={})
    assert [r.getMessage() for r in caplog.records] == [
        f"key file {path} is accessible to other users; chmod 600 it"
    ]


def test_invalid_env_key_and_wrong_length_messages(tmp_path: Path) -> None:
    with pytest.raises(KeyMissingError) as info:
        _resolve(environ={"K": "hex:zz"})
    assert "environment variable K: the key after 'hex:' is not valid hex" in str(info.value)
    with pytest.raises(KeyMissingError) as info:
        _resolve(environ={"K": "ab" * 8 + "cd"})
    assert "prefix text with 'hex:', 'base64:' or 'raw:' to choose how it is read" in (
        info.value.hint or ""
    )
    short = tmp_path / "short.bin"
    short.write_bytes(b"\x00\xff" * 4)
    os.chmod(short, 0o600)
    with pytest.raises(KeyMissingError, match=r"\(read as raw bytes\) is 8 bytes"):
        _resolve(key_file=short, environ={})
    ctrl = tmp_path / "ctrl.bin"
    ctrl.write_bytes(b"a\x01" * 4)  # ASCII but not printable
    os.chmod(ctrl, 0o600)
    with pytest.raises(KeyMissingError, match=r"\(read as raw bytes\) is 8 bytes"):
        _resolve(key_file=ctrl, environ={})


def test_missing_required_tweak_message_and_hint() -> None:
    with pytest.raises(KeyMissingError) as info:
        resolve_tweak(tweak_env="T", required=True, column="acct", environ={})
    assert "names the tweak variable T, which is not set" in str(info.value)
    assert info.value.hint == (
        "export T=<14 hex digits>, or remove tweak_env to derive the tweak from the key"
    )
