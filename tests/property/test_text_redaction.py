"""Invariants of redaction: nothing detectable is left; pseudonyms are keyed and stable."""

import hashlib
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer, TextRedactor, make_operator

_ANALYZER = TextAnalyzer.from_config(ner=False)
_TYPES = {"EMAIL_ADDRESS", "US_SSN", "CREDIT_CARD", "IBAN_CODE", "PHONE_NUMBER", "IP_ADDRESS"}

pii = st.sampled_from(
    [
        "jo@example.com",
        "a.b+c@mail.example.org",
        "536-22-1234",
        "4111 1111 1111 1111",
        "378282246310005",
        "GB82 WEST 1234 5698 7654 32",
        "(617) 555-0199",
        "+44 20 7946 0958",
        "192.168.0.17",
        "2001:db8::1",
    ]
)
filler = st.sampled_from(
    [
        "Patient",
        "called",
        "about",
        "the",
        "invoice",
        "and",
        "said",
        "ok",
        "CV:",
        "RRR.",
        "Labs",
        "91/42/7.36",
        "today",
        "version",
        "2.10.1",
        "note:",
        "",
        "mail",
        "card",
        "ssn",
    ]
)
texts = st.lists(st.one_of(pii, filler), min_size=1, max_size=25).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.sampled_from(["placeholder", "redact", "mask", "surrogate"]))
def test_redaction_leaves_no_detectable_span(text: str, op: str) -> None:
    opts = {"seed": 1} if op == "surrogate" else {}
    if op == "mask":
        opts = {"char": "#"}
    out = TextRedactor(_ANALYZER, make_operator(op, opts)).redact(text).text
    assert out is not None
    left = {f.entity_type for f in _ANALYZER.analyze(out)} & _TYPES
    if op == "surrogate":
        # surrogates are realistic fakes of the same type by design: they must not be the
        # originals, and nothing original may survive
        for f in _ANALYZER.analyze(text):
            if f.entity_type in _TYPES:
                assert text[f.start : f.end] not in out
    else:
        assert not left, left


# random keys (guessable ones such as all-zero bytes, hypothesis's first draw, are refused)
keys = st.integers(0, 2**64).map(lambda i: hashlib.shake_256(i.to_bytes(9, "big")).digest(32))


@settings(max_examples=60, deadline=None)
@given(pii, keys, keys)
def test_keyed_pseudonyms_stable_per_key_and_differ_across_keys(
    value: str, k1: bytes, k2: bytes
) -> None:
    entity = _ANALYZER.analyze(f"x {value} y")[0].entity_type
    for op_name in ("hash", "surrogate", "encrypt"):
        old = os.environ.get("VEIL_TEST_K")
        try:
            os.environ["VEIL_TEST_K"] = "hex:" + k1.hex()
            a1 = make_operator(op_name, {"key_env": "VEIL_TEST_K"}).replace(value, entity)
            a2 = make_operator(op_name, {"key_env": "VEIL_TEST_K"}).replace(value, entity)
            os.environ["VEIL_TEST_K"] = "hex:" + k2.hex()
            b = make_operator(op_name, {"key_env": "VEIL_TEST_K"}).replace(value, entity)
        finally:
            if old is None:
                os.environ.pop("VEIL_TEST_K", None)
            else:
                os.environ["VEIL_TEST_K"] = old
        assert a1 == a2
        if k1 != k2:
            assert a1 != b


# Faker's postal addresses, per supported format. Its de_DE writes double names with a space
# inside a street name ("Grein Grothgasse"), which official German spelling hyphenates; and
# its nl_NL has a few multi-part place names ("Nieuw- en Sint Joosland"): both are left out.
_ADDRESS_LOCALES = ("en_US", "en_GB", "en_CA", "en_AU", "de_DE", "fr_FR", "it_IT", "es_ES")
_FAKERS: dict[str, object] = {}


def _faker(locale: str):  # type: ignore[no-untyped-def]
    from faker import Faker

    if locale not in _FAKERS:
        _FAKERS[locale] = Faker(locale)
    return _FAKERS[locale]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_ADDRESS_LOCALES),
    st.integers(0, 2**32),
    st.booleans(),
    st.lists(filler, min_size=0, max_size=4),
    st.lists(filler, min_size=0, max_size=4),
)
def test_a_postal_address_is_found_as_one_span(
    locale: str, seed: int, one_line: bool, before: list[str], after: list[str]
) -> None:
    from hypothesis import assume

    fake = _faker(locale)
    fake.seed_instance(seed)
    address = str(fake.address())
    if locale == "de_DE":
        assume(" " not in address.split("\n")[0].rsplit(" ", 1)[0])
    lines = [line.strip() for line in address.split("\n")]
    address = (", " if one_line else "\n").join(lines)
    head = " ".join(["Send", *before, "to"])
    # a comma closes the address: in "10115 Berlin Patient ..." a capitalised word after a
    # postcode-first city would read as part of the city's name (a documented limitation)
    text = f"{head} {address}, {' '.join([*after, 'please'])}."
    start = len(head) + 1
    found = [f for f in _ANALYZER.analyze(text) if f.entity_type == "STREET_ADDRESS"]
    assert [(f.start, f.end) for f in found] == [(start, start + len(address))]
