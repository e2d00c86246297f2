"""Generated clinical notes in the registers clinicians write: ``veil text corpus --kind clinical``.

The nursing notes of :func:`veil.text.generate_clinical_notes` are written in tidy charting
English. Real notes are not: nurses and physicians write in capitals or in lower case, in
shorthand, and name people and places the way they speak of them. The lines below add the
clinical shapes of :mod:`veil.text.recognition._clinical_shapes` (issue #25) to those notes:

* dates in shorthand: month/day, month/two-digit year, a two-digit year after a condition
  ("s/p MI 92", "CABG '04");
* hospitals and facilities: a name before "hosp" in lower case, in capitals after "FROM",
  an abbreviation before "hosp" ("GH hosp");
* care-team and family names in any case: a surname in capitals after "DR", a first name
  in lower case after "talked with", two surnames joined by "and" before "aware", an
  initial before a surname ("S. DOMINICO");
* pagers and extensions ("Pager: #54321", "ext 4411", "X4411"), phone numbers with
  slashes or spaces ("617/555/0123");
* care-team names before a role ("OKAFOR RRT", "Hall RN"), relatives after a dash in
  capitals ("DAUGHTER- MARY"), surnames that are everyday words after a title or before
  "aware" ("Dr. Brown", "White and Okafor aware"), wards named by a building and a floor
  ("transferred to Ellison 12"), a month named alone ("seen in March");
* signatures with initials ("HERMAN W. EMPERATRICE, RRT", "s. roberto rrt"), phones
  with spaced dashes ("212- 476- 8356"), days by ordinal ("on the 11th"), a university's
  or a saint's name ("UNIVERSITY OF MARYLAND", "St. Mary"), wards glued to their floor
  ("QUARTERMAIN7"); a role in parentheses after a name ("Dick Cucchiara (resident)"),
  ten digits grouped 3-3-4 whatever the area code ("135 442-9738");
* pagers and extensions written short ("p# 54321", "EXT. 12", "4-1234"), numbers a phone
  word announces across "at" ("call son Bob at 555 1234"), an area code before a local
  number written whole ("617 5551234"); the years of the patient's history ("CVA 81'",
  "CHOLECYSTECTOMY 85'", "S/P CABG 1961, 1979", "prostate ca'91", "quit smoking 68'",
  "07 PTCA", "MARCH OF 1996"), shorthand dates glued or dotted ("fx3/95", "10/14.95"), and
  ranges ("5/29-6/1"), beside vitals, doses and scores ("BP 120/80", "2/4 PULSES", "I:E
  1:2", "ambulated 50' x2").
* a full name without a title in lower case or capitals ("mary kondouli", "LISA
  ROSSETTI"), a place after a move in any case ("transfered to gh"), a place joined to a
  facility ("BALTIMORE REHAB AND KIMBROUGH"), residences ("Grieco House NH"), a first
  name after a contact verb ("reach Rob"), relations in parentheses ("Husband (Joe)",
  "Ann (daughter)"), dotted initials after a title ("Dr. J.R.").

Each note mixes these lines with the charting lines of :data:`veil.text.evaluation._corpus.NOTE_LINES`,
so the hard negatives (doses, vitals, scores, fractions) stay in every note. Labels are
those of the other generated corpora (a hospital is an ``ORGANIZATION``).

Examples
--------
>>> notes = generate_clinical_shape_notes(3, seed=1)
>>> all(n["full_text"][s["start_position"]:s["end_position"]] == s["entity_value"]
...     for n in notes for s in n["spans"])
True
"""

from __future__ import annotations

import random
from typing import Any

from veil.text.evaluation._corpus import NOTE_LINES, _fill, _Filler

__all__ = ["SHAPE_LINES", "generate_clinical_shape_notes"]

# {SLOT} as in _corpus; the variants after a colon that only these lines use are filled by
# _ShapeFiller. A line's register (lower case, capitals) is set by its prefix "lower:" or
# "upper:", applied after filling, so the values take the line's case too.
SHAPE_LINES: tuple[str, ...] = (
    "upper:DR {PERSON:last} NOTIFIED OF K 3.1, 40 MEQ KCL GIVEN.",
    "upper:PT TRANSFERRED FROM {ORGANIZATION:hospital} ON {DATE_TIME:month_day} FOR CATH.",
    "upper:S/P MI {DATE_TIME:yy}, CABG X3 {DATE_TIME:apostrophe_yy}. FAMILY AT BEDSIDE.",
    "lower:talked with {PERSON:first}, pt's wife, updated on poc. questions answered.",
    "lower:plan to transfer to {ORGANIZATION:hosp} tomorrow, cm aware.",
    "lower:pt's son {PERSON:first} called, will visit {DATE_TIME:month_day}.",
    "{PERSON:last} and {PERSON:other_last} aware of plan, will follow up in AM.",
    "Seen by {PERSON:initial_last}, neuro recs: Keppra 500mg IV BID.",
    "Pager: #{PHONE_NUMBER:pager} for any questions overnight.",
    "Covering NP reached at ext {PHONE_NUMBER:ext}, aware of UOP 20cc/hr.",
    "Last colonoscopy {DATE_TIME:month_year}, PCP follows; s/p chole {DATE_TIME:yy}.",
    "Transferred to {ORGANIZATION:hosp_abbrev} hosp for MRI, returned at 1600.",
    "Echo {DATE_TIME:month_day} EF 35%; strength 5/5, pain 6/10, 1/2 NS at 75cc/hr.",
    # added for issue #25's second round: roles after names, wards, relatives in capitals,
    # surnames that are everyday words, month names, phones as families give them
    "upper:{PERSON:last} RRT IN TO SUCTION, SATS 95% ON 40% FM. PS 10/5 OVERNIGHT.",
    "Pt transferred to {LOCATION:ward} at 1500, report given to {PERSON:last} RN.",
    "upper:SOCIAL: DAUGHTER- {PERSON:first} CALLED, UPDATED BY RN. PLAN DISCUSSED.",
    "Dr. {PERSON:everyday_last} aware of SBP 88/50, 250cc NS bolus given with effect.",
    "lower:dr {PERSON:everyday_last} in to see pt, aware of low uop. bcx 2/4 bottles.",
    "Last seen in clinic in {DATE_TIME:month_name}; f/u w/ PCP, CPAP 5/5 at night.",
    "Wife can be reached at {PHONE_NUMBER:slashed} or {PHONE_NUMBER:spaced}.",
    "upper:COVERING RESIDENT PAGED AT X{PHONE_NUMBER:ext}, {PERSON:last} MD AWARE.",
    "{PERSON:everyday_last} and {PERSON:last} aware, will reassess in AM.",
    # added for issue #25's third round: signatures with initials, names and phones as
    # families give them, days by ordinal, institutions by a saint's or a university's
    # name, wards glued to their floor
    "upper:SPUTUM THICK TAN, SX Q2H. {PERSON:first_initial_last}, RRT",
    "lower:all is well at this time. {PERSON:initial_last} rrt",
    "dtr {PERSON:full}- {PHONE_NUMBER:dash_spaced}. Updated on plan, NPO after MN.",
    "Cultures drawn on the {DATE_TIME:ordinal}, no growth to date; vanco trough 15.",
    "upper:PT ADMITTED FROM {ORGANIZATION:university} WITH PNA, INTUBATED ON ARRIVAL.",
    "Bed offered at {ORGANIZATION:saint}, case manager to follow; PT/OT following.",
    "upper:PT ADMITTED TO {LOCATION:ward_glued} W/ CHF, LASIX 40 IV GIVEN.",
    # added for issue #25's fourth round: a role in parentheses after a name, ten digits
    # grouped 3-3-4 with mixed separators whatever the area code
    "Plan per {PERSON:full} (resident): diurese, recheck lytes at 2200.",
    "upper:SON'S CELL {PHONE_NUMBER:grouped}, HOME NUMBER ON FRONT OF CHART.",
    # added for issue #25's fifth round (item 2): pagers and extensions written short,
    # numbers a phone word announces across "at", an area code before a local number
    # written whole; the years of the patient's history (after a diagnosis, a procedure
    # by its suffix, a habit quit, a month; listed; before a procedure), glued and dotted
    # shorthand dates, date ranges; each beside the vitals, doses and scores they must
    # leave alone
    "Covering MD p# {PHONE_NUMBER:pager}, aware of BP 120/80; 1/2 tab given.",
    "upper:NP BEEPER {PHONE_NUMBER:pager}, EXT. {PHONE_NUMBER:ext_short}. 2/4 PULSES BILAT.",
    "lower:may reach wife at {PHONE_NUMBER:ext_dash} tonight, strength 5/5, bp 132/70.",
    "Call son {PERSON:first} at {PHONE_NUMBER:local_split} with changes; I:E 1:2, PS 10/5.",
    "Dtr's cell {PHONE_NUMBER:area_local}; ambulated 50' x2 with PT, pain 3/10.",
    "upper:PMH: CVA {DATE_TIME:yy}', CHOLECYSTECTOMY {DATE_TIME:yy}', S/P CABG {DATE_TIME:yyyy}, {DATE_TIME:yyyy}.",
    "lower:hx: prostate ca'{DATE_TIME:yy}, s/p pelvic fx{DATE_TIME:month_year}, quit smoking {DATE_TIME:yy}'.",
    "upper:NIDDM. {DATE_TIME:yy0} PTCA TO LCX, ADRIAMYCIN {DATE_TIME:month_name} OF {DATE_TIME:yyyy}.",
    "Intubated {DATE_TIME:range} for CHF; neuro check {DATE_TIME:dotted_yy} nonfocal, GCS 15.",
    # added for issue #25's fifth round: a full name in lower case or capitals without a
    # title, places after a move in any case, a place joined to a place, residences, first
    # names after a contact verb, relations in parentheses, dotted initials
    "lower:{PERSON:first_unknown_last} from speech and swallow in today, recs: nectar thick.",
    "upper:DENTURES TAKEN HOME BY {PERSON:first_unknown_last}, PT'S NIECE.",
    "lower:pt to be transfered to {ORGANIZATION:abbrev} today, report called to rn.",
    "upper:PT SCREENED BY {ORGANIZATION:hosp} AND {ORGANIZATION:unknown_last}, AWAITING BED.",
    "{ORGANIZATION:residence} resident, admitted to CCU for hypotension, on levophed.",
    "Only able to reach {PERSON:first}, will call back in AM with update.",
    "Husband ({PERSON:first}) at bedside, updated on POC. {PERSON:first} (daughter) called.",
    "Seen by Dr. {PERSON:initials}, recs: cont heparin gtt, PTT 62 at 1800.",
)

_HOSP_WORDS = ("hosp", "hospital", "rehab", "nursing home")
# surnames that are everyday English words (US census surnames): after a title or before
# "aware" a note's reader takes them as names, and so must the mode
_EVERYDAY_SURNAMES = (
    "Brown", "White", "Green", "Young", "King", "Wood", "Hall", "Baker", "Long", "Rose",
    "Bell", "Hill", "Stone", "Price", "Fox", "Lane", "Black", "Little", "Hope", "Frost",
)  # fmt: skip
_MONTHS = (
    "January", "February", "March", "April", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


class _ShapeFiller(_Filler):
    def value(self, slot: str) -> tuple[str, str | None, str | None]:
        kind, _, variant = slot.partition(":")
        r, f = self.rng, self.fake
        if kind == "PERSON" and variant == "other_last":
            return f.last_name(), "PERSON", None
        if kind == "PERSON" and variant == "initial_last":
            self.new_person()
            return f"{self.person['first'][0]}. {self.person['last']}", "PERSON", None
        if kind == "DATE_TIME" and variant in ("yy", "apostrophe_yy", "month_year"):
            year = r.randint(1975, 2009)
            yy = f"{year % 100:02d}"
            if variant == "month_year":
                return f"{r.randint(1, 12)}/{yy}", "DATE_TIME", None
            return (yy if variant == "yy" else f"'{yy}"), "DATE_TIME", None
        if kind == "ORGANIZATION" and variant == "hosp":
            return f"{f.last_name()} {r.choice(_HOSP_WORDS)}", "ORGANIZATION", None
        if kind == "ORGANIZATION" and variant == "hosp_abbrev":
            return f"{f.last_name()[0]}{r.choice('GMC')}", "ORGANIZATION", None
        if kind == "PHONE_NUMBER" and variant == "ext":
            return str(r.randint(1000, 9999)), "PHONE_NUMBER", None
        if kind == "PHONE_NUMBER" and variant == "pager":
            return str(r.randint(10**4, 10**5 - 1)), "PHONE_NUMBER", None
        if kind == "PHONE_NUMBER" and variant in ("slashed", "spaced"):
            sep = "/" if variant == "slashed" else " "
            parts = (r.randint(201, 989), r.randint(201, 999), r.randint(1000, 9999))
            return sep.join(map(str, parts)), "PHONE_NUMBER", None
        if kind == "PERSON" and variant == "everyday_last":
            return r.choice(_EVERYDAY_SURNAMES), "PERSON", None
        if kind == "LOCATION" and variant == "ward":
            return f"{f.last_name()} {r.randint(2, 14)}", "LOCATION", None
        if kind == "PERSON" and variant == "first_initial_last":
            self.new_person()
            middle = r.choice("ABCDEFGHJKLMNPRSTW")
            return f"{self.person['first']} {middle}. {self.person['last']}", "PERSON", None
        if kind == "PHONE_NUMBER" and variant == "dash_spaced":
            parts = (r.randint(201, 989), r.randint(201, 999), r.randint(1001, 9999))
            return "- ".join(map(str, parts)), "PHONE_NUMBER", None
        if kind == "PHONE_NUMBER" and variant == "grouped":
            area = r.randint(100, 999)  # a mistyped or made-up area code reaches someone too
            sep = r.choice((" ", "-", "."))
            return f"{area}{sep}{r.randint(200, 999)}-{r.randint(1001, 9999)}", "PHONE_NUMBER", None
        if kind == "DATE_TIME" and variant == "ordinal":
            day = r.randint(1, 28)
            suffix = (
                "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
            )
            return f"{day}{suffix}", "DATE_TIME", None
        if kind == "ORGANIZATION" and variant == "university":
            return f"University of {f.state()}", "ORGANIZATION", None
        if kind == "ORGANIZATION" and variant == "saint":
            return f"St. {f.first_name()}", "ORGANIZATION", None
        if kind == "LOCATION" and variant == "ward_glued":
            return f"{f.last_name()}{r.randint(2, 14)}", "LOCATION", None
        if kind == "PERSON" and variant == "first_unknown_last":
            self.new_person()
            return f"{self.person['first']} {self._unknown_last()}", "PERSON", None
        if kind == "ORGANIZATION" and variant == "unknown_last":
            return self._unknown_last(), "ORGANIZATION", None
        if kind == "ORGANIZATION" and variant == "abbrev":
            letters = "".join(r.choice("BCDFGHKLMNPRSTW") for _ in range(r.randint(2, 3)))
            return letters + r.choice(("", "H", "MC")), "ORGANIZATION", None
        if kind == "ORGANIZATION" and variant == "residence":
            kind_word = r.choice(("House NH", "House", "SNF", "Nursing Home", "ECF"))
            return f"{self._unknown_last()} {kind_word}", "ORGANIZATION", None
        if kind == "PERSON" and variant == "initials":
            first, middle = r.choice("ABCDEFGHJKLMNRSTW"), r.choice("ABCDEFGHJKLMNRSTW")
            return f"{first}.{middle}.", "PERSON", None
        if kind == "DATE_TIME" and variant == "month_name":
            return r.choice(_MONTHS), "DATE_TIME", None
        return self._fifth_round(kind, variant) or super().value(slot)

    def _fifth_round(self, kind: str, variant: str) -> tuple[str, str | None, str | None] | None:
        r = self.rng
        if kind == "PHONE_NUMBER":
            if variant == "ext_short":
                return str(r.randint(10, 999)), kind, None
            if variant == "ext_dash":  # a hospital extension, "4-1234"
                return f"{r.randint(1, 9)}-{r.randint(1001, 9999)}", kind, None
            if variant == "local_split":
                sep = r.choice((" ", ".", ""))
                return f"{r.randint(201, 999)}{sep}{r.randint(1001, 9999)}", kind, None
            if variant == "area_local":
                area, local = r.randint(201, 989), r.randint(2_000_001, 9_999_999)
                return r.choice((f"{area} {local}", f"({area}){local}")), kind, None
        if kind == "DATE_TIME":
            if variant == "yyyy":
                return str(r.randint(1950, 2009)), kind, None
            if variant == "yy0":  # a year with its leading zero, "07"
                return f"0{r.randint(0, 9)}", kind, None
            if variant == "range":
                month, day = r.randint(1, 12), r.randint(1, 27)
                return f"{month}/{day}-{month}/{day + 1}", kind, None
            if variant == "dotted_yy":
                return f"{r.randint(1, 12)}/{r.randint(13, 28)}.{r.randint(75, 99)}", kind, None
        return None

    def _unknown_last(self) -> str:
        """A Faker surname that no English dictionary holds (a name only)."""
        from veil.text.vocab._clinical_vocab import is_safe_word

        for _ in range(50):
            name = self.fake.last_name()
            if name.isalpha() and len(name) >= 5 and not is_safe_word(name):
                return name
        return "Okonkwo"


def _line(tpl: str, filler: _ShapeFiller) -> dict[str, Any]:
    register, sep, body = tpl.partition(":")
    if not sep or register not in ("lower", "upper"):
        return _fill(tpl, filler)
    rec = _fill(body, filler)
    text = rec["full_text"]
    cased = text.lower() if register == "lower" else text.upper()
    if len(cased) != len(text):  # a letter whose case changes its length: left as it is
        return rec
    rec["full_text"] = cased
    for s in rec["spans"]:
        s["entity_value"] = cased[s["start_position"] : s["end_position"]]
    return rec


def generate_clinical_shape_notes(n: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` labelled notes of 5 to 9 lines: 2 to 4 drawn from :data:`SHAPE_LINES`, the
    rest from the charting lines of :data:`veil.text.evaluation._corpus.NOTE_LINES`, shuffled; in
    the record format of :func:`veil.text.generate_corpus` (``template`` is ``-2``)."""
    rng = random.Random(seed + 11)
    filler = _ShapeFiller(seed)
    out = []
    for _ in range(n):
        lines = rng.sample(SHAPE_LINES, rng.randint(2, 4))
        lines += rng.sample(NOTE_LINES, rng.randint(3, 5))
        rng.shuffle(lines)
        text, spans = "", []
        for tpl in lines:
            filler.person = {}
            rec = _line(tpl, filler)
            if text:
                text += "\n"
            for s in rec["spans"]:
                s["start_position"] += len(text)
                s["end_position"] += len(text)
                spans.append(s)
            text += rec["full_text"]
        out.append({"full_text": text, "spans": spans, "template": -2})
    return out
