"""Financial identifiers: payment cards (Luhn + issuer, or Luhn + a card word), IBAN (mod 97,
any letter case), ABA routing numbers, US bank account numbers (with an account word),
Bitcoin addresses (base58check or bech32 checksum)."""

from __future__ import annotations

import re
from typing import Any

from veil._lazy import lazy_compile
from veil.text.recognition._checksums import (
    IBAN_LENGTHS,
    aba_ok,
    bitcoin_ok,
    card_issuer,
    iban_ok,
    luhn_ok,
)
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import (
    ContextMatcher,
    Pattern,
    PatternRecognizer,
    recognizers,
    text_features,
)

__all__ = [
    "AbaRoutingRecognizer",
    "BankAccountRecognizer",
    "CreditCardRecognizer",
    "CryptoRecognizer",
    "IbanRecognizer",
]


@recognizers.register("credit_card")
class CreditCardRecognizer(PatternRecognizer):
    """12-19 digit card numbers, grouped by spaces or dashes; Luhn and issuer prefix required.

    A number with no known issuer's prefix (a new range, a private-label or test card) is
    reported only when it passes Luhn, has 13 to 19 digits (ISO/IEC 7812 payment cards), is
    a whole run of digit groups, and a card word is near ("card", "cc", "visa"), at
    ``no_issuer_score``; without the word it is dropped, since one number in ten passes Luhn.
    """

    entity = "CREDIT_CARD"
    needs_digit = True
    tier = 0
    patterns = (Pattern("card", r"(?<![\w.,/-])\d(?:[ -]?\d){11,18}(?![\w/]|[.,-]\d)", 0.5),)
    context = ("card", "credit", "visa", "mastercard", "amex", "cc", "debit")
    #: words that let a Luhn-valid number without an issuer's prefix count as a card: narrower
    #: than ``context`` ("credit" and "debit" alone are ledger words)
    card_words = ("card", "cards", "cc", "ccn", "visa", "mastercard", "amex", "maestro")
    no_issuer_score = 0.6

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._card_words = ContextMatcher(self.card_words, self.context_window, self.context_after)

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not _card_ok(value)

    def validate(self, value: str) -> str | None:
        return "luhn+issuer"

    def analyze(self, text: str) -> list[Finding]:
        """Runs of digit groups are searched for the longest valid card, left to right, so
        a card next to other numbers ("536-22-1234 4111 1111 1111 1111") is still found."""
        out: list[Finding] = []
        if text_features(text).digits < 12:  # a card has 12 to 19 digits
            return out
        for m in _RUN.finditer(text):
            if _IBAN_HEAD.search(text, max(0, m.start() - 5), m.start()):
                continue  # the body of an IBAN-shaped string ("DE00 3867 7606 ..."), not a card
            groups = [
                (g.start() + m.start(), g.end() + m.start()) for g in _DIGITS.finditer(m.group(0))
            ]
            i = 0
            found = False
            while i < len(groups):
                hit = None
                for j in range(len(groups) - 1, i - 1, -1):
                    n = sum(b - a for a, b in groups[i : j + 1])
                    start, end = groups[i][0], groups[j][1]
                    if 12 <= n <= 19 and _card_ok(text[start:end]):
                        hit = (j, start, end)
                        break
                if hit is None:
                    i += 1
                    continue
                j, start, end = hit
                words = self._context.find(text, start, end)
                out.append(
                    Finding(
                        start,
                        end,
                        self.entity,
                        1.0,
                        self.name,
                        self.tier,
                        Explanation(self.name, "card", 0.5, 1.0, words, "luhn+issuer"),
                    )
                )
                found = True
                i = j + 1
            if not found:
                self._no_issuer(text, m.start(), m.end(), out)
        return out

    def _no_issuer(self, text: str, start: int, end: int, out: list[Finding]) -> None:
        value = text[start:end]
        if not 13 <= sum(c.isdigit() for c in value) <= 19 or not luhn_ok(value):
            return
        words = self._card_words.find(text, start, end)
        if not words:
            return
        out.append(
            Finding(
                start,
                end,
                self.entity,
                self.no_issuer_score,
                self.name,
                self.tier,
                Explanation(
                    self.name, "card_no_issuer", 0.5, self.no_issuer_score, words, "luhn+context"
                ),
            )
        )


_RUN = lazy_compile(r"(?<![\w.,/-])\d+(?:[ -]\d+)*(?![\w/]|[.,-]\d)")
_DIGITS = lazy_compile(r"\d+")
# ISO 13616 print format: country code and check digits, then groups of four
_IBAN_HEAD = lazy_compile(r"(?<![\w])[A-Za-z]{2}\d{2} $")


def _card_ok(value: str) -> bool:
    return luhn_ok(value) and card_issuer(value) is not None


@recognizers.register("iban")
class IbanRecognizer(PatternRecognizer):
    """IBANs, compact or in groups of four; country length table and mod-97 required.

    ISO 13616 prints IBANs in upper case, but the check (ISO 7064 mod 97-10) is over the
    letters whatever their case, so "de89 3704 ..." is the same IBAN as "DE89 3704 ...":
    case is ignored. A compact IBAN must have its letters in one case, though, as a
    mixed-case run of letters and digits is more often a token or a key than an IBAN; in a
    grouped one each group is in one case or capitalised ("Gb82 West ..."), never
    "LV80 bANK ...".
    """

    entity = "IBAN_CODE"
    needs_digit = True
    tier = 0
    patterns = (
        Pattern("iban_compact", r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b", 0.5, flags=re.IGNORECASE),
        Pattern(
            "iban_grouped",
            r"\b[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?\b",
            0.5,
            flags=re.IGNORECASE,
        ),
        # groups joined by dashes, as some forms print them: "AL47-2121-1009-..."
        Pattern(
            "iban_dashed",
            r"(?<![\w-])[A-Z]{2}\d{2}(?:-[A-Z0-9]{4}){2,7}(?:-[A-Z0-9]{1,3})?(?![\w-])",
            0.5,
            flags=re.IGNORECASE,
        ),
    )
    context = ("iban", "bank", "account")

    def trim(self, text: str, start: int, end: int) -> int:
        # a grouped IBAN takes a short word after it as its last group ("AL47 2121 ... 8741
        # is mine"): cut the span to the country's length when the cut falls between groups
        value = text[start:end]
        if " " not in value:
            return end
        want = IBAN_LENGTHS.get(value[:2].upper())
        if want is None:
            return end
        n = 0
        for i, ch in enumerate(value):
            n += ch.isalnum()
            if n == want:
                cut = start + i + 1
                return cut if cut == end or text[cut] == " " else end
        return end

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        if not re.search(r"[ -]", value) and not (value.isupper() or value.islower()):
            return True
        if any(_MIXED_GROUP.search(g) for g in re.split(r"[ -]", value)):
            return True
        return not iban_ok(value)

    def validate(self, value: str) -> str | None:
        return "mod97"


_MIXED_GROUP = lazy_compile(r"[a-z][A-Z]")  # a capital after a small letter: "bANK"


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
    checksum = ("aba-checksum", aba_ok)


@recognizers.register("us_bank_number")
class BankAccountRecognizer(PatternRecognizer):
    """US bank account numbers: 8 to 17 digits (no check digit exists), only with an account
    word near them ("account", "acct", "checking", "savings"). A payment card, a routing
    number or a phone number on the same digits wins (they carry proof this lacks)."""

    entity = "US_BANK_NUMBER"
    needs_digit = True
    tier = 2
    patterns = (Pattern("bank_account", r"(?<![\w.,/-])\d{8,17}(?![\w/-]|[.,]\d)", 0.4),)
    context = (
        "account", "acct", "acct.", "a/c", "bank account", "checking", "savings",
        "account number", "account no",
    )  # fmt: skip
    context_required = True


@recognizers.register("crypto")
class CryptoRecognizer(PatternRecognizer):
    """Bitcoin addresses whose checksum holds: base58check ("1...", "3...": version byte and
    double SHA-256) and bech32 / bech32m ("bc1...", BIP 173 and 350). A random string passes
    one time in four billion, so no context is needed."""

    entity = "CRYPTO"
    patterns = (
        Pattern("btc_base58", r"(?<![\w])[13][1-9A-HJ-NP-Za-km-z]{25,34}(?![\w])", 0.5),
        Pattern(
            "btc_bech32",
            r"(?<![\w])(?:bc1[02-9ac-hj-np-z]{11,71}|BC1[02-9AC-HJ-NP-Z]{11,71})(?![\w])",
            0.5,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not bitcoin_ok(value)

    def validate(self, value: str) -> str | None:
        return "bech32" if value[:3].lower() == "bc1" else "base58check"
