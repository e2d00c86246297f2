"""Interleaved A/B of two checkouts' CPU time per document (``hipaa`` profile), in one
process: each checkout's ``veil`` is imported in turn, then both analyze the same texts
rep after rep (A then B on deid, then on generated notes), so that both see the same load.
Findings are compared too (they must be equal).

Run::

    python benchmarks/text_speed_ab.py /path/to/old/src /path/to/new/src \\
        --deid /tmp/deid/id.text --deid-notes 600 --generated 300 --reps 5 [--ner] \\
        [--out benchmarks/results/text_speed_ab_NAME.json]

Prints CPU ms per document for every rep (``time.process_time``; the texts are warmed
with 40 first, untimed). The deid notes are read in file order, never printed. ``--out``
writes the times, their medians, the median of B/A per rep and whether the findings are
equal as JSON, with each checkout's commit (``git rev-parse HEAD`` where it is a git
checkout) and the load average before and after.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("src_a")
    ap.add_argument("src_b")
    ap.add_argument("--deid", default="/tmp/deid/id.text")
    ap.add_argument("--deid-notes", type=int, default=600)
    ap.add_argument("--generated", type=int, default=300)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ner", action="store_true", help="with NER (the best English model)")
    ap.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = ap.parse_args()
    load_before = os.getloadavg()
    raw = open(args.deid, encoding="utf-8", errors="replace").read()  # noqa: SIM115
    notes = [n for n in re.split(r"\|\|\|\|END_OF_RECORD\n?", raw) if n.strip()]
    deid = notes[: args.deid_notes]
    analyzers = []
    gen: list[str] | None = None
    for src in (args.src_a, args.src_b):
        for name in [m for m in sys.modules if m == "veil" or m.startswith("veil.")]:
            del sys.modules[name]
        sys.path.insert(0, src)
        from veil.text import TextAnalyzer
        from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes
        from veil.text.ner._ner import best_english_model

        texts = [
            r["full_text"] for r in generate_clinical_shape_notes(args.generated, seed=args.seed)
        ]
        assert gen is None or texts == gen, "the checkouts generate different notes"
        gen = texts
        analyzer = (
            TextAnalyzer.from_config(model=best_english_model(), profile="hipaa")
            if args.ner
            else TextAnalyzer.from_config(ner=False, profile="hipaa")
        )
        analyzer.analyze_batch(deid[:20] + gen[:20])
        analyzers.append(analyzer)
        sys.path.remove(src)
    assert gen is not None
    times: dict[str, list[float]] = {}
    found: dict[tuple[int, str], list[list[dict]]] = {}
    for _ in range(args.reps):
        for k, analyzer in enumerate(analyzers):
            for name, texts in (("deid", deid), ("generated", gen)):
                c0 = time.process_time()
                out = analyzer.analyze_batch(texts)
                cpu = time.process_time() - c0
                times.setdefault(f"{'AB'[k]} {name}", []).append(round(cpu / len(texts) * 1e3, 3))
                found.setdefault((k, name), [[f.to_dict(explain=True) for f in fs] for fs in out])
    summary: dict[str, Any] = {}
    for name in ("deid", "generated"):
        same = found[(0, name)] == found[(1, name)]
        print(f"{name}: findings {'identical' if same else 'DIFFERENT'}")
        ratios = sorted(b / a for a, b in zip(times[f"A {name}"], times[f"B {name}"], strict=True))
        print(f"  B/A per rep, median: {ratios[len(ratios) // 2]:.3f}")
        summary[name] = {
            "texts": len(deid if name == "deid" else gen),
            "findings_identical": same,
            "findings": sum(map(len, found[(1, name)])),
            "cpu_ms_per_doc": {"A": times[f"A {name}"], "B": times[f"B {name}"]},
            "median_cpu_ms_per_doc": {k: _median(times[f"{k} {name}"]) for k in "AB"},
            "b_over_a_median_per_rep": round(ratios[len(ratios) // 2], 3),
        }
    for key, values in times.items():
        print(key, "CPU ms/doc", values, "median", sorted(values)[len(values) // 2])
    if args.out is not None:
        result = {
            "benchmark": "text_speed_ab",
            "command": " ".join(["benchmarks/text_speed_ab.py", *sys.argv[1:]]),
            "date": datetime.date.today().isoformat(),
            "profile": "hipaa, "
            + ("with NER (the best installed English model)" if args.ner else "regex only"),
            "model": analyzers[0].model_name,
            "A": {"src": args.src_a, "commit": _commit(args.src_a)},
            "B": {"src": args.src_b, "commit": _commit(args.src_b)},
            "reps": args.reps,
            "timing": "CPU time (time.process_time) per text, A then B on each corpus each rep",
            "machine": {
                "cpus": os.cpu_count(),
                "load_avg_before": [round(x, 2) for x in load_before],
                "load_avg_after": [round(x, 2) for x in os.getloadavg()],
            },
            "corpora": {
                "deid": f"{args.deid}: the first {len(deid)} notes",
                "generated": f"generate_clinical_shape_notes({args.generated}, seed={args.seed})",
            },
            "results": summary,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print("wrote", args.out)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def _commit(src: str) -> str | None:
    """The checkout's commit (with ``-dirty`` when its tracked files differ), or ``None``
    when ``src`` is no git checkout (an archive)."""
    run = subprocess.run(
        ["git", "-C", src, "rev-parse", "--show-toplevel", "HEAD"], capture_output=True, text=True
    )
    if run.returncode != 0:
        return None
    top, head = run.stdout.split()
    if Path(top).resolve() != Path(src).resolve().parent:
        return None  # a folder inside some other checkout
    dirty = subprocess.run(["git", "-C", top, "diff", "--quiet", "HEAD", "--", "src"]).returncode
    return head + ("-dirty" if dirty else "")


if __name__ == "__main__":
    main()
