"""Streaming text records from files and writing them back: CSV, Parquet, JSONL, JSON, text.

Files are read and written in batches, so memory depends on the batch size, not on the
file size (JSON lists, which cannot be streamed, are the exception). Outputs are written
to a temporary file beside the target and renamed at the end: an error leaves nothing
half-written.

Formats, by suffix:

* ``.csv``/``.tsv``: a table; ``column`` names the text column. Every cell is kept as
  text exactly as written; an empty cell is an empty text.
* ``.parquet``/``.pq``: a table; null cells stay null.
* ``.jsonl``/``.ndjson``: one JSON object per line; ``column`` defaults to ``full_text``
  (the presidio-research gold format), then ``text``. Missing or null values stay as they are.
* ``.json``: a list of such objects (read whole).
* anything else (``.txt``): plain text, one record per line; line endings are kept.

Invalid UTF-8 is an :class:`~veil.InputError` naming the line (or byte offset), never
its content.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from veil._errors import InputError, SchemaError, column_names
from veil._progress import NullProgress, Progress
from veil.io import atomic_path
from veil.io._tables import first_bad_utf8, refuse_shifted_columns

__all__ = ["Kind", "file_kind", "iter_text_batches", "transform_file"]

Kind = Literal["csv", "parquet", "jsonl", "json", "text"]


def file_kind(path: str | Path) -> Kind:
    suffixes = [s.lower() for s in Path(path).suffixes]
    suffix = suffixes[-1] if suffixes else ""
    return {  # type: ignore[return-value]
        ".csv": "csv",
        ".tsv": "csv",
        ".parquet": "parquet",
        ".pq": "parquet",
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "json",
    }.get(suffix, "text")


@dataclass
class _Batch:
    texts: list[str | None]
    payload: Any  # what the writer needs to write the batch back


def _decode(line: bytes, lineno: int, path: Path) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path.name}: line {lineno} is not valid UTF-8 (byte {exc.start} of the line)",
            hint="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        ) from None


def _jsonl_column(rec: dict[str, Any], column: str | None) -> str:
    if column is not None:
        return column
    for c in ("full_text", "text"):
        if c in rec:
            return c
    raise SchemaError(
        "the records have neither 'full_text' nor 'text'",
        hint=f"name the text field with --column (fields: {column_names(rec, 20)})",
    )


def _check_text(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"{where}: the text field holds a {type(value).__name__}, not text")


def _read_jsonl(
    path: Path, column: str | None, batch_size: int, on_bytes: Callable[[int], None]
) -> Iterator[_Batch]:
    col = column
    with path.open("rb") as fh:
        recs: list[Any] = []
        texts: list[str | None] = []
        seen = False  # a record has been read
        for lineno, raw in enumerate(fh, start=1):
            on_bytes(len(raw))
            line = _decode(raw, lineno, path)
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise InputError(f"{path.name}: line {lineno} is not valid JSON") from None
            if not isinstance(rec, dict):
                raise InputError(f"{path.name}: line {lineno} is not a JSON object")
            if col is None:
                col = _jsonl_column(rec, None)
            elif not seen and col not in rec:
                # a named field that the first record lacks is a wrong name, not a missing
                # value: passing every record through unredacted would leak them all
                raise SchemaError(
                    f"{path.name}: line {lineno} has no field {col!r}",
                    hint=f"use --column with one of: {column_names(rec, 20)}",
                )
            seen = True
            texts.append(_check_text(rec.get(col), f"{path.name}: line {lineno}"))
            recs.append((rec, col))
            if len(recs) >= batch_size:
                yield _Batch(texts, recs)
                recs, texts = [], []
        if recs:
            yield _Batch(texts, recs)


def _read_text(path: Path, batch_size: int, on_bytes: Callable[[int], None]) -> Iterator[_Batch]:
    with path.open("rb") as fh:
        texts: list[str | None] = []
        ends: list[str] = []
        for lineno, raw in enumerate(fh, start=1):
            on_bytes(len(raw))
            line = _decode(raw, lineno, path)
            body = line.rstrip("\r\n")
            texts.append(body)
            ends.append(line[len(body) :])
            if len(texts) >= batch_size:
                yield _Batch(texts, ends)
                texts, ends = [], []
        if texts:
            yield _Batch(texts, ends)


def _read_csv(path: Path, column: str | None, batch_size: int) -> Iterator[_Batch]:
    import pandas as pd

    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            chunksize=batch_size,
            sep=sep,
            encoding="utf-8",
        ) as reader:
            for chunk in reader:
                refuse_shifted_columns(chunk, path)
                if column is None or column not in chunk.columns:
                    raise SchemaError(
                        f"{path.name}: no text column "
                        + (f"named {column!r}" if column else "given"),
                        hint=f"use --column with one of: {column_names(chunk.columns)}",
                    )
                yield _Batch(chunk[column].tolist(), chunk)
    except UnicodeDecodeError:
        # pandas' offset is within its read buffer, not the file: find the byte again
        raise InputError(
            f"{path.name}: not valid UTF-8 ({first_bad_utf8(path)})",
            hint="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        ) from None
    except pd.errors.EmptyDataError:
        return
    except pd.errors.ParserError:
        raise InputError(
            f"{path.name}: malformed CSV", hint="check quoting and separators"
        ) from None


def _read_parquet(path: Path, column: str | None, batch_size: int) -> Iterator[_Batch]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception:  # noqa: BLE001 - pyarrow raises several types; none carries data we need
        raise InputError(f"{path.name}: not a readable Parquet file") from None
    names = pf.schema_arrow.names
    if column is None or column not in names:
        raise SchemaError(
            f"{path.name}: no text column " + (f"named {column!r}" if column else "given"),
            hint=f"use --column with one of: {column_names(names)}",
        )
    for batch in pf.iter_batches(batch_size=batch_size):
        arr = batch.column(names.index(column))
        values = arr.to_pylist()
        yield _Batch([_check_text(v, f"{path.name}: column {column}") for v in values], batch)


def _read_json(path: Path, column: str | None) -> Iterator[_Batch]:
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name}: not valid UTF-8 (at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path.name}: not valid JSON (line {exc.lineno})") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(f"{path.name}: a .json input must be a list of objects")
    if not data:
        return
    col = _jsonl_column(data[0], column)
    yield _Batch(
        [_check_text(r.get(col), f"{path.name}: record {i}") for i, r in enumerate(data)],
        [(r, col) for r in data],
    )


def iter_text_batches(
    path: str | Path,
    *,
    column: str | None = None,
    batch_size: int = 1000,
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[_Batch]:
    """Batches of texts (``None`` for null) from a file, in order."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"input file not found: {p}")
    cb = on_bytes or (lambda n: None)
    kind = file_kind(p)
    if kind == "jsonl":
        yield from _read_jsonl(p, column, batch_size, cb)
    elif kind == "text":
        yield from _read_text(p, batch_size, cb)
    elif kind == "csv":
        yield from _read_csv(p, column, batch_size)
    elif kind == "parquet":
        yield from _read_parquet(p, column, batch_size)
    else:
        yield from _read_json(p, column)


class _Writer:
    def __init__(self, kind: Kind, tmp: Path, column: str | None, src: Path | None = None) -> None:
        self.src = src
        self.kind = kind
        self.tmp = tmp
        self.column = column
        self.fh: IO[Any] | None = None
        self.pq_writer: Any = None
        self.first = True
        self.json_items = 0

    def write(self, batch: _Batch, new: list[str | None]) -> None:
        if self.kind == "jsonl":
            fh = self._text_fh()
            for (rec, col), value in zip(batch.payload, new, strict=True):
                if col in rec:
                    rec[col] = value
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        elif self.kind == "json":
            fh = self._text_fh()
            for (rec, col), value in zip(batch.payload, new, strict=True):
                if col in rec:
                    rec[col] = value
                fh.write(
                    ("[\n" if self.json_items == 0 else ",\n") + json.dumps(rec, ensure_ascii=False)
                )
                self.json_items += 1
        elif self.kind == "text":
            fh = self._text_fh()
            for value, end in zip(new, batch.payload, strict=True):
                fh.write((value or "") + end)
        elif self.kind == "csv":
            df = batch.payload
            df[self.column] = new
            df.to_csv(
                self._text_fh(),
                header=self.first,
                index=False,
                sep="\t" if self.tmp.name.lower().endswith(".tsv.tmp") else ",",
            )
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            rb = batch.payload
            i = rb.schema.get_field_index(self.column)
            cols = list(rb.columns)
            cols[i] = pa.array(new, type=rb.schema.field(i).type)
            rb = pa.RecordBatch.from_arrays(cols, schema=rb.schema)
            if self.pq_writer is None:
                self.pq_writer = pq.ParquetWriter(self.tmp, rb.schema)
            self.pq_writer.write_batch(rb)
        self.first = False

    def _text_fh(self) -> IO[Any]:
        if self.fh is None:
            self.fh = self.tmp.open("w", encoding="utf-8", newline="")
        return self.fh

    def close(self, complete: bool = True) -> None:
        """Close the output; ``complete=False`` (the input failed) only releases the files,
        which the caller then removes: finishing them would read the failed input again
        and mask its error."""
        if complete and self.kind == "json":
            self._text_fh().write("[]\n" if self.json_items == 0 else "\n]\n")
        if self.fh is not None:
            self.fh.close()
        if self.pq_writer is not None:
            self.pq_writer.close()
        elif complete and self.kind == "parquet" and self.src is not None:
            # no rows: an empty table with the input's schema
            import pyarrow.parquet as pq

            pq.write_table(pq.read_schema(self.src).empty_table(), self.tmp)


def transform_file(
    src: str | Path,
    dst: str | Path,
    fn: Callable[[list[str | None]], list[str | None]],
    *,
    column: str | None = None,
    batch_size: int = 1000,
    progress: Progress | None = None,
    description: str = "redacting",
) -> int:
    """Stream ``src`` through ``fn`` (texts in, texts out) into ``dst``; return the records.

    ``dst`` has the same format as ``src`` and is written atomically.
    """
    src_p, dst_p = Path(src), Path(dst)
    kind = file_kind(src_p)
    if file_kind(dst_p) != kind:
        raise InputError(
            f"the output must have the input's format ({kind})",
            hint=f"name the output with the input's suffix ({src_p.suffix or '.txt'})",
        )
    if src_p.resolve() == dst_p.resolve():
        raise InputError("the output would overwrite the input", hint="choose another --out")
    progress = progress or NullProgress()
    total = src_p.stat().st_size if src_p.is_file() and kind in ("jsonl", "text") else None
    n = 0
    with progress.task(description, total=total) as task, atomic_path(dst_p) as tmp:
        writer = _Writer(kind, tmp, column, src_p)
        complete = False
        try:
            on_bytes = task.advance if total is not None else None
            for batch in iter_text_batches(
                src_p, column=column, batch_size=batch_size, on_bytes=on_bytes
            ):
                if kind == "jsonl" and writer.column is None and batch.payload:
                    writer.column = batch.payload[0][1]
                writer.write(batch, fn(batch.texts))
                n += len(batch.texts)
                if total is None:
                    task.advance(len(batch.texts))
            complete = True
        finally:
            writer.close(complete)
    return n
