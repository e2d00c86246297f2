"""Digests of every finding veil makes on fixed corpora: to show that a change meant for speed
changed no finding.

For each corpus (generated with fixed seeds: ``general``, ``notes``, ``clinical``, ``secrets``,
``business``, as ``veil text corpus`` writes them; the committed corpus; with ``--deid``, the
first notes of PhysioNet's deid ``id.text``) and each reading of it, a SHA-256 of the findings
(offsets, entity type, score, tier and explanation: no text) and their number:

* ``raw``: each built-in recognizer's own findings, recognizer by recognizer, before the
  overlap rule (the regex stage as the recognizers return it);
* ``regex``: ``analyze_batch`` without NER; ``ner``: with NER (the best installed English
  model); ``hipaa``: regex-only with the ``hipaa`` profile, on the clinical corpora;
  ``hipaa_ner``: the ``hipaa`` profile with NER, as ``veil redact --profile hipaa`` runs.

Run it on two checkouts and compare::

    PYTHONPATH=src python benchmarks/text_findings_digest.py --out /tmp/new.json
    python benchmarks/text_findings_digest.py --src ../main/src --out /tmp/old.json \\
        --compare /tmp/new.json

``--src`` picks the checkout whose ``veil`` is measured (default: this one's ``src``).
Writes ``benchmarks/results/text_findings_digest.json`` by default.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CORPORA = {  # name: (kind, records, seed), as ``veil text corpus --kind KIND --n N --seed S``
    "general": ("general", 2000, 0),
    "notes": ("notes", 300, 99),
    "clinical": ("clinical", 300, 3),
    "secrets": ("secrets", 500, 4),
    "business": ("business", 800, 5),
}
CLINICAL = ("notes", "clinical", "deid")


def _corpus(kind: str, n: int, seed: int) -> list[str]:
    from veil.text import generate_clinical_notes, generate_corpus

    if kind == "business":
        from veil.text.evaluation._corpus_business import generate_business_corpus

        recs = generate_business_corpus(n, seed=seed)
    elif kind == "secrets":
        from veil.text.evaluation._corpus_secrets import SECRET_TEMPLATES

        recs = generate_corpus(n, seed=seed, templates=SECRET_TEMPLATES)
    elif kind == "clinical":
        from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes

        recs = generate_clinical_shape_notes(n, seed=seed)
    elif kind == "notes":
        recs = generate_clinical_notes(n, seed=seed)
    else:
        recs = generate_corpus(n, seed=seed)
    return [r["full_text"] for r in recs]


def _digest(items: Any) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()


def digests(
    deid: Path | None, deid_notes: int, only: frozenset[str] | None = None
) -> dict[str, Any]:
    from veil.text import TextAnalyzer

    texts = {name: _corpus(*spec) for name, spec in CORPORA.items() if only is None or name in only}
    gold = ROOT / "tests" / "data" / "text_corpus.jsonl"
    if only is None or "committed" in only:
        texts["committed"] = [json.loads(line)["full_text"] for line in gold.open(encoding="utf-8")]
    if deid is not None and (only is None or "deid" in only):
        raw = deid.read_text(encoding="utf-8", errors="replace")
        notes = [n for n in re.split(r"\|\|\|\|END_OF_RECORD\n?", raw) if n.strip()]
        texts["deid"] = notes[:deid_notes]
    regex = TextAnalyzer.from_config(ner=False)
    ner = TextAnalyzer.from_config(ner=True)
    hipaa = TextAnalyzer.from_config(ner=False, profile="hipaa")
    hipaa_ner = TextAnalyzer.from_config(ner=True, profile="hipaa")
    out: dict[str, Any] = {}
    for name, ts in texts.items():
        raw_items = [
            [
                [r.name, sorted([f.to_dict(explain=True) for f in r.analyze(t)], key=str)]
                for r in regex.recognizers
            ]
            for t in ts
        ]
        readings = {
            "raw": raw_items,
            "regex": [[f.to_dict(explain=True) for f in fs] for fs in regex.analyze_batch(ts)],
            "ner": [[f.to_dict(explain=True) for f in fs] for fs in ner.analyze_batch(ts)],
        }
        if name in CLINICAL:
            readings["hipaa"] = [
                [f.to_dict(explain=True) for f in fs] for fs in hipaa.analyze_batch(ts)
            ]
            readings["hipaa_ner"] = [
                [f.to_dict(explain=True) for f in fs] for fs in hipaa_ner.analyze_batch(ts)
            ]
        out[name] = {"texts": len(ts)}
        for reading, items in readings.items():
            found = sum(len(per[1]) for doc in items for per in doc) if reading == "raw" else None
            out[name][reading] = {
                "sha256": _digest(items),
                "findings": found if found is not None else sum(map(len, items)),
            }
    return {"corpora": out, "model": ner.model_name, "recognizers": len(regex.recognizers)}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--src", default=str(ROOT / "src"), help="the checkout's src folder")
    ap.add_argument("--deid", type=Path, default=None, help="PhysioNet deid id.text")
    ap.add_argument("--deid-notes", type=int, default=400)
    ap.add_argument("--compare", type=Path, default=None, help="another run's JSON")
    ap.add_argument(
        "--corpora",
        default=None,
        help="comma-separated corpora to digest (default: all); a comparison then names only those",
    )
    ap.add_argument(
        "--out", default=str(ROOT / "benchmarks" / "results" / "text_findings_digest.json")
    )
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.src).resolve()))
    src = Path(args.src).resolve()
    commit = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    result = {
        "benchmark": "text_findings_digest",
        "command": " ".join(["benchmarks/text_findings_digest.py", *sys.argv[1:]]),
        "commit": commit,
        "python": platform.python_version(),
        "corpora_generated": {
            k: {"kind": v[0], "n": v[1], "seed": v[2]} for k, v in CORPORA.items()
        },
        **digests(
            args.deid,
            args.deid_notes,
            frozenset(args.corpora.split(",")) if args.corpora else None,
        ),
    }
    if args.compare is not None:
        other = json.loads(args.compare.read_text(encoding="utf-8"))
        diff = [
            f"{name}/{reading}"
            for name, readings in result["corpora"].items()
            for reading, value in readings.items()
            if reading != "texts"
            and other["corpora"].get(name, {}).get(reading, {}).get("sha256") != value["sha256"]
        ]
        result["compared_with"] = {"commit": other.get("commit"), "different": diff}
        print("identical" if not diff else "DIFFERENT: " + ", ".join(diff))
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
