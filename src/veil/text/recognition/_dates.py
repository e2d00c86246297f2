"""Dates and times (am/pm and 24-hour clock) in the common English formats, day-month-year
dates with the month written in German, French, Spanish, Italian, Dutch or Portuguese, and
year-first numeric dates, with calendar validation.

Numeric dates must name a real month and day ("91/42/7.36" and "120/80" are not dates),
dotted dates need a four-digit year (so "2.10.1" is a version, not a date) and a bare year
needs a preposition ("in 2019"). A month/day without a year is a date after a date word
("admitted on 4/10"), or alone when it cannot be a small fraction or a score ("10/23",
"04/09"; not "pain 4/10", "GCS 3/15", "2/30"). Relative expressions ("today", "last week", "3 days ago")
are not reported: they identify no one.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = ["MONTHS", "DateRecognizer", "MonthNameRecognizer", "looks_like_absolute_date"]

MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_MONTH_NAMES = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
)
_WEEKDAY = r"(?:(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
# "10:30 AM", "10:30 a.m."; the full stop after "AM" ends the sentence, not the time
_TIME = r"(?:,?\s+(?:at\s+)?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp](?:\.[Mm]\.?|[Mm]\b))?)?"
# month names of the languages whose day-month-year dates are read ("3. März 2021", "1er
# janvier 2021", "3 de marzo de 2021"); with a day and a year only, since "mars", "mai" and
# "mei" are words too
_FOREIGN_MONTHS_TEXT = (
    "januar februar märz maerz mai juni juli oktober dezember "  # de (others as in English)
    "janvier février fevrier mars avril juin juillet août aout septembre octobre novembre "
    "décembre decembre "  # fr
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre "
    "noviembre diciembre "  # es
    "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre "  # it
    "januari februari maart mei augustus "  # nl
    "janeiro fevereiro março marco junho julho setembro outubro dezembro"  # pt
)
_FOREIGN_MONTHS = "|".join(
    sorted(
        set(_FOREIGN_MONTHS_TEXT.split()) | {"april", "august", "september", "november"},
        key=len,
        reverse=True,
    )
)
_YEAR_OR_NOTHING = r"(?:,?\s+(?:19|20)\d{2}\b)?"
# Words after which a bare month/day ("4/10") is a date; not "by", "from", "of", "to" or
# "after", which as often introduce a fraction ("reduced by 1/2", "from 1/2 to 3/4 tab")
_MD_WORDS = (
    r"on|since|until|till|thru|dated|due|seen|admitted|discharged|extubated|intubated|"
    r"transferred|started|stopped|born|dob:?|d/c'?d|effective|scheduled|appt\.?|appointment|"
    r"visit|surgery|(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?"
)
# What makes "on 1/2 tab" a dose and "since 1/2 hour" a duration
_MD_UNITS = (
    r"tabs?|tablets?|caps?|capsules?|pills?|doses?|strength|mg|mcg|g|ml|cc|l|units?|amps?|"
    r"puffs?|drops?|cups?|oz|inch(?:es)?|cm|mm|miles?|km|hours?|hrs?|h|min(?:ute)?s?|"
    r"days?|weeks?|wks?|months?|years?|yrs?|times|of|normal|ns|"
    r"scale|score|points?|pts"
)


_MONTH_DAY = lazy_compile(r"(\d{1,2})/(\d{1,2})")
_SHORT_DOTTED = lazy_compile(r"\d{1,2}\.\d{1,2}\.\d{2}")
_VERSION_BEFORE = lazy_compile(r"\b(?:v|version|release|build|ver\.?|rev\.?)\s*$", re.IGNORECASE)
_MONTH_YEAR = lazy_compile(r"\d{1,2}/\d{4}")
_DAYS_IN_MONTH = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# Words after which "3/15" is a score or a position in a sequence, not a date: named
# clinical scales rated out of more than 12 (Glasgow coma scale /15, MMSE and MoCA /30,
# NIHSS /42, Braden /23), and "page", "item", "question", "step" and their kin
_SCALE_BEFORE = lazy_compile(
    r"\b(?:GCS|MMSE|MoCA|NIHSS|Braden|APACHE|SOFA|score[sd]?|scoring|rated|rating|grade[sd]?|"
    r"pages?|pp?\.|slides?|steps?|items?|questions?|q|parts?|chapters?|ch\.|exercises?|sets?|"
    r"reps?|rounds?|levels?|vol\.?|issue|no\.|nos?\.|number|#|titers?|titres?|ratio)"
    r"[\s:=]*(?:(?:of|was|is|at|=)\s*)?$",
    re.IGNORECASE,
)


@recognizers.register("date")
class DateRecognizer(PatternRecognizer):
    """Numeric, ISO, dotted and month-name dates; clock times with am/pm; "in 2019"."""

    entity = "DATE_TIME"
    needs_digit = True
    patterns = (
        Pattern(
            "iso",
            r"(?<![\w.-])(?:19|20)\d{2}-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])"
            r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-]|\.\d)",
            0.85,
        ),
        Pattern(
            "numeric",
            r"(?<![\w./-])(\d{1,2})([/-])(\d{1,2})\2(?:\d{4}|\d{2})(?![\w/-]|\.\d)" + _TIME,
            0.8,
        ),
        Pattern("dotted", r"(?<![\w.])\d{1,2}\.\d{1,2}\.(?:19|20)\d{2}(?![\w]|\.\d)", 0.7),
        Pattern(
            # day.month.yy, as German and Nordic forms print it ("12.03.85"), where a
            # version number does not go: two-digit day and month, and a part with a
            # leading zero or a day past 12 ("10.12.15" may be a version)
            "dotted_short",
            r"(?<![\w.])(?:(?:0[1-9]|[12]\d|3[01])\.0[1-9]|0[1-9]\.1[0-2]|(?:1[3-9]|2\d|3[01])\.1[0-2])"
            r"\.\d{2}(?![\w]|\.\d)",
            0.6,
        ),
        Pattern(
            # "21.5.21": a one-digit month after a day past 12, which no version number
            # starts with so often (a version is refused after "version", "v", "release")
            "dotted_short_day",
            r"(?<![\w.])(?:1[3-9]|2\d|3[01])\.[1-9]\.\d{2}(?![\w]|\.\d)",
            0.6,
        ),
        Pattern(
            # month/year with a four-digit year: "03/1985", "12/2029" (an expiry date too)
            "month_year_numeric",
            r"(?<![\w./:#+-])(?:0?[1-9]|1[0-2])/(?:19|20)\d{2}"
            rf"(?![\w/-]|[.,:]\d|\s*(?:{_MD_UNITS}|dilution)\b|\s*%)",
            0.7,
        ),
        Pattern(
            "month_day",
            rf"\b{_WEEKDAY}{MONTHS}\.?\s+\d{{1,2}}{_ORD}(?![\d:]){_YEAR_OR_NOTHING}{_TIME}",
            0.8,
        ),
        Pattern(
            "day_month",
            rf"\b{_WEEKDAY}(?:the\s+)?\d{{1,2}}{_ORD}\s+(?:of\s+)?{MONTHS}\b\.?{_YEAR_OR_NOTHING}",
            0.8,
        ),
        Pattern("month_year", rf"\b{MONTHS}\.?,?\s+(?:of\s+)?(?:19|20)\d{{2}}\b", 0.75),
        Pattern(
            # a weekday and an ordinal day: "Sunday the 5th", "Tue 21st"
            "weekday_ordinal",
            r"\b(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s+(?:the\s+)?"
            r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b",
            0.7,
        ),
        Pattern(
            # "12-Dec-1985", "03-MAR-21": day, month abbreviation and year between hyphens,
            # as clinical and database systems print them
            "day_mon_year",
            r"(?<![\w/-])(?:0?[1-9]|[12]\d|3[01])-(?i:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|"
            r"nov|dec)-(?:19|20)?\d{2}(?![\w/-])",
            0.8,
        ),
        Pattern(
            # "21-May", "3-Dec": a day and a month abbreviation, no year
            "day_mon",
            r"(?<![\w/-])(?:0?[1-9]|[12]\d|3[01])-(?i:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|"
            r"nov|dec)(?![\w/-])",
            0.7,
        ),
        Pattern(
            # "May-21", "DEC-85": a capitalised month abbreviation and two digits (a day or a
            # year, a date either way), as spreadsheets print them; "may-21" in lower case
            # is more often a slug or a code
            "mon_two_digits",
            r"(?<![\w/-])(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|JAN|FEB|MAR|APR|"
            r"MAY|JUN|JUL|AUG|SEPT?|OCT|NOV|DEC)-\d{2}(?![\w/-])",
            0.6,
        ),
        Pattern(
            # "May-2021", "Dec-1985": a month and a four-digit year between hyphens
            "mon_year_hyphen",
            rf"(?<![\w/-]){MONTHS}-(?:19|20)\d{{2}}(?![\w/-])",
            0.75,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # year first: ISO 8601 with slashes or dots, as East Asian and Hungarian dates
            # are written ("1985/12/12", "2021.03.04"); dots only with two-digit month and day
            "year_first",
            r"(?<![\w./-])(?:19|20)\d{2}(?:/(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])"
            r"|\.(?:0[1-9]|1[0-2])\.(?:0[1-9]|[12]\d|3[01]))(?![\w/-]|\.\d)",
            0.8,
        ),
        Pattern(
            "day_month_year_foreign",
            rf"\b(?:0?[1-9]|[12]\d|3[01])(?:\.|º|er)?\s+(?:de\s+)?(?i:{_FOREIGN_MONTHS})"
            r"\s+(?:de\s+|del\s+)?(?:19|20)\d{2}\b",
            0.8,
        ),
        Pattern(
            "clock",
            r"(?<![\w:.])\d{1,2}(?::\d{2})?\s*(?:[AaPp]\.[Mm]\.|[AaPp][Mm]\b)",
            0.6,
        ),
        Pattern(
            # a 24-hour clock time, ISO 8601's "14:30" and "09:15:07": two-digit hours (a
            # one-digit "1:10" or "3:16" is as often a ratio, a verse or a duration)
            "clock_24h",
            r"(?<![\w:.,/-])(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\w:/-]|[.,]\d)",
            0.55,
        ),
        Pattern(
            # a one-digit hour after a word that says a time follows: "at 9:30", "by 5:45",
            # "until 7:00"; not "a 1:10 dilution", "John 3:16"
            "clock_after_word",
            r"\b(?:at|by|until|till|from|around|about|before|after|since)\s+"
            r"([0-9]:[0-5]\d)(?![\w:/-]|[.,]\d|\s*(?:dilution|ratio)\b)",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # month/day without a year, as clinical notes chart it ("admitted on 4/10"): a
            # date under HIPAA's Safe Harbor rule, but "1/2", "3/4" and "7/10" are as often
            # fractions and scores, so only right after a date word and not before a unit
            "month_day_numeric",
            rf"\b(?:{_MD_WORDS})\s+((?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01]))"
            rf"(?![\w/-]|[.,]\d|\s*(?:{_MD_UNITS})\b|\s*%)",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            # month/day with no date word before it, where it cannot be read as a small
            # fraction or a score: the day is past 12 ("10/23": nothing is rated out of 23
            # but a few named scales, see _SCALE_BEFORE), or a part has a leading zero
            # ("04/09", "4/09": fractions and scores are never zero-padded)
            "month_day_bare",
            r"(?<![\w./:#+-])(?:(?:0?[1-9]|1[0-2])/(?:1[3-9]|2\d|3[01]|0[1-9])|0[1-9]/1[0-2])"
            rf"(?![\w/-]|[.,:]\d|\s*(?:{_MD_UNITS}|dilution)\b|\s*%)",
            0.55,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "year",
            r"\b(?:in|since|during|until|by|from|born|year|circa|as\s+of"
            # a period or a cohort of a year: "the summer of 1969", "Class of 1999"
            r"|(?i:class|summer|spring|autumn|fall|winter|end|start|beginning|middle|half"
            r"|quarter|cohort|vintage)\s+of)\s+((?:19|20)\d{2})(?![\w/-]|\.\d)",
            0.6,
            group=1,
        ),
    )
    _numeric = re.compile(r"(\d{1,2})[/-](\d{1,2})[/-]")
    _dotted = re.compile(r"(\d{1,2})\.(\d{1,2})\.")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        if _SHORT_DOTTED.fullmatch(value) and _VERSION_BEFORE.search(
            text, max(0, start - 16), start
        ):
            return True  # "version 21.5.21"
        if _MONTH_YEAR.fullmatch(value):  # "titer 1/2000", "ratio 1/1980"
            return _SCALE_BEFORE.search(text, max(0, start - 24), start) is not None
        md = _MONTH_DAY.fullmatch(value)
        if md:
            month, day = int(md.group(1)), int(md.group(2))
            if day > _DAYS_IN_MONTH[month]:
                return True  # "2/30", "4/31"
            # a score or an item number: "GCS 3/15", "MMSE 12/30", "page 3/14"
            return _SCALE_BEFORE.search(text, max(0, start - 24), start) is not None
        m = self._numeric.match(value) or self._dotted.match(value)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            # month/day or day/month, both in range
            if not ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)):
                return True
        return False


@recognizers.register("month_name")
class MonthNameRecognizer(PatternRecognizer):
    """A month named alone after a word that makes it a time ("hired in March", "since
    October", "late August", "the end of June"): an element of a date, which HIPAA's Safe
    Harbor rule removes. Full names only ("Jan", "Mar" are names and words), and not before
    a capitalised word ("In April Smith's flat") or a number (:class:`DateRecognizer`
    reads "March 2019" and "June 5"). Weekdays are not reported: "on Monday" points at no
    day without a date around it.

    Examples
    --------
    >>> text = "Hired in March, he left by the end of June. In April Smith moved."
    >>> [text[f.start : f.end] for f in MonthNameRecognizer().analyze(text)]
    ['March', 'June']
    """

    entity = "DATE_TIME"
    patterns = (
        Pattern(
            "month_alone",
            r"(?i:\b(?:in|since|during|until|till|through|throughout|early|late|mid|last|next|"
            r"this|every|each|(?:end|beginning|start|middle)\s+of))[\s-]+"
            rf"({_MONTH_NAMES})(?![\w'’-]|\s+[A-Z0-9])",
            0.6,
            group=1,
        ),
    )


_ABSOLUTE = lazy_compile(rf"\b{MONTHS}\b|(?<![\d./])(?:19|20)\d{{2}}(?![\d./])|\b(?:19|20)?\d0s\b")


def looks_like_absolute_date(span: str) -> bool:
    """Whether an NER ``DATE``/``TIME`` span names a point in time rather than a relative one.

    Examples
    --------
    >>> looks_like_absolute_date("March 3rd"), looks_like_absolute_date("today")
    (True, False)
    >>> looks_like_absolute_date("3 days"), looks_like_absolute_date("the 1990s")
    (False, True)
    >>> looks_like_absolute_date("91/42/7.36 this morning")
    False
    """
    return bool(_ABSOLUTE.search(span))
