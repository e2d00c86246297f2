"""A labelled corpus generator: templates filled with Faker values (seeded), gold spans.

Records follow the presidio-research format, ``{"full_text", "spans": [{"entity_type",
"entity_value", "start_position", "end_position"}]}``, so :func:`veil.text.evaluate` and
other tools can score them. A share of the templates are **hard negatives**: clinical
abbreviations and section words ("CV:", "Neuro:", "Foley"), lab values ("91/42/7.36"),
vital signs, version numbers, numbers that fail a checksum, relative time words ("today")
and number-then-capitalised-word phrases that are not addresses ("5 Main points", "12
Street Fighter"), which a good detector must leave alone.

A postal address is one ``STREET_ADDRESS`` span from the street line through the postcode
(US, UK, Canadian, German, French and Australian formats, and an "intl" mix of 17 more
postal formats, from Faker's locales, on one line or over several); a street line alone is a ``STREET_ADDRESS`` too, and a city, state
and ZIP code without a street stay ``LOCATION`` and ``ZIP_CODE``.

Examples
--------
>>> recs = generate_corpus(3, seed=1)
>>> sorted(recs[0])
['full_text', 'spans', 'template']
>>> all(r["full_text"][s["start_position"]:s["end_position"]] == s["entity_value"]
...     for r in recs for s in r["spans"])
True
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from veil._lazy import lazy_compile
from veil.text.evaluation._corpus_secrets import SECRET_TYPES, secret_value
from veil.text.replacement._surrogate import faker_postal_address

__all__ = ["CLINICAL_FROM", "NOTE_LINES", "TEMPLATES", "generate_clinical_notes", "generate_corpus"]

# {SLOT} fills a labelled value, {_SLOT} an unlabelled filler. Slot names are entity types,
# or entity types with a variant after a colon ({PERSON:last}). GENERAL templates come first,
# then CLINICAL ones (clinical notes and hard negatives); a record's "template" is its index.
GENERAL_TEMPLATES: tuple[str, ...] = (
    # general: customer service, HR, finance
    "My name is {PERSON} and my email is {EMAIL_ADDRESS}.",
    "Please call {PERSON} at {PHONE_NUMBER} before {DATE_TIME}.",
    "{PERSON} lives at {STREET_ADDRESS:us}.",
    "Ship the order to {STREET_ADDRESS:us} by {DATE_TIME}.",
    "Mailing address:\n{PERSON}\n{STREET_ADDRESS:us_lines}",
    "Our {LOCATION:city}, {LOCATION:state} {ZIP_CODE} office opens on {DATE_TIME}.",
    "Send the documents to {PERSON}, {STREET_ADDRESS:gb}, before {DATE_TIME}.",
    "Billing address for {PERSON}: {STREET_ADDRESS:ca}",
    "Delivery to {STREET_ADDRESS:de} failed on {DATE_TIME}; please call {PHONE_NUMBER}.",
    "Invoice for {PERSON} sent to {STREET_ADDRESS:fr} on {DATE_TIME}.",
    "The parcel for {PERSON} goes to {STREET_ADDRESS:au}.",
    "Please forward the letter for {PERSON} to {STREET_ADDRESS:intl} by {DATE_TIME}.",
    "Shipping address:\n{STREET_ADDRESS:intl}",
    "The card {CREDIT_CARD} was charged twice on {DATE_TIME}.",
    "Refund to IBAN {IBAN_CODE}, account holder {PERSON}.",
    "Her social security number is {US_SSN}.",
    "SSN: {US_SSN}, DOB: {DATE_TIME}",
    "{PERSON} works at {ORGANIZATION} in {LOCATION:city}.",
    "I met {PERSON} from {ORGANIZATION} on {DATE_TIME}.",
    "Login from {IP_ADDRESS} at {DATE_TIME:time} was blocked.",
    "Visit {URL} for the details, or write to {EMAIL_ADDRESS}.",
    "Device {MAC_ADDRESS} connected from {IP_ADDRESS}.",
    "The applicant, {PERSON}, aged {AGE}, holds passport number {US_PASSPORT}.",
    "Driver's license {US_DRIVER_LICENSE} was issued to {PERSON} on {DATE_TIME}.",
    "Wire the funds to routing number {ABA_ROUTING_NUMBER}, account {_ACCOUNT}.",
    "Contact: {PERSON}, {PHONE_NUMBER}, {EMAIL_ADDRESS}",
    "{PERSON} is a {AGE}-year-old {NRP} engineer living in {LOCATION:city}.",
    "We received a complaint from {PERSON} of {LOCATION:city}, {LOCATION:state}.",
    "Your ITIN {US_ITIN} was received on {DATE_TIME}.",
    "Meeting with {PERSON} and {PERSON} at {ORGANIZATION} on {DATE_TIME}.",
    "Hi {PERSON:first}, thanks for your order from {LOCATION:city}! We will call you at {PHONE_NUMBER}.",
    "The tenant {PERSON} moved from {STREET_ADDRESS} to {LOCATION:country} in {DATE_TIME:year}.",
    "{PERSON:full} complained again. {PERSON:title} said {PERSON:first} would call back.",
    "Customer {PERSON} (zip code {ZIP_CODE}) asked about the invoice from {DATE_TIME}.",
    "Server logs show {IP_ADDRESS} requested {URL} {_COUNT} times.",
    "Forwarded to {EMAIL_ADDRESS} by {PERSON} at {ORGANIZATION}.",
    "The {NRP} delegation arrived in {LOCATION:country} on {DATE_TIME}.",
)
CLINICAL_TEMPLATES: tuple[str, ...] = (
    "{PERSON} is a {AGE} y/o {_SEX} admitted to {ORGANIZATION:hospital} on {DATE_TIME}. MRN: {MEDICAL_RECORD_NUMBER}.",
    "Pt {PERSON} seen in clinic {DATE_TIME}; {AGE} years old, lives at {STREET_ADDRESS}.",
    "Discharge summary for {PERSON}, MRN {MEDICAL_RECORD_NUMBER}. Follow up with Dr. {PERSON:last} in 2 weeks.",
    "Called daughter {PERSON} at {PHONE_NUMBER} to update on plan. CV: RRR. Neuro: A&Ox3.",
    "{PERSON:full} was seen today. Mr. {PERSON:last} reports less pain; {PERSON:last} will return {DATE_TIME}.",
    "Pt {PERSON:last} admitted on {DATE_TIME:month_day}, extubated since {DATE_TIME:month_day}; take 1/2 tab qhs.",
    "Seen on {DATE_TIME:month_day} for f/u; pain 7/10, BP 130/85. Next appt {DATE_TIME:month_day}.",
    # hard negatives (no personal data, or PII next to look-alikes)
    "CV: RRR, no m/r/g. Neuro: A&Ox3, MAE. Foley in place, draining clear urine.",
    "ABG 7.36/42/91 on FiO2 40%. Labs 91/42/7.36 this morning, K 4.1, Cr 1.2.",
    "BP 120/80, HR 72, RR 18, SpO2 98% RA. Afebrile. NAD.",
    "Resp: CTAB. GI: soft, NT/ND, +BS. Skin: warm and dry.",
    "Plan: continue Lasix 40 mg PO BID, recheck BMP today and tomorrow.",
    "Upgraded the agent to version {_VERSION} and rolled back to {_VERSION} later today.",
    "Order {_BADCARD} was declined; the number fails validation.",
    "Ticket {_BADSSN} is closed; see the wiki for the checklist.",
    "Reference {_BADIBAN} is not a valid account.",
    "Notes saved in edema.pl and script.py; nothing else changed last week.",
    "Take 2 tablets every 6 hours for 3 days, then 1 tablet daily.",
    "Give 1/2 tab on 3/4 strength formula; pain 4/10 since 1/2 hour, rated 3/5 by PT.",
    "The meeting moved from today to next Monday afternoon.",
    "Neuro: grossly intact. Heme: Hct stable at 28.4. ID: afebrile on Vanc and Zosyn.",
    "Build 4.2.0 passed 1,024 tests in 3.5 minutes on 16 cores.",
    "Room 12, bed 3: Foley removed, voiding. CXR unchanged.",
    "I walked 5 blocks down {STREET_ADDRESS:street}, then 2 more to the park.",
    "The 5 Main points of the talk: 12 Street Fighter fans came, 3 Way Merge failed.",
    "Ambulated 2 laps on Unit 4 East with PT; 3 Days of antibiotics left, 2 Park visits planned.",
    "Order 12 Spring Rolls and 4 Green Tea Lattes; shipped via UPS 2 days ago.",
)

# Lines of ICU and ward nursing notes, written for veil in the telegraphic style such notes
# use: system headings, upper-case abbreviations, drug, device and lab names, capitalised
# charting verbs. Most lines hold no personal data (they are the hard negatives an NER model
# trained on news text gets wrong); the others name family, clinicians, hospitals, dates,
# phones. ``generate_clinical_notes`` draws a note from them.
NOTE_LINES: tuple[str, ...] = (
    "Neuro: A&Ox3, MAE, follows commands. PERRLA. Denies pain.",
    "Neuro: sedated on Propofol, RASS -2, withdraws to pain. Pupils 3mm brisk.",
    "Neuro: Alert, oriented x2, intermittently confused overnight. Haldol 2mg IV x1 with effect.",
    "CV: NSR 70-80s, no ectopy. SBP 100-120s. Lopressor 25mg PO BID held for SBP <100.",
    "CV: AFib 110-130s, Dilt gtt titrated to 10mg/hr. K 3.6 repleted with 40 mEq KCl.",
    "CV: HR 90s ST, occasional PVCs. MAP >65 on Levophed 0.08 mcg/kg/min. CVP 8-10.",
    "Resp: LS clear upper, diminished bases. Sats 95-98% on 4L NC. Cough weak, nonproductive.",
    "Resp: remains on vent, CPAP 5/PEEP 5, FiO2 40%. ABG 7.38/42/96. RSBI 60, plan SBT in AM.",
    "Resp: extubated to 50% face tent, then 4L NC. Nebs Q4H, IS encouraged.",
    "GI: abd soft, NT/ND, +BS. Tolerating TF Promote w/ fiber at goal 60cc/hr via OGT. No BM.",
    "GI: NPO for procedure. Protonix 40mg IV daily. Colace and Senna given, BM x1 brown guaiac neg.",
    "GU: Foley draining clear yellow urine, UOP 40-80cc/hr. BUN/Cr 32/1.4, Lasix 20mg IV with good response.",
    "Renal: CVVHD running without issue, net even. Lytes repleted per protocol.",
    "ID: Tmax 101.2, BCx x2 sent. Cont Vanco and Zosyn. WBC 14.2 from 11.8.",
    "ID: afebrile, MRSA swab pending. On contact precautions for VRE.",
    "Heme: Hct 24.1, transfused 1 unit PRBC, post Hct pending. INR 1.4. Heparin SQ held.",
    "Endo: FSBS 140-180s, covered per RISS. Lantus 10 units at HS.",
    "Skin: coccyx stage II, Duoderm applied. Turned Q2H. Heels floated.",
    "Access: R IJ TLC, L radial A-line, PIV x2. PICC placed, tip confirmed by CXR.",
    "Pain: reports 6/10 incisional pain, Dilaudid 0.5mg IV Q3H PRN with relief to 3/10.",
    "Activity: OOB to chair with PT, tolerated well. Fall precautions maintained.",
    "Code: Full Code. HCP discussed, DNR/DNI not addressed yet.",
    "Events: Rapid response called for SBP 80s, bolus 500cc NS, transferred to MICU.",
    "Labs: Na 134, K 4.1, Cl 101, HCO3 22, BUN 28, Cr 1.1, Glu 156, Mg 1.8, Phos 3.2.",
    "Imaging: CXR with RLL infiltrate, CT head negative for bleed. Echo EF 35%.",
    "A/P: 67M with CHF exacerbation, COPD, HTN, DM2 on insulin. Diurese, wean O2, PT consult.",
    "Plan: cont to monitor hemodynamics, wean Levophed as tol, f/u AM labs and CXR.",
    "Plan: Keep NPO after MN for EGD, hold Lovenox, recheck Hct Q6H.",
    "Cont current POC. Will cont to monitor closely.",
    "Neuro: GCS 11/15 off sedation, MMSE 24/30 at baseline per family. NIHSS 4.",
    "Received pt from OR at 1500, intubated, on Propofol and Fentanyl. Report given to oncoming RN.",
    "Pt transferred to floor, report called to RN, belongings sent with pt.",
    "Tolerating clears, advance diet as tol. Awaiting Speech and Swallow eval.",
    "Social: Wife and son in to visit, updated on POC. SW following.",
    "Dispo: screening for rehab, CM aware. PT/OT recs pending.",
    # vocabulary the lexicon does not list, so the structural checks are tested too
    "Cardizem 30mg PO QID started, Zyvox changed to Ancef per ID recs.",
    "Nimbex gtt off, TOF 4/4. Versed and Fentanyl weaned, Natrecor at 0.01.",
    "Kerlix dressing changed, Xeroform to donor site. Wound Care RN aware.",
    "Telemetry: Sinus Brady 50s, Atropine at bedside. Zoll pads on.",
    "Tube Feeds: Novasource Renal at 45cc/hr, residuals <30cc. Free water flushes Q6H.",
    "Ceftaz and Tobra dosed by level. Pharmacy following. Diflucan for yeast in urine.",
    "Swan-Ganz placed in Cath Lab, PCWP 22, CI 1.9. Dobutamine started.",
    "MEDS: Aggrastat, Integrilin, Nitro Paste 1 inch Q6H. Cardiology aware.",
    # lines with personal data: family, clinicians, places, dates, phones
    "Social: wife {PERSON:first} in to visit, updated by RN. Daughter {PERSON} called for update.",
    "Spoke with son {PERSON:first} at {PHONE_NUMBER}, questions answered, will visit tomorrow.",
    "Dr. {PERSON:last} aware of SBP 80s, bolus ordered. Cards fellow {PERSON} to see pt.",
    "Family meeting with {PERSON} (HCP) and Dr. {PERSON:last} re goals of care.",
    "Pt transferred from {ORGANIZATION:hospital} on {DATE_TIME:month_day} for cath.",
    "Pt lives in {LOCATION:city} with wife, followed by PCP Dr. {PERSON:last}.",
    "Admitted {DATE_TIME:month_day} with PNA, intubated {DATE_TIME:month_day}, extubated today.",
    # month/day with no date word before it, as labs and imaging are charted
    "CXR {DATE_TIME:month_day} with new RLL opacity, repeat in AM. Vanco trough {DATE_TIME:month_day_padded} 18.2.",
    "Plan for d/c to {ORGANIZATION:hospital} rehab on {DATE_TIME}.",
    "Contact: {PERSON} (sister) {PHONE_NUMBER}. Please call with any changes.",
    "Pt is a {AGE} y/o {_SEX} s/p CABG x3 on {DATE_TIME}, hx of HTN, DM, CKD.",
    "Seen by Neuro, recs per Dr. {PERSON:last}: Keppra 500mg IV BID, EEG in AM.",
    "Husband {PERSON} updated by phone, aware of plan for HD tomorrow.",
    "Paged covering MD Dr. {PERSON:last} at pager {PHONE_NUMBER:pager}, will come to evaluate.",
    "Resident aware of UOP <20cc/hr x2, beeper #{PHONE_NUMBER:pager}. NS 500cc bolus given.",
    "Nutrition consult by {PERSON}, RD: start TF Nepro at 10cc/hr, advance Q4H to goal.",
    "Followed for dialysis at {ORGANIZATION:hospital} in {LOCATION:city} MWF.",
    "Mr. {PERSON:last} states he wants to go home to {LOCATION:city}. Daughter {PERSON:first} aware.",
)
TEMPLATES: tuple[str, ...] = GENERAL_TEMPLATES + CLINICAL_TEMPLATES
#: index of the first clinical / hard-negative template
CLINICAL_FROM = len(GENERAL_TEMPLATES)

_STATES = [
    "CA",
    "NY",
    "TX",
    "FL",
    "WA",
    "MA",
    "IL",
    "OH",
    "GA",
    "PA",
    "Oregon",
    "Colorado",
    "Arizona",
    "Michigan",
    "Virginia",
]
_COUNTRIES = [
    "France",
    "Germany",
    "Canada",
    "Mexico",
    "Japan",
    "Brazil",
    "India",
    "Kenya",
    "Spain",
    "Italy",
    "Australia",
    "Ireland",
    "Poland",
    "Egypt",
    "Vietnam",
]
_REAL_CITIES = [
    "Boston",
    "Chicago",
    "Seattle",
    "Denver",
    "Austin",
    "Atlanta",
    "Phoenix",
    "Portland",
    "Miami",
    "Dallas",
    "San Diego",
    "Philadelphia",
    "Houston",
    "Detroit",
]
_NRP = [
    "American",
    "Canadian",
    "French",
    "German",
    "Mexican",
    "Japanese",
    "Indian",
    "Brazilian",
    "Irish",
    "Polish",
    "Kenyan",
    "Italian",
    "Spanish",
    "Chinese",
    "Korean",
]
# Dates are drawn from the 30 years before a fixed day, not before today: a corpus must be
# the same whenever it is generated (the committed one was made on this day).
_DATES_TO = date(2026, 11, 22)
_DATES_FROM = _DATES_TO + timedelta(days=-10957.2)  # Faker's "-30y"
_STREETS = ["Main Street", "Oak Avenue", "Elm Street", "Park Road", "Baker Street"]
_HOSPITAL = ["General Hospital", "Medical Center", "Memorial Hospital", "Health", "Clinic"]
_TITLES = {"male": "Mr.", "female": "Ms."}
_ADDRESS_LOCALES = {"gb": "en_GB", "ca": "en_CA", "de": "de_DE", "fr": "fr_FR", "au": "en_AU"}
# "intl": the formats of other postal services, one drawn per address
_INTL_LOCALES = (
    "en_NZ", "en_IE", "fr_CA", "fr_CH", "nl_BE", "de_AT", "de_CH", "it_IT", "es_ES", "es_MX",
    "pt_PT", "pt_BR", "sv_SE", "da_DK", "fi_FI", "pl_PL", "cs_CZ",
)  # fmt: skip


def _luhn_bad(rng: random.Random) -> str:
    from veil.text.recognition._checksums import luhn_ok

    while True:
        ds = "4" + "".join(str(rng.randint(0, 9)) for _ in range(15))
        if not luhn_ok(ds):
            return " ".join(ds[i : i + 4] for i in range(0, 16, 4))


def _group4(s: str) -> str:
    return " ".join(s[i : i + 4] for i in range(0, len(s), 4))


class _Filler:
    def __init__(self, seed: int) -> None:
        from faker import Faker

        self.rng = random.Random(seed)
        self.fake: Any = Faker("en_US")
        self.fake.seed_instance(seed)
        self.person: dict[str, str] = {}
        self.seed = seed
        self._fakers: dict[str, Any] = {}

    def _locale(self, locale: str) -> Any:
        if locale not in self._fakers:
            from faker import Faker

            fake = Faker(locale)
            fake.seed_instance(self.seed * 31 + len(self._fakers) + 1)
            self._fakers[locale] = fake
        return self._fakers[locale]

    def address(self, variant: str) -> str:
        """A whole postal address: US built from its parts, others from Faker's locale."""
        f, r = self.fake, self.rng
        if variant in ("us", "us_lines"):
            city = r.choice(_REAL_CITIES) if r.random() < 0.5 else f.city()
            sep = "\n" if variant == "us_lines" else ", "
            return f"{f.street_address()}{sep}{city}, {r.choice(_STATES)} {f.zipcode()}"
        locale = r.choice(_INTL_LOCALES) if variant == "intl" else _ADDRESS_LOCALES[variant]
        fake = self._locale(locale)
        text = faker_postal_address(fake, locale)
        if locale == "en_IE":
            return text
        # Faker's de_DE writes double names with a space inside a street name ("Grein
        # Grothgasse"), which official German spelling joins with hyphens: drawn again
        while variant == "de" and " " in text.split("\n")[0].rsplit(" ", 1)[0]:
            text = faker_postal_address(fake, locale)
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        return ("\n" if r.random() < 0.5 else ", ").join(lines)

    def new_person(self) -> None:
        sex = self.rng.choice(["male", "female"])
        first = self.fake.first_name_male() if sex == "male" else self.fake.first_name_female()
        self.person = {"first": first, "last": self.fake.last_name(), "sex": sex}

    def value(self, slot: str) -> tuple[str, str | None, str | None]:
        """(text, label, text prefix that is not labelled)."""
        f, r = self.fake, self.rng
        kind, _, variant = slot.partition(":")
        if kind == "PERSON":
            if variant in ("", "full") or not self.person:
                self.new_person()
            p = self.person
            if variant == "first":
                return p["first"], "PERSON", None
            if variant == "last":
                return p["last"], "PERSON", None
            if variant == "title":
                return p["last"], "PERSON", _TITLES[p["sex"]] + " "
            return f"{p['first']} {p['last']}", "PERSON", None
        if kind == "LOCATION":
            if variant == "state":
                return r.choice(_STATES), "LOCATION", None
            if variant == "country":
                return r.choice(_COUNTRIES), "LOCATION", None
            return (r.choice(_REAL_CITIES) if r.random() < 0.5 else f.city()), "LOCATION", None
        if kind == "STREET_ADDRESS" and variant == "street":
            # a street named without a number: part of an address (a surrogate gives a street
            # name), and no address of "5 blocks"
            return r.choice(_STREETS), "STREET_ADDRESS", None
        if kind == "STREET_ADDRESS" and variant:
            return self.address(variant), "STREET_ADDRESS", None
        if kind == "ORGANIZATION":
            if variant == "hospital":
                return f"{f.last_name()} {r.choice(_HOSPITAL)}", "ORGANIZATION", None
            return f.company(), "ORGANIZATION", None
        if kind == "DATE_TIME":
            d = f.date_between(start_date=_DATES_FROM, end_date=_DATES_TO)
            if variant == "time":
                return (
                    f"{r.randint(1, 12)}:{r.randint(0, 59):02d} {r.choice(['AM', 'PM'])}",
                    "DATE_TIME",
                    None,
                )
            if variant == "year":
                return str(d.year), "DATE_TIME", None
            if variant == "month_day":  # charting shorthand: month/day without the year
                return f"{d.month}/{d.day}", "DATE_TIME", None
            if variant == "month_day_padded":  # as an EHR prints it: "03/05"
                return f"{d.month:02d}/{d.day:02d}", "DATE_TIME", None
            fmt = r.choice(
                ["%m/%d/%Y", "%Y-%m-%d", "%B %d, %Y", "%d %B %Y", "%b %d, %Y", "%m/%d/%y", "%B %Y"]
            )
            return d.strftime(fmt), "DATE_TIME", None
        simple = {
            "EMAIL_ADDRESS": lambda: f.email(),
            "PHONE_NUMBER": lambda: r.choice(
                [
                    f"({r.randint(201, 989)}) {r.randint(200, 999)}-{r.randint(0, 9999):04d}",
                    f"{r.randint(201, 989)}-{r.randint(200, 999)}-{r.randint(0, 9999):04d}",
                    f"+1 {r.randint(201, 989)} {r.randint(200, 999)} {r.randint(0, 9999):04d}",
                    f"{r.randint(201, 989)}.{r.randint(200, 999)}.{r.randint(0, 9999):04d}",
                ]
            ),
            "CREDIT_CARD": lambda: (
                f.credit_card_number()
                if r.random() < 0.5
                else _group4(f.credit_card_number(card_type="visa16"))
            ),
            "US_SSN": lambda: f.ssn(),
            "US_ITIN": lambda: f.itin(),
            "IBAN_CODE": lambda: f.iban() if r.random() < 0.5 else _group4(f.iban()),
            "IP_ADDRESS": lambda: f.ipv4_public() if r.random() < 0.8 else f.ipv6(),
            "URL": lambda: r.choice([f.url(), f.domain_name(), "www." + f.domain_name()]),
            "MAC_ADDRESS": lambda: f.mac_address(),
            "STREET_ADDRESS": lambda: f.street_address(),
            "ZIP_CODE": lambda: f.zipcode(),
            "AGE": lambda: str(r.randint(18, 95)),
            "NRP": lambda: r.choice(_NRP),
            "US_PASSPORT": lambda: (
                f.passport_number() if r.random() < 0.5 else str(r.randint(10**8, 10**9 - 1))
            ),
            "US_DRIVER_LICENSE": lambda: r.choice(
                [
                    f"{chr(r.randint(65, 90))}{r.randint(10**6, 10**7 - 1)}",
                    str(r.randint(10**7, 10**9 - 1)),
                ]
            ),
            "MEDICAL_RECORD_NUMBER": lambda: str(r.randint(10**6, 10**8 - 1)),
            "ABA_ROUTING_NUMBER": lambda: f.aba(),
        }
        if kind == "PHONE_NUMBER" and variant == "pager":  # a hospital's internal pager
            digits = str(r.randint(10**4, 10**5 - 1))
            return (digits if r.random() < 0.6 else f"{digits[0]}-{digits[1:]}"), kind, None
        if kind in simple:
            return simple[kind](), kind, None
        if kind in SECRET_TYPES:
            return secret_value(kind, variant, r, f), kind, None
        fillers = {
            "_ACCOUNT": lambda: str(r.randint(10**7, 10**10)),
            "_COUNT": lambda: str(r.randint(2, 400)),
            "_SEX": lambda: self.person.get("sex", "male") if self.person else "female",
            "_VERSION": lambda: f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 30)}",
            "_BADCARD": lambda: _luhn_bad(r),
            "_BADSSN": lambda: (
                f"{r.choice([0, 666, 900 + r.randint(0, 99)]):03d}-{r.randint(40, 49):02d}-{r.randint(1, 9999):04d}"
            ),
            "_BADIBAN": lambda: (
                "DE00 " + " ".join(f"{r.randint(0, 9999):04d}" for _ in range(4)) + " 00"
            ),
        }
        if kind not in fillers:  # the secrets corpus's fillers (commit hashes, UUIDs...)
            return secret_value(kind, variant, r, f), None, None
        return fillers[kind](), None, None


# a slot name may hold digits ("{_B64IMG}", a filler of the secrets corpus)
_SLOT = lazy_compile(r"\{([A-Z_][A-Z0-9_]*(?::[a-z_]+)?)\}")


def generate_clinical_notes(
    n: int, *, seed: int = 0, upper_share: float = 0.2
) -> list[dict[str, Any]]:
    """``n`` labelled nursing notes of 4 to 9 lines drawn from :data:`NOTE_LINES`, in the
    record format of :func:`generate_corpus` (``template`` is ``-1``); a share
    ``upper_share`` of them is written all in capitals, as some charting systems do.

    Examples
    --------
    >>> notes = generate_clinical_notes(2, seed=3)
    >>> all(n["full_text"][s["start_position"]:s["end_position"]] == s["entity_value"]
    ...     for n in notes for s in n["spans"])
    True
    """
    rng = random.Random(seed + 7)
    filler = _Filler(seed)
    out = []
    for _ in range(n):
        tpl = "\n".join(rng.sample(NOTE_LINES, rng.randint(4, 9)))
        rec = _fill(tpl, filler)
        upper = rec["full_text"].upper()
        # some charting systems and some nurses write the whole note in capitals
        if rng.random() < upper_share and len(upper) == len(rec["full_text"]):
            rec["full_text"] = upper
            for span in rec["spans"]:
                span["entity_value"] = span["entity_value"].upper()
        rec["template"] = -1
        out.append(rec)
    return out


def _fill(tpl: str, filler: _Filler) -> dict[str, Any]:
    filler.person = {}
    text_parts: list[str] = []
    spans: list[dict[str, Any]] = []
    pos = 0
    length = 0
    for m in _SLOT.finditer(tpl):
        lit = tpl[pos : m.start()]
        text_parts.append(lit)
        length += len(lit)
        value, label, prefix = filler.value(m.group(1))
        if prefix:
            text_parts.append(prefix)
            length += len(prefix)
        if label is not None:
            spans.append(
                {
                    "entity_type": label,
                    "entity_value": value,
                    "start_position": length,
                    "end_position": length + len(value),
                }
            )
        text_parts.append(value)
        length += len(value)
        pos = m.end()
    text_parts.append(tpl[pos:])
    return {"full_text": "".join(text_parts), "spans": spans}


def generate_corpus(
    n: int, *, seed: int = 0, templates: tuple[str, ...] = TEMPLATES
) -> list[dict[str, Any]]:
    """``n`` labelled records, templates drawn in turn (so every template appears)."""
    filler = _Filler(seed)
    rng = random.Random(seed + 1)
    order = list(range(len(templates)))
    out: list[dict[str, Any]] = []
    while len(out) < n:
        rng.shuffle(order)
        for ti in order:
            if len(out) >= n:
                break
            rec = _fill(templates[ti], filler)
            rec["template"] = ti
            out.append(rec)
    return out
