"""Postal addresses: one span from the street line to the postcode (the US state and ZIP
code recognizers that read a locality without a street are in ``_postcodes``).

A postal address is reported as **one** ``STREET_ADDRESS`` span when a street line is
followed (after a comma, a space or a line break) by its locality: that way a surrogate
replaces it with one coherent fake address, and the span is what other tools call an
address (presidio-research's ``ADDRESS``, i2b2's). Street lines, by family:

* number first, English (USPS Publication 28; Royal Mail; Canada Post; Australia Post
  AS 4590): ``123 N Main St Apt 4B``, ``221B Baker Street``, ``5/12 Smith Street``,
  ``Unit 5/12 Smith Street``, ``Flat 3, 12 High Street``, ``PO Box 1234``, and the US
  military ``PSC 1234, Box 5678``;
* street word in the name, number after (German, Dutch): ``Hauptstraße 12``,
  ``Goethestr. 5``, ``Berliner Straße 8/2``, ``Keizersgracht 123``;
* street type first, number after (Italian, Spanish, Portuguese): ``Via Roma, 10``,
  ``Calle de Alcalá 45``, ``Rua Augusta, 100``;
* number first, French street type: ``12, rue de la Paix``, ``5 bis avenue Foch``; or the
  number after the name, as in Switzerland and Belgium: ``rue de Lausanne 12``; Quebec's
  types too (``montée``, ``rang``, ``côte``);
* Nordic street words, joined (``Drottninggatan 53``, ``Vesterbrogade 12``,
  ``Aleksanterinkatu 52``) or apart after a name in the genitive (``Karl Johans gate 22``);
  Norwegian landscape nouns in their definite form (``Solåsen 4B``, ``Tåsenløkka 12``);
  with an adjective written apart before them (``Gammel Kongevej 43``);
  Flemish ``-lei``;
* type first in Portuguese, Brazilian, Mexican and Polish (``Rua Augusta, 100``, ``Calzada
  de Tlalpan 1234``, ``ul. Marszałkowska 84/92``);
* India Post's house number apart (``H.No. 12``, ``45/145``), then the street or locality
  with its word (``MG Road``, ``Rout Nagar``), only before a city and PIN;
* Czech and Slovak streets, which have no type word (``Nad Rokytkou 709``), with their
  ``NNN NN`` postcode when the name carries a diacritic, opens with a preposition or ends
  as a Czech adjective does; without it only in a Czech shape (``Hasičská 977/12``, with
  the land-register and street number pair; ``Na Šafránce 9`` after an address cue).

A unit ("Apt 4B", "Suite 210", "Flat 3", "Unit 5", "#12", "Piso 3") may come before or
after. Lines may open with the quote marks of an e-mail reply ("> ", ">> "): an address
quoted in a reply is still one span. Localities, each anchored by something a closed list or a grammar checks:

* city + US state, Canadian province or Australian state (code or name) + ZIP code
  (``02139``, ``02139-4307``), Canadian postal code (``K1A 0B1``: Canada Post's letters) or
  Australian postcode (4 digits), each only with a region of its country;
* town (and county) + UK postcode by the Royal Mail grammar (``SW1A 1AA``, ``M1 1AE``);
* postcode first, continental Europe (4 or 5 digits, Dutch ``1234 AB``, Swedish and Czech
  ``111 21``, Polish ``00-514``, Portuguese ``1100-053``) + city, only after a continental
  street line; Brazil's neighbourhood line, CEP, city and state; US military ``APO AE
  09012``;
* city + Mexican state code + código postal (``Monterrey, NL 64000``);
* Indian city + PIN (``Pune 411001``, ``Agra-282001``);
* New Zealand town + 4-digit postcode on its own line (after ``RD 7``, which a lone line
  keeps too), and Irish town and county lines ending in an Eircode (``D02 X285``), after an
  English street line.

A lone street line is still a ``STREET_ADDRESS``; "Boston, MA 02139" without a street stays
a ``LOCATION`` and a ``ZIP_CODE`` (a state may be kept under HIPAA Safe Harbor, a city and
ZIP may not: separate types let a policy tell them apart). Street words that are also
common English words or word endings ("Ronde", "Ring", "-hof", "Via", "Place" before a
name) make a lone line only with a house number and either a unit ("Camino de Eliana
Montero 35 Piso 5") or an address cue nearby ("lives at 8 Mitchell Ronde", "Address: Via
Graziella, 176"), never in a clinical note, and the English ones only as the name's last
word and not the commonest ("PICC Line", "Heart Block"); otherwise only in a full address.
A home's unit on a line of its own before the street ("Flat 4, Summers Orchard", Royal
Mail's layout) stands for the house number. Every pattern is linear by construction:
bounded word counts, disjoint separators, no nested unbounded repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veil._lazy import lazy_compile
from veil.text.recognition._recognizer import (
    scan,
)
from veil.text.vocab._lexicon import (
    UPPER_LATIN,
    common_words,
    name_lexicon,
    word_set,
)
from veil.text.vocab._street_words import (
    _AU_STATES,
    _CA_PROVINCES,
    _DIRECTION_ABBR,
    _EN_PROSE,
    _EN_STRONG,
    _EN_WEAKS,
    _FRENCH,
    _FRENCH_LOWER,
    _GERMANIC,
    _GERMANIC_FULL,
    _GERMANIC_WEAK,
    _MX_STATES,
    _ROMANCE,
    _ROMANCE_WEAK,
    _STATE_NAMES,
    _STATES,
)

__all__: list[str] = []  # the grammar; the recognizer is in _street_address

_UP = UPPER_LATIN  # upper-case Latin letters ("Łódź", "Žinkovská")
# a capitalised word: "Main", "O'Neil", "St.", "Saint-Denis", "Evelyne-Flantz-Weg"
_WORD = rf"[{_UP}][\w'’.-]*"
_NAMEWORD = rf"(?:{_WORD}|\d{{1,3}}(?:st|nd|rd|th)\b)"  # "5th Avenue"
_NUM = r"\d{1,6}[A-Za-z]?(?:[-/]\d{1,6}[A-Za-z]?)?"  # 12, 221B, 12-14, 5/12 (unit/house)
_UNIT_WORDS = (
    r"(?:Apt|Apartment|Flat|Unit|Suite|Ste|Studio|Level|Floor|Fl|Room|Rm|Shop|Lot|Bldg|"
    r"Building|Piso|Puerta|Piano|Appartamento|Interno|Scala|Edif|Edificio|Depto|"
    r"Departamento|Interior|Int|Local|Mz|Manzana|Lote)"
)
_UNIT = (
    rf"(?:{_UNIT_WORDS}\.?[ \t]*#?[ \t]*(?:\d{{1,5}}(?:-\d{{1,5}})?[A-Za-z]?|[A-Za-z]-?\d{{0,4}})"
    r"|#[ \t]?\d{1,5}[A-Za-z]?)(?![\w])"
)
# a line break, and the quote marks of an e-mail reply that open the next line ("\n> > ")
_LINE_BREAK = r"[ \t]*\r?\n(?:[ \t]*>)*+[ \t]*"
_SEP = rf"(?:[ \t]*,[ \t]*(?:\r?\n[ \t]*)?|{_LINE_BREAK}|[ \t]+)"  # ", " / newline / space

_PARTICLE = (
    r"(?:de|del|della|dello|dei|degli|delle|di|da|do|dos|das|du|des|la|le|les|el|los|las|y|e|et|"
    r"sur|aux?|en|i)"
)
_ELIDED = rf"(?!{_UNIT_WORDS}\b)(?:[dlDL]['’])?[{_UP}][\w'’.-]*"  # "d'Alsace", "l'Église"
_RNAME = rf"(?:(?:{_PARTICLE}|{_ELIDED})[ \t]+){{0,5}}{_ELIDED}"

_EN_LINE = lazy_compile(
    rf"(?<![\w/#.-])(?=\d|#|{_UNIT_WORDS})"
    # a unit, then a comma, a space, a line break or Australia's slash ("Unit 3/12 Smith St")
    rf"(?:(?P<unit>{_UNIT})(?:,?(?:{_LINE_BREAK}|[ \t]+)|[ \t]*/[ \t]*(?=\d)))?"
    # the house number, with a comma after it as some write it ("12, High Street"): such a
    # line counts only with its locality ("In 2019, Main Street was closed" has none)
    rf"(?:(?P<num>{_NUM})(?P<comma>[ \t]*,)?[ \t]+)?"
    rf"(?P<words>(?:{_NAMEWORD}[ \t]+){{0,5}}{_NAMEWORD})"
)
_PO_BOX = lazy_compile(r"(?<![\w])P\.?[ \t]?O\.?[ \t]+Box[ \t]+\d{1,6}(?![\w])", re.IGNORECASE)
_MILITARY = lazy_compile(
    rf"(?<![\w])(?:(?:PSC|CMR|Unit)[ \t]+\d{{1,5}},?[ \t]+Box[ \t]+\d{{1,5}}|(?:USNS|USNV|USS|USCGC)[ \t]+{_WORD})"
)
_GERMANIC_LINE = lazy_compile(rf"(?<![\w/#.-])(?P<street>{_WORD})[ \t]+(?P<num>{_NUM})(?![\w])")
_ROMANCE_LINE = lazy_compile(
    rf"(?<![\w])(?P<type>{'|'.join(re.escape(t) for t in sorted({**_ROMANCE, **_ROMANCE_WEAK}, key=len, reverse=True))})"
    rf"[ \t]+(?P<name>{_RNAME})(?:[ \t]*,[ \t]*|[ \t]+)"
    rf"(?P<num>\d{{1,4}}[A-Za-z]?(?:/\d{{1,4}}[A-Za-z]?)?|[sS]/[nN])(?![\w])"
)
_FRENCH_LINE = lazy_compile(
    rf"(?<![\w/#.,-])(?:(?P<num>\d{{1,5}}[A-Za-z]?(?:[ \t]+(?:bis|ter|quater))?),?[ \t]+)?"
    rf"(?P<type>(?i:{'|'.join(re.escape(t) for t in (*_FRENCH, *_FRENCH_LOWER))}))"
    rf"[ \t]+(?P<name>{_RNAME})"
    rf"(?:[ \t]*,?[ \t]+(?P<num2>\d{{1,4}}[A-Za-z]?)(?![\w]))?"
)
# postcodes whose format alone is distinctive: Brazil 01310-100, Portugal 1100-148, Czechia,
# Slovakia and Sweden 110 00, Poland 00-950
_EU_PC_DISTINCT = r"\d{5}-\d{3}|\d{4}-\d{3}|\d{3}[ \t]\d{2}|\d{2}-\d{3}"
_GENERIC_PC = r"\d{5}-\d{3}|\d{4}-\d{3}|\d{3}[ \t]\d{2}"  # after a street without a type word
# a street word written apart, after a name in the genitive: Norwegian "Karl Johans gate 22",
# Finnish "Adolf Lindforsin tie 4", Danish "Valby Langgade" style names, Czech "Václavské
# náměstí 68"
# (a lone line counts, country)
_NORDIC_APART = {
    "gate": (False, "NO"), "gata": (True, "NO"), "vei": (True, "NO"), "veg": (True, "NO"),
    "veien": (True, "NO"), "vegen": (True, "NO"), "plass": (True, "NO"),
    "tie": (False, "FI"), "katu": (True, "FI"), "polku": (True, "FI"), "kuja": (True, "FI"),
    "vej": (True, "DK"), "gade": (True, "DK"), "plads": (True, "DK"), "torv": (False, "DK"),
    "stræde": (True, "DK"), "bakke": (False, "DK"),
}  # fmt: skip
_NORDIC_APART_LINE = lazy_compile(
    rf"(?<![\w/#.,-])(?P<name>{_WORD}(?:[ \t]+{_WORD}){{0,2}})[ \t]+"
    rf"(?P<type>{'|'.join(_NORDIC_APART)})[ \t]+(?P<num>{_NUM})(?![\w])"
)
_NORDIC_MARK = lazy_compile(rf"[ \t](?:{'|'.join(_NORDIC_APART)})[ \t]+\d")
# a superset of _GENERIC_PC, one branch, and of the Brazilian tail's CEP without its hyphen
_GENERIC_MARK = lazy_compile(r"\d\d\d[ \t-]\d\d|\d{8}")
_GENERIC_LINE = lazy_compile(
    rf"(?<![\w/#.,-])(?P<name>{_WORD}(?:[ \t]+(?:{_PARTICLE}|pod|nad|na|u|v|náměstí|třída|"
    rf"nábřeží|ulice|{_WORD})){{0,3}})"
    rf"[ \t]+(?P<num>\d{{1,4}}[A-Za-z]?(?:/\d{{1,4}}[A-Za-z]?)?)(?![\w])"
)
# words that number things in documents ("Table 3", "Room 12"), not streets
_NOT_STREETS_TEXT = (
    "Table Figure Fig Chapter Section Page Version Room Step Item Line Row Column Level Grade "
    "Stage Phase Part Volume Vol Issue No Case Patient Bed Test Lot Batch Model Series Type "
    "Class Group Unit Floor Ward Box Slide Sample Appendix Exhibit Note Week Day Year Dose "
    "Cycle Visit Lane Gate Platform Terminal Seat Run Round Set Lesson Module"
)
_NOT_STREETS = frozenset(_NOT_STREETS_TEXT.split())
# Czech street names without diacritics mostly open with a preposition ("Nad Rokytkou")
_CZ_OPENERS_TEXT = "Nad Pod Na U V K Za Mezi Před Při Ke Ve Ku"
_CZ_OPENERS = frozenset(_CZ_OPENERS_TEXT.split())
# a Czech street line with no postcode after it, in the two forms Czech streets are named
# in: a preposition and its noun ("Na Šafránce 9", "Za Pivovarem 17"), or one adjective or
# possessive agreeing with the unwritten "ulice" ("Hasičská 977", "Havlíčkova 403/12",
# "Vstupní 26"); "977/12" is the Czech land-register and street number pair
_CZ_ENDINGS = r"(?:ská|cká|ské|cké|ní|ná|ova|ovo|ina|ého)"
_CZ_ENDING = lazy_compile(rf"{_CZ_ENDINGS}$")
_CZ_LONE_LINE = lazy_compile(
    rf"(?<![\w/#.,-])(?P<name>(?:{'|'.join(sorted(_CZ_OPENERS, key=len, reverse=True))})"
    rf"[ \t]+{_WORD}(?:[ \t]+{_WORD})?|[{_UP}]\w*{_CZ_ENDINGS})"
    rf"[ \t]+(?P<num>\d{{1,4}}[a-z]?(?P<orient>/\d{{1,4}}[a-z]?)?)(?![\w])"
)
_BARE_INTERIOR = lazy_compile(r"[ \t]+\d{1,4}[A-Za-z]?(?![\w])")  # Mexico: "Juárez 834 701"
# New Zealand Post: a rural delivery number on the line after the street ("RD 7")
_RD_AFTER = lazy_compile(rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK})RD[ \t]+\d{{1,2}}(?![\w])")
# India Post: the house number ("H.No. 12", "45/145") stands apart, after it the street or
# locality with its word; only before a PIN (_IN_TAIL): "12, Station Road" alone is prose
_IN_TYPES_TEXT = (
    "Road Rd Street St Lane Path Circle Cross Main Marg Nagar Chowk Ganj Gali Colony Layout "
    "Bazaar Bazar Salai Enclave Vihar Bagh Peth"
)
_IN_LINE = lazy_compile(
    r"(?<![\w/#.,-])(?:(?:H\.[ \t]?No\.|House[ \t]+No\.?|Flat[ \t]+No\.?)[ \t]*)?"
    rf"\d{{1,4}}[A-Za-z]?(?:/\d{{1,4}})?(?:[ \t]*,[ \t]*|{_LINE_BREAK})"
    rf"(?:{_WORD}[ \t]+){{1,3}}(?:{'|'.join(_IN_TYPES_TEXT.split())})\.?(?![\w])"
)
_HOME_UNIT = lazy_compile(r"(?:Apt|Apartment|Flat|Unit|Suite|Ste|Studio)\b")
_UNIT_BREAK = lazy_compile(rf"[ \t]*,[ \t]*|{_LINE_BREAK}")  # the unit's own line or clause
_UNIT_AFTER = lazy_compile(rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)(?:{_UNIT})")
_DIRECTION_AFTER = lazy_compile(r"[ \t]+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?")
_BEFORE_WORD = lazy_compile(rf"({_WORD})[ \t]+$")
# the English words a Danish "-gade" ends ("Fire Brigade 2")
_NOT_GERMANIC = frozenset(["brigade", "renegade"])
# adjectives that open Nordic street names, written apart: "Store Kannikevej", "Lille
# Farimagsgade", "Ny Adelgade", "Gammel Kongevej", "Nørre Allé", "Stora Nygatan"
_NORDIC_ADJ_TEXT = (
    "Store Lille Gammel Gamle Ny Nye Nørre Søndre Vester Vestre Øster Østre Nordre Øvre "
    "Nedre Stora Lilla Gamla Norra Södra Östra Västra Sankt Skt."
)
_NORDIC_ADJ = lazy_compile(
    rf"(?<![\w.])(?:{'|'.join(map(re.escape, _NORDIC_ADJ_TEXT.split()))})[ \t]+$"
)

# --- localities ---------------------------------------------------------------------------
_REGIONS: dict[str, str] = {}
for _names, _country in (
    (_MX_STATES, "MX"),
    (_AU_STATES, "AU"),
    (_CA_PROVINCES, "CA"),
    (_STATE_NAMES, "US"),
):
    _REGIONS.update(dict.fromkeys(_names.split("|"), _country))
_REGIONS.update(dict.fromkeys([*_STATES, "FM", "MH", "PW"], "US"))  # USPS codes, territories
# codes two countries use
_AU_TOO = {
    "WA": ("US", "AU"), "SA": ("AU",), "NT": ("CA", "AU"), "BC": ("CA", "MX"), "NL": ("CA", "MX"),
}  # fmt: skip
_REGION_RE = "|".join(re.escape(r) for r in sorted(_REGIONS, key=len, reverse=True))
# What every address holds, one of: a digit; "s/n" (sem número, sin número: "Rua Cruz,
# S/N"); a unit with a letter ("Flat B, Summers Orchard"); or, for a street line without a
# number before its town, a region after a comma ("Rue Royale, New Orleans, LA"). A text
# with none of them is not scanned.
_GATE = lazy_compile(
    rf"\d|[sS]/[nN]|{_UNIT_WORDS}\.?[ \t]*#?[ \t]*[A-Za-z]-?(?![\w])"
    rf"|,[ \t]*(?:{_REGION_RE})(?![\w])"
)
_CA_PC = r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t-]?\d[ABCEGHJ-NPRSTV-Z]\d"
# Royal Mail: outward code A9, A99, A9A, AA9, AA99, AA9A (letters restricted by position),
# a space, inward code 9AA (no C, I, K, M, O, V); GIR 0AA
_UK_PC = (
    r"(?:GIR ?0AA|[A-PR-UWYZ](?:\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d{1,2}|[A-HK-Y]\d[ABEHMNPRVWXY])"
    r" ?\d[ABD-HJLNP-UW-Z]{2})"
)
# lower-case words inside a city name ("Frankfurt am Main", "Jablonné v Podještědí"); not
# "on", "of" or "in", which more often begin the sentence's next phrase ("... on Monday")
_CPART = (
    r"(?:am|an|der|den|im|vorm|vor|bei|ob|upon|sur|sous|en|de|la|le|les|del|di|du|des|aan|op|bij|"
    r"pod|nad|u|v|da|do|dos|das|los|las|el)"
)
_CWORD = rf"(?:['’][st][ -]?)?[{_UP}][\w'’.]*(?:[-/][\w'’.]+)*"  # "'s-Gravenzande", "Biel/Bienne"
_NL_LETTERS = r"[ \t]?[A-Z]{2}(?![\w])"  # "1234 AB": the letters belong to the postcode
_CITY = (
    rf"{_CWORD}(?:[ \t]+(?:{_CPART}[ \t]+){{0,2}}{_CWORD}){{0,4}}"
    rf"(?:[ \t]*\([{_UP}][\w'’. -]{{0,30}}\)){{0,2}}"  # "Halle (Saale)", "Comina (La) (PN)"
)
# city, region and postcode on one line ("Dayton, OH 45402") or on lines of their own, as
# an envelope's block may set them ("DAYTON\nOH 45402", "Springfield\nIllinois\n62704")
_REGION_TAIL = lazy_compile(
    rf"{_SEP}(?P<city>{_CITY})(?P<rsep>[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)"
    rf"(?P<region>{_REGION_RE})(?![\w])"
    rf"(?:(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)(?P<pc>\d{{5}}(?:-\d{{4}})?|\d{{4}}|{_CA_PC}))?"
    r"(?![\w-])"
)
_LINE_END = lazy_compile(r"[ \t]*(?:\r?\n|$)")
_UK_TAIL = lazy_compile(rf"{_SEP}(?:{_CITY}{_SEP}(?:{_CITY}{_SEP})?)?{_UK_PC}(?![\w])")
_BR_STATES = "AC|AL|AM|AP|BA|CE|DF|ES|GO|MA|MG|MS|MT|PA|PB|PE|PI|PR|RJ|RN|RO|RR|RS|SC|SE|SP|TO"
# Brazil (Correios): street, number / neighbourhood / CEP city / state
# a neighbourhood may be numbered by section: "Vila Santa Mônica 2ª Seção"
_BAIRRO = rf"{_CITY}(?:[ \t]+\d{{1,2}}[ªº](?:[ \t]+{_CWORD})?)?"
_BR_TAIL = lazy_compile(
    rf"{_SEP}(?:{_BAIRRO}(?:[ \t]*,[ \t]*|{_LINE_BREAK}))?(?:\d{{5}}-?\d{{3}})[ \t]+{_CITY}"
    rf"(?:[ \t]*[/-][ \t]*(?:{_BR_STATES})(?![\w]))?"
)
_DISTINCT_TAIL = lazy_compile(
    rf"{_SEP}(?P<pc>{_GENERIC_PC})(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+){_CITY}"
    r"(?:[ \t]+\d{1,2}(?![\w.,]\d))?"  # a city district: "Praha 1"
)
_EU_TAIL = lazy_compile(
    rf"{_SEP}(?P<pc>{_EU_PC_DISTINCT}|(?:[A-Z]{{1,2}}-)?\d{{5}}|\d{{4}}{_NL_LETTERS}|\d{{4}}(?!{_NL_LETTERS}))(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)"
    rf"{_CITY}(?:[ \t]+CEDEX(?:[ \t]+\d{{1,2}})?)?"
    rf"|{_SEP}{_CITY}[ \t]*,[ \t]*\d{{5}}(?![\w-])"  # "Madrid, 28013", as some forms write it
)
# New Zealand Post: town and 4-digit postcode on their own line, after an optional rural
# delivery line ("RD 7")
_NZ_TAIL = lazy_compile(
    rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK})(?:RD[ \t]+\d{{1,2}}(?:[ \t]*,[ \t]*|{_LINE_BREAK}))?"
    rf"{_CITY}[ \t]+\d{{4}}(?![\w-])"
)
# Ireland: town (and county) lines, then the Eircode (routing key + unique identifier)
_EIRCODE = r"(?:[AC-FHKNPRTV-Y]\d{2}|D6W)[ \t]?[0-9AC-FHKNPRTV-Y]{4}"
_IE_TAIL = lazy_compile(
    rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK})(?:{_CITY}(?:[ \t]+\d{{1,2}})?(?:[ \t]*,[ \t]*|{_LINE_BREAK})){{0,2}}"
    rf"{_EIRCODE}(?![\w])"
)
# India Post: city and 6-digit PIN (zones 1 to 8; 9 is the Army Postal Service), after a
# hyphen or a space: "Pune 411001", "Agra-282001", "Agra - 282 001"
_IN_TAIL = lazy_compile(
    rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK}){_CITY}(?:[ \t]*-[ \t]*|[ \t]+)[1-8]\d{{2}}[ \t]?\d{{3}}"
    r"(?![\w-])"
)
_MILITARY_TAIL = lazy_compile(
    rf"{_SEP}(?:APO|FPO|DPO)[ \t]+(?:AA|AE|AP)[ \t]+\d{{5}}(?:-\d{{4}})?(?![\w-])"
)
_COUNTRY_TAIL = lazy_compile(
    rf"{_SEP}(?:USA|U\.S\.A\.|United States(?: of America)?|Canada|United Kingdom|UK|U\.K\.|"
    r"England|Scotland|Wales|Northern Ireland|Australia|Germany|Deutschland|France|Italy|Italia|"
    r"Spain|España|Netherlands|The Netherlands|Nederland|Austria|Österreich|Switzerland|"
    r"Schweiz|Suisse|Belgium|Belgique|Portugal|Ireland)(?![\w])"
)
# an envelope's town on a line of its own, then the country's line: "Rua Augusta 100\nLisboa\n
# Portugal"; a city-state's postcode may follow its name ("Singapore 238859")
_TOWN_COUNTRY_TAIL = lazy_compile(
    rf"{_LINE_BREAK}(?P<town>{_CITY}){_LINE_BREAK}(?P<country>{_CITY})"
    r"(?:[ \t]+\d{4,6})?(?=[ \t]*(?:\r?\n|$))"
)
_PC_COUNTRY = (
    (lazy_compile(r"\d{5}(?:-\d{4})?"), "US"),
    (lazy_compile(r"\d{4}"), "AU"),
    (lazy_compile(_CA_PC), "CA"),
    (lazy_compile(r"\d{5}(?:-\d{4})?"), "MX"),
)


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    family: str  # "en", "germanic", "romance", "french", "military", "generic", "indian"
    strong: bool  # a lone line counts (no everyday-word street type, a house number)
    country: str | None
    numbered: bool = True  # it carries a house number
    unit: bool = False  # a unit ("Flat 3", "Apt 4B") comes before it
    needs_locality: bool = False  # counts only with a locality after it


@dataclass(frozen=True, slots=True)
class _Address:
    start: int
    end: int
    pattern: str
    composite: bool
    country: str | None
    weak: bool = False  # a lone line with an everyday street word: needs an address cue


def _en_line(text: str, m: re.Match[str]) -> _Line | None:
    if not (m.group("unit") or m.group("num")):
        return None
    unit_text = m.group("unit")
    slash = unit_text is not None and "/" in text[m.end("unit") : m.start("words")]
    if slash and _HOME_UNIT.match(unit_text) is None:
        return None  # "Room 3/4": only a home's unit takes Australia's slash
    words = list(re.finditer(r"\S+", m.group("words")))
    best = None
    for i, w in enumerate(words):
        token = w.group(0)
        bare = token.rstrip(".")
        named = not all(x.group(0).rstrip(".") in _DIRECTION_ABBR for x in words[:i])
        if i >= 1 and named and (bare in _EN_STRONG or bare in _EN_WEAKS):
            best = (i, bare in _EN_STRONG)
    if best is None:
        return None
    i, strong = best
    end = m.start("words") + words[i].end()
    d = _DIRECTION_AFTER.match(text, end)
    if d and not (d.end() < len(text) and text[d.end()].isalnum()):
        end = d.end()
    # a house number; an everyday street word must end the name ("2 Big Little Lies" is not
    # "2 Big Little")
    numbered = m.group("num") is not None and (
        strong or (i == len(words) - 1 and words[i].group(0) not in _EN_PROSE)
    )
    unit = unit_text is not None
    # a house number, and not only a unit in front ("Floor 2 Nurse Station"); or a home's
    # unit on a line of its own ("Flat 4, Summers Orchard": the Royal Mail layout)
    home = (
        unit
        and not numbered
        and _HOME_UNIT.match(unit_text) is not None
        and _UNIT_BREAK.match(text, m.end("unit")) is not None
    )
    comma = m.group("comma") is not None
    if comma and re.fullmatch(r"1[89]\d\d|20\d\d", m.group("num")):
        return None  # "In 2019, Main Street, Boston, MA 02139 was sold": a year
    return _Line(m.start(), end, "en", strong and (numbered or home), None, numbered, unit, comma)


# (table, a lone line counts, a lone line may count with a cue, lengths of its words)
_GERMANIC_TABLES = tuple(
    (table, strong, lone, sorted({len(w) for w in table}, reverse=True))
    for table, strong, lone in (
        (_GERMANIC, True, True),
        (_GERMANIC_WEAK, False, True),
        (_GERMANIC_FULL, False, False),
    )
)


# lower-case name particles before a street named after a person ("van der Dussenring"),
# and the given name joined to them ("Nermin-van der Dussen-Ring")
_STREET_PARTICLES = lazy_compile(
    rf"(?<![\w'’.-])(?:[{_UP}][\w'’]*-)?(?:van|von|de|ter|ten)(?:[ \t]+(?:der|den|de))?[ \t]+$"
)


_GIVEN_APART = lazy_compile(
    rf"(?<![\w'’.-])((?:[{_UP}][a-zß-ÿ]+(?:-[{_UP}][a-zß-ÿ]+)?[ \t]){{1,2}})$"
)


def _given_before(text: str, start: int) -> int | None:
    """Where the given names written apart before a street named after a person start
    ("Karl Heinz-Zirme-Ring": each a known given name; "Louise-Jacobi Jäckel-Ring": a
    given name joined to the first word of a surname written in two), or ``None``."""
    g = _GIVEN_APART.search(text, max(0, start - 40), start)
    if g is None:
        return None
    first, last = name_lexicon()
    words = g.group(1).split()

    def known(word: str) -> bool:
        given, *rest = word.casefold().split("-")
        return given in first and all(r in first or r in last for r in rest)

    begin = None  # the longest run of known given names that ends at the street's name
    for k in range(len(words) - 1, -1, -1):
        if not known(words[k]):
            break
        begin = k
    if begin is None:
        return None
    return start - len(" ".join(words[begin:])) - 1


def _germanic_line(text: str, m: re.Match[str]) -> _Line | None:
    token = m.group("street")
    low = token.casefold()
    if low in _NOT_GERMANIC:
        return None
    for table, strong, lone, lengths in _GERMANIC_TABLES:
        for n in lengths:  # the longest street word the token ends with
            word = low[-n:]
            country = table.get(word) if len(low) >= n else None
            if country is not None:
                start = m.start()
                if len(low) == len(word):  # "Straße" alone: with its adjective ("Berliner")
                    b = _BEFORE_WORD.search(text, max(0, start - 40), start)
                    if b is None:
                        return None
                    start = b.start(1)
                elif not token[-len(word) - 1].isalpha() and token[-len(word) - 1] != "-":
                    return None
                elif a := _NORDIC_ADJ.search(text, max(0, start - 10), start):
                    start = a.start()
                elif p := _STREET_PARTICLES.search(text, max(0, start - 40), start):
                    start = p.start()  # "van der Dussenring 2-3": a surname's particles
                elif "-" in token[: -len(word)] and (g := _given_before(text, start)):
                    start = g  # "Karl Heinz-Zirme-Ring 70": the person's given names apart
                # a compound on a word of its own ("Kikihof", not "During" or "Keypad"):
                # what a lone line with an everyday street word needs
                stem = low[: -len(word)].rstrip("-")
                numbered = strong or (lone and len(stem) >= 3 and low not in common_words())
                return _Line(start, m.end(), "germanic", strong, country, numbered)
    return None


def _candidates(text: str) -> list[_Line]:
    lines: list[_Line] = []
    pos = 0
    while (m := _EN_LINE.search(text, pos)) is not None:
        line = _en_line(text, m)
        if line is None:
            pos = m.start() + 1
            continue
        lines.append(line)
        pos = line.end
    lines += [_Line(m.start(), m.end(), "en", True, None) for m in scan(_PO_BOX, text)]
    lines += [
        _Line(m.start(), m.end(), "military", False, "US", numbered=False)
        for m in scan(_MILITARY, text)
    ]
    for m in scan(_GERMANIC_LINE, text):
        if (g := _germanic_line(text, m)) is not None:
            lines.append(g)
    for m in scan(_ROMANCE_LINE, text):
        t = m.group("type")
        country = _ROMANCE.get(t) or _ROMANCE_WEAK[t]
        numbered = m.group("num")[0].isdigit()  # not "s/n" (sin número)
        lines.append(_Line(m.start(), m.end(), "romance", t in _ROMANCE, country, numbered))
    for m in scan(_FRENCH_LINE, text):
        t = m.group("type")
        # "Boulevard X 12" may be English; "rue X 12", "Rue X 12" are not
        strong = t.islower() or (
            t.casefold() in _FRENCH
            and (m.group("num") is not None or t.casefold() not in ("boulevard", "bd"))
        )
        strong = strong and (m.group("num") is not None or m.group("num2") is not None)
        # a number before the type is the house number; one after it then is a postcode
        end = m.end("name") if m.group("num") is not None else m.end()
        numbered = m.group("num") is not None or m.group("num2") is not None
        lines.append(_Line(m.start(), end, "french", strong, "FR", numbered))
    for m in scan(_IN_LINE, text) if _IN_MARK.search(text) else ():
        # a number after a capitalised word counts something ("Table 3, Ring Road")
        if m.group(0)[0].isdigit() and _BEFORE_WORD.search(text, max(0, m.start() - 40), m.start()):
            continue
        lines.append(_Line(m.start(), m.end(), "indian", False, "IN", numbered=False))
    # the two rarer families are searched only when their cheap marker is in the text
    nordic = _NORDIC_MARK.search(text) is not None
    for m in _NORDIC_APART_LINE.finditer(text) if nordic else ():
        strong, country = _NORDIC_APART[m.group("type")]
        lines.append(_Line(m.start(), m.end(), "germanic", strong, country))
    generic = _GENERIC_MARK.search(text) is not None
    for m in _GENERIC_LINE.finditer(text) if generic else ():
        words = m.group("name").split()
        czech = (
            words[0] in _CZ_OPENERS
            or not m.group("name").isascii()
            or _CZ_ENDING.search(words[-1]) is not None  # "Trytova 266"
        )
        if czech and not any(w.rstrip(".") in _NOT_STREETS for w in words):
            lines.append(_Line(m.start(), m.end(), "generic", False, None, numbered=False))
    for m in scan(_CZ_LONE_LINE, text):
        words = m.group("name").split()
        # one adjective: with a diacritic ("Ivanova 2" is a name); after a preposition: a
        # one-letter one ("U", "V", "K") only with one ("V Twin 2" is not Czech)
        ascii_only = (len(words) == 1 or len(words[0]) == 1) and m.group("name").isascii()
        if ascii_only or any(w.rstrip(".") in _NOT_STREETS for w in words):
            continue
        # the number pair is Czech alone; one number needs an address cue
        strong = m.group("orient") is not None
        lines.append(_Line(m.start(), m.end(), "generic", strong, "CZ"))
    return lines


def _region_country(region: str, pc: str | None) -> str | None:
    """The country whose region and postcode these are, or ``None`` if they do not agree."""
    options = _AU_TOO.get(region, (_REGIONS.get(region, ""),))
    if pc is None:
        return options[0]
    for rx, country in _PC_COUNTRY:
        if rx.fullmatch(pc) and country in options:
            return country
    return None


_IN_MARK = lazy_compile(r"\d{3}[ \t]?\d{3}(?!\d)")  # a PIN, which the Indian family needs
_CEP_NEAR = lazy_compile(r"\d{5}-?\d{3}(?!\d)")
_EIRCODE_NEAR = lazy_compile(_EIRCODE)
_NZ_NEAR = lazy_compile(r"\d{4}(?![\w-])")


# per tail regex: (the text, where the last search started, its match or None)
_NEXT: dict[re.Pattern[str], tuple[str, int, re.Match[str] | None]] = {}


def _near(rx: re.Pattern[str], text: str, end: int) -> bool:
    """Whether ``rx`` occurs anywhere after ``end``: a cheap necessary condition that
    spares the rarer tails' full grammar on most street lines. (It once looked only 160
    characters ahead, which a padded or columnar layout could outrun.)

    Street lines come left to right, so the last search is kept per regex and reused while
    its match still lies after ``end``: the text is scanned about once per regex, not once
    per street line."""
    last = _NEXT.get(rx)
    if last is not None and last[0] is text and last[1] <= end:
        m = last[2]
        if m is None:
            return False  # nothing after an earlier point, so nothing after this one
        if m.start() >= end:
            return True
    m = rx.search(text, end)
    _NEXT[rx] = (text, end, m)
    return m is not None


def _pc_country(pc: str | None) -> str | None:
    """The country a hyphenated postcode's format belongs to (Portugal, Brazil, Poland)."""
    if pc is None or "-" not in pc or not pc[0].isdigit():
        return None
    return {4: "PT", 5: "BR", 2: "PL"}.get(pc.index("-"))


def _locality(text: str, line: _Line, end: int) -> tuple[int, str, str | None] | None:
    """(end, pattern, country) of the locality after a street line, or ``None``."""
    if line.family == "indian":
        m = _IN_TAIL.match(text, end)
        return (m.end(), "in_pin", "IN") if m else None
    if line.family == "military":
        m = _MILITARY_TAIL.match(text, end)
        return (m.end(), "military", "US") if m else None
    continental = line.family in ("generic", "germanic", "romance", "french")
    cep = continental and _near(_CEP_NEAR, text, end)  # Brazil's tail is tried only near one
    if line.family == "generic":
        m = _BR_TAIL.match(text, end) if cep else None
        if m:
            return m.end(), "br_postcode", "BR"
        m = _DISTINCT_TAIL.match(text, end)
        if m is None:
            return None
        return m.end(), "eu_postcode", _pc_country(m.group("pc")) or "CZ"
    if line.family in ("germanic", "romance", "french"):
        m = _BR_TAIL.match(text, end) if cep else None
        if m:
            return m.end(), "br_postcode", "BR"
        m = _EU_TAIL.match(text, end)
        if m:
            return m.end(), "eu_postcode", _pc_country(m.group("pc")) or line.country
    m = _REGION_TAIL.match(text, end)
    if m:
        pc = m.group("pc")
        country = _region_country(m.group("region"), pc)
        rsep = m.group("rsep")
        # a region without a postcode needs a comma before it or, spelt out, a line of its
        # own ("Springfield\nIllinois"; a code alone may be a sign-off's initials)
        alone = (
            "\n" in rsep
            and len(m.group("region")) > 3
            and _LINE_END.match(text, m.end()) is not None
        )
        if country is not None and (pc is not None or "," in rsep or alone):
            return m.end(), "region", country
    m = _UK_TAIL.match(text, end)
    if m:
        return m.end(), "uk_postcode", "GB"
    if line.family == "en":
        m = _IE_TAIL.match(text, end) if _near(_EIRCODE_NEAR, text, end) else None
        if m:
            return m.end(), "eircode", "IE"
        m = _NZ_TAIL.match(text, end) if _near(_NZ_NEAR, text, end) else None
        # not a region and a postcode that disagree ("Boston MA 2000")
        if m and not any(w in _REGIONS for w in m.group(0).replace(",", " ").split()):
            return m.end(), "nz_postcode", "NZ"
    return _town_country(text, end)


def _town_country(text: str, end: int) -> tuple[int, str, str | None] | None:
    """(end, pattern, country) of a town line and a country's line after a street line
    (:data:`_TOWN_COUNTRY_TAIL`): the country a name of the gazetteer's regions, the town
    no region and not all everyday words ("Thanks\nFrance" is no town)."""
    m = _TOWN_COUNTRY_TAIL.match(text, end)
    if m is None:
        return None
    from veil.text.recognition._places import REGION, country_code, gazetteer

    places = gazetteer()
    town = m.group("town")
    if places.get(m.group("country")) != REGION or places.get(town) == REGION:
        return None
    common = common_words()
    if all(w.casefold() in common or w.casefold() in _SIGN_OFFS for w in town.split()):
        return None
    return m.end(), "town_country", country_code(m.group("country"))


_SIGN_OFFS = word_set("thanks thank you regards cheers sincerely best yours love")


def _addresses(text: str) -> list[_Address]:
    found: list[_Address] = []
    for line in _candidates(text):
        end = line.end
        unit = line.unit
        for _ in range(2):  # "Apt 4", "Building 2, Suite 210"
            u = _UNIT_AFTER.match(text, end)
            if u is None:
                break
            end, unit = u.end(), True
        tail = _locality(text, line, end)
        if tail is None and line.family == "romance":  # an interior number, no unit word
            b = _BARE_INTERIOR.match(text, end)
            tail = _locality(text, line, b.end()) if b else None
        if tail is None and line.family == "en" and (rd := _RD_AFTER.match(text, end)):
            end = rd.end()  # a lone line with its rural delivery; with its town, _NZ_TAIL
        if tail is None and line.needs_locality:
            continue
        weak = False
        if tail is not None:
            end, how, country = tail
            c = _COUNTRY_TAIL.match(text, end)
            if c:
                end = c.end()
            pattern, composite = f"{line.family}+{how}", True
        elif line.strong or line.numbered:
            # a lone line; one whose street word is also an everyday word counts only with a
            # unit ("Camino de Eliana Montero 35 Piso 5") or, in the recognizer, an address cue
            weak = not line.strong and not unit
            pattern, composite, country = f"{line.family}_street", False, line.country
            if weak:
                pattern += "_cued"
            elif not line.strong:
                pattern += "+unit"
        else:
            continue
        if text[end - 1 : end] == ".":
            end -= 1  # the sentence's full stop, or an abbreviation's: both left outside
        found.append(_Address(line.start, end, pattern, composite, country, weak))
    # overlapping candidates (two families reading one line): a full address first, then a
    # lone line that needs no cue, then the longer span
    found.sort(key=lambda a: (not a.composite, a.weak, a.start - a.end, a.start))
    out: list[_Address] = []
    for a in found:
        if not any(a.start < b.end and b.start < a.end for b in out):
            out.append(a)
    return sorted(out, key=lambda a: a.start)
