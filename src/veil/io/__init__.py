"""Reading and writing tables; atomic file output."""

from veil.io._atomic import (
    atomic_dir,
    atomic_path,
    fsync_path,
    write_bytes_atomic,
    write_text_atomic,
)
from veil.io._tables import (
    infer_format,
    read_sql,
    read_table,
    sql_url,
    write_sql,
    write_table,
)

__all__ = [
    "atomic_dir",
    "atomic_path",
    "fsync_path",
    "infer_format",
    "read_sql",
    "read_table",
    "sql_url",
    "write_bytes_atomic",
    "write_sql",
    "write_table",
    "write_text_atomic",
]
