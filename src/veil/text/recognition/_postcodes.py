"""A locality without a street line: US states after a city ("Boston, MA 02139") and ZIP
and postal codes near their words. Inside a full address (``_address``) they belong to the
``STREET_ADDRESS`` span; alone they are a ``LOCATION`` and a ``ZIP_CODE``, which a policy can
tell apart (a state may be kept under HIPAA Safe Harbor, a ZIP code may not)."""

from __future__ import annotations

from veil.text.recognition._address import _CA_PC, _EIRCODE, _EU_PC_DISTINCT, _UK_PC
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, recognizers
from veil.text.vocab._street_words import _STATE_NAMES, _STATES

__all__ = ["StateRecognizer", "ZipCodeRecognizer"]


@recognizers.register("us_state")
class StateRecognizer(PatternRecognizer):
    """US states written after a city and a comma, as in addresses: "Boston, MA 02139"."""

    entity = "LOCATION"
    patterns = (
        Pattern(
            "state_after_city",
            rf"\b[A-Z][a-z]+,\s+((?:{'|'.join(_STATES)})|(?:{_STATE_NAMES}))"
            r"(?=\s+\d{5}\b|\s*[.,;:)]|\s*$)",
            0.75,
            group=1,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        from veil.text.recognition._places import degree_after_name

        return degree_after_name(text, start, end)  # "Anjali Mehta, MD": a degree


@recognizers.register("zip_code")
class ZipCodeRecognizer(PatternRecognizer):
    """ZIP and postal codes: US ZIP and ZIP+4 after a state (``MA 02139``); near "zip",
    "postcode" or "postal code", a US ZIP, a UK postcode (Royal Mail grammar), a Canadian
    postal code (Canada Post's letters), an Eircode, a Dutch ``1234 AB``, the hyphenated
    and spaced forms of Poland, Portugal, Brazil, Sweden and Czechia; right after the word,
    four digits (Australia, Austria, Switzerland, the Nordic countries ...), Japan's
    ``100-0001`` or a code with its country letter (``D-80331``). Inside a full address the
    postcode belongs to the ``STREET_ADDRESS`` span."""

    entity = "ZIP_CODE"
    needs_digit = True
    patterns = (
        Pattern(
            "zip_after_state",
            rf"\b(?:{'|'.join(_STATES)}|{_STATE_NAMES}),?\s+(\d{{5}}(?:-\d{{4}})?)(?![\w-])",
            0.8,
            group=1,
        ),
        Pattern("zip", r"(?<![\w$.,/-])\d{5}(?:-\d{4})?(?![\w/-]|[.,]\d)", 0.2),
        Pattern("postcode_uk", rf"(?<![\w-]){_UK_PC}(?![\w-])", 0.2, context_required=True),
        Pattern("postcode_ca", rf"(?<![\w-]){_CA_PC}(?![\w-])", 0.2, context_required=True),
        Pattern(
            "postcode_nl",
            r"(?<![\w$.,/-])[1-9]\d{3}[ \t]?(?!S[ADS])[A-Z]{2}(?![\w-])",
            0.2,
            context_required=True,
        ),
        Pattern(
            "postcode_grouped",  # 01310-100, 1100-053, 00-514, 111 21
            rf"(?<![\w$.,/-])(?:{_EU_PC_DISTINCT})(?![\w/-]|[.,]\d)",
            0.2,
            context_required=True,
        ),
        Pattern("eircode", rf"(?<![\w-]){_EIRCODE}(?![\w-])", 0.2, context_required=True),
        Pattern(
            # four digits are a postcode in many countries but also a year, a PIN or a
            # count, and Japan's "100-0001" has a local phone number's shape: these only
            # right after the word ("postcode 2000", "PLZ: 8001", "postal code 100-0001"),
            # as is a country letter before the code ("D-80331", "CH-8001")
            "postcode_after_word",
            r"(?i:\b(?:post(?:al)?[ \t]?code|zip(?:[ \t]?code)?|plz)s?)\b[ \t]*"
            r"(?:(?i:is|was|of|no\.?|number)[ \t]+|[:#][ \t]*)?"
            r"(\d{4}|\d{3}-\d{4}|[A-Z]{1,2}-\d{4,5})(?![\w/-]|[.,]\d)",
            0.2,
            group=1,
            context_required=True,
        ),
    )
    context = ("zip", "zipcode", "zip code", "postal", "postcode", "postal code", "plz", "eircode")
