"""Text read as numbers without the crash of pandas' parsers on long exponents.

pandas before 3.0 parses the exponent of ``"8e2569614270..."`` into a 32-bit ``int`` that
overflows, and the process dies (SIGSEGV, no exception; pandas GH 63650, fixed in pandas
3.0). Hash and token outputs are hex text, so a released column hits it now and then: with
a random key, about one run in three of the Ray table test's utility stage died in
``pd.to_numeric``. :func:`coerce_numbers` is ``pd.to_numeric(errors="coerce")`` with such
text made missing first: no finite float has an exponent of ten digits, so nothing that
reads as a number is lost.

pandas' CSV reader has the same overflow when it infers a column's type (a cell
``8e2569614270f3d8...`` in a CSV took ``read_csv`` down): :func:`long_exponent_columns`
finds the columns that hold such text, for the reader to read them as text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["coerce_numbers", "long_exponent_columns"]

#: an exponent of ten digits or more, where pandas' parser overflows
LONG_EXPONENT = r"[eE][+-]?\d{10}"


def coerce_numbers(values: Any) -> pd.Series:
    """``pd.to_numeric(values, errors="coerce")`` as a Series, without the crash above.

    Examples
    --------
    >>> coerce_numbers(["1.5", "8e2569614270f3d8", "x"]).tolist()
    [1.5, nan, nan]
    """
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values)
    if not pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        text = s.astype(str)  # a number's own text never has such an exponent
        long = text.str.contains(LONG_EXPONENT, regex=True).to_numpy(dtype=bool)
        if long.any():
            s = s.mask(long)
    return pd.to_numeric(s, errors="coerce")


def long_exponent_columns(path: Path, read_as_text: Callable[[], pd.DataFrame]) -> list[str]:
    """The columns of a CSV file that hold text with a ten-digit exponent (see above).

    The file's bytes are scanned first (one pass, in chunks); only where they hold such a
    run is the file read again, every column as text (``read_as_text``), to name its columns.
    """
    found = re.compile(rb"\d[eE][+-]?\d{10}")
    tail = b""
    hit = False
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 22):
            if found.search(tail + chunk):
                hit = True
                break
            tail = chunk[-16:]
    if not hit:
        return []
    text = read_as_text()
    return [
        str(c)
        for c in text.columns
        if text[c].dropna().astype(str).str.contains(LONG_EXPONENT, regex=True).any()
    ]
