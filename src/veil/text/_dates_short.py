"""Short dates the main date grammar (:mod:`veil.text._dates`) leaves out.

* a month's name or abbreviation joined by a dash to a day or a year: "May-21",
  "May-2021", "21-May", "05-May" (spreadsheets and ticket systems write them so);
* a dotted day, month and two-digit year whose day is past 12: "21.5.21" (a version
  number's first part is rarely past 12; "2.10.1" stays a version).
"""

from __future__ import annotations

import re

from veil.text._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = ["ShortDateRecognizer"]

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)


@recognizers.register("date_short")
class ShortDateRecognizer(PatternRecognizer):
    """Dates as "May-21", "21-May", "May-2021" and "21.5.21"."""

    entity = "DATE_TIME"
    needs_digit = True
    patterns = (
        Pattern("month_dash_year", rf"(?<![\w-]){_MONTH}-(?:\d{{2}}|\d{{4}})(?![\w-])", 0.6),
        Pattern("day_dash_month", rf"(?<![\w-])(?:0?[1-9]|[12]\d|3[01])-{_MONTH}(?![\w-])", 0.6),
        Pattern(
            "dotted_day_past_12",
            r"(?<![\w.])(?:1[3-9]|2\d|3[01])\.(?:0?[1-9]|1[0-2])\.\d{2}(?![\w]|\.\d)",
            0.55,
        ),
    )
    context = ("date", "today", "on", "dated", "since", "until", "due")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        # a month in lower case is no date here: "may-21" is more often a slug or a code
        month = re.search(r"[A-Za-z]+", value)
        return month is not None and month.group(0).islower()
