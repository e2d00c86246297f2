"""Clinical notes: veil (default, ``hipaa`` and ``clinical`` profiles), Presidio and
philter-lite on the PhysioNet deid gold standard and on veil's generated clinical notes.

De-identification of clinical text is judged on recall first (issue #25). Every system's
findings are scored type-agnostic, as the de-identification literature scores them:

* **token recall / precision**: a gold token (a run of letters and digits, or one other
  character, as :mod:`veil.text.evaluation._evaluate` cuts tokens) is caught when any finding
  overlaps it; a predicted token is one any finding overlaps;
* **span recall**: a gold span is caught when every one of its tokens is caught;
* **per category** token recall: names, dates, locations, phones (deid's labels:
  HCPName, PTName, PTNameInitial and RelativeProxyName are names, Date and DateYear dates;
  the generated notes' PERSON, DATE_TIME, LOCATION and ORGANIZATION, PHONE_NUMBER);
* **per category** token recall on letters and digits alone
  (``category_recall_letters_digits``): deid's gold takes in a phone's brackets or a
  sentence's full stop now and then ("(617-555-0123)", "617-555-0199."), tokens no
  redaction needs; shown beside the figure the targets are read on, never instead of it;
* **docs/s** over the whole corpus, excluding start-up (model and lexicon loading: one
  short note and one generated clinical note of a seed no corpus here uses are analyzed
  first, untimed, by every system; ``warmup_cpu_seconds`` records what that cost). The
  short note alone left veil's clinical vocabularies (built at first use, in the first
  note that reads as clinical) and lazily compiled patterns inside the timed run: about
  0.6 CPU seconds, a fifth of the 300 generated notes' time. The systems of one run take
  the corpus in turn, a tenth at a time (``SLICES``), so that drift in the machine's speed
  over minutes weighs on each alike (``timing`` in each entry).

Presidio runs with its default recognizers and spaCy NER (the same model as veil), no
score threshold. philter-lite (UCSF Philter's packaged form) runs in its own environment
(``--philter-python``); its NLTK tagger data cannot be downloaded here, so its
``pos_tag`` is served by spaCy's tagger (same tag set; see ``_philter_run.py``), which the
results record.

The deid corpus is read from the path given and never copied; nothing here feeds back
into veil's rules. Run::

    PYTHONPATH=src python benchmarks/text_clinical.py --deid /tmp/deid \\
        --source "github:ChenbinHuang/BMI500_HW8_Deid_Date@628daa39 (copy of PhysioNet deid 1.1)" \\
        --philter-python /tmp/philter-venv/bin/python

Writes ``benchmarks/results/text_clinical.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from text_corpora import load_corpus  # noqa: E402
from text_presidio import _presidio  # noqa: E402
from veil.text import TextAnalyzer  # noqa: E402
from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes  # noqa: E402
from veil.text.ner._ner import best_english_model  # noqa: E402

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_")
CATEGORIES = {
    "HCPName": "names",
    "PTName": "names",
    "PTNameInitial": "names",
    "RelativeProxyName": "names",
    "Date": "dates",
    "DateYear": "dates",
    "Location": "locations",
    "Phone": "phones",
    "PERSON": "names",
    "DATE_TIME": "dates",
    "LOCATION": "locations",
    "ORGANIZATION": "locations",
    "STREET_ADDRESS": "locations",
    "PHONE_NUMBER": "phones",
}
#: gold labels no system is scored on (deid's "Other" is a free-text category)
UNSCORED = {"Other"}
TARGETS = {
    "token_recall": 0.92,
    "token_precision": 0.60,
    "category_recall": {"names": 0.95, "dates": 0.95, "phones": 0.95, "locations": 0.85},
    "speed_vs_philter": 20.0,
    "speed_vs_presidio": 3.0,
}

Spans = list[tuple[int, int]]


def score(gold: Sequence[dict[str, Any]], pred: Sequence[Spans]) -> dict[str, Any]:
    """Type-agnostic token and span scores of ``pred`` against ``gold`` (see the module doc)."""
    tp = fp = fn = 0
    spans_total = spans_caught = 0
    cat_total: Counter[str] = Counter()
    cat_hit: Counter[str] = Counter()
    # the same counted on letters and digits only: deid's gold spans take in a phone's
    # brackets or a sentence's full stop now and then, which no finding needs to cover
    word_total: Counter[str] = Counter()
    word_hit: Counter[str] = Counter()
    for rec, ps in zip(gold, pred, strict=True):
        text = rec["full_text"]
        covered = bytearray(len(text) + 1)
        for a, b in ps:
            covered[a:b] = b"\x01" * (b - a)
        is_gold = bytearray(len(text) + 1)
        token_cat: dict[int, str] = {}
        for s in rec["spans"]:
            if s["entity_type"] in UNSCORED:
                continue
            a, b = s["start_position"], s["end_position"]
            is_gold[a:b] = b"\x01" * (b - a)
            cat = CATEGORIES.get(s["entity_type"], "other")
            toks = [m.span() for m in _TOKEN.finditer(text, a, b)]
            for t in toks:
                token_cat[t[0]] = cat
            spans_total += 1
            spans_caught += all(covered.find(1, x, y) >= 0 for x, y in toks)
        for m in _TOKEN.finditer(text):
            a, b = m.span()
            g, p = is_gold.find(1, a, b) >= 0, covered.find(1, a, b) >= 0
            tp += g and p
            fp += p and not g
            fn += g and not p
            if g and a in token_cat:
                cat_total[token_cat[a]] += 1
                cat_hit[token_cat[a]] += p
                if text[a].isalnum():
                    word_total[token_cat[a]] += 1
                    word_hit[token_cat[a]] += p
    return {
        "token_recall": round(tp / max(1, tp + fn), 4),
        "token_precision": round(tp / max(1, tp + fp), 4),
        "token_counts": {"tp": tp, "fp": fp, "fn": fn},
        "span_recall": round(spans_caught / max(1, spans_total), 4),
        "gold_spans": spans_total,
        "category_recall": {
            c: round(cat_hit[c] / cat_total[c], 4) for c in sorted(cat_total) if cat_total[c]
        },
        "category_tokens": dict(sorted(cat_total.items())),
        "category_recall_letters_digits": {
            c: round(word_hit[c] / word_total[c], 4) for c in sorted(word_total) if word_total[c]
        },
    }


def _halves(gold: Sequence[dict[str, Any]], pred: Sequence[Spans]) -> dict[str, Any]:
    """Token recall and precision, and per category recall, on each half of the corpus."""
    h = len(gold) // 2
    keys = (
        "token_recall",
        "token_precision",
        "span_recall",
        "category_recall",
        "category_recall_letters_digits",
        "token_counts",
    )
    out = {}
    for name, sl in (("first", slice(0, h)), ("second", slice(h, None))):
        res = score(gold[sl], pred[sl])
        out[name] = {"records": len(gold[sl]), **{k: res[k] for k in keys}}
    return out


#: the seed of the generated clinical note every system analyzes before it is timed (the
#: generated corpus is drawn with --seed, 25 by default)
WARMUP_SEED = 999_983
WARMUP_CPU = [0.0]  # CPU seconds of the last warm-up


def _timed(
    run: Callable[[list[str]], list[Spans]], texts: list[str]
) -> tuple[list[Spans], float, float]:
    """Predictions, wall seconds and CPU seconds of this process (the load of a shared
    machine stretches the first; the second is what to compare)."""
    c0 = time.process_time()  # start-up, untimed (its CPU recorded apart)
    warm = generate_clinical_shape_notes(1, seed=WARMUP_SEED)[0]["full_text"]
    run(["Pt seen by Dr. Roe on 3/4, NPO, cont lasix.", warm])
    WARMUP_CPU[0] = time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    out = run(texts)
    return out, time.perf_counter() - t0, time.process_time() - c0


#: the systems run in turn on this many slices of a corpus (the order alternating), so a
#: machine whose speed drifts over minutes slows them alike: run one after the other, the
#: same code's ratio to Presidio moved from 2.5 to 3.0 between two runs minutes apart
#: (Presidio's own speed by 27 %)
SLICES = 10


def _interleaved(
    runners: dict[str, Callable[[list[str]], list[Spans]]], texts: list[str], slices: int
) -> dict[str, tuple[list[Spans], float, float, float]]:
    """Each runner's predictions, wall and CPU seconds on ``texts`` and its warm-up CPU:
    all are warmed up first (untimed, as :func:`_timed`), then run slice by slice, the
    runners' order reversed every other slice. A runner analyzes each note alone, so the
    slicing changes no prediction."""
    warm_cpu: dict[str, float] = {}
    for name, run in runners.items():
        _timed(run, [])
        warm_cpu[name] = WARMUP_CPU[0]
    n = max(1, min(slices, len(texts)))
    bounds = [round(i * len(texts) / n) for i in range(n + 1)]
    preds: dict[str, list[Spans]] = {name: [] for name in runners}
    wall = dict.fromkeys(runners, 0.0)
    cpu = dict.fromkeys(runners, 0.0)
    names = list(runners)
    for i in range(n):
        part = texts[bounds[i] : bounds[i + 1]]
        for name in names if i % 2 == 0 else names[::-1]:
            t0, c0 = time.perf_counter(), time.process_time()
            preds[name] += runners[name](part)
            wall[name] += time.perf_counter() - t0
            cpu[name] += time.process_time() - c0
    return {k: (preds[k], wall[k], cpu[k], warm_cpu[k]) for k in runners}


def _veil(model: str, profile: str) -> Callable[[list[str]], list[Spans]]:
    analyzer = TextAnalyzer.from_config(model=model, profile=profile)

    def run(texts: list[str]) -> list[Spans]:
        return [[(f.start, f.end) for f in fs] for fs in analyzer.analyze_batch(texts)]

    return run


def _presidio_run(model: str) -> Callable[[list[str]], list[Spans]]:
    engine = _presidio(model, ner=True)

    def run(texts: list[str]) -> list[Spans]:
        return [[(r.start, r.end) for r in engine.analyze(text=t, language="en")] for t in texts]

    return run


#: philter-lite patterns that Python's ``re`` cannot finish on notes in capitals
#: (exponential backtracking, ``_philter_run.py``): left out of the engines' comparison
PHILTER_RE_HANGS = ["salutations6", "salutations7"]


def _philter(
    python: str, texts: list[str], engine: str = "regex"
) -> tuple[list[Spans], float, dict[str, Any]]:
    req = {
        "texts": texts,
        "tagger_site": sysconfig.get_paths()["purelib"],
        "engine": engine,
        "check_engine": engine == "regex",
        "check_skip": PHILTER_RE_HANGS,
    }
    proc = subprocess.run(
        [python, str(ROOT / "benchmarks" / "_philter_run.py")],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        # the runner's own error, not a note: it reads the notes from stdin only
        raise RuntimeError(f"philter-lite failed (exit {proc.returncode})")
    res = json.loads(proc.stdout)
    spans = [[(a, b) for a, b in doc] for doc in res["spans"]]
    info = {
        "cpu_seconds": round(res["cpu_seconds"], 1),
        "docs_per_cpu_s": round(len(texts) / res["cpu_seconds"], 2),
        "tagger": res["tagger"],
        "tagger_cpu_seconds": round(res["tagger_cpu_seconds"], 1),
        "tagger_site": req["tagger_site"] if "spaCy" in res["tagger"] else None,
        "engine": res["engine"],
        "engine_check": res["engine_check"],
        "version": res["version"],
        "config": "philter_delta.toml (the package's only shipped configuration)",
    }
    return spans, float(res["seconds"]), info


SYSTEMS = ("veil", "veil_hipaa", "veil_clinical", "presidio", "philter_lite")


def run_corpus(
    gold: list[dict[str, Any]],
    model: str,
    philter_python: str | None,
    only: Sequence[str] = SYSTEMS,
    previous: dict[str, Any] | None = None,
    halves: bool = False,
    philter_every: int = 1,
    philter_engine: str = "regex",
) -> dict[str, Any]:
    """Score the systems in ``only`` on ``gold``; the others are carried from ``previous``
    (the same corpus's entry in the last results file) and marked ``carried_over``. With
    ``halves``, each system is also scored on the corpus's first and second halves (in
    file order): the rules of issue #25 were developed against the first half only, so
    the second half is the held-out measure. philter-lite runs on every
    ``philter_every``-th record only (it takes a CPU-second or so a note), scored on that
    sample, which its entry records; its speed is then compared by characters."""
    texts = [r["full_text"] for r in gold]
    systems: dict[str, Any] = {}
    makers: dict[str, Callable[[], Callable[[list[str]], list[Spans]]]] = {
        "veil": lambda: _veil(model, "default"),
        "veil_hipaa": lambda: _veil(model, "hipaa"),
        "veil_clinical": lambda: _veil(model, "clinical"),
        "presidio": lambda: _presidio_run(model),
    }
    same = bool(previous) and previous.get("characters") == sum(map(len, texts))
    dropped = []  # systems whose last run was on another version of the corpus
    for name in SYSTEMS:
        if name not in only and previous and name in previous.get("systems", {}):
            if same:
                systems[name] = {**previous["systems"][name], "carried_over": True}
            else:
                dropped.append(name)
    runners = {name: make() for name, make in makers.items() if name in only}
    timed = _interleaved(runners, texts, SLICES)
    for name in runners:
        pred, secs, cpu, warm_cpu = timed[name]
        systems[name] = {**score(gold, pred), "seconds": round(secs, 1)}
        systems[name]["docs_per_s"] = round(len(texts) / secs, 1)
        systems[name]["cpu_seconds"] = round(cpu, 1)
        systems[name]["docs_per_cpu_s"] = round(len(texts) / cpu, 1)
        systems[name]["chars_per_cpu_s"] = round(sum(map(len, texts)) / cpu)
        systems[name]["warmup_cpu_seconds"] = round(warm_cpu, 2)
        systems[name]["timing"] = f"interleaved with the other systems run, {SLICES} slices"
        if halves:
            systems[name]["halves"] = _halves(gold, pred)
        print(name, {k: systems[name][k] for k in ("token_recall", "token_precision")}, flush=True)
    if philter_python and "philter_lite" in only:
        sample = list(range(0, len(gold), philter_every))
        some = [texts[i] for i in sample]
        try:
            pred, secs, info = _philter(philter_python, some, philter_engine)
        except (OSError, RuntimeError) as exc:
            systems["philter_lite"] = {"error": str(exc)}
        else:
            part = [gold[i] for i in sample]
            chars = sum(map(len, some))
            systems["philter_lite"] = {
                **score(part, pred),
                **({"halves": _halves(part, pred)} if halves else {}),
                "seconds": round(secs, 1),
                "docs_per_s": round(len(some) / secs, 2),
                "chars_per_cpu_s": round(chars / info["cpu_seconds"]),
                **info,
            }
            if "veil_hipaa" in runners:
                # veil on the same notes, right after philter-lite: docs/s compared directly
                _, v_secs, v_cpu = _timed(runners["veil_hipaa"], some)
                systems["philter_lite"]["veil_hipaa_same_notes"] = {
                    "seconds": round(v_secs, 2),
                    "docs_per_s": round(len(some) / v_secs, 1),
                    "cpu_seconds": round(v_cpu, 2),
                    "docs_per_cpu_s": round(len(some) / v_cpu, 1),
                    "docs_per_s_ratio": round(
                        (len(some) / v_secs) / systems["philter_lite"]["docs_per_s"], 1
                    ),
                    "docs_per_cpu_s_ratio": round(
                        (len(some) / v_cpu) / systems["philter_lite"]["docs_per_cpu_s"], 1
                    ),
                }
            if philter_every > 1:
                systems["philter_lite"]["sample"] = {
                    "every": philter_every,
                    "records": len(some),
                    "characters": chars,
                    "note": "scored on every n-th record (file order); halves split that "
                    "sample; speed compared with veil by characters per CPU second",
                }
    systems = {name: systems[name] for name in SYSTEMS if name in systems}
    out = {"records": len(gold), "characters": sum(map(len, texts)), "systems": systems}
    if dropped:
        out["not_rerun_on_this_corpus"] = dropped
    return out


def targets(result: dict[str, Any]) -> dict[str, Any]:
    """Which of issue #25's targets the ``hipaa`` profile meets on one corpus."""
    s = result["systems"]
    h = s["veil_hipaa"]
    out: dict[str, Any] = {
        "token_recall": h["token_recall"] >= TARGETS["token_recall"],
        "token_precision": h["token_precision"] >= TARGETS["token_precision"],
    }
    for cat, need in TARGETS["category_recall"].items():
        if cat in h["category_recall"]:
            out[f"{cat}_recall"] = h["category_recall"][cat] >= need
    for peer, key in (("philter_lite", "speed_vs_philter"), ("presidio", "speed_vs_presidio")):
        if "sample" in s.get(peer, {}) and "chars_per_cpu_s" in h:
            # the peer ran on a sample of the notes: compare characters per CPU second
            cpu = h["chars_per_cpu_s"] / s[peer]["chars_per_cpu_s"]
            out[key] = {"cpu_ratio": round(cpu, 1), "cpu_met": cpu >= TARGETS[key]}
            out[key]["by"] = "characters per CPU second (the peer ran on a sample)"
            if s[peer].get("carried_over") or h.get("carried_over"):
                out[key]["compares_runs_of_different_loads"] = True
            continue
        if "docs_per_s" in s.get(peer, {}):
            ratio = h["docs_per_s"] / s[peer]["docs_per_s"]
            out[key] = {"ratio": round(ratio, 1), "met": ratio >= TARGETS[key]}
            if "docs_per_cpu_s" in s[peer] and "docs_per_cpu_s" in h:
                # CPU time of this process: comparable under a shared machine's load
                cpu = h["docs_per_cpu_s"] / s[peer]["docs_per_cpu_s"]
                out[key].update(cpu_ratio=round(cpu, 1), cpu_met=cpu >= TARGETS[key])
            if s[peer].get("carried_over") or h.get("carried_over"):
                out[key]["compares_runs_of_different_loads"] = True
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deid", help="folder holding the deid corpus's id.text and id-phi.phrase")
    ap.add_argument("--source", default="", help="where the deid copy came from (recorded)")
    ap.add_argument("--generated", type=int, default=300, help="generated notes (0: none)")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--philter-python", help="python of an environment with philter-lite")
    ap.add_argument(
        "--philter-every",
        type=int,
        default=1,
        help="run philter-lite on every n-th deid note only (it is slow); 1: all",
    )
    ap.add_argument(
        "--philter-engine",
        choices=("regex", "re"),
        default="regex",
        help="engine for philter-lite's patterns: 'regex' (same patterns; two of them "
        "backtrack exponentially under Python's re, see _philter_run.py) or 're' (as shipped)",
    )
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/text_clinical.json"))
    ap.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help="comma-separated systems to run; the others are carried from --out's last run",
    )
    ap.add_argument("--note", default="", help="what the run is for (recorded as given)")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(only) - set(SYSTEMS))
    if unknown:
        raise SystemExit(f"--systems: unknown {unknown}; choose from {list(SYSTEMS)}")
    last = Path(args.out)
    before = json.loads(last.read_text(encoding="utf-8")) if last.exists() else {}
    carried = before.get("corpora", {})
    model = best_english_model()
    if model is None:
        raise SystemExit("no English spaCy pipeline installed: install veil's text extra")
    out: dict[str, Any] = {
        "benchmark": "text_clinical",
        "command": " ".join(["benchmarks/text_clinical.py", *(argv or sys.argv[1:])]),
        "previous_command": before.get("command") if set(only) != set(SYSTEMS) else None,
        **({"note": args.note} if args.note else {}),
        "spacy_model": model,
        "targets": TARGETS,
        "machine": {"cpus": os.cpu_count(), "load_avg_at_start": list(os.getloadavg())},
        "corpora": {},
    }
    if args.generated:
        gold = generate_clinical_shape_notes(args.generated, seed=args.seed)
        res = run_corpus(gold, model, args.philter_python, only, carried.get("generated_clinical"))
        res["source"] = f"veil text corpus --kind clinical --n {args.generated} --seed {args.seed}"
        res["targets_met"] = targets(res)
        out["corpora"]["generated_clinical"] = res
    if args.deid:
        gold = load_corpus("physionet-deid", args.deid)
        res = run_corpus(
            gold,
            model,
            args.philter_python,
            only,
            carried.get("physionet_deid"),
            halves=True,
            philter_every=args.philter_every,
            philter_engine=args.philter_engine,
        )
        res["held_out"] = (
            "halves.second: the notes after the first half (file order), not used while "
            "writing the rules of 2026-11-27 (developed against halves.first)"
        )
        res["source"] = args.source
        res["targets_met"] = targets(res)
        out["corpora"]["physionet_deid"] = res
    for name, previous in carried.items():
        if name not in out["corpora"]:  # a corpus not run this time: kept as it was
            out["corpora"][name] = {**previous, "carried_over": True}
    out["machine"]["load_avg_at_end"] = list(os.getloadavg())
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
