"""Ages: numbers reported only with their context ("aged 47", "47-year-old", "age: 47"),
and ages written in words ("forty-five years old"), with the number words they are read
and written with (:func:`spelled_number`, :func:`number_words`, :func:`decade_words`).
"""

from __future__ import annotations

import re

from veil.text.recognition._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = [
    "AgeRecognizer",
    "SpelledAgeRecognizer",
    "decade_words",
    "number_words",
    "spelled_number",
]


# people whose age a sentence may give: "my grandmother is 95"
_KIN = (
    r"son|daughter|child|kid|baby|boy|girl|mother|father|mom|mum|dad|brother|sister|wife|"
    r"husband|partner|spouse|grandmother|grandfather|grandma|grandpa|grandson|granddaughter|"
    r"aunt|uncle|nephew|niece|cousin|friend|boyfriend|girlfriend|fiancée?|stepson|stepdaughter"
)


@recognizers.register("age")
class AgeRecognizer(PatternRecognizer):
    """Ages written with their context: "aged 47", "age: 47", "47 years old", "47-year-old",
    an infant's "7 months old" or "3-week-old", "47 y/o", "47yo", "47 years of age", "turned 47" (not before a unit: "turned 90 degrees"),
    "I'm 47.", "she is 47 and ...", "my son, who is 26, ...", "my grandmother is 95" (the
    number then ends a clause or goes on with "and", "but", "now", "years": not "I am 5
    minutes away"), "his 30th birthday", "died at 67". The number alone is never an age."""

    entity = "AGE"
    needs_digit = True
    patterns = (
        Pattern(
            "age_prefix",
            r"\b(?:aged?|age of|age:|age\s+(?:is|was))\s*(\d{1,3})(?![\d%/]|\.\d)",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_suffix",
            r"\b(\d{1,3})(?:\s*|-)(?:years?|yrs?)(?:\s*|-)old\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # an infant's age: "7 months old", "a 3-week-old" (not days: "10 days old milk")
            "age_suffix_infant",
            r"\b(\d{1,2})(?:\s*|-)(?:months?|mos?|weeks?|wks?)(?:\s*|-)old\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_yo",
            r"\b(\d{1,3})\s*(?:y/?o|yo|y\.o\.)(?![\w])",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_of_age",
            r"\b(\d{1,3})\s*(?:years?|yrs?)\s+of\s+age\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # "she turned 47", "turns 30 next week"; not "turned 90 degrees", "turned 3 pages"
            "age_turned",
            r"\bturn(?:s|ed|ing)\s+(\d{1,3})(?![\w%°]|[/:.,]\d)(?!\s*-?(?:degrees?|deg|times?|"
            r"pages?|points?|laps?|percent|per\b|mph|km|kms|miles?|minutes?|mins?|hours?|hrs?|"
            r"days?|weeks?|months?|[a-z]*(?:meters?|metres?)|feet|ft|inches|in\b|°))",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # a person saying their own age, or someone's: "I'm 47.", "I am 47 and retired",
            # "she is 8 years", "he's 33.", "my son, who is 26, ...", "my grandmother is 95
            # and still drives"; not "I am 5 minutes away", "I'm 100% sure", "I'm 6 feet"
            "age_is",
            rf"\b(?:I\s+am|I['’]m|(?:s?he|they|who)\s+(?:is|are|was|were)|(?:s?he|who)['’]s|"
            rf"(?:my|his|her|our|their|your)\s+(?:{_KIN})\s+(?:is|was))\s+(\d{{1,3}})"
            r"(?=\s*(?:[.,;!?)]|$)|\s+(?:and(?!\s+(?:a\s+)?half)|but|now|today|this|years?|yrs?)\b)",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # "his 30th birthday", "her 100th birthday"
            "age_birthday",
            r"\b(\d{1,3})(?:st|nd|rd|th)\s+birthday\b",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # the age at death: "died at 67.", "passed away at the age of 81 in May"; not
            # "died at 3 pm" (the number must end the clause or go on with a word listed)
            "age_at_death",
            r"\b(?:died|passed\s+away|deceased)\s+at\s+(?:the\s+age\s+of\s+)?(\d{1,3})"
            r"(?=\s*(?:[.,;!?)]|$)|\s+(?:and|after|from|of|in|years?|yrs?)\b)",
            0.7,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_in_his",
            r"\b(?:in (?:his|her|their) )(\d0s|(?:early|mid|late)[- ]\d0s)\b",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        digits = "".join(c for c in value if c.isdigit())
        return not digits or int(digits) > 125


_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_DECADES = {w[:-1] + "ies": 20 + 10 * i for i, w in enumerate(_TENS)}  # "forties" -> 40
_NUMBER_WORDS = (
    rf"(?:(?:one )?hundred(?:(?: and)? (?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?"
    rf"| and (?:{'|'.join(_TEENS + _UNITS)}))?"
    rf"|(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?|{'|'.join(_TEENS)}|{'|'.join(_UNITS)})"
)


def spelled_number(words: str) -> int | None:
    """The value of an English number or decade written in words, up to 199, or ``None``.

    Examples
    --------
    >>> spelled_number("forty-five"), spelled_number("a hundred and two")
    (45, 102)
    >>> spelled_number("mid-fifties"), spelled_number("47")
    (50, None)
    """
    w = words.casefold().replace("-", " ").split()
    if w and w[0] in ("early", "mid", "late"):
        w = w[1:]
    if len(w) == 1 and w[0] in _DECADES:
        return _DECADES[w[0]]
    value = 0
    for i, word in enumerate(w):
        if word in ("a", "and") or (word == "one" and i + 1 < len(w) and w[i + 1] == "hundred"):
            continue
        if word == "hundred":
            value += 100
        elif word in _TENS:
            value += 20 + 10 * _TENS.index(word)
        elif word in _TEENS:
            value += 10 + _TEENS.index(word)
        elif word in _UNITS:
            value += 1 + _UNITS.index(word)
        else:
            return None
    return value or None


@recognizers.register("age_words")
class SpelledAgeRecognizer(PatternRecognizer):
    """Ages written in words, with the same context as :class:`AgeRecognizer`: "forty-five
    years old", "a twelve-year-old", "aged sixty", "seventy years of age", "in her late
    forties". A number word alone is never an age."""

    entity = "AGE"
    patterns = (
        Pattern(
            "age_words_prefix",
            rf"\b(?:aged|age of)\s+({_NUMBER_WORDS})\b",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_words_suffix",
            rf"\b({_NUMBER_WORDS})(?:\s+|-)(?:years?|yrs?)(?:\s+|-)old\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_words_of_age",
            rf"\b({_NUMBER_WORDS})\s+years?\s+of\s+age\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_words_in_his",
            rf"\bin (?:his|her|their) ((?:(?:early|mid|late)[- ])?(?:{'|'.join(_DECADES)}))\b",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        number = spelled_number(value)
        return number is None or number > 125


def number_words(n: int) -> str:
    """``n`` (1 to 199) in English words, hyphenated as written: 45 -> "forty-five".

    Examples
    --------
    >>> number_words(45), number_words(112), number_words(7)
    ('forty-five', 'one hundred and twelve', 'seven')
    """
    if n >= 100:
        rest = n - 100
        return "one hundred" + (f" and {number_words(rest)}" if rest else "")
    if n >= 20:
        tens, unit = divmod(n, 10)
        return _TENS[tens - 2] + (f"-{_UNITS[unit - 1]}" if unit else "")
    if n >= 10:
        return _TEENS[n - 10]
    return _UNITS[n - 1]


def decade_words(decade: int) -> str:
    """A decade of life in words: 40 -> "forties" (20 to 90)."""
    return next(w for w, d in _DECADES.items() if d == decade)
