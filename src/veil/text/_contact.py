"""Phone numbers (Google's ``phonenumbers``), street addresses, zip codes and ages.

Phone numbers: with the default region ``"US"``, North American numbers in their usual
layouts ("(617) 555-0199", "617-555-0199", "617.555.0199", "+1 617 555 0199") are matched by
a strict regex (area code and exchange start with 2-9), numbers with a ``+`` country code
are parsed and validated by Google's ``phonenumbers`` one candidate at a time, and bare
ten-digit runs need a context word ("call", "phone"). With another region, the whole text
goes through ``phonenumbers.PhoneNumberMatcher`` (validity checked for that region). Lab
values ("91/42/7.36"), dates and version numbers never match these layouts.

Street addresses are a house number, one to five capitalised words and a street suffix
from the USPS list, optionally followed by a unit ("Apt 4B", "Suite 210"), or a PO box.
Zip codes and ages are ambiguous numbers: they are reported only with their context
("MA 02139", "zip 02139", "aged 47", "47-year-old", "age: 47").
"""

from __future__ import annotations

import re
from typing import Any

from veil.text._finding import Explanation, Finding
from veil.text._recognizer import Pattern, PatternRecognizer, Recognizer, recognizers

__all__ = [
    "AgeRecognizer",
    "PhoneRecognizer",
    "StateRecognizer",
    "StreetAddressRecognizer",
    "ZipCodeRecognizer",
]

_PHONE_HINT = re.compile(r"(?:\+\s?\d|\d)[\d\s().\-/]{5,}\d")
_PHONE_CONTEXT = re.compile(
    r"\b(?:phone|tel|telephone|mobile|cell|call|fax|contact|reach|text|sms|ph)\b", re.I
)
_INTL = re.compile(r"(?<![\w+])\+\d{1,3}[\d\s().-]{6,18}\d(?![\w])")
_BARE10 = re.compile(r"(?<![\w.,/-])1?[2-9]\d{9}(?![\w/-]|[.,]\d)")
# North American numbers written in one of the usual layouts; used when the number is well
# formed but not (yet) assigned, which ``phonenumbers`` refuses (test data, new area codes).
_NANP = re.compile(
    r"(?<![\w+().-])(?:\+1[ .-]?)?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[-. ])[2-9]\d{2}[-. ]\d{4}(?![\w-]|\.\d)"
)


@recognizers.register("phone")
class PhoneRecognizer(Recognizer):
    """Phone numbers found and validated by ``phonenumbers.PhoneNumberMatcher``."""

    entities = ("PHONE_NUMBER",)
    tier = 0

    def __init__(self, region: str = "US", score: float = 0.75) -> None:
        from veil._deps import require

        self._pn: Any = require("phonenumbers", extra="text", purpose="phone-number detection")
        self.region = region
        self.score = score

    def _candidates(self, text: str) -> list[tuple[int, int, str]]:
        pn = self._pn
        spans: list[tuple[int, int, str]] = []
        if self.region != "US":
            for m in pn.PhoneNumberMatcher(text, self.region, leniency=pn.Leniency.VALID):
                spans.append((m.start, m.end, "phonenumbers"))
            return spans
        # US default: North American layouts by regex (fast), international numbers (with
        # "+") and bare ten-digit runs checked by phonenumbers one candidate at a time
        for m in _NANP.finditer(text):
            spans.append((m.start(), m.end(), "nanp_layout"))
        nanp = list(spans)
        for m in _INTL.finditer(text):
            if any(s <= m.start() < e for s, e, _ in nanp):
                continue
            cand = m.group(0)
            for s, _e, _h in nanp:  # stop before a North American number found above
                if m.start() < s < m.end():
                    cand = cand[: s - m.start()]
            # the candidate may run into a following number ("+44 20 7946 0958 536-22-1234"):
            # try it whole, then cut back one digit group at a time
            ends = [g.end() for g in re.finditer(r"\d+", cand)]
            for end in reversed(ends):
                if end < 8:
                    break
                try:
                    num = pn.parse(cand[:end], None)
                except pn.NumberParseException:
                    continue
                if pn.is_valid_number(num):
                    spans.append((m.start(), m.start() + end, "phonenumbers"))
                    break
        for m in _BARE10.finditer(text):
            if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), "bare_digits"))
        return spans

    def analyze(self, text: str) -> list[Finding]:
        if not _PHONE_HINT.search(text):
            return []
        out: list[Finding] = []
        for start, end, how in self._candidates(text):
            before = text[max(0, start - 1) : start]
            if before and (before.isalnum() or before in "/."):
                continue
            raw = text[start:end]
            if re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2,4}", raw) or re.fullmatch(r"\d+\.\d+", raw):
                continue
            hit = _PHONE_CONTEXT.search(text, max(0, start - 40), start)
            if raw.isdigit() and not hit:
                continue  # bare digit runs are account and order numbers more often than phones
            score = self.score
            words: tuple[str, ...] = ()
            if hit:
                score = min(1.0, score + 0.2)
                words = (hit.group(0).lower(),)
            out.append(
                Finding(
                    start,
                    end,
                    "PHONE_NUMBER",
                    score,
                    self.name,
                    self.tier,
                    Explanation(
                        self.name,
                        how,
                        self.score,
                        score,
                        words,
                        "phonenumbers" if how == "phonenumbers" else None,
                    ),
                )
            )
        return out


# USPS Publication 28, Appendix C1 (common street suffixes and their abbreviations).
_SUFFIX_WORDS = (
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
_SUFFIXES = _SUFFIX_WORDS.split()
_SUFFIX_RE = "|".join(sorted(set(_SUFFIXES), key=len, reverse=True))
_UNIT = r"(?:,?\s+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Room|Rm\.?|Floor|Fl\.?|#)\s*#?\s*[A-Za-z0-9-]{1,6})"
_DIRECTION = r"(?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?\s+)?"


@recognizers.register("street_address")
class StreetAddressRecognizer(PatternRecognizer):
    """House number + street name + USPS suffix (+ unit), or a PO box."""

    entity = "STREET_ADDRESS"
    needs_digit = True
    patterns = (
        Pattern(
            "street",
            rf"\b\d{{1,6}}[A-Za-z]?\s+{_DIRECTION}(?:(?:[A-Z][A-Za-z'’-]*|\d{{1,3}}(?:st|nd|rd|th))\.?\s+){{1,5}}"
            rf"(?:{_SUFFIX_RE})\b\.?(?:\s+(?:N|S|E|W|NE|NW|SE|SW)\b\.?)?{_UNIT}?",
            0.75,
        ),
        Pattern("po_box", r"\bP\.?\s?O\.?\s+Box\s+\d{1,6}\b", 0.75, flags=re.IGNORECASE),
    )
    context = ("address", "live", "lives", "living", "reside", "resides", "located", "street")

    def analyze(self, text: str) -> list[Finding]:
        out = []
        for f in super().analyze(text):
            end = f.end
            if text[end - 1 : end] == ".":
                end -= 1  # the sentence's full stop, or an abbreviation's: both left outside
            out.append(
                Finding(f.start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation)
            )
        return out


_STATE_CODES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP AA AE AP"
)
_STATES = _STATE_CODES.split()
_STATE_NAMES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
    "Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    "New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|"
    "Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming"
)


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


@recognizers.register("age")
class AgeRecognizer(PatternRecognizer):
    """Ages written with their context: "aged 47", "age: 47", "47 years old", "47-year-old",
    "47 y/o", "47yo". The number alone is never an age."""

    entity = "AGE"
    needs_digit = True
    patterns = (
        Pattern(
            "age_prefix",
            r"\b(?:aged?|age of|age:)\s*(\d{1,3})(?![\d%/]|\.\d)",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_suffix",
            r"\b(\d{1,3})(?:\s*|-)(?:years?|yrs?)(?:\s*|-)old\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_yo",
            r"\b(\d{1,3})\s*(?:y/?o|yo|y\.o\.)(?![\w])",
            0.85,
            group=1,
            flags=re.IGNORECASE,
        ),
        Pattern(
            "age_in_his",
            r"\b(?:in (?:his|her|their) )(\d0s|(?:early|mid|late)[- ]\d0s)\b",
            0.6,
            group=1,
            flags=re.IGNORECASE,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        digits = "".join(c for c in value if c.isdigit())
        return not digits or int(digits) > 125
