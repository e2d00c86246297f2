"""Which spaCy: NER speed of the installed spaCy against other spaCy releases, side by side.

spaCy's wheels from 3.8.8 on were built with a Cython that takes the GIL (a mutex lock and
unlock) after each call into the parser state inside the NER's greedy decoding, a few
hundred times per token: ``perf`` put a third of ``EntityRecognizer.predict`` in
``pthread_mutex_lock``/``unlock`` under ``Begin.is_valid`` and ``Unit.is_valid``. The
sources of the parser are the same in 3.8.7 and 3.8.18; only the build differs.

This script measures it: for the installed spaCy and for each ``--other`` folder (a spaCy
release installed with ``pip install --no-deps --target DIR spacy==X``, which shares the
installed thinc and model), a fresh subprocess loads the same model and runs, on the
committed corpus cycled to ``--docs`` texts: spaCy NER alone (as veil loads it), veil's
``analyze_batch`` with NER, and Presidio's ``AnalyzerEngine.analyze`` per document. Each
build runs ``--rounds`` times, alternating, and keeps its best figure; veil's findings are
hashed so that a change of output would show.

Run::

    pip install --no-deps --target /tmp/spacy-3.8.18 spacy==3.8.18
    PYTHONPATH=src python benchmarks/text_spacy_build.py --other /tmp/spacy-3.8.18

Writes ``benchmarks/results/text_spacy_build.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _child(docs: int) -> dict[str, Any]:
    """One build's figures, in this process (its spaCy is whatever ``sys.path`` finds)."""
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import spacy

    from _timing import best_of
    from text_presidio import _presidio, _presidio_docs, _spacy_only
    from veil.text import TextAnalyzer, load_gold

    gold = load_gold(ROOT / "tests" / "data" / "text_corpus.jsonl")
    texts = [gold[i % len(gold)]["full_text"] for i in range(docs)]
    veil = TextAnalyzer.from_config(ner=True)
    veil.analyze_batch(texts[:8])
    assert veil.ner is not None
    nlp = veil.ner.nlp

    presidio = _presidio(veil.model_name or "", ner=True)
    presidio.analyze(text=texts[0], language="en")
    t_spacy, _ = best_of(lambda: _spacy_only(nlp, texts), 5)
    t_veil, found = best_of(lambda: veil.analyze_batch(texts), 5)
    t_presidio, _ = best_of(lambda: _presidio_docs(presidio, texts), 3)
    digest = hashlib.sha256(
        json.dumps([[f.to_dict() for f in fs] for fs in found], sort_keys=True).encode()
    ).hexdigest()
    return {
        "spacy": spacy.__version__,
        "spacy_path": str(Path(spacy.__file__).parent),
        "model": veil.model_name,
        "docs_per_s": {
            "spacy_ner_only": round(docs / t_spacy, 1),
            "veil_batch_ner": round(docs / t_veil, 1),
            "presidio_per_doc_ner": round(docs / t_presidio, 1),
        },
        "veil_findings_sha256": digest,
    }


def _run_child(other: str | None, docs: int) -> dict[str, Any]:
    env = dict(os.environ)
    if other:
        env["PYTHONPATH"] = os.pathsep.join([other, env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--docs", str(docs)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", action="append", default=[], help="a folder holding a spaCy")
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/text_spacy_build.json")
    args = ap.parse_args()
    if args.child:
        for name in ("presidio-analyzer", "presidio_analyzer", "tldextract"):
            logging.getLogger(name).setLevel(logging.CRITICAL)  # it logs candidate values
        print(json.dumps(_child(args.docs)))
        return
    t0 = time.perf_counter()
    builds: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):
        for other in [None, *args.other]:
            res = _run_child(other, args.docs)
            seen = builds.setdefault(res["spacy"], res)
            for k, v in res["docs_per_s"].items():
                seen["docs_per_s"][k] = max(seen["docs_per_s"][k], v)
            if seen["veil_findings_sha256"] != res["veil_findings_sha256"]:
                raise SystemExit("veil's findings changed between two runs of one build")
    installed = next(iter(builds))
    base = builds[installed]["docs_per_s"]
    for res in builds.values():
        rate = res["docs_per_s"]
        res["ratios"] = {
            "veil_batch_ner/presidio_per_doc_ner": round(
                rate["veil_batch_ner"] / rate["presidio_per_doc_ner"], 2
            ),
            f"spacy_ner_only/spacy_ner_only_of_{installed}": round(
                rate["spacy_ner_only"] / base["spacy_ner_only"], 2
            ),
            f"veil_batch_ner/veil_batch_ner_of_{installed}": round(
                rate["veil_batch_ner"] / base["veil_batch_ner"], 2
            ),
        }
    digests = {r["veil_findings_sha256"] for r in builds.values()}
    out = {
        "benchmark": "text_spacy_build",
        "command": "benchmarks/text_spacy_build.py "
        + " ".join(a for o in args.other for a in ("--other", o)),
        "docs": args.docs,
        "rounds": args.rounds,
        "installed": installed,
        "builds": builds,
        "same_findings_in_every_build": len(digests) == 1,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_at_end": list(os.getloadavg()),
        },
        "seconds": round(time.perf_counter() - t0, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
