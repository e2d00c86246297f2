"""veil and Presidio on a public labelled corpus that is not in this repository.

Both tools run in this process with the same spaCy model (Presidio through
``NlpEngineProvider`` with its default recognizers, as in ``text_presidio.py``) over every
record of the corpus; the predictions are then scored under each label map given, exact and
overlapping spans and tokens (IO scheme, as presidio-research's ``TokenEvaluator``), micro
and per entity type. Presidio is scored twice from the same run: at
its default score threshold (0) and at 0.4, the threshold presidio-research's own evaluation
notebook uses; veil runs at its default (``from_config``: the redaction threshold,
0.45) and, with ``--veil-threshold 0.5``, also at the detection threshold.

The corpus stays outside the repository (licences; and the point is a corpus veil was not
written against): pass its path. The corpus is for measuring only; nothing here feeds back
into veil's recognizers. Per type, the result also sorts each error into a category
(boundary, other type, missed / spurious), as counts; no record text is written.

Run::

    PYTHONPATH=src python benchmarks/text_public.py --name presidio_synth \\
        --format presidio-research --path /tmp/corpora/presidio_synth_v2.json \\
        --source github:microsoft/presidio-research@<commit>:data/synth_dataset_v2.json \\
        --label-map benchmarks/label_maps/presidio_synth.json \\
        --label-map benchmarks/label_maps/presidio_synth_research.json

    PYTHONPATH=src python benchmarks/text_public.py --name physionet_deid \\
        --format physionet-deid --path /tmp/corpora/deid \\
        --source github:<owner>/<repo>@<commit> \\
        --label-map benchmarks/label_maps/physionet_deid.json \\
        --label-map benchmarks/label_maps/physionet_deid_no_org.json

The first ``--label-map`` is the primary view; the targets (veil's micro F1 at least
``--margin`` above Presidio's, no entity type below Presidio's F1) are checked on each.
Writes ``benchmarks/results/text_public_<name>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from text_corpora import CORPUS_FORMATS, load_corpus  # noqa: E402
from text_presidio import PRESIDIO_LABELS, _presidio  # noqa: E402
from veil.policy import REDACT_SCORE_THRESHOLD, TextConfig  # noqa: E402
from veil.text import TextAnalyzer, evaluate_spans, load_label_map  # noqa: E402
from veil.text.detection._profiles import PROFILES  # noqa: E402
from veil.text.ner._ner import best_english_model  # noqa: E402

PRESIDIO_RESEARCH_THRESHOLD = 0.4

Span = tuple[int, int, str]


def predict(
    model: str,
    texts: list[str],
    profiles: Sequence[str] = (),
    thresholds: Sequence[float] = (),
) -> dict[str, Any]:
    """veil's and Presidio's findings for every text, with seconds spent by each; veil also
    under each named detection profile (``veil_<profile>``) and at each other score
    threshold (``veil_t<threshold>``), each from a run of its own."""
    veil_runs: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    runs: list[tuple[str, str, float | None]] = [("veil", "default", None)]
    runs += [(f"veil_{p}", p, None) for p in profiles]
    runs += [(f"veil_t{t}", "default", t) for t in thresholds]
    for key, profile, threshold in runs:
        t0 = time.perf_counter()
        cfg = None if threshold is None else TextConfig(score_threshold=threshold)
        veil = TextAnalyzer.from_config(cfg, model=model, profile=profile)
        veil_runs[key] = [[f.to_dict() for f in fs] for fs in veil.analyze_batch(texts)]
        seconds[key] = round(time.perf_counter() - t0, 1)
    t1 = time.perf_counter()
    engine = _presidio(model, ner=True)
    p_pred = []
    for t in texts:
        res = engine.analyze(text=t, language="en")
        p_pred.append(
            [
                {"start": r.start, "end": r.end, "entity_type": r.entity_type, "score": r.score}
                for r in res
            ]
        )
    t2 = time.perf_counter()
    return {
        **veil_runs,
        "presidio": p_pred,
        "seconds": {**seconds, "presidio": round(t2 - t1, 1)},
    }


def _mapped(
    items: Sequence[Mapping[str, Any]], lm: Mapping[str, str | None], gold: bool
) -> list[Span]:
    out: list[Span] = []
    for s in items:
        a, b = ("start_position", "end_position") if gold else ("start", "end")
        t = lm.get(str(s["entity_type"]), str(s["entity_type"]))
        if t is not None:
            out.append((int(s[a]), int(s[b]), t))
    return out


def error_categories(
    gold: Sequence[Mapping[str, Any]],
    pred: Sequence[Sequence[Mapping[str, Any]]],
    lm: Mapping[str, str | None],
    types: set[str],
) -> dict[str, Any]:
    """Sort exact-match errors per type into categories; counts only, never text.

    A gold span that no prediction equals is a ``boundary`` miss when a prediction of its
    type overlaps it, ``other_type`` when only predictions of other types do (their types
    are counted in ``other_type_as``, including types outside the scored set), ``missed``
    otherwise. A prediction that equals no gold span is ``boundary`` when it overlaps a gold
    span of its type, ``other_type`` when it overlaps only gold spans of other scored types,
    ``unscored_gold`` when it overlaps only a gold span whose label the map drops, and
    ``spurious`` when it overlaps nothing in the gold.
    """
    fn: dict[str, Counter[str]] = {t: Counter() for t in types}
    fn_as: dict[str, Counter[str]] = {t: Counter() for t in types}
    fp: dict[str, Counter[str]] = {t: Counter() for t in types}
    for rec, p in zip(gold, pred, strict=True):
        g = _mapped(rec.get("spans") or [], lm, gold=True)
        dropped = [
            (int(s["start_position"]), int(s["end_position"]))
            for s in rec.get("spans") or []
            if lm.get(str(s["entity_type"]), "") is None
        ]
        ps = _mapped(p, lm, gold=False)
        gset, pset = set(g), set(ps)

        def hits(span: tuple[int, int], pool: list[Span]) -> list[Span]:
            return [x for x in pool if x[0] < span[1] and span[0] < x[1]]

        for gs in g:
            if gs in pset or gs[2] not in types:
                continue
            over = hits(gs[:2], ps)
            if any(x[2] == gs[2] for x in over):
                fn[gs[2]]["boundary"] += 1
            elif over:
                fn[gs[2]]["other_type"] += 1
                fn_as[gs[2]].update({x[2] for x in over})
            else:
                fn[gs[2]]["missed"] += 1
        for pp in ps:
            if pp in gset or pp[2] not in types:
                continue
            over = hits(pp[:2], g)
            if any(x[2] == pp[2] for x in over):
                fp[pp[2]]["boundary"] += 1
            elif over:
                fp[pp[2]]["other_type"] += 1
            elif any(a < pp[1] and pp[0] < b for a, b in dropped):
                fp[pp[2]]["unscored_gold"] += 1
            else:
                fp[pp[2]]["spurious"] += 1
    return {
        t: {
            "false_negatives": dict(fn[t]),
            "false_negatives_other_type_as": dict(fn_as[t].most_common()),
            "false_positives": dict(fp[t]),
        }
        for t in sorted(types)
    }


def _summary(report: Any) -> dict[str, Any]:
    return {
        "micro": report.micro,
        "per_type": report.per_type,
        "ignored_predictions": report.ignored_predictions,
    }


def score_view(
    gold: list[dict[str, Any]],
    preds: Mapping[str, Any],
    label_map: Mapping[str, str | None],
    margin: float,
) -> dict[str, Any]:
    """Score veil (and its profiles) and both Presidio configurations under one label map;
    flag the losses."""
    lm = {**PRESIDIO_LABELS, **label_map}
    veils = [k for k in preds if k == "veil" or k.startswith("veil_")]
    runs = {
        **{k: preds[k] for k in veils},
        "presidio": preds["presidio"],
        f"presidio_t{PRESIDIO_RESEARCH_THRESHOLD}": [
            [r for r in rs if r["score"] >= PRESIDIO_RESEARCH_THRESHOLD] for rs in preds["presidio"]
        ],
    }
    reports = {k: evaluate_spans(gold, v, label_map=lm) for k, v in runs.items()}
    types = set(reports["veil"].per_type)
    out: dict[str, Any] = {
        "gold_spans_per_type": {
            t: m["exact"]["support"] for t, m in reports["veil"].per_type.items()
        },
        "scores": {k: _summary(r) for k, r in reports.items()},
        "errors": {k: error_categories(gold, runs[k], lm, types) for k in runs},
        "comparison": {},
    }
    for mine in veils:
        rv = reports[mine]
        for peer in runs:
            if peer in veils:
                continue
            rp = reports[peer]
            cmp: dict[str, Any] = {}
            for kind in ("exact", "overlap", "token"):
                gain = round(rv.micro[kind]["f1"] - rp.micro[kind]["f1"], 4)
                below = {
                    t: {mine: rv.per_type[t][kind]["f1"], peer: rp.per_type[t][kind]["f1"]}
                    for t in sorted(types)
                    if rv.per_type[t][kind]["f1"] < rp.per_type[t][kind]["f1"]
                }
                cmp[kind] = {
                    f"micro_f1_{mine}": rv.micro[kind]["f1"],
                    f"micro_f1_{peer}": rp.micro[kind]["f1"],
                    "micro_f1_gain": gain,
                    "types_below_peer": below,
                    "target_gain_met": gain >= margin,
                    "target_no_type_below_met": not below,
                }
            out["comparison"][f"{mine}_vs_{peer}"] = cmp
    out["per_type_vs_presidio"] = per_type_vs_presidio(reports, types)
    return out


def per_type_vs_presidio(reports: dict[str, Any], types: set[str]) -> dict[str, Any]:
    """Per kind of match (exact, overlap, token) and entity type, every run's F1 side by
    side, and the Presidio runs that score above veil's default run on that type."""
    peers = [k for k in reports if k.startswith("presidio")]
    out: dict[str, Any] = {}
    for kind in ("exact", "overlap", "token"):
        rows: dict[str, Any] = {}
        for t in sorted(types):
            f1 = {k: r.per_type[t][kind]["f1"] for k, r in reports.items() if t in r.per_type}
            rows[t] = {**f1, "veil_below": [p for p in peers if f1.get(p, 0) > f1["veil"]]}
        out[kind] = {
            "types": rows,
            "types_veil_below": sorted(t for t, row in rows.items() if row["veil_below"]),
        }
    return out


def _sha256(paths: Sequence[Path]) -> dict[str, str]:
    out = {}
    for p in paths:
        with p.open("rb") as fh:
            out[p.name] = hashlib.file_digest(fh, "sha256").hexdigest()
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--name", required=True, help="short corpus name, used in the output file")
    ap.add_argument("--format", required=True, choices=CORPUS_FORMATS)
    ap.add_argument("--path", required=True, help="the corpus file or folder (outside the repo)")
    ap.add_argument("--source", default="", help="where the copy came from, e.g. repo@commit")
    ap.add_argument("--label-map", action="append", default=[], help="JSON map; repeatable")
    ap.add_argument("--limit", type=int, default=0, help="score only the first N records")
    ap.add_argument("--margin", type=float, default=0.25, help="micro F1 gain required")
    ap.add_argument("--no-merge", action="store_true", help="physionet-deid: keep token spans")
    ap.add_argument(
        "--veil-profile",
        action="append",
        default=[],
        choices=[p for p in PROFILES if p != "default"],
        help="also run veil under this detection profile (repeatable), scored as veil_<name>",
    )
    ap.add_argument(
        "--veil-threshold",
        action="append",
        type=float,
        default=[],
        help="also run veil at this score threshold (repeatable), scored as veil_t<threshold>; "
        "veil itself runs at its redaction threshold",
    )
    ap.add_argument("--out", default="")
    ap.add_argument(
        "--predictions-out",
        default="",
        help="also write the corpus and both tools' findings (offsets, types, scores) to this "
        "JSON file outside the repository, for benchmarks/text_research_eval.py",
    )
    args = ap.parse_args(argv)

    import importlib.metadata as md

    path = Path(args.path).resolve()
    if path.is_relative_to(ROOT):
        sys.exit("keep the corpus outside the repository; pass a path elsewhere")
    options = {"merge_adjacent": not args.no_merge} if args.format == "physionet-deid" else {}
    gold = load_corpus(args.format, path, **options)
    if args.limit:
        gold = gold[: args.limit]
    files = [path / "id.text", path / "id-phi.phrase"] if path.is_dir() else [path]
    maps = {Path(p).stem: load_label_map(p) for p in args.label_map} or {"none": {}}
    model = best_english_model()
    assert model is not None, "no English spaCy model installed"
    texts = [r["full_text"] for r in gold]
    result: dict[str, Any] = {
        "benchmark": "text_public",
        "command": " ".join(
            ["benchmarks/text_public.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "corpus": {
            "name": args.name,
            "format": args.format,
            "source": args.source,
            "sha256": _sha256(files),
            "records": len(gold),
            "records_with_spans": sum(1 for r in gold if r.get("spans")),
            "characters": sum(len(t) for t in texts),
            "gold_spans_per_label": dict(
                sorted(Counter(s["entity_type"] for r in gold for s in r["spans"]).items())
            ),
            "adjacent_spans_merged": args.format == "physionet-deid" and not args.no_merge,
        },
        "label_maps": {
            name: {"path": os.path.relpath(p, ROOT), "map": maps[name]}
            for name, p in zip(maps, args.label_map, strict=False)
        },
        "spacy_model": model,
        "presidio_thresholds": {
            "presidio": 0.0,
            f"presidio_t{PRESIDIO_RESEARCH_THRESHOLD}": PRESIDIO_RESEARCH_THRESHOLD,
        },
        "versions": {p: md.version(p) for p in ("presidio-analyzer", "spacy", "phonenumbers")},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_at_start": os.getloadavg(),
        },
    }
    result["veil_thresholds"] = {
        "veil": REDACT_SCORE_THRESHOLD,
        **{f"veil_t{t}": t for t in args.veil_threshold},
    }
    preds = predict(model, texts, args.veil_profile, args.veil_threshold)
    if args.predictions_out:
        dump = Path(args.predictions_out).resolve()
        if dump.is_relative_to(ROOT):
            sys.exit("write the predictions outside the repository: they hold the corpus")
        tools = {k: v for k, v in preds.items() if k != "seconds"}
        dump.write_text(
            json.dumps(
                {
                    "corpus": {"name": args.name, "sha256": _sha256(files)},
                    "spacy_model": model,
                    "presidio_labels": PRESIDIO_LABELS,
                    "presidio_thresholds": result["presidio_thresholds"],
                    "gold": gold,
                    "predictions": tools,
                }
            ),
            encoding="utf-8",
        )
    result["seconds"] = preds["seconds"]
    result["views"] = {name: score_view(gold, preds, lm, args.margin) for name, lm in maps.items()}
    result["machine"]["load_avg_at_end"] = os.getloadavg()
    out = Path(args.out or ROOT / "benchmarks" / "results" / f"text_public_{args.name}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for view, v in result["views"].items():
        for pair, c in v["comparison"].items():
            mine, _, peer = pair.partition("_vs_")
            for kind, m in c.items():
                below = ", ".join(sorted(m["types_below_peer"])) or "none"
                f1_veil, f1_peer = m[f"micro_f1_{mine}"], m[f"micro_f1_{peer}"]
                print(
                    f"{view:28s} {kind:7s} micro F1 {mine} {f1_veil:.3f} {peer} {f1_peer:.3f} "
                    f"gain {m['micro_f1_gain']:+.3f}; types below {peer}: {below}",
                    flush=True,
                )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
