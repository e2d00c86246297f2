"""Drop, keep, mask and keyed-hash transforms of identifier columns."""

from __future__ import annotations

import hashlib
import hmac
from typing import Self

import pandas as pd

from veil._errors import KeyMissingError, PolicyError
from veil.tabular._base import TRANSFORMS, FieldTransformer, canonical_text, column_label
from veil.tabular._keys import HMAC_MIN_BYTES, Secret, require_strong

__all__ = ["DropTransformer", "KeepTransformer", "KeyedHashTransformer", "MaskTransformer"]


@TRANSFORMS.register("drop")
class DropTransformer(FieldTransformer):
    """Remove the column from the release.

    Privacy semantics: the strongest option for a direct identifier; nothing of the column
    is released. :meth:`transform` returns a frame with no columns (same index).

    Examples
    --------
    >>> DropTransformer().fit_transform(pd.Series(["a", "b"], name="email")).shape
    (2, 0)
    """

    name = "drop"
    drops_column = True

    def __init__(self) -> None:
        pass

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.DataFrame:
        self._check_fitted("fitted_")
        series = self._series(X)
        return pd.DataFrame(index=series.index)


@TRANSFORMS.register("keep")
class KeepTransformer(FieldTransformer):
    """Keep the column as it is (a copy). Offers no protection; for non-identifiers only.

    Examples
    --------
    >>> KeepTransformer().fit_transform(pd.Series([1, 2])).tolist()
    [1, 2]
    """

    name = "keep"

    def __init__(self) -> None:
        pass

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("fitted_")
        return self._series(X).copy()


@TRANSFORMS.register("mask")
class MaskTransformer(FieldTransformer):
    """Replace characters with ``char``, keeping the first ``keep_first`` and last ``keep_last``.

    The output has the input's length. A value no longer than ``keep_first + keep_last``
    is masked entirely (keeping its characters would release it whole).

    Privacy semantics: hides the masked characters only. What is kept is released as is:
    the last 4 digits of an SSN or card are often enough to link records, and the length
    of a name is itself a weak identifier. Masking is irreversible.

    Examples
    --------
    >>> MaskTransformer(keep_last=4).fit_transform(pd.Series(["123-45-6789"])).tolist()
    ['*******6789']
    """

    name = "mask"

    def __init__(self, keep_first: int = 0, keep_last: int = 4, char: str = "*") -> None:
        self.keep_first = keep_first
        self.keep_last = keep_last
        self.char = char

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        if self.keep_first < 0 or self.keep_last < 0:
            raise PolicyError("mask: keep_first and keep_last must be 0 or more")
        if not isinstance(self.char, str) or len(self.char) != 1:
            raise PolicyError("mask: char must be exactly one character")
        return super().fit(X, y)

    def _mask(self, text: str) -> str:
        n = len(text)
        kf, kl = self.keep_first, self.keep_last
        if n <= kf + kl:
            return self.char * n
        return text[:kf] + self.char * (n - kf - kl) + text[n - kl :]

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("fitted_")
        series = self._series(X)
        out = series.astype(object).copy()
        present = series.notna()
        out[present] = canonical_text(series[present]).map(self._mask)
        return out

    def summarize(self, before: pd.Series, after: pd.Series) -> dict[str, int | float | str]:
        counts = super().summarize(before, after)
        present = before.notna()
        lengths = canonical_text(before[present]).str.len()
        counts["fully_masked"] = int((lengths <= self.keep_first + self.keep_last).sum())
        return counts


def _as_secret(key: Secret | bytes | None, *, transform: str, column: str) -> Secret:
    if key is None:
        raise KeyMissingError(
            f"column {column!r}: the {transform!r} transform has no key; "
            "veil refuses to run it unkeyed",
            hint="give a key from an environment variable or a key file "
            "('veil keygen --out FILE' makes one); an unkeyed hash of a low-entropy "
            "identifier is reversible by enumeration",
        )
    return key if isinstance(key, Secret) else Secret(bytes(key), source="argument")


@TRANSFORMS.register("hash")
class KeyedHashTransformer(FieldTransformer):
    """Keyed hash: HMAC-SHA256 of the value's text, hex, truncated to ``length`` characters.

    ``hmac.new(key, value.encode(), "sha256").hexdigest()[:length]`` reproduces an output,
    so other systems holding the key can compute the same pseudonyms to join on.

    Privacy semantics: a pseudonym, not anonymization. The same value maps to the same
    output (records stay linkable within and across releases made with the same key).
    Without the key the output cannot be recomputed from a guess, so low-entropy values
    (SSNs, phone numbers, names) stay protected *only while the key is secret*: anyone
    holding it can hash every candidate and reverse the column. Not reversible otherwise.
    ``length`` hex characters carry ``4 * length`` bits; collisions are counted in the
    report.

    Parameters
    ----------
    key
        The HMAC key (at least 16 bytes); see :func:`veil.tabular.resolve_key`. Required.
    length
        Hex characters kept, 8 to 64.

    Examples
    --------
    >>> from veil.tabular import Secret
    >>> import secrets
    >>> h = KeyedHashTransformer(key=Secret(secrets.token_bytes(32)), length=12)
    >>> out = h.fit_transform(pd.Series(["alice", None, "alice"], name="name"))
    >>> out[0] == out[2], out[1] is None, len(out[0])
    (True, True, 12)
    """

    name = "hash"
    key_purpose = "hmac"
    _secret_params = ("key",)

    def __init__(self, key: Secret | bytes | None = None, length: int = 16) -> None:
        self.key = key
        self.length = length

    def fit(self, X: pd.Series | pd.DataFrame, y: object = None) -> Self:
        series = self._series(X)
        self.key_ = _as_secret(self.key, transform=self.name, column=column_label(series))
        if self.key_.nbytes < HMAC_MIN_BYTES:
            raise KeyMissingError(
                f"column {column_label(series)!r}: the 'hash' key is {self.key_.nbytes} bytes; "
                f"an HMAC key needs at least {HMAC_MIN_BYTES}",
                hint="make one with 'veil keygen --out FILE'",
            )
        require_strong(self.key_, column=column_label(series), transform=self.name)
        if not 8 <= self.length <= 64:
            raise PolicyError("hash: length must be between 8 and 64 hex characters")
        return super().fit(X, y)

    def transform(self, X: pd.Series | pd.DataFrame) -> pd.Series:
        self._check_fitted("key_")
        series = self._series(X)
        key, length = self.key_.reveal(), self.length
        out = series.astype(object).copy()
        present = series.notna()
        text = canonical_text(series[present])
        codes = {
            v: hmac.new(key, v.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[
                :length
            ]
            for v in pd.unique(text)
        }
        out[present] = text.map(codes)
        return out

    def summarize(self, before: pd.Series, after: pd.Series) -> dict[str, int | float | str]:
        counts = super().summarize(before, after)
        present = before.notna()
        distinct_in = canonical_text(before[present]).nunique()
        distinct_out = after[present].nunique()
        counts["collisions"] = int(distinct_in - distinct_out)
        return counts
