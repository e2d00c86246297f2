"""Text detection and redaction on Ray Data, with the local engine's results and formats.

The dataset is read by Ray (JSONL as lines, CSV with every cell as text, Parquet as it
is), analysed by a pool of actors (:class:`_TextActor`: the analyzer and, for redaction,
the operator are built once per actor), and collected by the driver in input order into
one output file written atomically. The operator travels to the actors as the object the
driver built (its key included), so keyed operators give the local engine's pseudonyms.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, SchemaError, VeilError, column_names
from veil._progress import NullProgress, Progress
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

__all__ = ["ray_detect", "ray_redact"]

#: CPUs each actor asks for: a whole CPU per actor starves Ray Data's read tasks on a
#: small machine (two 1-CPU actors on 2 cores deadlocked), so actors ask for half.
ACTOR_CPUS = 0.5
_ERR = "__veil_error"
_COUNTS = "__veil_counts"
_FIELDS = "__veil_fields"
_OUT = "__veil_out"
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

        lines = batch.column("text").to_pylist()
        paths = batch.column("path").to_pylist()
        recs: list[tuple[dict[str, Any], list[Any]] | None] = []
        texts: list[str | None] = []
        fields: list[str] = []
        for line, path in zip(lines, paths, strict=True):
            if not line.strip():
                recs.append(None)
                fields.append("[[], []]")
                continue
            where = f"{Path(path).name}: a record"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise InputError(f"{Path(path).name}: a line is not valid JSON") from None
            if not isinstance(rec, dict):
                raise InputError(f"{Path(path).name}: a line is not a JSON object")
            use = FieldUse()
            rpaths, found = _record_texts(rec, self.plan.select, where, use)
            texts.extend(found)
            recs.append((rec, rpaths))
            fields.append(json.dumps([list(use.seen), list(use.used)]))
        results, counts = self._run(texts)
        out: list[str | None] = []
        row_counts: list[str] = []
        i = 0
        for item in recs:
            if item is None:
                out.append(None)
                row_counts.append("{}")
                continue
            rec, rpaths = item
            c: Counter[str] = Counter()
            if self.plan.mode == "detect":
                # one text per record (first_only): its findings
                out.append(json.dumps(results[i]))
                c += counts[i]
                i += 1
            else:
                for p in rpaths:
                    _put(rec, p, results[i])
                    c += counts[i]
                    i += 1
                out.append(json.dumps(rec, ensure_ascii=False))
            row_counts.append(json.dumps(c))
        return pa.table(
            {_OUT: out, _COUNTS: row_counts, _FIELDS: fields, _ERR: [None] * len(out)},
            schema=pa.schema(
                [
                    (_OUT, pa.string()),
                    (_COUNTS, pa.string()),
                    (_FIELDS, pa.string()),
                    (_ERR, pa.string()),
                ]
            ),
        )

    def _table(self, batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        n = batch.num_rows
        cols = self.plan.columns
        texts: list[str | None] = []
        for c in cols:
            texts += [_check_text(v, f"column {c}") for v in batch.column(c).to_pylist()]
        results, counts = self._run(texts)
        per_row = [Counter[str]() for _ in range(n)]
        for j in range(len(cols)):
            for r in range(n):
                per_row[r] += counts[j * n + r]
        row_counts = [json.dumps(c) for c in per_row]
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
        batch = batch.append_column(_COUNTS, pa.array(row_counts, pa.string()))
        return batch.append_column(_ERR, pa.array([None] * n, pa.string()))


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


def _dataset(ray: Any, kind: Kind, files: list[Path], args: dict[str, Any]) -> Any:
    # before the dataset exists: a dataset keeps the context it was created under
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True  # rows out in input order
    ctx.enable_progress_bars = False
    paths = [str(f) for f in files]
    # read tasks ask for what an actor asks: at 1 CPU, two actors placed one on each of two
    # 1-CPU nodes left half a CPU free on each, and no read task could ever run (a hang)
    remote = {"ray_remote_args": {"num_cpus": ACTOR_CPUS}}
    if kind == "jsonl":
        return ray.data.read_text(paths, include_paths=True, drop_empty_lines=True, **remote)
    if kind == "csv":
        csv_args = {k: v for k, v in args.items() if not k.startswith("_")}
        return ray.data.read_csv(paths, **csv_args, **remote)
    return ray.data.read_parquet(paths, **remote)


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
        batch_size=batch_size,
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
) -> tuple[int, Counter[str]]:
    """Redact ``files`` into ``out`` (one file, the input's format); records and counts."""
    if getattr(operator, "scope", None) == "run" or operator.name == "vault":
        raise InputError(
            f"operator {operator.name!r} with run-wide state is not available on the Ray "
            "engine yet",
            hint="use --engine local, or a keyed operator (hash, fpe, encrypt, surrogate)",
        )
    _check_out(kind, out, files)
    sel = _select(column, all_fields, False)
    cols: tuple[str, ...] = ()
    names: list[str] = []
    args: dict[str, Any] = {}
    if kind != "jsonl":
        cols, names, args = _table_plan(kind, files, sel, separator, header)
        if fields is not None:
            fields.seen.update(dict.fromkeys(names))
            fields.used.update(dict.fromkeys(cols))
    plan = _Plan("redact", kind, sel, cols, nlp_batch=min(batch_size, 256))
    ds = _dataset(ray, kind, files, args)
    counts: Counter[str] = Counter()
    n = 0
    progress = progress or NullProgress()
    with progress.task("redacting (ray)") as task, atomic_path(out) as tmp:
        pq_writer: Any = None
        fh = None
        first = True
        try:
            for b in _batches(ray, ds, config, plan, operator, workers, batch_size):
                for c in b.column(_COUNTS).to_pylist():
                    counts.update(json.loads(c))
                if kind == "jsonl":
                    fh = fh or tmp.open("w", encoding="utf-8", newline="")
                    for line, fl in zip(
                        b.column(_OUT).to_pylist(), b.column(_FIELDS).to_pylist(), strict=True
                    ):
                        if line is None:
                            continue
                        fh.write(line + "\n")
                        n += 1
                        if fields is not None:
                            seen, used = json.loads(fl)
                            fields.seen.update(dict.fromkeys(seen))
                            fields.used.update(dict.fromkeys(used))
                    task.advance(b.num_rows)
                    continue
                table = b.select(names)
                n += table.num_rows
                if kind == "csv":
                    fh = fh or tmp.open("w", encoding="utf-8", newline="")
                    table.to_pandas().to_csv(
                        fh, header=first and args["_header"], index=False, sep=args["_sep"]
                    )
                else:
                    import pyarrow.parquet as pq

                    schema = pq.read_schema(files[0])
                    if pq_writer is None:
                        pq_writer = pq.ParquetWriter(tmp, schema)
                    pq_writer.write_table(table.cast(schema))
                first = False
                task.advance(table.num_rows)
            if kind == "parquet" and pq_writer is None:
                import pyarrow.parquet as pq

                pq.write_table(pq.read_schema(files[0]).empty_table(), tmp)
        finally:
            if fh is not None:
                fh.close()
            if pq_writer is not None:
                pq_writer.close()
    return n, counts


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
    ds = _dataset(ray, kind, files, args)
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
                if found is None:
                    continue
                counts.update(json.loads(c))
                # the local engine's line, json.dumps({"index": n, "findings": [...]})
                fh.write(f'{{"index": {n}, "findings": {found}}}\n')
                n += 1
            task.advance(b.num_rows)
    return n, counts
