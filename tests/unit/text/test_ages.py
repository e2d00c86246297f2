"""Ages written in words, and surrogates of every age form that never return the real one."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veil.text import TextAnalyzer
from veil.text.recognition._ages import number_words, spelled_number
from veil.text.replacement._surrogate import SurrogateFactory


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


SPELLED = [
    ("She is forty-five years old.", "forty-five"),
    ("aged forty five, from Leeds", "forty five"),
    ("a twelve-year-old boy", "twelve"),
    ("seventy years of age", "seventy"),
    ("at the age of thirty", "thirty"),
    ("he is in his mid-fifties", "mid-fifties"),
    ("a woman in her nineties", "nineties"),
    ("He is one hundred and two years old", "one hundred and two"),
    ("Forty Five Years Old", "Forty Five"),
]


@pytest.mark.parametrize(("text", "span"), SPELLED)
def test_ages_in_words(analyzer: TextAnalyzer, text: str, span: str) -> None:
    found = [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text)]
    assert [x for x in found if x[0] == "AGE"] == [("AGE", span)]


@pytest.mark.parametrize(
    "text",
    [
        "forty-five minutes later",  # no age word
        "one of seventy people",
        "in the nineties the firm grew",  # a decade of history, not "in his/her"
        "aged one hundred and ninety years",  # over 125
    ],
)
def test_number_words_without_age_context(analyzer: TextAnalyzer, text: str) -> None:
    assert [f for f in analyzer.analyze(text) if f.entity_type == "AGE"] == []


@given(st.integers(1, 199))
def test_number_words_round_trip(n: int) -> None:
    assert spelled_number(number_words(n)) == n


AGE_FORMS = ["47", "40s", "early 40s", "mid-40s", "forty-five", "Forty Five", "mid-fifties",
             "nineties", "one hundred and two", "twelve", "late eighties"]  # fmt: skip


@pytest.mark.parametrize("value", AGE_FORMS)
def test_age_surrogate_is_never_the_real_value(value: str) -> None:
    """A surrogate that returned "40s" or "forty-five" unchanged would leak it: every form
    gets another age, in the same form (digits, decade, words)."""
    f = SurrogateFactory()
    outs = {f.make("AGE", value, seed) for seed in range(20)}
    assert value not in outs
    for out in outs:
        if value.isdigit():
            assert out.isdigit()
        elif value.endswith("0s"):
            assert out.endswith("0s") and out[:-3] == value[:-3]
        else:
            assert spelled_number(out) is not None
            assert out[:1].isupper() == value[:1].isupper()


_TYPES = ["AGE", "DATE_TIME", "PERSON", "LOCATION", "ORGANIZATION", "NRP", "ZIP_CODE",
          "STREET_ADDRESS", "PHONE_NUMBER", "US_SSN", "CREDIT_CARD", "EMAIL_ADDRESS", "URL",
          "MEDICAL_RECORD_NUMBER", "DENY_LIST", "CUSTOM_ID", "UK_NHS", "MEDICAL_LICENSE",
          "CRYPTO", "US_BANK_NUMBER"]  # fmt: skip


@given(
    st.sampled_from(_TYPES),
    st.one_of(
        st.text(min_size=1, max_size=30),
        st.sampled_from(["last Monday", "Tue", "40s", "a", "7", "—", "Boston", "Q3 2020"]),
    ),
    st.integers(0, 2**32),
)
def test_a_surrogate_is_never_the_value_itself(entity: str, value: str, seed: int) -> None:
    """Whatever the type and however odd the value, the surrogate differs from it: a
    generator that cannot read a form must not pass the real value through."""
    assert SurrogateFactory().make(entity, value, seed) != value


@pytest.mark.parametrize("entity", ["US_SSN", "US_ITIN", "ABA_ROUTING_NUMBER"])
@pytest.mark.parametrize("value", ["0000000000", "12-34", "123-45-6789-0"])
def test_a_number_of_another_length_still_gets_a_surrogate(entity: str, value: str) -> None:
    """Hypothesis found "0000000000" as a US_SSN crashing the layout copy (ten digits for
    nine): a value of another length gets the new digits bare."""
    out = SurrogateFactory().make(entity, value, 0)
    assert out != value and out.replace("-", "").isdigit()


@pytest.mark.parametrize(
    ("text", "ages"),
    [
        ("my son is 7 months old", ["7"]),
        ("a 3-month-old baby", ["3"]),
        ("a 2 wk old infant", ["2"]),
        ("10 days old milk", []),  # days old is how food and data age
        ("7 months of work", []),
    ],
)
def test_an_infants_age_in_months_or_weeks(
    analyzer: TextAnalyzer, text: str, ages: list[str]
) -> None:
    found = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "AGE"]
    assert found == ages
