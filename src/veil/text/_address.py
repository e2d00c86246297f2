"""Postal addresses (one span from the street line to the postcode), US states, ZIP codes.

A postal address is reported as **one** ``STREET_ADDRESS`` span when a street line is
followed (after a comma, a space or a line break) by its locality: that way a surrogate
replaces it with one coherent fake address, and the span is what other tools call an
address (presidio-research's ``ADDRESS``, i2b2's). Street lines, by family:

* number first, English (USPS Publication 28; Royal Mail; Canada Post; Australia Post
  AS 4590): ``123 N Main St Apt 4B``, ``221B Baker Street``, ``5/12 Smith Street``,
  ``Flat 3, 12 High Street``, ``PO Box 1234``, and the US military ``PSC 1234, Box 5678``;
* street word in the name, number after (German, Dutch): ``Hauptstraße 12``,
  ``Goethestr. 5``, ``Berliner Straße 8/2``, ``Keizersgracht 123``;
* street type first, number after (Italian, Spanish, Portuguese): ``Via Roma, 10``,
  ``Calle de Alcalá 45``, ``Rua Augusta, 100``;
* number first, French street type: ``12, rue de la Paix``, ``5 bis avenue Foch``.

A unit ("Apt 4B", "Suite 210", "Flat 3", "Unit 5", "#12", "Piso 3") may come before or
after. Localities, each anchored by something a closed list or a grammar checks:

* city + US state, Canadian province or Australian state (code or name) + ZIP code
  (``02139``, ``02139-4307``), Canadian postal code (``K1A 0B1``: Canada Post's letters) or
  Australian postcode (4 digits), each only with a region of its country;
* town (and county) + UK postcode by the Royal Mail grammar (``SW1A 1AA``, ``M1 1AE``);
* postcode first, continental Europe (4 or 5 digits, Dutch ``1234 AB``) + city, only after
  a continental street line; US military ``APO AE 09012``.

A lone street line is still a ``STREET_ADDRESS``; "Boston, MA 02139" without a street stays
a ``LOCATION`` and a ``ZIP_CODE`` (a state may be kept under HIPAA Safe Harbor, a city and
ZIP may not: separate types let a policy tell them apart). Street words that are also
common English words or word endings ("Line", "End", "Ring", "Via", "Place" before a
name) count only in a full address with a locality. Every pattern is linear by
construction: bounded word counts, disjoint separators, no nested unbounded repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veil.text._finding import Explanation, Finding
from veil.text._recognizer import (
    ContextMatcher,
    Pattern,
    PatternRecognizer,
    Recognizer,
    recognizers,
)

__all__ = [
    "StateRecognizer",
    "StreetAddressRecognizer",
    "ZipCodeRecognizer",
    "address_shape",
]

_DIGIT = re.compile(r"\d")
_UP = "A-ZÀ-ÖØ-Þ"  # upper-case Latin letters, Latin-1 accents included
# a capitalised word: "Main", "O'Neil", "St.", "Saint-Denis", "Evelyne-Flantz-Weg"
_WORD = rf"[{_UP}][\w'’.-]*"
_NAMEWORD = rf"(?:{_WORD}|\d{{1,3}}(?:st|nd|rd|th)\b)"  # "5th Avenue"
_NUM = r"\d{1,6}[A-Za-z]?(?:[-/]\d{1,6}[A-Za-z]?)?"  # 12, 221B, 12-14, 5/12 (unit/house)
_UNIT_WORDS = (
    r"(?:Apt|Apartment|Flat|Unit|Suite|Ste|Studio|Level|Floor|Fl|Room|Rm|Shop|Lot|Bldg|"
    r"Building|Piso|Puerta|Piano|Appartamento|Interno|Scala)"
)
_UNIT = (
    rf"(?:{_UNIT_WORDS}\.?[ \t]*#?[ \t]*(?:\d{{1,5}}(?:-\d{{1,5}})?[A-Za-z]?|[A-Za-z]-?\d{{0,4}})"
    r"|#[ \t]?\d{1,5}[A-Za-z]?)(?![\w])"
)
_LINE_BREAK = r"[ \t]*\r?\n[ \t]*"
_SEP = rf"(?:[ \t]*,[ \t]*(?:\r?\n[ \t]*)?|{_LINE_BREAK}|[ \t]+)"  # ", " / newline / space

# USPS Publication 28, Appendix C1 (street suffixes and their abbreviations).
_USPS = (
    "Alley Aly Annex Anx Arcade Arc Avenue Ave Av Bayou Byu Beach Bch Bend Bnd Bluff Blf Bluffs "
    "Blfs Bottom Btm Boulevard Blvd Branch Br Bridge Brg Brook Brk Brooks Burg Bg Burgs Bypass "
    "Byp Camp Cp Canyon Cyn Cape Cpe Causeway Cswy Center Ctr Centers Ctrs Circle Cir Circles "
    "Cirs Cliff Clf Cliffs Clfs Club Clb Common Cmn Commons Cmns Corner Cor Corners Cors Course "
    "Crse Court Ct Courts Cts Cove Cv Coves Cvs Creek Crk Crescent Cres Crest Crst Crossing Xing "
    "Crossroad Xrd Crossroads Xrds Curve Curv Dale Dl Dam Dm Divide Dv Drive Dr Drives Drs "
    "Estate Est Estates Ests Expressway Expy Extension Ext Extensions Exts Fall Falls Fls Ferry "
    "Fry Field Fld Fields Flds Flat Flt Flats Flts Ford Frd Fords Frds Forest Frst Forge Frg "
    "Forges Frgs Fork Frk Forks Frks Fort Ft Freeway Fwy Garden Gdn Gardens Gdns Gateway Gtwy "
    "Glen Gln Glens Glns Green Grn Greens Grns Grove Grv Groves Grvs Harbor Hbr Harbors Hbrs "
    "Haven Hvn Heights Hts Highway Hwy Hill Hl Hills Hls Hollow Holw Inlet Inlt Island Is "
    "Islands Iss Isle Junction Jct Junctions Jcts Key Ky Keys Kys Knoll Knl Knolls Knls Lake "
    "Lk Lakes Lks Land Landing Lndg Lane Ln Light Lgt Lights Lgts Loaf Lf Lock Lck Locks Lcks "
    "Lodge Ldg Loop Mall Manor Mnr Manors Mnrs Meadow Mdw Meadows Mdws Mews Mill Ml Mills Mls "
    "Mission Msn Motorway Mtwy Mount Mt Mountain Mtn Mountains Mtns Neck Nck Orchard Orch Oval "
    "Overpass Opas Park Parks Parkway Pkwy Parkways Pass Passage Psge Path Pike Pine Pne Pines "
    "Pnes Place Pl Plain Pln Plains Plns Plaza Plz Point Pt Points Pts Port Prt Ports Prts "
    "Prairie Pr Radial Radl Ramp Ranch Rnch Rapid Rpd Rapids Rpds Rest Rst Ridge Rdg Ridges "
    "Rdgs River Riv Road Rd Roads Rds Route Rte Row Rue Run Shoal Shl Shoals Shls Shore Shr "
    "Shores Shrs Skyway Skwy Spring Spg Springs Spgs Spur Spurs Square Sq Squares Sqs Station "
    "Sta Stravenue Stra Stream Strm Street St Streets Sts Summit Smt Terrace Ter Throughway "
    "Trwy Trace Trce Track Trak Trafficway Trfy Trail Trl Trailer Trlr Tunnel Tunl Turnpike "
    "Tpke Underpass Upas Union Un Unions Uns Valley Vly Valleys Vlys Viaduct Via Vw View Views "
    "Vws Village Vlg Villages Vlgs Ville Vl Vista Vis Walk Walks Wall Way Ways Well Wl Wells Wls"
)
# Royal Mail, Canada Post and Australia Post (AS 4590) street types that are not in the USPS
# list and are not everyday English words
_EN_EXTRA = (
    "Close Rise Parade Pde Esplanade Esp Promenade Prom Quay Wharf Wynd Chase Circuit Cct "
    "Approach Alleyway Laneway Pathway Walkway Fairway Driveway Footway Highroad Concourse "
    "Colonnade Courtyard Cul-de-sac Tce Embankment Broadway Byway Crossway Ridgeway Riverway "
    "Roadway Centre Grange Glade Dell Copse Brae Vale Gate Gates Mall Crescent"
)
# AS 4590 types that are also everyday words: only in a full address
_EN_WEAK = (
    "Access Amble Anchorage Artery Basin Block Brace Break Brow Centreway Circlet Circus Cross "
    "Cruiseway Cutting Deviation Dip Distributor Edge Elbow End Entrance Firetrail Follow "
    "Foreshore Formation Front Frontage Gap Ground Gully Interchange Intersection Lees Line Link "
    "Little Lookout Lower Meander Mew Nook Outlook Parklands Part Piazza Plateau Pocket Quad "
    "Quadrangle Quadrant Quays Ramble Range Reach Reserve Retreat Ride Ring Riviera Roadside "
    "Ronde Rosebowl Rotary Round Siding Slope Sound Stairs Steps Strand Strip Subway Tarn "
    "Thoroughfare Tollway Top Tor Towers Triangle Trunkway Turn Upper Villas Wade Corso"
)
_EN_STRONG = frozenset(_USPS.split()) | frozenset(_EN_EXTRA.split())
_EN_WEAKS = frozenset(_EN_WEAK.split()) - _EN_STRONG
_DIRECTION_ABBR = frozenset(["N", "S", "E", "W", "NE", "NW", "SE", "SW"])  # "N St": no name

# German and Dutch street words, written into the name ("Hauptstraße") or standing alone
# after an adjective ("Berliner Straße"); the ones that end common words need a locality
_GERMANIC = {
    "straße": "DE", "strasse": "DE", "str.": "DE", "gasse": "DE", "platz": "DE",
    "allee": "DE", "weg": "DE", "damm": "DE", "chaussee": "DE", "pfad": "DE",
    "straat": "NL", "laan": "NL", "plein": "NL", "gracht": "NL", "singel": "NL",
    "kade": "NL", "dijk": "NL", "dreef": "NL", "steeg": "NL",
}  # fmt: skip
_GERMANIC_WEAK = {
    "ring": "DE", "ufer": "DE", "steig": "DE",
    "hof": "NL", "pad": "NL", "baan": "NL", "boulevard": "NL",
}  # fmt: skip
# street type first, number after (capitalised, so English "via" is not one)
_ROMANCE = {
    "Viale": "IT", "Piazza": "IT", "Piazzale": "IT", "Vicolo": "IT", "Contrada": "IT",
    "Calle": "ES", "Avenida": "ES", "Avda.": "ES", "Paseo": "ES", "Carrer": "ES",
    "Carretera": "ES", "Rambla": "ES", "Glorieta": "ES", "Travesía": "ES", "Callejón": "ES",
    "Urbanización": "ES", "Pasaje": "ES", "Pasadizo": "ES", "Cañada": "ES", "Alameda": "ES",
    "Rua": "PT", "Travessa": "PT",
}  # fmt: skip
_ROMANCE_WEAK = {
    "Via": "IT", "Corso": "IT", "Largo": "IT", "Strada": "IT", "Borgo": "IT", "Canale": "IT",
    "Rotonda": "IT", "Incrocio": "IT", "Stretto": "IT", "Plaza": "ES", "Camino": "ES",
    "Acceso": "ES", "Cuesta": "ES", "Ronda": "ES", "Vial": "ES", "C.": "ES",
}  # fmt: skip
# French types after the number; capitalised "Avenue", "Place", "Route" are English too
_FRENCH = ("rue", "impasse", "chemin", "allée", "allee", "quai", "boulevard", "bd", "faubourg")
_FRENCH_LOWER = ("avenue", "av.", "place", "route", "cours", "square", "passage", "voie",
                 "sentier", "esplanade", "promenade", "rond-point")  # fmt: skip

_PARTICLE = r"(?:de|del|della|dello|dei|degli|delle|di|da|do|dos|das|du|des|la|le|les|el|los|las|y|e|et|sur|aux?|en)"
_ELIDED = rf"(?:[dlDL]['’])?[{_UP}][\w'’.-]*"  # "d'Alsace", "l'Église"
_RNAME = rf"(?:(?:{_PARTICLE}|{_ELIDED})[ \t]+){{0,5}}{_ELIDED}"

_EN_LINE = re.compile(
    rf"(?<![\w/#.-])(?=\d|#|{_UNIT_WORDS})"
    rf"(?:(?P<unit>{_UNIT}),?(?:{_LINE_BREAK}|[ \t]+))?"
    rf"(?:(?P<num>{_NUM})[ \t]+)?"
    rf"(?P<words>(?:{_NAMEWORD}[ \t]+){{0,5}}{_NAMEWORD})"
)
_PO_BOX = re.compile(r"(?<![\w])P\.?[ \t]?O\.?[ \t]+Box[ \t]+\d{1,6}(?![\w])", re.IGNORECASE)
_MILITARY = re.compile(
    rf"(?<![\w])(?:(?:PSC|CMR|Unit)[ \t]+\d{{1,5}},?[ \t]+Box[ \t]+\d{{1,5}}|(?:USNS|USNV|USS|USCGC)[ \t]+{_WORD})"
)
_GERMANIC_LINE = re.compile(rf"(?<![\w/#.-])(?P<street>{_WORD})[ \t]+(?P<num>{_NUM})(?![\w])")
_ROMANCE_LINE = re.compile(
    rf"(?<![\w])(?P<type>{'|'.join(re.escape(t) for t in sorted({**_ROMANCE, **_ROMANCE_WEAK}, key=len, reverse=True))})"
    rf"[ \t]+(?P<name>{_RNAME})(?:[ \t]*,[ \t]*|[ \t]+)(?P<num>\d{{1,4}}[A-Za-z]?|s/n)(?![\w])"
)
_FRENCH_LINE = re.compile(
    rf"(?<![\w/#.,-])(?:(?P<num>\d{{1,4}}[A-Za-z]?(?:[ \t]+(?:bis|ter|quater))?),?[ \t]+)?"
    rf"(?P<type>(?i:{'|'.join(re.escape(t) for t in (*_FRENCH, *_FRENCH_LOWER))}))"
    rf"[ \t]+(?P<name>{_RNAME})"
)
_UNIT_AFTER = re.compile(rf"(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)(?:{_UNIT})")
_DIRECTION_AFTER = re.compile(r"[ \t]+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?")
_BEFORE_WORD = re.compile(rf"({_WORD})[ \t]+$")

# --- localities ---------------------------------------------------------------------------
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP AA AE AP"
)
_STATES = _US_STATES.split()
_STATE_NAMES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
    "Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    "New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|"
    "Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming"
)
_CA_PROVINCES = (
    "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|Alberta|British Columbia|Manitoba|New Brunswick|"
    "Newfoundland|Newfoundland and Labrador|Nova Scotia|Northwest Territories|Nunavut|Ontario|"
    "Prince Edward Island|Quebec|Québec|Saskatchewan|Yukon"
)
_AU_STATES = (
    "NSW|VIC|QLD|SA|WA|TAS|NT|ACT|New South Wales|Victoria|Queensland|South Australia|"
    "Western Australia|Tasmania|Northern Territory|Australian Capital Territory"
)
_REGIONS: dict[str, str] = {}
for _names, _country in ((_AU_STATES, "AU"), (_CA_PROVINCES, "CA"), (_STATE_NAMES, "US")):
    _REGIONS.update(dict.fromkeys(_names.split("|"), _country))
_REGIONS.update(dict.fromkeys([*_STATES, "FM", "MH", "PW"], "US"))  # USPS codes, territories
_AU_TOO = {"WA": ("US", "AU"), "SA": ("AU",), "NT": ("CA", "AU")}  # codes two countries use
_REGION_RE = "|".join(re.escape(r) for r in sorted(_REGIONS, key=len, reverse=True))
_CA_PC = r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t-]?\d[ABCEGHJ-NPRSTV-Z]\d"
# Royal Mail: outward code A9, A99, A9A, AA9, AA99, AA9A (letters restricted by position),
# a space, inward code 9AA (no C, I, K, M, O, V); GIR 0AA
_UK_PC = (
    r"(?:GIR ?0AA|[A-PR-UWYZ](?:\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d{1,2}|[A-HK-Y]\d[ABEHMNPRVWXY])"
    r" ?\d[ABD-HJLNP-UW-Z]{2})"
)
# lower-case words inside a city name ("Frankfurt am Main", "Alphen aan den Rijn"); not
# "on", "of" or "in", which more often begin the sentence's next phrase ("... on Monday")
_CPART = (
    r"(?:am|an|der|den|im|vorm|vor|bei|ob|upon|sur|sous|en|de|la|le|les|del|di|du|des|aan|op|bij)"
)
_CWORD = rf"(?:['’][st][ -]?)?[{_UP}][\w'’.]*(?:-[\w'’.]+)*"  # "'s-Gravenzande"
_NL_LETTERS = r"[ \t]?[A-Z]{2}(?![\w])"  # "1234 AB": the letters belong to the postcode
_CITY = (
    rf"{_CWORD}(?:[ \t]+(?:{_CPART}[ \t]+){{0,2}}{_CWORD}){{0,4}}"
    rf"(?:[ \t]*\([{_UP}][\w'’. -]{{0,30}}\)){{0,2}}"  # "Halle (Saale)", "Comina (La) (PN)"
)
_REGION_TAIL = re.compile(
    rf"{_SEP}(?P<city>{_CITY})(?P<rsep>[ \t]*,[ \t]*|[ \t]+)(?P<region>{_REGION_RE})(?![\w])"
    rf"(?:(?:[ \t]*,[ \t]*|[ \t]+)(?P<pc>\d{{5}}(?:-\d{{4}})?|\d{{4}}|{_CA_PC}))?(?![\w-])"
)
_UK_TAIL = re.compile(rf"{_SEP}(?:{_CITY}{_SEP}(?:{_CITY}{_SEP})?)?{_UK_PC}(?![\w])")
_EU_TAIL = re.compile(
    rf"{_SEP}(?:(?:[A-Z]{{1,2}}-)?\d{{5}}|\d{{4}}{_NL_LETTERS}|\d{{4}}(?!{_NL_LETTERS}))(?:[ \t]*,[ \t]*|{_LINE_BREAK}|[ \t]+)"
    rf"{_CITY}(?:[ \t]+CEDEX(?:[ \t]+\d{{1,2}})?)?"
    rf"|{_SEP}{_CITY}[ \t]*,[ \t]*\d{{5}}(?![\w-])"  # "Madrid, 28013", as some forms write it
)
_MILITARY_TAIL = re.compile(
    rf"{_SEP}(?:APO|FPO|DPO)[ \t]+(?:AA|AE|AP)[ \t]+\d{{5}}(?:-\d{{4}})?(?![\w-])"
)
_COUNTRY_TAIL = re.compile(
    rf"{_SEP}(?:USA|U\.S\.A\.|United States(?: of America)?|Canada|United Kingdom|UK|U\.K\.|"
    r"England|Scotland|Wales|Northern Ireland|Australia|Germany|Deutschland|France|Italy|Italia|"
    r"Spain|España|Netherlands|The Netherlands|Nederland|Austria|Österreich|Switzerland|"
    r"Schweiz|Suisse|Belgium|Belgique|Portugal|Ireland)(?![\w])"
)
_PC_COUNTRY = (
    (re.compile(r"\d{5}(?:-\d{4})?"), "US"),
    (re.compile(r"\d{4}"), "AU"),
    (re.compile(_CA_PC), "CA"),
)


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    family: str  # "en", "germanic", "romance", "french", "military"
    strong: bool  # a lone line counts (no everyday-word street type, a house number)
    country: str | None


@dataclass(frozen=True, slots=True)
class _Address:
    start: int
    end: int
    pattern: str
    composite: bool
    country: str | None


def _en_line(text: str, m: re.Match[str]) -> _Line | None:
    if not (m.group("unit") or m.group("num")):
        return None
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
    # a house number, and not only a unit in front ("Floor 2 Nurse Station")
    return _Line(m.start(), end, "en", strong and m.group("num") is not None, None)


def _germanic_line(text: str, m: re.Match[str]) -> _Line | None:
    token = m.group("street")
    low = token.casefold()
    for table, strong in ((_GERMANIC, True), (_GERMANIC_WEAK, False)):
        for word, country in table.items():
            if low.endswith(word):
                start = m.start()
                if len(low) == len(word):  # "Straße" alone: with its adjective ("Berliner")
                    b = _BEFORE_WORD.search(text, max(0, start - 40), start)
                    if b is None:
                        return None
                    start = b.start(1)
                elif not token[-len(word) - 1].isalpha() and token[-len(word) - 1] != "-":
                    return None
                return _Line(start, m.end(), "germanic", strong, country)
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
    lines += [_Line(m.start(), m.end(), "en", True, None) for m in _PO_BOX.finditer(text)]
    lines += [_Line(m.start(), m.end(), "military", False, "US") for m in _MILITARY.finditer(text)]
    for m in _GERMANIC_LINE.finditer(text):
        if (g := _germanic_line(text, m)) is not None:
            lines.append(g)
    for m in _ROMANCE_LINE.finditer(text):
        t = m.group("type")
        lines.append(
            _Line(m.start(), m.end(), "romance", t in _ROMANCE, _ROMANCE.get(t) or _ROMANCE_WEAK[t])
        )
    for m in _FRENCH_LINE.finditer(text):
        t = m.group("type")
        strong = m.group("num") is not None and (t.casefold() in _FRENCH or t.islower())
        lines.append(_Line(m.start(), m.end(), "french", strong, "FR"))
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


def _locality(text: str, line: _Line, end: int) -> tuple[int, str, str | None] | None:
    """(end, pattern, country) of the locality after a street line, or ``None``."""
    if line.family == "military":
        m = _MILITARY_TAIL.match(text, end)
        return (m.end(), "military", "US") if m else None
    if line.family in ("germanic", "romance", "french"):
        m = _EU_TAIL.match(text, end)
        if m:
            return m.end(), "eu_postcode", line.country
    m = _REGION_TAIL.match(text, end)
    if m:
        pc = m.group("pc")
        country = _region_country(m.group("region"), pc)
        if country is not None and (pc is not None or "," in m.group("rsep")):
            return m.end(), "region", country
    m = _UK_TAIL.match(text, end)
    if m:
        return m.end(), "uk_postcode", "GB"
    return None


def _addresses(text: str) -> list[_Address]:
    found: list[_Address] = []
    for line in _candidates(text):
        end = line.end
        for _ in range(2):  # "Apt 4", "Building 2, Suite 210"
            u = _UNIT_AFTER.match(text, end)
            if u is None:
                break
            end = u.end()
        tail = _locality(text, line, end)
        if tail is not None:
            end, how, country = tail
            c = _COUNTRY_TAIL.match(text, end)
            if c:
                end = c.end()
            pattern, composite = f"{line.family}+{how}", True
        elif line.strong:
            pattern, composite, country = f"{line.family}_street", False, line.country
        else:
            continue
        if text[end - 1 : end] == ".":
            end -= 1  # the sentence's full stop, or an abbreviation's: both left outside
        found.append(_Address(line.start, end, pattern, composite, country))
    # overlapping candidates (two families reading one line): a full address first, then
    # the longer span
    found.sort(key=lambda a: (not a.composite, a.start - a.end, a.start))
    out: list[_Address] = []
    for a in found:
        if not any(a.start < b.end and b.start < a.end for b in out):
            out.append(a)
    return sorted(out, key=lambda a: a.start)


def address_shape(value: str) -> tuple[bool, str | None]:
    """(is a full postal address, country of its format) for a ``STREET_ADDRESS`` value.

    Examples
    --------
    >>> address_shape("10 Downing Street, London SW1A 2AA")
    (True, 'GB')
    >>> address_shape("123 Main St")
    (False, None)
    """
    found = [a for a in _addresses(value) if a.start == 0]
    if not found:
        return False, None
    return found[0].composite, found[0].country


@recognizers.register("street_address")
class StreetAddressRecognizer(Recognizer):
    """Postal addresses: a street line, with its locality when one follows (module docstring).

    A full address (street line + locality) is tier 0: a postcode or region checked against
    a national grammar or a closed list makes it as certain as a validated number, so it
    wins over the city, state, ZIP code and NER spans inside it. A lone street line is a
    tier-1 structural pattern.

    Examples
    --------
    >>> r = StreetAddressRecognizer()
    >>> text = "Ship to 221B Baker Street, London NW1 6XE today"
    >>> [text[f.start : f.end] for f in r.analyze(text)]
    ['221B Baker Street, London NW1 6XE']
    """

    entities = ("STREET_ADDRESS",)
    tier = 1
    needs_digit = True
    score = 0.75
    composite_score = 0.95
    context = ("address", "live", "lives", "living", "reside", "resides", "located", "street")

    def __init__(self) -> None:
        self._context = ContextMatcher(self.context)

    def analyze(self, text: str) -> list[Finding]:
        if _DIGIT.search(text) is None:
            return []
        out = []
        for a in _addresses(text):
            base = self.composite_score if a.composite else self.score
            words = () if a.composite else self._context.find(text, a.start, a.end)
            score = min(1.0, base + 0.35) if words else base
            tier = 0 if a.composite else self.tier
            out.append(
                Finding(
                    a.start,
                    a.end,
                    "STREET_ADDRESS",
                    score,
                    self.name,
                    tier,
                    Explanation(self.name, a.pattern, base, score, words),
                )
            )
        return out


@recognizers.register("us_state")
class StateRecognizer(PatternRecognizer):
    """US states written after a city and a comma, as in addresses: "Boston, MA 02139"."""

    entity = "LOCATION"
    patterns = (
        Pattern(
            "state_after_city",
            rf"\b[A-Z][a-z]+,\s+((?:{'|'.join(_STATES)})|(?:{_STATE_NAMES}))"
            r"(?=\s+\d{5}\b|\s*[.,;:)]|\s*$)",
            0.75,
            group=1,
        ),
    )


@recognizers.register("zip_code")
class ZipCodeRecognizer(PatternRecognizer):
    """US ZIP and ZIP+4 codes after a state (``MA 02139``) or near "zip"/"postal code"."""

    entity = "ZIP_CODE"
    needs_digit = True
    patterns = (
        Pattern(
            "zip_after_state",
            rf"\b(?:{'|'.join(_STATES)}|{_STATE_NAMES}),?\s+(\d{{5}}(?:-\d{{4}})?)(?![\w-])",
            0.8,
            group=1,
        ),
        Pattern("zip", r"(?<![\w$.,/-])\d{5}(?:-\d{4})?(?![\w/-]|[.,]\d)", 0.2),
    )
    context = ("zip", "zipcode", "zip code", "postal", "postcode", "postal code")
