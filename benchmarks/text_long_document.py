"""One long document: veil and Presidio, regex-only, on the same text in the same process.

A single document of several megabytes (a log dump, a concatenated export, a long record)
holds thousands of findings, so any per-finding cost that grows with the number of findings
shows here and not on short documents. The document is the committed corpus
(``tests/data/text_corpus.jsonl``) joined with newlines and repeated to each size.

Presidio runs its default pattern recognizers through ``AnalyzerEngine.analyze`` with a
spaCy pipeline that only tokenizes (NER removed, as in ``text_presidio.py``); veil runs
``TextAnalyzer.from_config(ner=False)``. Both are timed best of ``--repeat`` on each size.
Presidio's time grows faster than the document (0.2 MB took it 10 s on the 2-core
machine), so larger sizes (``--veil-only-mb``) time veil alone.

Run: ``PYTHONPATH=src python benchmarks/text_long_document.py [--sizes-mb 0.1 0.5]
[--veil-only-mb 10] [--repeat 2]``
Writes ``benchmarks/results/text_long_document.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import best_of  # noqa: E402
from text_presidio import _presidio  # noqa: E402
from veil.text import TextAnalyzer  # noqa: E402
from veil.text.ner._ner import best_english_model  # noqa: E402


def document(size: int) -> str:
    """The committed corpus joined with newlines, repeated and cut to ``size`` characters
    (at a newline, so no record is cut in half)."""
    path = ROOT / "tests" / "data" / "text_corpus.jsonl"
    records = [json.loads(line)["full_text"] for line in path.read_text("utf-8").splitlines()]
    base = "\n".join(records) + "\n"
    text = base * (size // len(base) + 1)
    cut = text.rfind("\n", 0, size)
    return text[: cut + 1]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes-mb", type=float, nargs="+", default=[0.1, 0.5])
    ap.add_argument("--veil-only-mb", type=float, nargs="*", default=[10.0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument(
        "--out", default=str(ROOT / "benchmarks" / "results" / "text_long_document.json")
    )
    args = ap.parse_args(argv)

    import importlib.metadata as md

    model = best_english_model()
    assert model is not None, "no English spaCy model installed"
    veil = TextAnalyzer.from_config(ner=False)
    presidio = _presidio(model, ner=False)
    veil.analyze("warm up: jo@example.com")
    presidio.analyze(text="warm up: jo@example.com", language="en")
    rows = []
    for mb in args.sizes_mb:
        text = document(int(mb * 1_000_000))
        presidio.nlp_engine.nlp["en"].max_length = len(text) + 1
        t_veil, found = best_of(lambda text=text: veil.analyze(text), args.repeat)
        t_presidio, res = best_of(
            lambda text=text: presidio.analyze(text=text, language="en"), args.repeat
        )
        row = {
            "characters": len(text),
            "veil_seconds": round(t_veil, 3),
            "presidio_seconds": round(t_presidio, 3),
            "veil_mb_per_s": round(len(text) / 1e6 / t_veil, 3),
            "presidio_mb_per_s": round(len(text) / 1e6 / t_presidio, 3),
            "ratio_veil_over_presidio_speed": round(t_presidio / t_veil, 2),
            "veil_findings": len(found),
            "presidio_findings": len(res),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    for mb in args.veil_only_mb:
        text = document(int(mb * 1_000_000))
        t_veil, found = best_of(lambda text=text: veil.analyze(text), args.repeat)
        row = {
            "characters": len(text),
            "veil_seconds": round(t_veil, 3),
            "veil_mb_per_s": round(len(text) / 1e6 / t_veil, 3),
            "veil_findings": len(found),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    result = {
        "benchmark": "text_long_document",
        "command": " ".join(
            ["benchmarks/text_long_document.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "spacy_model": model,
        "versions": {p: md.version(p) for p in ("presidio-analyzer", "spacy")},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg": os.getloadavg(),
        },
        "repeat": args.repeat,
        "sizes": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
