"""Partitioned output: one output file per input partition, written as one set.

``veil redact lake/notes/ --out redacted/`` writes ``redacted/<same relative path>`` for
every partition of the input (``day=2/part-0.jsonl`` stays ``day=2/part-0.jsonl``), in the
input's format, on either engine. Every file is written in a staging folder inside the
output folder and the set is swapped in at the end (:func:`veil.io.atomic_dir`): a
failure, a worker lost for good or an interrupted run leaves the output folder as it was.

The Ray engine routes each row to its partition's file by the path Ray Data reads it
from: with ``preserve_order`` the rows of one file arrive together and in order, so one
writer is open at a time and memory does not grow with the input.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, VeilError
from veil.engine._inputs import _partition
from veil.text.redaction._files import Kind

if TYPE_CHECKING:
    import pyarrow as pa

    from veil.policy import Policy

__all__ = [
    "PartWriters",
    "layout",
    "path_key",
    "release_names",
    "wants_partitioned",
]


def wants_partitioned(spec: str | Path, out: Path) -> bool:
    """Whether ``out`` names a folder of partitions: an existing folder, or a name without
    a suffix when the input is a folder or a glob (a file input keeps its old meaning)."""
    if out.is_dir():
        return True
    text = str(spec)
    many = Path(text).is_dir() or (not Path(text).exists() and any(c in text for c in "*?["))
    return many and out.suffix == ""


def _root(spec: str | Path, files: Sequence[Path]) -> Path:
    p = Path(str(spec))
    if p.is_dir():
        return p
    return Path(os.path.commonpath([str(f.parent.absolute()) for f in files]))


def layout(spec: str | Path, files: Sequence[Path], out: Path) -> list[Path]:
    """The output file of each input partition: its path relative to the input's root
    (the folder given, or the common folder of a glob's files), under ``out``.

    Raises
    ------
    InputError
        The output folder is the input folder or inside it, for a folder or glob input
        (the next run would read the output as input), an output would overwrite an input, or the folder already holds
        data files this run does not write (they would sit beside the new set).
    """
    root = _root(spec, files).absolute()
    dest = out.absolute()
    # one named file is read again as itself, never as what sits beside it: only a folder or
    # a glob would read an output folder inside it as input on the next run
    if not Path(str(spec)).is_file() and (dest == root or dest.is_relative_to(root)):
        raise InputError(
            f"the output folder {out} is inside the input folder {root}",
            hint="write the partitions to a folder outside the input",
        )
    rels = [f.absolute().relative_to(root) for f in files]
    inputs = {f.resolve() for f in files}
    if any((dest / r).resolve() in inputs for r in rels):
        raise InputError(
            "an output partition would overwrite an input", hint="choose another --out"
        )
    _only_ours(out, rels)
    return rels


def release_names(policy: Policy, files: Sequence[Path], out: Path) -> list[Path]:
    """``veil run`` with ``output.partitioned``: each input file's released partition in
    the folder ``out/<output.name>``, at the input's path relative to ``data.path`` (a
    folder, or a glob's files' common folder) with the output format's suffix."""
    assert policy.data.path is not None
    spec = policy.resolve(policy.data.path)
    root = _root(spec, files).absolute()
    rels = [f.absolute().relative_to(root) for f in files]
    rels = [r.with_suffix(f".{policy.output.format}") for r in rels]
    if len(set(rels)) < len(rels):
        raise InputError(
            "two input partitions would be released to the same file (they differ only "
            "in their suffix)",
            hint="rename one, or set output.partitioned: false",
        )
    _only_ours(out / policy.output.name, rels)
    return rels


def _only_ours(out: Path, rels: Sequence[Path]) -> None:
    """Refuse a folder holding data files other than ``rels``: they would sit beside the
    new set as if they were part of it (a run's files are swapped in by name)."""
    dest = out.absolute()
    if not dest.is_dir():
        return
    ours = set(rels)
    others = [
        f
        for f in dest.rglob("*")
        if _partition(f)
        and f.relative_to(dest) not in ours
        and not any(p.startswith(".") for p in f.relative_to(dest).parts)
    ]
    if others:
        raise InputError(
            f"the output folder {out} holds {len(others)} data file(s) this run would not "
            f"write (e.g. {others[0].relative_to(dest)})",
            hint="choose a new or empty folder, or remove the old partitions first",
        )


def path_key(path: str | Path) -> str:
    """A file's path as Ray Data reports it in a ``path`` column (absolute, no leading /)."""
    return os.path.abspath(str(path)).lstrip("/")


class PartWriters:
    """The output files of a partitioned run, in a staging folder, one open at a time.

    ``kind`` is the input's format; ``rels`` the output name of each input (in input
    order); ``schema`` the Parquet schema every partition has; ``sep``/``header`` the CSV
    layout. Rows must arrive grouped by partition, partitions in any order, each once.
    """

    def __init__(
        self,
        kind: Kind,
        stage: Path,
        files: Sequence[Path],
        rels: Sequence[Path],
        *,
        schema: pa.Schema | None = None,
        names: Sequence[str] = (),
        sep: str = ",",
        header: bool = True,
    ) -> None:
        self.kind = kind
        self.stage = stage
        self.targets = {path_key(f): stage / r for f, r in zip(files, rels, strict=True)}
        self.schema = schema
        self.names = list(names)
        self.sep = sep
        self.header = header
        self.done: set[str] = set()
        self.key: str | None = None
        self._fh: Any = None
        self._pq: Any = None
        self._first = True

    def _open(self, key: str) -> None:
        key = key.lstrip("/")
        if key == self.key:
            return
        self._close()
        target = self.targets.get(key)
        if target is None or key in self.done:
            # rows of a file the run did not list, or a partition's rows not together:
            # writing on would lose or mix records
            raise VeilError(
                "the Ray engine returned rows out of partition order; nothing was written",
                hint="report this as a bug; --engine local writes the same partitions",
            )
        self.key = key
        target.parent.mkdir(parents=True, exist_ok=True)
        self._first = True
        if self.kind == "parquet":
            import pyarrow.parquet as pq

            self._pq = pq.ParquetWriter(target, self.schema)
        else:
            self._fh = target.open("w", encoding="utf-8", newline="")

    def lines(self, key: str, lines: Sequence[str]) -> None:
        """JSONL: write ``lines`` (records, serialized) to ``key``'s partition."""
        self._open(key)
        self._fh.write("".join(line + "\n" for line in lines))

    def table(self, key: str, table: pa.Table) -> None:
        """CSV or Parquet: write ``table`` (the partition's columns) to its partition."""
        self._open(key)
        if self.kind == "parquet":
            self._pq.write_table(table.cast(self.schema))
        else:
            table.to_pandas().to_csv(
                self._fh, header=self._first and self.header, index=False, sep=self.sep
            )
        self._first = False

    def _close(self) -> None:
        if self._pq is not None:
            self._pq.close()
        if self._fh is not None:
            if self.kind == "csv" and self._first and self.header:  # an empty partition
                import pandas as pd

                pd.DataFrame(columns=self.names).to_csv(self._fh, sep=self.sep, index=False)
            self._fh.close()
        if self.key is not None:
            self.done.add(self.key)
        self._fh = self._pq = self.key = None

    def close(self, complete: bool) -> None:
        """Close the open file; on success also write the partitions no row came from
        (empty inputs give empty outputs: one output per input partition)."""
        self._close()
        if not complete:
            return
        for key in self.targets:
            if key not in self.done:
                self._open(key)
                self._close()
