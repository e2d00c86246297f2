"""Run a policy end to end: read, transform, protect, verify, write, report.

The pipeline is a sequence of stages. Each stage lives in the package that owns it and is
loaded only when the policy asks for it, so ``import veil`` stays light and a missing
optional extra fails with a message naming it. A policy that asks for a stage this version
does not provide fails before any data is read.

Stages, in order::

    transforms  field transforms of identifiers and other columns   veil.tabular
    text        PII detection and replacement in text columns       veil.text
    anonymize   k-anonymity / l-diversity / t-closeness search      veil.tabular
    dp          differentially private statistics (budget ledger)   veil.dp
    synth       synthetic data                                      veil.synth
    risk        re-identification risk and verification (measures)  veil.risk

Then, in every run, the release leak scan (:mod:`veil.audit`) searches every original
identifier value in every released table; a hit the policy does not allow fails the run
(exit 4) before anything is written.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from veil._errors import (
    InputError,
    PolicyError,
    SchemaError,
    StageUnavailableError,
    column_names,
)
from veil._progress import NullProgress, Progress
from veil.policy._locate import located_errors

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import Policy

__all__ = ["RunContext", "RunResult", "Stage", "run_policy", "stage_names"]

log = logging.getLogger(__name__)

# name -> "module:Class". Modules are imported only when a policy wants the stage.
_STAGES: dict[str, str] = {
    "transforms": "veil.tabular._stage:TransformStage",
    "text": "veil.text.redaction._stage:TextStage",
    "anonymize": "veil.tabular._anonymize_stage:AnonymizeStage",
    "dp": "veil.dp._stage:DPStage",
    "synth": "veil.synth._stage:SynthStage",
    "risk": "veil.risk._stage:RiskStage",
}
# Stages that measure rather than protect: skipped (not an error) when not installed.
_OPTIONAL = {"risk"}


@dataclass
class RunContext:
    """What stages read and write while a policy runs."""

    policy: Policy
    original: pd.DataFrame  # the input as read, never modified
    data: pd.DataFrame  # the working table, replaced by each stage
    progress: Progress = field(default_factory=NullProgress)
    report: dict[str, Any] = field(default_factory=dict)  # stage name -> JSON-able section
    artifacts: dict[str, Any] = field(default_factory=dict)  # file name -> bytes | str
    suppressed: Any = None  # boolean mask of suppressed rows, if a stage suppresses
    # columns some stage asked to see exactly as written in the CSV (Stage.raw_columns), in
    # the rows of ``original``; None when the input was not read from a CSV file
    raw: pd.DataFrame | None = None
    # the text of CSV columns whose numeric parse rewrites it ("01", "3.50"), in the rows of
    # ``original``; cells the stages leave unchanged are released as this text (veil.io._exact)
    exact_text: pd.DataFrame | None = None


class Stage(Protocol):
    """A step of ``veil run``."""

    name: ClassVar[str]

    def wanted(self, policy: Policy) -> bool: ...

    def check(self, policy: Policy) -> None:
        """Validate everything possible before data is read (keys, files, dependencies)."""

    def run(self, ctx: RunContext) -> None: ...

    # Optional: ``raw_columns(policy) -> list[str]``, the columns the stage needs as written
    # in a CSV input (text, no missing-value conversion); the pipeline puts them in ctx.raw.


def stage_names() -> list[str]:
    return list(_STAGES)


def _load_stage(name: str) -> Stage | None:
    module_name, _, cls_name = _STAGES[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    cls = getattr(module, cls_name)
    stage: Stage = cls()
    return stage


_REQUEST = {
    "text": "columns with role: text",
    "anonymize": "privacy models (privacy:)",
    "dp": "differentially private statistics (dp:)",
    "synth": "synthetic data (synth:)",
}


def _wanted_by_policy(name: str, policy: Policy) -> bool:
    """Whether the policy asks for a stage, decided without importing the stage."""
    if name == "transforms":
        return True
    if name == "text":
        return bool(policy.text_columns)
    if name == "anonymize":
        return policy.privacy.any_model
    if name == "dp":
        return policy.dp is not None
    if name == "synth":
        return policy.synth is not None
    return True


def plan(
    policy: Policy,
    *,
    only: Collection[str] | None = None,
    stages_given: Mapping[str, Stage] | None = None,
) -> list[Stage]:
    """The stages this policy needs, checked; fails early if one is unavailable.

    ``only`` restricts the run to those stage names (``veil anonymize`` runs transforms and
    anonymize); ``stages_given`` supplies configured instances instead of the defaults.
    """
    stages: list[Stage] = []
    for name in _STAGES:
        if not _wanted_by_policy(name, policy) or (only is not None and name not in only):
            continue
        given = (stages_given or {}).get(name)
        stage = given if given is not None else _load_stage(name)
        if stage is None:
            if name in _OPTIONAL:
                continue
            raise StageUnavailableError(
                f"the policy asks for {_REQUEST.get(name, name)}, but this version of veil "
                f"has no '{name}' stage yet",
                hint="remove that part of the policy, or upgrade veil",
            )
        if stage.wanted(policy):
            stages.append(stage)
    # Check only once every stage is known to exist: a missing stage is the first thing to say.
    with located_errors(policy):  # a key or hierarchy error at the policy's file and line
        for stage in stages:
            stage.check(policy)
    return stages


@dataclass
class RunResult:
    """What ``veil run`` released and measured."""

    data: pd.DataFrame
    report: dict[str, Any]
    outputs: dict[str, Path]
    seconds: float


def text_columns(policy: Policy) -> list[str]:
    """Columns read from CSV as text: identifiers (leading zeros matter) and free text."""
    return [n for n, c in policy.columns.items() if c.role.value in ("identifier", "text")]


def _read_raw(policy: Policy, stages: list[Stage], data: pd.DataFrame) -> pd.DataFrame | None:
    """The columns stages want as written, read again from a CSV input (else None)."""
    from veil.io import infer_format, read_table

    wanted: list[str] = []
    for stage in stages:
        get = getattr(stage, "raw_columns", None)
        if get is not None:
            wanted += [c for c in get(policy) if c in data.columns and c not in wanted]
    path = policy.data.path
    if not wanted or path is None:
        return None
    if infer_format(policy.resolve(path), policy.data.format) != "csv":
        return None
    raw = read_table(policy.data, base_dir=policy.base_dir, raw_columns=wanted, columns=wanted)
    return raw if len(raw) == len(data) else None


def _reconcile_columns(policy: Policy, df: pd.DataFrame) -> pd.DataFrame:
    listed = set(policy.columns)
    present = [str(c) for c in df.columns]
    missing = [c for c in policy.columns if c not in present]
    if missing:
        raise SchemaError(
            f"the policy lists {len(missing)} column(s) not in the data: {', '.join(missing)}",
            hint=f"the data has: {column_names(present)}",
        )
    unlisted = [c for c in present if c not in listed]
    if unlisted:
        if policy.unlisted_columns == "error":
            raise SchemaError(
                f"the data has {len(unlisted)} column(s) the policy does not list: "
                f"{column_names(unlisted, 20)}",
                hint="list them under columns:, or set unlisted_columns: drop (or keep)",
            )
        if policy.unlisted_columns == "drop":
            df = df.drop(columns=unlisted)
    return df


def run_policy(
    policy: Policy,
    *,
    data: pd.DataFrame | None = None,
    out_dir: str | Path | None = None,
    progress: Progress | None = None,
    write: bool = True,
    only: Collection[str] | None = None,
    stages_given: Mapping[str, Stage] | None = None,
) -> RunResult:
    """Apply a policy: release a protected table and its report.

    Parameters
    ----------
    policy
        A validated policy (see :func:`veil.policy.load_policy`).
    data
        The input table; read from ``policy.data`` when not given.
    out_dir
        Where to write; ``policy.output.path`` (relative to the policy file) when not given.
    write
        Write the release and report. Nothing is written unless every stage and the
        verification succeed; the files are replaced as a set (all new or, on any
        error, all old; see :func:`veil.io.atomic_dir`).

    Examples
    --------
    >>> from veil import load_policy, run_policy
    >>> result = run_policy(load_policy("policy.yaml"))  # doctest: +SKIP
    >>> result.outputs["report_json"]  # doctest: +SKIP
    PosixPath('out/report.json')
    """
    from veil.io import read_table

    started = time.perf_counter()
    progress = progress or NullProgress()
    stages = plan(policy, only=only, stages_given=stages_given)  # fail early, before reading
    if write:  # what a killed earlier run left there (partial copies of identifiers) goes first
        from veil.io._atomic import sweep_stale

        sweep_stale(_out_dir(policy, out_dir))
    raw = exact = None
    if data is None:
        from veil.io._exact import read_exact_text

        with progress.task("reading input"):
            data = read_table(
                policy.data, base_dir=policy.base_dir, text_columns=text_columns(policy)
            )
            raw = _read_raw(policy, stages, data)
            exact = read_exact_text(policy, data)
    data = _reconcile_columns(policy, data)
    ctx = RunContext(
        policy=policy, original=data, data=data.copy(deep=False), progress=progress, raw=raw
    )
    ctx.exact_text = exact
    timings: dict[str, float] = {}
    for stage in stages:
        t0 = time.perf_counter()
        log.info("stage %s", stage.name)
        with located_errors(policy):
            stage.run(ctx)
        timings[stage.name] = round(time.perf_counter() - t0, 4)
    from veil.audit import check_release

    t0 = time.perf_counter()
    check_release(ctx)  # any original identifier left in the release: exit 4, nothing written
    timings["leak_scan"] = round(time.perf_counter() - t0, 4)

    from veil.report import build_report

    report = build_report(ctx, timings=timings, stages=[s.name for s in stages])
    from veil.io._exact import restore_exact_text

    ctx.data = restore_exact_text(ctx.data, ctx.original, ctx.exact_text)
    outputs: dict[str, Path] = {}
    if write:
        outputs = _write_outputs(ctx, report, out_dir)
        report["outputs"] = {k: str(v) for k, v in outputs.items()}
    return RunResult(
        data=ctx.data, report=report, outputs=outputs, seconds=time.perf_counter() - started
    )


def _out_dir(policy: Policy, out_dir: str | Path | None) -> Path:
    return Path(out_dir) if out_dir is not None else policy.resolve(policy.output.path)


def _write_outputs(
    ctx: RunContext, report: dict[str, Any], out_dir: str | Path | None
) -> dict[str, Path]:
    from veil.io import atomic_dir, write_table

    policy = ctx.policy
    out = _out_dir(policy, out_dir)
    fmt = policy.output.format
    table_name = f"{policy.output.name}.{fmt}"
    outputs = _output_paths(policy, out, ctx.artifacts)
    report["outputs"] = {k: str(v) for k, v in outputs.items()}
    rel = None
    if policy.output.partitioned:
        # the Ray engine's layout (veil.engine._partitioned) for one input file
        assert policy.data.path is not None
        rel = policy.resolve(policy.data.path).with_suffix(f".{fmt}").name
        _only_partition(out / policy.output.name, rel)
    if policy.output.url is not None:
        from veil.io import write_sql

        assert policy.output.table is not None
        write_sql(
            ctx.data, policy.output.url, policy.output.table, if_exists=policy.output.if_exists
        )
        report["outputs"]["sql_table"] = policy.output.table
    with atomic_dir(out) as stage:
        if rel is not None:
            (stage / policy.output.name).mkdir()
            write_table(ctx.data, stage / policy.output.name / rel, format=fmt)
        else:
            write_table(ctx.data, stage / table_name, format=fmt)
        _put_reports(stage, policy, report, ctx.artifacts)
    return outputs


def _only_partition(folder: Path, name: str) -> None:
    """Refuse a partitioned release's folder that holds other files than ``name``: they
    would sit beside the new release as if they were part of it."""
    others = [
        f
        for f in (folder.rglob("*") if folder.is_dir() else [])
        if f.is_file()
        and not any(p.startswith((".", "_")) for p in f.relative_to(folder).parts)
        and f.relative_to(folder).as_posix() != name
    ]
    if others:
        raise InputError(
            f"the output folder {folder} holds {len(others)} data file(s) this run would not "
            f"write (e.g. {others[0].relative_to(folder)})",
            hint="choose a new or empty folder, or remove the old partitions first",
        )


def _output_paths(policy: Policy, out: Path, artifacts: dict[str, Any]) -> dict[str, Path]:
    """Where the release, the reports the policy asks for and the artifacts go in ``out``
    (:class:`PolicyError` for an artifact that would overwrite the release or a report)."""
    table_name = f"{policy.output.name}.{policy.output.format}"
    if policy.output.partitioned:  # a folder of partitions (veil.engine._partitioned)
        table_name = policy.output.name
    outputs: dict[str, Path] = {"table": out / table_name}
    if "json" in policy.output.report:
        outputs["report_json"] = out / "report.json"
    if "html" in policy.output.report:
        outputs["report_html"] = out / "report.html"
    for name in artifacts:
        if name in {table_name, "report.json", "report.html"}:
            raise PolicyError(
                f"the release and another output would both be written as {name}",
                key="output.name",
                hint="choose another output.name",
            )
        outputs[f"artifact:{name}"] = out / name
    return outputs


def _put_reports(
    stage: Path, policy: Policy, report: dict[str, Any], artifacts: dict[str, Any]
) -> None:
    """Write the reports the policy asks for and the artifacts into the staged folder."""
    import json

    from veil.report import render_html

    if "json" in policy.output.report:
        _put(stage / "report.json", json.dumps(report, indent=2, default=str) + "\n")
    if "html" in policy.output.report:
        _put(stage / "report.html", render_html(report))
    for name, content in artifacts.items():
        _put(stage / name, content if isinstance(content, bytes) else str(content))


def _put(target: Path, content: str | bytes) -> None:
    """Write one staged file; an OS error that names no file names this one."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror, str(target)) from None
