"""Text detection and redaction on Ray Data, with the local engine's results and formats.

The dataset is read by Ray (CSV with every cell as text, Parquet as it is; JSONL as byte
ranges the actors read themselves, :mod:`veil.engine._jsonl_source`), analysed by a pool
of actors (:class:`_TextActor`: the analyzer and, for redaction,
the operator are built once per actor), and collected by the driver in input order into
one output file written atomically. The operator travels to the actors as the object the
driver built (its key included), so keyed operators give the local engine's pseudonyms.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, SchemaError, VeilError, column_names
from veil._progress import NullProgress, Progress
from veil.engine._partitioned import PartWriters, layout
from veil.io import atomic_path
from veil.text.redaction._files import (
    FieldUse,
    Kind,
    _check_text,
    _put,
    _record_texts,
    _Select,
    _select,
    _table_columns,
    csv_layout,
    file_kind,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from veil.policy import TextConfig
    from veil.text import Operator

__all__ = ["ray_detect", "ray_redact", "transform_parts"]

#: CPUs each actor asks for: a whole CPU per actor starves Ray Data's read tasks on a
#: small machine (two 1-CPU actors on 2 cores deadlocked), so actors ask for half.
ACTOR_CPUS = 0.5
#: JSONL: the most blocks of byte ranges the driver makes (a block is one actor task).
RANGE_BLOCKS = 1024
_ERR = "__veil_error"
_COUNTS = "__veil_counts"
_FIELDS = "__veil_fields"
_OUT = "__veil_out"
_PATH = "path"  # Ray Data's column of each row's file (include_paths)
#: Tests only: seconds each actor sleeps before each batch, read from the actor's own
#: environment (on a cluster: the node's, set where ``ray start`` ran). It makes a run
#: long enough for a test to kill a worker mid-run; unset, it costs one lookup per actor.
PAUSE_ENV = "VEIL_TEST_RAY_BATCH_PAUSE"


@dataclass(frozen=True)
class _Plan:
    """What the actors do to each batch."""

    mode: str  # "detect" | "redact"
    kind: Kind
    select: _Select
    columns: tuple[str, ...] = ()  # tables: the text columns
    explain: bool = False
    nlp_batch: int = 256
    paths: bool = False  # JSONL: keep each record's file (partitioned output)


class _TextActor:
    """One Ray actor: builds the analyzer once, then analyses or redacts batches."""

    def __init__(self, config: TextConfig, plan: _Plan, operator: Operator | None) -> None:
        from veil.text import TextAnalyzer, TextRedactor

        self.plan = plan
        self.analyzer = TextAnalyzer.from_config(config)
        self.redactor = TextRedactor(self.analyzer, operator) if operator is not None else None
        self.pause = float(os.environ.get(PAUSE_ENV) or 0)

    def __call__(self, batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        if self.pause > 0:
            time.sleep(self.pause)
        n = batch.num_rows
        try:
            if self.plan.kind == "jsonl":
                return self._jsonl(batch)
            return self._table(batch)
        except VeilError as exc:
            # returned, not raised: a Ray task error would wrap it (and its chain) in text
            # veil does not control; the driver raises it again, data-free, with exit 2
            err = json.dumps([exc.message, exc.hint])
            return pa.table({_ERR: [err] * n, _OUT: [None] * n, _COUNTS: ["{}"] * n})

    # texts in, per-text results out --------------------------------------------------------
    def _run(self, texts: list[str | None]) -> tuple[list[Any], list[Counter[str]]]:
        if self.redactor is None:
            found = self.analyzer.analyze_batch(texts, batch_size=self.plan.nlp_batch)
            dicts = [[f.to_dict(explain=self.plan.explain) for f in fs] for fs in found]
            return dicts, [Counter(f.entity_type for f in fs) for fs in found]
        reds = self.redactor.redact_batch(texts, batch_size=self.plan.nlp_batch)
        counts = [
            Counter(f.entity_type for f in r.findings) if t else Counter()
            for t, r in zip(texts, reds, strict=True)
        ]
        return [r.text for r in reds], counts

    def _jsonl(self, batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        lines, paths = _batch_lines(batch)
        recs: list[tuple[dict[str, Any], list[Any]] | None] = []
        texts: list[str | None] = []
        use = FieldUse()
        for line, path in zip(lines, paths, strict=True):
            if not line.strip():
                recs.append(None)
                continue
            where = f"{Path(path).name}: a record"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise InputError(f"{Path(path).name}: a line is not valid JSON") from None
            if not isinstance(rec, dict):
                raise InputError(f"{Path(path).name}: a line is not a JSON object")
            rpaths, found = _record_texts(rec, self.plan.select, where, use)
            texts.extend(found)
            recs.append((rec, rpaths))
        results, counts = self._run(texts)
        out: list[str | None] = []
        i = 0
        for item in recs:
            if item is None:
                out.append(None)
                continue
            rec, rpaths = item
            if self.plan.mode == "detect":
                # one text per record (first_only): its findings
                out.append(json.dumps(results[i]))
                i += 1
            else:
                for p in rpaths:
                    _put(rec, p, results[i])
                    i += 1
                out.append(json.dumps(rec, ensure_ascii=False))
        n = len(out)
        table = pa.table(
            {
                _OUT: out,
                _COUNTS: _on_first(_total(counts), n),
                _FIELDS: _on_first(json.dumps([list(use.seen), list(use.used)]), n),
                _ERR: [None] * n,
            },
            schema=pa.schema(
                [
                    (_OUT, pa.string()),
                    (_COUNTS, pa.string()),
                    (_FIELDS, pa.string()),
                    (_ERR, pa.string()),
                ]
            ),
        )
        return (
            table.append_column(_PATH, pa.array(paths, pa.string())) if self.plan.paths else table
        )

    def _table(self, batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        n = batch.num_rows
        cols = self.plan.columns
        texts: list[str | None] = []
        for c in cols:
            texts += [_check_text(v, f"column {c}") for v in batch.column(c).to_pylist()]
        results, counts = self._run(texts)
        row_counts = pa.array(_on_first(_total(counts), n), pa.string())
        if self.plan.mode == "detect":
            return pa.table(
                {
                    _OUT: [json.dumps(x) for x in results],
                    _COUNTS: row_counts,
                    _ERR: pa.array([None] * n, pa.string()),
                }
            )
        for j, c in enumerate(cols):
            i = batch.schema.get_field_index(c)
            batch = batch.set_column(
                i, batch.schema.field(i), pa.array(results[j * n : (j + 1) * n], pa.string())
            )
        batch = batch.append_column(_COUNTS, row_counts)
        return batch.append_column(_ERR, pa.array([None] * n, pa.string()))


def _batch_lines(batch: pa.Table) -> tuple[list[str], list[str]]:
    """The lines of a JSONL batch's byte ranges, which the actor reads itself
    (:func:`veil.engine._jsonl_source.ranges`), and each line's file key."""
    from veil.engine._jsonl_source import range_lines

    lines: list[str] = []
    keys: list[str] = []
    for path, key, start, end in zip(
        *(batch.column(c).to_pylist() for c in ("path", "key", "start", "end")), strict=True
    ):
        got = range_lines(path, start, end)
        lines += got
        keys += [key] * len(got)
    return lines, keys


def _total(counts: list[Counter[str]]) -> str:
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    return json.dumps(total)


def _on_first(value: str, n: int) -> list[str | None]:
    """A batch's figure on its first row (none elsewhere): the driver reads it once per
    batch, not once per record, and a row is counted once however Ray Data cuts blocks."""
    return [value] + [None] * (n - 1) if n else []


# reading ------------------------------------------------------------------------------------
def _table_plan(
    kind: Kind, files: list[Path], sel: _Select, separator: str | None, header: bool | None
) -> tuple[tuple[str, ...], list[str], dict[str, Any]]:
    """The text columns, all columns and read arguments of a CSV or Parquet dataset; every
    file must have the first one's columns."""
    import pyarrow as pa

    if kind == "parquet":
        import pyarrow.parquet as pq

        schemas = []
        for f in files:
            try:
                schemas.append(pq.read_schema(f).remove_metadata())
            except Exception:  # noqa: BLE001 - pyarrow raises several types, none useful here
                raise InputError(f"{f.name}: not a readable Parquet file") from None
        first = schemas[0]
        for f, s in zip(files, schemas, strict=True):
            if not s.equals(first):
                raise SchemaError(
                    f"{f.name} has another schema than {files[0].name}",
                    hint=f"every partition needs the columns {column_names(first.names)} "
                    "with the same types",
                )
        text = [
            fl.name
            for fl in first
            if pa.types.is_string(fl.type) or pa.types.is_large_string(fl.type)
        ]
        cols = _table_columns(files[0], first.names, sel, text)
        return tuple(cols), list(first.names), {}
    import pandas as pd
    import pyarrow.csv as pacsv

    sep, names = csv_layout(files[0], separator, header)
    all_names: list[str] | None = None
    for f in files:
        s, nm = csv_layout(f, separator, header)
        if nm is None:
            try:
                nm = [str(c) for c in pd.read_csv(f, sep=s, nrows=0, dtype=str).columns]
            except (pd.errors.ParserError, UnicodeDecodeError):
                raise InputError(
                    f"{f.name}: malformed CSV", hint="check quoting and separators"
                ) from None
        if all_names is None:
            all_names = nm
        elif nm != all_names or s != sep:
            raise SchemaError(
                f"{f.name} has other columns (or another separator) than {files[0].name}",
                hint=f"every partition needs the columns {column_names(all_names)}",
            )
    assert all_names is not None
    cols = _table_columns(files[0], all_names, sel)
    args = {
        "parse_options": pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
        "read_options": pacsv.ReadOptions(column_names=names) if names else pacsv.ReadOptions(),
        "convert_options": pacsv.ConvertOptions(
            column_types={c: pa.string() for c in all_names},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
        "_sep": sep,
        "_header": names is None,
    }
    return tuple(cols), all_names, args


def _dataset(
    ray: Any,
    kind: Kind,
    files: list[Path],
    args: dict[str, Any],
    rows: int,
    with_paths: bool = False,
    workers: int = 1,
) -> Any:
    # before the dataset exists: a dataset keeps the context it was created under
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True  # rows out in input order
    ctx.enable_progress_bars = False
    paths = [str(f) for f in files]
    # read tasks ask for what an actor asks: at 1 CPU, two actors placed one on each of two
    # 1-CPU nodes left half a CPU free on each, and no read task could ever run (a hang)
    remote = {"ray_remote_args": {"num_cpus": ACTOR_CPUS}}
    if kind == "jsonl":
        # byte ranges of about one batch (``rows`` lines) each, read by the actors
        # themselves: no read tasks (worker processes of their own, competing with the
        # actors for the CPUs), no lines through the object store, one range per actor
        # call, and an actor's memory does not grow with its file (veil.engine._jsonl_source)
        from veil.engine._jsonl_source import ranges

        # a block per range up to RANGE_BLOCKS (each block costs the driver memory: 5 GB
        # in 43,000 one-range blocks held 600 MB there); beyond, a block holds several
        # ranges and its actor call still reads and analyses them one at a time
        items = ranges(files, rows, at_least=workers)
        return ray.data.from_items(
            items, override_num_blocks=min(len(items), max(RANGE_BLOCKS, workers))
        )
    if kind == "csv":
        csv_args = {k: v for k, v in args.items() if not k.startswith("_")}
        return ray.data.read_csv(paths, **csv_args, include_paths=with_paths, **remote)
    return ray.data.read_parquet(paths, include_paths=with_paths, **remote)


def _batches(
    ray: Any,
    ds: Any,
    config: TextConfig,
    plan: _Plan,
    operator: Operator | None,
    workers: int,
    batch_size: int,
) -> Iterator[pa.Table]:
    mapped = ds.map_batches(
        _TextActor,
        fn_constructor_kwargs={"config": config, "plan": plan, "operator": operator},
        # JSONL: one byte range of about ``batch_size`` lines per call
        batch_size=1 if plan.kind == "jsonl" else batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=ACTOR_CPUS,
    )
    try:
        for b in mapped.iter_batches(batch_format="pyarrow", batch_size=None):
            err = b.column(_ERR)
            if err.null_count < b.num_rows:
                message, hint = json.loads(next(e for e in err.to_pylist() if e is not None))
                raise InputError(message, hint=hint)
            yield b
    except ray.exceptions.RayError as exc:
        # never the exception's text: it can quote a record
        cause = getattr(exc, "cause", None)
        if isinstance(cause, InputError):  # veil's own, data-free: a JSONL read task's
            raise InputError(cause.message, hint=cause.hint) from None
        if isinstance(cause, (UnicodeDecodeError, ValueError)):
            # a read task refused a file: bad UTF-8, a malformed CSV row (pyarrow's
            # ArrowInvalid is a ValueError); Ray does not say which file
            raise InputError(
                f"an input file could not be read ({type(cause).__name__}); nothing was written",
                hint="check that every file is UTF-8 and well-formed (same columns on every "
                "row); --engine local names the file and line",
            ) from None
        raise VeilError(
            f"the Ray job failed ({type(exc).__name__}); nothing was written",
            hint="check the input files are readable (UTF-8, well-formed) and the cluster's "
            "workers are alive, then run again",
        ) from None


def transform_parts(
    spec: str | Path,
    out: Path,
    fn: Callable[[list[str | None]], list[str | None]],
    *,
    column: str | Sequence[str] | None,
    separator: str | None,
    header: bool | None,
    all_fields: bool = False,
    **kw: Any,
) -> tuple[int, int]:
    """The local engine's partitioned run: each partition of ``spec`` streamed through
    ``fn`` (:func:`veil.text.redaction._files.transform_file`) into its own file under
    ``out`` (the Ray engine's layout), the set swapped in at the end; (records, files)."""
    from veil.engine._inputs import expand_inputs
    from veil.io import atomic_dir
    from veil.text.redaction._files import transform_file

    kind, files = expand_inputs(spec, engine="local")
    rels = layout(spec, files, out)
    if kind != "jsonl":  # every partition with the first one's columns, before writing
        _table_plan(kind, files, _select(column, all_fields, False), separator, header)
    n = 0
    with atomic_dir(out) as stage:
        for f, rel in zip(files, rels, strict=True):
            n += transform_file(
                f,
                stage / rel,
                fn,
                column=column,
                separator=separator,
                header=header,
                all_fields=all_fields,
                **kw,
            )
    return n, len(files)


def _check_out(kind: Kind, out: Path, files: Sequence[Path], expected: Kind | None = None) -> None:
    want = expected or kind
    if file_kind(out) != want:
        raise InputError(
            f"the output must be a {want} file",
            hint="name the output with the input's suffix"
            if expected is None
            else "name it FINDINGS.jsonl",
        )
    if any(out.resolve() == f.resolve() for f in files):
        raise InputError("the output would overwrite an input", hint="choose another --out")


def ray_redact(
    ray: Any,
    files: list[Path],
    kind: Kind,
    out: Path,
    config: TextConfig,
    operator: Operator,
    *,
    column: str | Sequence[str] | None = None,
    all_fields: bool = False,
    separator: str | None = None,
    header: bool | None = None,
    batch_size: int = 500,
    workers: int = 1,
    fields: FieldUse | None = None,
    progress: Progress | None = None,
    parts: Sequence[Path] | None = None,
) -> tuple[int, Counter[str]]:
    """Redact ``files`` into ``out``; records and counts.

    ``out`` is one file of the input's format, or with ``parts`` (each input's output
    name, :func:`veil.engine._partitioned.layout`) a folder of one file per input
    partition, written as one set.
    """
    if getattr(operator, "scope", None) == "run" or operator.name == "vault":
        raise InputError(
            f"operator {operator.name!r} with run-wide state is not available on the Ray "
            "engine yet",
            hint="use --engine local, or a keyed operator (hash, fpe, encrypt, surrogate)",
        )
    if parts is None:
        _check_out(kind, out, files)
    sel = _select(column, all_fields, False)
    cols: tuple[str, ...] = ()
    names: list[str] = []
    args: dict[str, Any] = {}
    if kind != "jsonl":
        cols, names, args = _table_plan(kind, files, sel, separator, header)
        if parts is not None and _PATH in names:
            raise InputError(
                f"a partitioned output on the Ray engine needs no column named {_PATH!r} "
                "(Ray Data adds one for each row's file)",
                hint="write one output file (--out FILE), or use --engine local",
            )
        if fields is not None:
            fields.seen.update(dict.fromkeys(names))
            fields.used.update(dict.fromkeys(cols))
    plan = _Plan("redact", kind, sel, cols, nlp_batch=min(batch_size, 256), paths=parts is not None)
    ds = _dataset(
        ray,
        kind,
        files,
        args,
        batch_size,
        with_paths=parts is not None and kind != "jsonl",
        workers=workers,
    )
    sink = _Sink(kind, files, names, args, fields)
    progress = progress or NullProgress()
    batches = _batches(ray, ds, config, plan, operator, workers, batch_size)
    with progress.task("redacting (ray)") as task:
        if parts is None:
            with atomic_path(out) as tmp:
                sink.to_file(batches, tmp, task)
        else:
            from veil.io import atomic_dir

            with atomic_dir(out) as stage:
                schema = None
                if kind == "parquet":
                    import pyarrow.parquet as pq

                    schema = pq.read_schema(files[0])
                writers = PartWriters(
                    kind,
                    stage,
                    files,
                    parts,
                    schema=schema,
                    names=names,
                    sep=args.get("_sep", ","),
                    header=args.get("_header", True),
                )
                sink.to_parts(batches, writers, task)
    return sink.n, sink.counts


class _Sink:
    """The driver's end of a redaction: counts, field use, and the rows written out."""

    def __init__(
        self,
        kind: Kind,
        files: list[Path],
        names: list[str],
        args: dict[str, Any],
        fields: FieldUse | None,
    ) -> None:
        self.kind, self.files, self.names, self.args, self.fields = kind, files, names, args, fields
        self.n = 0
        self.counts: Counter[str] = Counter()

    def _take(self, b: pa.Table) -> list[str] | None:
        """Count ``b``'s findings; JSONL: its records' lines (empty lines dropped)."""
        for c in b.column(_COUNTS).to_pylist():
            if c is not None:
                self.counts.update(json.loads(c))
        if self.kind != "jsonl":
            self.n += b.num_rows
            return None
        if self.fields is not None:
            for fl in b.column(_FIELDS).to_pylist():
                if fl is not None:
                    seen, used = json.loads(fl)
                    self.fields.seen.update(dict.fromkeys(seen))
                    self.fields.used.update(dict.fromkeys(used))
        lines = [line for line in b.column(_OUT).to_pylist() if line is not None]
        self.n += len(lines)
        return lines

    def to_file(self, batches: Iterator[pa.Table], tmp: Path, task: Any) -> None:
        import pyarrow.parquet as pq

        pq_writer: Any = None
        fh = None
        first = True
        schema = pq.read_schema(self.files[0]) if self.kind == "parquet" else None
        try:
            for b in batches:
                lines = self._take(b)
                task.advance(b.num_rows)
                if lines is not None:
                    fh = fh or tmp.open("w", encoding="utf-8", newline="")
                    fh.write("".join(line + "\n" for line in lines))
                    continue
                table = b.select(self.names)
                if self.kind == "csv":
                    fh = fh or tmp.open("w", encoding="utf-8", newline="")
                    table.to_pandas().to_csv(
                        fh,
                        header=first and self.args["_header"],
                        index=False,
                        sep=self.args["_sep"],
                    )
                else:
                    pq_writer = pq_writer or pq.ParquetWriter(tmp, schema)
                    pq_writer.write_table(table.cast(schema))
                first = False
            if self.kind == "parquet" and pq_writer is None:
                pq.write_table(schema.empty_table(), tmp)  # type: ignore[union-attr]
        finally:
            if fh is not None:
                fh.close()
            if pq_writer is not None:
                pq_writer.close()

    def to_parts(self, batches: Iterator[pa.Table], writers: Any, task: Any) -> None:
        complete = False
        try:
            for b in batches:
                keys = b.column(_PATH).to_pylist()
                lines = self._take(b)
                task.advance(b.num_rows)
                if lines is not None:
                    self._lines_by_file(b, keys, writers)
                    continue
                # rows of one file arrive together (preserve_order): split at the changes
                starts = [0, *(i for i in range(1, len(keys)) if keys[i] != keys[i - 1])]
                for lo, hi in zip(starts, [*starts[1:], len(keys)], strict=True):
                    writers.table(keys[lo], b.slice(lo, hi - lo).select(self.names))
            complete = True
        finally:
            writers.close(complete)

    def _lines_by_file(self, b: pa.Table, keys: list[str], writers: Any) -> None:
        # the lines of non-empty records, with their files (empty lines have no output)
        out = b.column(_OUT).to_pylist()
        run: list[str] = []
        key: str | None = None
        for line, k in zip(out, keys, strict=True):
            if line is None:
                continue
            if k != key and run:
                writers.lines(key, run)
                run = []
            key = k
            run.append(line)
        if run:
            assert key is not None
            writers.lines(key, run)


def ray_detect(
    ray: Any,
    files: list[Path],
    kind: Kind,
    out: Path,
    config: TextConfig,
    *,
    column: str | None = None,
    explain: bool = False,
    separator: str | None = None,
    header: bool | None = None,
    batch_size: int = 500,
    workers: int = 1,
    progress: Progress | None = None,
) -> tuple[int, Counter[str]]:
    """Write the findings of ``files`` to ``out`` (JSONL, one line per record, in order)."""
    _check_out(kind, out, files, expected="jsonl")
    sel = _select(column, False, True)
    cols: tuple[str, ...] = ()
    args: dict[str, Any] = {}
    if kind != "jsonl":
        cols, _names, args = _table_plan(kind, files, sel, separator, header)
        cols = cols[:1]
    plan = _Plan("detect", kind, sel, cols, explain=explain, nlp_batch=min(batch_size, 256))
    ds = _dataset(ray, kind, files, args, batch_size, workers=workers)
    counts: Counter[str] = Counter()
    n = 0
    progress = progress or NullProgress()
    with (
        progress.task("detecting (ray)") as task,
        atomic_path(out) as tmp,
        tmp.open("w", encoding="utf-8") as fh,
    ):
        for b in _batches(ray, ds, config, plan, None, workers, batch_size):
            for found, c in zip(
                b.column(_OUT).to_pylist(), b.column(_COUNTS).to_pylist(), strict=True
            ):
                if c is not None:
                    counts.update(json.loads(c))
                if found is None:
                    continue
                # the local engine's line, json.dumps({"index": n, "findings": [...]})
                fh.write(f'{{"index": {n}, "findings": {found}}}\n')
                n += 1
            task.advance(b.num_rows)
    return n, counts
