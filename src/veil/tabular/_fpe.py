"""Format-preserving tokenization with FF3-1 (NIST SP 800-38G Rev. 1), reversible with the key.

The cipher is the maintained ``ff3`` package (AES through pycryptodome). veil adds the
policy around it: alphabets, characters kept in place, the tweak, long and short values.

Tweak
-----
FF3-1 takes a 56-bit (7-byte) tweak. It comes from the environment variable named by
``tweak_env`` (14 hex digits) when that variable is set; otherwise it is derived from the
key (the first 7 bytes of its ``derive_subkey(key, "ff3-1 tweak")``, an HMAC-SHA256), so one key gives the same
tokens in every column and table (tokens stay joinable). Set a different tweak per column to
make equal values in different columns tokenize differently. The tweak is not a secret in
FF3-1's security model, but veil treats it like one.

Lengths
-------
FF3-1 needs ``radix ** n >= 1,000,000`` (NIST's minimum domain), so a value must carry at
least 6 digits, 5 lower/upper-case letters, or 4 characters of ``alnum``/``letters``.
veil **refuses** shorter values with an error that counts them: no length-preserving
padding can stay reversible, and a domain under a million is easy to enumerate. Values
longer than FF3-1's maximum (56 digits, 40 letters, 32 alnum) are split into near-equal
chunks, each enciphered with its own tweak derived from the tweak, chunk index and count,
which keeps them reversible.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import string
from pathlib import Path
from typing import TYPE_CHECKING, Self

import pandas as pd

from veil._errors import InputError, KeyMissingError, PolicyError
from veil.tabular._base import TRANSFORMS, FieldTransformer, canonical_text, column_label
from veil.tabular._basic import _as_secret
from veil.tabular._keys import (
    AES_KEY_BYTES,
    Secret,
    derive_subkey,
    require_strong,
    resolve_tweak,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ALPHABETS", "FPE_TWEAK_BYTES", "TokenizeTransformer", "min_length"]

ALPHABETS: dict[str, str] = {
    "digits": string.digits,
    "lower": string.ascii_lowercase,
    "upper": string.ascii_uppercase,
    "alnum": string.digits + string.ascii_lowercase + string.ascii_uppercase,
    "letters": string.ascii_lowercase + string.ascii_uppercase,
}
FPE_TWEAK_BYTES = 7  # FF3-1: 56 bits
_DOMAIN_MIN = 1_000_000

# ff3 logs the tweak at DEBUG level; keep it out of ``veil --debug`` output.
logging.getLogger("ff3.ff3").setLevel(logging.INFO)


def min_length(alphabet: str) -> int:
    """Fewest alphabet characters FF3-1 accepts: ``radix ** n >= 1,000,000``."""
    radix = len(ALPHABETS[alphabet])
    return math.ceil(math.log(_DOMAIN_MIN) / math.log(radix))


def max_length(alphabet: str) -> int:
    """Most alphabet characters one FF3-1 call takes: ``2 * floor(96 / log2(radix))``."""
    return 2 * math.floor(96 / math.log2(len(ALPHABETS[alphabet])))


@TRANSFORMS.register("tokenize")
class TokenizeTransformer(FieldTransformer):
    """FF3-1 format-preserving tokenization; :meth:`inverse_transform` restores the values.

    Each run of characters from ``alphabet`` is enciphered as one string; other characters
    (dashes, spaces, ``@``) stay in place when ``keep_format`` is true, so ``123-45-6789``
    becomes another ``ddd-dd-dddd``. With ``keep_format`` false every character must be in
    the alphabet. Output values are strings; missing values stay missing.

    Privacy semantics: encryption, not anonymization. Tokens are deterministic (the same
    value gives the same token: linkable, and frequencies survive) and anyone holding the
    key recovers every value. Characters outside the alphabet and the length are released
    as is. Protects the values against whoever lacks the key, as long as each value has
    enough alphabet characters (see the module docstring).

    Parameters
    ----------
    key
        AES key of 16, 24 or 32 bytes.
    tweak
        7 bytes; ``None`` derives it from the key.
    alphabet
        ``digits``, ``lower``, ``upper``, ``alnum`` or ``letters``.
    keep_format
        Leave characters outside the alphabet in place (else they are an error).

    Examples
    --------
    >>> from veil.tabular import Secret
    >>> import secrets
    >>> t = TokenizeTransformer(key=Secret(secrets.token_bytes(32)))
    >>> s = pd.Series(["123-45-6789", None], name="ssn")
    >>> token = t.fit_transform(s)
    >>> token[0][3] == "-" and token[0][6] == "-" and token[0] != s[0]
    True
    >>> t.inverse_transform(token).tolist() == s.tolist()
    True
    """

    name = "tokenize"
    reversible = True
    key_purpose = "aes"
    _secret_params = ("key", "tweak")

    @classmethod
    def from_config(
        cls,
        config: BaseModel,
        *,
        column: str,
        base_dir: Path | None = None,
        environ: dict[str, str] | None = None,
    ) -> Self:
        built = super().from_config(config, column=column, base_dir=base_dir, environ=environ)
        built.tweak = resolve_tweak(
            tweak_env=getattr(config, "tweak_env", None),
            required="tweak_env" in config.model_fields_set,
            column=column,
            nbytes=FPE_TWEAK_BYTES,
            environ=environ,
        )
        return built

    def key_checks(self) -> dict[str, str]:
        """The key's check value and, for a tweak given apart, one binding the tweak."""
        checks = super().key_checks()
        if checks and self.tweak is not None:
            key = self.key if isinstance(self.key, Secret) else Secret(bytes(self.key or b""))
            tweak = self.tweak.reveal() if isinstance(self.tweak, Secret) else bytes(self.tweak)
            checks["tweak_check"] = key.check_value(b"tweak\x00" + tweak)
        return checks

    def __init__(
        self,
        key: Secret | bytes | None = None,
        tweak: Secret | bytes | None = None,
        alphabet: str = "digits",
        keep_format: bool = True,
    ) -> None:
        self.key = key
        self.tweak = tweak
        self.alphabet = alphabet
        self.keep_format = keep_format

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        from ff3 import FF3Cipher

        series = self._series(X)
        col = column_label(series)
        if self.alphabet not in ALPHABETS:
            raise PolicyError(
                f"tokenize: unknown alphabet {self.alphabet!r}",
                hint=f"use one of: {', '.join(ALPHABETS)}",
            )
        key = _as_secret(self.key, transform=self.name, column=col)
        if key.nbytes not in AES_KEY_BYTES:
            raise KeyMissingError(
                f"column {col!r}: the 'tokenize' key is {key.nbytes} bytes; FF3-1 (AES) needs "
                "exactly 16, 24 or 32",
                hint="make one with 'veil keygen --out FILE'",
            )
        require_strong(key, column=col, transform=self.name)
        if self.tweak is None:
            tweak = derive_subkey(key, "ff3-1 tweak").reveal()[:FPE_TWEAK_BYTES]
        else:
            tweak = self.tweak.reveal() if isinstance(self.tweak, Secret) else bytes(self.tweak)
        if len(tweak) != FPE_TWEAK_BYTES:
            raise KeyMissingError(
                f"column {col!r}: the FF3-1 tweak is {len(tweak)} bytes; it must be "
                f"{FPE_TWEAK_BYTES} bytes (56 bits, 14 hex digits)",
                hint="fix the tweak variable, or unset it to derive the tweak from the key",
            )
        chars = ALPHABETS[self.alphabet]
        self.tweak_ = Secret(tweak, source="tweak")
        self.cipher_ = FF3Cipher.withCustomAlphabet(key.reveal().hex(), tweak.hex(), chars)
        self.min_length_ = min_length(self.alphabet)
        self.max_length_ = max_length(self.alphabet)
        self.charset_ = frozenset(chars)
        return super().fit(X, y)

    # -- core --------------------------------------------------------------------------

    def _chunk_tweaks(self, n: int) -> list[tuple[int, str]]:
        """(length, tweak hex) per chunk for a core of ``n`` alphabet characters."""
        base_tweak = self.tweak_.reveal()
        if n <= self.max_length_:
            return [(n, base_tweak.hex())]
        k = math.ceil(n / self.max_length_)
        size, extra = divmod(n, k)
        out = []
        for i in range(k):
            label = b"veil\x00ff3-1 chunk\x00" + k.to_bytes(4, "big") + i.to_bytes(4, "big")
            # A PRF keyed by the (secret) base tweak derives each chunk's tweak.
            tweak = hmac.new(base_tweak, label, hashlib.sha256).digest()[:FPE_TWEAK_BYTES]
            out.append((size + (1 if i < extra else 0), tweak.hex()))
        return out

    def _apply(self, text: str, decrypt: bool) -> str | None:
        """Encipher (or decipher) one value; ``None`` marks a value FF3-1 cannot take."""
        charset = self.charset_
        positions = [i for i, ch in enumerate(text) if ch in charset]
        if len(positions) != len(text) and not self.keep_format:
            return None
        core = "".join(text[i] for i in positions)
        if len(core) < self.min_length_:
            return None
        op = self.cipher_.decrypt_with_tweak if decrypt else self.cipher_.encrypt_with_tweak
        pieces, start = [], 0
        for length, tweak in self._chunk_tweaks(len(core)):
            pieces.append(op(core[start : start + length], tweak))
            start += length
        result = list(text)
        for i, ch in zip(positions, "".join(pieces), strict=True):
            result[i] = ch
        return "".join(result)

    def _map(self, X: pd.Series | pd.DataFrame, decrypt: bool) -> pd.Series:
        self._check_fitted("cipher_")
        series = self._series(X)
        out = series.astype(object).copy()
        present = series.notna()
        text = canonical_text(series[present])
        codes: dict[str, str | None] = {}
        try:
            for value in pd.unique(text):
                codes[value] = self._apply(value, decrypt)
        except ValueError:  # ff3 quotes characters in some messages: never chain them
            raise InputError(
                f"column {column_label(series)!r}: FF3-1 rejected a value",
                hint="check the alphabet",
            ) from None
        mapped = text.map(codes)
        bad = int(mapped.isna().sum())
        if bad:
            what = "de-tokenized" if decrypt else "tokenized"
            rule = (
                f"at least {self.min_length_} characters from the {self.alphabet!r} alphabet"
                if self.keep_format
                else f"only characters from the {self.alphabet!r} alphabet, at least {self.min_length_}"
            )
            raise InputError(
                f"column {column_label(series)!r}: {bad} of {len(series)} value(s) cannot be "
                f"{what}: FF3-1 needs {rule}",
                hint="use a larger alphabet (alnum, letters), keep_format: true, or hash or "
                "mask this column instead; short values are refused because no padding keeps "
                "them both length-preserving and reversible",
            )
        out[present] = mapped
        return out

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        """Tokenize; raises :class:`~veil.InputError` if a value is too short for FF3-1."""
        return self._map(X, decrypt=False)

    def inverse_transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        """Recover the original text from tokens (needs the same key, tweak and alphabet)."""
        return self._map(X, decrypt=True)
