"""Clinical shapes: how nurses and physicians write dates, places, names and numbers.

Used only by the recall-first clinical mode (:mod:`veil.text.detection._clinical_allow`), so nothing
here changes what the ``default`` profile reports. Each shape is a format, not a value:

* **shorthand dates**: month/day and month/year without a year or century ("9/7", "8/87"),
  also glued to a label ("hx:3/98", "NIDDM.3/98"), unless a score, a ratio or a
  ventilator setting reads there ("pain 6/10", "strength 5/5", "PS 10/5", "1/2 NS",
  "flowby 6/3", "2/4 bottles": :func:`setting_or_count`); a year written with an
  apostrophe ("'92"); a two-digit or four-digit year after a diagnosis or procedure ("MI
  92", "s/p CABG in 2001"); a month named alone ("seen in September"; an abbreviation with
  its day or year is read by :mod:`veil.text.recognition._clinical_numbers`, as "dec" and
  "MAR" are charting words); a day before its month with its year or after a weekday
  ("15/4/2019", "Mon 23/04": a day of 13 to 31 reads no other way);
* **pagers, extensions and phones**: four to seven digits, or an internal extension
  ("2-4411"), after "pager", "pgr", "beeper", "ext", "x" ("Pager: #54321", "ext 4411"),
  five to seven digits after "#"; a North American number with dashes, dots, slashes or
  spaces ("617/555/0123"; seven digits alone only after a phone word or "@"), ten digits
  alone, shapes no dose, vital or lab value takes, with a bracket pair that encloses exactly
  the number ("(617-555-0123)");
* **facilities**: up to three words before a facility word ("kernan hosp", "FROM CALVERT
  HOSPITAL", "GH hosp", "Briarwood Rehab"; "hospital" misspelt too, "HOSPIATAL"), generic words ("outside", "the", "this")
  excluded, English words too when "to", "from" or "at" frames the name ("TO FAULKNER
  HOSPITAL"); one or two names before an everyday facility word ("health", "center",
  "home") only in that frame ("from Hale Health"); a ward named by a building and a floor
  ("transferred to Ellison 12");
* **titled and introduced names**: the word after a title ("DR LAVELY NOTIFIED", "Dr.
  Brown", "drs' Okafor") when it is a known name, a noun or not English, never a verb,
  adjective or charting word ("dr aware", "DR WILL SEE"; "Mr" and "Ms" only as titles
  are written, "MR" and "MS" being mitral regurgitation and mental status); after a
  relation or a contact verb ("talked with helen", "wife Mary", "d/w Okafor", "left
  message for Joan") when it is a known name; right after a relation word, with a dash,
  colon or comma too, in any case ("DAUGHTER- JOAN", "dtr, Emily,");
  after a capital initial ("S. DOMINICO") when it is a known name or not English (never
  a plural's or a score's letter, "PVC'S. HEMODYNAMICS", "A&O. PLEASANT"); before a
  care-team role ("OKAFOR RRT", "Hall RN", "WHITE MD"; not a shift or a service, "CHARGE
  RN", "DAY RN", and never "PT", "PA" or "RT", the patient, an artery and "right"), or
  before a role in parentheses ("CUCCHIARA (RESIDENT)", "Lange (attending)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from veil._lazy import lazy_compile
from veil.text.recognition._clinical_places import NOT_FACILITY_NAME
from veil.text.recognition._contact import enclosed
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import CLINICAL_EXTRA, is_name_word, is_safe_word
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    RELATION_WORDS,
    common_words,
    word_classes,
    word_set,
)

__all__ = ["is_english", "setting_or_count", "shape_findings"]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6

_FUNCTION = word_set(
    "a an the and or but of in on at by to from with for as is was be this that these those "
    "his her their its our my your he she they we it who which not no yes any all some"
)


def is_english(word: str) -> bool:
    """Whether ``word`` is English or clinical vocabulary as spelt (no misspelling)."""
    w = word.casefold()
    return (
        w in _FUNCTION
        or w in CLINICAL_EXTRA
        or w in NOTE_WORDS
        or w in common_words()
        or bool(word_classes(w))
    )


def _namelike(word: str) -> bool:
    """A word that can be a name where its context announces one: a known name that is not
    a common or clinical word, or a word that is not English."""
    w = word.casefold()
    if w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or w in common_words():
        return False
    return is_name_word(w) or not is_english(w)


# ---- dates -----------------------------------------------------------------------------
# what may stand before a short date is checked apart (:func:`_date_start`): a lookbehind
# tried at every character of a note cost more than the rest of the pattern
_SHORT_DATE = lazy_compile(r"(1[0-2]|0?[1-9])/(\d{4}|\d{1,2})(?![\w/]|[.,]\d|:\d|\s*%)")
_GLUED_LABEL = lazy_compile(r"(?:(?<![\w/.:])[^\W\d_]{2}|[^\W\d_]{3})[:.]")
_NOT_BEFORE_DATE = frozenset("/.:")


def _date_start(text: str, start: int) -> bool:
    """Whether a short date may start at ``start``: after no word character, slash, dot or
    colon, or glued to a label of two or three letters and a colon or dot ("hx:3/98")."""
    if start == 0:
        return True
    c = text[start - 1]
    if not (c.isalnum() or c == "_" or c in _NOT_BEFORE_DATE):
        return True
    return c in ":." and (
        _GLUED_LABEL.fullmatch(text, max(0, start - 3), start) is not None
        or _GLUED_LABEL.fullmatch(text, max(0, start - 4), start) is not None
    )


# a day before its month with its year or after a weekday ("15/4/2019", "Mon 23/04"): a day
# of 13 to 31 reads no other way; without either, "20/10" is as often a setting or a ratio
_DAY_FIRST = lazy_compile(
    r"(1[3-9]|2\d|3[01])/(1[0-2]|0?[1-9])(/(?:19|20)?\d{2})?(?![\w/]|[.,]\d|:\d|\s*%)"
)
_WEEKDAY_BEFORE = lazy_compile(
    r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\.?,?"
    r"[ \t]+$",
    re.IGNORECASE,
)
_OUT_OF_TEN = lazy_compile(r"pain|\d/10\b", re.IGNORECASE)
# a month named alone is an element of a date (Safe Harbor keeps only the year): full names
# but "May" (a verb as often); abbreviations with a day or a year are read by
# :mod:`veil.text.recognition._clinical_numbers` ("Sept 12", "oct '98"), where a dose after
# them ("dec 20 mg") is told apart
_MONTH_ALONE = lazy_compile(
    r"\b(?:january|february|march|april|june|july|august|september|october|november|"
    r"december)\b",
    re.IGNORECASE,
)
# what makes "a/b" a score, a ratio or a setting rather than a date: a word just before
# ("pain 6/10", "PS 10/5", "strength 5/5", "GCS 3/4") or a unit or score just after
_NOT_DATE_BEFORE = lazy_compile(
    r"\b(?:pain|score|scale|strength|str|motor|grips?|peep|cpap|bipap|ipap|epap|ps|psv|ac|"
    r"simv|imv|vent|settings?|mode|tv|rr|i:e|ie|gcs|pupils?|perrla?|dtr|reflexes|ratio|"
    r"apgars?|murmur|grade|tone|power|sats?|pulses?|x)\W{0,3}$",
    re.IGNORECASE,
)
_NOT_DATE_AFTER = lazy_compile(
    r"\s*(?:mm|cm|mg|mcg|ml|cc|l\b|units?|tabs?|amps?|ns\b|nss\b|strength|str\b|pain|pulses?|"
    r"pedal|radial|palp|grips?|"
    r"murmur|sem\b|hsm\b|systolic|diastolic|power|bilat|b/l|throughout|in\s+all|peep|cp\b|"
    r"chest)",
    re.IGNORECASE,
)
# a ventilator's or a culture's numbers: a mode or a setting word earlier in the clause
# ("CPAP/PSV 12/5", "flowby 6/3", "on PS 10/5/40%"), a count of bottles or sets after
_SETTING_BEFORE = lazy_compile(
    r"\b(?:cpap|bi-?pap|bi-?level|ipap|epap|psv|ips|ps|peep|settings?|flow-?by|simv|imv|"
    r"prvc|aprv)\b[^.\n;:]{0,16}$",
    re.IGNORECASE,
)
# the second half of a range ("5/5-4/5", "1/4 - 2/4")
_RANGE_REST = lazy_compile(r"[ \t]*[-–][ \t]*\d{1,2}/\d{1,2}(?![\d/])")
_SETTING_AFTER = lazy_compile(r"(?:/\d+)*\s*(?:%|bottles?|btls?|sets?\b)", re.IGNORECASE)


def setting_or_count(text: str, start: int, end: int) -> bool:
    """Whether the numbers ``text[start:end]`` ("10/5", "12/10/40") are a ventilator's
    settings or a count of culture bottles by what stands around them, not a date.

    Examples
    --------
    >>> t = "CPAP/PSV 12/5, FIO2 40%. BCX 2/4 bottles. Seen 3/12."
    >>> [setting_or_count(t, *span) for span in [(9, 13), (29, 32), (48, 52)]]
    [True, True, False]
    """
    return bool(
        _SETTING_BEFORE.search(text, max(0, start - 40), start) or _SETTING_AFTER.match(text, end)
    )


_FRACTIONS = frozenset({(1, 2), (1, 3), (1, 4), (2, 3), (3, 4)})
_APOSTROPHE_YEAR = lazy_compile(r"(?<![\w'’])['’](\d{2})(?![\w'’\"])")
_CONDITION_YEAR = lazy_compile(
    r"\b(?:mi|ami|nstemi|stemi|cabg(?:\s*x\s*\d)?|cva|tia|pci|ptca|stents?|stented|avr|mvr|"
    r"cea|aaa|chole|appy|lap|surgery|repair|replacement|fx|dx|dx'd|diagnosed|ca|cancer|"
    r"hx|s/p\s+[a-z]+)\s*(?:in\s+|of\s+)?((?:19|20)\d{2}|[3-9]\d)\b(?![/.:]\d|\s*(?:%|mg|cc|ml|x))",
    re.IGNORECASE,
)

# ---- pagers and extensions --------------------------------------------------------------
_PAGER = lazy_compile(
    r"\b(?:pager|pgr|pg|beeper|bpr|beep|page|ext|extension|x)\.?\s*(?:number|num|no\.?|#)?"
    r"\s*[:#]?\s*#?\s*(\d{4,7}|\d{1,2}-\d{4})(?![\d/]|\.\d)",
    re.IGNORECASE,
)

# five to seven digits after "#" with no word: a pager, an extension or a record number
# ("page #54321"); doses and sizes are shorter or carry a unit ("#8 ETT", "#20g")
_HASH_NUMBER = lazy_compile(r"(?<![\w#])#[ \t]?(\d{5,7})(?![\d/.,%-]|[ \t]*(?:mg|cc|ml|fr|g)\b)")

# a North American number as notes write it, with or without an area code ("617-555-0123",
# "555-0123", "(617) 555 0123"): not the shape of a dose, a vital or a lab value
_PHONE = lazy_compile(
    r"(?<![\w/.-])(\(\d{3}\)[ \t]?|\d{3}(?P<sep>[-./ ]))?\d{3}(?(sep)(?P=sep)|[- ])\d{4}"
    r"(?![\w/-]|\.\d)|(?<![\w/.-])[2-9]\d{9}(?![\w/-]|\.\d)"
)
_PHONE_WORD = lazy_compile(
    r"(?:\b(?:phone|ph|tel|telephone|cell|home|work|call|called|reached|contact|number|no|at)\b|"
    r"[#@])\W*$",
    re.IGNORECASE,
)

# ---- facilities -------------------------------------------------------------------------
_FACILITY = lazy_compile(
    r"\b(?:hosp(?!itali[sz])[a-z]{0,5}|medical\s+center|med\s+ctr|rehab|nursing\s+home|hospice|"
    r"infirmary|clinic|manor|memorial)\b\.?",
    re.IGNORECASE,
)
# facility words that are everyday words too: they name a place only in a frame, "to/from/at
# <one or two words> <word>" ("from Hale Health", "TO MERCER CENTER")
_WEAK_FACILITY = lazy_compile(
    r"\b(?:to|from|at)[ \t]+((?:[^\W\d_][\w'’&-]*[ \t]+){1,2}"
    r"(?:health(?:care)?|center|centre|ctr|institute|campus|home))\b",
    re.IGNORECASE,
)
_GENERIC = word_set(
    "outside osh other local this that same another previous prior referring current "
    "nearby area home day the a an his her their our your to from at in transfer transferred "
    "admitted sent back return returned discharge discharged go going went d/c dc pt patient "
    "rehab hospital hosp clinic and or of for by with ccu micu sicu icu ed er or"
)
_FACILITY_FRAME = word_set("to from at @")
# a ward or unit named by a building and a floor: "transferred to Baker 5", "on ELLISON 12"
_WARD = lazy_compile(
    r"\b(?:to|from|on|at)[ \t]+([^\W\d_]{3,})[ \t]+(\d{1,2})\b(?![./:%-]|[ \t]*(?:units?\b|"
    r"mg|mcg|l\b|lpm|liters?|cc|ml|x\b|hrs?\b|hours?|days?|min|times|am\b|pm\b|to\b|-))",
    re.IGNORECASE,
)
_WORD_BEFORE = lazy_compile(r"([^\W\d_][\w'’&.-]*)\s+$")

# ---- names -------------------------------------------------------------------------------
# "Mr" and "Ms" only as titles are written: "MR" and "MS" are mitral regurgitation and
# mental status in a note
_TITLED = lazy_compile(
    r"\b(?:(?:dr|drs|doctor|mrs|miss)\.?['’]?|(?-i:Mr|Ms)\.?|(?-i:MR|mr)\.)"
    # a blank after the title, or none after its full stop ("Dr.Young", "DR.LAVELY")
    r"(?:\s+|(?<=\.)(?=[^\W\d_]))((?-i:[A-Z]\.){2,3}(?!\w)|[^\W\d_][\w'’-]*)"
    r"(?:\s+([^\W\d_][\w'’-]*))?",
    re.IGNORECASE,
)
_INTRODUCED = lazy_compile(
    rf"\b(?:{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))}|dtr|friend|"
    r"neighbor|neighbour|talked\s+(?:with|to)|spoke\s+(?:with|to)|called|paged|notified|"
    r"updated|informed|per|by|met\s+with|discussed\s+with|d/w|reviewed\s+with|"
    r"message\s+(?:for|with)|reach|reached|contacted|phoned)\s+([^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)
# what stands before a role without naming anyone: a shift, a post, a service
_NOT_BEFORE_ROLE = word_set(
    "day days night nights eve evening morning charge float travel traveler primary "
    "covering coverage cover call house team new old other another same senior junior "
    "staff head nurse unit floor icu renal cardiology cards pulm gi surgery surgical medical "
    "medicine neuro psych ortho plastics ent onc oncology the this that and or of for with"
)

_RELATIVE = lazy_compile(
    rf"\b(?:{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))}|dtr|sons|daughters|"
    r"brothers|sisters|friend|neighbor|neighbour)['’]?(?:[ \t]*[:,-][ \t]*|[ \t]+)"
    r"([^\W\d_][\w'’]*)",
    re.IGNORECASE,
)

# a name before a care-team role: "ANDERSON RRT", "Kowalski RN", "j smith md" ("PT", "OT",
# "PA" and "RT" are the patient, therapy, an artery and "right" as often)
_ROLE_AFTER = lazy_compile(
    r"(?<![\w.'’-])([^\W\d_][\w'’]*)(?:,?[ \t]+|[ \t]*\()"
    r"(?:RN|RRT|MD|NP|PA-C|CNA|LPN|MSW|LICSW|PharmD|rn|rrt|md|np)\b(?![/.-]\w)"
)


# a name before a care-team role in parentheses: "CUCCHIARA (RESIDENT)", "Lange (attending)"
_ROLE_IN_PARENS = lazy_compile(
    r"(?<![\w.'’-])([^\W\d_][\w'’]*)[ \t]*\([ \t]*(?:resident|attending|intern|fellow|"
    r"nurse|rn|np|md|rrt|pa|sw|cm|pcp|chaplain|pharmacist|surgeon|covering)[ \t]*\)",
    re.IGNORECASE,
)


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start,
        end,
        entity,
        _SCORE,
        RECOGNIZER,
        1,
        Explanation(RECOGNIZER, pattern, _SCORE, _SCORE),
    )


def _dates(text: str) -> Iterator[Finding]:
    for m in _SHORT_DATE.finditer(text):
        if not _date_start(text, m.start()):
            continue
        a, b = int(m.group(1)), m.group(2)
        if len(b) <= 2 and (a, int(b)) in _FRACTIONS:
            continue
        if len(b) == 4 and not b.startswith(("19", "20")):
            continue
        if len(b) <= 2 and int(b) == 0:
            continue
        if _NOT_DATE_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        end = m.end()
        if (rest := _RANGE_REST.match(text, end)) is not None:
            end = rest.end()  # "5/5-4/5 grips": what follows the range says what it is
        if _NOT_DATE_AFTER.match(text, end) or setting_or_count(text, m.start(), end):
            continue
        if b == "10" and (
            _OUT_OF_TEN.search(text, max(0, m.start() - 40), m.start())
            or _OUT_OF_TEN.search(text, m.end(), m.end() + 40)
        ):
            continue  # a score out of ten, as pain is charted ("pain 3/10")
        yield _finding(m.start(), m.end(), "DATE_TIME", "short_date")
    for m in _DAY_FIRST.finditer(text):
        if not _date_start(text, m.start()) or m.group() == "24/7":
            continue  # "care 24/7"
        weekday = _WEEKDAY_BEFORE.search(text, max(0, m.start() - 12), m.start())
        if m.group(3) is None and weekday is None:
            continue  # "20/10": a setting or a ratio as often
        titled = weekday is not None and weekday.group().istitle()  # "Sat 20/11", not "sat"
        if not titled and _NOT_DATE_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue  # "sats 13/10", "GCS 15/10"
        if _NOT_DATE_AFTER.match(text, m.end()) or setting_or_count(text, m.start(), m.end()):
            continue
        if m.group(2) == "10" and (
            _OUT_OF_TEN.search(text, max(0, m.start() - 40), m.start())
            or _OUT_OF_TEN.search(text, m.end(), m.end() + 40)
        ):
            continue  # a score out of ten
        yield _finding(m.start(), m.end(), "DATE_TIME", "day_first")
    for m in _MONTH_ALONE.finditer(text):
        yield _finding(m.start(), m.end(), "DATE_TIME", "month_name")
    for m in _APOSTROPHE_YEAR.finditer(text):
        yield _finding(m.start(), m.end(), "DATE_TIME", "apostrophe_year")
    for m in _CONDITION_YEAR.finditer(text):
        yield _finding(m.start(1), m.end(1), "DATE_TIME", "condition_year")


def _facilities(text: str) -> Iterator[Finding]:
    head = text[:2000]
    mixed = head != head.upper() and head != head.lower()
    for m in _FACILITY.finditer(text):
        start = m.start()
        words = 0
        while words < 3:
            w = _WORD_BEFORE.search(text, max(0, start - 40), start)
            if w is None or "\n" in text[w.end(1) : start]:
                break
            word = w.group(1).rstrip(".")
            folded = word.casefold()
            if folded in _GENERIC or folded in _FUNCTION or folded in NOT_FACILITY_NAME:
                break  # "to the hospital", "to pain clinic": a kind of care, not a name
            prev = _WORD_BEFORE.search(text, max(0, w.start(1) - 40), w.start(1))
            prev_word = prev.group(1).rstrip(".") if prev else ""
            # "to/from/at X hospital" frames a name, however English its words ("from
            # baptist hosp", "TO FAULKNER HOSPITAL")
            framed = prev_word.casefold() in _FACILITY_FRAME
            if mixed and word[:1].islower() and is_english(word) and not framed:
                break
            # an English word alone before "hospital" in capitals or lower case is a
            # description ("community hospital"), unless a name stands before it
            if (
                not mixed
                and is_english(word)
                and words == 0
                and len(word) > 4
                and not framed
                and not _namelike(prev_word)
            ):
                break
            start = w.start(1)
            words += 1
        if words:
            yield _finding(start, m.end(), "LOCATION", "facility")
    for m in _WEAK_FACILITY.finditer(text):
        names = m.group(1).split()[:-1]
        if any(w.casefold() in _GENERIC or w.casefold() in _FUNCTION for w in names):
            continue  # "to the home", "from nursing home" (a strong facility word's)
        if mixed and not all(w[:1].isupper() for w in names):
            continue  # "back to baseline health"
        if any(
            word_classes(w.casefold()) & {"verb", "adj", "adv"} and not is_name_word(w)
            for w in names
        ):
            continue  # "TO GET HOME", "to good health"
        if all(w.casefold() in CLINICAL_EXTRA or w.casefold() in NOTE_WORDS for w in names):
            continue
        yield _finding(m.start(1), m.end(1), "LOCATION", "facility")


def _wards(text: str) -> Iterator[Finding]:
    for m in _WARD.finditer(text):
        w = m.group(1).casefold()
        if w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS:
            continue
        if word_classes(w) & {"verb", "adj", "adv"} and not is_name_word(w):
            continue  # "up to about 5", "down to only 2"
        yield _finding(m.start(1), m.end(2), "LOCATION", "ward")


# a capital initial and a name: "S. DOMINICO", "J. Brown"; not a plural's or a score's
# letter ("PVC'S. HEMODYNAMICS", "A&O. PLEASANT")
_INITIAL_NAME = lazy_compile(r"(?<![\w.'’&/+-])[A-Z]\.\s?([A-Z][\w'’-]+)")
# words that follow a title without being a name: auxiliaries and charting verbs ("DR WILL
# SEE PT", "Dr. Aware", "dr paged")
_NOT_AFTER_TITLE = word_set(
    "will may can could would should shall must did does do is was were be been has had have "
    "aware notified paged called informed updated here in at to on of and or who states said "
    "office note notes team service ordered orders"
)


def _name_after_title(word: str, *, nouns: bool = True) -> bool:
    """A word that names someone after a title: a known first or last name, even one that
    is an everyday word ("DR BROWN", "Dr. King"), or a noun ("DR FLOWERS"), unless it is a
    function, clinical or charting word; or a word that is neither a name nor English.
    A verb, adjective or adverb alone is no name there ("dr aware", "DR PAGED")."""
    w = word.casefold()
    if w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or w in _NOT_AFTER_TITLE:
        return False
    return is_name_word(w) or not is_english(w) or (nouns and "noun" in word_classes(w))


def _names(text: str) -> Iterator[Finding]:
    for m in _INITIAL_NAME.finditer(text):
        word = m.group(1)
        if (
            len(word) >= 3
            and _name_after_title(word, nouns=word.casefold() not in common_words())
            and (is_name_word(word) or len(word) >= 4)
        ):
            yield _finding(m.start(), m.end(1), "PERSON", "initial_name")
    for m in _TITLED.finditer(text):
        first, second = m.group(1), m.group(2)
        if not _name_after_title(first):
            continue
        end = m.end(1)
        if second and _namelike(second) and "\n" not in text[m.end(1) : m.start(2)]:
            end = m.end(2)
        yield _finding(m.start(1), end, "PERSON", "titled_name")
    for m in (*_ROLE_AFTER.finditer(text), *_ROLE_IN_PARENS.finditer(text)):
        word = m.group(1)
        w = word.casefold()
        if w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or len(word) < 3:
            continue
        if w in _NOT_BEFORE_ROLE or w in CALENDAR_WORDS:
            continue
        cased = word[:1].isupper()
        # a known name, a word that is not English, or a capitalised noun ("WHITE MD",
        # "Okonkwo RN", "Hall RN")
        if is_name_word(w) or not is_safe_word(word) or (cased and "noun" in word_classes(w)):
            yield _finding(m.start(1), m.end(1), "PERSON", "name_before_role")
    for m in _INTRODUCED.finditer(text):
        word = m.group(1)
        folded = word.casefold()
        if folded in _FUNCTION or folded in NOTE_WORDS or folded in CLINICAL_EXTRA:
            continue
        if word_classes(folded) & {"verb", "adj", "adv"}:
            continue  # "wife said", "son made aware"
        if is_name_word(word) and folded not in common_words():
            yield _finding(m.start(1), m.end(1), "PERSON", "introduced_name")
    for m in _RELATIVE.finditer(text):
        # right after a relation word, as a title: "daughter- JOAN", "husband Bud", "dtr
        # kim" (a known name, everyday or not, or a word that is not English)
        word = m.group(1)
        w = word.casefold()
        if len(word) < 3 or not _name_after_title(word, nouns=False):
            continue
        if is_name_word(w) and word_classes(w) & {"verb", "adj", "adv"}:
            continue  # "wife said", "son made aware"
        if is_name_word(w) or not is_safe_word(word):  # not a misspelling ("visisted")
            yield _finding(m.start(1), m.end(1), "PERSON", "introduced_name")


def _pagers(text: str) -> Iterator[Finding]:
    paged = set()
    for m in _PAGER.finditer(text):
        paged.add(m.start(1))
        yield _finding(m.start(1), m.end(1), "PHONE_NUMBER", "pager")
    for m in _HASH_NUMBER.finditer(text):
        if m.start(1) not in paged:  # "Pager: #54321" is read once
            yield _finding(m.start(1), m.end(1), "PHONE_NUMBER", "hash_number")
    for m in _PHONE.finditer(text):
        local = m.group(1) is None and len(m.group()) < 10
        if local and not _PHONE_WORD.search(text, max(0, m.start() - 24), m.start()):
            continue  # seven digits alone are an identifier as often as a phone
        if " " in m.group() and m.group().endswith("00"):
            continue  # a list of volumes or counts ("120 200 1000")
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "phone_shape")


def shape_findings(text: str) -> list[Finding]:
    """Every clinical shape in ``text`` (see the module doc), unresolved.

    Examples
    --------
    >>> t = "DR LAVELY NOTIFIED. s/p MI '92, seen 9/7. To kernan hosp. Pager: #54321"
    >>> [t[f.start:f.end] for f in sorted(shape_findings(t), key=lambda f: f.start)]
    ['LAVELY', "'92", '9/7', 'kernan hosp.', '54321']
    """
    return [*_dates(text), *_facilities(text), *_wards(text), *_names(text), *_pagers(text)]
