"""Double-barrelled surnames ("Chavez-Lopez") in clinical frames: is the whole name found?

The names are two Faker surnames joined by a hyphen, drawn from six locales' person
providers (en_GB, de_DE, fr_FR, es_MX, it_IT, nl_NL; the clinical generator uses en_US
only), each placed in one of four short clinical frames written for this benchmark. Per
name: whether any part of it is covered by a finding (``any_part_covered``) and whether
all of it, hyphen included, is (``whole_name_covered``), with the ``hipaa`` profile and the
best installed English spaCy pipeline. Run it on two checkouts to compare::

    PYTHONPATH=src python benchmarks/text_hyphenated_names.py --out /tmp/new.json
    python benchmarks/text_hyphenated_names.py --src /other/src --out /tmp/old.json

Writes ``benchmarks/results/text_hyphenated_names.json`` by default.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ("en_GB", "de_DE", "fr_FR", "es_MX", "it_IT", "nl_NL")
FRAMES = (
    "Pt seen by {n} this am; NPO after midnight, cont lasix.",
    "Wife {f} {n} called, updated on plan. HR 88, BP 118/70.",
    "D/w {n} re abx; f/u cx in am.",
    "{n} RN aware of K 3.1, repleted per protocol.",
)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--src", default=str(ROOT / "src"), help="the checkout's src folder")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/text_hyphenated_names.json"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.src).resolve()))
    from faker import Faker

    from veil.text import TextAnalyzer
    from veil.text.ner._ner import best_english_model

    rng = random.Random(args.seed)
    fakers = {loc: Faker(loc) for loc in LOCALES}
    for f in fakers.values():
        f.seed_instance(args.seed)
    analyzer = TextAnalyzer.from_config(model=best_english_model(), profile="hipaa")
    hit = whole = 0
    for _ in range(args.n):
        fake = fakers[rng.choice(LOCALES)]
        name = f"{fake.last_name()}-{fake.last_name()}"
        text = rng.choice(FRAMES).format(n=name, f=fake.first_name())
        a = text.index(name)
        b = a + len(name)
        covered = bytearray(len(text))
        for x in analyzer.analyze(text):
            covered[x.start : x.end] = b"\x01" * (x.end - x.start)
        hit += covered.find(1, a, b) >= 0
        whole += all(covered[a:b])
    out = {
        "benchmark": "text_hyphenated_names",
        "command": " ".join(["benchmarks/text_hyphenated_names.py", *(argv or sys.argv[1:])]),
        "src": "this checkout" if Path(args.src).resolve() == (ROOT / "src") else "another",
        "profile": "hipaa",
        "locales": list(LOCALES),
        "names": args.n,
        "any_part_covered": hit,
        "whole_name_covered": whole,
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
