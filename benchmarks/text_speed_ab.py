"""Interleaved A/B of two checkouts' CPU time per document (``hipaa`` profile), in one
process: each checkout's ``veil`` is imported in turn, then both analyze the same texts
rep after rep (A then B on deid, then on generated notes), so that both see the same load.
Findings are compared too (they must be equal).

Run::

    python benchmarks/text_speed_ab.py /path/to/old/src /path/to/new/src \\
        --deid /tmp/deid/id.text --deid-notes 600 --generated 300 --reps 5 [--ner]

Prints CPU ms per document for every rep (``time.process_time``; the texts are warmed
with 40 first, untimed). The deid notes are read in file order, never printed.
"""

from __future__ import annotations

import argparse
import re
import sys
import time


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
    args = ap.parse_args()
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
    for name in ("deid", "generated"):
        same = found[(0, name)] == found[(1, name)]
        print(f"{name}: findings {'identical' if same else 'DIFFERENT'}")
        ratios = sorted(b / a for a, b in zip(times[f"A {name}"], times[f"B {name}"], strict=True))
        print(f"  B/A per rep, median: {ratios[len(ratios) // 2]:.3f}")
    for key, values in times.items():
        print(key, "CPU ms/doc", values, "median", sorted(values)[len(values) // 2])


if __name__ == "__main__":
    main()
