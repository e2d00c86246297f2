"""``veil redact`` and ``veil text detect|evaluate|corpus|reveal``."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from veil.cli._input import HeaderOpt, SeparatorOpt
from veil.cli._ui import RichProgressAdapter, console, err_console, print_json, state
from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD

__all__ = ["register"]

text_app = typer.Typer(
    name="text",
    help="Detect personal data in text, evaluate detection, make labelled corpora.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_Entities = Annotated[
    list[str] | None,
    typer.Option("--entities", "-e", help="Entity types to find (repeat or comma-separate)."),
]
_Model = Annotated[
    str | None, typer.Option("--model", help="spaCy model (default: best installed English).")
]
_NoNer = Annotated[bool, typer.Option("--no-ner", help="Regex and validated recognizers only.")]
_Threshold = Annotated[
    float,
    typer.Option(
        "--threshold",
        min=0,
        max=1,
        help=f"Minimum score (default {DETECT_SCORE_THRESHOLD}: precision first).",
    ),
]
_RedactThreshold = Annotated[
    float,
    typer.Option(
        "--threshold",
        min=0,
        max=1,
        help=(
            f"Minimum score of a finding to redact (default {REDACT_SCORE_THRESHOLD}: recall "
            "first; values a label announces, masked values, checksum failures and "
            "password-shaped tokens count too)."
        ),
    ),
]
_Column = Annotated[str | None, typer.Option("--column", "-c", help="Text column / field.")]
_Columns = Annotated[
    list[str] | None,
    typer.Option(
        "--column",
        "-c",
        help="Text column / field to redact (repeatable). JSON records must each have it; "
        "without it, their 'full_text' and 'text' fields.",
    ),
]
_AllFields = Annotated[
    bool,
    typer.Option("--all-fields", help="Redact every text field (column) instead of --column."),
]
_Batch = Annotated[
    int,
    typer.Option(
        "--batch-size",
        min=1,
        help="Records read and written per batch (NER runs up to 256 at a time).",
    ),
]
_Procs = Annotated[int, typer.Option("--processes", "-p", min=1, help="Worker processes.")]
_Json = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
_Engine = Annotated[
    str,
    typer.Option(
        "--engine",
        help="'local' (this process, the default) or 'ray': Ray Data with an actor pool of "
        "--processes actors; the input may then be a folder or glob of JSONL, CSV or Parquet "
        "files (one output file, rows in input order).",
    ),
]
_RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Ray cluster to run on (HOST:PORT or ray://HOST:PORT); without it, --engine ray "
        "starts a local Ray runtime and shuts it down at the end.",
    ),
]
_Profile = Annotated[
    str,
    typer.Option(
        "--profile",
        help="'default': report every finding; 'hipaa': only what HIPAA Safe Harbor lists "
        "(ages over 89; no year-only dates, times of day, US states or countries), with "
        "clinical shapes in clinical notes; 'clinical': recall first, every word that is "
        "neither English nor clinical vocabulary is reported too.",
    ),
]

_Patterns = Annotated[
    list[str] | None,
    typer.Option(
        "--pattern",
        help="A custom recognizer NAME=REGEX (repeatable): matches are reported as entity "
        "type NAME (upper case), as a policy's text.patterns entry.",
    ),
]
_DenyList = Annotated[
    Path | None,
    typer.Option(
        "--deny-list",
        help="UTF-8 file, one term per line: each always found (whole words, any case) as "
        "entity type DENY_LIST, as a policy's text.deny_list.",
    ),
]
_AllowList = Annotated[
    Path | None,
    typer.Option(
        "--allow-list",
        help="UTF-8 file, one term per line: a finding whose whole text is one of them is "
        "never reported (any case), as a policy's text.allow_list.",
    ),
]


def _entities(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [e.strip() for v in values for e in v.split(",") if e.strip()]


def _options(values: list[str] | None) -> dict[str, Any]:
    from veil._errors import InputError

    out: dict[str, Any] = {}
    for item in values or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--option expects KEY=VALUE, got an item without '=' ({key[:30]!r})")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def _text_config(
    entities: list[str] | None,
    model: str | None,
    no_ner: bool,
    threshold: float,
    profile: str = "default",
    *,
    patterns: list[str] | None = None,
    deny_list: Path | None = None,
    allow_list: Path | None = None,
) -> Any:
    from veil.cli._text_lists import pattern_specs, read_terms
    from veil.policy import TextConfig
    from veil.text.detection._profiles import check_profile

    # the options become the policy's text fields, built by the same code as a policy's
    cfg = TextConfig(
        profile=check_profile(profile),  # type: ignore[arg-type]
        entities=tuple(entities) if entities else None,
        model=model,
        ner=not no_ner,
        score_threshold=threshold,
        patterns=pattern_specs(patterns or []),
        deny_list=read_terms(deny_list, "--deny-list") if deny_list is not None else (),
        allow_list=read_terms(allow_list, "--allow-list") if allow_list is not None else (),
    )
    return cfg


def _analyzer(*args: Any, **kwargs: Any) -> Any:
    """The analyzer the options describe (:func:`_text_config`'s arguments)."""
    from veil.text import TextAnalyzer

    return TextAnalyzer.from_config(_text_config(*args, **kwargs))


def _report_redaction(
    summary: dict[str, Any], headline: str, untouched: list[str], json_: bool
) -> None:
    """A redaction's summary (JSON or a headline and counts), both engines alike; the fields
    left untouched always go to stderr, as they went out as they came in."""
    if json_:
        print_json(summary)
    else:
        console.print(headline)
        for k, v in summary["replaced"].items():
            console.print(f"  {k:<24} {v}")
    if untouched:
        err_console.print(
            f"left untouched (not redacted): {', '.join(untouched)}; pass --column for each "
            "field to redact, or --all-fields",
            highlight=False,
            markup=False,
        )


def _engine(value: str) -> str:
    from veil._errors import InputError
    from veil.engine._runtime import ENGINES

    if value not in ENGINES:
        raise InputError(f"--engine must be one of {', '.join(ENGINES)}, got an unknown name")
    return value


def redact(
    input: Annotated[
        Path,
        typer.Argument(
            help="CSV, Parquet, JSONL, JSON or plain-text file; or a folder or glob of JSONL, "
            "CSV or Parquet partitions (--engine ray, or a folder --out)."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Output file (same format as the input), or a folder (an existing one, or a "
            "name without a suffix when INPUT is a folder or glob): one file per input "
            "partition, same relative paths, written as one set.",
        ),
    ],
    column: _Columns = None,
    all_fields: _AllFields = False,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    entities: _Entities = None,
    operator: Annotated[
        str,
        typer.Option(
            "--operator", help="placeholder, redact, mask, hash, fpe, encrypt, surrogate, vault."
        ),
    ] = "placeholder",
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", help="Operator option KEY=VALUE (repeatable), e.g. numbered=true."
        ),
    ] = None,
    model: _Model = None,
    no_ner: _NoNer = False,
    threshold: _RedactThreshold = REDACT_SCORE_THRESHOLD,
    profile: _Profile = "default",
    pattern: _Patterns = None,
    deny_list: _DenyList = None,
    allow_list: _AllowList = None,
    batch_size: _Batch = 500,
    processes: _Procs = 1,
    engine: _Engine = "local",
    ray_address: _RayAddress = None,
    json_: _Json = False,
) -> None:
    """Replace personal data in text columns or fields (or a text file), streaming in batches.

    Says at the end which fields it left untouched (names only). A JSON record without the
    field to redact is an error naming its line, and nothing is written.
    """
    from veil.cli._input import separator_value
    from veil.engine._partitioned import wants_partitioned
    from veil.engine._text import transform_parts
    from veil.text import TextRedactor, make_operator
    from veil.text.redaction._files import FieldUse, transform_file

    fields = FieldUse()
    sep = separator_value(separator)
    op = make_operator(operator, _options(option))  # keys are checked before any reading
    if _engine(engine) == "ray":
        _redact_ray(
            input,
            out,
            op,
            operator,
            column,
            all_fields,
            sep,
            header,
            batch_size,
            processes,
            ray_address,
            json_,
            _text_config(
                _entities(entities),
                model,
                no_ner,
                threshold,
                profile,
                patterns=pattern,
                deny_list=deny_list,
                allow_list=allow_list,
            ),
            profile,
        )
        return
    analyzer = _analyzer(
        _entities(entities),
        model,
        no_ner,
        threshold,
        profile,
        patterns=pattern,
        deny_list=deny_list,
        allow_list=allow_list,
    )
    redactor = TextRedactor(analyzer, op)
    t0 = time.perf_counter()

    def fn(texts: list[str | None]) -> list[str | None]:
        return [
            r.text
            for r in redactor.redact_batch(
                texts, batch_size=min(batch_size, 256), n_process=processes
            )
        ]

    n_files: int | None = None
    try:
        with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
            if wants_partitioned(input, out):
                n, n_files = transform_parts(
                    input,
                    out,
                    fn,
                    column=column,
                    batch_size=batch_size,
                    progress=progress,
                    all_fields=all_fields,
                    separator=sep,
                    header=header,
                    fields=fields,
                )
            else:
                n = transform_file(
                    input,
                    out,
                    fn,
                    column=column,
                    batch_size=batch_size,
                    progress=progress,
                    all_fields=all_fields,
                    separator=sep,
                    header=header,
                    fields=fields,
                )
    finally:
        analyzer.close()
    untouched = fields.untouched()
    summary = {
        "records": n,
        "redacted_fields": list(fields.used),
        "untouched_fields": untouched,
        "replaced": dict(sorted(redactor.counts.items())),
        "operator": operator,
        "model": analyzer.model_name,
        "profile": profile,
        "output": str(out),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    if n_files is not None:
        summary["files"] = n_files
    _report_redaction(
        summary,
        f"redacted {n} records -> {out} ({summary['seconds']} s, model: "
        f"{analyzer.model_name or 'none (regex only)'})",
        untouched,
        json_,
    )


def detect(
    input: Annotated[
        Path, typer.Argument(help="CSV, Parquet, JSONL, JSON (full_text records) or text.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="FINDINGS.jsonl: one line per record.")],
    column: _Column = None,
    separator: SeparatorOpt = None,
    header: HeaderOpt = None,
    entities: _Entities = None,
    model: _Model = None,
    no_ner: _NoNer = False,
    threshold: _Threshold = DETECT_SCORE_THRESHOLD,
    explain: Annotated[
        bool, typer.Option("--explain", help="Add each finding's explanation.")
    ] = False,
    profile: _Profile = "default",
    pattern: _Patterns = None,
    deny_list: _DenyList = None,
    allow_list: _AllowList = None,
    batch_size: _Batch = 500,
    processes: _Procs = 1,
    engine: _Engine = "local",
    ray_address: _RayAddress = None,
    json_: _Json = False,
) -> None:
    """Write raw findings: {"index", "findings": [{start, end, entity_type, score, recognizer}]}."""
    from veil._errors import InputError
    from veil.cli._input import separator_value
    from veil.io import atomic_path
    from veil.text.redaction._files import iter_text_batches

    if Path(input).resolve() == Path(out).resolve():
        raise InputError("the output would overwrite the input", hint="choose another --out")
    if _engine(engine) == "ray":
        cfg = _text_config(
            _entities(entities),
            model,
            no_ner,
            threshold,
            profile,
            patterns=pattern,
            deny_list=deny_list,
            allow_list=allow_list,
        )
        _detect_ray(
            input,
            out,
            cfg,
            column,
            explain,
            separator_value(separator),
            header,
            batch_size,
            processes,
            ray_address,
            json_,
            profile,
        )
        return
    analyzer = _analyzer(
        _entities(entities),
        model,
        no_ner,
        threshold,
        profile,
        patterns=pattern,
        deny_list=deny_list,
        allow_list=allow_list,
    )
    counts: Counter[str] = Counter()
    n = 0
    t0 = time.perf_counter()
    try:
        with (
            RichProgressAdapter(enabled=not json_ and not state.quiet) as progress,
            progress.task("detecting") as task,
            atomic_path(out) as tmp,
            tmp.open("w", encoding="utf-8") as fh,
        ):
            for batch in iter_text_batches(
                input,
                column=column,
                batch_size=batch_size,
                first_only=True,
                separator=separator_value(separator),
                header=header,
            ):
                found = analyzer.analyze_batch(
                    batch.texts, batch_size=min(batch_size, 256), n_process=processes
                )
                for fs in found:
                    counts.update(f.entity_type for f in fs)
                    fh.write(
                        json.dumps(
                            {"index": n, "findings": [f.to_dict(explain=explain) for f in fs]}
                        )
                        + "\n"
                    )
                    n += 1
                task.advance(len(batch.texts))
    finally:
        analyzer.close()
    summary = {
        "records": n,
        "findings": dict(sorted(counts.items())),
        "model": analyzer.model_name,
        "profile": profile,
        "output": str(out),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    if json_:
        print_json(summary)
    else:
        console.print(
            f"{n} records, {sum(counts.values())} findings -> {out} "
            f"(model: {analyzer.model_name or 'none (regex only)'})"
        )


def _ray_summary(n: int, counts: Any, cfg: Any, out: Path, t0: float) -> dict[str, Any]:
    from veil.text.ner._ner import _resolve_model

    return {
        "records": n,
        "model": _resolve_model(cfg.model, cfg.language) if cfg.ner else None,
        "output": str(out),
        "seconds": round(time.perf_counter() - t0, 3),
        "engine": "ray",
    }


def _redact_ray(
    input: Path,
    out: Path,
    op: Any,
    operator: str,
    column: list[str] | None,
    all_fields: bool,
    sep: str | None,
    header: bool | None,
    batch_size: int,
    processes: int,
    ray_address: str | None,
    json_: bool,
    cfg: Any,
    profile: str,
) -> None:
    from veil.engine import expand_inputs, ray_redact, ray_session
    from veil.engine._partitioned import layout, wants_partitioned
    from veil.text.redaction._files import FieldUse

    kind, files = expand_inputs(input)  # before Ray starts: a bad input fails in no time
    parts = layout(input, files, out) if wants_partitioned(input, out) else None
    fields = FieldUse()
    t0 = time.perf_counter()
    with (
        ray_session(ray_address) as ray,
        RichProgressAdapter(enabled=not json_ and not state.quiet) as progress,
    ):
        n, counts = ray_redact(
            ray,
            files,
            kind,
            out,
            cfg,
            op,
            column=column,
            all_fields=all_fields,
            separator=sep,
            header=header,
            batch_size=batch_size,
            workers=processes,
            fields=fields,
            progress=progress,
            parts=parts,
        )
    untouched = fields.untouched()
    summary = _ray_summary(n, counts, cfg, out, t0)
    summary.update(
        redacted_fields=list(fields.used),
        untouched_fields=untouched,
        replaced=dict(sorted(counts.items())),
        operator=operator,
        profile=profile,
        files=len(files),
    )
    _report_redaction(
        summary,
        f"redacted {n} records from {len(files)} file(s) -> {out} "
        f"({summary['seconds']} s, engine: ray)",
        untouched,
        json_,
    )


def _detect_ray(
    input: Path,
    out: Path,
    cfg: Any,
    column: str | None,
    explain: bool,
    sep: str | None,
    header: bool | None,
    batch_size: int,
    processes: int,
    ray_address: str | None,
    json_: bool,
    profile: str,
) -> None:
    from veil.engine import expand_inputs, ray_detect, ray_session

    kind, files = expand_inputs(input)
    t0 = time.perf_counter()
    with (
        ray_session(ray_address) as ray,
        RichProgressAdapter(enabled=not json_ and not state.quiet) as progress,
    ):
        n, counts = ray_detect(
            ray,
            files,
            kind,
            out,
            cfg,
            column=column,
            explain=explain,
            separator=sep,
            header=header,
            batch_size=batch_size,
            workers=processes,
            progress=progress,
        )
    summary = _ray_summary(n, counts, cfg, out, t0)
    summary.update(findings=dict(sorted(counts.items())), profile=profile, files=len(files))
    if json_:
        print_json(summary)
    else:
        console.print(f"{n} records, {sum(counts.values())} findings -> {out} (engine: ray)")


def evaluate(
    gold: Annotated[
        Path,
        typer.Option("--gold", help="Gold records: JSON list or JSONL with full_text and spans."),
    ],
    label_map: Annotated[
        Path | None, typer.Option("--label-map", help="JSON {label: entity or null}.")
    ] = None,
    predictions: Annotated[
        Path | None,
        typer.Option("--predictions", help="FINDINGS.jsonl to score instead of running veil."),
    ] = None,
    entities: _Entities = None,
    model: _Model = None,
    no_ner: _NoNer = False,
    threshold: _Threshold = DETECT_SCORE_THRESHOLD,
    profile: _Profile = "default",
    json_: _Json = False,
) -> None:
    """Precision, recall and F1 per entity type and micro: exact spans, overlapping spans, tokens."""
    from veil._errors import InputError
    from veil.text import evaluate_spans, load_gold, load_label_map

    records = load_gold(gold)
    lm = load_label_map(label_map)
    meta: dict[str, Any] = {}
    if predictions is not None:
        preds: list[list[dict[str, Any]]] = [[] for _ in records]
        try:
            lines = predictions.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            raise InputError(f"cannot read predictions file {predictions}") from None
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{predictions.name}: line {lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise InputError(f"{where} is not valid JSON") from None
            # checked before use: a bad value must not reach int() or a KeyError, whose
            # messages (and --debug tracebacks) would quote it
            if not isinstance(row, dict) or not isinstance(row.get("findings"), list):
                raise InputError(f"{where} has no 'findings' list")
            i = row.get("index")
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(records):
                raise InputError(
                    f"{where}: 'index' must be a whole number below {len(records)} "
                    "(the number of gold records)"
                )
            for f in row["findings"]:
                if not (
                    isinstance(f, dict)
                    and isinstance(f.get("start"), int)
                    and isinstance(f.get("end"), int)
                    and isinstance(f.get("entity_type"), str)
                ):
                    raise InputError(
                        f"{where}: a finding needs whole-number 'start' and 'end' and an "
                        "'entity_type'"
                    )
            preds[i] = row["findings"]
        meta["predictions"] = str(predictions)
    else:
        analyzer = _analyzer(None, model, no_ner, threshold, profile)
        t0 = time.perf_counter()
        found = analyzer.analyze_batch([r["full_text"] for r in records])
        preds = [[f.to_dict() for f in fs] for fs in found]
        meta.update(
            model=analyzer.model_name, profile=profile, seconds=round(time.perf_counter() - t0, 3)
        )
    report = evaluate_spans(records, preds, label_map=lm, entities=_entities(entities))
    report.meta = meta
    if json_:
        print_json(report.to_dict())
    else:
        console.print(report)


def corpus(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output JSONL (or .json for a list).")],
    n: Annotated[int, typer.Option("--n", min=1, help="Records.")] = 500,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="'general': one-sentence templates across every entity type and hard "
            "negatives; 'notes': multi-line ICU and ward nursing notes; 'clinical': those "
            "notes with the shapes clinicians write (shorthand dates, names and hospitals in "
            "any case, pagers); 'secrets': business texts with passwords, API keys and "
            "credentials; 'business': HR mails, bank and tax tickets, IT requests and "
            "support chats with every kind of identifier and secret (spans also carry "
            "their 'kind').",
        ),
    ] = "general",
) -> None:
    """Generate a labelled corpus (templates + Faker, with hard negatives)."""
    from veil._errors import InputError
    from veil.io import write_text_atomic
    from veil.text import generate_clinical_notes, generate_corpus

    if kind not in ("general", "notes", "clinical", "secrets", "business"):
        raise InputError(
            f"--kind {kind!r} is not a corpus kind",
            hint="use general, notes, clinical, secrets or business",
        )
    if kind == "business":
        from veil.text.evaluation._corpus_business import generate_business_corpus

        recs = generate_business_corpus(n, seed=seed)
    elif kind == "secrets":
        from veil.text.evaluation._corpus_secrets import SECRET_TEMPLATES

        recs = generate_corpus(n, seed=seed, templates=SECRET_TEMPLATES)
    elif kind == "general":
        recs = generate_corpus(n, seed=seed)
    elif kind == "clinical":
        from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes

        recs = generate_clinical_shape_notes(n, seed=seed)
    else:
        recs = generate_clinical_notes(n, seed=seed)
    if out.suffix.lower() == ".json":
        write_text_atomic(out, json.dumps(recs, indent=1) + "\n")
    else:
        write_text_atomic(out, "".join(json.dumps(r) + "\n" for r in recs))
    console.print(f"{len(recs)} records -> {out}")


def reveal(
    token: Annotated[str, typer.Argument(help="A vault token such as <PERSON_3fa9c2e1d0b4>.")],
    vault: Annotated[str, typer.Option("--vault", help="SQLAlchemy URL of the vault.")],
    purpose: Annotated[str, typer.Option("--purpose", help="Why (recorded in the audit log).")],
    actor: Annotated[str, typer.Option("--actor", help="Who asks (recorded).")] = "cli",
    key_env: Annotated[
        str, typer.Option("--key-env", help="Variable holding the vault key.")
    ] = "VEIL_VAULT_KEY",
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="File holding the vault key.")
    ] = None,
) -> None:
    """Look a vault token up (audit-logged) and print the original value."""
    from veil._errors import InputError
    from veil.text import TokenVault
    from veil.text.replacement._keys import load_key

    key = load_key(operator="vault", key_env=key_env, key_file=key_file)
    assert key is not None
    value = TokenVault(vault, key).lookup(token, actor=actor, purpose=purpose)
    if value is None:
        raise InputError("no such token in the vault (the lookup was logged)")
    typer.echo(value)


def register(app: typer.Typer) -> None:
    app.command("redact")(redact)
    text_app.command("detect")(detect)
    text_app.command("evaluate")(evaluate)
    text_app.command("corpus")(corpus)
    text_app.command("reveal")(reveal)
    app.add_typer(text_app, name="text")
