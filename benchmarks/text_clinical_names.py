"""Recall of names the clinical generator never uses, in clinical frames, in three cases.

The generated clinical notes (``veil text corpus --kind clinical``) draw their names from
Faker's en_US lists. Here the surnames and first names come from sources the generator does
not use, and the frames that hold them were written for this benchmark (no corpus note):

* ``faker_locales``: Faker's en_GB, en_IE, en_AU, de_DE and it_IT person providers (names
  that veil's Faker name lexicon holds too: the rules' reach over names it knows);
* ``census_only``: US Census 1990 surnames (the ``names`` package) that Faker's lists of
  every locale lack, drawn uniformly, English words included (what the Census lists add).

Each name is placed in a frame after a note's opening that makes the text a clinical note:
``cued`` frames put a cue next to it (a title, a role, a relation, "called", "spoke with",
"and" beside another name before "aware", an initial), ``uncued`` frames do not. Each note
is scored as written, in capitals and in lower case (the whole note). Token recall of the
names and the number of the frame's other tokens reported (false positives) are written,
with the ``hipaa`` profile and the best installed English spaCy pipeline.

    PYTHONPATH=src python benchmarks/text_clinical_names.py --out /tmp/names.json
    python benchmarks/text_clinical_names.py --src ../main/src --out /tmp/names_main.json

``--src`` picks the checkout whose ``veil`` is measured (default: this one's ``src``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

LOCALES = ("en_GB", "en_IE", "en_AU", "de_DE", "it_IT")
OPENING = "Pt afebrile, NPO after MN, cont lasix 20 mg IV BID. "
CUED = (
    "Dr. {L} notified of K 3.1, repleted.",
    "Spoke with {F} {L} (daughter) re: plan of care.",
    "RN {L} aware of plan.",
    "Called {L}, no answer, will try again.",
    "{L} RN covering tonight.",
    "Wife {F} at bedside, updated.",
    "Discussed with attending {L}, agrees.",
    "Signed: {I}. {L}, RN",
    "{L2} and {L} aware of change.",
    "Family meeting with {F} {L} tomorrow.",
    "Talked with {F} about dispo.",
    "Paged Dr {L} re: hypotension.",
)
UNCUED = (
    "{F} {L} in to visit this evening.",
    "{L} to follow up re: dispo in AM.",
    "Case reviewed with {L} this afternoon.",
)
CASES: dict[str, Callable[[str], str]] = {"as_written": str, "upper": str.upper, "lower": str.lower}
_TOKEN = re.compile(r"[^\W_]+")
_SLOT = re.compile(r"\{(L2|L|F|I)\}")


def _census_only(rng: random.Random) -> Callable[[], str]:
    from importlib import resources

    from veil.text.vocab._lexicon import name_lexicon

    first, last = name_lexicon()
    rows = resources.files("names").joinpath("dist.all.last").read_text().splitlines()
    names = [r.split()[0].title() for r in rows if r.split()]
    pool = [n for n in names if n.casefold() not in last and n.casefold() not in first]
    return lambda: rng.choice(pool)


def _notes(source: str, frames: tuple[str, ...], n: int, seed: int) -> list[dict[str, Any]]:
    from faker import Faker

    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for loc in LOCALES}
    for i, fake in enumerate(fakers.values()):
        fake.seed_instance(seed + i)
    census = _census_only(random.Random(seed)) if source == "census_only" else None
    out = []
    for _ in range(n):
        fake = fakers[rng.choice(LOCALES)]
        values = {
            "L": census() if census else fake.last_name(),
            "L2": census() if census else fake.last_name(),
            "F": fake.first_name(),
        }
        values["I"] = values["F"][0]
        frame = rng.choice(frames)
        text, spans, pos = OPENING, [], 0
        for m in _SLOT.finditer(frame):
            text += frame[pos : m.start()]
            value = values[m.group(1)]
            spans.append((len(text), len(text) + len(value)))
            text += value
            pos = m.end()
        out.append({"text": text + frame[pos:], "spans": spans})
    return out


def _score(analyzer: Any, notes: list[dict[str, Any]], case: Callable) -> dict:
    texts = [case(n["text"]) for n in notes]
    texts = [
        t if len(t) == len(n["text"]) else n["text"] for t, n in zip(texts, notes, strict=True)
    ]
    tp = fn = fp = 0
    for note, text, found in zip(notes, texts, analyzer.analyze_batch(texts), strict=True):
        covered, gold = bytearray(len(text)), bytearray(len(text))
        for f in found:
            covered[f.start : f.end] = b"\x01" * (f.end - f.start)
        for a, b in note["spans"]:
            gold[a:b] = b"\x01" * (b - a)
        for m in _TOKEN.finditer(text, len(OPENING)):
            g, p = gold.find(1, *m.span()) >= 0, covered.find(1, *m.span()) >= 0
            tp += g and p
            fn += g and not p
            fp += p and not g
    return {"name_tokens": tp + fn, "recall": round(tp / max(1, tp + fn), 4), "fp_tokens": fp}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=400, help="notes per source and frame kind")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/text_clinical_names.json"))
    ap.add_argument("--src", default=str(ROOT / "src"), help="the checkout's src folder")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.src).resolve()))
    from veil.text import TextAnalyzer
    from veil.text.ner._ner import best_english_model

    model = best_english_model()
    if model is None:
        raise SystemExit("no English spaCy pipeline installed: install veil's text extra")
    analyzer = TextAnalyzer.from_config(model=model, profile="hipaa")
    results: dict[str, Any] = {}
    for source in ("faker_locales", "census_only"):
        for kind, frames in (("cued", CUED), ("uncued", UNCUED)):
            notes = _notes(source, frames, args.n, args.seed)
            for case_name, case in CASES.items():
                res = _score(analyzer, notes, case)
                results.setdefault(source, {}).setdefault(kind, {})[case_name] = res
                print(source, kind, case_name, res, flush=True)
    out = {
        "benchmark": "text_clinical_names",
        "command": " ".join(["benchmarks/text_clinical_names.py", *(argv or sys.argv[1:])]),
        "spacy_model": model,
        "profile": "hipaa",
        "src": str(Path(args.src).resolve().relative_to(ROOT))
        if Path(args.src).resolve().is_relative_to(ROOT)
        else "another checkout",
        "locales": list(LOCALES),
        "results": results,
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
