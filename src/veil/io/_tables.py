"""Reading and writing tables: CSV, Parquet, JSONL files and SQL tables (SQLAlchemy)."""

from __future__ import annotations

import csv
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from veil._errors import InputError
from veil._numeric import long_exponent_columns
from veil.io._atomic import atomic_path

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import DataConfig

__all__ = ["infer_format", "read_sql", "read_table", "sql_url", "write_sql", "write_table"]

log = logging.getLogger(__name__)

Format = Literal["csv", "parquet", "jsonl"]
_SUFFIXES: dict[str, Format] = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
# pandas' default spellings of a missing value (pandas._libs.parsers.STR_NA_VALUES)
PANDAS_NA = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)
_QUOTING: dict[str, int] = {
    "minimal": csv.QUOTE_MINIMAL,
    "all": csv.QUOTE_ALL,
    "none": csv.QUOTE_NONE,
    "nonnumeric": csv.QUOTE_NONNUMERIC,
}


def infer_format(path: Path, given: str | None = None) -> Format:
    if given is not None:
        return given  # type: ignore[return-value]
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".zst", ".xz")]
    fmt = _SUFFIXES.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        raise InputError(
            f"cannot tell the format of {path.name!s} from its suffix",
            hint="name it .csv, .parquet or .jsonl, or set data.format in the policy",
        )
    return fmt


def first_bad_utf8(path: Path) -> str:
    """Where the first byte that is not UTF-8 lies: "line L, byte B of the file". Reads the
    file in 1 MB pieces; a character cut by a piece's end is carried to the next."""
    carry = b""
    offset, line = 0, 1  # of the first byte of ``data``
    with path.open("rb") as fh:
        while True:
            chunk = fh.read(1 << 20)
            data = carry + chunk
            if not data:
                break
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                if chunk and exc.reason == "unexpected end of data" and exc.end == len(data):
                    carry = data[exc.start :]  # a character cut by the piece's end
                    line += data.count(b"\n", 0, exc.start)
                    offset += exc.start
                    continue
                line += data.count(b"\n", 0, exc.start)
                return f"line {line}, byte {offset + exc.start} of the file"
            carry = b""
            line += data.count(b"\n")
            offset += len(data)
            if not chunk:
                break
    return "position unknown"


def refuse_shifted_columns(frame: pd.DataFrame, path: Path) -> None:
    """Raise when pandas read a CSV whose first row has more fields than its header: it
    then takes the extra field as the index and shifts every column under the wrong name
    (a text column written back from it would go out unredacted)."""
    import pandas as pd

    if not isinstance(frame.index, pd.RangeIndex):
        raise InputError(
            f"{path.name}: the rows have more fields than the header",
            hint="check the separator and quoting; the header must name every field",
        )


def _is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


def read_table(
    source: str | Path | DataConfig,
    *,
    format: str | None = None,
    separator: str | None = None,
    encoding: str = "utf-8",
    quotechar: str = '"',
    quoting: str = "minimal",
    base_dir: Path | None = None,
    text_columns: Sequence[str] | None = None,
    raw_columns: Sequence[str] | None = None,
    na_values: Sequence[str] = (),
    columns: Sequence[str] | None = None,
    header: bool | None = None,
) -> pd.DataFrame:
    """Read a table from a file (CSV, Parquet, JSONL) or from a :class:`DataConfig`.

    Errors name the file and what is wrong, never a value from it. ``text_columns`` are read
    from CSV as text, so identifiers such as zip codes and card numbers keep leading zeros.
    ``raw_columns`` are read from CSV as ARX reads every value: the text as written, without
    its surrounding whitespace, and never as missing (``NA``, ``NULL`` and an empty cell are
    three different values), unless it is one of ``na_values``. ``na_values`` are further
    spellings of a missing value in every CSV column (``data.na_values`` of a policy).
    ``columns`` keeps only those of the columns (names the file lacks are ignored).

    For CSV, ``separator=None`` sniffs it (``,``, ``;``, tab or ``|``; see
    :mod:`veil.io._sniff`) and a read that yields one column logs a warning.
    ``header=None`` refuses a file whose first line looks like data rather than column
    names (an :class:`InputError` saying why, never quoting it); ``True`` takes the first
    line as the header whatever it holds; ``False`` reads every line as data, with the
    columns named ``col_1`` to ``col_n``.

    Examples
    --------
    >>> from veil.io import read_table
    >>> df = read_table("adult.csv", separator=";")  # doctest: +SKIP
    """
    import pandas as pd

    from veil.policy import DataConfig

    if isinstance(source, DataConfig):
        cfg = source
        if cfg.url is not None or cfg.url_env is not None:
            return read_sql(sql_url(cfg), table=cfg.table, query=cfg.query)
        assert cfg.path is not None
        path = cfg.path if cfg.path.is_absolute() or base_dir is None else base_dir / cfg.path
        return read_table(
            path,
            format=cfg.format,
            separator=cfg.separator,
            encoding=cfg.encoding,
            quotechar=cfg.quotechar,
            quoting=cfg.quoting,
            text_columns=text_columns,
            raw_columns=raw_columns,
            na_values=na_values or cfg.na_values,
            columns=columns,
            header=cfg.header if header is None else header,
        )
    path = Path(source)
    if not path.exists():
        raise InputError(f"input file not found: {path}", hint="check the path")
    if path.is_dir():
        raise InputError(f"input is a folder, not a file: {path}")
    fmt = infer_format(path, format)
    try:
        if fmt == "csv":
            separator, names = _csv_layout(path, separator, header, encoding, quotechar)

            def csv_part(**extra: Any) -> pd.DataFrame:
                return pd.read_csv(  # type: ignore[call-overload,no-any-return]
                    path,
                    sep=separator,
                    encoding=encoding,
                    quotechar=quotechar,
                    quoting=_QUOTING[quoting],
                    on_bad_lines="error",
                    skipinitialspace=False,
                    # one type per column: in chunks, a column of numbers with a text value
                    # past the first chunk mixes int 1 and str '1'
                    low_memory=False,
                    header=None if names else "infer",
                    names=names,
                    **extra,
                )

            raw: list[str] = []
            na: Any = list(na_values) or None
            if raw_columns:
                head = [str(c) for c in csv_part(nrows=0).columns]
                raw = [c for c in raw_columns if c in head]
                # per column: pandas' spellings of missing everywhere but in the raw columns
                na = {c: [*na_values] if c in raw else [*PANDAS_NA, *na_values] for c in head}
            # pandas < 3 crashes inferring a column with a ten-digit exponent: as text
            crashers = long_exponent_columns(path, lambda: csv_part(dtype=str))
            df = csv_part(
                dtype=dict.fromkeys(text_columns or (), str)
                | dict.fromkeys(raw, str)
                | dict.fromkeys(crashers, str),
                na_values=na,
                keep_default_na=not raw,
                usecols=None if columns is None else set(columns).__contains__,
            )
            refuse_shifted_columns(df, path)
            if len(df.columns) == 1 and columns is None:
                log.warning(
                    "%s: read one column with the separator %r; if the file has more, "
                    "give its separator (--separator, or data.separator in a policy)",
                    path.name,
                    separator,
                )
            for c in raw:
                if c in df.columns:  # strip the distinct values, not every cell
                    trim = {v: v.strip() for v in df[c].dropna().unique() if v != v.strip()}
                    if trim:
                        df[c] = df[c].replace(trim)
        elif fmt == "parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_json(path, lines=True, dtype=False)
        if columns is not None:
            keep = set(columns)
            df = df[[c for c in df.columns if c in keep]]
    except InputError:
        raise  # already says what is wrong (an InputError is a ValueError, caught below)
    except UnicodeDecodeError as exc:
        # pandas' offset is within its read buffer, not the file
        where = first_bad_utf8(path) if fmt == "csv" and _is_utf8(encoding) else None
        raise InputError(
            f"{path}: not valid {encoding} text ({where or f'at byte {exc.start}'})",
            hint="set data.encoding in the policy, e.g. latin-1",
        ) from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty", hint="check the export") from None
    except pd.errors.ParserError as exc:
        raise InputError(
            f"{path}: malformed {fmt.upper()} ({_safe_parser_message(str(exc))})",
            hint="check the separator and quoting (data.separator, data.quotechar)",
        ) from None
    except ValueError as exc:
        # pandas' JSON and Parquet readers raise ValueError with messages that may quote
        # content; keep only the class of error.
        raise InputError(
            f"{path}: cannot be read as {fmt.upper()} ({type(exc).__name__})",
            hint="check the file's format and suffix",
        ) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(df.columns) == 0 or len(df) == 0:
        raise InputError(f"{path}: the table is empty (no rows)", hint="check the export")
    _check_column_names(df, str(path))
    return df


def _csv_layout(
    path: Path, separator: str | None, header: bool | None, encoding: str, quotechar: str
) -> tuple[str, list[str] | None]:
    """The separator to read with (sniffed when not given), and the column names to give
    pandas when the file has no header line (None: the first line is the header)."""
    from veil.io._sniff import generated_names, head_rows, headerless_reason
    from veil.io._sniff import sniff_separator as sniff

    sep = separator or sniff(path, encoding=encoding, quotechar=quotechar)
    if header is True:
        return sep, None
    if header is False:
        rows = head_rows(path, separator=sep, encoding=encoding, quotechar=quotechar)
        return sep, generated_names(max((len(r) for r in rows), default=1))
    reason = headerless_reason(path, separator=sep, encoding=encoding, quotechar=quotechar)
    if reason is not None:
        raise InputError(
            f"{path}: the first line looks like data, not column names ({reason})",
            hint="add a header line, or pass --no-header to name the columns col_1 to col_N "
            "(data.header: false in a policy); if that line is the header, pass --header "
            "(data.header: true)",
        )
    return sep, None


def _safe_parser_message(msg: str) -> str:
    """Keep the location from a pandas parser error but never its content."""
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", msg)
    if m:
        return f"line {m.group(2)} has {m.group(3)} fields, expected {m.group(1)}"
    m = re.search(r"line (\d+)", msg)
    if m:
        return f"near line {m.group(1)}"
    return "parser error"


def _check_column_names(df: pd.DataFrame, where: str) -> None:
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise InputError(f"{where}: duplicate column names", hint="rename the columns")


def sql_url(cfg: Any) -> str:
    """The SQL URL of a :class:`~veil.policy.DataConfig`: its ``url``, or the value of the
    environment variable its ``url_env`` names (the variable's name is said, never its
    value)."""
    import os

    if cfg.url is not None:
        return str(cfg.url)
    value = os.environ.get(cfg.url_env or "")
    if not value:
        raise InputError(
            f"the environment variable {cfg.url_env} (data.url_env) is not set",
            hint=f"export {cfg.url_env} with the database's SQLAlchemy URL, "
            "e.g. postgresql+psycopg://user:password@host:5432/db",
        )
    return value


def read_sql(url: str, *, table: str | None = None, query: str | None = None) -> pd.DataFrame:
    """Read a table (or a query's result) from a SQL database by SQLAlchemy URL."""
    import pandas as pd
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(url)
    except Exception as exc:  # noqa: BLE001 - SQLAlchemy raises many kinds here
        raise InputError(
            f"cannot use the database URL ({type(exc).__name__})",
            hint="a SQLAlchemy URL looks like postgresql+psycopg://user@host:5432/db",
        ) from None
    try:
        with engine.connect() as conn:
            if table is not None:
                insp = sa.inspect(conn)
                schema, _, name = table.rpartition(".")
                if not insp.has_table(name, schema=schema or None):
                    raise InputError(f"table {table!r} not found in the database")
                tbl = sa.Table(name, sa.MetaData(), schema=schema or None, autoload_with=conn)
                df = pd.read_sql(sa.select(tbl), conn)
            else:
                df = pd.read_sql(sa.text(query or ""), conn)
    except sa.exc.SQLAlchemyError as exc:
        raise InputError(
            f"database read failed ({type(exc).__name__})",
            hint="check that the server is reachable and the table or query exists",
        ) from None
    finally:
        engine.dispose()
    if len(df) == 0:
        raise InputError("the database table is empty (no rows)")
    return df


def write_table(df: pd.DataFrame, path: str | Path, *, format: str | None = None) -> Path:
    """Write a table atomically (temporary file, then rename)."""
    path = Path(path)
    fmt = infer_format(path, format)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            df.to_csv(tmp, index=False)
        elif fmt == "parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_json(tmp, orient="records", lines=True, date_format="iso")
    return path


def write_sql(
    df: pd.DataFrame,
    url: str,
    table: str,
    *,
    if_exists: Literal["fail", "replace"] = "fail",
) -> None:
    """Write a table to a SQL database atomically.

    The rows go into a staging table; in one transaction the target is replaced by it, so
    readers see the old table or the whole new one, never a partial write.
    """
    import uuid

    import sqlalchemy as sa

    engine = sa.create_engine(url)
    stage = f"veil_stage_{uuid.uuid4().hex[:12]}"
    try:
        with engine.begin() as conn:
            exists = sa.inspect(conn).has_table(table)
            if exists and if_exists == "fail":
                raise InputError(
                    f"table {table!r} already exists", hint="set output.if_exists: replace"
                )
            df.to_sql(stage, conn, index=False)
            q = conn.dialect.identifier_preparer.quote
            if exists:
                conn.execute(sa.text(f"DROP TABLE {q(table)}"))
            conn.execute(sa.text(f"ALTER TABLE {q(stage)} RENAME TO {q(table)}"))
    except sa.exc.SQLAlchemyError as exc:
        raise InputError(
            f"database write failed ({type(exc).__name__}); nothing was changed",
            hint="check that the server is reachable and you may create tables",
        ) from None
    finally:
        engine.dispose()
