"""What the Ray engine does to one partition of a table: plain pandas, run inside Ray tasks.

Each function here reads one partition file exactly as the local engine reads its input
(:func:`veil.io.read_table` with the policy's options, the columns the search reads as
written, the text of rewritten numbers), applies the field transforms, and reduces the
partition to small, mergeable pieces: the distinct rows of the quasi-identifiers and
sensitive columns with their counts and first position (:func:`prepare_part`), or, once the
driver has chosen the transformation, the released partition with the aggregates the
independent re-check and the report need, the risk and utility sections' included
(:func:`release_part`). No function raises a
veil error out of a Ray task: it returns ``_Failed`` (message and hint, data-free), so the
driver raises it again as it is, naming the partition.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import VeilError

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import Policy

__all__ = ["PartPlan", "ReleaseMap", "SplitPlan", "prepare_part", "release_part"]

N = "__veil_n"
FIRST = "__veil_first"
SUP = "__veil_suppressed"
REF = "__veil_input:"  # + a sensitive column: its value in the input (the t reference)
RAW = "__veil_raw:"  # + a sensitive column: its value as written in the CSV
ORIG = "__veil_orig:"  # + a compared column: its value in the input (the utility aggregate)
RANK = "__veil_rank"  # a row's position in ML utility's seeded split of all rows

#: tests only: seconds each partition task sleeps first, read from the worker's environment
#: (on a cluster: the node's), so that a test can kill a worker mid-run; unset, one lookup
PAUSE_ENV = "VEIL_TEST_RAY_PART_PAUSE"


def _test_pause() -> None:
    pause = float(os.environ.get(PAUSE_ENV) or 0)
    if pause > 0:
        time.sleep(pause)


@dataclass(frozen=True)
class PartPlan:
    """What every task needs: the policy, the columns of the aggregates, and the field
    transformers the driver built (their keys resolved there: a worker on another node
    need not have them in its environment; they cross the cluster's network, as the
    text engine's operators do)."""

    policy: Policy
    kind: str  # csv | parquet | jsonl
    qis: tuple[str, ...]
    sensitive: tuple[str, ...]  # sensitive columns not among the quasi-identifiers
    transformers: dict[str, Any] | None = None

    @property
    def cols(self) -> list[str]:
        return [*self.qis, *self.sensitive]


@dataclass(frozen=True)
class Failed:
    """A veil error raised in a task, carried back as data (never the exception's chain)."""

    kind: str
    message: str
    hint: str | None


@dataclass
class Prepared:
    """One partition, reduced: its size, columns, transform counts and aggregate."""

    rows: int
    columns: list[str]
    transforms: dict[str, Any]
    artifacts: dict[str, Any]
    agg: pd.DataFrame  # distinct rows of plan.cols, with N and FIRST (local positions)


@dataclass(frozen=True)
class ReleaseMap:
    """The chosen release of every distinct row of the aggregate (broadcast to the tasks)."""

    codes: dict[str, np.ndarray]  # quasi-identifier -> category code of each global row
    categories: dict[str, list[Any]]  # quasi-identifier -> categories of the released column
    suppressed: np.ndarray  # bool per global row


@dataclass(frozen=True)
class SplitPlan:
    """One partition's rows in ML utility's split of the whole table (:func:`split_rows`):
    the rows ranked below ``n_test`` are test rows, those up to ``train_end`` the training
    rows that may be read (the first ``max_train_rows``, and as many again as are
    suppressed at most)."""

    ranks: np.ndarray  # the split position of each row of the partition
    n_test: int
    train_end: int


@dataclass
class Utility:
    """One released partition's share of the utility section (see :func:`_utility_parts`)."""

    columns: list[str]  # the compared columns, in the policy's order
    agg: pd.DataFrame  # distinct (ORIG + input values, released values, SUP), N, FIRST
    test: pd.DataFrame  # distinct test rows' input values, N, FIRST (the smallest rank)
    train: pd.DataFrame  # the training rows that may be read: ORIG + input, released, SUP, RANK


@dataclass
class Released:
    """One released partition's aggregates (the frame itself travels apart)."""

    rows: int
    columns: list[str]
    numeric: list[str]  # released columns of a numeric (not boolean) dtype here
    generalized: list[str]  # quasi-identifiers whose released value differs from the input
    recheck: pd.DataFrame  # distinct (released QIs, sensitive as searched, SUP), N, FIRST
    risk: pd.DataFrame  # distinct (released QIs, every sensitive as released, REF, RAW, SUP)
    unchanged: dict[str, bool]  # sensitive column -> released as in the input, every row
    distinct: dict[str, list[Any]]  # as-is column -> its distinct non-missing values
    non_missing: dict[str, int]  # as-is column -> its non-missing cells
    sample_original: pd.DataFrame  # the sampled rows' input quasi-identifiers
    sample_released: pd.DataFrame  # the sampled rows' released numeric columns
    utility: Utility | None = None


def _policy_for(plan: PartPlan, path: Path) -> Policy:
    """The policy with this partition as its input (read as the local engine reads a file)."""
    data = plan.policy.data.model_copy(update={"path": path, "format": plan.kind})
    return plan.policy.model_copy(update={"data": data})


def _read(plan: PartPlan, path: Path) -> tuple[Policy, Any, Any, Any]:
    """(policy, input as read, columns as written, text of rewritten numbers)."""
    from veil.io import read_table
    from veil.io._exact import read_exact_text
    from veil.pipeline import _read_raw, _reconcile_columns, text_columns
    from veil.tabular._anonymize_stage import AnonymizeStage

    policy = _policy_for(plan, path)
    data = read_table(policy.data, text_columns=text_columns(policy))
    raw = _read_raw(policy, [AnonymizeStage()], data)  # type: ignore[list-item]
    exact = read_exact_text(policy, data)
    return policy, _reconcile_columns(policy, data), raw, exact


def _transformed(
    plan: PartPlan, policy: Policy, data: Any
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    from veil.pipeline import RunContext
    from veil.tabular._stage import TransformStage

    ctx = RunContext(policy=policy, original=data, data=data.copy(deep=False))
    stage = TransformStage()
    stage._built = plan.transformers
    stage.run(ctx)
    return ctx.data, ctx.report.get("transforms", {}), ctx.artifacts


def _searched(plan: PartPlan, data: Any, raw: Any) -> Any:
    """The aggregate's columns as the search reads them (as written, where the pipeline
    swaps them in: see :meth:`veil.tabular._anonymize_stage.AnonymizeStage.run`)."""
    from veil.tabular._anonymize import raw_columns

    view = data[plan.cols].copy(deep=False)
    if raw is not None and len(raw) == len(data):
        for c in raw_columns(plan.policy):
            if c in raw.columns and c in view.columns:
                view[c] = raw[c].to_numpy()
    return view


def groups(view: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Group id of each row (in order of first appearance) and the distinct rows with their
    count (``N``) and first position (``FIRST``)."""
    n = len(view)
    if n == 0:
        agg = view[cols].iloc[:0].copy()
        agg[N] = np.zeros(0, dtype=np.int64)
        agg[FIRST] = np.zeros(0, dtype=np.int64)
        return np.zeros(0, dtype=np.int64), agg
    ids = view.groupby(cols, dropna=False, sort=False, observed=True).ngroup().to_numpy()
    ids = ids.astype(np.int64, copy=False)
    _, first = np.unique(ids, return_index=True)
    agg = view.iloc[first][cols].reset_index(drop=True)
    agg[N] = np.bincount(ids).astype(np.int64)
    agg[FIRST] = first.astype(np.int64)
    return ids, agg


def risk_columns(plan: PartPlan, raw_columns: list[str]) -> list[str]:
    """The columns of the risk stage's aggregate (:func:`_risk_aggregate`)."""
    sens = list(plan.policy.sensitive)
    return [
        *plan.qis,
        *sens,
        *(REF + s for s in sens),
        *(RAW + s for s in sens if s in raw_columns),
        SUP,
    ]


def _risk_aggregate(
    plan: PartPlan, out: Any, original: Any, raw: Any, sup: np.ndarray
) -> tuple[Any, dict[str, bool]]:
    """What the risk stage reads of the released partition, as weighted distinct rows: the
    released quasi-identifiers and sensitive columns, each sensitive column's input value
    (the t-closeness reference) and its text as written (where the CSV reader kept it),
    and the suppression flag; and per sensitive column whether the release kept it as the
    input spells it in every row (see :func:`veil.risk._stage._as_written`)."""
    import pandas as pd

    from veil.risk._requirements import spelled

    sens = list(plan.policy.sensitive)
    raw_cols = [] if raw is None or len(raw) != len(out) else [str(c) for c in raw.columns]
    view = pd.DataFrame({q: out[q] for q in plan.qis})
    for s in sens:
        view[s] = out[s].to_numpy()
    for s in sens:
        view[REF + s] = original[s].to_numpy()
    for s in sens:
        if s in raw_cols:
            view[RAW + s] = raw[s].to_numpy()
    view[SUP] = sup
    unchanged = {
        s: bool((spelled(out[s]) == spelled(original[s])).all()) for s in sens if s in raw_cols
    }
    _, agg = groups(view, risk_columns(plan, raw_cols))
    return agg, unchanged


def _utility_parts(
    plan: PartPlan, out: Any, original: Any, sup: np.ndarray, split: SplitPlan
) -> Utility:
    """What the utility section reads of the released partition, as mergeable pieces: the
    distinct rows of the compared columns' input and released values with the suppression
    flag (counted); the test rows of ML utility's split as distinct input rows (counted,
    first by rank); and the few training rows the models may read, whole."""
    import pandas as pd

    from veil.risk._stage import utility_columns

    cols = utility_columns(plan.policy, out, original)
    # by position, dtypes kept (a released quasi-identifier stays categorical)
    both = pd.DataFrame({ORIG + c: original[c].array for c in cols})
    for c in cols:
        both[c] = out[c].array
    both[SUP] = sup
    _, agg = groups(both, [*(ORIG + c for c in cols), *cols, SUP])
    ranks = np.asarray(split.ranks, dtype=np.int64)
    is_test = ranks < split.n_test
    tested = original.loc[is_test, cols].reset_index(drop=True)
    ids, test = groups(tested, cols)
    first = np.full(len(test), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, ids, ranks[is_test])
    test[FIRST] = first
    readable = ~is_test & (ranks < split.train_end)
    train = both.loc[readable].reset_index(drop=True)
    train[RANK] = ranks[readable]
    return Utility(cols, agg, test, train)


def _guard(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except VeilError as exc:
        return Failed(type(exc).__name__, exc.message, exc.hint)


def prepare_part(plan: PartPlan, path: str) -> Prepared | Failed:
    """Pass 1 on one partition: read, transform, aggregate."""
    result: Prepared | Failed = _guard(_prepare, plan, Path(path))
    return result


def _prepare(plan: PartPlan, path: Path) -> Prepared:
    _test_pause()
    policy, data, raw, _ = _read(plan, path)
    released, transforms, artifacts = _transformed(plan, policy, data)
    _, agg = groups(_searched(plan, released, raw), plan.cols)
    return Prepared(len(data), [str(c) for c in data.columns], transforms, artifacts, agg)


def release_part(
    plan: PartPlan,
    path: str,
    to_global: np.ndarray,
    release: ReleaseMap,
    sample: np.ndarray,
    as_is: list[str],
    split: SplitPlan | None = None,
) -> tuple[Released | Failed, Any]:
    """Pass 2 on one partition: the released frame, and its aggregates.

    ``to_global`` maps the partition's groups (as :func:`groups` numbers them, the same
    as in pass 1) to the rows of the merged aggregate; ``sample`` holds the positions, in
    this partition, of the rows the report's recomputation check samples; ``split``, where
    the utility section is measured, the partition's rows in ML utility's split.
    """
    try:
        return _release(plan, Path(path), to_global, release, sample, as_is, split)
    except VeilError as exc:
        return Failed(type(exc).__name__, exc.message, exc.hint), None


def _release(
    plan: PartPlan,
    path: Path,
    to_global: np.ndarray,
    release: ReleaseMap,
    sample: np.ndarray,
    as_is: list[str],
    split: SplitPlan | None,
) -> tuple[Released, Any]:
    import pandas as pd

    from veil.io._exact import restore_exact_text
    from veil.report._warnings import _numbers

    _test_pause()
    policy, original, raw, exact = _read(plan, path)
    data, _, _ = _transformed(plan, policy, original)
    view = _searched(plan, data, raw)
    ids, _ = groups(view, plan.cols)
    rows = to_global[ids] if len(ids) else np.zeros(0, dtype=np.int64)
    out = data.copy(deep=False)
    for q in plan.qis:
        out[q] = pd.Categorical.from_codes(
            release.codes[q][rows], categories=pd.Index(release.categories[q])
        )
    sup = release.suppressed[rows]
    keep = ~sup
    generalized = [
        q
        for q in plan.qis
        if q in original.columns
        and bool(
            (out[q].astype(str).to_numpy()[keep] != original[q].astype(str).to_numpy()[keep]).any()
        )
    ]
    check = pd.DataFrame({q: out[q] for q in plan.qis})
    for s in plan.sensitive:
        check[s] = view[s].to_numpy()
    check[SUP] = sup
    _, recheck = groups(check, [*plan.cols, SUP])
    risk, unchanged = _risk_aggregate(plan, out, original, raw, sup)
    present = [c for c in as_is if c in out.columns]
    distinct = {c: pd.unique(out[c].dropna()).tolist() for c in present}
    non_missing = {c: int(out[c].notna().sum()) for c in present}
    numeric = [
        str(c)
        for c in out.columns
        if pd.api.types.is_numeric_dtype(out[c]) and not pd.api.types.is_bool_dtype(out[c])
    ]
    others = [str(c) for c in out.columns if str(c) not in plan.qis]
    sample_released = pd.DataFrame(
        {c: _numbers(out[c].iloc[sample]) for c in others if c in numeric}
    )
    sample_original = pd.DataFrame(
        {q: _numbers(original[q].iloc[sample]) for q in plan.qis if q in original.columns}
    )
    facts = Released(
        rows=len(out),
        columns=[str(c) for c in out.columns],
        numeric=numeric,
        generalized=generalized,
        recheck=recheck,
        risk=risk,
        unchanged=unchanged,
        distinct=distinct,
        non_missing=non_missing,
        sample_original=sample_original,
        sample_released=sample_released,
        utility=None if split is None else _utility_parts(plan, out, original, sup, split),
    )
    return facts, restore_exact_text(out, original, exact)
