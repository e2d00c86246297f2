"""The ``transforms`` stage of ``veil run``: apply each column's field transform.

:meth:`TransformStage.check` builds every transformer before any data is read, so a missing
key fails early. :meth:`TransformStage.run` reads every input from the table as it was when
the stage started (a date shift keyed on a patient id sees the real id even when that column
is itself hashed or dropped), replaces the transformed columns, removes the dropped ones, and
writes ``ctx.report["transforms"]``::

    {"columns": {"ssn": {"transform": "tokenize", "rows": 100, "missing": 2, "changed": 98},
                 "email": {"transform": "drop", "rows": 100, "missing": 0}, ...},
     "summary": {"transformed_columns": 5, "dropped_columns": 1, "untransformed_columns": 9}}

A keyed transform's entry also holds ``key_check`` (and ``tweak_check`` for a tokenize
tweak given apart): the key check value of :func:`veil._keystrength.key_check_value`, which
tells a wrong key at ``veil detokenize`` without revealing the key. The same values go to
the release's ``key_check.json`` (see :mod:`veil.tabular._keycheck`).

The section holds counts only, never a value.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from veil._errors import PolicyError, SchemaError
from veil.tabular._base import FieldTransformer
from veil.tabular._basic import KeepTransformer
from veil.tabular._keycheck import KEY_CHECK_FILE, release_key_checks
from veil.tabular._transforms import build_transformer

if TYPE_CHECKING:
    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["TransformStage", "build_policy_transformers"]

log = logging.getLogger(__name__)


def build_policy_transformers(
    policy: Policy, *, environ: dict[str, str] | None = None
) -> dict[str, FieldTransformer]:
    """Every column's transformer, keys resolved; checks columns that two transforms write.

    Raises
    ------
    KeyMissingError
        A keyed transform lacks its key (names the column, the transform and the fix).
    PolicyError
        Two transforms would write the same column (e.g. a geo pair's longitude column has a
        transform of its own).
    """
    built: dict[str, FieldTransformer] = {}
    for column, cfg in policy.columns.items():
        if cfg.transform is None:
            continue
        built[column] = build_transformer(
            cfg.transform, column=column, base_dir=policy.base_dir, environ=environ
        )
    writers: dict[str, str] = {}
    for column, t in built.items():
        if isinstance(t, KeepTransformer):
            continue
        for target in t.columns_out if t.multi_column else [column]:
            if target in writers and writers[target] != column:
                raise PolicyError(
                    f"columns {writers[target]!r} and {column!r} both transform {target!r}",
                    key=f"columns.{column}.transform",
                    hint=f"remove the transform of {target!r}; the {t.name} transform of "
                    f"{column!r} already rewrites it",
                )
            writers[target] = column
    return built


class TransformStage:
    """Pipeline stage ``transforms`` (see the module docstring)."""

    name: ClassVar[str] = "transforms"

    def __init__(self) -> None:
        self._built: dict[str, FieldTransformer] | None = None

    def wanted(self, policy: Policy) -> bool:
        return True  # it also reports which columns went through untransformed

    def check(self, policy: Policy) -> None:
        self._built = build_policy_transformers(policy)

    def run(self, ctx: RunContext) -> None:
        built = self._built if self._built is not None else build_policy_transformers(ctx.policy)
        src = ctx.data
        present = {str(c) for c in src.columns}
        for column, t in built.items():
            needed = t.columns_in if t.multi_column else [column]
            lacking = [c for c in needed if c not in present]
            if lacking:
                raise SchemaError(
                    f"the {t.name!r} transform of column {column!r} needs column(s) "
                    f"{', '.join(lacking)}, which the data lacks",
                    hint="check the column names in the policy against the data",
                )
        out = src.copy(deep=False)
        columns: dict[str, dict[str, Any]] = {}
        dropped: list[str] = []
        with ctx.progress.task("field transforms", total=len(built)) as task:
            for column, t in built.items():
                log.info("transform %s: %s", column, t.name)
                if t.multi_column:
                    frame_in = src[t.columns_in]
                    frame_out = t.fit_transform(frame_in)
                    for target in t.columns_out:
                        out[target] = frame_out[target]
                    stats = t.summarize(frame_in, frame_out)
                    extra = [c for c in t.columns_out if c != column]
                    if extra:
                        stats["also_transforms"] = ", ".join(extra)
                else:
                    before = src[column]
                    after = t.fit_transform(before)
                    if t.drops_column:
                        dropped.append(column)
                    else:
                        out[column] = after
                    stats = t.summarize(before, after)
                columns[column] = {"transform": t.name, **stats, **t.key_checks()}
                task.advance()
        if dropped:
            out = out.drop(columns=dropped)
        ctx.data = out
        written: set[str] = set()
        for column, t in built.items():
            if not t.drops_column and not isinstance(t, KeepTransformer):
                written.update(t.columns_out if t.multi_column else [column])
        checks = release_key_checks(columns)
        if checks is not None:
            ctx.artifacts[KEY_CHECK_FILE] = checks
        ctx.report[self.name] = {
            "columns": columns,
            "summary": {
                "transformed_columns": len(written),
                "dropped_columns": len(dropped),
                "untransformed_columns": len(present - written - set(dropped)),
            },
        }
