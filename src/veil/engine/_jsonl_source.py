"""JSONL partitions cut into byte ranges that the Ray engine's text actors read themselves.

Ray Data's ``read_text`` reads a whole file into memory, decodes it, splits it into lines
and builds one block of it: a read task holds a partition several times over, so a
multi-GB file needs a multi-GB worker. It also splits lines with ``str.splitlines``, which
cuts a JSON record holding a raw U+2028 or U+0085 (``json.dumps(..., ensure_ascii=False)``
writes them raw) in two, where the local engine reads lines as bytes split at ``\\n``.

Here the driver cuts each file into byte ranges of about one batch (``--batch-size``
lines, from the first file's line length; at most :data:`TASK_BYTES`) without reading
them (:func:`ranges`), and each text actor reads the ranges it is given, :data:`PIECE_BYTES`
at a time (:func:`range_lines`): no read tasks (worker processes of their own, which
competed with the actors for a small machine's cores), no lines through Ray's object
store, and an actor holds one range whatever the file's size. The last ranges of a run
are one batch each, so they spread over the actors. A line belongs to the range its first
byte falls in; lines are split at ``\\n`` bytes and decoded as UTF-8, and blank lines are
dropped, as the local engine does. With ``preserve_order`` the ranges' lines reach the
driver in file order, then range order, then line order: the input order.

Pure Python (no Ray): the driver and the actors import it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.engine._partitioned import path_key

__all__ = ["PIECE_BYTES", "TASK_BYTES", "range_lines", "ranges"]

#: The most bytes one range holds (an actor's memory does not grow with the estimate).
TASK_BYTES = 64 * 2**20
#: Bytes an actor reads at a time.
PIECE_BYTES = 2**20


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


def range_lines(path: str, start: int, end: int, piece: int = PIECE_BYTES) -> list[str]:
    """The non-blank lines of ``path``'s byte range ``[start, end)``: what a text actor
    reads itself (see :func:`ranges`)."""
    return list(_decoded(path, start, end, piece))


def ranges(
    files: Sequence[Path], rows: int, at_least: int = 1, sample: int = 2**18
) -> list[dict[str, Any]]:
    """``files`` cut into byte ranges of about ``rows`` lines each (``path``: the file,
    absolute; ``key``: its :func:`path_key`; ``start``, ``end``), in file order.

    The line length is estimated from the first ``sample`` bytes of the first non-empty
    file; a range holds at least one line's bytes and at most :data:`TASK_BYTES`, so
    that an actor's memory does not grow with its file whatever the estimate. A file
    without bytes gives one empty range (its partition's output file is still written).
    Ranges are made smaller where needed to give ``at_least`` of them (one per actor: a
    small input still spreads over the pool).
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
    step = max(1, min(step, sum(sizes) // max(at_least, 1)))
    out: list[dict[str, Any]] = []
    for f, size in zip(files, sizes, strict=True):
        path = str(Path(f).absolute())
        key = path_key(path)
        for start in range(0, max(size, 1), step):
            out.append({"path": path, "key": key, "start": start, "end": min(start + step, size)})
    return out
