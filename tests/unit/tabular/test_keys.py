"""Key resolution: env vars and key files, encodings, lengths, and messages without key material."""

from __future__ import annotations

import base64
import hashlib
import logging
import os
from pathlib import Path

import pytest

from veil import KeyMissingError
from veil.tabular import Secret, decode_key_text, derive_subkey, resolve_key, resolve_tweak

RAW = bytes.fromhex(
    "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"
)  # 32 random bytes
HEX = RAW.hex()


def resolve(**kw):
    args = {
        "key_env": "K",
        "key_file": None,
        "column": "ssn",
        "transform": "hash",
        "purpose": "hmac",
    }
    args.update(kw)
    return resolve_key(**args)


@pytest.mark.parametrize(
    ("text", "material", "encoding"),
    [
        (HEX, RAW, "hex"),
        (HEX.upper() + "\n", RAW, "hex"),
        (base64.b64encode(RAW).decode(), RAW, "base64"),
        ("hex:" + HEX, RAW, "hex"),
        ("base64:" + base64.b64encode(RAW).decode(), RAW, "base64"),
        ("raw:" + HEX, HEX.encode(), "raw"),
        ("correct horse battery staple!", b"correct horse battery staple!", "raw"),
    ],
)
def test_decode_key_text(text, material, encoding) -> None:
    assert decode_key_text(text) == (material, encoding)


def test_bad_explicit_encoding_is_an_error_without_the_text() -> None:
    with pytest.raises(ValueError, match="not valid hex") as info:
        decode_key_text("hex:zz-SECRETISH")
    assert "SECRETISH" not in str(info.value)


def test_key_from_env_in_every_encoding() -> None:
    for text in (HEX, base64.b64encode(RAW).decode(), "raw:" + "Zq8-vN3w_Lp5@Xc7!rT2"):
        key = resolve(environ={"K": text})
        assert key.nbytes >= 16
    assert resolve(environ={"K": HEX}).reveal() == RAW


def test_missing_env_names_column_transform_variable_and_fix() -> None:
    with pytest.raises(KeyMissingError) as info:
        resolve(key_env="VEIL_TEST_NOPE", environ={})
    msg = str(info.value)
    assert "'ssn'" in msg and "'hash'" in msg and "VEIL_TEST_NOPE" in msg
    assert "veil keygen" in (info.value.hint or "") and "default key" in (info.value.hint or "")
    assert info.value.exit_code == 2
    with pytest.raises(KeyMissingError):
        resolve(environ={"K": "   "})  # empty is missing


def test_unkeyed_is_refused() -> None:
    with pytest.raises(KeyMissingError, match="unkeyed"):
        resolve(key_env=None, key_file=None, environ={})


@pytest.mark.parametrize(
    ("purpose", "nbytes", "ok"),
    [
        ("hmac", 15, False),
        ("hmac", 16, True),
        ("hmac", 64, True),
        ("aes", 16, True),
        ("aes", 20, False),
        ("aes", 24, True),
        ("aes", 32, True),
        ("aes", 48, False),
    ],
)
def test_key_lengths(purpose, nbytes, ok) -> None:
    material = hashlib.shake_256(b"veil test key").digest(nbytes)
    env = {"K": material.hex()}
    if ok:
        assert resolve(purpose=purpose, environ=env).nbytes == nbytes
        return
    with pytest.raises(KeyMissingError, match=f"is {nbytes} bytes") as info:
        resolve(purpose=purpose, environ=env)
    text = str(info.value) + str(info.value.hint)
    assert material.hex() not in text and material.hex()[:8] not in text


def test_key_file_text_binary_relative_and_missing(tmp_path: Path) -> None:
    (tmp_path / "k.hex").write_text(HEX + "\n")
    os.chmod(tmp_path / "k.hex", 0o600)
    assert resolve(key_file=Path("k.hex"), base_dir=tmp_path, environ={}).reveal() == RAW
    binary = bytes([0, 255, 3, 200]) + hashlib.shake_256(b"binary key").digest(28)
    (tmp_path / "k.bin").write_bytes(binary)
    os.chmod(tmp_path / "k.bin", 0o600)
    assert resolve(key_file=tmp_path / "k.bin", environ={}).reveal() == binary
    # key_file wins over the model's default key_env
    assert resolve(key_file=tmp_path / "k.hex", environ={"K": "ff" * 32}).reveal() == RAW
    with pytest.raises(KeyMissingError, match="does not exist") as info:
        resolve(key_file=tmp_path / "nope.key", environ={})
    assert "nope.key" in str(info.value)


def test_world_readable_key_file_is_warned_about(tmp_path: Path, caplog) -> None:
    path = tmp_path / "k.hex"
    path.write_text(HEX)
    os.chmod(path, 0o644)
    with caplog.at_level(logging.WARNING):
        resolve(key_file=path, environ={})
    assert "chmod 600" in caplog.text and HEX not in caplog.text


def test_secret_never_shows_its_material() -> None:
    s = Secret(RAW, source="env X")
    for text in (repr(s), str(s), f"{s}", repr([s])):
        assert HEX[:8] not in text and "32 bytes" in text
    assert s == Secret(RAW) and s != Secret(RAW[::-1])
    with pytest.raises(TypeError):
        Secret("text")  # type: ignore[arg-type]


def test_subkeys_differ_by_label_and_key() -> None:
    a = derive_subkey(Secret(RAW), "date_shift offset")
    b = derive_subkey(Secret(RAW), "ff3-1 tweak")
    c = derive_subkey(Secret(RAW[::-1]), "date_shift offset")
    assert len({a.reveal(), b.reveal(), c.reveal(), RAW}) == 4


def test_tweak_from_env_or_derived() -> None:
    assert resolve_tweak(tweak_env="T", required=False, column="c", environ={}) is None
    assert resolve_tweak(tweak_env=None, required=True, column="c", environ={}) is None
    tweak = resolve_tweak(tweak_env="T", required=False, column="c", environ={"T": "ab" * 7})
    assert tweak is not None and tweak.reveal() == b"\xab" * 7
    with pytest.raises(KeyMissingError, match="MY_TWEAK"):
        resolve_tweak(tweak_env="MY_TWEAK", required=True, column="c", environ={})
    with pytest.raises(KeyMissingError, match="8 bytes"):
        resolve_tweak(tweak_env="T", required=False, column="c", environ={"T": "ab" * 8})
