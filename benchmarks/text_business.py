"""Leak rate on business and support text: veil's redaction against Presidio, same run.

The corpus is ``veil text corpus --kind business`` (:mod:`veil.text.evaluation._corpus_business`: HR
mails, bank and tax tickets, IT requests, support chats with every kind of identifier and
secret; ``--n`` records, ``--seed``). veil runs as ``veil redact`` runs it (its built-in
recognizers and NER, at the redaction threshold :data:`veil.policy.REDACT_SCORE_THRESHOLD`)
and, beside it, at the detection threshold (:data:`veil.policy.DETECT_SCORE_THRESHOLD`,
``veil text detect``); Presidio runs its ``AnalyzerEngine`` with the default recognizers
and the same spaCy model, at its default threshold (as ``text_presidio.py``).

Figures, for each tool:

* **leak rate**: the share of labelled strings that no finding overlaps (whatever the
  finding's type: a redactor replaces what it finds), overall, per entity type and per
  slot kind ("US_SSN:masked", "IBAN_CODE:bad");
* **any type** (the redaction view): token and exact-span precision, recall and F1 with
  every type counted as one (``PII``);
* **typed**: the same per entity type, under the gold's type names (Presidio's ``EMAIL``
  scored as ``EMAIL_ADDRESS``);
* **outside share**: the share of findings that overlap no labelled string.

``--sweep`` also scores veil at several thresholds on all four generated corpora
(``general``, ``notes``, ``secrets`` and ``business``): the data the redaction threshold is
chosen from (``threshold_sweep`` in the JSON), with per-type precision and recall at the
two default thresholds (``per_type_at_defaults``). The public corpora play no part in it.

Run::

    PYTHONPATH=src python benchmarks/text_business.py --n 600 --sweep

Writes ``benchmarks/results/text_business.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD, TextConfig  # noqa: E402
from veil.text import (  # noqa: E402
    TextAnalyzer,
    evaluate_spans,
    generate_clinical_notes,
    generate_corpus,
)
from veil.text.evaluation._corpus_business import generate_business_corpus  # noqa: E402
from veil.text.evaluation._corpus_secrets import SECRET_TEMPLATES  # noqa: E402
from veil.text.ner._ner import best_english_model  # noqa: E402

PRESIDIO_LABELS = {"EMAIL": "EMAIL_ADDRESS"}
SWEEP = (0.3, 0.35, 0.4, 0.45, 0.5)

Preds = list[list[dict[str, Any]]]


def presidio_findings(model: str, texts: Sequence[str]) -> tuple[Preds, float]:
    """Presidio's AnalyzerEngine, default recognizers, the same spaCy model."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    for name in ("presidio-analyzer", "presidio_analyzer", "tldextract"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # it logs candidate values
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": model}],
        }
    )
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    engine.analyze(text=texts[0], language="en")  # warm-up: lazy loading
    t0 = time.perf_counter()
    out = [
        [
            {"start": r.start, "end": r.end, "entity_type": r.entity_type, "score": r.score}
            for r in engine.analyze(text=t, language="en")
        ]
        for t in texts
    ]
    return out, time.perf_counter() - t0


def veil_analyzer(model: str, threshold: float) -> TextAnalyzer:
    """The analyzer ``veil redact`` builds (a policy's default text config), at ``threshold``."""
    cfg = TextConfig.model_validate({"model": model, "score_threshold": threshold})
    return TextAnalyzer.from_config(cfg)


def veil_findings(analyzer: TextAnalyzer, texts: Sequence[str]) -> tuple[Preds, float]:
    analyzer.analyze_batch(list(texts[:4]))  # warm-up
    t0 = time.perf_counter()
    out = [[f.to_dict() for f in fs] for fs in analyzer.analyze_batch(list(texts))]
    return out, time.perf_counter() - t0


def _overlaps(a: int, b: int, spans: Sequence[dict[str, Any]]) -> bool:
    return any(p["start"] < b and a < p["end"] for p in spans)


def leaks(records: Sequence[dict[str, Any]], preds: Preds) -> dict[str, Any]:
    """Labelled strings that no finding overlaps: overall, per entity type, per slot kind."""
    total: Counter[str] = Counter()
    leaked: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    leaked_kind: Counter[str] = Counter()
    for rec, ps in zip(records, preds, strict=True):
        for s in rec["spans"]:
            t, k = s["entity_type"], s.get("kind", s["entity_type"])
            total[t] += 1
            by_kind[k] += 1
            if not _overlaps(s["start_position"], s["end_position"], ps):
                leaked[t] += 1
                leaked_kind[k] += 1
    n, m = sum(total.values()), sum(leaked.values())
    return {
        "labelled": n,
        "leaked": m,
        "leak_rate": round(m / n, 4) if n else 0.0,
        "per_type": {
            t: {
                "labelled": total[t],
                "leaked": leaked[t],
                "leak_rate": round(leaked[t] / total[t], 4),
            }
            for t in sorted(total)
        },
        "per_kind": {
            k: {
                "labelled": by_kind[k],
                "leaked": leaked_kind[k],
                "leak_rate": round(leaked_kind[k] / by_kind[k], 4),
            }
            for k in sorted(by_kind)
        },
    }


def outside_share(records: Sequence[dict[str, Any]], preds: Preds) -> dict[str, Any]:
    """Findings that overlap no labelled string, and their share of all findings."""
    n = out = 0
    types: Counter[str] = Counter()
    for rec, ps in zip(records, preds, strict=True):
        gold = [{"start": s["start_position"], "end": s["end_position"]} for s in rec["spans"]]
        for p in ps:
            n += 1
            if not _overlaps(p["start"], p["end"], gold):
                out += 1
                types[p["entity_type"]] += 1
    return {
        "findings": n,
        "outside": out,
        "share": round(out / n, 4) if n else 0.0,
        "outside_by_type": dict(types.most_common()),
    }


def scores(records: Sequence[dict[str, Any]], preds: Preds) -> dict[str, Any]:
    """Any-type (every type as ``PII``) and typed token / exact / overlap figures."""
    types = {s["entity_type"] for r in records for s in r["spans"]}
    types |= {p["entity_type"] for ps in preds for p in ps}
    any_map: dict[str, str | None] = dict.fromkeys(types | set(PRESIDIO_LABELS), "PII")
    anyt = evaluate_spans(records, preds, label_map=any_map)
    typed = evaluate_spans(records, preds, label_map=PRESIDIO_LABELS)
    return {
        "any_type": anyt.micro,
        "typed_micro": typed.micro,
        "typed_per_type": {
            t: {
                "token": m["token"],
                "exact": m["exact"],
                "overlap": m["overlap"],
            }
            for t, m in typed.per_type.items()
        },
    }


def report(records: Sequence[dict[str, Any]], preds: Preds, seconds: float) -> dict[str, Any]:
    return {
        "leaks": leaks(records, preds),
        "outside": outside_share(records, preds),
        "scores": scores(records, preds),
        "seconds": round(seconds, 3),
        "docs_per_s": round(len(records) / seconds, 1) if seconds else None,
    }


def generated_corpora(n: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    return {
        "general": generate_corpus(n, seed=seed),
        "notes": generate_clinical_notes(max(1, n // 4), seed=seed),
        "secrets": generate_corpus(max(1, n // 2), seed=seed, templates=SECRET_TEMPLATES),
        "business": generate_business_corpus(n, seed=seed),
    }


def sweep(model: str, n: int, seed: int) -> dict[str, Any]:
    """veil at each threshold of :data:`SWEEP` on the four generated corpora (any type and
    typed), and per-type precision and recall at the two defaults."""
    corpora = generated_corpora(n, seed)
    records = [r for rs in corpora.values() for r in rs]
    spans: dict[str, range] = {}
    for name, rs in corpora.items():
        start = sum(len(x) for x in spans.values())
        spans[name] = range(start, start + len(rs))
    texts = [r["full_text"] for r in records]
    out: dict[str, Any] = {"corpora": {k: len(v) for k, v in corpora.items()}, "by_threshold": {}}
    per_type: dict[str, Any] = {}
    for th in sorted({*SWEEP, DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD}):
        analyzer = veil_analyzer(model, th)
        preds, _ = veil_findings(analyzer, texts)
        analyzer.close()
        sc = scores(records, preds)
        lk = leaks(records, preds)
        out["by_threshold"][f"{th:g}"] = {
            "any_type_token": sc["any_type"]["token"],
            "any_type_exact": sc["any_type"]["exact"],
            "typed_micro_token": sc["typed_micro"]["token"],
            "leak_rate": lk["leak_rate"],
            "outside_share": outside_share(records, preds)["share"],
            "leak_rate_by_corpus": {
                name: leaks(corpora[name], [preds[i] for i in idx])["leak_rate"]
                for name, idx in spans.items()
            },
        }
        if th in (DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD):
            per_type[f"{th:g}"] = {
                t: {k: m["token"][k] for k in ("precision", "recall", "f1", "support")}
                for t, m in sc["typed_per_type"].items()
            }
    out["per_type_at_defaults"] = per_type
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=600, help="business records")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default=None, help="spaCy model (default: best installed)")
    ap.add_argument("--sweep", action="store_true", help="threshold sweep on generated corpora")
    ap.add_argument("--no-presidio", action="store_true", help="veil only (a quick look)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/text_business.json")
    args = ap.parse_args(argv)
    model = args.model or best_english_model()
    records = generate_business_corpus(args.n, seed=args.seed)
    texts = [r["full_text"] for r in records]
    result: dict[str, Any] = {
        "corpus": {"kind": "business", "records": len(records), "seed": args.seed},
        "model": model,
        "thresholds": {"redact": REDACT_SCORE_THRESHOLD, "detect": DETECT_SCORE_THRESHOLD},
        "python": platform.python_version(),
    }
    for name, th in (
        ("veil_redact", REDACT_SCORE_THRESHOLD),
        ("veil_detect", DETECT_SCORE_THRESHOLD),
    ):
        analyzer = veil_analyzer(model, th)
        preds, sec = veil_findings(analyzer, texts)
        analyzer.close()
        result[name] = report(records, preds, sec)
    if not args.no_presidio:
        preds, sec = presidio_findings(model, texts)
        result["presidio"] = report(records, preds, sec)
        result["leak_rate_ratio_veil_to_presidio"] = round(
            result["veil_redact"]["leaks"]["leak_rate"]
            / max(result["presidio"]["leaks"]["leak_rate"], 1e-9),
            4,
        )
    if args.sweep:
        result["threshold_sweep"] = sweep(model, args.n, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    summary = {
        k: result[k]["leaks"]["leak_rate"]
        for k in ("veil_redact", "veil_detect", "presidio")
        if k in result
    }
    print(json.dumps(summary))
    return result


if __name__ == "__main__":
    main()
