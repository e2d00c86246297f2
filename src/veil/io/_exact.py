"""The text of CSV cells that a numeric parse would rewrite, kept for the release.

pandas reads ``01`` as the integer 1, ``00501`` as 501, ``3.50`` as 3.5 and ``1e5`` as
100000.0, and writes them back as ``1``, ``501``, ``3.5`` and ``100000.0``. A column released
as is must come out as it went in, so for a CSV input the pipeline reads, beside the typed
table that the stages measure, the text of every column whose parse does not give its text
back (:func:`read_exact_text`); before writing, each cell the stages left unchanged gets its
text back (:func:`restore_exact_text`). Cells a stage changed (generalized, suppressed,
transformed) keep what the stage wrote.

Only columns read as numbers or booleans are concerned: text columns are read as text.
Nothing here logs or reports a value; the result is the release itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

    from veil.policy import Policy

__all__ = [
    "format_like_input",
    "read_exact_text",
    "read_exact_text_file",
    "restore_exact_text",
    "rewritten_columns",
    "text_forms_for_synthesis",
]


def rewritten_columns(typed: pd.DataFrame, text: pd.DataFrame) -> list[str]:
    """The columns of ``typed`` (parsed) whose values do not render as ``text`` (as read)."""
    import pandas as pd

    out = []
    for c in text.columns:
        if c not in typed.columns:
            continue
        parsed = typed[c]
        if pd.api.types.is_object_dtype(parsed) or pd.api.types.is_string_dtype(parsed):
            continue  # read as text already
        written = text[c]
        present = written.notna() & parsed.notna()
        if not present.any():
            continue
        # each distinct text once (it decides the parsed value): 0.02 s for 50,000 distinct
        pairs = pd.DataFrame({"t": written[present], "p": parsed[present]}).drop_duplicates("t")
        if any(str(t) != str(p) for t, p in zip(pairs["t"], pairs["p"], strict=True)):
            out.append(str(c))
    return out


def _candidates(typed: pd.DataFrame) -> list[str]:
    import pandas as pd

    return [
        str(c)
        for c in typed.columns
        if not (pd.api.types.is_object_dtype(typed[c]) or pd.api.types.is_string_dtype(typed[c]))
        and not pd.api.types.is_datetime64_any_dtype(typed[c])
    ]


def _keep_rewritten(typed: pd.DataFrame, text: pd.DataFrame) -> pd.DataFrame | None:
    if len(text) != len(typed):
        return None
    text.index = typed.index
    keep = rewritten_columns(typed, text)
    return text[keep] if keep else None


def read_exact_text(policy: Policy, typed: pd.DataFrame) -> pd.DataFrame | None:
    """The columns of a CSV input whose numeric parse rewrites their text, as text.

    Returns None when the input is not a CSV file or no column is rewritten.
    """
    from veil.io import infer_format, read_table

    path = policy.data.path
    if path is None or infer_format(policy.resolve(path), policy.data.format) != "csv":
        return None
    candidates = _candidates(typed)
    if not candidates:
        return None
    text = read_table(
        policy.data, base_dir=policy.base_dir, text_columns=candidates, columns=candidates
    )
    return _keep_rewritten(typed, text)


def read_exact_text_file(
    path: Path, typed: pd.DataFrame, *, separator: str | None = None
) -> pd.DataFrame | None:
    """:func:`read_exact_text` for a CSV file that ``typed`` was read from. Without
    ``separator``, the one of ``,`` ``;`` tab ``|`` whose header has ``typed``'s columns
    (``typed`` may lack some: columns dropped after reading)."""
    import pandas as pd

    from veil.io import infer_format, read_table

    if infer_format(path) != "csv":
        return None
    candidates = _candidates(typed)
    if not candidates:
        return None
    names = [str(c) for c in typed.columns]
    for sep in [separator] if separator else [",", ";", "\t", "|"]:
        try:
            header = pd.read_csv(path, sep=sep, nrows=0)
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        if len(header.columns) > 1 and set(names) <= {str(c) for c in header.columns}:
            text = read_table(path, separator=sep, text_columns=candidates, columns=candidates)
            return _keep_rewritten(typed, text)
    return None


def restore_exact_text(
    released: pd.DataFrame, original: pd.DataFrame, text: pd.DataFrame | None
) -> pd.DataFrame:
    """``released`` with the input's text in every cell of ``text``'s columns that the
    stages left equal to the parsed input; other cells keep the released value."""
    import pandas as pd

    if text is None or text.empty:
        return released
    if released.index.is_unique and released.index.isin(original.index).all():
        rows = released.index
    elif len(released) == len(original):
        rows = original.index  # same rows in the same order, index reset by a stage
    else:
        return released
    out = released.copy(deep=False)
    for c in text.columns:
        if c not in released.columns or c not in original.columns:
            continue
        now = released[c].to_numpy()
        before = original[c].reindex(rows).to_numpy()
        written = text[c].reindex(rows).to_numpy()
        # element by element as Python objects: numpy may answer a whole-array False when
        # it compares strings (a generalized column) with numbers
        same = pd.Series(now, dtype=object).eq(pd.Series(before, dtype=object))
        unchanged = same | pd.Series(pd.isna(now) & pd.isna(before))
        if not unchanged.any():
            continue  # the stages rewrote the whole column (generalized, transformed)
        column = pd.Series(now, dtype=object)
        column[unchanged.to_numpy()] = written[unchanged.to_numpy()]
        rest = ~unchanged.to_numpy() & pd.notna(now)
        if rest.any():  # one type per column: what a stage wrote, as text
            column[rest] = [str(v) for v in now[rest]]
        values = column.to_numpy()
        values[pd.isna(values)] = None
        out[c] = values
    return out


def _text_format(text: pd.Series) -> tuple[str, int] | None:
    """("decimals", d) when every value is written with d decimals, ("width", w) when every
    value is w digits with leading zeros; None otherwise."""
    values = text.dropna().astype(str)
    if values.empty:
        return None
    decimals = values.str.extract(r"^-?\d+\.(\d+)$")[0]
    if decimals.notna().all():
        lengths = decimals.str.len().unique()
        if len(lengths) == 1:
            return ("decimals", int(lengths[0]))
    if values.str.fullmatch(r"\d+").all():
        widths = values.str.len().unique()
        if len(widths) == 1 and values.str.startswith("0").any():
            return ("width", int(widths[0]))
    return None


def text_forms_for_synthesis(
    table: pd.DataFrame,
    text: pd.DataFrame | None,
    *,
    max_categories: int = 1000,
    as_categories: bool = True,
) -> tuple[pd.DataFrame, dict[str, tuple[str, int]]]:
    """The training table of a synthesizer with the input's text where it matters.

    A rewritten column (see :func:`rewritten_columns`) with few distinct texts is learnt as
    the categories written (``01``, ``3.50``), so the synthetic table holds them exactly.
    One with many is learnt as numbers; the returned formats (decimals, zero-padded width)
    say how to write its synthetic values like the input's (:func:`format_like_input`).

    ``as_categories=False`` (the DP synthesizers) keeps every column numeric and returns only
    formats: a category list is read from the data, and a rare exact value listed there could
    appear in the output outside the DP guarantee, where numeric bounds reveal no value.
    """
    if text is None:
        return table, {}
    out = table.copy(deep=False)
    formats: dict[str, tuple[str, int]] = {}
    n = len(table)
    for c in text.columns:
        if c not in table.columns:
            continue
        written = text[c].reindex(table.index) if len(text) != n else text[c]
        distinct = int(written.nunique(dropna=True))
        if as_categories and distinct <= min(max_categories, max(50, n // 2)):
            out[c] = written.to_numpy()
        else:
            fmt = _text_format(written)
            if fmt is not None:
                formats[str(c)] = fmt
    return out, formats


def format_like_input(table: pd.DataFrame, formats: dict[str, tuple[str, int]]) -> pd.DataFrame:
    """Write the numeric columns named in ``formats`` as the input wrote them."""
    import numpy as np

    from veil._numeric import coerce_numbers

    if not formats:
        return table
    out = table.copy(deep=False)
    for c, (kind, size) in formats.items():
        if c not in out.columns:
            continue
        numbers = coerce_numbers(out[c]).to_numpy(dtype=float)
        shown: list[str | None] = [
            None
            if np.isnan(v)
            else (f"{v:.{size}f}" if kind == "decimals" else str(round(v)).zfill(size))
            for v in numbers
        ]
        out[c] = shown
    return out
