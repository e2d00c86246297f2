"""Clinical context: more shapes of the recall-first clinical mode, and what one mention
of a name or a place says about the others in the same note.

Used only by :mod:`veil.text.detection._clinical_allow` (the ``hipaa`` profile in a clinical
note, the ``clinical`` profile anywhere), like :mod:`veil.text.recognition._clinical_shapes`.
Each rule is a format or a context, not a value:

* **charting notes** (:func:`charting_note`): a short note with no unambiguous clinical
  marker still reads as charting when it holds two distinct words of the charting register
  ("pt", "vent", "sats", "suctioned", "f/u", "pager": :data:`CHARTING_WORDS`), words that
  business and everyday text do not use together;
* **phones**: a North American number (area code 2-9) with separators mixed or spaced
  ("212- 476- 8356", "301 944-5032", "(617) 555.0123"), with a leading country code
  ("1-800-555-0199"), seven digits with a dot after a phone word ("cell 555.0123"), or
  seven digits with a dash or dot alone ("SON ROB 555-1234") unless both ends are round,
  a vent or vital label stands before or a unit after ("TV 900-1300", "SVR 954-1183",
  "UO 450-1250 cc": ranges); ten digits grouped 3-3-4 whatever the area code, the first
  separator dropped too ("135 442-9738", "617555-0123": a mistyped number still reaches
  someone); never a run ending in "00" ("250 500 1000" are volumes);
* **dates**: an ordinal day after "on the", "of the" ("on the 11th"); a month's
  abbreviation after a preposition of time ("in sept.", "since Aug"; never "mar", "dec"
  or "may", which are charting words or a verb); a full numeric date glued to a word or a
  dash ("TOXICITY-9/2/92");
* **institutions**: "University of <word>", "U of <word>" in any case; a saint's or a
  religious name ("Holy Cross", "Sacred Heart", "St. Mary", "Good Samaritan"); a name
  before "Regional", "General", "Memorial", "Community", "County" when "to", "from", "at"
  or "into" frames it ("TO LAUREL REGIONAL");
* **facilities, towns, wards and abbreviations by their grammar**
  (:func:`veil.text.recognition._clinical_places.place_findings`): a name before a facility
  word in any case, a town after a residence frame from GeoNames' smaller places, a ward
  or two to four capitals after a move; a town after a place word is looked up among
  GeoNames' smaller places too ("from Hingham");
* **names after a care-team role** ("CASEWORKER LEONA", "PCP Okafor", "RN Hall"): a
  known name that is no everyday word, verb or adjective, or an unknown word, capitalised
  in a note in ordinary case (never "RN aware", "MD notified", "resident Will");
* **names around a found name** (:func:`extend_names`): a person found by the pass takes
  the initials and the known first name before it ("HERMAN W. EMPERATRICE", "s.
  roberto"), and the known surname or unknown word after a known first name ("dtr
  Frances Baker", "CASEWORKER LEONA LABOWICH"), on the same line and in the same case;
* **other mentions** (:func:`repeat_mentions`): a word that the pass or a shape reported
  as a name or a place, and that is no English, clinical, calendar or function word, is
  reported wherever else the note writes it, in any case, glued to a ward's number too
  ("FROM CALVERT HOSPITAL ... AT CALVERT", "to QUARTERMAIN 3 ... QUARTERMAIN7"); a
  reported run of several words is reported wherever the run recurs ("holy cross").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from veil._lazy import lazy_compile
from veil.text.recognition._clinical_places import place_findings, town_names
from veil.text.recognition._clinical_shapes import setting_or_count
from veil.text.recognition._contact import enclosed
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import (
    CLINICAL_EXTRA,
    is_cued_name,
    is_first_name,
    is_frequent_name,
    is_name_word,
    is_safe_word,
)
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    common_words,
    word_classes,
    word_set,
)

__all__ = [
    "CHARTING_WORDS",
    "charting_note",
    "context_findings",
    "coordinated_people",
    "extend_names",
    "name_growth",
    "repeat_mentions",
]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6

#: words of the charting register: patient and care abbreviations, respiratory and nursing
#: terms, that business and everyday text do not use two at a time (checked on the
#: generated business and general corpora: none of their texts holds two); not "rx" and
#: "tx" (a network's counters), "rn" (chat's "right now"), "labs", "mobility" or "resp"
CHARTING_WORDS = word_set(
    """
    pt pts pt's f/u d/c d/c'd dc'd s/p c/o h/o w/u sx hx
    pager pgr beeper rrt crt lpn cna
    vent vented ventilator intubated intubation extubated extubation trach suction
    suctioned suctioning sats sat'ing sputum secretions rhonchi crackles rales
    sedated sedation afebrile febrile edema dialysis hemodialysis bronch bronchoscopy
    tolerating tol meds vitals micu ccu sicu nicu picu icu nursing respiratory
    pulmonary ambulated ambulating dsg foley ngt ogt picc neb nebs
    """
)

_FUNCTION = word_set(
    "a an the and or but of in on at by to from with for as is was be this that these those "
    "his her their its our my your he she they we it who which not no yes any all some per "
    "into onto via"
)
_WORDS = lazy_compile(r"(?<![^\W_])[^\W\d_][\w'’/]*")


def charting_note(text: str, window: int = 50_000, needed: int = 2) -> bool:
    """Whether ``text`` (its first ``window`` characters) holds ``needed`` distinct words of
    :data:`CHARTING_WORDS`: a note in the charting register though no unambiguous marker
    ("NPO", "Lasix") occurs in it.

    Examples
    --------
    >>> charting_note("Pt suctioned for thick secretions. Pager #54321")
    True
    >>> charting_note("Please update the status of ticket 5521 by Friday.")
    False
    """
    seen: set[str] = set()
    for m in _WORDS.finditer(text, 0, min(len(text), window)):
        w = m.group().casefold().replace("’", "'").rstrip("'")
        if w in CHARTING_WORDS and w not in seen:
            seen.add(w)
            if len(seen) >= needed:
                return True
    return False


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start, end, entity, _SCORE, RECOGNIZER, 1, Explanation(RECOGNIZER, pattern, _SCORE, _SCORE)
    )


def _plain(w: str) -> bool:
    """A function, clinical, charting or calendar word (``w`` case-folded)."""
    return w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS


# ---- phones -----------------------------------------------------------------------------
# dashes followed or preceded by spaces ("212- 476- 8356"), a country code ("1-800-555-
# 0199", "+1 617 555 0123"): shapes no dose, vital or lab value takes
_SPACED_PHONE = lazy_compile(
    r"(?<![\w/.])(?<!\d-)(?:\+?1[ \t]*[-.][ \t]*|\+1[ \t]+)?\(?[2-9]\d{2}\)?"
    r"(?:[ \t]*[-./][ \t]*|[ \t]+)"
    r"\d{3}(?:[ \t]*[-./][ \t]*|[ \t]+)\d{4}(?![\w/-]|\.\d)"
)
_COUNTRY_PHONE = lazy_compile(
    r"(?<![\w/.+-])(?:\+?1[-. ])\(?\d{3}\)?[-. ]\d{3}[-. ]\d{4}(?![\w/-]|\.\d)"
)
# seven digits with a dash or a dot and no phone word ("SON ROB 555-1234"): a local number
# as families give it; never a range of volumes or a vital's ("TV 900-1300", "SVR
# 954-1183", "UO 450-1250 cc": both ends round, a vent or vital label before, a unit after)
_LOCAL_PHONE = lazy_compile(
    r"(?<![\w/.-])(?<!\d-)([2-9]\d\d)[ \t]*[-.][ \t]*(\d{4})"
    r"(?![\w/-]|\.\d|[ \t]*(?:cc|ml|mg|mcg|units?|u\b|l\b|%|mmhg|/))",
    re.IGNORECASE,
)
_VITAL_BEFORE = lazy_compile(
    r"\b(?:svr|pvr|tv|vt|stv|vol(?:ume)?s?|ci|co|bs|fs|glucose|rr|hr|bp|sbp|map|ps|peep|uo|"
    r"u/o|i/o|plt|plts?|wbc|range|ranging|between)\b[^.;,\n\d]{0,12}$",
    re.IGNORECASE,
)
# ten digits grouped 3-3-4 with separators, whatever the first digit ("135 442-9738",
# "(104) 555-0123"), the first separator dropped too ("617555-0123"): the grouping is a
# phone's even where the area code is no valid North American one (a mistyped or a made-up
# number still reaches someone); a dose, a vital or a lab value is never written so
_GROUPED_PHONE = lazy_compile(
    r"(?<![\w/.-])(?:\(\d{3}\)|\d{3})[ \t]*[-./ ]?[ \t]*\d{3}[ \t]*[-./ ][ \t]*\d{4}"
    r"(?![\w/-]|\.\d)"
)
_DOTTED_LOCAL = lazy_compile(
    r"\b(?:phone|ph|tel|cell|home|work|call|number|no|#)\W{0,3}(\d{3}\.\d{4}|\d{7})(?![\w/.-])",
    re.IGNORECASE,
)


def _phones(text: str) -> Iterator[Finding]:
    seen: set[int] = set()
    spans: list[tuple[int, int]] = []
    for m in _SPACED_PHONE.finditer(text):
        seen.add(m.start())
        spans.append(m.span())
        if m.group().endswith("00"):
            continue  # a list of volumes or counts ("500- 250- 1000")
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "phone_spaced")
    for m in _GROUPED_PHONE.finditer(text):
        if m.start() in seen or m.group().endswith("00"):
            continue  # read above, or a list of volumes ("100 250-1000")
        seen.add(m.start())
        spans.append(m.span())
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "phone_grouped")
    for m in _COUNTRY_PHONE.finditer(text):
        if m.start() in seen:
            continue
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "phone_country_code")
    for m in _LOCAL_PHONE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue  # inside a number read whole above
        if m.group(1)[-1] in "05" and m.group(2)[-1] in "05":
            continue  # "900-1300", "450-1250": a range
        if _VITAL_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            continue
        yield _finding(*enclosed(text, m.start(), m.end()), "PHONE_NUMBER", "phone_local")
    for m in _DOTTED_LOCAL.finditer(text):
        yield _finding(m.start(1), m.end(1), "PHONE_NUMBER", "phone_local")


# ---- dates -------------------------------------------------------------------------------
_ORDINAL_DAY = lazy_compile(
    r"\b(?:on|of|since|by|until|till|from|before|after)[ \t]+the[ \t]+"
    r"((?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)
_NEXT_WORD = lazy_compile(r"[ \t]+([^\W\d_]+)")
# "mar" (the administration record), "dec" (decreased) and "may" are no months in a note
_MONTH_AFTER = lazy_compile(
    r"\b(?:in|since|until|till|early|late|mid|of|last|next|during|through|thru|before|after)"
    r"[ \t]+((?:jan|feb|apr|jun|jul|aug|sept?|oct|nov)\b\.?)(?![ \t]*\d)",
    re.IGNORECASE,
)
# a full numeric date glued to a word or a dash ("TOXICITY-9/2/92", "hx9/2/92"): the
# general date recognizer wants a boundary before it; what stands before is checked apart
_GLUED_DATE = lazy_compile(
    r"(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])/(?:(?:19|20)\d{2}|\d{2})(?![\d/%])"
)
_GLUED_BEFORE = lazy_compile(r"[^\W\d_](?:-|[^\W\d_])")


def _dates(text: str) -> Iterator[Finding]:
    for m in _ORDINAL_DAY.finditer(text):
        after = _NEXT_WORD.match(text, m.end(1))
        if after is not None and after.group(1).casefold() not in _FUNCTION:
            continue  # "on the 2nd liter", "by the 3rd attempt": a count, not a day
        yield _finding(m.start(1), m.end(1), "DATE_TIME", "ordinal_day")
    for m in _MONTH_AFTER.finditer(text):
        word = m.group(1).rstrip(".")
        if word.isupper() and len(text) > 0 and text[:2000] != text[:2000].upper():
            continue  # "in JUN" in a note in ordinary case: an abbreviation, not a month
        yield _finding(m.start(1), m.start(1) + len(word), "DATE_TIME", "month_abbreviation")
    for m in _GLUED_DATE.finditer(text):
        if m.start() < 2 or not _GLUED_BEFORE.fullmatch(text, m.start() - 2, m.start()):
            continue
        if setting_or_count(text, m.start(), m.end()):
            continue  # "psv5/5/40%": a ventilator's settings
        yield _finding(m.start(), m.end(), "DATE_TIME", "glued_date")


# ---- institutions ------------------------------------------------------------------------
_UNIVERSITY = lazy_compile(
    r"\b(?:university|univ\.?|(?-i:U))[ \t]*of[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?",
    re.IGNORECASE,
)
_U_OF_STATE = lazy_compile(
    r"\bU[ \t]+([A-Z][a-z]{3,}|[A-Z]{4,})(?=[ \t]+(?:ER|ED|EW|[Hh]osp|HOSP|[Mm]ed|MED))"
)
_SAINTLY = lazy_compile(
    r"\b(?:(?:holy|sacred)[ \t]+(?P<holy>[^\W\d_][\w'’-]*)|good[ \t]+samaritan\b|"
    r"(?:saint|(?-i:St|ST)\.)[ \t]*([^\W\d_][\w'’-]*)|"
    # "st. drew's", "st jude's" in any case: a saint's possessive is a church's or a hospital's
    r"\bst\.?[ \t]+(?P<possessive>[^\W\d_]{2,}['’]s)(?!\w))",
    re.IGNORECASE,
)
_ST_SEGMENT = word_set(
    "elevation elevations elevated depression depressions depressed changes change segment "
    "segments wave waves abnormality abnormalities interval intervals"
)
_REGIONAL = lazy_compile(
    r"\b(?:to|from|at|into)[ \t]+((?:[^\W\d_][\w'’-]*[ \t]+){1,2}"
    r"(?:regional|general|memorial|community|county)\b)",
    re.IGNORECASE,
)
_FACILITY_NEXT = word_set(
    "hospital hosp medical med center ctr rehab clinic health healthcare campus er ed ew icu"
)


def _institutions(text: str) -> Iterator[Finding]:
    for m in _UNIVERSITY.finditer(text):
        first = m.group(1)
        if _plain(first.casefold()) and first.casefold() not in {"md", "ma", "pa", "mi"}:
            continue  # "use of the", "u of pain"
        end = m.end(1)
        second = m.group(2)
        if (
            second
            and not _plain(second.casefold())
            and second.casefold() not in _FACILITY_NEXT
            and second[:1].isupper() == first[:1].isupper()
        ):
            end = m.end(2)
        yield _finding(m.start(), end, "LOCATION", "university")
    for m in _U_OF_STATE.finditer(text):
        if not _plain(m.group(1).casefold()):
            yield _finding(m.start(), m.end(1), "LOCATION", "university")
    for m in _SAINTLY.finditer(text):
        if m.group("possessive") is not None:
            if _plain(m.group("possessive")[:-2].casefold()):
                continue
        elif m.group("holy") is not None:
            if m.group("holy").casefold() in _FUNCTION:
                continue  # "holy and"
        elif m.group(2) is not None:
            name = m.group(2)
            w = name.casefold()
            if _plain(w) or w in _FACILITY_NEXT:
                continue  # "St. elevation"
            if w in _ST_SEGMENT or word_classes(w) & {"verb", "adj", "adv"}:
                continue  # "ST. DEPRESSION", "ST. ELEVATED": the ECG's segment
        yield _finding(m.start(), m.end(), "LOCATION", "saint_or_religious_name")
    for m in _REGIONAL.finditer(text):
        names = m.group(1).split()[:-1]
        folded = [w.casefold() for w in names]
        if any(_plain(w) or w in common_words() for w in folded):
            continue  # "to the general floor", "back to baseline general"
        if any(word_classes(w) & {"verb", "adj", "adv"} and not is_name_word(w) for w in folded):
            continue  # "to general medical", "to good general"
        yield _finding(m.start(1), m.end(1), "LOCATION", "facility")


# a ward or unit named by a word that is no English or clinical word and a floor, glued or
# not, after a word that places someone ("ADMITTED TO QUARTERMAIN7", "on Baker 6.", "per
# Ellison 3 RN", "transfer to quartermain 2/3"); never before a unit or a decimal
_WARD = lazy_compile(
    r"\b(?:to|from|on|at|per|into)[ \t]+([^\W\d_]{4,})[ \t]?(\d{1,2})(?:/\d{1,2})?"
    r"(?![\w%]|[.,:/-]\d|[ \t]*(?:units?\b|mg|mcg|ml|cc|l\b|lpm|liters?|x\b|hrs?\b|hours?|"
    r"days?|min|times|am\b|pm\b|%))",
    re.IGNORECASE,
)
# a town from the gazetteer right after a place word, or before a facility word ("HOME IN
# MILFORD MILL", "RETURN TO Baltimore", "BY BALTIMORE REHAB")
_TOWN_BEFORE = lazy_compile(
    r"\b(?:in|to|from|at|near|into)[ \t]+"
    r"(?=((?:[^\W\d_][\w'’-]*)(?:[ \t]+[^\W\d_][\w'’-]*){0,2}))",
    re.IGNORECASE,
)
_TOWN_FACILITY = lazy_compile(
    r"\b(?:hospital|hosp|rehab|clinic|medical|med|regional|general|memorial|nursing|hospice|"
    r"infirmary|center|ctr)\b",
    re.IGNORECASE,
)
_THREE_BEFORE = lazy_compile(r"(?:[^\W\d_][\w'’-]*[ \t]+){1,3}$")


@functools.cache
def _town_openers() -> frozenset[str]:
    """The first words of the gazetteer's names, case-folded: most words open none."""
    from veil.text.recognition._places import gazetteer

    names = [*gazetteer(), *town_names()]
    return frozenset(name.split()[0].casefold() for name in names if name.strip())


def _town(words: list[str]) -> int:
    """How many of ``words`` (from the first) make a town of the gazetteer, the longest
    first (the callers require a place word before or a facility word after it); a single
    word only when it is no common, clinical or charting word, verb, adjective or adverb,
    and, when it is an English noun, only capitalised as written ("in Laurel", not "in
    bursa")."""
    from veil.text.recognition._places import gazetteer

    if not words or words[0].casefold() not in _town_openers():
        return 0
    places = gazetteer()
    for n in range(min(3, len(words)), 0, -1):
        parts = words[:n]
        name = " ".join(p[:1].upper() + p[1:].lower() for p in parts)
        if name not in places and name.casefold() not in town_names():
            continue  # GeoNames' smaller places too ("Hyde Park", "Hingham")
        folded = [p.casefold() for p in parts]
        if any(w in _FUNCTION or w in CALENDAR_WORDS for w in folded):
            continue
        if n == 1:
            w = folded[0]
            if _plain(w) or w in common_words() or word_classes(w) & {"verb", "adj", "adv"}:
                continue
            if word_classes(w) and not parts[0][:1].isupper():
                continue  # "not in bursa": an English word in lower case is that word
        elif all(_plain(w) or w in common_words() for w in folded):
            continue
        return n
    return 0


def _places(text: str) -> Iterator[Finding]:
    for m in _WARD.finditer(text):
        word = m.group(1)
        w = word.casefold()
        if _plain(w) or is_safe_word(word) or w in common_words():
            continue
        yield _finding(m.start(1), m.end(2), "LOCATION", "ward")
    for m in _TOWN_BEFORE.finditer(text):
        words = m.group(1).split()
        n = _town(words)
        if n:
            end = m.start(1) + len(" ".join(words[:n]))
            if text[m.start(1) : end] == " ".join(words[:n]):
                yield _finding(m.start(1), end, "LOCATION", "town")
    for f in _TOWN_FACILITY.finditer(text):
        run = _THREE_BEFORE.search(text, max(0, f.start() - 80), f.start())
        if run is None:
            continue
        spans = [(w.start(), w.end()) for w in _WORDS_ONLY.finditer(text, run.start(), run.end())]
        words = [text[x:y] for x, y in spans]
        for k in range(len(words)):
            if _town(words[k:]) == len(words) - k:
                yield _finding(spans[k][0], spans[-1][1], "LOCATION", "town")
                break


_WORDS_ONLY = lazy_compile(r"[^\s]+")


# ---- names after a care-team role -----------------------------------------------------
# "CASEWORKER LEONA LABOWICH", "IV NURSE VIRGINIA SALLESE", "PCP Okafor", "SW: Ms Hall"
_ROLE_BEFORE = lazy_compile(
    r"\b(?:nurse|caseworker|case[ \t]+manager|case[ \t]+worker|cm|sw|social[ \t]+worker|"
    r"chaplain|resident|attending|fellow|intern|pcp|np|therapist|pharmacist|dietitian|"
    r"nutritionist|interpreter|proxy|hcp|guardian|coordinator|rn|rrt)s?['’]?"
    r"(?:[ \t]*[:-][ \t]*|[ \t]+)([^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)


def _role_name(word: str, mixed: bool) -> bool:
    """A word after a care-team role that names someone: capitalised in a note in ordinary
    case; a known name that is no everyday, clinical or charting word, verb, adjective or
    adverb ("RN Hall", not "RN aware"), or a word of four letters or more that no English
    dictionary holds ("SW Okonkwo", "RN Dutter")."""
    if mixed and not word[:1].isupper():
        return False
    if "-" in word and all(is_safe_word(p) for p in word.split("-") if p):
        return False  # "CO-SIGNATURE"
    w = word.casefold()
    if _plain(w) or w in common_words():
        return False
    if is_name_word(w):
        return not word_classes(w) & {"verb", "adj", "adv"}
    # a word no dictionary holds, though one letter off an English word ("Dutter"): the
    # role says a name, which the misspelling rule of the allow list would let pass
    return len(w) >= 4 and not word_classes(w) and "/" not in w and "'" not in w


def _role_names(text: str) -> Iterator[Finding]:
    head = text[:2000]
    mixed = head != head.upper() and head != head.lower()
    for m in _ROLE_BEFORE.finditer(text):
        if _role_name(m.group(1), mixed):
            yield _finding(m.start(1), m.end(1), "PERSON", "name_after_role")


def context_findings(text: str) -> list[Finding]:
    """The rules above that read a span's own shape and context (phones, dates,
    institutions), unresolved.

    Examples
    --------
    >>> t = "dtr Frances- 212- 476- 8356. Cultures on the 11th. To go to ST. MARY in sept."
    >>> [t[f.start:f.end] for f in sorted(context_findings(t), key=lambda f: f.start)]
    ['212- 476- 8356', '11th', 'ST. MARY', 'sept']
    """
    return [
        *_phones(text),
        *_dates(text),
        *_institutions(text),
        *_places(text),
        *place_findings(text),
        *_role_names(text),
    ]


# ---- names around a found name -----------------------------------------------------------
_TOKEN = lazy_compile(r"[^\W\d_][\w'’]*\.?|[^\W\d_]\.")


def _case(word: str) -> str:
    letters = word.rstrip(".")
    if letters.isupper():
        return "upper"
    if letters.islower():
        return "lower"
    return "title" if letters[:1].isupper() else "mixed"


def _first_name(w: str) -> bool:
    return is_first_name(w) and not _plain(w)


def _surname_after(word: str) -> bool:
    """A word after a known first name that continues the name: a known surname that is no
    verb, adjective or adverb (a rare Census one close to an English word too: the first
    name is the cue), or a word of three letters or more that is not safe."""
    w = word.casefold()
    if _plain(w) or w in common_words():
        return False
    if is_cued_name(w):
        return not word_classes(w) & {"verb", "adj", "adv"}
    return len(w) >= 3 and not is_safe_word(word)


def extend_names(text: str, findings: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """``findings`` with each ``PERSON`` grown over the name around it on its line: the
    initials and a known first name before it, and after a known first name the surname
    (see the module doc). A span never grows over what ``taken`` marks (every finding of
    the text); what it grows over is marked there.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "HERMAN W. EMPERATRICE, RRT. dtr Frances Baker- 212."
    >>> fs = [Finding(10, 21, "PERSON", 0.6, "x"), Finding(32, 39, "PERSON", 0.6, "x")]
    >>> [t[f.start:f.end] for f in extend_names(t, fs, bytearray(len(t)))]
    ['HERMAN W. EMPERATRICE', 'Frances Baker']
    """
    out: list[Finding] = []
    for f in findings:
        if f.entity_type != "PERSON":
            out.append(f)
            continue
        start, end = f.start, f.end
        core = text[f.start : f.end].split()
        case = _case(core[0]) if core else "mixed"
        # before: initials ("W.", "s.") and one known first name, same line, same case
        while True:
            m = _last_token(text, start)
            if m is None or taken.find(1, m.start(), m.end(1)) >= 0:
                break
            tok = m.group(1)
            letters = tok.rstrip(".")
            if len(letters) == 1:
                if not tok.endswith("."):
                    # a bare capital is an initial only between names ("HERMAN W
                    # EMPERATRICE"), never "T MAX", "I", "A"
                    before = _last_token(text, m.start())
                    if not (
                        letters.isupper()
                        and before is not None
                        and _first_name(before.group(1).casefold())
                        and _case(before.group(1)) == case
                    ):
                        break
                start = m.start()
                continue
            if tok.endswith(".") or _case(tok) != case or not _first_name(letters.casefold()):
                break
            start = m.start()
            break
        # after: a surname after a known first name, same line, same case
        words = text[start:end].split()
        last = words[-1] if words else ""
        if last.isalpha() and _first_name(last.casefold()) and text[end : end + 1] == " ":
            m = _TOKEN.match(text, end + 1)
            if m is not None and taken.find(1, m.start(), m.end()) < 0:
                word = m.group().rstrip(".")
                if (
                    word.isalpha()
                    and _case(word) == _case(last)
                    and (
                        (
                            _surname_after(word)
                            # an English first name ("TRACE", "Dick") takes a known
                            # surname only
                            and (not word_classes(last.casefold()) or is_name_word(word))
                        )
                        # a first name that is no English word, capitalised, takes a
                        # frequent surname however English ("Samantha White")
                        or (
                            _case(word) in {"title", "upper"}
                            and not word_classes(last.casefold())
                            and last.casefold() not in common_words()
                            and is_frequent_name(word)
                        )
                    )
                ):
                    end = m.start() + len(word)
        if (start, end) != (f.start, f.end):
            taken[start:end] = b"\x01" * (end - start)
            f = Finding(start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation)
        out.append(f)
    return out


def name_growth(text: str, found: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """What :func:`extend_names` adds around the ``PERSON`` findings of the typed
    recognizers and NER (``found``, which the pass never replaces): the added words alone,
    as findings of their own ("LEONA" found, "LABOWICH" added)."""
    people = [f for f in found if f.entity_type == "PERSON"]
    out: list[Finding] = []
    for old, new in zip(people, extend_names(text, people, taken), strict=True):
        if new.start < old.start:
            end = new.start + len(text[new.start : old.start].rstrip())
            out.append(_finding(new.start, end, "PERSON", "name_extended"))
        if new.end > old.end:
            start = new.end - len(text[old.end : new.end].lstrip())
            out.append(_finding(start, new.end, "PERSON", "name_extended"))
    return out


_AND_AFTER = lazy_compile(r"[ \t]*(?:and|&)[ \t]+([^\W\d_][\w'’-]*)", re.IGNORECASE)
_AND_BEFORE = lazy_compile(r"([^\W\d_][\w'’-]*)[ \t]+(?:and|&)[ \t]*$", re.IGNORECASE)


def coordinated_people(text: str, people: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """Names joined by "and" or "&" to a found person ("Drs' Ballou and Dutter", "Sons
    Morris and Okafor"): a word in the person's case that is a known name (no everyday,
    clinical or charting word, verb, adjective or adverb) or an unknown word of four letters
    or more; nothing ``taken`` marks.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "Drs' Ballou and Dutter pronounced. Dr. Roe and team aware."
    >>> fs = [Finding(5, 11, "PERSON", 0.6, "x"), Finding(39, 42, "PERSON", 0.6, "x")]
    >>> [t[f.start:f.end] for f in coordinated_people(t, fs, bytearray(len(t)))]
    ['Dutter']
    """
    out: list[Finding] = []
    for f in people:
        if f.entity_type != "PERSON":
            continue
        core = text[f.start : f.end].split()
        if not core:
            continue
        case = _case(core[-1])
        for m in (
            _AND_AFTER.match(text, f.end),
            _AND_BEFORE.search(text, max(0, f.start - 40), f.start),
        ):
            if m is None or taken.find(1, m.start(1), m.end(1)) >= 0:
                continue
            word = m.group(1)
            if _case(word) != case or not _role_name(word, mixed=False):
                continue
            taken[m.start(1) : m.end(1)] = b"\x01" * (m.end(1) - m.start(1))
            out.append(_finding(m.start(1), m.end(1), "PERSON", "coordinated_name"))
    return out


_BEFORE = lazy_compile(r"([^\W\d_][\w'’]*\.?|[^\W\d_]\.?)[ \t]+$")


def _last_token(text: str, start: int) -> re.Match[str] | None:
    m = _BEFORE.search(text, max(0, start - 40), start)
    if m is None or m.end() != start:
        return None
    return m


# ---- other mentions ----------------------------------------------------------------------
#: the rules whose findings are looked for elsewhere in the note: a name or a place read
#: from a strong context (a title, a relation, a role, a facility, a ward, a town), not a
#: word reported only for being unknown (an abbreviation, a misspelling)
REPEATED_FROM = frozenset(
    {
        "facility",
        "ward",
        "town",
        "university",
        "saint_or_religious_name",
        "titled_name",
        "titled",
        "titled_cased",
        "introduced_name",
        "name_before_role",
        "name_after_role",
        "after_relation",
        "name_shape",
        "prefixed_surname",
        "role_side_name",
    }
)


def _repeatable(word: str) -> bool:
    """A reported word worth looking for elsewhere in the note: no function, clinical,
    charting, calendar or common word; not English unless a known name that is no verb,
    adjective or adverb ("Hall", "Baker"; not "Green", "Will"); two letters only in
    capitals (a hospital's abbreviation)."""
    w = word.casefold()
    if len(w) < 2 or _plain(w) or w in common_words():
        return False
    if len(w) == 2 and not word.isupper():
        return False
    classes = word_classes(w)
    if classes:  # an English word (a misspelling of one, "Calvert", is a name here)
        return is_name_word(w) and not classes & {"verb", "adj", "adv"}
    return True


def repeat_mentions(text: str, reported: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """Other mentions in ``text`` of what ``reported`` named, when a rule of
    :data:`REPEATED_FROM` or NER (a ``PERSON``, since the eighth round) reported it: each repeatable word (:func:`_repeatable`) wherever it stands as a word (a ward's
    number glued to it too, "QUARTERMAIN7"), and each reported run of several words
    wherever it recurs, in any case; nothing ``taken`` marks is reported again.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "From Calvert hosp. At CALVERT, then QUARTERMAIN7."
    >>> fs = [Finding(5, 17, "LOCATION", 0.6, "x", 1, Explanation("x", "facility"))]
    >>> taken = bytearray(len(t))
    >>> taken[5:17] = bytes([1]) * 12
    >>> [t[f.start:f.end] for f in repeat_mentions(t, fs, taken)]
    ['CALVERT']
    """
    words: dict[str, str] = {}
    runs: dict[str, str] = {}
    for f in reported:
        rule = f.explanation.pattern_name if f.explanation else None
        if f.entity_type not in {"PERSON", "LOCATION"}:
            continue
        # a person NER read is that person wherever the note names them again
        if rule not in REPEATED_FROM and not (
            f.recognizer == "spacy_ner" and f.entity_type == "PERSON"
        ):
            continue
        span = text[f.start : f.end]
        parts = [m.group() for m in _WORDS.finditer(span)]
        for p in parts:
            if _repeatable(p):
                words.setdefault(p.casefold(), f.entity_type)
        if len(parts) > 1 and not all(_plain(p.casefold()) for p in parts):
            runs.setdefault(" ".join(p.casefold() for p in parts), f.entity_type)
    out: list[Finding] = []
    if not words and not runs:
        return out
    marks = bytearray(taken)
    pattern = "|".join(
        [re.escape(r).replace(r"\ ", r"[ \t]+") for r in sorted(runs, key=len, reverse=True)]
        + [re.escape(w) for w in sorted(words, key=len, reverse=True)]
    )
    for m in re.finditer(rf"(?<![^\W\d_])(?:{pattern})(?![^\W\d_])", text, re.IGNORECASE):
        a, b = m.span()
        if marks.find(1, a, b) >= 0:
            continue
        key = " ".join(m.group().casefold().split())
        entity = runs.get(key) or words.get(key)
        if entity is None:
            continue
        if len(key) == 2 and not m.group().isupper():
            continue  # a two-letter abbreviation counts in capitals only
        marks[a:b] = b"\x01" * (b - a)
        out.append(_finding(a, b, entity, "repeated_mention"))
    return out
