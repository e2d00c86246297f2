"""Phone numbers: international notation for any country, national notation per region.

Every number here is made up or taken from ranges set aside for drama and documentation
(Ofcom's 020 7946 0xxx and 07700 900xxx, North America's 555-01xx), never from a corpus.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import PolicyError
from veil.policy import DETECT_SCORE_THRESHOLD, TextConfig
from veil.text import TextAnalyzer
from veil.text.recognition._contact import PhoneRecognizer


def _spans(rec: PhoneRecognizer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in rec.analyze(text)]


def _detected(rec: PhoneRecognizer, text: str) -> list[str]:
    """Spans at the detect threshold (0.5): a national number in digit groups with no phone
    word or country cue is reported below it (``any_region_score``), for redaction only."""
    return [text[f.start : f.end] for f in rec.analyze(text) if f.score >= 0.5]


@pytest.fixture(scope="module")
def us() -> PhoneRecognizer:
    return PhoneRecognizer()


# E.123 international notation: the country code says which plan validates the number, so the
# default region (US) finds them all
INTERNATIONAL = [
    ("sent from +44 20 7946 0958 today", "+44 20 7946 0958"),
    ("+44 (0)20 7946 0958 is the desk", "+44 (0)20 7946 0958"),
    ("desk (+44) 20 7946 0958.", "(+44) 20 7946 0958"),
    ("+442079460958", "+442079460958"),
    ("+44.20.7946.0958", "+44.20.7946.0958"),
    ("office +49 30 901820, Berlin", "+49 30 901820"),
    ("office +49-30-901820", "+49-30-901820"),
    ("office +49 (30) 901820", "+49 (30) 901820"),
    ("Paris +33 1 23 45 67 89", "+33 1 23 45 67 89"),
    ("+33 (0)1 23 45 67 89", "+33 (0)1 23 45 67 89"),
    ("Mumbai +91 98765 43210", "+91 98765 43210"),
    ("+91-98765-43210", "+91-98765-43210"),
    ("Tokyo +81 3-1234-5678", "+81 3-1234-5678"),
    ("Sydney +61 2 9876 5432", "+61 2 9876 5432"),
    ("Madrid +34 912 345 678", "+34 912 345 678"),
    ("Rome +39 06 1234 5678", "+39 06 1234 5678"),
    ("Amsterdam +31 20 123 4567", "+31 20 123 4567"),
    ("Moscow +7 495 123-45-67", "+7 495 123-45-67"),
    ("Sao Paulo +55 11 91234-5678", "+55 11 91234-5678"),
    ("Dublin +353 1 234 5678", "+353 1 234 5678"),
    ("Tel Aviv +972-3-123-4567", "+972-3-123-4567"),
    ("Boston +1 (617) 555-0199", "+1 (617) 555-0199"),
    ("Boston 1 (617) 555-0199", "1 (617) 555-0199"),  # the trunk prefix, dialled at home
    ("my number is 1 617 555 0199", "1 617 555 0199"),  # and before a bare area code
    ("Boston 1(617)555-0199", "1(617)555-0199"),
    ("Boston +1.617.555.0199", "+1.617.555.0199"),
    ("Boston +16175550199", "+16175550199"),
    # "00" (most of the world) and "011" (North America) in place of "+"
    ("from abroad 0044 20 7946 0958", "0044 20 7946 0958"),
    ("from abroad 00 49 30 901820", "00 49 30 901820"),
    ("from the US 011 44 20 7946 0958", "011 44 20 7946 0958"),
    ("from Europe 001-617-555-0199", "001-617-555-0199"),
    # a North American number in parentheses whole (the pair is the number's, issue #25),
    # or after a dash run (a note's rule line)
    ("FAMILY (617-555-0199) CALLED", "(617-555-0199)"),
    ("FAMILY (617-555-0199). CALLED", "(617-555-0199)"),
    ("Tel (+44 20 7946 0958) for the office", "(+44 20 7946 0958)"),
    ("Dr. Ames---617 555-0199 & RN", "617 555-0199"),
    # a well-formed North American number that phonenumbers does not know as assigned
    ("from Europe 001-946-985-8501x20245", "001-946-985-8501x20245"),
    # extensions belong to the number
    ("+44 20 7946 0958 ext. 123 for billing", "+44 20 7946 0958 ext. 123"),
    ("+44 20 7946 0958x123", "+44 20 7946 0958x123"),
    ("617-555-0199 x1234", "617-555-0199 x1234"),
    ("(617) 555-0199 ext. 12", "(617) 555-0199 ext. 12"),
    ("617.555.0199x55", "617.555.0199x55"),
]


@pytest.mark.parametrize(("text", "span"), INTERNATIONAL)
def test_international_notation_with_default_region(
    us: PhoneRecognizer, text: str, span: str
) -> None:
    assert _spans(us, text) == [span]


def test_trunk_prefix_is_not_taken_from_an_ipv6_address(us: PhoneRecognizer) -> None:
    # found by the redaction property test: the "1" ending "2001:db8::1" became the trunk
    # prefix of the phone number after it, and the address was then lost in the overlap
    assert _spans(us, "2001:db8::1 (617) 555-0199") == ["(617) 555-0199"]


def test_international_number_is_not_cut_into_a_north_american_one(us: PhoneRecognizer) -> None:
    # "301 234-5678" has a North American layout, but here it is the tail of a German number
    text = "Frankfurt +49 301 234-5678"
    assert _spans(us, text) == ["+49 301 234-5678"]
    assert us.analyze(text)[0].explanation.pattern_name == "phonenumbers"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("+44 20 7946 0958 617-555-0199", ["+44 20 7946 0958", "617-555-0199"]),
        ("+49 30 901820 617-555-0199", ["+49 30 901820", "617-555-0199"]),
        ("+44 20 7946 0958 536-22-1234", ["+44 20 7946 0958"]),
    ],
)
def test_international_number_followed_by_another_number(
    us: PhoneRecognizer, text: str, spans: list[str]
) -> None:
    assert _spans(us, text) == spans


def test_scores_say_how_strong_the_evidence_is(us: PhoneRecognizer) -> None:
    by_span = {
        t[f.start : f.end]: (f.score, f.explanation.pattern_name)  # type: ignore[union-attr]
        for t in ("mail +44 20 7946 0958", "mail 0044 20 7946 0958", "phone 0044 20 7946 0958")
        for f in us.analyze(t)
    }
    assert by_span["+44 20 7946 0958"] == (0.75, "phonenumbers")
    # "00" is digits only: a weaker sign than "+", raised by a phone word
    assert by_span["0044 20 7946 0958"] == (pytest.approx(0.8), "idd_prefix")
    assert us.analyze("mail 0044 20 7946 0958")[0].score == pytest.approx(0.6)


def test_possible_but_unassigned_number_needs_a_phone_word(us: PhoneRecognizer) -> None:
    # 07700 900xxx is reserved for drama: the right length, but not an assigned number
    (f,) = us.analyze("mobile +44 7700 900123")
    assert (f.score, f.explanation.pattern_name) == (  # type: ignore[union-attr]
        pytest.approx(0.75),
        "possible",
    )
    assert us.analyze("sent +44 7700 900123") == []
    # an amount of that shape is not a phone number without one
    assert us.analyze("sales up +44 123 456 789 units") == []
    # North American numbers have their own structure, checked by the layout regex instead
    assert us.analyze("call +1 023 456 7890") == []


INTERNATIONAL_NEGATIVES = [
    "score +1.5 points",
    "+20% growth",
    "Revenue rose +12 345 678 EUR",
    "+5 and +6 and +7 123",
    "2+3 = 5 and 4+4 = 8",
    "v+1.2.3.4567 build",
    "order 0012-3456-7890 shipped",
    "ticket 00 12 34 56 78",
    "at 00:45:12 sharp",
    "lot 00491234567890 released",  # digits only: needs a phone word
    "routing number 011000015",
    "ref 0044 1234",
    "Labs 91/42/7.36 this morning",
    "ABG 7.36/42/91 on FiO2 40%",
    "version 2.10.1 released",
    "account 9027883829 closed",
    "BP 120/80, HR 72",
]


@pytest.mark.parametrize("text", INTERNATIONAL_NEGATIVES)
def test_international_hard_negatives(us: PhoneRecognizer, text: str) -> None:
    assert _spans(us, text) == []


# national notation of other countries: only for the regions asked for
# No phone word before them (German and French words are not in the context list)
NATIONAL = [
    ("GB", "desk 020 7946 0958 today", "020 7946 0958"),
    ("GB", "see 07911 123456", "07911 123456"),
    ("DE", "Büro: 030 901820", "030 901820"),
    ("FR", "bureau 01 23 45 67 89", "01 23 45 67 89"),
]


@pytest.mark.parametrize(("region", "text", "span"), NATIONAL)
def test_national_notation_without_a_phone_word_needs_its_region(
    region: str, text: str, span: str
) -> None:
    assert span not in _detected(PhoneRecognizer(), text)
    assert _spans(PhoneRecognizer(["US", region]), text) == [span]
    assert _detected(PhoneRecognizer(["US", region]), text) == [span]


@pytest.mark.parametrize(
    "text",
    [
        "Labs 91/42/7.36 this morning",
        "ABG 7.36/42/91 on FiO2 40%",
        "account 9027883829 closed",
        "order 02079460958",  # digits only: needs a phone word
        "BP 120/80, HR 72",
        "on 12.03.2021 we met",
        "version 2.10.1 released",
        "ISBN 978-3-16-148410-0",
        "patients 12 34 56 78 90",
    ],
)
def test_hard_negatives_with_more_regions(text: str) -> None:
    assert _spans(PhoneRecognizer(["US", "GB", "DE", "FR"]), text) == []


def test_without_us_north_american_layouts_are_not_searched() -> None:
    gb = PhoneRecognizer("GB")
    assert gb.regions == ("GB",)
    assert _spans(gb, "desk 020 7946 0958 or 617-555-0199") == ["020 7946 0958"]
    assert _spans(gb, "call +1 617 555 0199") == ["+1 617 555 0199"]  # "+" numbers always


def test_region_codes_are_checked() -> None:
    assert PhoneRecognizer([" gb", "GB", "us"]).regions == ("GB", "US")
    with pytest.raises(PolicyError, match="XX"):
        PhoneRecognizer(["US", "XX"])
    with pytest.raises(PolicyError, match="no region"):
        PhoneRecognizer([])


def test_phone_regions_from_the_policy() -> None:
    cfg = TextConfig(ner=False, phone_regions=("us", "gb"))
    assert cfg.phone_regions == ("US", "GB")
    text = "desk 020 7946 0958"
    found = TextAnalyzer.from_config(cfg).analyze(text)
    assert [(f.entity_type, text[f.start : f.end]) for f in found] == [
        ("PHONE_NUMBER", "020 7946 0958")
    ]
    # the keyword overrides the config: a grouped national number of a region not named is
    # left to the recall-first redaction threshold (any region), below `veil text detect`'s
    assert all(
        f.score < DETECT_SCORE_THRESHOLD
        for f in TextAnalyzer.from_config(cfg, phone_regions="US").analyze(text)
    )
    assert TextConfig().phone_regions == ("US",)


@pytest.mark.parametrize("bad", [(), ("USA",), ("4B",)])
def test_phone_regions_policy_validation(bad: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="phone_regions"):
        TextConfig(phone_regions=bad)


# National notation of a region not in ``regions``: found only when a phone word precedes it
WITH_CONTEXT = [
    ("call 020 7946 0958 today", "020 7946 0958"),  # GB, Ofcom drama range
    ("mobile: 07911 123456", "07911 123456"),  # GB mobile layout
    ("Tel. 06 12 34 56 78", "06 12 34 56 78"),  # FR mobile layout
    ("call me at 98765 43210", "98765 43210"),  # IN mobile layout
    ("call 020 7946 0958 ext. 12 today", "020 7946 0958 ext. 12"),  # the extension too
    # the verbs of calling in their forms, and someone's number
    ("She is not answering at 020 7946 0958 today.", "020 7946 0958"),
    ("Leave a voicemail at 06 12 34 56 78.", "06 12 34 56 78"),
    ("WhatsApp me on 07911 123456.", "07911 123456"),
    ("Ring me on 020 7946 0958 after six.", "020 7946 0958"),
    ("I was calling 98765 43210 all day", "98765 43210"),
    ("Send messages to 07911 123456 please.", "07911 123456"),
    ("My number is 020 7946 0958.", "020 7946 0958"),
]
NO_CONTEXT_OR_NOT_A_PHONE = [
    "020 7946 0958 was the batch",  # no phone word
    "the lab value 7946 0958 was high",
    "call on 2020-01-02 about it",  # a date, whatever the word before
    "call back 02.01.2020",
    "call at 10.30 tomorrow",
    "call 3 times a day",
    # a number that is an order's or an account's, not someone's; a ring size; a list
    "Order number 4521 889 212 shipped.",
    "Your account number is 0201 7946 0958.",
    "ring size 7, 2 rings",
    "The messages: 1234 5678 9012",
    # a dash that joins a word or a digit to the groups: an identifier, not a phone
    "id A-617-555-0199",
    "ref 12-617-555-0199",
]


@pytest.mark.parametrize(("text", "number"), WITH_CONTEXT)
def test_other_regions_national_numbers_need_a_phone_word(
    us: PhoneRecognizer, text: str, number: str
) -> None:
    assert _spans(us, text) == [number]
    (f,) = us.analyze(text)
    assert f.explanation is not None and f.explanation.pattern_name.startswith("context_")
    assert f.explanation.context_words


@pytest.mark.parametrize("text", NO_CONTEXT_OR_NOT_A_PHONE)
def test_no_context_number_or_date_is_not_a_phone(us: PhoneRecognizer, text: str) -> None:
    assert _detected(us, text) == []


@pytest.mark.parametrize(
    ("locale", "region"),
    [("en_GB", "GB"), ("de_DE", "DE"), ("fr_FR", "FR"), ("en_AU", "AU"), ("en_IN", "IN")],
)
def test_faker_national_numbers_after_a_phone_word_are_found(
    us: PhoneRecognizer, locale: str, region: str
) -> None:
    import phonenumbers as pn
    from faker import Faker

    fake = Faker(locale)
    fake.seed_instance(11)
    checked = 0
    frames = (
        "Please call {} before noon.",
        "She is not answering at {} today.",
        "Leave a voicemail at {}.",
        "WhatsApp me on {}.",
        "Ring me on {} after six.",
        "My number is {}.",
    )
    for i in range(300):
        number = fake.phone_number()
        try:
            valid = pn.is_valid_number(pn.parse(number, region))
        except pn.NumberParseException:
            valid = False
        if not valid:
            continue  # Faker's numbers need not be assigned ones; only valid ones must be found
        checked += 1
        text = frames[i % len(frames)].format(number)
        lo, hi = text.index(number), text.index(number) + len(number)
        assert any(f.start <= lo and hi <= f.end for f in us.analyze(text)), (locale, checked)
    assert checked >= 30


# Hospital pagers: internal numbers of 4 to 10 digits, a phone number only after the word
# that says so
@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Dr. Roe aware, pager 45123, will come up.", "45123"),
        ("paged HO at beeper #4-5123 re: low UOP", "4-5123"),
        ("PGR: 45123", "45123"),
        ("bleep 2231 for the on-call registrar", "2231"),
        ("Pager no. 617-555-0199", "617-555-0199"),
    ],
)
def test_pager_numbers_after_their_word(us: PhoneRecognizer, text: str, span: str) -> None:
    found = us.analyze(text)
    assert [text[f.start : f.end] for f in found] == [span]
    assert found[0].explanation is not None
    assert span not in "".join(found[0].explanation.context_words)  # no data in explanations


@pytest.mark.parametrize(
    "text",
    [
        "see page 12345 of the chart",  # "page" is not "pager"
        "page 45123 re: K 3.1",
        "pager 123 battery low",  # too short for a number
        "pager 45.123 and 2.5 mg",  # a decimal
        "new pager issued, 45123 units given",  # a number further on is not the pager's
        "45123 pager",  # the word comes first
    ],
)
def test_pager_hard_negatives(us: PhoneRecognizer, text: str) -> None:
    assert _spans(us, text) == []


def test_generated_notes_pagers_are_found() -> None:
    from veil.text import generate_clinical_notes

    analyzer = TextAnalyzer.from_config(ner=False)
    pagers = 0
    for note in generate_clinical_notes(300, seed=5):
        text = note["full_text"]
        found = {
            (f.start, f.end) for f in analyzer.analyze(text) if f.entity_type == "PHONE_NUMBER"
        }
        for s in note["spans"]:
            if s["entity_type"] == "PHONE_NUMBER":
                assert (s["start_position"], s["end_position"]) in found
                pagers += (
                    s["entity_value"].replace("-", "").isdigit()
                    and len(s["entity_value"].replace("-", "")) == 5
                )
    assert pagers >= 10


@pytest.mark.parametrize(
    ("text", "span", "word"),
    [
        ("(0191) 496 0377 is my cell", "(0191) 496 0377", "cell"),
        ("0191 496 0377, mobile", "0191 496 0377", "mobile"),
        ("0191 496 0377 (home)", "0191 496 0377", "home"),
        ("6844381855 is my cell", "6844381855", "cell"),  # bare digits: the word after
    ],
)
def test_a_phone_word_after_the_number(
    us: PhoneRecognizer, text: str, span: str, word: str
) -> None:
    (f,) = us.analyze(text)
    assert text[f.start : f.end] == span
    assert f.explanation is not None and f.explanation.context_words == (word,)


@pytest.mark.parametrize(
    "text",
    [
        "0191 496 0377 items shipped",
        "6844381855 is my order number",  # "number" alone says nothing
        # an invalid North American number is not cut to a valid-looking part
        "Phone 1-156-697-0170",
    ],
)
def test_no_phone_without_its_word_or_cut_inside_a_group(us: PhoneRecognizer, text: str) -> None:
    assert _detected(us, text) == []


# A North American number attached to what precedes it: a word with the space left out, or a
# country code written with a hyphen and no "+". Found for redaction (0.45), below the detect
# threshold unless a phone word is near; the digits must be a number in service
ATTACHED = [
    ("my other one is617-555-0199", "617-555-0199"),
    ("the desk is at(617) 555-0199 today", "(617) 555-0199"),
    ("abroad: 44-617-555-0199", "44-617-555-0199"),
    ("the India desk 91-617-555-0199.", "91-617-555-0199"),
]
NOT_ATTACHED = [
    "part AB12-617-555-0199",  # a code of letters and digits before it
    "ref 12-617-555-0199",  # 12 is no country code
    "build v2.617-555-0199",  # a dotted version
    "mail x@host617-555-0199",  # inside an address
    "one is221-395-1837",  # area code 221 is not in service
]


@pytest.mark.parametrize(("text", "span"), ATTACHED)
def test_attached_numbers_are_found_for_redaction(
    us: PhoneRecognizer, text: str, span: str
) -> None:
    found = [(text[f.start : f.end], f.score) for f in us.analyze(text)]
    assert found == [(span, us.any_region_score)]
    assert _detected(us, text) == []


def test_attached_number_with_a_phone_word_is_detected(us: PhoneRecognizer) -> None:
    assert _detected(us, "call me on tel617-555-0199") == ["617-555-0199"]
    assert _detected(us, "reach me at(617) 555-0199") == ["(617) 555-0199"]


@pytest.mark.parametrize("text", NOT_ATTACHED)
def test_attached_negatives(us: PhoneRecognizer, text: str) -> None:
    assert _spans(us, text) == []


def test_spaced_layout_not_in_service_yields_to_a_checksummed_id() -> None:
    """ "221 395 1837": three, three and four digits spaced (how the NHS prints its numbers),
    passing the NHS check digit, and no North American number in service. At the redaction
    threshold the NHS number wins; at the detect threshold (the NHS number alone is below
    it) and with a phone word it stays a phone number; dashes keep a phone's layout."""
    redact = TextAnalyzer.from_config(ner=False)
    detect = TextAnalyzer.from_config(ner=False)
    detect.score_threshold = DETECT_SCORE_THRESHOLD
    assert redact.score_threshold < DETECT_SCORE_THRESHOLD

    def typed(a: TextAnalyzer, text: str) -> list[tuple[str, str]]:
        return [(text[f.start : f.end], f.entity_type) for f in a.analyze(text)]

    assert typed(redact, "ref 221 395 1837") == [("221 395 1837", "UK_NHS")]
    assert typed(detect, "ref 221 395 1837") == [("221 395 1837", "PHONE_NUMBER")]
    assert typed(redact, "call 221 395 1837") == [("221 395 1837", "PHONE_NUMBER")]
    assert typed(redact, "ref 221-395-1837") == [("221-395-1837", "PHONE_NUMBER")]
    # fails the NHS check digit: the phone layout alone
    assert typed(redact, "ref 221 395 1838") == [("221 395 1838", "PHONE_NUMBER")]
    # a number in service keeps its phone type whatever the check digit says
    assert typed(redact, "ref 617 555 0199")[0][1] == "PHONE_NUMBER"


@settings(max_examples=60, deadline=None)
@given(
    word=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=12
    ),
    line=st.sampled_from(["0100", "0123", "0145", "0167", "0199"]),
)
def test_a_glued_word_never_enters_the_span(us: PhoneRecognizer, word: str, line: str) -> None:
    """Whatever word a number in service is glued to, the finding is the number alone."""
    number = f"617-555-{line}"
    text = f"note {word}{number} ok"
    spans = [(text[f.start : f.end], f.score) for f in us.analyze(text)]
    assert len(spans) == 1 and spans[0][0] == number


@settings(max_examples=60, deadline=None)
@given(prefix=st.integers(min_value=0, max_value=999))
def test_a_hyphenated_prefix_is_taken_only_when_it_is_a_country_code(
    us: PhoneRecognizer, prefix: int
) -> None:
    import phonenumbers

    text = f"ref {prefix}-617-555-0199 ok"
    spans = _spans(us, text)
    code = phonenumbers.region_code_for_country_code(prefix) != phonenumbers.UNKNOWN_REGION
    if code and prefix != 1:
        assert spans == [f"{prefix}-617-555-0199"]
    elif prefix != 1:
        assert all(not s.startswith(str(prefix)) for s in spans)
