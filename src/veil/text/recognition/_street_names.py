"""Street names written without a house number ("Elm Street", "on Walker Ridge"), a flat or
suite on its own ("Apt. 4B"), and NER people or places that are streets ("Walker
Crossing"): the parts of a postal address that :mod:`veil.text.recognition._address`'s grammar, which
needs a house number or a locality, does not read. Kept apart from that grammar: these are
word lists and cue rules, not a postal format.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._address import _NAMEWORD, _UP
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import (
    ContextMatcher,
    Pattern,
    PatternRecognizer,
    Recognizer,
    recognizers,
    scan,
)
from veil.text.recognition._street_address import StreetAddressRecognizer
from veil.text.vocab._lexicon import clinical_register, name_lexicon
from veil.text.vocab._street_words import _DIRECTION_ABBR

__all__ = ["LONE_UNIT", "HomeUnitRecognizer", "StreetNameRecognizer", "street_named"]


# Street names written without a house number ("lives on Walker Ridge", "the shop on Elm
# Street"). Types that name nothing but a road count alone; the other USPS and Commonwealth
# types ("Ridge", "Lane", "Court", "Lake") only right after a street preposition or with an
# address cue, since "Supreme Court", "Lois Lane" and "Silver Lake" are no streets. Types
# that are everyday words after a capitalised one ("Credit Union", "Fire Station", "Medical
# Center", "Central Park") need both a street preposition and an address cue before it; the
# abbreviations that are also titles, states and words ("Dr", "Is", "Pr") never count
# without a number. None of the types but a road's counts after "in", "from" or "the"
# ("lives in Cayman Islands", "the Hudson River"): those name places.
_ROAD_TYPES_TEXT = (
    "Street St Avenue Ave Road Rd Boulevard Blvd Parkway Pkwy Highway Hwy Expressway Expy "
    "Freeway Fwy Turnpike Tpke Terrace Streets Roads Parkways Stravenue Motorway Throughway "
    "Trafficway Skyway Underpass Overpass Mews"
)
_ROAD_TYPES = frozenset(_ROAD_TYPES_TEXT.split())
_ROAD_ABBR_TEXT = "St Ave Rd Blvd Pkwy Hwy Expy Fwy Tpke"
_ROAD_ABBR = frozenset(_ROAD_ABBR_TEXT.split())
# after "on", "off", "along" or an address cue
_CUED_TYPES_TEXT = (
    "Lane Drive Court Place Circle Crescent Way Alley Annex Arcade Bypass Byway Causeway "
    "Circles Corner Corners Courts Crossing Crossroad Drives Extension Passage Pathway Pike "
    "Trail Viaduct Walkway Wynd Ridge Ridges Crest Knoll Knolls Hollow Heights Meadow "
    "Meadows Glen Glens Dale Dell Haven Orchard Landing Garden Gardens Vista Cove Coves "
    "Brook Brooks Ferry Ford Ranch Bluff Bluffs Ln Ct Pl Cir Sq Trl Xing Hts Cres Ter "
    # USPS types that, after a street preposition, name a road more often than anything
    # else ("accident on Baker Locks", "the shop off Reed Junction")
    "Lock Locks Fork Forks Junction Junctions Estates Manor Manors Village Villages Views "
    "Ways Walks Trace Spur Spurs Rue Green Greens Mill Mills Forge Forges Square Squares "
    "Plaza Lodge Field Fields Flat Flats Burg Burgs Ville Grove Groves Pine Pines Dam Tunnel "
    "Bend Fords Radial Ramp Route Crossroads Extensions"
)
_CUED_TYPES = frozenset(_CUED_TYPES_TEXT.split())
# the short forms, whose full stop is their own ("Oak Ave.")
_SHORT_TEXT = "Ln Ct Pl Cir Sq Trl Xing Hts Cres Ter"
_ABBREVIATIONS = _ROAD_ABBR | frozenset(_SHORT_TEXT.split())
# names of nature as much as of streets ("on Silver Lake", "on Capitol Hill", "on Cayman
# Islands"): only with an address cue ("lives on Silver Lake")
_FEATURE_TYPES_TEXT = (
    "Lake Lakes Mountain Mountains River Valley Valleys Canyon Beach Creek Forest Harbor "
    "Harbors Bayou Prairie Shore Shores Inlet Rapids Shoal Shoals Stream Hill Hills Cliff "
    "Cliffs Rapid Island Islands Isle Key Keys Cape Mount Point Points Port Ports Plain "
    "Plains Springs Falls Bottom Neck Pass Fort"
)
_FEATURE_TYPES = frozenset(_FEATURE_TYPES_TEXT.split())
# USPS types that after "on" are as often a topic, a building or an event ("on Death Row",
# "on Arab Spring", "on Learning Curve", "on Executive Branch", "on Union Station", "on
# Creative Commons", "on Power Point"), and after a capitalised word everyday names
# ("Credit Union", "Medical Center", "Central Park"): only right after a street
# preposition that an address cue comes before ("lives on Ashley Run")
_BUSY_TYPES_TEXT = (
    "Row Run Path Track Loop Walk View Estate Curve Branch Divide Common Commons Summit "
    "Station Park Parks Center Centers Club Mall Union Unions Course Land Rest Mission "
    "Light Lights Well Wells Wall Camp Bridge Loaf Gateway Oval Trailer Fall Spring"
)
_BUSY_TYPES = frozenset(_BUSY_TYPES_TEXT.split())
# street types that are common English surnames, whether or not the name lists hold them
_SURNAME_TYPES_TEXT = (
    "Field Fields Green Greens Hill Hills Lane Mill Mills Ford Park Parks Wells Brook Brooks "
    "Grove Lodge Bridge Bridges"
)
_SURNAME_TYPES = frozenset(_SURNAME_TYPES_TEXT.split())
_NAME_TYPES = sorted(
    _ROAD_TYPES | _CUED_TYPES | _FEATURE_TYPES | _BUSY_TYPES, key=len, reverse=True
)
_STREET_NAME = lazy_compile(
    rf"(?<![\w'’.&-])(?P<name>(?:{_NAMEWORD}[ \t]+){{1,4}})"
    rf"(?P<type>{'|'.join(re.escape(t) for t in _NAME_TYPES)})\.?(?![\w'’&-])"
)
# words a street's name does not start with: the sentence's own ("On Elm Street", "Meet
# me on ..."), which the capitalised-word run takes in at the start of a sentence
_NOT_NAME_START_TEXT = (
    "the a an on at in from to near off along down up by of and or via past onto into "
    "across around behind beyond toward towards i we you he she they it my our your his "
    "her their its this that these those is was are were meet take turn drive walk go head "
    "left right north south east west"
)
_NOT_NAME_START = frozenset(_NOT_NAME_START_TEXT.split())
_STREET_PREPOSITION = lazy_compile(r"(?i:\b(?:on|off|along|onto|down|corner\s+of))[ \t]+$")
# "lives in Cayman Islands", "grew up in Den Burg": people live on a street, in a place
_PLACE_PREPOSITION = lazy_compile(r"(?i:\b(?:in|from))[ \t]+(?:the[ \t]+)?$")
# "the Cayman Islands", "the South Sandwich Islands", "the Hudson River": a road's name
# takes "the" ("the Pacific Coast Highway"), the other types' names do not
_THE = lazy_compile(r"(?i:\bthe)[ \t]+(?:(?:North|South|East|West|Upper|Lower)[ \t]+)?$")
_CAPITAL_AFTER = lazy_compile(rf"[ \t]+[{_UP}][a-z]")


# the types that, ending an NER place, make it a street rather than a district or a town
# ("Jackson Heights", "Sleepy Hollow" stay places)
_ROADISH_TEXT = (
    "Lane Drive Court Place Circle Way Alley Crossing Trail Crescent Passage Pathway Walkway "
    "Bypass Causeway Viaduct Wynd Ln Ct Pl Cir Trl Xing Cres Ter"
)
_ROADISH = _ROAD_TYPES | frozenset(_ROADISH_TEXT.split())


def street_named(span: str, entity: str) -> bool:
    """Whether an NER ``PERSON`` or ``LOCATION`` span is a street's name: capitalised words
    ending in a street type, which for a person is no known first or last name ("Walker
    Crossing", "Kevin Heights" read as people; not "Mary Lane" or "John Ridge", since Lane
    and Ridge are surnames too), and for a place a road's type ("Elm Street" read as a
    place; "Jackson Heights" stays one).

    Examples
    --------
    >>> street_named("Walker Crossing", "PERSON"), street_named("Mary Lane", "PERSON")
    (True, False)
    >>> street_named("Elm Street", "LOCATION"), street_named("Jackson Heights", "LOCATION")
    (True, False)
    """
    words = span.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return False
    kind = words[-1].rstrip(".")
    if entity == "LOCATION":
        return kind in _ROADISH
    if entity != "PERSON" or (kind not in _ROAD_TYPES and kind not in _CUED_TYPES):
        return False
    first, last = name_lexicon()
    return (
        kind not in _SURNAME_TYPES and kind.casefold() not in first and kind.casefold() not in last
    )


@recognizers.register("street_name")
class StreetNameRecognizer(Recognizer):
    """Street names without a house number: "Elm Street", "Ocean Avenue", "Nicole
    Parkways"; after "on", "off", "along", "onto", "down", "corner of" or an address cue,
    the other street types ("on Walker Ridge", "off Baker Locks", "at Hickory Lane" after
    "lives"); with an address cue only, the types that also name nature ("lives on Silver
    Lake"); with a street preposition after an address cue, the everyday ones ("lives on
    Ashley Run"). A given name before a type that is also a surname is a person ("counting
    on Mary Field") unless an address cue or a preposition that takes no person ("along",
    "off") comes before it.

    A name is one to four capitalised words before the type; sentence words that the
    capitalised run takes in at its start ("On", "Meet") are left out. A type followed by
    another capitalised word is part of a longer name ("Wall Street Journal", "Elm Street
    Bank") and is not reported. In a clinical note only the road types count. A street
    line with a number is the address recognizer's; the two merge by the overlap rule.

    Examples
    --------
    >>> r = StreetNameRecognizer()
    >>> text = "The bakery on Elm Street closed; she lives on Walker Ridge."
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['Elm Street', 'Walker Ridge']
    >>> r.analyze("The Supreme Court ruled.") + r.analyze("Read the Wall Street Journal.")
    []
    """

    entities = ("STREET_ADDRESS",)
    tier = 1
    score = 0.6
    context = StreetAddressRecognizer.context

    def __init__(self) -> None:
        # the cue comes before the street: in "Sandra Hill lives nearby" it follows a person
        self._context = ContextMatcher(self.context, after=0)

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        clinical: bool | None = None
        for m in scan(_STREET_NAME, text):
            kind = m.group("type")
            end = m.end()
            if text[end - 1] == "." and kind not in _ABBREVIATIONS:
                end -= 1  # "on Walker Ridge.", "on Abbey Way.": the sentence's full stop
            if _CAPITAL_AFTER.match(text, end):
                continue  # "Wall Street Journal", "Elm Street Bank"
            words = list(re.finditer(r"\S+", m.group("name")))
            skip = 0
            while skip < len(words) and words[skip].group().lower() in _NOT_NAME_START:
                skip += 1
            if skip == len(words):
                continue  # "On Street", "The Avenue": no name
            named = [w.group() for w in words[skip:]]
            if all(w.rstrip(".") in _DIRECTION_ABBR for w in named):
                continue  # "N St"
            start = m.start("name") + words[skip].start()
            if kind in _ROAD_TYPES:
                cue: tuple[str, ...] = ()
            else:
                if clinical is None:
                    clinical = clinical_register(text)
                if clinical:
                    continue  # "Heart Lake", "Rehab Court": a note's wards and units
                if _PLACE_PREPOSITION.search(text, max(0, start - 12), start) or _THE.search(
                    text, max(0, start - 16), start
                ):
                    continue  # a place's or nature's name, which the place recognizers read
                prep = _STREET_PREPOSITION.search(text, max(0, start - 16), start)
                cue = self._context.find(text, start, end)
                if (
                    len(named) == 1
                    and named[0].casefold() in name_lexicon()[0]
                    and (
                        prep is None
                        or (
                            not cue
                            and (
                                kind not in _CUED_TYPES
                                or (
                                    prep.group().split()[0].lower() == "on"
                                    and (
                                        kind in _SURNAME_TYPES
                                        or kind.casefold() in name_lexicon()[1]
                                    )
                                )
                            )
                        )
                    )
                ):
                    # "Sandra Hill", "Mary Field": a given name and a surname that is also
                    # a street's type is a person's name without an address cue before it
                    # ("lives on Byrd Rapids"), unless a street preposition that takes no
                    # person says otherwise ("off Mary Field", "along Susan Brook"; not
                    # "counting on Mary Field")
                    continue
                if kind in _BUSY_TYPES and prep is None:
                    continue  # "near the Medical Center" after "lives in Leeds"
                if not cue and kind in _CUED_TYPES and prep is not None:
                    cue = (prep.group().strip().lower(),)
                if not cue:
                    continue
            score = min(1.0, self.score + 0.35) if cue else self.score
            out.append(
                Finding(
                    start,
                    end,
                    "STREET_ADDRESS",
                    score,
                    self.name,
                    self.tier,
                    Explanation(
                        self.name,
                        "street_name_cued" if cue else "street_name",
                        self.score,
                        score,
                        cue,
                    ),
                )
            )
        return out


# a home's unit: "Apt. 4B", "Suite 210", "Apartment #12"
_HOME_UNIT = r"(?:Apt|Apartment|Suite|Ste|Flat)\.?[ \t]*#?[ \t]*\d{1,5}[A-Za-z]?"
LONE_UNIT = lazy_compile(_HOME_UNIT)


@recognizers.register("home_unit")
class HomeUnitRecognizer(PatternRecognizer):
    """A flat or suite on its own ("Apt. 4B", "Suite 210", "Apartment #12"), part of a
    postal address wherever it is written; inside a full address it merges into the
    address span. "Unit", "Room" and "Floor" alone are not reported: they are a hospital's
    wards and a building's storeys as often as a home."""

    entity = "STREET_ADDRESS"
    tier = 1
    needs_digit = True
    patterns = (
        Pattern(
            "home_unit",
            rf"(?<![\w#.-]){_HOME_UNIT}(?![\w/-]|[.,]\d)",
            0.5,
        ),
    )
    context = StreetAddressRecognizer.context
