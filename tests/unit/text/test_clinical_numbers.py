"""Clinical numbers (issue #25, item 2): pagers, extensions and phones as notes write them,
and the dates of a patient's history in clinical shorthand; each shape with the doses,
vitals, lab values, scores and times it must leave alone."""

from __future__ import annotations

import pytest

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.detection._profiles import profile_keeps
from veil.text.evaluation._corpus import generate_corpus
from veil.text.evaluation._corpus_business import generate_business_corpus
from veil.text.recognition._clinical_numbers import EVENT_YEAR_RULES, number_findings
from veil.text.recognition._finding import Explanation, Finding

# a clinical marker, so that the hipaa profile runs the pass on each line below
_NOTE = "NPO after MN, cont lasix. "


def _numbers(text: str) -> dict[str, str]:
    return {text[f.start : f.end]: f.entity_type for f in number_findings(text)}


def _pass(text: str) -> dict[str, str]:
    return {
        text[f.start : f.end]: f.entity_type for f in clinical_findings(text, [], thorough=False)
    }


@pytest.fixture(scope="module")
def hipaa() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False, profile="hipaa")


@pytest.fixture(scope="module")
def default() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # pagers and beepers written short
        ("p# 54321 for questions", "54321"),
        ("P#12345", "12345"),
        ("covering MD p #: 4411", "4411"),
        ("bp 54321 overnight", "54321"),
        ("BP# 4-1234", "4-1234"),
        # extensions
        ("NP at ext. 12 if needed", "12"),
        ("EXT 4411", "4411"),
        ("extension #204, ask for charge", "204"),
        # hospital extensions after a phone word, directly or across "at"
        ("call 41234 with results", "41234"),
        ("pager 4411", "4411"),
        ("beep 2-3344 when ready", "2-3344"),
        ("may reach wife at 4-1234 tonight", "4-1234"),
        ("call son Bob at 555 1234", "555 1234"),
        ("call Dr. Okafor at 5-4411", "5-4411"),
        ("reached at 5551234", "5551234"),
        ("phone is 617 555 1234", "617 555 1234"),
        ("paged at 4123", "4123"),  # no time of day reads there (41:23)
        ("contact dtr on 617.555.1234", "617.555.1234"),
        # an area code before a local number written whole
        ("son 617 5551234 after 5", "617 5551234"),
        ("dtr (617)5551234", "(617)5551234"),
    ],
)
def test_phones_found(text: str, value: str) -> None:
    assert _numbers(text).get(value) == "PHONE_NUMBER"
    assert _pass(_NOTE + text).get(value) == "PHONE_NUMBER"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("PMH: S/P MI 1994; RCA STENT", "1994"),
        ("PMH MI 92, 3 VCABG", "92"),
        ("PMH: NQWMI 14, HTN", "14"),  # an infarct's year, even under 30
        ("S/P CABG 1961, 1979", "1961"),
        ("S/P CABG 1961, 1979", "1979"),  # the years listed after it
        ("CVA 81'.  CHOLECYSTECTOMY 85'.", "81"),
        ("CVA 81'.  CHOLECYSTECTOMY 85'.", "85"),  # a procedure by its suffix
        ("RENAL CELL CA 1983, S/P NEPHRECTOMY", "1983"),
        ("prostate CA'91, GERD", "91"),
        ("LUNG RESECTION 68'. HTN", "68"),
        ("dx'd in 2003 with DM2", "2003"),
        ("Last colonoscopy, s/p chole 04.", "04"),  # a leading zero: no count
        ("STOPPED SMOKING 68'. LIVES ALONE", "68"),
        ("DM2. 07 PTCA to RCA", "07"),  # a year before a procedure
        ("'98 CABG at an OSH", "'98"),
        ("STARTED IN MARCH OF 1996.", "1996"),  # a month's year
        ("in nov. 2012 he had", "2012"),
        ("s/p hip fx3/95, wrist fx", "3/95"),  # glued to a history word
        ("10/14.95 neuro: alert", "10/14.95"),  # a month, a day and a year after a dot
        ("intubated 5/29-6/1 for CHF", "5/29-6/1"),  # a range read as one date
        ("from 12/30/92 - 1/4/93 in rehab", "12/30/92 - 1/4/93"),
    ],
)
def test_dates_found(text: str, value: str) -> None:
    assert _numbers(text).get(value) == "DATE_TIME"


@pytest.mark.parametrize(
    "text",
    [
        # vitals, doses, lab values, scores, ratios, settings and times
        "BP 120/80, HR 88, RR 18",
        "BP 110/60-130/70 overnight",
        "1/2 tab po bid",
        "2/4 pulses bilat, 1/4-2/4 pedal pulses",
        "strength 5/5 throughout, 5/5-4/5 grips",
        "I:E 1:2, PS 10/5-12/5",
        "pain 6/10 to 3/10 after morphine",
        "MI x 2, CABG x3, s/p lap 10 days ago",
        "hx 12 falls this yr",
        "CA 19-9 pending, Ca 10.2",
        "Ca 9, Mg 2.1, K 3.9",
        "ambulated 50' x2 with PT",
        "paged at 1400 and 0300",  # times of day
        "call at 2130 if UO < 30cc/hr",
        "call for UO < 1000 or SBP > 160",
        "call if WBC > 10000",
        "ext 2+ edema, ext 10 cm wound",
        "pager at bedside",
        "bp 100/60 lying",
        "cell count 25000 on tap",
        "home on Monday, trach on Thurs",  # a weekday alone is no element of a date
        "LR at 125 cc/hr, 1000 ml over 8h",
        "may of 1996 have been",  # "may" the verb stays out of the month rule
        "GCS 15, MMSE 28/30, apgars 8/9",
    ],
)
def test_charting_left_alone(text: str) -> None:
    assert number_findings(text) == []
    found = _pass(_NOTE + text)
    assert not any(t in ("PHONE_NUMBER", "DATE_TIME") for t in found.values()), found


def test_hipaa_reports_the_years_of_a_patients_history(
    hipaa: TextAnalyzer, default: TextAnalyzer
) -> None:
    text = _NOTE + "PMH: MI 92, CHOLECYSTECTOMY 85'. SINCE 2008 LIVES ALONE. CABG in 2001."
    spans = {text[f.start : f.end] for f in hipaa.analyze(text)}
    assert {"92", "85", "2001"} <= spans
    assert "2008" not in spans  # a year alone, not tied to an event, may stay
    # the default profile runs no clinical pass: nothing of the shapes above
    assert not {"92", "85"} & {text[f.start : f.end] for f in default.analyze(text)}


@pytest.mark.parametrize("rule", sorted(EVENT_YEAR_RULES))
def test_profile_keeps_only_the_clinical_pass_event_years(rule: str) -> None:
    text = "hx CABG in 2019"
    start = text.index("2019")
    ours = Finding(
        start, start + 4, "DATE_TIME", 0.6, "clinical_shapes", 1,
        Explanation("clinical_shapes", rule, 0.6, 0.6),
    )  # fmt: skip
    assert profile_keeps("hipaa", text, ours)
    # the same span from another recognizer, or another rule, is a year alone
    other = Finding(start, start + 4, "DATE_TIME", 0.6, "date")
    assert not profile_keeps("hipaa", text, other)
    short = Finding(
        start, start + 4, "DATE_TIME", 0.6, "clinical_shapes", 1,
        Explanation("clinical_shapes", "short_date", 0.6, 0.6),
    )  # fmt: skip
    assert not profile_keeps("hipaa", text, short)


def test_default_profile_and_other_texts_untouched(default: TextAnalyzer) -> None:
    """The shapes run only in the clinical pass, which the default profile never runs; and
    called directly on business and general texts they find only what those texts label
    (phones, dates), no price, id or time."""
    records = [*generate_corpus(150, seed=3), *generate_business_corpus(150, seed=3)]
    found = 0
    for r in records:
        text = r["full_text"]
        gold = bytearray(len(text))
        for s in r["spans"]:
            gold[s["start_position"] : s["end_position"]] = b"\x01" * (
                s["end_position"] - s["start_position"]
            )
        for f in number_findings(text):
            found += 1
            assert gold.find(1, f.start, f.end) >= 0, (f.explanation, r["template"])
        assert all(f.recognizer != "clinical_shapes" for f in default.analyze(text))
    assert found  # the corpora hold phones and dates these shapes read


def test_long_note_without_breaks_is_bounded() -> None:
    text = ("pt seen, call 41234, s/p MI 92, BP 120/80 " * 20_000)[:800_000]
    found = number_findings(text)
    assert found and all(0 <= f.start < f.end <= len(text) for f in found)
    assert {text[f.start : f.end] for f in found} == {"41234", "92"}


# ---- phones in any national layout, brackets, dates in words (issue #25, numbers25) ----------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # digit groups a phone word announces, whatever the country's layout
        ("Wife can be reached at 0412 340 569.", "0412 340 569"),
        ("Please page me at (02) 1234 5574 if concerns.", "(02) 1234 5574"),
        ("Home: 030 129740  Work: none", "030 129740"),
        ("Per pt, best number is 06-1/822 8809.", "06-1/822 8809"),
        ("CELL 0905 123 5554", "0905 123 5554"),
        ("dtr 070-0669-5115 - call before d/c", "070-0669-5115"),  # right after a relative
        # a bracket pair that encloses exactly the number is the number's
        ("Spoke to sister (053 283-0887) re plan", "(053 283-0887)"),
    ],
)
def test_announced_digit_groups(text: str, value: str) -> None:
    assert _numbers(text).get(value) == "PHONE_NUMBER"
    assert _pass(_NOTE + text).get(value) == "PHONE_NUMBER"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Call wife (617-555-0123).", "(617-555-0123)"),
        ("Home phone (617) 555-0123.", "(617) 555-0123"),
        ("dtr (617)5551234 after 5", "(617)5551234"),
    ],
)
def test_phone_takes_its_brackets_not_the_full_stop(
    hipaa: TextAnalyzer, text: str, value: str
) -> None:
    t = _NOTE + text
    spans = {t[f.start : f.end] for f in hipaa.analyze(t) if f.entity_type == "PHONE_NUMBER"}
    assert value in spans


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Seen JAN 5 in clinic.", "JAN 5"),
        ("last echo Sept 12, EF 30%", "Sept 12"),
        ("Seen 5 jan.", "5 jan."),
        ("Last echo jan '92, nl.", "jan '92"),
        ("Admitted Oct. 19, 2020 with CP.", "Oct. 19, 2020"),
        ("Next appt 12 SEP 1958 at clinic.", "12 SEP 1958"),
        ("ECHO MAR 1953: EF 55%", "MAR 1953"),
        ("f/u May '08", "May '08"),
        ("MAY 12, pt stable", "MAY 12"),
        ("Since Sept. pt has had DOE.", "Sept"),
        ("Thu 08/12 seen in clinic", "Thu"),  # a weekday with a date is part of it
        ("wednesday, august 23 at noon", "wednesday"),
        ("D/C'd Mon 23/04 on lasix", "23/04"),  # a day before its month
        ("Admitted 3-18 with CP.", "3-18"),
        ("seen on 2-25.", "2-25"),
        ("home over Christmas", "Christmas"),
        ("since Thanksgiving Day", "Thanksgiving Day"),
        ("in spring 2010", "spring 2010"),
        ("fall of '98", "fall of '98"),
    ],
)
def test_dates_in_words_and_shorthand(hipaa: TextAnalyzer, text: str, value: str) -> None:
    assert _pass(text).get(value) == "DATE_TIME"
    t = _NOTE + text
    assert value in {t[f.start : f.end] for f in hipaa.analyze(t)}


@pytest.mark.parametrize(
    "text",
    [
        "may 2 weeks of abx",
        "dec 20 mg then off",
        "per MAR 20 mg given",
        "on 2-3 L NC, 2-4L at night",
        "2-3 times a day, 5 may need",
        "care 24/7 by family",
        "tolerating 20/10 overnight",  # a day first only with a year or a weekday
        "GCS 15/15, sat 95% on RA",
        "sats 13/10 drop",
        "home on Monday, PT on Thurs",  # a weekday alone
        "son 2 days ago, wife 3 times",
        "MRN number 12345678",
        "call 10/12/2020 clinic",  # a date, no phone
        "call if UO < 30 x 2 hrs",
    ],
)
def test_words_and_numbers_that_are_no_date_or_phone(text: str) -> None:
    found = _pass(text)
    assert not any(
        t in ("PHONE_NUMBER", "DATE_TIME") and v not in ("10/12/2020",) for v, t in found.items()
    ), found
