"""Cheap gates before the address and phone scans must never hide a finding.

A gate says "this text cannot hold a match, skip the scan". Each test draws texts built
from the pieces that the guarded grammar reads (unit words with letters, regions after a
comma, unhyphenated postcodes, far-away tails, other dashes) and checks that the
recognizer finds the same with the gate forced open. Each gate below once failed this
(found by an audit, 2026-11-25).
"""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veil.text.recognition._address as address
import veil.text.recognition._contact as contact
from veil.text.recognition._street_address import StreetAddressRecognizer

S = st.sampled_from
_OPEN = re.compile("")
CHECK = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _spans(rec: object, text: str) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.entity_type) for f in rec.analyze(text)]  # type: ignore[attr-defined]


_word = st.text(alphabet="abcdefghiklmnoprstuvwyzéš", min_size=2, max_size=7)
_cap = st.builds(lambda a, b: a + b, S(list("ABCDGHKLMNPRSTWŠÉ")), _word)
_sep = S([", ", " ", "\n", ",\n", "\t", "  "])
_pre = S(["", "Ship to ", "Address: ", "lives at ", "I met him. "])
_city = st.builds(lambda a, b: a + b, _cap, S(["", " City", " Springs"]))
_region = S(["MA", "IL", "TX", "NSW", "Ontario", "BC", "Jalisco", "California", "LA", "WA"])

# digit-free addresses: a unit with a letter, a street line without a number before a region
_unit = st.builds(
    lambda u, letter: f"{u} {letter}",
    S(["Apt", "Flat", "Unit", "Suite", "Studio", "Apartment", "Level", "Room", "Lot"]),
    S(["A", "B", "C", "D", "X", "A-"]),
)
_street = st.builds(
    lambda n, t: f"{n} {t}",
    _cap,
    S(["Orchard", "Court", "Street", "Road", "Close", "Lane", "Quay", "Way", "Mews", "Avenue"]),
)
_french = st.builds(
    lambda t, n: f"{t} {n}",
    S(["rue", "Rue", "Avenue", "Boulevard", "place", "Quai", "allée"]),
    _cap,
)
_tail = st.one_of(
    st.just(""),
    st.builds(lambda s, c, s2, r: f"{s}{c}{s2}{r}", _sep, _city, S([", ", " "]), _region),
)
DIGIT_FREE = st.builds(
    lambda p, u, s, line, t: p + u + s + line + t,
    _pre,
    st.one_of(_unit, st.just("")),
    _sep,
    st.one_of(_street, _french),
    _tail,
)

# Czech and other lines without a street word, before a Brazilian CEP with or without hyphen
_cep = st.one_of(
    st.builds(lambda a, b: f"{a:05d}{b:03d}", st.integers(0, 99999), st.integers(0, 999)),
    st.builds(lambda a, b: f"{a:05d}-{b:03d}", st.integers(0, 99999), st.integers(0, 999)),
    st.builds(lambda a, b: f"{a:03d} {b:02d}", st.integers(0, 999), st.integers(0, 99)),
)
GENERIC = st.builds(
    lambda p, n, num, s, c, city: f"{p}{n} {num}{s}{c} {city}",
    _pre,
    st.one_of(st.builds(lambda a, b: f"{a} {b}", _cap, S(["náměstí", "třída", "Rokytkou"])), _cap),
    st.integers(1, 999),
    _sep,
    _cep,
    _city,
)

# a street line, then its locality far away (padding, a columnar layout)
FAR = st.builds(
    lambda p, n, s, pad, c, s2, pc: f"{p}{n} Main Street{s}{pad}{c}{s2}{pc}",
    _pre,
    st.integers(1, 99),
    S([", ", ",\n", "\n"]),
    st.integers(100, 220).map(lambda k: " " * k),
    _city,
    S([", ", " ", "\n"]),
    S(["D02 X285", "7700", "01310-100 São Paulo", "01310100 Recife"]),
)


@pytest.mark.parametrize(
    ("gate", "texts"),
    [("_GATE", DIGIT_FREE), ("_GENERIC_MARK", GENERIC), ("_near", FAR)],
)
def test_address_gates_hide_nothing(
    gate: str, texts: st.SearchStrategy[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = StreetAddressRecognizer()

    @CHECK
    @given(text=texts)
    def check(text: str) -> None:
        gated = _spans(rec, text)
        with monkeypatch.context() as m:
            m.setattr(address, gate, (lambda *_: True) if gate == "_near" else _OPEN)
            assert _spans(rec, text) == gated

    check()


_dash = S([" ", "-", ".", "\u2013", "\u2010", "\u2212", "~", "\u00a0", "\u200b", "/", "\uff0d", ""])
PHONES = st.builds(
    lambda w, parts, seps: w + "".join(p + q for p, q in zip(parts, seps, strict=False)),
    S(["", "Call ", "tel: ", "ring me on ", "Phone "]),
    st.lists(st.integers(0, 9999).map(str), min_size=1, max_size=5),
    st.lists(_dash, min_size=5, max_size=5),
)


@pytest.mark.parametrize("regions", [("US",), ("GB",), ("DE", "FR"), ("SH", "US")])
def test_phone_hint_hides_nothing(
    regions: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = contact.PhoneRecognizer(regions=regions)

    @CHECK
    @given(text=PHONES)
    def check(text: str) -> None:
        gated = _spans(rec, text)
        with monkeypatch.context() as m:
            m.setattr(contact, "_PHONE_HINT", _OPEN)
            m.setattr(contact, "_ANY_DIGIT", _OPEN, raising=False)
            assert _spans(rec, text) == gated

    check()


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Send the parcel to Flat B, Summers Orchard please.", "Flat B, Summers Orchard"),
        ("Post to: Flat A, Rose Court, Boston, MA.", "Flat A, Rose Court, Boston, MA"),
        ("Their office is at Rue Royale, New Orleans, LA.", "Rue Royale, New Orleans, LA"),
        ("Address: Karlovo náměstí 5, 12000000 Praha", "Karlovo náměstí 5, 12000000 Praha"),
        ("Address: 12 Main Street," + " " * 150 + "Ashburton 7700", None),
    ],
)
def test_addresses_the_gates_once_hid(text: str, span: str | None) -> None:
    found = [text[f.start : f.end] for f in StreetAddressRecognizer().analyze(text)]
    if span is None:  # the far tail: the whole address, from the street line to the postcode
        assert found and found[0].startswith("12 Main Street") and found[0].endswith("7700")
    else:
        assert found == [span]


@pytest.mark.parametrize(
    ("regions", "text", "span"),
    [
        (("GB",), "Please ring me on 020\u20137946\u20130958 tomorrow.", "020\u20137946\u20130958"),
        (("DE",), "Rufen Sie 030\u2013901820 an.", "030\u2013901820"),
        (("SH",), "Call the office on 22158", "22158"),
    ],
)
def test_phone_numbers_the_hint_once_hid(regions: tuple[str, ...], text: str, span: str) -> None:
    found = contact.PhoneRecognizer(regions=regions).analyze(text)
    assert [text[f.start : f.end] for f in found] == [span]
