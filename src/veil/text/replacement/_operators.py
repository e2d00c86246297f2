"""What replaces a detected span: placeholder, redact, mask, hash, fpe, encrypt, surrogate,
vault.

=============  ==========  ====================================================  ===========
operator       keyed       output                                                reversible
=============  ==========  ====================================================  ===========
placeholder    no          ``<PERSON>``; ``numbered: true`` gives ``<PERSON_1>``  no
redact         no          nothing (or ``replacement``)                          no
mask           no          ``*******1234`` (``char``, ``keep_first/keep_last``)  no
hash           yes         HMAC-SHA256 hex, ``length`` chars                     no
fpe            yes         FF3-1 token, same length, alphabet and separators     yes (key)
encrypt        yes         ``ENC[...]``; AES-SIV (``deterministic: true``,       yes (key)
                           default) or AES-GCM with a random nonce
surrogate      optional    a realistic fake of the same type and format          no
vault          yes         ``<PERSON_3fa9c2e1d0b4>``; the value kept encrypted   yes (vault)
                           in a SQL vault, every lookup audit-logged
=============  ==========  ====================================================  ===========

Consistency: hash, fpe, deterministic encrypt, vault and keyed surrogates give the same
replacement to the same (entity type, value) in every row, column, file and run that uses
the same key, and different replacements under different keys. A surrogate without a key
uses ``seed`` (consistent for one seed, but a seed is not a secret: anyone who knows it can
test guesses) or, without either, fresh randomness per run (consistent within the run).
Numbered placeholders count per document by default (``scope: run`` counts per run, which
keeps a table of every value seen).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, ClassVar

from veil._errors import KeyMissingError, PolicyError
from veil._keystrength import key_check_value
from veil._registry import Registry
from veil.text.recognition._secrets import SECRET_TYPES
from veil.text.replacement._keys import derive, load_key

__all__ = ["Operator", "decrypt_text", "make_operator", "operators"]

operators: Registry[type[Operator]] = Registry("text operator")


class Operator:
    """Replaces one value of one entity type. ``reset()`` starts a new document."""

    name: ClassVar[str] = "operator"
    reversible: ClassVar[bool] = False
    options: ClassVar[frozenset[str]] = frozenset()
    #: name variants of one person share the replacement of the full name
    links_names: ClassVar[bool] = False
    #: check value of the operator's key (see :func:`veil._keystrength.key_check_value`),
    #: recorded in the report; ``None`` for an unkeyed operator
    key_check: str | None = None

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - self.options)
        if unknown:
            raise PolicyError(
                f"operator {self.name!r}: unknown option(s) {', '.join(unknown)}",
                hint=f"it takes: {', '.join(sorted(self.options)) or '(no options)'}",
            )

    def replace(self, value: str, entity_type: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def reset(self) -> None:
        return None


def make_operator(name: str, options: Mapping[str, Any] | None = None) -> Operator:
    """An operator by name; unknown names and options raise :class:`~veil.PolicyError`."""
    cls = operators.get(name)
    return cls(**dict(options or {}))


def _key(
    op: str, opts: dict[str, Any], default_env: str, *, required: bool = True, min_bytes: int = 16
) -> bytes | None:
    return load_key(
        operator=op,
        key_env=opts.pop("key_env", default_env),
        key_file=opts.pop("key_file", None),
        min_bytes=min_bytes,
        required=required,
    )


@operators.register("placeholder")
class PlaceholderOperator(Operator):
    """``<ENTITY>``, or ``<ENTITY_n>`` numbered by first appearance."""

    options = frozenset({"numbered", "scope", "template"})
    links_names = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.numbered = bool(options.get("numbered", False))
        self.scope = options.get("scope", "document")
        if self.scope not in ("document", "run"):
            raise PolicyError("operator 'placeholder': scope must be 'document' or 'run'")
        self.template = str(
            options.get("template", "<{entity}>" if not self.numbered else "<{entity}_{n}>")
        )
        self._seen: dict[str, dict[str, int]] = {}

    def replace(self, value: str, entity_type: str) -> str:
        n = 0
        if self.numbered:
            table = self._seen.setdefault(entity_type, {})
            n = table.setdefault(value.casefold(), len(table) + 1)
        return self.template.format(entity=entity_type, n=n)

    def reset(self) -> None:
        if self.scope == "document":
            self._seen.clear()


@operators.register("redact")
class RedactOperator(Operator):
    """Removes the value (or writes ``replacement``)."""

    options = frozenset({"replacement"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.replacement = str(options.get("replacement", ""))

    def replace(self, value: str, entity_type: str) -> str:
        return self.replacement


@operators.register("mask")
class MaskOperator(Operator):
    """Masks letters and digits, keeping ``keep_first``/``keep_last`` of them and separators."""

    options = frozenset({"char", "keep_first", "keep_last", "keep_separators"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.char = str(options.get("char", "*"))[:1] or "*"
        self.keep_first = int(options.get("keep_first", 0))
        self.keep_last = int(options.get("keep_last", 0))
        self.keep_separators = bool(options.get("keep_separators", True))

    def replace(self, value: str, entity_type: str) -> str:
        if entity_type in SECRET_TYPES:
            # a secret's symbols and ends are the secret too: only its layout stays
            return "".join(c if c.isspace() else self.char for c in value)
        idx = (
            [i for i, c in enumerate(value) if c.isalnum()]
            if self.keep_separators
            else list(range(len(value)))
        )
        n = len(idx)
        keep = set(idx[: self.keep_first]) | set(
            idx[n - self.keep_last :] if self.keep_last else []
        )
        if len(keep) >= n:  # never return the value unmasked
            keep = set()
        chars = list(value)
        for i in idx:
            if i not in keep:
                chars[i] = self.char
        return "".join(chars)


def _normal(value: str, entity_type: str) -> bytes:
    v = " ".join(value.split())
    if entity_type in (
        "EMAIL_ADDRESS",
        "URL",
        "PERSON",
        "LOCATION",
        "ORGANIZATION",
        "NRP",
        "IBAN_CODE",
        "MAC_ADDRESS",
    ):
        v = v.casefold()
    if entity_type in (
        "PHONE_NUMBER",
        "CREDIT_CARD",
        "US_SSN",
        "US_ITIN",
        "IBAN_CODE",
        "ABA_ROUTING_NUMBER",
    ):
        v = "".join(c for c in v if c.isalnum())
    return entity_type.encode() + b"\x00" + v.encode("utf-8")


@operators.register("hash")
class HashOperator(Operator):
    """Keyed HMAC-SHA256 of the normalised value (never unkeyed), hex, ``length`` chars.

    Normalisation: whitespace collapsed; case folded for names, e-mails, URLs; separators
    dropped for numbers, so "617-555-0199" and "(617) 555 0199" hash alike.
    """

    options = frozenset({"key_env", "key_file", "length", "prefix"})
    links_names = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = dict(options)
        key = _key("hash", opts, "VEIL_HMAC_KEY")
        self.key_check = None if key is None else key_check_value(key)
        assert key is not None
        self._key = derive(key, "hash")
        self.length = int(opts.get("length", 16))
        if not 8 <= self.length <= 64:
            raise PolicyError("operator 'hash': length must be between 8 and 64")
        self.prefix = bool(opts.get("prefix", False))

    def replace(self, value: str, entity_type: str) -> str:
        h = hmac.new(self._key, _normal(value, entity_type), hashlib.sha256).hexdigest()[
            : self.length
        ]
        return f"{entity_type}_{h}" if self.prefix else h


_ALPHABETS = (
    "0123456789",
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
)


@operators.register("fpe")
class FpeOperator(Operator):
    """Format-preserving encryption with FF3-1 (the ``ff3`` package): digits stay digits,
    letters stay letters of the same case, separators stay in place.

    Each character class (digits, lower, upper) is encrypted as its own FF3-1 string with a
    tweak derived from the key and the entity type. Runs shorter than FF3-1's minimum
    (6 digits, 5 letters) are left as they are, so the operator suits numbers (cards,
    phones, SSNs, account numbers) rather than names; the report counts those. Reverse with
    :meth:`decrypt`.
    """

    options = frozenset({"key_env", "key_file", "tweak_env"})
    reversible = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        from veil._deps import require

        require("ff3", extra="text", purpose="the fpe text operator")
        opts = dict(options)
        tweak_env = opts.pop("tweak_env", None)
        key = _key("fpe", opts, "VEIL_FPE_KEY")
        self.key_check = None if key is None else key_check_value(key)
        assert key is not None
        if len(key) not in (16, 24, 32):
            key = derive(key, "fpe-aes", 32)
        self._key_hex = key.hex()
        self._siv_key = derive(key, "fpe-siv", 64)  # values FF3-1 cannot take (see replace)
        self._tweak_seed: bytes = key
        if tweak_env:
            tw = load_key(operator="fpe", key_env=tweak_env, min_bytes=7, secret=False)
            assert tw is not None
            self._tweak_seed = tw
        self._ciphers: dict[tuple[str, int], Any] = {}
        self.too_short = 0

    def _cipher(self, entity_type: str, radix_index: int) -> Any:
        from ff3 import FF3Cipher

        k = (entity_type, radix_index)
        if k not in self._ciphers:
            tweak = derive(self._tweak_seed, f"fpe-tweak:{entity_type}", 7).hex()
            self._ciphers[k] = FF3Cipher.withCustomAlphabet(
                self._key_hex, tweak, _ALPHABETS[radix_index]
            )
        return self._ciphers[k]

    def _apply(self, value: str, entity_type: str, decrypt: bool) -> str | None:
        """``value`` with each character class run through FF3-1, or ``None`` when a class
        is outside FF3-1's domain (too short or too long): then nothing is changed."""
        chars = list(value)
        for ai, alphabet in enumerate(_ALPHABETS):
            pos = [i for i, c in enumerate(value) if c in alphabet]
            if not pos:
                continue
            plain = "".join(value[i] for i in pos)
            cipher = self._cipher(entity_type, ai)
            try:
                out = cipher.decrypt(plain) if decrypt else cipher.encrypt(plain)
            except ValueError:
                return None
            for i, c in zip(pos, out, strict=True):
                chars[i] = c
        return "".join(chars)

    def replace(self, value: str, entity_type: str) -> str:
        """The FF3-1 token; a value with a character class FF3-1 cannot take (a 5-digit ZIP
        code, the two capitals of "John Smith") becomes a deterministic AES-SIV
        ``ENC[...]`` token under a key derived from the FPE key instead: its format is
        lost, never its secrecy (leaving such runs as they were leaked them), and
        :meth:`decrypt` reverses both. ``too_short`` counts those values."""
        token = self._apply(value, entity_type, decrypt=False)
        if token is not None:
            return token
        self.too_short += 1
        return _siv_token(self._siv_key, value, entity_type)

    def decrypt(self, token: str, entity_type: str) -> str:
        if token.startswith(_ENC_PREFIX) and token.endswith("]"):
            return _open_token(self._siv_key, token)
        plain = self._apply(token, entity_type, decrypt=True)
        if plain is None:
            raise KeyMissingError("a token does not decrypt with this key (damaged token)")
        return plain


_ENC_PREFIX = "ENC["


@operators.register("encrypt")
class EncryptOperator(Operator):
    """Authenticated encryption of the value, written as ``ENC[<base64url>]``.

    ``deterministic: true`` (default) uses AES-SIV: equal values give equal tokens (so
    joins and counts survive) and nothing else leaks. ``deterministic: false`` uses AES-GCM
    with a random nonce: equal values give different tokens. The entity type is bound as
    associated data. Decrypt with :func:`decrypt_text`.
    """

    options = frozenset({"key_env", "key_file", "deterministic"})
    reversible = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = dict(options)
        key = _key("encrypt", opts, "VEIL_ENC_KEY")
        self.key_check = None if key is None else key_check_value(key)
        assert key is not None
        self.deterministic = bool(opts.get("deterministic", True))
        self._siv_key = derive(key, "aes-siv", 64)
        self._gcm_key = derive(key, "aes-gcm", 32)

    def replace(self, value: str, entity_type: str) -> str:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if self.deterministic:
            return _siv_token(self._siv_key, value, entity_type)
        nonce = secrets.token_bytes(12)
        blob = (
            b"G"
            + nonce
            + AESGCM(self._gcm_key).encrypt(nonce, value.encode(), entity_type.encode())
        )
        return _enc_token(entity_type, blob)

    def decrypt(self, token: str) -> str:
        return _open_token(self._siv_key, token, self._gcm_key)


def _enc_token(entity_type: str, blob: bytes) -> str:
    token = base64.urlsafe_b64encode(entity_type.encode() + b"\x00" + blob).decode().rstrip("=")
    return f"{_ENC_PREFIX}{token}]"


def _siv_token(siv_key: bytes, value: str, entity_type: str) -> str:
    """A deterministic ``ENC[...]`` token: AES-SIV, the entity type bound as associated data."""
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    blob = b"S" + AESSIV(siv_key).encrypt(value.encode("utf-8"), [entity_type.encode()])
    return _enc_token(entity_type, blob)


def _open_token(siv_key: bytes, token: str, gcm_key: bytes | None = None) -> str:
    """The plaintext of an ``ENC[...]`` token: AES-SIV, or AES-GCM when ``gcm_key`` is given
    (the encrypt operator's random mode); the entity type is the associated data."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESSIV

    body = token[len(_ENC_PREFIX) : -1] if token.startswith(_ENC_PREFIX) else token
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        entity, _, blob = raw.partition(b"\x00")
        if blob[:1] == b"S":
            data = AESSIV(siv_key).decrypt(blob[1:], [entity])
        elif blob[:1] == b"G" and gcm_key is not None:
            data = AESGCM(gcm_key).decrypt(blob[1:13], blob[13:], entity)
        else:
            raise ValueError("unknown token kind")
    except (ValueError, InvalidTag):
        raise KeyMissingError(
            "a token does not decrypt with this key (wrong key or damaged token)"
        ) from None
    return data.decode("utf-8")


def decrypt_text(text: str, **options: Any) -> str:
    """Replace every ``ENC[...]`` token in ``text`` by its plaintext (needs the key)."""
    import re

    op = EncryptOperator(**options)
    return re.sub(r"ENC\[[A-Za-z0-9_-]+\]", lambda m: op.decrypt(m.group(0)), text)


@operators.register("surrogate")
class SurrogateOperator(Operator):
    """A realistic fake of the same type and format (see :mod:`veil.text.replacement._surrogate`).

    Keyed by ``VEIL_HMAC_KEY`` (or ``key_env``/``key_file``) when set: the same value gets
    the same surrogate in every run with that key. Otherwise ``seed``; otherwise random
    per run. Name variants of one person share one fake name ("John Smith" -> "Alan
    Brown", "Mr. Smith" -> "Mr. Brown").
    """

    options = frozenset({"key_env", "key_file", "seed", "locale", "cache_size"})
    links_names = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        from veil.text.replacement._surrogate import SurrogateFactory

        opts = dict(options)
        key = _key("surrogate", opts, "VEIL_HMAC_KEY", required=False)
        self.key_check = None if key is None else key_check_value(key)
        seed = opts.get("seed")
        if key is not None:
            self._key = derive(key, "surrogate")
            self.keyed = True
        else:
            self._key = (
                hashlib.sha256(f"veil-seed:{seed}".encode()).digest()
                if seed is not None
                else secrets.token_bytes(32)
            )
            self.keyed = False
        self.factory = SurrogateFactory(str(opts.get("locale", "en_US")))
        self._cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._cache_size = int(opts.get("cache_size", 10_000))

    def seed_for(self, value: str, entity_type: str) -> int:
        digest = hmac.new(self._key, _normal(value, entity_type), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big")

    def replace(self, value: str, entity_type: str) -> str:
        k = (entity_type, value)
        hit = self._cache.get(k)
        if hit is not None:
            self._cache.move_to_end(k)
            return hit
        out = self.factory.make(entity_type, value, self.seed_for(value, entity_type))
        self._cache[k] = out
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def person_parts(self, canonical: str, n_parts: int) -> list[str]:
        return self.factory.person_parts(n_parts, self.seed_for(canonical, "PERSON"))


@operators.register("vault")
class VaultOperator(Operator):
    """Replaces values with tokens kept, encrypted, in a :class:`~veil.text.TokenVault`.

    Options: ``url`` (SQLAlchemy URL; default ``sqlite:///veil-vault.db``), ``key_env``
    (default ``VEIL_VAULT_KEY``), ``key_file``, ``actor`` (recorded in the audit log).
    """

    options = frozenset({"url", "key_env", "key_file", "actor"})
    reversible = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = dict(options)
        key = _key("vault", opts, "VEIL_VAULT_KEY")
        self.key_check = None if key is None else key_check_value(key)
        assert key is not None
        self._vault_key = key
        self.url = str(opts.get("url", "sqlite:///veil-vault.db"))
        self.actor = str(opts.get("actor", "veil"))
        self._vault: Any = None

    @property
    def vault(self) -> Any:
        """The :class:`TokenVault`, opened on first use (checking a policy opens nothing)."""
        if self._vault is None:
            from veil.text.replacement._vault import TokenVault

            self._vault = TokenVault(self.url, self._vault_key, actor=self.actor)
        return self._vault

    def replace(self, value: str, entity_type: str) -> str:
        return str(self.vault.tokenize(value, entity_type))

    def reset(self) -> None:
        return None

    def flush(self) -> None:
        if self._vault is not None:
            self._vault.flush()
