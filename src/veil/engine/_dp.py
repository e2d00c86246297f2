"""``veil dp query --engine ray``: DP statistics over partitions, the noise drawn once.

Each partition is read by a Ray task (as the local engine reads a table) and reduced to
its sufficient statistic for every query: the exact aggregate the statistic's own OpenDP
transformation gives on that partition (a count, histogram cells, group counts, an integer
sum; :attr:`veil.dp._plans._Plan.partial`). The driver adds them up and hands the sum to
the local engine's plan as its exact aggregate (:func:`veil.dp._plans._plan`), so the
calibration, the noise (OpenDP's sampler, drawn once, on the driver), the interval and the
ledger (:func:`veil.dp._stats.answer_plans`: every spend recorded before any noise, one
entry per query) are the local engine's. Only aggregates reach the driver, never a row.

Contribution bounding with ``id_column``: a person's first ``max_contributions`` rows in
input order (partitions in path order) are kept, as locally. A first pass counts each
person's rows per partition; each partition then keeps a person's rows only while the
rows of earlier partitions and its own stay within the bound.

Not on Ray (refused before Ray starts): quantiles and medians (the exponential mechanism
scores every value), mean and variance (OpenDP resizes the column to a size first, which
reads rows in order), group-by counts whose keys come from the data (the threshold
mechanism), ``max_groups``, and sums of non-integer values (OpenDP's float sum is
calibrated to its own rounding; partial sums added on the driver round otherwise).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._errors import InputError, SchemaError, VeilError, column_names
from veil.engine._table_parts import Failed

if TYPE_CHECKING:
    import pandas as pd

    from veil.dp import DPAnswer
    from veil.dp._ledger import BudgetLedger
    from veil.dp._query import QuerySpec

__all__ = ["check_ray_queries", "ray_dp_query_many"]

_LOCAL = "use --engine local"


def check_ray_queries(specs: list[QuerySpec]) -> None:
    """Refuse, before Ray starts, the queries the Ray engine does not compute (exit 2)."""
    for spec in specs:
        reason = None
        if spec.stat in ("quantile", "median"):
            reason = "quantiles (the exponential mechanism scores every value)"
        elif spec.stat in ("mean", "variance"):
            reason = f"a {spec.stat} (OpenDP resizes the column to a size first)"
        elif spec.thresholded:
            reason = "a group-by count without public categories (its keys come from the data)"
        elif spec.max_groups is not None:
            reason = "max_groups (a person's first groups across partitions)"
        if reason is not None:
            raise InputError(
                f"{spec.label}: the Ray engine does not compute {reason} yet",
                hint=f"counts, histograms, group-by counts with categories and integer sums "
                f"run on Ray; {_LOCAL}",
            )


@dataclass
class _PartStats:
    """One partition, reduced: its rows, its columns' types (no row) and each query's
    sufficient statistic."""

    rows: int
    head: pd.DataFrame
    partials: list[Any]


def _read(path: str, separator: str | None, header: bool | None) -> pd.DataFrame:
    from veil.io import read_table

    return read_table(Path(path), separator=separator, header=header)


def _id_counts(
    path: str, id_columns: list[str], separator: str | None, header: bool | None
) -> dict[str, pd.Series] | Failed:
    """Pass 1 (only with ``id_column``): the rows of each person in this partition."""
    try:
        df = _read(path, separator, header)
        out = {}
        for col in id_columns:
            if col not in df.columns:
                raise InputError(f"{Path(path).name} has no column {col!r} (id_column)")
            out[col] = _keys(df[col]).value_counts(sort=False, dropna=False)
        return out
    except VeilError as exc:
        return Failed(type(exc).__name__, exc.message, exc.hint)


def _keys(ids: pd.Series) -> pd.Series:
    """Person ids as text: each partition infers its own column types (``12`` in one file
    and ``"12"`` in another are one person, as in the whole table read at once)."""
    return ids.astype("string")


def _bounded(df: pd.DataFrame, spec: QuerySpec, before: pd.Series | None) -> pd.DataFrame:
    """The partition's rows within each person's bound, counting their rows in earlier
    partitions (``before``); the plan's own bounding then keeps them all."""
    if spec.id_column is None or before is None or spec.id_column not in df.columns:
        return df
    ids = _keys(df[spec.id_column])
    rank = ids.groupby(ids, sort=False).cumcount().to_numpy()
    earlier = ids.map(before).fillna(0).to_numpy(dtype="int64")
    return df[(rank + earlier) < spec.max_contributions]


def _part_stats(
    path: str,
    specs: list[QuerySpec],
    before: list[pd.Series | None],
    separator: str | None,
    header: bool | None,
) -> tuple[_PartStats | Failed, bytes | None]:
    """Pass 2: each query's sufficient statistic on this partition (nothing noisy), and
    apart (fetched one partition at a time) the fingerprint's per-row hashes."""
    import pandas as pd

    from veil.dp._mechanisms import _opendp
    from veil.dp._plans import _plan

    try:
        df = _read(path, separator, header)
        dp = _opendp()
        partials = []
        for spec, prior in zip(specs, before, strict=True):
            plan = _plan(dp, _bounded(df, spec, prior), spec)
            if plan.partial is None:
                raise InputError(
                    f"{spec.label}: a sum of non-integer values does not run on the Ray "
                    "engine (OpenDP's float sum is calibrated to its own rounding)",
                    hint=f"give integer bounds on an integer column, or {_LOCAL}",
                )
            partials.append(plan.partial())
        hashes = pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes()
        return _PartStats(len(df), df.iloc[:0], partials), hashes
    except VeilError as exc:
        return Failed(type(exc).__name__, exc.message, exc.hint), None


def _get(ray: Any, refs: Any) -> Any:
    try:
        return ray.get(refs)
    except ray.exceptions.RayError as exc:
        cause = getattr(exc, "cause", None)
        raise VeilError(
            f"a Ray task failed ({type(cause or exc).__name__}); nothing was spent",
            hint="check that every partition is readable and the cluster's workers are "
            f"alive, then run again; {_LOCAL} names the file",
        ) from None


def _checked(results: list[Any], paths: list[str]) -> list[Any]:
    from veil import _errors

    for r, path in zip(results, paths, strict=True):
        if isinstance(r, Failed):
            cls = getattr(_errors, r.kind, None)
            if not (isinstance(cls, type) and issubclass(cls, VeilError)):
                cls = InputError
            name = Path(path).name
            raise cls(r.message if name in r.message else f"{name}: {r.message}", hint=r.hint)
    return results


def _earlier(counts: list[dict[str, pd.Series]], col: str) -> list[pd.Series | None]:
    """For each partition, each person's rows in the partitions before it."""

    out: list[pd.Series | None] = []
    running: pd.Series | None = None
    for c in counts:
        out.append(running)
        running = c[col] if running is None else running.add(c[col], fill_value=0)
    return out


def _fingerprint(ray: Any, head: pd.DataFrame, rows: int, hashes: list[Any]) -> str:
    """:func:`veil.dp.fingerprint_frame` of the partitions read as one table (the same
    value where every partition reads with the table's column types), the row hashes
    fetched one partition at a time."""
    h = hashlib.sha256()
    h.update(repr([(str(c), str(t)) for c, t in head.dtypes.items()]).encode())
    h.update(str(rows).encode())
    for ref in hashes:
        h.update(_get(ray, ref))
    return "sha256:" + h.hexdigest()


def ray_dp_query_many(
    ray: Any,
    files: list[Path],
    specs: list[QuerySpec],
    *,
    ledger: BudgetLedger | None,
    dataset: str | None,
    fingerprint: bool = True,
    who: str | None = None,
    dry_run: bool = False,
    separator: str | None = None,
    header: bool | None = None,
) -> list[DPAnswer]:
    """Answer ``specs`` on the partitions ``files`` (see the module); as
    :func:`veil.dp.dp_query_many`, one ledger entry per query.

    Raises
    ------
    InputError
        A query the Ray engine does not compute, a partition veil cannot read (named).
    SchemaError
        A partition with other columns than the first (named).
    PrivacyBudgetExceeded
        Before any noise is drawn; nothing is recorded.
    """
    import pandas as pd

    from veil.dp._mechanisms import _opendp
    from veil.dp._plans import _plan, merge_partials
    from veil.dp._stats import _check_delta, answer_plans

    check_ray_queries(specs)
    if ledger is not None and not dataset:
        raise InputError("spending from a ledger needs a dataset name", hint="pass --dataset")
    paths = [str(f) for f in files]
    id_cols = sorted({s.id_column for s in specs if s.id_column is not None})
    before: list[list[pd.Series | None]] = [[None] * len(specs) for _ in paths]
    if id_cols:
        count = ray.remote(num_cpus=1, max_retries=1)(_id_counts)
        counts = _checked(
            _get(ray, [count.remote(p, id_cols, separator, header) for p in paths]), paths
        )
        for j, spec in enumerate(specs):
            if spec.id_column is not None:
                for i, prior in enumerate(_earlier(counts, spec.id_column)):
                    before[i][j] = prior
    stats_fn = ray.remote(num_cpus=1, max_retries=1, num_returns=2)(_part_stats)
    refs = [
        stats_fn.remote(p, specs, b, separator, header) for p, b in zip(paths, before, strict=True)
    ]
    parts: list[_PartStats] = _checked(_get(ray, [r[0] for r in refs]), paths)
    first = parts[0].head
    for p, path in zip(parts, paths, strict=True):
        if list(p.head.columns) != list(first.columns):
            raise SchemaError(
                f"{Path(path).name} has other columns than {files[0].name}",
                hint=f"every partition needs the columns {column_names(first.columns)}",
            )
    head = pd.concat([p.head for p in parts], ignore_index=True)
    rows = sum(p.rows for p in parts)
    dp = _opendp()
    for spec in specs:
        _check_delta(spec, rows)
    plans = [
        _plan(dp, head, spec, exact=merge_partials([p.partials[j] for p in parts]))
        for j, spec in enumerate(specs)
    ]
    fp = _fingerprint(ray, head, rows, [r[1] for r in refs]) if fingerprint else None
    return answer_plans(
        plans, ledger=ledger, dataset=dataset, fingerprint=fp, who=who, dry_run=dry_run
    )
