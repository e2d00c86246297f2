"""Phones and dates that veil's rules were not written from, in clinical frames (issue #25).

The rules of the ``hipaa`` profile for phones and dates are checked here on values no one
on the project wrote:

* **phones**: numbers that ``phonenumbers`` draws from its own metadata (its example number
  of each region, the last digits changed until the number is still valid) and formats in
  its region's national format and in international format; North American numbers
  formatted by ``phonenumbers`` in national, international and RFC 3966 forms; numbers that
  Faker's locales print (locales the generated corpora do not use: ``FAKER_LOCALES``);
* **dates**: dates drawn at random and rendered by ``datetime.strftime`` (numeric and
  month-name formats, full and short) and, when ``babel`` is installed, by
  ``babel.dates.format_date`` and ``format_skeleton`` in US and British English;
* **negatives**: doses, scores, vital signs, lab values, ratios and times drawn at random in
  the frames notes write them in; any phone or date finding over them is a false positive.

Each value is put into a clinical frame (:data:`PHONE_FRAMES`, :data:`DATE_FRAMES`), after a
short charting sentence so that the ``hipaa`` profile reads the text as a note. A value is
*caught* when every run of letters and digits in it is covered by a finding of any type
(type-agnostic, as de-identification is scored); ``tokens`` counts the punctuation too.
Regex-only analyzer (no NER model): the figures are the rules', not a model's.

Run::

    PYTHONPATH=src python benchmarks/text_clinical_formats.py --out /tmp/formats.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from veil.text import TextAnalyzer  # noqa: E402

#: Faker locales none of veil's generated corpora draws phones from
FAKER_LOCALES = (
    "en_CA", "en_NZ", "es_MX", "pt_BR", "sv_SE", "da_DK", "cs_CZ", "hu_HU", "de_CH", "ro_RO",
    "el_GR", "ja_JP", "he_IL",
)  # fmt: skip
#: regions whose national format ``phonenumbers`` writes
PN_REGIONS = ("GB", "CA", "AU", "IE", "NZ", "DE", "FR", "IN", "MX", "BR", "ZA", "PH", "JP", "IL")
LEAD = "Pt seen on rounds, afebrile, tolerating PO, NPO after midnight. "
PHONE_FRAMES = (
    "Wife can be reached at {}.",
    "Call daughter at {} with results.",
    "PCP office tel {}",
    "HCP: son, cell {}",
    "Contact: {} (home)",
    "Family phone number {}, please call if changes.",
    "Per pt, best number is {}.",
    "dtr {} - call before d/c",
    "Please page me at {} if concerns.",
    "Spoke to sister on phone ({}) re plan.",
    "Home: {}  Work: ",
    "Reached at {} today.",
)
DATE_FRAMES = (
    "Seen in clinic on {}.",
    "Admitted {} with CP.",
    "Last colonoscopy {}, nl.",
    "f/u with PCP {}",
    "s/p CABG {}",
    "ECHO {}: EF 55%.",
    "D/C'd home {} on lasix.",
    "Next appt {} at clinic.",
    "Cath {} showed 3VD.",
    "({}) K 4.1, Cr 1.2",
)
NEGATIVES = (
    ("BP {a}/{b}", lambda r: {"a": r.randint(85, 190), "b": r.randint(40, 110)}),
    ("BP {a}/{b} HR {c}", lambda r: {"a": r.randint(85, 190), "b": r.randint(40, 110),
                                      "c": r.randint(50, 130)}),
    ("take {a}/{b} tab po bid", lambda r: {"a": 1, "b": r.choice([2, 3, 4])}),
    ("{a}/{b} tabs qhs", lambda r: {"a": r.choice([1, 2]), "b": r.choice([3, 4])}),
    ("strength {a}/5 in all ext", lambda r: {"a": r.randint(2, 5)}),
    ("{a}/5 strength LUE", lambda r: {"a": r.randint(2, 5)}),
    ("pain {a}/10", lambda r: {"a": r.randint(0, 10)}),
    ("IVF 1/2 NS at {a} cc/hr", lambda r: {"a": r.choice([75, 100, 125, 150])}),
    ("D5 1/2NS @ {a}", lambda r: {"a": r.choice([75, 100, 125])}),
    ("pulses {a}/4 bilat", lambda r: {"a": r.randint(1, 3)}),
    ("GCS {a}/{b}", lambda r: {"a": r.randint(3, 15), "b": 15}),
    ("PS {a}/{b} FiO2 40%", lambda r: {"a": r.choice([5, 8, 10, 12]), "b": r.choice([5, 8])}),
    ("I:E 1:{a}", lambda r: {"a": r.choice([2, 3])}),
    ("K {a}.{b} Na {c} Cl {d}", lambda r: {"a": r.randint(3, 5), "b": r.randint(0, 9),
                                            "c": r.randint(128, 148), "d": r.randint(95, 110)}),
    ("UO {a} cc/hr, {b} cc since 0700", lambda r: {"a": r.randint(20, 200),
                                                    "b": r.randint(200, 1500)}),
    ("given {a} mg at {b:02d}{c:02d}", lambda r: {"a": r.choice([2, 4, 5, 20, 40]),
                                                  "b": r.randint(0, 23), "c": r.randint(0, 59)}),
    ("MRN {a}", lambda r: {"a": r.randint(1000000, 9999999)}),
    ("plt {a}K, WBC {b}.{c}", lambda r: {"a": r.randint(90, 400), "b": r.randint(3, 20),
                                          "c": r.randint(0, 9)}),
    ("ABG 7.{a}/{b}/{c}", lambda r: {"a": r.randint(25, 48), "b": r.randint(28, 60),
                                      "c": r.randint(60, 300)}),
    ("TV {a} x {b}", lambda r: {"a": r.choice([400, 450, 500, 550]), "b": r.randint(10, 20)}),
    ("Sats {a}-{b}%", lambda r: {"a": r.randint(88, 95), "b": r.randint(95, 100)}),
    ("ratio {a}:{b}", lambda r: {"a": r.randint(1, 4), "b": r.randint(1, 4)}),
    ("dose {a}-{b} mg q4h", lambda r: {"a": r.choice([2, 5]), "b": r.choice([4, 10])}),
    ("call HO if SBP > {a} or < {b}", lambda r: {"a": r.choice([160, 180]),
                                                   "b": r.choice([90, 85])}),
    ("paged at {a:02d}{b:02d}", lambda r: {"a": r.randint(0, 23), "b": r.randint(0, 59)}),
)  # fmt: skip
_PIECE = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"[^\W_]+|[^\w\s]")


def _random_valid(pn: Any, region: str, r: random.Random) -> Any:
    """A number valid in ``region``: its example number with the last digits redrawn."""
    kind = r.choice([pn.PhoneNumberType.FIXED_LINE, pn.PhoneNumberType.MOBILE])
    ex = pn.example_number_for_type(region, kind) or pn.example_number(region)
    national = str(ex.national_number)
    for _ in range(50):
        tail = "".join(str(r.randint(0, 9)) for _ in range(4))
        cand = pn.parse(f"+{ex.country_code}{national[:-4]}{tail}", None)
        if pn.is_valid_number(cand):
            return cand
    return ex


def phone_values(n: int, seed: int) -> list[tuple[str, str]]:
    import phonenumbers as pn
    from faker import Faker

    r = random.Random(seed)
    out: list[tuple[str, str]] = []
    fmt = pn.PhoneNumberFormat
    fakers = {loc: Faker(loc) for loc in FAKER_LOCALES}
    for _ in range(n):
        source = r.choice(("pn_region", "pn_us", "faker"))
        if source == "pn_region":
            region = r.choice(PN_REGIONS)
            num = _random_valid(pn, region, r)
            how = r.choice((fmt.NATIONAL, fmt.INTERNATIONAL))
            out.append(
                (
                    f"pn_{region}_{'national' if how == fmt.NATIONAL else 'intl'}",
                    pn.format_number(num, how),
                )
            )
        elif source == "pn_us":
            area = r.choice([617, 212, 410, 508, 781, 415, 301, 443, 857, 978])
            for _ in range(50):
                num = pn.parse(f"+1{area}{r.randint(200, 999)}{r.randint(0, 9999):04d}", None)
                if pn.is_valid_number(num):
                    break
            how = r.choice((fmt.NATIONAL, fmt.INTERNATIONAL, fmt.E164))
            out.append((f"pn_US_{how}", pn.format_number(num, how)))
        else:
            locale = r.choice(FAKER_LOCALES)
            fake = fakers[locale]
            fake.seed_instance(r.randint(0, 10**9))
            out.append((f"faker_{locale}", fake.phone_number()))
    return out


_STRFTIME = (
    "%m/%d/%Y", "%m/%d/%y", "{m}/{d}", "{m}/{d}/%y", "{m}/{d}/%Y", "%m/%d", "{m}-{d}",
    "{m}/%y", "%m/%Y", "%b %d", "%B %d", "%b {d}", "%B {d}, %Y", "%d %b %Y", "{d} %b",
    "%b. {d}", "%b '%y", "%B %Y", "%b %Y", "%Y-%m-%d", "%d-%b-%Y", "%A, %B {d}", "%B",
    "%b {d}, %Y", "%B {d}th", "{m}/{d}-{m2}/{d2}",
)  # fmt: skip
_SKELETONS = ("yMd", "Md", "MMMd", "MMMMd", "yMMM", "yMMMd", "yMMMMd", "MEd", "yMMMEd", "yM")


def date_values(n: int, seed: int) -> list[tuple[str, str]]:
    r = random.Random(seed)
    try:
        from babel import dates as bd
    except ImportError:  # babel is optional here
        bd = None
    out: list[tuple[str, str]] = []
    for _ in range(n):
        day = dt.date(1950, 1, 1) + dt.timedelta(days=r.randint(0, 365 * 75))
        later = day + dt.timedelta(days=r.randint(1, 9))
        if bd is not None and r.random() < 0.4:
            locale = r.choice(("en_US", "en_GB"))
            if r.random() < 0.4:
                style = r.choice(("short", "medium", "long"))
                out.append((f"babel_{style}", bd.format_date(day, style, locale=locale)))
            else:
                sk = r.choice(_SKELETONS)
                out.append((f"babel_{sk}", bd.format_skeleton(sk, day, locale=locale)))
            continue
        f = r.choice(_STRFTIME)
        text = day.strftime(
            f.replace("{m}", str(day.month))
            .replace("{d}", str(day.day))
            .replace("{m2}", str(later.month))
            .replace("{d2}", str(later.day))
        )
        if r.random() < 0.3:
            text = r.choice((text.upper(), text.lower()))
        out.append((f"strftime_{f}", text))
    return out


def negative_values(n: int, seed: int) -> list[tuple[str, str]]:
    r = random.Random(seed)
    out = []
    for _ in range(n):
        frame, draw = r.choice(NEGATIVES)
        out.append((frame.split()[0].lower(), frame.format(**draw(r))))
    return out


def _covered(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    return any(s < b and a < e for s, e in spans)


def score(
    analyzer: TextAnalyzer, values: list[tuple[str, str]], frames: tuple[str, ...], seed: int
) -> dict[str, Any]:
    r = random.Random(seed)
    texts, where = [], []
    for _, v in values:
        frame = r.choice(frames)
        before, after = frame.split("{}")
        text = LEAD + before + v + after
        texts.append(text)
        where.append(len(LEAD) + len(before))
    found = analyzer.analyze_batch(texts)
    caught = Counter()
    total = Counter()
    tok_hit = tok_all = 0
    for (kind, v), start, fs in zip(values, where, found, strict=True):
        spans = [(f.start, f.end) for f in fs]
        pieces = [(start + m.start(), start + m.end()) for m in _PIECE.finditer(v)]
        ok = all(_covered(spans, a, b) for a, b in pieces)
        for m in _TOKEN.finditer(v):
            tok_all += 1
            tok_hit += _covered(spans, start + m.start(), start + m.end())
        group = kind.split("_")[0] + "_" + kind.split("_")[1] if "_" in kind else kind
        total[group] += 1
        caught[group] += ok
    return {
        "values": sum(total.values()),
        "recall": round(sum(caught.values()) / max(1, sum(total.values())), 4),
        "token_recall": round(tok_hit / max(1, tok_all), 4),
        "by_source": {k: round(caught[k] / total[k], 3) for k in sorted(total)},
        "counts": dict(sorted(total.items())),
    }


def false_positives(analyzer: TextAnalyzer, values: list[tuple[str, str]]) -> dict[str, Any]:
    texts = [LEAD + v + "." for _, v in values]
    hits: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for (kind, _), fs in zip(values, analyzer.analyze_batch(texts), strict=True):
        kinds[kind] += 1
        if any(f.entity_type in ("PHONE_NUMBER", "DATE_TIME") and f.start >= len(LEAD) for f in fs):
            hits[kind] += 1
    return {
        "values": sum(kinds.values()),
        "with_phone_or_date_finding": sum(hits.values()),
        "rate": round(sum(hits.values()) / max(1, sum(kinds.values())), 4),
        "by_frame": {k: f"{hits[k]}/{kinds[k]}" for k in sorted(kinds) if hits[k]},
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=600, help="values of each kind")
    ap.add_argument("--seed", type=int, default=2525)
    ap.add_argument("--profile", default="hipaa")
    ap.add_argument("--out", default=None)
    ap.add_argument("--note", default="", help="what the run is for (recorded as given)")
    args = ap.parse_args()
    analyzer = TextAnalyzer.from_config(ner=False, profile=args.profile)
    try:
        import babel

        babel_version = babel.__version__
    except ImportError:
        babel_version = None
    import faker
    import phonenumbers

    result = {
        "benchmark": "text_clinical_formats",
        "command": " ".join(["benchmarks/text_clinical_formats.py", *sys.argv[1:]]),
        "commit": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "note": args.note,
        "profile": args.profile,
        "ner": False,
        "versions": {
            "phonenumbers": phonenumbers.__version__,
            "faker": faker.VERSION,
            "babel": babel_version,
        },
        "phones": score(analyzer, phone_values(args.n, args.seed), PHONE_FRAMES, args.seed),
        "dates": score(analyzer, date_values(args.n, args.seed + 1), DATE_FRAMES, args.seed),
        "negatives": false_positives(analyzer, negative_values(args.n, args.seed + 2)),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
