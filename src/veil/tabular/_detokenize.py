"""Reverse FF3-1 tokenization of released columns with the key the policy names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from veil._errors import InputError, PolicyError, SchemaError
from veil._progress import NullProgress, Progress
from veil.tabular._fpe import TokenizeTransformer
from veil.tabular._keycheck import check_key
from veil.tabular._transforms import build_transformer

if TYPE_CHECKING:
    from veil.policy import Policy

__all__ = ["detokenize_table", "read_release"]


def read_release(path: str | Path) -> pd.DataFrame:
    """Read a released table for de-tokenizing; CSV cells are read as text.

    Reading a CSV with type inference would turn a token such as ``0123456789`` into the
    number 123456789 and lose its leading zero, so CSV is read with every cell as text
    (written back, the text is unchanged). Parquet and JSON Lines keep their types.
    """
    from veil.io import infer_format, read_table

    path = Path(path)
    if not path.is_file() or infer_format(path) != "csv":
        return read_table(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except (ValueError, OSError, pd.errors.ParserError) as exc:  # messages may quote content
        raise InputError(
            f"{path}: cannot be read as CSV ({type(exc).__name__})",
            hint="detokenize reads comma-separated UTF-8 as written by veil run",
        ) from None
    if len(df) == 0:
        raise InputError(f"{path}: the table is empty (no rows)")
    return df


def detokenize_table(
    table: pd.DataFrame,
    policy: Policy,
    columns: list[str],
    *,
    progress: Progress | None = None,
    environ: dict[str, str] | None = None,
    key_checks: tuple[Mapping[str, Mapping[str, str]], Path] | None = None,
) -> tuple[pd.DataFrame, dict[str, dict[str, Any]]]:
    """Restore tokenize columns of a released table; return it and per-column counts.

    Each column must have a ``tokenize`` transform in ``policy``; its key (and tweak) come
    from that transform's ``key_env``/``key_file``/``tweak_env``, exactly as when tokenizing.

    ``key_checks`` (as :func:`veil.tabular._keycheck.find_key_checks` returns them) are the
    check values recorded with the release: a key or tweak that does not match them, or a
    column they do not cover, is refused before any value is deciphered. FF3-1 deciphers
    with any key, so without them a wrong key gives plausible wrong values.

    Raises
    ------
    PolicyError
        A column the policy does not list, or one it does not tokenize.
    SchemaError
        A column missing from the table.
    KeyMissingError
        The key is unavailable.
    KeyMismatchError
        The key or tweak is not the one recorded in ``key_checks``.
    InputError
        A column read as numbers (leading zeros of tokens may be lost), or a token that
        FF3-1 cannot take.

    Examples
    --------
    >>> restored, counts = detokenize_table(df, policy, ["ssn"])  # doctest: +SKIP
    >>> counts["ssn"]["restored"]  # doctest: +SKIP
    98
    """
    progress = progress or NullProgress()
    wanted = list(dict.fromkeys(columns))
    if not wanted:
        raise InputError("no column to de-tokenize", hint="give --column NAME")
    transformers: dict[str, TokenizeTransformer] = {}
    for col in wanted:
        cfg = policy.columns.get(col)
        if cfg is None:
            raise PolicyError(
                f"column {col!r} is not in the policy",
                hint=f"tokenized columns: {', '.join(_tokenized(policy)) or 'none'}",
            )
        if cfg.transform is None or cfg.transform.type != "tokenize":
            raise PolicyError(
                f"column {col!r} is not tokenized by the policy, so it cannot be restored",
                hint=f"tokenized columns: {', '.join(_tokenized(policy)) or 'none'}",
            )
        if col not in table.columns:
            raise SchemaError(f"column {col!r} is not in the table", hint="check the release file")
        if pd.api.types.is_numeric_dtype(table[col].dtype):
            raise InputError(
                f"column {col!r} was read as numbers, which may have lost tokens' leading zeros",
                hint="read the table with this column as text (veil detokenize does so for CSV)",
            )
        built = build_transformer(
            cfg.transform, column=col, base_dir=policy.base_dir, environ=environ
        )
        assert isinstance(built, TokenizeTransformer)
        if key_checks is not None:
            recorded, source = key_checks
            if col not in recorded:
                raise InputError(
                    f"column {col!r}: {source} records no key check value for it",
                    hint="give the key check file of this release (--key-check), or "
                    "--no-key-check to restore without one (a wrong key then gives wrong values)",
                )
            check_key(col, built.key_checks(), recorded[col], source)
        transformers[col] = built
    out = table.copy(deep=False)
    counts: dict[str, dict[str, Any]] = {}
    with progress.task("de-tokenizing", total=len(transformers)) as task:
        for col, t in transformers.items():
            series = table[col]
            out[col] = t.fit(series).inverse_transform(series)
            missing = int(series.isna().sum())
            counts[col] = {
                "rows": len(series),
                "missing": missing,
                "restored": len(series) - missing,
            }
            task.advance()
    return out, counts


def _tokenized(policy: Policy) -> list[str]:
    return [
        name
        for name, c in policy.columns.items()
        if c.transform is not None and c.transform.type == "tokenize"
    ]
