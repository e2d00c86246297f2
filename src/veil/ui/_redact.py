"""Redacting a text or JSONL file from ``veil ui``: preview, operators per type, progress.

The app picks a file of the working folder (plain text, one record per line, or JSON
Lines with a text field), previews the findings of its first records with the operator
chosen for each entity type, then redacts the whole file in a thread with veil's own
streaming code (:func:`veil.text.redaction._files.transform_file` and
:class:`veil.text.TextRedactor`, as ``veil redact`` does). The output is written atomically
inside the working folder: a failed or cancelled redaction leaves nothing. Logs carry counts
and error types only, never a text.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from veil._errors import InputError, VeilError
from veil.text.replacement._operators import Operator, make_operator

__all__ = [
    "REDACT_SUFFIXES",
    "UI_OPERATORS",
    "EntityOperator",
    "RedactJob",
    "RedactJobs",
    "output_target",
    "parse_choices",
    "preview_file",
]

log = logging.getLogger("veil.ui")

REDACT_SUFFIXES = (".txt", ".md", ".log", ".jsonl", ".ndjson")
# the operators the app offers: the unkeyed ones (keyed ones need a key: use `veil redact`)
UI_OPERATORS = ("placeholder", "redact", "mask", "surrogate", "keep")
DEFAULT_OPERATOR = "placeholder"
PREVIEW_RECORDS = 10
_PREVIEW_CHARS = 12_000  # in all records shown (the first record is always shown, cut there)


class EntityOperator(Operator):
    """One operator per entity type (``keep`` leaves the value as it is); types not
    named get the operator of ``"*"`` in ``choices``, else ``default``."""

    name: ClassVar[str] = "by-entity"
    links_names: ClassVar[bool] = True  # the redactor is told per instance (see ``links``)

    def __init__(self, choices: Mapping[str, str], default: str = DEFAULT_OPERATOR) -> None:
        super().__init__()
        self.choices = dict(choices)
        self.default = self.choices.pop("*", default)
        names = {*self.choices.values(), self.default} - {"keep"}
        self.ops = {name: make_operator(name) for name in sorted(names)}

    def _op(self, entity_type: str) -> str:
        return self.choices.get(entity_type, self.default)

    @property
    def links(self) -> bool:
        """Whether name variants of a person share one replacement (as the PERSON
        operator alone would do)."""
        name = self._op("PERSON")
        return name != "keep" and self.ops[name].links_names

    def replace(self, value: str, entity_type: str) -> str:
        name = self._op(entity_type)
        return value if name == "keep" else self.ops[name].replace(value, entity_type)

    def reset(self) -> None:
        for op in self.ops.values():
            op.reset()

    def flush(self) -> None:
        for op in self.ops.values():
            flush = getattr(op, "flush", None)
            if flush is not None:
                flush()


def parse_choices(raw: Mapping[str, str]) -> dict[str, str]:
    """``{entity type: operator}`` checked against veil's types and the app's operators
    (``"*"``: every other type)."""
    from veil.text import ENTITIES

    out: dict[str, str] = {}
    for entity, op in raw.items():
        if entity != "*" and entity not in ENTITIES:
            raise InputError(
                "an operator was chosen for an unknown entity type",
                hint="choose operators on the Redact page",
            )
        if op not in UI_OPERATORS:
            raise InputError(
                "an unknown operator was chosen",
                hint="the app offers " + ", ".join(UI_OPERATORS),
            )
        out[entity] = op
    return out


def _input(workdir: Path, relative: str) -> Path:
    from veil.ui._security import safe_path

    path = safe_path(workdir, relative)
    if not path.name.lower().endswith(REDACT_SUFFIXES):
        raise InputError(
            "this file is not a text or JSON Lines file",
            hint="pick a file ending in " + " or ".join(REDACT_SUFFIXES),
        )
    return path


def output_target(workdir: Path, source: Path, relative: str | None) -> Path:
    """Where the redacted copy of ``source`` goes: ``relative`` (default: beside it,
    ``NAME.redacted.SUFFIX``), inside ``workdir``, in an existing folder, with the
    input's suffix, not the input itself."""
    root = workdir.resolve()
    if not relative:
        return source.with_name(f"{source.stem}.redacted{source.suffix}")
    candidate = Path(relative)
    if "\x00" in relative or candidate.is_absolute() or candidate.name.startswith("."):
        raise InputError(
            "the output must be a file name relative to the working folder",
            hint=f"e.g. {source.stem}.redacted{source.suffix}",
        )
    parent = (root / candidate).parent.resolve()
    target = parent / candidate.name
    if not parent.is_relative_to(root) or not target.resolve().is_relative_to(root):
        raise InputError(
            "the output path leaves the working folder",
            hint="write the redacted file inside the working folder",
        )
    if not parent.is_dir():
        raise InputError("the output's folder does not exist", hint="pick an existing folder")
    if target.suffix.lower() != source.suffix.lower():
        raise InputError(
            "the output must have the input's suffix",
            hint=f"name it ending in {source.suffix}",
        )
    if target.resolve() == source:
        raise InputError("the output would overwrite the input", hint="choose another name")
    return target


def _redactor(analyzer: Any, choices: Mapping[str, str]) -> Any:
    from veil.text import TextRedactor

    op = EntityOperator(choices)
    return TextRedactor(analyzer, op, link=op.links)


def preview_file(
    workdir: Path,
    relative: str,
    analyzer: Any,
    choices: Mapping[str, str],
    field: str | None,
    *,
    source: Path | None = None,
    default_out: str | None = None,
) -> dict[str, Any]:
    """The first :data:`PREVIEW_RECORDS` records of the file (at most ``_PREVIEW_CHARS``
    characters in all, so the page stays fast): each one's text cut into
    plain and highlighted pieces, and its redacted text under ``choices``; the count of
    findings per type. Nothing is written. ``source``: an uploaded file outside the
    working folder (``relative`` is then only its label, ``default_out`` its output)."""
    from veil.text.redaction._files import iter_text_batches

    path = source if source is not None else _input(workdir, relative)
    texts: list[str | None] = []
    for batch in iter_text_batches(path, column=field or None, batch_size=PREVIEW_RECORDS):
        texts = batch.texts[:PREVIEW_RECORDS]
        break
    redactor = _redactor(analyzer, choices)
    counts: Counter[str] = Counter()
    records = []
    budget = _PREVIEW_CHARS
    for text in texts:
        if budget <= 0:
            break
        text = (text or "")[:budget]
        budget -= len(text)
        result = redactor.redact(text)
        pieces: list[dict[str, Any]] = []
        at = 0
        for f in result.findings:
            if f.start < at:
                continue
            if f.start > at:
                pieces.append({"text": text[at : f.start]})
            pieces.append({"text": text[f.start : f.end], "entity_type": f.entity_type})
            counts[f.entity_type] += 1
            at = f.end
        if at < len(text):
            pieces.append({"text": text[at:]})
        records.append({"pieces": pieces, "redacted": result.text or ""})
    return {
        "path": relative,
        "field": field or "",
        "records": records,
        "counts": dict(sorted(counts.items())),
        "default_out": default_out
        or output_target(workdir, path, None).relative_to(workdir.resolve()).as_posix(),
    }


class RedactCancelled(VeilError):
    """The user cancelled the redaction in the app."""


@dataclass
class RedactJob:
    """One file redaction: ``running``, ``done``, ``failed`` or ``cancelled``."""

    id: str
    source: str
    out: str
    state: str = "running"
    total_bytes: int = 0
    done_bytes: float = 0
    records: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)
    path: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        share = self.done_bytes / self.total_bytes if self.total_bytes else None
        return {
            "id": self.id,
            "source": self.source,
            "out": self.out,
            "state": self.state,
            "progress": 1.0 if self.state == "done" else share,
            "records": self.records,
            "counts": dict(self.counts),
            "error": self.error,
            "seconds": self.seconds,
            "elapsed": round(time.monotonic() - self.started, 1),
        }


class _Task:
    def __init__(self, job: RedactJob) -> None:
        self.job = job

    def advance(self, n: float = 1) -> None:
        if self.job.cancel.is_set():
            raise RedactCancelled("the redaction was cancelled")
        self.job.done_bytes += n


class _Progress:
    def __init__(self, job: RedactJob) -> None:
        self.job = job

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[_Task]:
        yield _Task(self.job)


class RedactJobs:
    """The file redactions of one app, one at a time."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir.resolve()
        self.jobs: dict[str, RedactJob] = {}
        self.lock = threading.Lock()

    def get(self, job_id: str) -> RedactJob | None:
        return self.jobs.get(job_id)

    def start(
        self,
        relative: str,
        out: str | None,
        analyzer: Any,
        choices: Mapping[str, str],
        field: str | None,
        *,
        source: Path | None = None,
        on_end: Callable[[], None] | None = None,
    ) -> RedactJob:
        """Check the input, the output and the operators, then redact in a thread;
        :class:`InputError` (nothing starts) when one is wrong or a redaction is going.
        ``source``: an uploaded file outside the working folder (``relative`` its label);
        ``on_end`` runs once the redaction has ended, however it ended."""
        source = source if source is not None else _input(self.workdir, relative)
        target = output_target(self.workdir, source, out)
        redactor = _redactor(analyzer, choices)
        with self.lock:
            if any(j.state == "running" for j in self.jobs.values()):
                raise InputError(
                    "another redaction is still going", hint="wait for it to finish, or cancel it"
                )
            job = RedactJob(
                id=secrets.token_urlsafe(12),
                source=relative,
                out=target.relative_to(self.workdir).as_posix(),
                total_bytes=source.stat().st_size,
            )
            self.jobs[job.id] = job
        threading.Thread(
            target=self._run,
            args=(job, source, target, redactor, field, on_end),
            name="veil-ui-redact",
            daemon=True,
        ).start()
        return job

    def _run(
        self,
        job: RedactJob,
        source: Path,
        target: Path,
        redactor: Any,
        field: Any,
        on_end: Callable[[], None] | None = None,
    ) -> None:
        try:
            self._redact(job, source, target, redactor, field)
        finally:
            if on_end is not None:
                on_end()

    def _redact(
        self, job: RedactJob, source: Path, target: Path, redactor: Any, field: Any
    ) -> None:
        from veil.text.redaction._files import transform_file
        from veil.ui._jobs import finish

        def fn(texts: list[str | None]) -> list[str | None]:
            return [r.text for r in redactor.redact_batch(texts)]

        def work() -> None:
            job.records = transform_file(
                source, target, fn, column=field or None, batch_size=200, progress=_Progress(job)
            )
            job.counts = dict(sorted(redactor.counts.items()))
            job.path = target

        finish(
            job,
            work,
            cancelled=RedactCancelled,
            what="redaction",
            hint="redact the file with `veil redact` to see the full error",
        )

    def output(self, job_id: str) -> Path:
        """A finished redaction's file; :class:`InputError` otherwise."""
        job = self.jobs.get(job_id)
        if job is None or job.state != "done" or job.path is None or not job.path.is_file():
            raise InputError("no such redacted file", hint="redact a file on the Redact page")
        return job.path
