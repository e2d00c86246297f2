"""Golden tables for the checksum and numbering rules, positives and negatives."""

import pytest

from veil.text.recognition._checksums import aba_ok, card_issuer, iban_ok, luhn_ok, ssn_kind


@pytest.mark.parametrize(
    ("number", "issuer"),
    [
        ("4111 1111 1111 1111", "visa"),
        ("4012888888881881", "visa"),
        ("5555-5555-5555-4444", "mastercard"),
        ("2223003122003222", "mastercard"),
        ("378282246310005", "amex"),
        ("6011111111111117", "discover"),
        ("30569309025904", "diners"),
        ("3530111333300000", "jcb"),
    ],
)
def test_valid_cards(number: str, issuer: str) -> None:
    assert luhn_ok(number)
    assert card_issuer(number) == issuer


@pytest.mark.parametrize(
    "number",
    [
        "4111 1111 1111 1112",  # Luhn fails
        "1234 5678 9012 3456",  # no issuer, Luhn fails
        "0000000000000000",  # Luhn passes, no issuer
        "9111111111111111",
    ],
)
def test_invalid_cards(number: str) -> None:
    assert not (luhn_ok(number) and card_issuer(number))


@pytest.mark.parametrize(
    ("iban", "ok"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("DE89370400440532013000", True),
        ("FR1420041010050500013M02606", True),
        ("NL91ABNA0417164300", True),
        ("GB82 WEST 1234 5698 7654 33", False),  # mod 97 fails
        ("DE8937040044053201300", False),  # wrong length for DE
        ("XX82WEST12345698765432", False),  # unknown country
        ("DE00370400440532013000", False),  # check digits 00 never valid
    ],
)
def test_iban(iban: str, ok: bool) -> None:
    assert iban_ok(iban) is ok


@pytest.mark.parametrize(
    ("aba", "ok"),
    [
        ("011000015", True),
        ("121000358", True),
        ("021000021", True),
        ("011000016", False),
        ("991000015", False),
        ("000000000", False),
        ("12100035", False),
    ],
)
def test_aba(aba: str, ok: bool) -> None:
    assert aba_ok(aba) is ok


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("536-22-1234", "ssn"),
        ("001-01-0001", "ssn"),
        ("899 99 9999", "ssn"),
        ("000-12-3456", None),  # area 000
        ("666-12-3456", None),  # area 666
        ("536-00-1234", None),  # group 00
        ("536-22-0000", None),  # serial 0000
        ("123-45-6789", None),  # publicised sequence
        ("078-05-1120", None),  # the Woolworth wallet number
        ("111-11-1111", None),  # one digit repeated
        ("912-72-1234", "itin"),
        ("999-94-1234", "itin"),
        ("912-45-1234", None),  # 9xx with a group outside the ITIN ranges
    ],
)
def test_ssn_rules(value: str, kind: str | None) -> None:
    assert ssn_kind(value) == kind
