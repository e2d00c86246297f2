"""Invariants of redaction, checked against the values each test INSERTED (Faker values of
several locales placed into templates), never against the analyzer's own opinion of its
output; pseudonyms are keyed and stable."""

import functools
import hashlib
import os
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer, TextRedactor, make_operator

_ANALYZER = TextAnalyzer.from_config(ner=False)
# the regions whose national phone notation the inserted phone numbers use
_PHONE_ANALYZER = TextAnalyzer.from_config(ner=False, phone_regions=["US", "GB", "FR"])

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
# words without digits: any digit left in a redacted text is then part of an inserted value
words = st.sampled_from(
    ["Patient", "called", "about", "the", "invoice", "and", "said", "ok", "note:", "today"]
)

_FAKERS: dict[str, Any] = {}


def _faker(locale: str):  # type: ignore[no-untyped-def]
    from faker import Faker

    if locale not in _FAKERS:
        _FAKERS[locale] = Faker(locale)
    return _FAKERS[locale]


# Each kind of value: (locales it is drawn in, how it is drawn, templates with a clear context).
# These are values the recognizers must catch every time: e-mails, US SSNs, phone numbers of
# the configured regions, the major card brands, IBANs, public IPv4 addresses. (Faker's de_DE
# phone numbers are left out: many are invalid, e.g. '(00051) 409576'.)
_KINDS: dict[str, tuple[tuple[str, ...], Any, tuple[str, ...]]] = {
    "email": (
        ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT"),
        lambda f: f.email(),
        ("mail {v} today", "write to {v}, thanks", "from: {v}"),
    ),
    "ssn": (("en_US",), lambda f: f.ssn(), ("SSN {v}", "ssn: {v} on file")),
    "phone": (
        ("en_US", "en_GB", "fr_FR"),
        lambda f: f.phone_number(),
        ("phone: {v}.", "call {v} back", "tel {v}"),
    ),
    "card": (
        ("en_US",),
        lambda f: f.credit_card_number(
            f.random_element(("visa16", "mastercard", "amex", "discover"))
        ),
        ("card {v} on file", "paid with {v}"),
    ),
    "iban": (
        ("en_GB", "de_DE", "fr_FR", "nl_NL", "es_ES"),
        lambda f: f.iban(),
        ("IBAN {v}", "transfer to {v}"),
    ),
    "ipv4": (("en_US",), lambda f: f.ipv4_public(), ("login from {v}", "IP {v}")),
    "fixed": (("en_US",), None, ("{v}",)),  # the curated values above
}


@st.composite
def inserted_texts(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A text of filler words and inserted values; returns the text and the values."""
    pieces, values = [], []
    for _ in range(draw(st.integers(1, 6))):
        pieces.extend(draw(st.lists(words, max_size=3)))
        kind = draw(st.sampled_from(sorted(_KINDS)))
        locales, make, templates = _KINDS[kind]
        if make is None:
            value = draw(pii)
        else:
            fake = _faker(draw(st.sampled_from(locales)))
            fake.seed_instance(draw(st.integers(0, 2**32)))
            value = str(make(fake))
        pieces.append(draw(st.sampled_from(templates)).format(v=value))
        values.append(value)
    pieces.extend(draw(st.lists(words, max_size=3)))
    return " ".join(pieces), values


def _leftover(out: str, value: str) -> str | None:
    """What of an inserted ``value`` is still in ``out``: the value, or 4 of its digits in a row."""
    if value in out:
        return "the value"
    digits = re.sub(r"\D", "", value)
    kept = re.sub(r"\D", "", out)
    for i in range(len(digits) - 3):
        if digits[i : i + 4] in kept:
            return f"digits {i}-{i + 4} of the value"
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inserted_texts(), st.sampled_from(["placeholder", "redact", "mask", "surrogate"]))
def test_redaction_removes_every_inserted_value(sample: tuple[str, list[str]], op: str) -> None:
    text, values = sample
    opts: dict[str, Any] = {"seed": 1} if op == "surrogate" else {}
    if op == "mask":
        opts = {"char": "#"}
    out = TextRedactor(_PHONE_ANALYZER, make_operator(op, opts)).redact(text).text
    assert out is not None
    for i, value in enumerate(values):
        if op == "surrogate":
            # realistic fakes of the same type by design: only the original must be gone
            assert value not in out, f"inserted value {i} survives a surrogate"
        else:
            left = _leftover(out, value)
            assert left is None, f"inserted value {i}: {left} survives {op}"
    if op != "surrogate":
        # only inserted values carry digits here, so a redacted text has none left
        assert not re.search(r"\d", out), f"digits survive {op}"


@functools.cache
def _ner_analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=True)


_PERSON_TEMPLATES = (
    "Patient {f} {l} was admitted on Monday.",
    "Dear Mr. {f} {l}, your results are ready.",
    "Seen by Dr. {f} {l} today.",
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(("en_US", "en_GB")),
    st.integers(0, 2**32),
    st.sampled_from(_PERSON_TEMPLATES),
    st.sampled_from(["placeholder", "redact", "mask"]),
)
def test_a_name_in_a_clear_person_context_is_removed(
    locale: str, seed: int, template: str, op: str
) -> None:
    fake = _faker(locale)
    fake.seed_instance(seed)
    first, last = fake.first_name(), fake.last_name()
    text = template.format(f=first, l=last)
    out = TextRedactor(_ner_analyzer(), make_operator(op, {})).redact(text).text
    assert out is not None
    for part in (first, last):
        assert not re.search(rf"\b{re.escape(part)}\b", out), f"a name part survives {op}"


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
