"""``veil run --engine ray``: a table policy over partitions, with the local engine's release.

Two passes of Ray tasks over the partitions (one task per file, each reading its file as
the local engine reads its input), and the search in between, on the driver::

    pass 1   read, transform, aggregate  ->  distinct (QIs, sensitive) rows, counts, first
    driver   merge the aggregates (sum the counts, keep the earliest record), search the
             lattice on them (veil.tabular.anonymize with weights), the release of each
             distinct row
    pass 2   read, transform, release (a lookup by group)  ->  the released partition, and
             aggregates of it: the re-check's classes, distinct values, a sample
    driver   the independent re-check on the released partitions' aggregate, the report
             from aggregates (risk and utility included: pass 2 also returns the
             aggregate of input and release, and ML utility's split rows), then one
             release file and the reports written atomically

The driver holds aggregates only: their size is the number of distinct combinations of
the quasi-identifiers and sensitive columns, not the number of rows. Ordered by each
combination's first record, the aggregate encodes to the frequency table the records give
(see :func:`veil.tabular._encoding.encode`), so the optimum, the metrics and the k sweep
are the local engine's. What the Ray engine does not run (yet) is refused before Ray starts
(:func:`check_ray_policy`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError, PolicyError, SchemaError, VeilError, column_names
from veil._progress import NullProgress, Progress
from veil.engine._inputs import expand_inputs
from veil.engine._table_parts import (
    FIRST,
    SUP,
    Failed,
    N,
    PartPlan,
    Prepared,
    Released,
    ReleaseMap,
    SplitPlan,
    prepare_part,
    release_part,
)

if TYPE_CHECKING:
    import pandas as pd

    from veil.pipeline import RunResult
    from veil.policy import Policy

__all__ = ["check_ray_policy", "ray_run_policy"]

#: transforms that map each row on its own (a partition gives the whole table's values);
#: the others fit on the whole column (top/bottom coding, noise and displacement draws)
ROW_WISE = frozenset(
    {"drop", "keep", "mask", "hash", "tokenize", "date_generalize", "date_shift", "geo_round"}
)
_LOCAL = "or run it with --engine local"


def check_ray_policy(policy: Policy) -> None:
    """Refuse, before Ray starts, what the Ray engine does not run yet (exit 2)."""
    if policy.data.path is None:
        raise PolicyError(
            "the Ray engine reads files (a file, a folder or a glob), not a SQL source",
            key="data.url",
            hint=f"export the table to Parquet or CSV partitions, {_LOCAL}",
        )
    if policy.output.url is not None:
        raise PolicyError(
            "the Ray engine does not write to SQL yet",
            key="output.url",
            hint=f"remove it, {_LOCAL}",
        )
    unsupported = [
        (key, what)
        for key, what, present in (
            ("dp", "differentially private statistics (dp:)", policy.dp is not None),
            ("synth", "synthetic data (synth:)", policy.synth is not None),
        )
        if present
    ]
    for name, col in policy.columns.items():
        if col.role.value == "text":
            unsupported.append((f"columns.{name}.role", "text columns in a table policy"))
        elif col.role.value == "identifier":
            unsupported.append(
                (f"columns.{name}.role", "identifier columns (the release leak scan)")
            )
        if col.transform is not None and col.transform.type not in ROW_WISE:
            unsupported.append((f"columns.{name}.transform", f"the {col.transform.type} transform"))
    if not policy.privacy.any_model:
        unsupported.append(("privacy", "a policy without a privacy model"))
    elif policy.search.algorithm != "optimal":
        unsupported.append(("search.algorithm", f"search: {policy.search.algorithm}"))
    elif policy.privacy.uses_population:
        unsupported.append(("privacy", "delta-presence or k-map against a population table"))
    if unsupported:
        key, what = unsupported[0]
        raise PolicyError(
            f"the Ray engine does not run {what} yet",
            key=key,
            hint="the Ray engine runs the field transforms that map each row on its own "
            f"({', '.join(sorted(ROW_WISE))}) and the optimal search; {_LOCAL}",
        )
    for q in (*policy.quasi_identifiers, *policy.sensitive):
        t = policy.columns[q].transform
        if t is not None and t.type == "drop":
            raise PolicyError(
                f"column {q!r} is dropped, but the privacy models read it",
                key=f"columns.{q}.transform",
                hint="keep the column, or give it another role",
            )


def _raise(failed: Failed, path: str) -> None:
    from veil import _errors

    cls = getattr(_errors, failed.kind, None)
    if not (isinstance(cls, type) and issubclass(cls, VeilError)):
        cls = InputError
    named = Path(path).name in failed.message  # veil's readers name the file themselves
    raise cls(failed.message if named else f"{Path(path).name}: {failed.message}", hint=failed.hint)


def _ray_get(ray: Any, refs: Any) -> Any:
    """``ray.get``; a task that failed otherwise than with a veil error: its type only."""
    try:
        return ray.get(refs)
    except ray.exceptions.RayError as exc:
        cause = getattr(exc, "cause", None)
        raise VeilError(
            f"a Ray task failed ({type(cause or exc).__name__}); nothing was written",
            hint="check that every partition is readable (UTF-8, well-formed) and the "
            "cluster's workers are alive, then run again; --engine local names the file",
        ) from None


def _merge(
    aggs: list[pd.DataFrame], offsets: np.ndarray, cols: list[str]
) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """The partitions' aggregates merged: distinct rows in the order of their first record
    (counts summed), and for each partition its groups' rows in the merged table."""
    import pandas as pd

    from veil.engine._table_parts import groups

    sizes = [len(a) for a in aggs]
    both = pd.concat(
        [
            a.assign(**{FIRST: a[FIRST].to_numpy() + off})
            for a, off in zip(aggs, offsets, strict=True)
        ],
        ignore_index=True,
    )
    gid, merged = groups(both[cols], cols)
    n = np.bincount(gid, weights=both[N].to_numpy(), minlength=len(merged)).astype(np.int64)
    first = np.full(len(merged), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, gid, both[FIRST].to_numpy())
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    merged = merged.drop(columns=[N, FIRST]).iloc[order].reset_index(drop=True)
    merged[N] = n[order]
    merged[FIRST] = first[order]
    bounds = np.cumsum([0, *sizes])
    return merged, [rank[gid[bounds[i] : bounds[i + 1]]] for i in range(len(aggs))]


def _merge_transforms(parts: list[Prepared]) -> dict[str, Any]:
    """The transforms section of the whole table: the partitions' counts summed."""
    if not parts:
        return {}
    out: dict[str, Any] = {"columns": {}, "summary": dict(parts[0].transforms.get("summary", {}))}
    for p in parts:
        for col, entry in p.transforms.get("columns", {}).items():
            into = out["columns"].setdefault(col, {})
            for k, v in entry.items():
                if isinstance(v, int) and not isinstance(v, bool) and k in into:
                    into[k] += v
                else:
                    into.setdefault(k, v)
    return out


def _release_map(result: Any, qis: tuple[str, ...]) -> ReleaseMap:
    data = result.data
    return ReleaseMap(
        codes={q: data[q].cat.codes.to_numpy().astype(np.int64) for q in qis},
        categories={q: list(data[q].cat.categories) for q in qis},
        suppressed=np.asarray(result.suppressed, dtype=bool),
    )


def _sample(n: int) -> np.ndarray:
    """The rows the report's recomputation check reads (as the local engine samples)."""
    from veil.report._warnings import SAMPLE_ROWS

    if n > SAMPLE_ROWS:
        return np.sort(np.random.default_rng(0).choice(n, SAMPLE_ROWS, replace=False))
    return np.arange(n)


def ray_run_policy(
    ray: Any,
    policy: Policy,
    *,
    out_dir: str | Path | None = None,
    progress: Progress | None = None,
    engine: dict[str, Any] | None = None,
) -> RunResult:
    """Run ``policy`` on Ray over the partitions of ``policy.data.path``; see the module.

    The release is written (``out_dir``, else ``policy.output.path``), never collected:
    the result's ``data`` holds the released columns and no row; its ``report`` and
    ``outputs`` are those of :func:`veil.pipeline.run_policy` (the risk stage's risk and
    utility sections measured on aggregates), plus ``report["engine"]``.

    Raises
    ------
    PolicyError
        What the Ray engine does not run yet (:func:`check_ray_policy`).
    InputError, SchemaError
        No readable partition, a partition veil cannot read or with other columns (named).
    PrivacyRequirementNotMet, VerificationError
        As locally; nothing is written.
    """
    import pandas as pd

    from veil.pipeline import RunResult, _out_dir, plan
    from veil.tabular._anonymize import AnonymizeConfig, _sensitive_hierarchies, anonymize
    from veil.tabular._anonymize_stage import SWEEP_KS, summary_of

    started = time.perf_counter()
    progress = progress or NullProgress()
    check_ray_policy(policy)
    stages = [s.name for s in plan(policy) if s.name in ("transforms", "anonymize", "risk")]
    assert policy.data.path is not None
    kind, files = expand_inputs(policy.resolve(policy.data.path))
    from veil.io._atomic import sweep_stale

    sweep_stale(_out_dir(policy, out_dir))
    rels = None
    if policy.output.partitioned:  # before any work: the output folder's refusals
        from veil.engine._partitioned import release_names

        rels = release_names(policy, files, _out_dir(policy, out_dir))
    qis = tuple(policy.quasi_identifiers)
    from veil.tabular._stage import build_policy_transformers

    part_plan = PartPlan(
        policy,
        kind,
        qis,
        tuple(s for s in policy.sensitive if s not in qis),
        build_policy_transformers(policy),
    )
    cols = part_plan.cols
    paths = [str(f) for f in files]
    timings: dict[str, float] = {}

    t0 = time.perf_counter()
    plan_ref = ray.put(part_plan)
    prepare = ray.remote(num_cpus=1, max_retries=1)(prepare_part)
    with progress.task("reading and aggregating (ray)"):
        prepared: list[Prepared | Failed] = _ray_get(
            ray, [prepare.remote(plan_ref, p) for p in paths]
        )
    parts: list[Prepared] = []
    for p, path in zip(prepared, paths, strict=True):
        if isinstance(p, Failed):
            _raise(p, path)
        assert isinstance(p, Prepared)
        if parts and p.columns != parts[0].columns:
            raise SchemaError(
                f"{Path(path).name} has other columns than {files[0].name}",
                hint=f"every partition needs the columns {column_names(parts[0].columns)}",
            )
        parts.append(p)
    rows = np.array([p.rows for p in parts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)
    n = int(rows.sum())
    merged, to_global = _merge([p.agg for p in parts], offsets, cols)
    timings["transforms"] = round(time.perf_counter() - t0, 4)

    t0 = time.perf_counter()
    config = AnonymizeConfig.from_policy(policy)
    weights = merged[N].to_numpy()
    result = anonymize(merged[cols], config, progress=progress, sweep=SWEEP_KS, weights=weights)
    release = ray.put(_release_map(result, qis))

    sample = _sample(n)
    as_is = [
        name
        for name, col in policy.columns.items()
        if col.role.value in ("insensitive", "sensitive") and col.transform is None
    ]
    release_fn = ray.remote(num_cpus=1, max_retries=1, num_returns=2)(release_part)
    n_suppressed = int(weights[np.asarray(result.suppressed, dtype=bool)].sum())
    splits = _splits(n, n_suppressed, rows) if "risk" in stages else [None] * len(paths)
    refs = []
    for i, path in enumerate(paths):
        lo, hi = np.searchsorted(sample, [offsets[i], offsets[i] + rows[i]])
        refs.append(
            release_fn.remote(
                plan_ref, path, to_global[i], release, sample[lo:hi] - offsets[i], as_is, splits[i]
            )
        )
    with progress.task("releasing (ray)"):
        facts: list[Released | Failed] = _ray_get(ray, [r[0] for r in refs])
    released: list[Released] = []
    for f, path in zip(facts, paths, strict=True):
        if isinstance(f, Failed):
            _raise(f, path)
        assert isinstance(f, Released)
        released.append(f)
    recheck, _ = _merge([f.recheck for f in released], offsets, [*cols, SUP])
    _recheck(recheck, config, _sensitive_hierarchies(merged[cols], config), n)
    timings["anonymize"] = round(time.perf_counter() - t0, 4)

    section = result.to_dict()
    section["summary"] = summary_of(section)
    stage_report: dict[str, Any] = {"transforms": _merge_transforms(parts), "anonymize": section}
    if "risk" in stages:
        t0 = time.perf_counter()
        with progress.task("measuring risk and utility (ray)"):
            stage_report["risk"], classes = _risk(policy, part_plan, released, offsets, section)
            stage_report["utility"] = _utility(policy, parts, released, offsets, classes, section)
        timings["risk"] = round(time.perf_counter() - t0, 4)
    artifacts: dict[str, Any] = {}
    for p in parts[:1]:
        artifacts.update(p.artifacts)
    report = _report(policy, parts, released, recheck, stage_report, artifacts, timings, stages, n)
    report["engine"] = {
        "type": "ray",
        **(engine or {}),
        "partitions": len(files),
        "distinct_rows": len(merged),
        "not_run": [],
        "note": _AGGREGATES_NOTE,
    }
    frames = [r[1] for r in refs]
    outputs = _write(ray, policy, out_dir, frames, released, report, artifacts, rels)
    report["outputs"] = {k: str(v) for k, v in outputs.items()}
    return RunResult(
        data=pd.DataFrame(columns=released[0].columns if released else []),
        report=report,
        outputs=outputs,
        seconds=time.perf_counter() - started,
    )


_AGGREGATES_NOTE = (
    "the risk and utility sections are measured on aggregates of the released partitions "
    "(each distinct row of the columns compared, input and released, with its count; ML "
    "utility on the seeded split's training rows and its test rows as distinct rows with "
    "their counts): the local engine's figures"
)


def _splits(n: int, suppressed: int, rows: np.ndarray) -> list[SplitPlan | None]:
    """Each partition's rows in ML utility's split of all ``n`` rows (as the local engine
    splits them): test rows, and the training rows the models may read (the first
    ``max_train_rows`` of the split, and as many more as there are suppressed records,
    which the release's models skip)."""
    from veil.risk._stage import RiskStage
    from veil.utility._ml import split_rows

    perm, n_test = split_rows(n)
    ranks = np.empty(n, dtype=np.int64)
    ranks[perm] = np.arange(n, dtype=np.int64)
    train_end = n_test + min(n - n_test, RiskStage().max_train_rows + suppressed)
    bounds = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
    return [
        SplitPlan(ranks[bounds[i] : bounds[i + 1]], n_test, train_end) for i in range(len(rows))
    ]


def _utility(
    policy: Policy,
    parts: list[Prepared],
    released: list[Released],
    offsets: np.ndarray,
    classes: Any,
    anonymize: dict[str, Any],
) -> dict[str, Any]:
    """The utility section (:func:`veil.risk._stage.utility_section`) on the merged
    aggregate of input and release, and ML utility on the split's rows: the local
    engine's figures."""
    import pandas as pd

    from veil.engine._table_parts import ORIG, RANK
    from veil.risk._stage import RiskStage, utility_section
    from veil.utility._ml import MLRows

    pieces = [r.utility for r in released if r.utility is not None]
    cols = pieces[0].columns if pieces else []
    both, _ = _merge([u.agg for u in pieces], offsets, [*(ORIG + c for c in cols), *cols, SUP])
    order = [c for c in parts[0].columns if c in cols]  # the input's column order
    original = pd.DataFrame({c: both[ORIG + c] for c in order})
    rel = both[cols].reset_index(drop=True)
    test, _ = _merge([u.test for u in pieces], np.zeros(len(pieces), np.int64), cols)
    train = pd.concat([u.train for u in pieces], ignore_index=True)
    train = train.sort_values(RANK, kind="stable").reset_index(drop=True)
    stage = RiskStage()
    first = train.iloc[: stage.max_train_rows]
    kept = train.loc[~train[SUP].to_numpy(dtype=bool)].iloc[: stage.max_train_rows]
    ml_rows = MLRows(
        rows=int(both[N].sum()),
        train_original=pd.DataFrame({c: first[ORIG + c] for c in order}),
        train_released=kept[cols].reset_index(drop=True),
        test=test[order],
        test_weights=test[N].to_numpy(),
        values=original,
    )
    return utility_section(
        policy,
        original,
        rel,
        classes=classes,
        suppressed=both[SUP].to_numpy(dtype=bool),
        anonymize=anonymize,
        ml=stage.ml,
        max_train_rows=stage.max_train_rows,
        weights=both[N].to_numpy(),
        ml_rows=ml_rows,
    )


def _risk(
    policy: Policy,
    part_plan: PartPlan,
    released: list[Released],
    offsets: np.ndarray,
    anonymize: dict[str, Any],
) -> tuple[dict[str, Any], Any]:
    """The risk stage's section (:func:`veil.risk._stage.risk_section`) on the weighted
    distinct rows of the release, and its classes: the local engine's figures, from
    aggregates only."""
    from veil.engine._table_parts import RAW, REF, risk_columns
    from veil.risk._stage import RiskStage, risk_section

    # the columns as written: where every partition was read with them (CSV)
    raw = [s for s in policy.sensitive if all(RAW + s in r.risk.columns for r in released)]
    cols = risk_columns(part_plan, raw)
    agg, _ = _merge([r.risk[[*cols, N, FIRST]] for r in released], offsets, cols)
    sens = list(policy.sensitive)
    rel = agg[[*part_plan.qis, *sens]]
    reference = rel.assign(**{s: agg[REF + s].to_numpy() for s in sens})
    # as the local stage: the text as written where the release kept the input's values
    swap = {
        s: agg[RAW + s].to_numpy() for s in raw if all(r.unchanged.get(s, False) for r in released)
    }
    values = rel.assign(**swap) if swap else rel
    if swap:
        reference = reference.assign(**swap)
    return risk_section(
        policy,
        rel,
        suppressed=agg[SUP].to_numpy(dtype=bool),
        values=values,
        reference=reference,
        anonymize=anonymize,
        threshold=RiskStage().threshold,
        weights=agg[N].to_numpy(),
    )


def _recheck(recheck: pd.DataFrame, config: Any, sens_h: dict[str, Any], n: int) -> None:
    """The independent re-check (:func:`veil.tabular._verify.verify_release`) on the
    aggregate of the released partitions: released classes, sensitive values, suppression."""
    from types import SimpleNamespace

    from veil.tabular._verify import verify_release

    if int(recheck[N].sum()) != n:
        raise VeilError(
            "the released partitions do not hold one row per input record; nothing was written",
            hint="report this as a bug with the policy (not the data)",
        )
    rel = SimpleNamespace(
        data=recheck, suppressed=recheck[SUP].to_numpy(dtype=bool), transformation=None
    )
    verify_release(
        recheck,
        rel,  # type: ignore[arg-type]
        config,
        sensitive_hierarchies=sens_h,
        weights=recheck[N].to_numpy(),
    )


def _report(
    policy: Policy,
    parts: list[Prepared],
    released: list[Released],
    recheck: pd.DataFrame,
    stage_report: dict[str, Any],
    artifacts: dict[str, Any],
    timings: dict[str, float],
    stages: list[str],
    n: int,
) -> dict[str, Any]:
    """report.json from the aggregates, with the local engine's builder."""
    import pandas as pd

    from veil.audit import check_release
    from veil.pipeline import RunContext
    from veil.report import build_report
    from veil.report._build import ReleaseFacts
    from veil.report._warnings import near_unique_columns_counted, recomputable_quasi_identifiers

    original_cols = parts[0].columns if parts else []
    released_cols = released[0].columns if released else []
    generalized = [q for q in policy.quasi_identifiers if any(q in r.generalized for r in released)]
    distinct: dict[str, set[Any]] = {}
    non_missing: dict[str, int] = {}
    for r in released:
        for c, values in r.distinct.items():
            distinct.setdefault(c, set()).update(values)
            non_missing[c] = non_missing.get(c, 0) + r.non_missing[c]
    warnings = near_unique_columns_counted(
        {c: (len(distinct[c]), non_missing[c]) for c in distinct}
    )
    if generalized:
        numeric = [
            c
            for c in released_cols
            if c not in policy.quasi_identifiers and all(c in r.numeric for r in released)
        ]
        orig = pd.concat([r.sample_original for r in released], ignore_index=True)
        rel = pd.concat([r.sample_released for r in released], ignore_index=True)
        warnings += recomputable_quasi_identifiers(
            orig, rel, generalized, numeric, sample_rows=max(len(orig), 1)
        )
    sup = recheck[SUP].to_numpy(dtype=bool)
    facts = ReleaseFacts(
        input_rows=n,
        released_rows=n,
        suppressed_rows=int(recheck[N].to_numpy()[sup].sum()),
        generalized=generalized,
        warnings=warnings,
    )
    ctx = RunContext(
        policy=policy,
        original=pd.DataFrame(columns=original_cols),
        data=pd.DataFrame(columns=released_cols),
        report=stage_report,
        artifacts=artifacts,
    )
    t0 = time.perf_counter()
    check_release(ctx)  # no identifier column (check_ray_policy): counts the scan's setup
    timings["leak_scan"] = round(time.perf_counter() - t0, 4)
    return build_report(ctx, timings=timings, stages=stages, facts=facts)


def _write(
    ray: Any,
    policy: Policy,
    out_dir: str | Path | None,
    frames: list[Any],
    released: list[Released],
    report: dict[str, Any],
    artifacts: dict[str, Any],
    rels: list[Path] | None,
) -> dict[str, Path]:
    """The release (one file, partitions in path order; or with ``output.partitioned`` a
    folder of one file per input partition) and the reports, as a set."""
    from veil.io import atomic_dir
    from veil.pipeline import _out_dir, _output_paths, _put_reports

    out = _out_dir(policy, out_dir)
    fmt = policy.output.format
    outputs = _output_paths(policy, out, artifacts)
    report["outputs"] = {k: str(v) for k, v in outputs.items()}
    with atomic_dir(out) as stage:
        if rels is None:
            _write_table(ray, frames, stage / outputs["table"].name, fmt)
        else:
            folder = stage / policy.output.name
            schema: list[Any] = []  # the first partition's (Parquet), kept across files
            for ref, rel in zip(frames, rels, strict=True):
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                _write_table(ray, [ref], folder / rel, fmt, schema, label=str(rel))
        _put_reports(stage, policy, report, artifacts)
    return outputs


def _write_table(
    ray: Any,
    frames: list[Any],
    path: Path,
    fmt: str,
    first: list[Any] | None = None,
    *,
    label: str | None = None,
) -> None:
    """Fetch the released partitions one at a time, in order, into one file; Parquet
    partitions are cast to the first one's types (``first`` carries them across calls)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer: Any = None
    first = [] if first is None else first
    schema: Any = first[0] if first else None
    with path.open("wb") as fh:
        for i, ref in enumerate(frames):
            df = _ray_get(ray, ref)
            if fmt == "csv":
                fh.write(df.to_csv(index=False, header=i == 0).encode("utf-8"))
            elif fmt == "jsonl":
                if len(df):
                    text = df.to_json(orient="records", lines=True, date_format="iso")
                    fh.write(text.encode("utf-8"))
                    if not text.endswith("\n"):
                        fh.write(b"\n")
            else:
                table = pa.Table.from_pandas(df, preserve_index=False)
                if schema is None:
                    schema = table.schema
                    first.append(schema)
                if writer is None:
                    writer = pq.ParquetWriter(fh, schema)
                if not table.schema.equals(schema):
                    try:
                        table = table.cast(schema)
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
                        raise SchemaError(
                            f"released partition {label or i + 1} has other column types than "
                            "the first",
                            hint="give every partition the same column types, or set "
                            "output.format: csv",
                        ) from None
                writer.write_table(table)
        if writer is not None:
            writer.close()
