"""Financial identifiers: payment cards (Luhn + issuer), IBAN (mod 97), ABA routing numbers."""

from __future__ import annotations

from veil.text._checksums import aba_ok, card_issuer, iban_ok, luhn_ok
from veil.text._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = ["AbaRoutingRecognizer", "CreditCardRecognizer", "IbanRecognizer"]


@recognizers.register("credit_card")
class CreditCardRecognizer(PatternRecognizer):
    """12-19 digit card numbers, grouped by spaces or dashes; Luhn and issuer prefix required.

    A number that fails either rule is dropped, whatever its context.
    """

    entity = "CREDIT_CARD"
    needs_digit = True
    tier = 0
    patterns = (
        Pattern("card", r"(?<![\w.,/-])\d(?:[ -]?\d){11,18}(?![\w/]|[.,-]\d)", 0.5),
    )
    context = ("card", "credit", "visa", "mastercard", "amex", "cc", "debit")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not (luhn_ok(value) and card_issuer(value) is not None)

    def validate(self, value: str) -> str | None:
        return "luhn+issuer"


@recognizers.register("iban")
class IbanRecognizer(PatternRecognizer):
    """IBANs, compact or in groups of four; country length table and mod-97 required."""

    entity = "IBAN_CODE"
    needs_digit = True
    tier = 0
    patterns = (
        Pattern("iban_compact", r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b", 0.5),
        Pattern("iban_grouped", r"\b[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?\b", 0.5),
    )
    context = ("iban", "bank", "account")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not iban_ok(value)

    def validate(self, value: str) -> str | None:
        return "mod97"


@recognizers.register("aba_routing")
class AbaRoutingRecognizer(PatternRecognizer):
    """ABA routing numbers: checksum and Federal Reserve prefix, and a context word required
    (nine digits alone are more often an SSN, an order number or a phone fragment)."""

    entity = "ABA_ROUTING_NUMBER"
    needs_digit = True
    tier = 0
    patterns = (
        Pattern("aba", r"(?<![\w-])\d{9}(?![\w-])", 0.4),
        Pattern("aba_dashed", r"(?<![\w-])\d{4}-\d{4}-\d(?![\w-])", 0.4),
    )
    context = ("routing", "aba", "rtn", "transit", "routing number", "wire")
    context_required = True

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not aba_ok(value)

    def validate(self, value: str) -> str | None:
        return "aba-checksum"


