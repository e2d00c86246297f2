"""The files behind an input argument: one file, a folder of partitions, or a glob."""

from __future__ import annotations

import glob as _glob
from pathlib import Path

from veil._errors import InputError
from veil.text.redaction._files import Kind, file_kind

__all__ = ["expand_inputs"]

_READABLE: frozenset[Kind] = frozenset({"jsonl", "csv", "parquet"})


def _partition(path: Path) -> bool:
    """A data file of a partitioned dataset (not ``_SUCCESS``, ``.crc`` or hidden files)."""
    return path.is_file() and not path.name.startswith((".", "_")) and file_kind(path) in _READABLE


def _who(engine: str) -> str:
    return "the Ray engine" if engine == "ray" else "a partitioned run"


def expand_inputs(spec: str | Path, *, engine: str = "ray") -> tuple[Kind, list[Path]]:
    """The kind and the sorted data files of ``spec`` (a file, a folder or a glob).

    A folder is searched recursively (``year=2024/part-0.parquet``); files are sorted by
    path, which is the order of the rows in the output. Every file must have one kind.
    ``engine`` names the reader in errors: ``"ray"``, or ``"local"`` (the local engine's
    partitioned runs).

    Raises
    ------
    InputError
        Nothing readable there, a kind the Ray engine does not read, or mixed kinds.
    """
    text = str(spec)
    p = Path(text)
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if _partition(f))
        where = f"folder {p}"
    elif p.is_file():
        files = [p]
        where = f"file {p}"
    elif any(ch in text for ch in "*?["):
        files = sorted(Path(f) for f in _glob.glob(text, recursive=True) if _partition(Path(f)))
        where = f"pattern {text}"
    else:
        raise InputError(f"input not found: {p}")
    if not files:
        raise InputError(
            f"no readable data files in {where}",
            hint=f"{_who(engine)} reads .jsonl/.ndjson, .csv/.tsv and .parquet/.pq files",
        )
    kinds = {file_kind(f) for f in files}
    if len(kinds) > 1:
        raise InputError(
            f"{where} mixes file formats ({', '.join(sorted(kinds))})",
            hint="give one format per run, e.g. a glob such as 'data/*.jsonl'",
        )
    kind = kinds.pop()
    if kind not in _READABLE:
        raise InputError(
            f"{_who(engine)} does not read {kind} files ({files[0].name})",
            hint="convert to JSONL, CSV or Parquet"
            + (", or use --engine local" if engine == "ray" else ""),
        )
    return kind, files
