"""Secret keys for the keyed transforms: read from an environment variable or a key file.

veil never has a default key and never hashes without one: an unkeyed hash of a name, an
e-mail address or a 9-digit SSN is reversed by hashing every candidate. A missing or
unusable key is a :class:`~veil.KeyMissingError` that names the column, the transform and
how to provide the key; no message ever contains key material.

Key encodings
-------------
A key given as text (an environment variable, or a key file holding printable ASCII) is
decoded in this order:

1. an explicit prefix: ``hex:…``, ``base64:…`` or ``raw:…`` (the text's UTF-8 bytes);
2. only hex digits, even length: hex (this is what ``veil keygen`` writes);
3. strict base64 (length a multiple of 4, valid padding): base64;
4. otherwise the text's UTF-8 bytes.

A key file that is not printable ASCII is used as raw bytes, whole. Trailing whitespace
(the newline an editor adds) is ignored in text keys.

Lengths: HMAC keys (``hash``, ``date_shift``) need at least 16 bytes (128 bits); FF3-1 keys
(``tokenize``) are AES keys of exactly 16, 24 or 32 bytes.

Strength: a key of the right length can still be guessable (``bytes(32)``, ``"ab" * 16``,
``raw:secretkey1234567``); such keys are refused with a :class:`~veil.WeakKeyError` (see
:func:`veil._keystrength.weak_key_reason`). Every keyed release records the key's check
value (:meth:`Secret.check_value`) so a later ``veil detokenize`` can tell a wrong key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
import re
import stat
from pathlib import Path
from typing import Literal

from veil._errors import KeyMissingError, WeakKeyError
from veil._keystrength import key_check_value, weak_key_reason

__all__ = [
    "HMAC_MIN_BYTES",
    "Secret",
    "decode_key_text",
    "derive_subkey",
    "require_strong",
    "resolve_key",
    "resolve_tweak",
]

log = logging.getLogger(__name__)

HMAC_MIN_BYTES = 16
AES_KEY_BYTES = (16, 24, 32)
Purpose = Literal["hmac", "aes"]

_HEX = re.compile(r"^[0-9a-fA-F]+$")
_B64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_KEYGEN_HINT = "make one with 'veil keygen --out FILE'"


class Secret:
    """Key material that never shows itself in a repr, a log line or a traceback.

    Parameters
    ----------
    material
        The key bytes.
    source
        Where the key came from, for messages: e.g. ``"environment variable VEIL_HMAC_KEY"``.

    Examples
    --------
    >>> s = Secret(bytes(32), source="a test")
    >>> s
    Secret(32 bytes from a test)
    >>> len(s.reveal())
    32
    """

    __slots__ = ("_material", "source")

    def __init__(self, material: bytes, *, source: str = "memory") -> None:
        if not isinstance(material, bytes | bytearray):
            raise TypeError(f"key material must be bytes, got {type(material).__name__}")
        self._material = bytes(material)
        self.source = source

    def reveal(self) -> bytes:
        """The key bytes. Use them; never print, log or store them."""
        return self._material

    @property
    def nbytes(self) -> int:
        return len(self._material)

    def check_value(self, context: bytes = b"") -> str:
        """The key check value recorded with a release (a keyed digest, not the key)."""
        return key_check_value(self._material, context)

    def __repr__(self) -> str:
        return f"Secret({self.nbytes} bytes from {self.source})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._material, other._material)

    def __hash__(self) -> int:  # usable as a cache key without exposing the material
        return hash(hashlib.sha256(b"veil\x00secret-id\x00" + self._material).digest())


def require_strong(secret: Secret, *, column: str, transform: str) -> None:
    """Raise :class:`~veil.WeakKeyError` for a guessable key given to a transform directly.

    Keys read by :func:`resolve_key` are checked there; this covers keys passed in Python.
    """
    weak = weak_key_reason(secret.reveal())
    if weak is not None:
        raise WeakKeyError(
            f"column {column!r}: the {transform!r} key ({secret.source}) {weak}; it could be "
            "guessed, and with it every value it protects",
            hint=f"{_KEYGEN_HINT} (32 random bytes, hex), or secrets.token_bytes(32)",
        )


def derive_subkey(secret: Secret, label: str) -> Secret:
    """A key for one purpose, derived from ``secret`` with HMAC-SHA256 and a label.

    Different purposes (date-shift offsets, FF3-1 tweaks) use different subkeys, so a
    value released by one transform (a keyed hash of a patient id) reveals nothing about
    another (that patient's date offset), even when the same key serves both.
    """
    label_bytes = b"veil\x00" + label.encode("utf-8") + b"\x00v1"
    digest = hmac.new(secret.reveal(), label_bytes, hashlib.sha256).digest()
    return Secret(digest, source=f"{secret.source} (derived: {label})")


def decode_key_text(text: str) -> tuple[bytes, str]:
    """Decode a textual key; return its bytes and the encoding used (for messages).

    Examples
    --------
    >>> decode_key_text("00ff" * 8)[1]
    'hex'
    >>> decode_key_text("raw:correct horse battery staple")[0][:7]
    b'correct'
    """
    text = text.strip()
    for prefix, kind in (("hex:", "hex"), ("base64:", "base64"), ("raw:", "raw")):
        if text.startswith(prefix):
            body = text[len(prefix) :]
            if kind == "raw":
                return body.encode("utf-8"), "raw"
            try:
                if kind == "hex":
                    return bytes.fromhex(body), "hex"
                return base64.b64decode(body, validate=True), "base64"
            except (ValueError, binascii.Error):
                raise ValueError(f"the key after '{prefix}' is not valid {kind}") from None
    if _HEX.match(text) and len(text) % 2 == 0:
        return bytes.fromhex(text), "hex"
    if len(text) % 4 == 0 and _B64.match(text):
        try:
            return base64.b64decode(text, validate=True), "base64"
        except binascii.Error:
            pass
    return text.encode("utf-8"), "raw"


def _read_key_file(path: Path) -> tuple[bytes, str]:
    data = path.read_bytes()
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return data, "raw bytes"
    if text.strip() and all(ch.isprintable() or ch.isspace() for ch in text):
        return decode_key_text(text)
    return data, "raw bytes"


def _check_length(material: bytes, purpose: Purpose) -> str | None:
    n = len(material)
    if purpose == "aes" and n not in AES_KEY_BYTES:
        return f"is {n} bytes; FF3-1 (AES) needs exactly 16, 24 or 32 bytes"
    if purpose == "hmac" and n < HMAC_MIN_BYTES:
        return f"is {n} bytes; an HMAC key needs at least {HMAC_MIN_BYTES} bytes (128 bits)"
    return None


def resolve_key(
    *,
    key_env: str | None,
    key_file: Path | None,
    column: str,
    transform: str,
    purpose: Purpose,
    base_dir: Path | None = None,
    environ: dict[str, str] | None = None,
) -> Secret:
    """Find and validate the key a transform needs.

    ``key_file`` wins over ``key_env`` when both are given (``key_env`` usually holds only
    the model's default name). A relative ``key_file`` resolves against ``base_dir`` (the
    policy's folder).

    Raises
    ------
    KeyMissingError
        No key configured (an unkeyed hash is refused), the variable is unset or empty,
        the file is missing or unreadable, or the key has the wrong length. The message
        names the column, the transform and the fix, never any key material.
    WeakKeyError
        The key is guessable (a subclass of KeyMissingError; see the module docstring).

    Examples
    --------
    >>> key = resolve_key(key_env="K", key_file=None, column="ssn", transform="hash",
    ...                   purpose="hmac", environ={"K": "5c0f9e2a7b31d84466e1a90f3c7d52b8"})
    >>> key
    Secret(16 bytes from environment variable K)
    """
    env = os.environ if environ is None else environ
    where = f"column {column!r}: the {transform!r} transform"
    need = "a key of 16, 24 or 32 bytes" if purpose == "aes" else "a key of at least 16 bytes"
    if key_file is None and key_env is None:
        raise KeyMissingError(
            f"{where} has no key configured; veil refuses to run it unkeyed",
            hint=f"set key_env: NAME or key_file: PATH on the transform ({_KEYGEN_HINT}); "
            "an unkeyed hash of a low-entropy identifier is reversible by enumeration",
        )
    if key_file is not None:
        path = key_file if key_file.is_absolute() or base_dir is None else base_dir / key_file
        source = f"key file {path}"
        if not path.is_file():
            raise KeyMissingError(
                f"{where} needs {need}, but its key file {path} does not exist",
                hint=f"{_KEYGEN_HINT}, or fix key_file in the policy",
            )
        try:
            material, encoding = _read_key_file(path)
            mode = path.stat().st_mode
        except ValueError as exc:
            raise KeyMissingError(f"{where}: {source}: {exc}") from None
        except OSError as exc:
            raise KeyMissingError(
                f"{where}: {source} cannot be read ({exc.strerror or type(exc).__name__})",
                hint="check the file's permissions",
            ) from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("key file %s is accessible to other users; chmod 600 it", path)
    else:
        assert key_env is not None
        source = f"environment variable {key_env}"
        text = env.get(key_env, "")
        if not text.strip():
            raise KeyMissingError(
                f"{where} needs {need}, but the environment variable {key_env} is not set",
                hint=f"export {key_env}=<hex key> or give key_file: PATH in the policy "
                f"({_KEYGEN_HINT}); veil never uses a default key",
            )
        try:
            material, encoding = decode_key_text(text)
        except ValueError as exc:
            raise KeyMissingError(f"{where}: {source}: {exc}") from None
    problem = _check_length(material, purpose)
    if problem is not None:
        raise KeyMissingError(
            f"{where}: the key from {source} (read as {encoding}) {problem}",
            hint=f"{_KEYGEN_HINT} (32 random bytes, hex); prefix text with 'hex:', "
            "'base64:' or 'raw:' to choose how it is read",
        )
    weak = weak_key_reason(material)
    if weak is not None:
        raise WeakKeyError(
            f"{where}: the key from {source} (read as {encoding}) {weak}; "
            "it could be guessed, and with it every value it protects",
            hint=f"{_KEYGEN_HINT} (32 random bytes, hex)",
        )
    return Secret(material, source=source)


def resolve_tweak(
    *,
    tweak_env: str | None,
    required: bool,
    column: str,
    nbytes: int = 7,
    environ: dict[str, str] | None = None,
) -> Secret | None:
    """The FF3-1 tweak from ``tweak_env``, or ``None`` to derive it from the key.

    ``required`` is true when the policy names ``tweak_env`` explicitly: then an unset
    variable is an error rather than a silent fallback to the derived tweak.
    """
    if tweak_env is None:
        return None
    env = os.environ if environ is None else environ
    text = env.get(tweak_env, "")
    where = f"column {column!r}: the 'tokenize' transform"
    if not text.strip():
        if required:
            raise KeyMissingError(
                f"{where} names the tweak variable {tweak_env}, which is not set",
                hint=f"export {tweak_env}=<{2 * nbytes} hex digits>, or remove tweak_env "
                "to derive the tweak from the key",
            )
        return None
    try:
        material, encoding = decode_key_text(text)
    except ValueError as exc:
        raise KeyMissingError(f"{where}: environment variable {tweak_env}: {exc}") from None
    if len(material) != nbytes:
        raise KeyMissingError(
            f"{where}: the tweak from environment variable {tweak_env} (read as {encoding}) is "
            f"{len(material)} bytes; FF3-1 needs {nbytes} bytes (56 bits, {2 * nbytes} hex digits)",
            hint=f"set {tweak_env} to {2 * nbytes} hex digits, or unset it to derive the tweak",
        )
    return Secret(material, source=f"environment variable {tweak_env}")
