"""Why veil runs spaCy's matrix products on numpy's BLAS: thinc's BLIS against numpy's BLAS.

Two measurements, one BLAS thread throughout (as veil runs the model):

1. ``gemm``: one matrix product of the NER model's shapes (the tok2vec's maxout layers on a
   batch of 256 short texts, about 7,680 tokens) with ``blis.py.gemm``, which thinc's
   ``NumpyOps`` uses by default, and with numpy's ``@``.
2. ``ner``: spaCy's NER alone (tokenizer + ``ner``, every other component removed), texts
   of the committed corpus sorted by length as veil sends them, batches of 256, with thinc's
   default ops (BLIS) and with ``NumpyOps(use_blis=False)`` as veil sets them
   (:func:`veil.text.ner._ner._use_numpy_blas`); the two pipelines alternate round by round, so
   a slow spell of a shared machine hits both alike. The entities of the two are compared.

Writes ``benchmarks/results/text_blas.json`` with the processor and the BLAS libraries (the
gap depends on both: BLIS picks its kernels by processor).

Run::

    PYTHONPATH=src python benchmarks/text_blas.py
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

from _timing import best_of, cpu_and_blas  # noqa: E402
from text_presidio import _stock_ner  # noqa: E402
from veil.text import load_gold  # noqa: E402
from veil.text.ner._ner import _one_blas_thread, _use_numpy_blas, best_english_model  # noqa: E402

SHAPES = [(7680, 288, 288), (7680, 384, 288), (2000, 288, 288)]


def gemm(repeat: int) -> list[dict[str, Any]]:
    import blis.py

    rng = np.random.default_rng(0)
    out = []
    for n, k, m in SHAPES:
        x = rng.standard_normal((n, k), dtype=np.float32)
        w = rng.standard_normal((m, k), dtype=np.float32)
        with _one_blas_thread():
            t_blis, a = best_of(lambda x=x, w=w: blis.py.gemm(x, w, trans2=True), repeat)
            t_np, b = best_of(lambda x=x, w=w: x @ w.T, repeat)
        out.append(
            {
                "shape": f"{n}x{k} by {k}x{m}",
                "blis_ms": round(t_blis * 1e3, 3),
                "numpy_ms": round(t_np * 1e3, 3),
                "blis/numpy": round(t_blis / t_np, 2),
                "max_abs_difference": float(np.max(np.abs(a - b))),
            }
        )
    return out


def _ner_only(model: str, numpy_blas: bool) -> Any:
    nlp = _stock_ner(model)  # the model as spaCy ships it, only NER kept
    if numpy_blas:
        _use_numpy_blas(nlp)
    return nlp


def ner(model: str, texts: list[str], rounds: int) -> dict[str, Any]:
    pipes = {"blis": _ner_only(model, False), "numpy_blas": _ner_only(model, True)}
    ents: dict[str, list[list[tuple[int, int, str]]]] = {}
    best = {name: float("inf") for name in pipes}
    for _ in range(rounds):
        for name, nlp in pipes.items():
            t0 = time.perf_counter()
            with nlp.memory_zone(), _one_blas_thread():
                found = [
                    [(e.start_char, e.end_char, e.label_) for e in doc.ents]
                    for doc in nlp.pipe(texts, batch_size=256)
                ]
            best[name] = min(best[name], time.perf_counter() - t0)
            ents[name] = found
    rate = {name: round(len(texts) / s, 1) for name, s in best.items()}
    return {
        "docs": len(texts),
        "rounds": rounds,
        "docs_per_s": rate,
        "numpy_blas/blis": round(rate["numpy_blas"] / rate["blis"], 2),
        "same_entities": ents["blis"] == ents["numpy_blas"],
        "entities": sum(map(len, ents["blis"])),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "text_blas.json"))
    args = ap.parse_args()
    model = best_english_model()
    assert model is not None, "no English spaCy model installed"
    gold = load_gold(ROOT / "tests" / "data" / "text_corpus.jsonl")
    texts = sorted((gold[i % len(gold)]["full_text"] for i in range(args.docs)), key=len)
    result: dict[str, Any] = {
        "benchmark": "text_blas",
        "command": " ".join(["benchmarks/text_blas.py", *sys.argv[1:]]),
        "spacy_model": model,
        "versions": {p: md.version(p) for p in ("spacy", "thinc", "blis", "numpy")},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            **cpu_and_blas(),
            "load_avg_at_start": os.getloadavg(),
        },
        "gemm": gemm(args.rounds * 3),
        "ner": ner(model, texts, args.rounds),
    }
    result["machine"]["load_avg_at_end"] = os.getloadavg()
    print(json.dumps({"gemm": result["gemm"], "ner": result["ner"]}, indent=1))
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
