"""Secret keys for the keyed text operators, from an environment variable or a key file.

veil has no default key. Text keys are decoded like the tabular transforms' keys: a
``hex:``/``base64:``/``raw:`` prefix, else even-length hex, else strict base64, else the
UTF-8 bytes. No message ever contains key material.

Default variables: ``VEIL_HMAC_KEY`` (hash, surrogate), ``VEIL_FPE_KEY`` (fpe),
``VEIL_ENC_KEY`` (encrypt), ``VEIL_VAULT_KEY`` (vault).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from pathlib import Path

from veil._errors import KeyMissingError, WeakKeyError
from veil._keystrength import weak_key_reason
from veil._lazy import lazy_compile

__all__ = ["derive", "load_key"]

_HEX = lazy_compile(r"^[0-9A-Fa-f]+$")
_B64 = lazy_compile(r"^[A-Za-z0-9+/]+={0,2}$")


def _decode(text: str, operator: str, source: str) -> bytes:
    text = text.strip()
    for prefix in ("hex:", "base64:", "raw:"):
        if text.startswith(prefix):
            body = text[len(prefix) :]
            if prefix == "raw:":
                return body.encode("utf-8")
            try:
                return (
                    bytes.fromhex(body)
                    if prefix == "hex:"
                    else base64.b64decode(body, validate=True)
                )
            except (ValueError, binascii.Error):
                kind = "hexadecimal" if prefix == "hex:" else "base64"
                raise KeyMissingError(
                    f"operator {operator!r}: the key in the {source} starts with '{prefix}' "
                    f"but what follows is not valid {kind}",
                    hint="generate one with: python -c 'import secrets; "
                    'print("hex:" + secrets.token_hex(32))\'',
                ) from None
    if _HEX.match(text) and len(text) % 2 == 0:
        return bytes.fromhex(text)
    if len(text) % 4 == 0 and _B64.match(text):
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error:
            pass
    return text.encode("utf-8")


def load_key(
    *,
    operator: str,
    key_env: str | None,
    key_file: str | Path | None = None,
    min_bytes: int = 16,
    required: bool = True,
    secret: bool = True,
) -> bytes | None:
    """The key for ``operator``: ``key_file`` if given, else ``$key_env``.

    Raises :class:`~veil.KeyMissingError` when ``required`` and neither gives a key of at
    least ``min_bytes`` bytes, and :class:`~veil.WeakKeyError` when the key is guessable
    (see :func:`veil._keystrength.weak_key_reason`; ``secret=False`` skips this for
    material that is not a key, such as an FF3-1 tweak).
    """
    material: bytes | None = None
    source = ""
    if key_file is not None:
        path = Path(key_file)
        source = f"key file {path}"
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise KeyMissingError(
                f"operator {operator!r}: cannot read the {source} ({exc.strerror or 'error'})"
            ) from None
        try:
            material = _decode(raw.decode("ascii"), operator, source)
        except UnicodeDecodeError:
            material = raw
    elif key_env:
        source = f"environment variable {key_env}"
        value = os.environ.get(key_env)
        if value and value.strip():
            material = _decode(value, operator, source)
    if material is None:
        if not required:
            return None
        raise KeyMissingError(
            f"operator {operator!r} needs a secret key and none was given",
            hint=f"set {key_env or 'a key variable'} (e.g. export {key_env or 'VEIL_HMAC_KEY'}="
            "$(python -c 'import secrets; print(secrets.token_hex(32))')) or pass key_file",
        )
    if len(material) < min_bytes:
        raise KeyMissingError(
            f"operator {operator!r}: the key in the {source} is {len(material)} bytes; "
            f"at least {min_bytes} are needed",
            hint="generate one with: python -c 'import secrets; print(secrets.token_hex(32))'",
        )
    weak = weak_key_reason(material) if secret else None
    if weak is not None:
        raise WeakKeyError(
            f"operator {operator!r}: the key in the {source} {weak}; it could be guessed, "
            "and with it every value it protects",
            hint="make one with 'veil keygen --out FILE' (32 random bytes, hex)",
        )
    return material


def derive(key: bytes, label: str, length: int = 32) -> bytes:
    """A subkey for one purpose (HMAC-SHA256 expansion with a label)."""
    out = b""
    counter = 0
    while len(out) < length:
        counter += 1
        out += hmac.new(
            key, b"veil-text\x00" + label.encode() + bytes([counter]), hashlib.sha256
        ).digest()
    return out[:length]
