"""Streaming text records from files and writing them back: CSV, Parquet, JSONL, JSON, text.

Files are read and written in batches, so memory depends on the batch size, not on the
file size (JSON lists, which cannot be streamed, are the exception). Outputs are written
to a temporary file beside the target and renamed at the end: an error leaves nothing
half-written.

Formats, by suffix:

* ``.csv``/``.tsv``: a table; ``column`` names the text column(s). Every cell is kept as
  text exactly as written; an empty cell is an empty text. The separator is sniffed when
  not given, and a first line that looks like data is refused (``header=False`` reads it
  as a record, under names ``col_1`` to ``col_n``, and writes no header back).
* ``.parquet``/``.pq``: a table; null cells stay null.
* ``.jsonl``/``.ndjson``: one JSON object per line. The fields are resolved per record:
  ``column`` names them (every record must have each, else an error names its line);
  without it, each record's ``full_text`` (the presidio-research gold format) and ``text``
  fields, at least one of which it must have. A null value stays null.
* ``.json``: a list of such objects (read whole), resolved the same way.

``all_fields=True`` transforms every string field instead (in JSON, nested ones too; in a
table, every text column). :class:`FieldUse` records which fields were transformed and
which were left as they were (names only).
* anything else (``.txt``): plain text, one record per line; line endings are kept.

Invalid UTF-8 is an :class:`~veil.InputError` naming the line (or byte offset), never
its content.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from veil._errors import _NAME_SHAPE, InputError, SchemaError, column_names
from veil._progress import NullProgress, Progress
from veil.io import atomic_path
from veil.io._tables import first_bad_utf8, refuse_shifted_columns

__all__ = ["FieldUse", "Kind", "file_kind", "iter_text_batches", "transform_file"]

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


_DEFAULT_FIELDS = ("full_text", "text")
_Path = tuple[str | int, ...]


@dataclass
class FieldUse:
    """The fields (or columns) of an input, in order, and those that were transformed."""

    seen: dict[str, None] = field(default_factory=dict)  # an ordered set
    used: dict[str, None] = field(default_factory=dict)

    def untouched(self) -> list[str]:
        """The fields left as they were, named only where a name looks like a name (a file
        without a header has data for names): another is given by its position, ``#3``."""
        names = list(self.seen)
        return [
            n if _NAME_SHAPE.fullmatch(n) and len(n.split()) <= 4 else f"#{i}"
            for i, n in enumerate(names, start=1)
            if n not in self.used
        ]


@dataclass(frozen=True)
class _Select:
    """Which fields to transform: named ones, every text field, or the default ones."""

    columns: tuple[str, ...] = ()
    all_fields: bool = False
    first_only: bool = False  # one text per record (findings are indexed by record)


def _select(column: str | Sequence[str] | None, all_fields: bool, first_only: bool) -> _Select:
    cols = (column,) if isinstance(column, str) else tuple(column or ())
    if cols and all_fields:
        raise InputError(
            "--column and --all-fields contradict each other", hint="pass one or the other"
        )
    return _Select(cols, all_fields, first_only)


def _decode(line: bytes, lineno: int, path: Path) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path.name}: line {lineno} is not valid UTF-8 (byte {exc.start} of the line)",
            hint="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        ) from None


def _string_paths(obj: Any, path: _Path) -> Iterator[_Path]:
    if isinstance(obj, str):
        yield path
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _string_paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _string_paths(v, (*path, i))


def _get(obj: Any, path: _Path) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _put(obj: Any, path: _Path, value: Any) -> None:
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _record_paths(rec: dict[str, Any], sel: _Select, where: str) -> list[_Path]:
    """The fields of one record to transform; a record without them is an error."""
    if sel.all_fields:
        return list(_string_paths(rec, ()))
    fix = "or pass --all-fields to redact every text field"
    if sel.columns:
        missing = [c for c in sel.columns if c not in rec]
        if missing:
            # passing the record through would leave its text in clear with exit 0
            raise SchemaError(
                f"{where} has no field {missing[0]!r}; nothing was written",
                hint=f"give every record the field(s) named by --column, {fix} "
                f"(this record's fields: {column_names(rec, 20)})",
            )
        return [(c,) for c in sel.columns]
    present = [c for c in _DEFAULT_FIELDS if c in rec]
    if not present:
        raise SchemaError(
            f"{where} has neither a 'full_text' nor a 'text' field; nothing was written",
            hint=f"name the text field(s) with --column, {fix} "
            f"(this record's fields: {column_names(rec, 20)})",
        )
    return [(present[0],)] if sel.first_only else [(c,) for c in present]


def _record_texts(
    rec: dict[str, Any], sel: _Select, where: str, use: FieldUse | None
) -> tuple[list[_Path], list[str | None]]:
    paths = _record_paths(rec, sel, where)
    texts = [_check_text(_get(rec, p), where) for p in paths]
    if use is not None:
        use.seen.update(dict.fromkeys(map(str, rec)))
        use.used.update(dict.fromkeys(str(p[0]) for p in paths))
    return paths, texts


def _check_text(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"{where}: the text field holds a {type(value).__name__}, not text")


def _read_jsonl(
    path: Path,
    sel: _Select,
    batch_size: int,
    on_bytes: Callable[[int], None],
    use: FieldUse | None,
) -> Iterator[_Batch]:
    with path.open("rb") as fh:
        recs: list[Any] = []
        texts: list[str | None] = []
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
            paths, found = _record_texts(rec, sel, f"{path.name}: line {lineno}", use)
            texts.extend(found)
            recs.append((rec, paths))
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


def _table_columns(
    path: Path, names: Sequence[str], sel: _Select, text: Sequence[str] | None = None
) -> list[str]:
    """The columns of a table to transform: named ones (each must exist), or every text one."""
    if sel.all_fields:
        return [c for c in names if text is None or c in text]
    missing = [c for c in sel.columns if c not in names]
    if not sel.columns or missing:
        raise SchemaError(
            f"{path.name}: no text column " + (f"named {missing[0]!r}" if missing else "given"),
            hint=f"use --column with one of: {column_names(names)}, or --all-fields",
        )
    return list(sel.columns)


def csv_layout(
    path: Path, separator: str | None, header: bool | None
) -> tuple[str, list[str] | None]:
    """The separator of a CSV text file and, without a header line, its column names."""
    from veil.io._tables import _csv_layout

    return _csv_layout(path, separator, header, "utf-8", '"')


def _read_csv(
    path: Path,
    sel: _Select,
    batch_size: int,
    use: FieldUse | None,
    separator: str | None = None,
    header: bool | None = None,
) -> Iterator[_Batch]:
    import pandas as pd

    sep, names = csv_layout(path, separator, header)
    try:
        with pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            chunksize=batch_size,
            sep=sep,
            encoding="utf-8",
            header=None if names else "infer",
            names=names,
        ) as reader:
            cols: list[str] | None = None
            for chunk in reader:
                refuse_shifted_columns(chunk, path)
                if cols is None:
                    cols = _table_columns(path, [str(c) for c in chunk.columns], sel)
                    if use is not None:
                        use.seen.update(dict.fromkeys(str(c) for c in chunk.columns))
                        use.used.update(dict.fromkeys(cols))
                texts = [t for c in cols for t in chunk[c].tolist()]
                yield _Batch(texts, (chunk, cols, sep, names is None))
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


def _read_parquet(
    path: Path, sel: _Select, batch_size: int, use: FieldUse | None
) -> Iterator[_Batch]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception:  # noqa: BLE001 - pyarrow raises several types; none carries data we need
        raise InputError(f"{path.name}: not a readable Parquet file") from None
    schema = pf.schema_arrow
    names = schema.names
    text = [
        f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
    ]
    cols = _table_columns(path, names, sel, text)
    if use is not None:
        use.seen.update(dict.fromkeys(names))
        use.used.update(dict.fromkeys(cols))
    for batch in pf.iter_batches(batch_size=batch_size):
        texts: list[str | None] = []
        for c in cols:
            values = batch.column(names.index(c)).to_pylist()
            texts += [_check_text(v, f"{path.name}: column {c}") for v in values]
        yield _Batch(texts, (batch, cols))


def _read_json(path: Path, sel: _Select, use: FieldUse | None) -> Iterator[_Batch]:
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
    texts: list[str | None] = []
    recs = []
    for i, rec in enumerate(data, start=1):
        paths, found = _record_texts(rec, sel, f"{path.name}: record {i}", use)
        texts.extend(found)
        recs.append((rec, paths))
    yield _Batch(texts, recs)


def iter_text_batches(
    path: str | Path,
    *,
    column: str | Sequence[str] | None = None,
    batch_size: int = 1000,
    on_bytes: Callable[[int], None] | None = None,
    all_fields: bool = False,
    first_only: bool = False,
    separator: str | None = None,
    header: bool | None = None,
    fields: FieldUse | None = None,
) -> Iterator[_Batch]:
    """Batches of texts (``None`` for null) from a file, in order.

    ``first_only`` takes one default field per JSON record (``full_text``, else ``text``),
    so that the texts are the records. ``fields`` collects the fields seen and used.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"input file not found: {p}")
    sel = _select(column, all_fields, first_only)
    cb = on_bytes or (lambda n: None)
    kind = file_kind(p)
    if kind == "jsonl":
        yield from _read_jsonl(p, sel, batch_size, cb, fields)
    elif kind == "text":
        yield from _read_text(p, batch_size, cb)
    elif kind == "csv":
        yield from _read_csv(p, sel, batch_size, fields, separator, header)
    elif kind == "parquet":
        yield from _read_parquet(p, sel, batch_size, fields)
    else:
        yield from _read_json(p, sel, fields)


class _Writer:
    def __init__(self, kind: Kind, tmp: Path, src: Path | None = None) -> None:
        self.src = src
        self.kind = kind
        self.tmp = tmp
        self.fh: IO[Any] | None = None
        self.pq_writer: Any = None
        self.first = True
        self.json_items = 0

    def write(self, batch: _Batch, new: list[str | None]) -> None:
        if len(new) != len(batch.texts):
            raise RuntimeError("the transform returned a different number of texts")
        if self.kind in ("jsonl", "json"):
            values = iter(new)
            for rec, paths in batch.payload:
                for p in paths:
                    _put(rec, p, next(values))
        if self.kind == "jsonl":
            fh = self._text_fh()
            for rec, _ in batch.payload:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        elif self.kind == "json":
            fh = self._text_fh()
            for rec, _ in batch.payload:
                fh.write(
                    ("[\n" if self.json_items == 0 else ",\n") + json.dumps(rec, ensure_ascii=False)
                )
                self.json_items += 1
        elif self.kind == "text":
            fh = self._text_fh()
            for value, end in zip(new, batch.payload, strict=True):
                fh.write((value or "") + end)
        elif self.kind == "csv":
            df, cols, sep, has_header = batch.payload
            n = len(df)
            for j, c in enumerate(cols):
                df[c] = new[j * n : (j + 1) * n]
            df.to_csv(self._text_fh(), header=self.first and has_header, index=False, sep=sep)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            rb, names = batch.payload
            arrays = list(rb.columns)
            n = rb.num_rows
            for j, c in enumerate(names):
                i = rb.schema.get_field_index(c)
                arrays[i] = pa.array(new[j * n : (j + 1) * n], type=rb.schema.field(i).type)
            rb = pa.RecordBatch.from_arrays(arrays, schema=rb.schema)
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


def _records(kind: Kind, batch: _Batch) -> int:
    if kind in ("jsonl", "json"):
        return len(batch.payload)
    if kind == "csv":
        return len(batch.payload[0])
    if kind == "parquet":
        return int(batch.payload[0].num_rows)
    return len(batch.texts)


def transform_file(
    src: str | Path,
    dst: str | Path,
    fn: Callable[[list[str | None]], list[str | None]],
    *,
    column: str | Sequence[str] | None = None,
    batch_size: int = 1000,
    progress: Progress | None = None,
    description: str = "redacting",
    all_fields: bool = False,
    separator: str | None = None,
    header: bool | None = None,
    fields: FieldUse | None = None,
) -> int:
    """Stream ``src`` through ``fn`` (texts in, texts out) into ``dst``; return the records.

    ``dst`` has the same format as ``src`` and is written atomically: an input error (a
    record without its text field, say) leaves no output at all. ``fields`` collects the
    fields seen and transformed, for saying which were left untouched.
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
        writer = _Writer(kind, tmp, src_p)
        complete = False
        try:
            on_bytes = task.advance if total is not None else None
            for batch in iter_text_batches(
                src_p,
                column=column,
                batch_size=batch_size,
                on_bytes=on_bytes,
                all_fields=all_fields,
                separator=separator,
                header=header,
                fields=fields,
            ):
                writer.write(batch, fn(batch.texts))
                records = _records(kind, batch)
                n += records
                if total is None:
                    task.advance(records)
            complete = True
        finally:
            writer.close(complete)
    return n
