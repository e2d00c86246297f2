"""Clinical numbers: pagers, extensions, local phones and dates as notes write them.

Used only by the recall-first clinical mode (:mod:`veil.text.detection._clinical_allow`),
like :mod:`veil.text.recognition._clinical_shapes`, whose pager, phone and date shapes these
complete (issue #25, item 2). Each rule is a format, not a value:

* **pagers and beepers** written short: "p#", "bp" with five digits or an extension's
  "4-1234" ("p# 54321", "BP 12345": a blood pressure is never five digits without a
  slash), a pager word followed by "is", "at" or "number" ("pager is 54321");
* **extensions**: "ext" with two to six digits ("ext. 12"), never before a unit, a plus or
  a slash ("ext 10 cm", "ext 2+");
* **an area code and a seven-digit local number** written whole ("617 5551234",
  "(617)5551234");
* **digit groups a phone word announces**, in any country's national layout ("reached at
  0412 340 569", "page me at (02) 1234 5574", "home: 030 129740"), or right after a
  relative ("dtr 070-0669-5115"): eight to fifteen digits, never a date's or a Social
  Security number's groups, never before a unit; a bracket pair that encloses exactly the
  number is the number's ("(053 283-0887)"), a full stop after it never is;
* **numbers a phone word announces**: after "phone", "tel", "cell", "pager", "beeper",
  "call", "page", "beep", "reach", "contact" and their forms, directly or across a few
  words to "at" or "on" ("call son Bob at 555 1234", "may reach wife at 4-1234", "call
  41234"): ten digits in any grouping (spaces, dots, dashes), seven digits whole or split
  by a space, a dot or a dash, a hospital extension of four or five digits ("4-1234",
  "41234"); four digits after a verb or across "at" only when no time of day reads there
  ("paged at 1400" stays, "paged at 4123" does not), never a round "1000", and no number
  before a unit or a clock word;
* **dates**: a year after a diagnosis or a procedure, the procedure named by its suffix too
  ("CHOLECYSTECTOMY 85'", "NEPHRECTOMY 1990", "NQWMI 14", "CA'91"), the years listed after
  it ("S/P CABG 1961, 1979"), a year before a procedure at the start of a clause ("09
  PTCA", "'98 CABG"), a year with its apostrophe after a habit given up ("STOPPED SMOKING
  68'"); a year after a month ("MARCH OF 1996"); a month and a year glued to a history
  word ("fx3/95"); a month, a day and a two-digit year
  after a dot ("10/14.95"); two short dates joined by a dash, read as one range
  ("5/29-6/1").

* **dates in words**: a month with a day or a year in any case and either order ("JAN 5",
  "5 jan", "Oct. 19, 2020", "jan '92", "12 SEP 1958"; "may", "mar" and "dec", a verb and
  charting words as often, only with a year, an ordinal day or a day that ends the phrase,
  and never before a dose: "dec 20 mg"), an abbreviation with its full stop alone ("since
  Sept."); a weekday right before a date ("Thu 08/12": part of the date); a month and a day
  with a dash after a word that takes a date ("admitted 3-18 with CP"); a season with its
  year ("spring 2010"); holidays ("Christmas", "Thanksgiving": the US federal holidays of 5
  U.S.C. 6103 and widely kept religious and civic ones).

What stays: doses, vitals, lab values, scores and ratios ("BP 120/80", "1/2 tab", "2/4
pulses", "5/5 strength", "I:E 1:2", "ambulated 50'"), and a weekday alone ("home on
Monday": no element of a date under Safe Harbor, and the PhysioNet deid gold standard does
not label one either).

The years reported here are the dates of the patient's own history: the ``hipaa`` profile
keeps them (:data:`EVENT_YEAR_RULES`), where it drops a year alone ("in 2019").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from veil._lazy import lazy_compile
from veil.text.recognition._clinical_shapes import setting_or_count
from veil.text.recognition._contact import enclosed
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._lexicon import word_set

__all__ = ["EVENT_YEAR_RULES", "number_findings"]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6

#: the rules whose years are dates of the patient's own history (a diagnosis, a procedure,
#: a month's year), which the ``hipaa`` profile reports though they stand alone, and the
#: month and day written with a dash after a word that takes a date ("admitted 3-18"),
#: which it would otherwise read as a range of hours
EVENT_YEAR_RULES = frozenset({"condition_year", "year_of_month", "apostrophe_year", "dashed_date"})


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start, end, entity, _SCORE, RECOGNIZER, 1, Explanation(RECOGNIZER, pattern, _SCORE, _SCORE)
    )


# ---- pagers, extensions, numbers after a phone word -----------------------------------------
# what never follows a phone number: a unit, a clock word, a plus, a slash, a decimal
_NOT_AFTER_NUMBER = (
    r"(?![\w/+%-]|[.,:]\d|[ \t]*(?:cc|ml|mls|mg|mcg|mEq|units?|u\b|l\b|lpm|cm|mm|in\b|kg|lbs?|"
    r"degrees?|deg\b|am\b|pm\b|a\.m|p\.m|hrs?\b|hours?|h\b|o'?clock|min|times|x\b|%))"
)
# "p# 54321", "P #: 1234", "bp 54321", "BP# 4-1234": a pager written short
_SHORT_PAGER = lazy_compile(
    r"(?<![\w#/])(?:p[ \t]*(?P<hash>#)|bp[ \t]*(?P<bp_hash>#)?)[ \t]*:?[ \t]*"
    r"(?P<number>\d{5,6}|\d{1,2}-\d{4}|\d{4})" + _NOT_AFTER_NUMBER,
    re.IGNORECASE,
)
# "ext. 12", "EXT 4411", "extension #204"
_EXTENSION = lazy_compile(
    r"\b(?:ext|extn|extension)\.?[ \t]*(?:#|no\.?|num(?:ber)?)?[ \t]*:?[ \t]*(\d{2,6})"
    + _NOT_AFTER_NUMBER,
    re.IGNORECASE,
)
# the nouns of a phone ("pager 4411"), after which four digits are a number; after a verb or
# across "at" four digits are a number only when no time of day reads there ("paged at 1400")
_PHONE_NOUNS = r"phone|ph|tel|telephone|cell|cellphone|mobile|pager|pgr|beeper|bleep"
_PHONE_VERBS = (
    r"phoned|beep|beeped|call|calls|called|calling|page|paged|paging|reach|reached|reachable|"
    r"contact|contacted|dial"
)
# a number a phone word announces, directly ("call 41234", "cell# 555 1234") or across a
# few words to "at" or "on" ("call son Bob at 555 1234"; a title's dot is crossed, "Dr.")
_ANNOUNCED_NUMBER = lazy_compile(
    rf"\b(?:(?P<noun>{_PHONE_NOUNS})|{_PHONE_VERBS})\b"
    r"(?P<via>(?:[^\n.;!?]|(?<=dr)\.|(?<=ms)\.|(?<=mr)\.|(?<=mrs)\.){0,40}?\b(?:at|on)\b)?"
    r"[ \t]*(?:is|number|no\.?|num|#)?[ \t]*[:#]?[ \t]*#?[ \t]*"
    r"(?<![\w/.-])(?P<number>"
    r"\(?\d{3}\)?[ \t]*[-./ ]?[ \t]*\d{3}[ \t]*[-./ ][ \t]*\d{4}"  # ten digits, any grouping
    r"|\d{10}"
    r"|\d{3}[ \t]*[-. ][ \t]*\d{4}|\d{7}"  # seven, whole or split
    r"|\d{1,2}-\d{4}|\d{5}|\d{4}"  # a hospital extension
    r")" + _NOT_AFTER_NUMBER,
    re.IGNORECASE,
)
_CLOCK = lazy_compile(r"(?:[01]\d|2[0-3])[0-5]\d")
# an area code before a seven-digit local number written whole ("617 5551234",
# "(617)5551234"): the two halves of a phone as a family member dictates them
_AREA_LOCAL = lazy_compile(
    r"(?<![\w/.-])(?:\(\d{3}\)[ \t]*|\d{3}[ \t]*[-. ][ \t]*)\d{7}(?![\w/-]|[.,:]\d)"
)


def _phones(text: str) -> Iterator[Finding]:
    for m in _SHORT_PAGER.finditer(text):
        if len(m.group("number")) == 4 and not (m.group("hash") or m.group("bp_hash")):
            continue  # four digits after "bp" alone: no pager's shape
        yield _finding(m.start("number"), m.end("number"), "PHONE_NUMBER", "pager")
    for m in _EXTENSION.finditer(text):
        yield _finding(m.start(1), m.end(1), "PHONE_NUMBER", "extension")
    for m in _ANNOUNCED_NUMBER.finditer(text):
        number = m.group("number")
        if len(number) == 4:
            timed = m.group("via") is not None or m.group("noun") is None
            if timed and _CLOCK.fullmatch(number):
                continue  # "paged at 1400", "call 0800": a time of day
            if number.endswith("00"):
                continue  # "call for UO < 1000"
        elif number.endswith("000"):
            continue  # a volume or a count ("call if > 10000")
        span = enclosed(text, m.start("number"), m.end("number"))
        yield _finding(*span, "PHONE_NUMBER", "announced_number")
    yield from _cued_groups(text)
    for m in _AREA_LOCAL.finditer(text):
        if not m.group().endswith("000"):
            yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "area_and_local")


# a number in digit groups that a phone word announces, in any country's national layout
# ("reached at 0412 340 569", "page me at (02) 1234 5574", "home: 030 129740", "best number
# is 06-1/822 8809"), or right after a relative ("dtr 070-0669-5115"): eight to fifteen
# digits, never a date's shape or a number before a unit
# the digit groups are found first (a digit, a plus or a bracket starts each, which the
# engine skips to quickly) and the words before them checked apart: a word alternation tried
# at every character of a note cost more than the rest of the pass
_GROUPS = lazy_compile(
    r"(?<![\w/.+-])\+?\(?\d{1,10}\)?(?:[ \t]?[-./ ][ \t]?\(?\d{1,10}\)?|"
    r"[ \t]?\(\d{1,5}\)[ \t]?\d{1,10}){0,5}" + _NOT_AFTER_NUMBER,
    re.IGNORECASE,
)
_CUE_BEFORE = lazy_compile(
    r"\b(?:(?P<noun>phones?|ph|tel|telephone|cell|cellphone|mobile|home|work|office|landline|"
    r"contact|number|num|pager|beeper)|call|called|calling|phoned|reach|reached|reachable|"
    r"page|paged|paging|dial|text)\b"
    r"(?:(?:[^\n.;!?\d]|(?<=dr)\.|(?<=ms)\.|(?<=mr)\.|(?<=mrs)\.){0,30}?"
    r"\b(?:at|on|is|are)\b)?"
    r"[ \t]*(?:[:#-]|number|no\.?)?[ \t]*[:#]?[ \t]*$",
    re.IGNORECASE,
)
_KIN_BEFORE = lazy_compile(
    r"\b(?:wife|husband|spouse|partner|son|daughter|dtr|sister|brother|mother|father|mom|dad|"
    r"niece|nephew|friend|hcp|proxy)\b[ \t]*[:#-]?[ \t]*$",
    re.IGNORECASE,
)
# what a run of digit groups is when it is no phone: a date ("2020-01-02", "02.01.2020",
# "1/2/2020"), a US Social Security number's or a ZIP+4 code's groups
_NOT_A_PHONE = lazy_compile(
    r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./](?:\d{2}|\d{4})|"
    r"\d{3}-\d{2}-\d{4}|\d{5}-\d{4}"
)


def _cued_groups(text: str) -> Iterator[Finding]:
    for m in _GROUPS.finditer(text):
        number = m.group()
        digits = sum(c.isdigit() for c in number)
        if not 8 <= digits <= 15 or _NOT_A_PHONE.fullmatch(number):
            continue
        cue = _CUE_BEFORE.search(text, max(0, m.start() - 70), m.start())
        if cue is None:
            if digits < 9 or number.isdigit():
                continue  # right after a relative, digit groups only ("dtr 070-0669-5115")
            if _KIN_BEFORE.search(text, max(0, m.start() - 16), m.start()) is None:
                continue
        elif number.isdigit() and (cue.group("noun") or "").casefold() in ("number", "num"):
            continue  # "number 12345678" alone: a record's or an order's
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "cued_groups")


# ---- dates ------------------------------------------------------------------------------------
# The year rules look at the digits first and then at the word before them (a regex that
# tried each condition word at every character of a note cost a third of the pass).
#: an infarct (by its wall too: "NQWMI", "IWMI") or a procedure by its abbreviation, after
#: which even "14" or "07" is a year ("NQWMI 14"); never "PMI" (the point of maximal impulse)
_EVENT_WORDS = word_set(
    "mi ami nstemi stemi nqwmi qwmi imi iwmi awmi asmi lwmi cabg cva tia pci ptca avr mvr"
)
#: diagnoses and procedures after which a number from 30 on or with a leading zero, four
#: digits or a number with its apostrophe is the year they happened, procedures by their
#: suffix too
#: ("CHOLECYSTECTOMY 85'", "NEPHRECTOMY 1990", "prostate CA'91")
_CONDITION_WORDS = word_set(
    "stent stents stented cea aaa chole appy lap surgery repair replacement fx dx dx'd "
    "diagnosed ca cancer hx resection transplant bypass fracture stroke infarct amputation "
    "chemo xrt radiation"
)
_PROCEDURE_SUFFIXES = ("ectomy", "otomy", "ostomy", "plasty", "pexy", "oscopy")
_MONTH_WORDS = word_set(
    "january february march april june july august september october november december "
    "jan feb apr jun jul aug sep sept oct nov"
)
# what a number after a condition is when it is no year: a count, a dose, a duration, a
# tumour marker ("CA 19-9")
_NO_YEAR_AFTER = lazy_compile(
    r"[\w'’-]|[/.:]\d|[ \t]*(?:%|mg|cc|ml|x\b|days?|d\b|wks?|weeks?|mos?\b|months?|yrs?\b|"
    r"years?|hrs?\b|hours?|min|times|units?|pk|pack|ppd|cig|/)",
    re.IGNORECASE,
)
# digits first (a digit or an apostrophe starts every candidate, which the engine scans
# for quickly); what stands around them is checked on the few that follow a history word
_YEAR_CANDIDATE = lazy_compile(r"(?P<tick>['’])?(?P<year>\d{2,4})(?P<trail>['’])?")


def _word_before(text: str, end: int, *, glued: bool = False) -> tuple[str, int]:
    """The word (letters, apostrophes, slashes) that ends at ``end``, after spaces and one
    comma or dot unless ``glued``, case-folded, and where it starts."""
    i = end
    if not glued:
        while i > 0 and text[i - 1] in " \t":
            i -= 1
        if i > 0 and text[i - 1] in ",.":
            i -= 1
            while i > 0 and text[i - 1] in " \t":
                i -= 1
    k = i
    while k > 0 and (text[k - 1].isalpha() or text[k - 1] in "'’/"):
        k -= 1
    return text[k:i].casefold(), k


def _history_word(word: str) -> str | None:
    """``"event"`` or ``"condition"`` for a word after which a number is a year."""
    if word in _EVENT_WORDS:
        return "event"
    if word in _CONDITION_WORDS or (len(word) > 6 and word.endswith(_PROCEDURE_SUFFIXES)):
        return "condition"
    return None


_MORE_YEARS = lazy_compile(r"[ \t]*(?:,|&|and|/)[ \t]*['’]?((?:19|20)\d{2})['’]?(?![\w/-]|[/.:]\d)")


def _condition_years(text: str) -> Iterator[Finding]:
    """A year after a diagnosis or a procedure, ``in`` or ``of`` between them too, and the
    years listed after it ("S/P CABG 1961, 1979")."""
    for m in _YEAR_CANDIDATE.finditer(text):
        start, year = m.start(), m.group("year")
        if len(year) == 3 or (len(year) == 4 and not year.startswith(("19", "20"))):
            continue
        before = text[start - 1 : start]
        if before and (before in "/.:-" or before.isdigit()):
            continue
        if m.group("tick") is None and before.isalpha():
            continue  # "fx88": glued letters and digits are no year
        word, k = _word_before(text, start, glued=m.group("tick") is not None)
        if word in ("in", "of"):
            word, k = _word_before(text, k)
        kind = _history_word(word)
        if kind is None:
            continue
        if _NO_YEAR_AFTER.match(text, m.end()):
            continue
        ticked = m.group("tick") is not None or m.group("trail") is not None
        if len(year) == 2 and "10" <= year < "30" and kind != "event" and not ticked:
            continue  # "hx 12", "s/p lap 10": a count; "chole 04", "CA'19" are years
        yield _finding(m.start("year"), m.end("year"), "DATE_TIME", "condition_year")
        end = m.end()
        while (more := _MORE_YEARS.match(text, end)) is not None:
            yield _finding(more.start(1), more.end(1), "DATE_TIME", "condition_year")
            end = more.end()


# a two-digit year with its apostrophe after the quitting of a habit ("STOPPED SMOKING 68'")
_HABIT_YEAR = lazy_compile(
    r"\b(?:smoking|smoked|etoh|drinking|quit|stopped)[ \t]*(?:in[ \t]+)?"
    r"(?:['’](?P<a>\d{2})|(?P<b>\d{2})['’])(?![\w'’])",
    re.IGNORECASE,
)
_MORE_YEARS = lazy_compile(r"[ \t]*(?:,|&|and|/)[ \t]*['’]?((?:19|20)\d{2})['’]?(?![\w/-]|[/.:]\d)")
# a year before a procedure at the start of a clause ("NIDDM. 07 PTCA", "'98 CABG"): a
# leading zero, an apostrophe or four digits (a count is written "2 stents")
_YEAR_BEFORE = lazy_compile(
    r"(?:^|(?<=[\n.,;:(]))[ \t]*(['’]\d{2}|0\d|(?:19|20)\d{2})[ \t]+"
    r"(?:ptca|pci|cabg|stents?|mi|cva|avr|mvr|cea|chole|[a-z]*(?:ectomy|otomy|plasty))\b",
    re.IGNORECASE,
)
_FOUR_DIGIT_YEAR = lazy_compile(r"(?<![\w/.:-])(?:19|20)\d{2}\b(?![/.:-]\d)")
# a month and a year glued to a history word ("fx3/95", "DX3/05"): a date whether the
# second number is a year or a day, no score or dose being written there
_GLUED_MONTH_YEAR = lazy_compile(
    r"(?<=[^\W\d_])(?:1[0-2]|0?[1-9])/(?:(?:19|20)\d{2}|\d{2})(?![\w/]|[.,:]\d|\s*%)"
)
# "10/14.95": a month, a day and a two-digit year after a dot
_DOTTED_YEAR = lazy_compile(
    r"(?<![\w/.:])(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])\.\d{2}(?![\w/]|[.,:]\d|\s*%)"
)
_DAY = r"(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?:/(?:19|20)?\d{2})?"
_DATE_RANGE = lazy_compile(
    rf"(?<![\w/.:])(?P<a>{_DAY})[ \t]*[-–][ \t]*(?P<b>{_DAY})(?![\w/]|[.,:]\d|\s*%)"
)
_SCORE_BEFORE = lazy_compile(
    r"\b(?:pain|score|strength|str|motor|grips?|pulses?|gcs|power|grade|reflexes|dtrs?|"
    r"bp|sbp|nbp|abp|art|ratio|i:e)\W{0,3}$",
    re.IGNORECASE,
)
_SCORE_AFTER = lazy_compile(
    r"\s*(?:pulses?|pp\b|palp|dp\b|pt\b|radial|pedal|strength|str\b|grips?|pain|murmur|tabs?|"
    r"ns\b|mg|mcg|ml|cc|units?|bilat|b/l|throughout|in\s+all)",
    re.IGNORECASE,
)
_FRACTIONS = frozenset({"1/2", "1/3", "1/4", "2/3", "3/4"})


def _dates(text: str) -> Iterator[Finding]:
    yield from _condition_years(text)
    for m in _HABIT_YEAR.finditer(text):
        g = "a" if m.group("a") else "b"
        yield _finding(m.start(g), m.end(g), "DATE_TIME", "apostrophe_year")
    for m in _YEAR_BEFORE.finditer(text):
        yield _finding(m.start(1), m.end(1), "DATE_TIME", "condition_year")
    for m in _FOUR_DIGIT_YEAR.finditer(text):
        word, k = _word_before(text, m.start())
        if word == "of":
            word, k = _word_before(text, k)
        if word in _MONTH_WORDS:  # "MARCH OF 1996", "nov. 2012"
            yield _finding(m.start(), m.end(), "DATE_TIME", "year_of_month")
    for m in _GLUED_MONTH_YEAR.finditer(text):
        word, _ = _word_before(text, m.start(), glued=True)
        if _history_word(word) or word in ("sx", "s/p"):  # "fx3/95"
            yield _finding(m.start(), m.end(), "DATE_TIME", "glued_date")
    for m in _DOTTED_YEAR.finditer(text):
        if _SCORE_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        if setting_or_count(text, m.start(), m.end()):
            continue
        yield _finding(m.start(), m.end(), "DATE_TIME", "dotted_year")
    for m in _DATE_RANGE.finditer(text):
        if m.group("a") in _FRACTIONS or m.group("b") in _FRACTIONS:
            continue  # "1/2-3/4 tab"
        if _SCORE_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue  # "pulses 2/4-3/4"
        if _SCORE_AFTER.match(text, m.end()) or setting_or_count(text, m.start(), m.end()):
            continue
        yield _finding(m.start(), m.end(), "DATE_TIME", "date_range")


# ---- dates in words: months with a day or a year, weekdays with a date, seasons, holidays --
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
#: month words that are charting words or a verb as often ("mar": the administration
#: record, "dec": decreased, "may"): a month only with a year, an ordinal day, or a day that
#: ends the phrase
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "dec"})
_DAY_OF_MONTH = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
_YEAR_AFTER = r"(?:[ \t]*,?[ \t]*(?:of[ \t]+)?(?:(?:19|20)\d{2}|['’]\d{2})(?![\w'’]|[/.:-]\d))"
# what a number after a month is when it is no day: a dose, a count, a duration, a time
_NOT_A_DAY_AFTER = (
    r"(?![\w'’]|[/.:-]\d|[ \t]*(?:%|mg|mcg|ml|cc|units?\b|u\b|hrs?\b|hours?|days?\b|d\b|wks?\b|"
    r"weeks?|mos?\b|months?|yrs?\b|years?|mins?\b|minutes?|times|x\b|lbs?\b|kg\b|l\b|lpm|liters?|"
    r"points?|beats?|bpm|mmhg|cm\b|mm\b|puffs?|tabs?|doses?|am\b|pm\b|a\.m|p\.m))"
)
# "JAN 5", "Oct. 19, 2020", "august 23rd", "Sept the 5th", "MAR 1953", "jan '92"
_MONTH_DAY = lazy_compile(
    rf"(?<![\w'’])(?P<month>{_MONTHS})\b\.?,?[ \t]*(?:the[ \t]+)?"
    rf"(?:(?P<day>{_DAY_OF_MONTH}){_NOT_A_DAY_AFTER}(?P<year>{_YEAR_AFTER})?"
    rf"|(?P<only_year>(?:of[ \t]+)?(?:(?:19|20)\d{{2}}|['’]\d{{2}})(?![\w'’]|[/.:-]\d)))",
    re.IGNORECASE,
)
# "5 jan", "12 SEP 1958", "23rd of August", "05-MAR-84" (the general recognizer's too)
_DAY_MONTH = lazy_compile(
    rf"(?<![\w/.:-])(?P<day>{_DAY_OF_MONTH})[ \t]*(?:of[ \t]+)?(?P<month>{_MONTHS})\b\.?"
    rf"(?P<year>[ \t]*,?[ \t]*(?:(?:19|20)\d{{2}}|['’]\d{{2}})(?![\w'’]|[/.:-]\d))?",
    re.IGNORECASE,
)
_ENDS_PHRASE = lazy_compile(
    r"[ \t]*(?:[,.;:)\]]|$|\n|-|(?:at|to|and|with|for|in|on|when|after|before|until)\b)",
    re.IGNORECASE,
)
# a weekday right before a date ("Thu 08/12", "Wed, 7/28", "Wednesday, August 23"): part of
# the date under Safe Harbor; alone ("home on Monday") it is none
_WEEKDAY = lazy_compile(
    r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu|"
    r"thurs?|fri|sat|sun)\b\.?,?[ \t]+(?:the[ \t]+)?"
    rf"(?=(?:1[0-2]|0?[1-9])/\d|(?:3[01]|[12]\d|0?[1-9])/\d|{_MONTHS}\b|\d{{1,2}}(?:st|nd|rd|th)\b)",
    re.IGNORECASE,
)
# a month and a day with a dash after a word that takes a date ("admitted 3-18 with CP",
# "seen on 2-25."): only where nothing but punctuation or a function word follows (a range
# of doses, litres or times never ends so: "on 2-3 L", "2-3 times")
_DASHED_DATE = lazy_compile(
    r"(?<![\w/.:-])(?:1[0-2]|0?[1-9])-(?:3[01]|[12]\d|0?[1-9])(?![\w-]|[.,:/]\d)"
    r"(?=[ \t]*(?:[,.;:)\]]|$|\n|(?:at|with|and|for|to|in|by|per)\b))",
    re.IGNORECASE,
)
_DATE_WORD_BEFORE = lazy_compile(
    r"\b(?:on|since|until|till|dated|admitted|admission|discharged|d/c'?d|seen|appt|"
    r"appointment|visit|surgery|born|dob|f/u|started|stopped|through|thru|due)[ \t]*:?[ \t]+$",
    re.IGNORECASE,
)
# a season and its year ("spring 2010", "fall of '98")
_SEASON_YEAR = lazy_compile(
    r"\b(?:spring|summer|fall|autumn|winter)[ \t]+(?:of[ \t]+)?(?:(?:19|20)\d{2}|['’]\d{2})"
    r"(?![\w'’]|[/.:-]\d)",
    re.IGNORECASE,
)
# holidays: a date under Safe Harbor ("over Christmas", "since Thanksgiving"); the US federal
# holidays (5 U.S.C. 6103) and the widely kept religious and civic ones
_HOLIDAY = lazy_compile(
    r"\b(?:christmas(?:[ \t]+(?:eve|day))?|xmas|thanksgiving(?:[ \t]+day)?|"
    r"new[ \t]+year'?s(?:[ \t]+(?:eve|day))?|easter(?:[ \t]+sunday)?|good[ \t]+friday|"
    r"halloween|hanukkah|chanukah|passover|yom[ \t]+kippur|rosh[ \t]+hashanah|ramadan|"
    r"kwanzaa|juneteenth|memorial[ \t]+day|labou?r[ \t]+day|independence[ \t]+day|"
    r"(?:fourth|4th)[ \t]+of[ \t]+july|july[ \t]+(?:fourth|4th)|veterans'?[ \t]+day|"
    r"columbus[ \t]+day|presidents'?[ \t]+day|(?:martin[ \t]+luther[ \t]+king|mlk)"
    r"(?:[ \t]+jr\.?)?[ \t]+day|valentine'?s[ \t]+day|st\.?[ \t]+patrick'?s[ \t]+day|"
    r"mother'?s[ \t]+day|father'?s[ \t]+day)\b",
    re.IGNORECASE,
)
# a month's abbreviation with its full stop, alone ("since Sept.", "AUG. visit")
_MONTH_DOT = lazy_compile(r"(?<![\w.])(?:jan|feb|apr|jun|jul|aug|sept?|oct|nov)\.(?!\w)", re.I)


_OF = lazy_compile(r"[ \t]+of[ \t]+", re.IGNORECASE)


# the word rules run case-sensitive on an ASCII note lower-cased once (a case-insensitive
# alternation scans at two to four times the cost); what case says is read on the note
_LOWER = {
    rx: lazy_compile(rx.pattern)
    for rx in (_MONTH_DAY, _DAY_MONTH, _WEEKDAY, _SEASON_YEAR, _HOLIDAY, _MONTH_DOT)
}
_SEASON_WORDS = ("spring", "summer", "fall", "autumn", "winter")
_HOLIDAY_WORDS = (
    "christmas", "xmas", "thanksgiving", "new year", "easter", "good friday", "halloween",
    "hanukkah", "chanukah", "passover", "yom kippur", "rosh hashanah", "ramadan", "kwanzaa",
    "juneteenth", " day", "of july", "july ",
)  # fmt: skip


def _worded_dates(text: str) -> Iterator[Finding]:
    lower = text.lower() if text.isascii() else None
    folded = lower if lower is not None else text.casefold()

    def scan(rx: re.Pattern[str]) -> Iterator[re.Match[str]]:
        return _LOWER[rx].finditer(lower) if lower is not None else rx.finditer(text)

    for rx, rule in ((_MONTH_DAY, "month_day"), (_DAY_MONTH, "day_month")):
        for m in scan(rx):
            month = m.group("month").casefold()
            day = m.groupdict().get("day")
            only_year = m.groupdict().get("only_year") or ""
            if month in _AMBIGUOUS_MONTHS and not (
                m.group("year")
                or (only_year and not only_year.casefold().startswith("of"))
                or (day and day[-2:].isalpha())
                or (text[m.start("month")].isupper() and _ENDS_PHRASE.match(text, m.end()))
            ):
                continue  # "may 2 weeks", "dec 20", "MAR 5 given"
            if rule == "day_month" and month in _AMBIGUOUS_MONTHS and not m.group("year"):
                continue  # "5 may", "2 MAR": a count and a word
            of = _OF.search(text, m.start(), m.end())
            if of is None:
                yield _finding(m.start(), m.end(), "DATE_TIME", rule)
            else:  # "MARCH OF 1996", "23rd of August": the date's words, not the "of"
                yield _finding(m.start(), of.start(), "DATE_TIME", rule)
                after = "year_of_month" if rule == "month_day" else rule  # a year alone
                yield _finding(of.end(), m.end(), "DATE_TIME", after)
    for m in scan(_WEEKDAY):
        wd = text[m.start("wd") : m.end("wd")]
        if wd.casefold() in ("sat", "sun") and not wd.istitle():
            continue  # "sat" is a saturation in a note
        yield _finding(m.start("wd"), m.end("wd"), "DATE_TIME", "weekday_of_date")
    for m in _DASHED_DATE.finditer(text):
        if _DATE_WORD_BEFORE.search(text, max(0, m.start() - 16), m.start()):
            yield _finding(m.start(), m.end(), "DATE_TIME", "dashed_date")
    if any(w in folded for w in _SEASON_WORDS):
        for m in scan(_SEASON_YEAR):
            yield _finding(m.start(), m.end(), "DATE_TIME", "season_year")
    if any(w in folded for w in _HOLIDAY_WORDS):
        for m in scan(_HOLIDAY):
            yield _finding(m.start(), m.end(), "DATE_TIME", "holiday")
    for m in scan(_MONTH_DOT):
        word = text[m.start() : m.end()]
        if word.isupper() and word[:3].casefold() == "oct":
            continue  # "OCT." an optical coherence tomography
        yield _finding(m.start(), m.end() - 1, "DATE_TIME", "month_abbreviation")


_DIGIT = lazy_compile(r"\d")


def number_findings(text: str) -> list[Finding]:
    """The pagers, extensions, announced numbers and dates of ``text`` (see the module
    doc), unresolved.

    Examples
    --------
    >>> t = "p# 54321. call son at 555 1234. S/P CABG 1961, 1979; CVA 81'. MARCH OF 1996."
    >>> [t[f.start:f.end] for f in sorted(number_findings(t), key=lambda f: f.start)]
    ['54321', '555 1234', '1961', '1979', '81', 'MARCH', '1996']
    """
    if _DIGIT.search(text) is None:
        return list(_worded_dates(text))
    seen: set[tuple[int, int]] = set()
    out = []
    for f in (*_phones(text), *_dates(text), *_worded_dates(text)):
        if (f.start, f.end) not in seen:  # "MARCH OF 1996": the year read by two rules
            seen.add((f.start, f.end))
            out.append(f)
    return out
