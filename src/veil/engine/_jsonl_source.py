"""JSONL partitions read by Ray Data in byte ranges, with bounded memory.

Ray Data's ``read_text`` reads a whole file into memory, decodes it, splits it into lines
and builds one block of it: a read task holds a partition several times over, so a
multi-GB file needs a multi-GB worker. It also splits lines with ``str.splitlines``, which
cuts a JSON record holding a raw U+2028 or U+0085 (``json.dumps(..., ensure_ascii=False)``
writes them raw) in two, where the local engine reads lines as bytes split at ``\\n``.

Here each file is cut into ranges of at most :data:`TASK_BYTES`, one read task per range;
a task reads its range in pieces of :data:`PIECE_BYTES` and hands on a block every
``rows`` non-blank lines (the run's ``--batch-size``), so a read task holds one piece and
one block whatever the file's size, the actors start on the first block while the file is
still being read, and the last blocks of a run are small enough to spread over the actors.
A line belongs to the range its first byte falls in; lines are split at ``\\n`` bytes and
decoded as UTF-8, and blank lines are dropped, as the local engine does. Blocks come out in
file order, then range order, then line order: with ``preserve_order`` the rows reach the
driver in input order.

Only imported where Ray is used (it imports Ray Data).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
from ray.data.block import BlockMetadata
from ray.data.datasource import Datasource, ReadTask

from veil._errors import InputError
from veil.engine._partitioned import path_key

__all__ = ["PIECE_BYTES", "TASK_BYTES", "JsonlSource", "range_lines", "ranges", "read_range"]

#: Bytes of a file one read task reads (a file larger than this is read by several).
TASK_BYTES = 64 * 2**20
#: Bytes a read task reads at a time.
PIECE_BYTES = 2**20
SCHEMA = pa.schema([("text", pa.string()), ("path", pa.string())])


def _lines(fh: Any, start: int, end: int, piece: int) -> Iterator[bytes]:
    """The lines (without their ``\\n``) whose first byte lies in ``[start, end)``."""
    if start > 0:  # the line running into the range belongs to the range before
        fh.seek(start - 1)
        fh.readline()
    pos = fh.tell()
    carry = b""
    while pos < end:
        chunk = fh.read(piece)
        if not chunk:
            if carry:  # a last line without a newline
                yield carry
            return
        parts = (carry + chunk).split(b"\n")
        carry = parts.pop()
        for line in parts:
            if pos >= end:
                return
            yield line
            pos += len(line) + 1


def _decoded(path: str, start: int, end: int, piece: int) -> Iterator[str]:
    """The non-blank lines of ``path`` whose first byte lies in ``[start, end)``, decoded."""
    name = Path(path).name
    with open(path, "rb") as fh:
        for raw in _lines(fh, start, end, piece):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(
                    f"{name}: a line is not valid UTF-8",
                    hint="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8); "
                    "--engine local names the line",
                ) from None
            if line.strip():
                yield line


def read_range(
    path: str, start: int, end: int, rows: int, piece: int = PIECE_BYTES
) -> Iterator[pa.Table]:
    """Blocks of at most ``rows`` non-blank lines of ``path``'s byte range ``[start, end)``,
    each line with its file (as Ray Data's ``include_paths`` names it). ``path`` is
    absolute: a worker's current folder is not the driver's."""
    key = path_key(path)
    batch: list[str] = []
    for line in _decoded(path, start, end, piece):
        batch.append(line)
        if len(batch) >= rows:
            yield _block(batch, key)
            batch = []
    if batch:
        yield _block(batch, key)


def range_lines(path: str, start: int, end: int, piece: int = PIECE_BYTES) -> list[str]:
    """The non-blank lines of ``path``'s byte range ``[start, end)``: what a text actor
    reads itself (see :func:`ranges`)."""
    return list(_decoded(path, start, end, piece))


def ranges(files: Sequence[Path], rows: int, sample: int = 2**18) -> list[dict[str, Any]]:
    """``files`` cut into byte ranges of about ``rows`` lines each (``path``: the file,
    absolute; ``key``: its :func:`path_key`; ``start``, ``end``), in file order.

    The line length is estimated from the first ``sample`` bytes of the first non-empty
    file; a range holds at least one line's bytes and at most :data:`TASK_BYTES`, so
    that an actor's memory does not grow with its file whatever the estimate. A file
    without bytes gives one empty range (its partition's output file is still written).
    """
    sizes = [Path(f).stat().st_size for f in files]
    step = TASK_BYTES
    for f, size in zip(files, sizes, strict=True):
        if size:
            with open(f, "rb") as fh:
                head = fh.read(sample)
            per_line = len(head) / max(head.count(b"\n"), 1)
            step = int(min(max(rows * per_line, 4096), TASK_BYTES))
            break
    out: list[dict[str, Any]] = []
    for f, size in zip(files, sizes, strict=True):
        path = str(Path(f).absolute())
        key = path_key(path)
        for start in range(0, max(size, 1), step):
            out.append({"path": path, "key": key, "start": start, "end": min(start + step, size)})
    return out


def _block(lines: list[str], key: str) -> pa.Table:
    return pa.Table.from_arrays(
        [pa.array(lines, pa.string()), pa.array([key] * len(lines), pa.string())],
        schema=SCHEMA,
    )


class JsonlSource(Datasource):  # type: ignore[misc]  # Ray's classes are untyped
    """``files`` (JSONL, in order) as blocks of at most ``rows`` lines; see the module."""

    def __init__(self, files: Sequence[Path], rows: int, task_bytes: int = TASK_BYTES) -> None:
        super().__init__()
        self.files = [str(Path(f).absolute()) for f in files]
        self.sizes = [Path(f).stat().st_size for f in files]
        self.rows = rows
        self.task_bytes = task_bytes

    def estimate_inmemory_data_size(self) -> int:
        return sum(self.sizes)

    def get_read_tasks(
        self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None
    ) -> list[ReadTask]:
        # as many tasks as the files' ranges, whatever parallelism Ray Data asks for: a
        # range's blocks are what bounds memory, not the number of tasks
        tasks = []
        for f, size in zip(self.files, self.sizes, strict=True):
            for start in range(0, max(size, 1), self.task_bytes):
                end = min(start + self.task_bytes, size)
                meta = BlockMetadata(
                    num_rows=None, size_bytes=end - start, input_files=(f,), exec_stats=None
                )
                fn = functools.partial(read_range, f, start, end, self.rows)
                tasks.append(
                    ReadTask(fn, meta, schema=SCHEMA, per_task_row_limit=per_task_row_limit)
                )
        return tasks
