"""Detection profiles: which findings a de-identification standard counts as identifying.

``default`` reports every finding. ``hipaa`` follows the US HIPAA Privacy Rule's Safe
Harbor method (45 CFR 164.514(b)(2)(i)), which lists what must be removed and so what may
stay. Its list names "all elements of dates (except year) for dates directly related to an
individual", "all ages over 89 and all elements of dates (including year) indicative of
such age", and "all geographical subdivisions smaller than a State". Under ``hipaa``:

* an ``AGE`` is reported only over 89 ("aged 92", "in her 90s"); "67 y/o" is not;
* a ``DATE_TIME`` that is only a year or a decade ("in 2019", "the 1990s") or only a time
  of day ("3:30 pm", "at 1400 hrs") is not reported, except a year after a birth word
  ("born in 1931", "DOB: 1931") that makes the person older than 89 this year, and a year
  that the clinical pass reads as a date of the patient's own history (after a diagnosis
  or a procedure, "s/p MI 92", "CHOLECYSTECTOMY 85'", or after a month, "MARCH OF 1996":
  :data:`~veil.text.recognition._clinical_numbers.EVENT_YEAR_RULES`), which a reviewer
  holding a note to Safe Harbor strictly would not let stay; any date with a month or a
  day stays ("March 2019", "4/10");
* a ``LOCATION`` that is a US state, a country, or a USPS state code ("Texas", "MA",
  "Canada") is not reported; towns, streets, ZIP codes and institutions stay.

Everything else (names, numbers, contacts, addresses, organisations) is reported as under
``default``. In a text that reads as a clinical note, ``hipaa`` also runs the precise
allow-list pass of :mod:`veil.text.detection._clinical_allow` (clinical shapes, names and places in
their context). ``clinical`` narrows nothing and runs the thorough allow-list pass in every
text: every word that is neither English nor clinical vocabulary is reported, recall first. Safe Harbor also requires that the covered entity has no actual knowledge that
what remains could identify the individual: the profile narrows detection to the rule's
list, it does not make that judgement.
"""

from __future__ import annotations

import datetime as _dt
import re

from veil._errors import PolicyError
from veil._lazy import lazy_compile
from veil.text.recognition._finding import Finding
from veil.text.vocab._lexicon import state_or_country

__all__ = ["PROFILES", "check_profile", "profile_keeps", "state_or_country"]

#: the detection profiles, with what each one does
PROFILES: dict[str, str] = {
    "default": "report every finding",
    "hipaa": "HIPAA Safe Harbor (45 CFR 164.514(b)(2)): ages over 89 only; no year-only "
    "dates, times of day, US states or countries; clinical shapes in clinical notes",
    "clinical": "recall first: every finding, and every word that is neither English nor "
    "clinical vocabulary",
}

_YEAR_ONLY = lazy_compile(
    r"(?:(?:in|the|of|since|during|until|by|from|year|circa|c\.|early|mid|late)[\s-]+)*"
    r"(?:(?:19|20)\d{2}|(?:19|20)?\d0'?s|'\d0s)",
    re.IGNORECASE,
)
_CLOCK = r"(?:\d{1,2}(?::\d{2}){0,2}\s*(?:[ap]\.?m\.?|o'?clock|h(?:rs?|ours)?)?|\d{4}\s*h(?:rs?)?|noon|midnight)"
_TIME_ONLY = lazy_compile(
    rf"(?:(?:at|@|around|about|approx\.?|approximately|by|until|from)\s*)*{_CLOCK}"
    rf"(?:\s*(?:-|to|and|until)\s*{_CLOCK})?",
    re.IGNORECASE,
)
_BIRTH_BEFORE = lazy_compile(
    r"\b(?:born|birth|birthdate|b\.|dob|d\.o\.b\.?|yob)\b[^\n\d]{0,20}$", re.IGNORECASE
)
_YEAR = lazy_compile(r"(?:19|20)\d{2}")


def check_profile(name: str) -> str:
    """``name`` if it is a known profile, else a :class:`~veil.PolicyError` listing them."""
    if name not in PROFILES:
        raise PolicyError(
            f"unknown text profile {name!r}",
            hint=f"use one of: {', '.join(PROFILES)}",
        )
    return name


def _age_value(span: str) -> int | None:
    from veil.text.recognition._ages import spelled_number

    digits = re.search(r"\d+", span)
    return int(digits.group()) if digits else spelled_number(span)


def profile_keeps(profile: str, text: str, f: Finding) -> bool:
    """Whether ``profile`` reports finding ``f`` of ``text`` (see the module doc).

    Examples
    --------
    >>> t = "67 y/o seen 3:30 pm on March 3; aged 92; lives in Texas, since 2019."
    >>> f = lambda s, e, typ: Finding(s, e, typ, 0.8, "x")
    >>> [profile_keeps("hipaa", t, f(*t_)) for t_ in [(0, 2, "AGE"), (12, 19, "DATE_TIME"),
    ...     (23, 30, "DATE_TIME"), (37, 39, "AGE"), (50, 55, "LOCATION"), (63, 67, "DATE_TIME")]]
    [False, False, True, True, False, False]
    """
    if profile != "hipaa":
        return True
    span = text[f.start : f.end].strip()
    if f.entity_type == "AGE":
        value = _age_value(span)
        return value is None or value > 89
    if f.entity_type == "DATE_TIME":
        if f.recognizer == "clinical_shapes" and f.explanation is not None:
            # only the clinical pass makes these findings, and it has loaded the module:
            # importing it here keeps ``veil text --profile`` parsing light
            from veil.text.recognition._clinical_numbers import EVENT_YEAR_RULES

            if f.explanation.pattern_name in EVENT_YEAR_RULES:
                return True  # a year of the patient's history (see the module doc)
        if _TIME_ONLY.fullmatch(span):
            return False
        if _YEAR_ONLY.fullmatch(span):
            year = _YEAR.search(span)
            born = _BIRTH_BEFORE.search(text, max(0, f.start - 30), f.start)
            return bool(year and born and _dt.date.today().year - int(year.group()) > 89)
        return True
    if f.entity_type == "LOCATION":
        return not state_or_country(span)
    return True
