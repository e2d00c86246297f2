"""The rest of Presidio's country-specific identifiers, each by its issuer's published rule.

Entity names are Presidio's. Two kinds of rule:

* **A check digit** (:mod:`veil.text.recognition._world_checksums`): a value that fails it is dropped;
  one that passes scores 1.0 with a context word near it ("SIN", "Steuer-ID", "GSTIN") and
  ``bare`` without one. ``bare`` is :data:`STRONG` (0.45: below the detect threshold 0.5,
  at the recall-first redaction threshold 0.45) when the check is strong for its shape (two
  check digits, a check over 11 or more characters, a birth date inside, a fixed prefix),
  and :data:`WEAK` (0.25: reported only at a threshold chosen that low) when it is a single
  mod-10 or mod-11 digit over nine or ten bare digits, which one ordinary number in ten
  passes.
* **A format only** (passports, driving licences, plates, postcodes, tax office numbers):
  no check digit exists, so the value is reported only with a context word near it (the
  word is the evidence), at 0.75.

| entity | rule |
|---|---|
| ``CA_SIN`` | nine digits, Luhn (ESDC) |
| ``AU_ACN`` | nine digits, weights 8..1 (ASIC) |
| ``DE_TAX_ID`` | eleven digits, ISO 7064 MOD 11,10 and the repeated digit (BZSt) |
| ``DE_VAT_ID`` | DE and nine digits, ISO 7064 MOD 11,10 |
| ``DE_HEALTH_INSURANCE`` | a letter and nine digits, weights 1-2 (KVNR) |
| ``DE_SOCIAL_SECURITY`` | area, birth date, letter, serial, check (DRV) |
| ``DE_LANR`` | six digits, a weights 4-9 check digit, two digits (KBV) |
| ``DE_ID_CARD``, ``DE_PASSPORT`` | nine characters ending in an ICAO 9303 check digit |
| ``IN_GSTIN`` | state, PAN, entity, Z and a base-36 check character (GSTN) |
| ``IT_VAT_CODE`` | eleven digits, Luhn |
| ``KR_RRN``, ``KR_FRN`` | birth date, sex digit, weights 2-9 |
| ``KR_BRN`` | ten digits, weights 1-3-7 (NTS) |
| ``SE_PERSONNUMMER`` | birth date and Luhn (Skatteverket) |
| ``SE_ORGANISATIONSNUMMER`` | ten digits, the third at least 2, Luhn |
| ``TH_TNIN`` | thirteen digits, weights 13..2 |
| ``TR_NATIONAL_ID`` | eleven digits, two check digits (NVİ) |
| ``ZA_ID_NUMBER`` | birth date, citizenship, Luhn |
| ``US_NPI`` | ten digits, Luhn with prefix 80840 (CMS) |
| ``NG_NIN`` | eleven digits, Verhoeff |
| ``PH_TIN`` | nine digits, weights 9..2 mod 11 (BIR) |
| the others | format and context word |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from veil.text.recognition import _world_checksums as wc
from veil.text.recognition._finding import Finding
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = ["FAILED", "STRONG", "WEAK", "WORLD_RULES", "WorldIdRecognizer"]

#: score of a value that passes a strong check digit with no context word near it: below
#: the detect threshold (0.5), at the recall-first redaction threshold (0.45)
STRONG = 0.45
#: score of a value that passes a weak check digit (one digit over 9-10 digits) with none
WEAK = 0.25
#: score of a value that fails its check digit but has a context word near it
FAILED = 0.45
_FORMAT = 0.4  # the base score of a format-only value; its required context word adds 0.35

_B = r"(?<![\w-])"  # no letter, digit or dash before
_E = r"(?![\w-])"  # nor after


@dataclass(frozen=True, slots=True)
class WorldRule:
    """One identifier: registry name, entity, regexes, context words, its check (``None``:
    format only, context required) and the score of a checked value with no context."""

    name: str
    entity: str
    regexes: tuple[str, ...]
    context: tuple[str, ...]
    check: tuple[str, Callable[[str], bool]] | None = None
    bare: float = STRONG


_D3 = r"\d{3}"
WORLD_RULES: tuple[WorldRule, ...] = (
    WorldRule("ca_sin", "CA_SIN", (rf"{_B}[1-79]\d{{2}}([- ]?){_D3}\1{_D3}{_E}",),
              ("sin", "social insurance", "numéro d'assurance sociale", "nas"),
              ("luhn", wc.sin_ok), WEAK),
    WorldRule("au_acn", "AU_ACN", (rf"{_B}\d{{3}}([ ]?){_D3}\1{_D3}{_E}",),
              ("acn", "australian company number", "company number"), ("acn_weights", wc.acn_ok),
              WEAK),
    WorldRule("de_tax_id", "DE_TAX_ID", (rf"{_B}[1-9]\d(?:[ ]?\d{{3}}){{3}}{_E}",),
              ("steuer-id", "steueridentifikationsnummer", "steuer-identifikationsnummer",
               "idnr", "identifikationsnummer", "tax id", "steuerid", "tin"),
              ("iso7064_mod11_10", wc.de_tax_id_ok)),
    WorldRule("de_vat_id", "DE_VAT_ID", (rf"{_B}[Dd][Ee][ .-]?\d{{3}}[ .-]?{_D3}[ .-]?{_D3}{_E}",),
              ("ust-idnr", "umsatzsteuer", "ust-id", "vat", "mwst", "ustid"),
              ("iso7064_mod11_10", wc.de_vat_ok)),
    WorldRule("de_health_insurance", "DE_HEALTH_INSURANCE", (rf"{_B}[A-Z]\d{{9}}{_E}",),
              ("krankenversicherung", "versichertennummer", "kvnr", "krankenkasse",
               "versicherten", "health insurance", "egk"), ("kvnr", wc.de_kvnr_ok)),
    WorldRule("de_social_security", "DE_SOCIAL_SECURITY", (rf"{_B}\d{{8}}[A-Z]\d{{3}}{_E}",),
              ("rentenversicherung", "sozialversicherungsnummer", "rvnr", "svnr",
               "versicherungsnummer", "social security"), ("drv", wc.de_rvnr_ok)),
    WorldRule("de_lanr", "DE_LANR", (rf"{_B}\d{{9}}{_E}",),
              ("lanr", "arztnummer", "lebenslange arztnummer"), ("kbv_4_9", wc.de_lanr_ok), WEAK),
    WorldRule("de_id_card", "DE_ID_CARD",
              (rf"{_B}[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{{7}}\d{_E}",),
              ("personalausweis", "ausweisnummer", "ausweis", "german id card"),
              ("icao9303", wc.icao_ok), WEAK),  # one check digit over nine characters
    WorldRule("de_passport", "DE_PASSPORT",
              (rf"{_B}[CFGHJK][CFGHJKLMNPRTVWXYZ0-9]{{7}}\d{_E}",),
              ("reisepass", "passnummer", "german passport", "deutscher pass"), ("icao9303", wc.icao_ok),
              WEAK),
    WorldRule("in_gstin", "IN_GSTIN", (rf"{_B}\d{{2}}[A-Za-z]{{5}}\d{{4}}[A-Za-z][0-9A-Za-z][Zz][0-9A-Za-z]{_E}",),
              ("gstin", "gst", "gst number", "goods and services tax"), ("gstn", wc.gstin_ok)),
    WorldRule("it_vat_code", "IT_VAT_CODE", (rf"{_B}(?:IT[ ]?)?\d{{11}}{_E}",),
              ("partita iva", "p.iva", "piva", "iva", "vat"), ("luhn", wc.it_vat_ok), WEAK),
    WorldRule("kr_rrn", "KR_RRN", (rf"{_B}\d{{6}}-?[1-4]\d{{6}}{_E}",),
              ("주민등록번호", "rrn", "resident registration"), ("kr_weights", wc.kr_rrn_ok)),
    WorldRule("kr_frn", "KR_FRN", (rf"{_B}\d{{6}}-?[5-8]\d{{6}}{_E}",),
              ("외국인등록번호", "frn", "foreigner registration", "alien registration"),
              ("kr_weights", wc.kr_frn_ok)),
    WorldRule("kr_brn", "KR_BRN", (rf"{_B}{_D3}-?\d{{2}}-?\d{{5}}{_E}",),
              ("사업자등록번호", "brn", "business registration"), ("nts_weights", wc.kr_brn_ok),
              WEAK),
    WorldRule("se_personnummer", "SE_PERSONNUMMER", (rf"{_B}(?:19|20)?\d{{6}}[-+]?\d{{4}}{_E}",),
              ("personnummer", "samordningsnummer", "personnr"), ("luhn", wc.se_pnr_ok)),
    WorldRule("se_organisationsnummer", "SE_ORGANISATIONSNUMMER", (rf"{_B}\d{{6}}-?\d{{4}}{_E}",),
              ("organisationsnummer", "orgnr", "org.nr", "org nr"), ("luhn", wc.se_org_ok), WEAK),
    WorldRule("th_tnin", "TH_TNIN", (rf"{_B}[1-8](?:[ -]?\d){{12}}{_E}",),
              ("เลขประจำตัวประชาชน", "thai id", "national id", "tnin"), ("th_weights", wc.th_tnin_ok)),
    WorldRule("tr_national_id", "TR_NATIONAL_ID", (rf"{_B}[1-9]\d{{10}}{_E}",),
              ("tc kimlik", "t.c. kimlik", "kimlik no", "tckn", "tc no"), ("nvi", wc.tr_id_ok)),
    WorldRule("za_id_number", "ZA_ID_NUMBER", (rf"{_B}\d{{6}}[ ]?\d{{4}}[ ]?[0-2]\d{{2}}{_E}",),
              ("id number", "south african id", "identity number", "rsa id"), ("luhn", wc.za_id_ok)),
    WorldRule("us_npi", "US_NPI", (rf"{_B}[12]\d{{3}}([ -]?){_D3}\1{_D3}{_E}",),
              ("npi", "national provider"), ("luhn_80840", wc.npi_ok), WEAK),
    WorldRule("ng_nin", "NG_NIN", (rf"{_B}\d{{11}}{_E}",),
              ("nin", "national identification number", "nimc"), ("verhoeff", wc.ng_nin_ok), WEAK),
    WorldRule("ph_tin", "PH_TIN", (rf"{_B}{_D3}-{_D3}-{_D3}(?:-{_D3})?{_E}",),
              ("tin", "bir", "taxpayer identification"), ("bir_mod11", wc.ph_tin_ok), WEAK),
    # format only: reported with a context word
    WorldRule("de_fuehrerschein", "DE_FUEHRERSCHEIN", (rf"{_B}[A-Z0-9]\d{{2}}[A-Z0-9]{{6}}\d[A-Z0-9]{_E}",),
              ("führerschein", "fuehrerschein", "führerscheinnummer", "german driving licence")),
    WorldRule("de_handelsregister", "DE_HANDELSREGISTER", (rf"{_B}HR[AB][ ]?\d{{1,6}}(?:[ ]?[A-Z]{{1,2}})?{_E}",),
              ("handelsregister", "amtsgericht", "registergericht", "hra", "hrb")),
    WorldRule("de_kfz", "DE_KFZ", (rf"{_B}[A-ZÄÖÜ]{{1,3}}[- ][A-Z]{{1,2}}[- ]\d{{1,4}}[EH]?{_E}",),
              ("kennzeichen", "kfz", "nummernschild", "fahrzeug", "zulassung")),
    WorldRule("de_plz", "DE_PLZ", (rf"{_B}(?:0[1-9]\d{{3}}|[1-9]\d{{4}}){_E}",),
              ("plz", "postleitzahl")),
    WorldRule("de_tax_number", "DE_TAX_NUMBER",
              (rf"{_B}\d{{2,3}}/\d{{3,4}}/\d{{4,5}}{_E}", rf"{_B}(?:0[1-9]|1[0-6])\d{{11}}{_E}"),
              ("steuernummer", "st.-nr", "stnr", "finanzamt")),
    WorldRule("es_passport", "ES_PASSPORT", (rf"{_B}[A-Z]{{3}}\d{{6}}{_E}",),
              ("pasaporte", "spanish passport")),
    WorldRule("in_passport", "IN_PASSPORT", (rf"{_B}[A-Z][1-9]\d[ ]?\d{{4}}[1-9]{_E}",),
              ("indian passport",)),
    WorldRule("in_vehicle_registration", "IN_VEHICLE_REGISTRATION",
              (rf"{_B}[A-Z]{{2}}[ -]?\d{{1,2}}[ -]?[A-Z]{{1,3}}[ -]?\d{{4}}{_E}",
               rf"{_B}[2-9][1-9]BH\d{{4}}[A-HJ-NP-Z]{{2}}{_E}"),
              ("rto", "vehicle", "registration", "plate")),
    WorldRule("in_voter", "IN_VOTER", (rf"{_B}[A-Za-z]{{3}}\d{{7}}{_E}",),
              ("voter", "epic", "election")),
    WorldRule("it_driver_license", "IT_DRIVER_LICENSE", (rf"{_B}(?:U1|[A-Z]{{2}})[A-Z0-9]{{7}}[A-Z]{_E}",),
              ("patente", "patente di guida", "italian driving licence")),
    WorldRule("it_identity_card", "IT_IDENTITY_CARD",
              (rf"{_B}[A-Z]{{2}}[ ]?\d{{7}}{_E}", rf"{_B}\d{{7}}[A-Z]{{2}}{_E}", rf"{_B}[A-Z]{{2}}\d{{5}}[A-Z]{{2}}{_E}"),
              ("carta d'identità", "carta di identità", "italian identity card", "cie")),
    WorldRule("it_passport", "IT_PASSPORT", (rf"{_B}[A-Z]{{2}}\d{{7}}{_E}",),
              ("passaporto", "italian passport")),
    WorldRule("kr_passport", "KR_PASSPORT", (rf"{_B}[MSRODmsrod]\d{{3}}[A-Za-z]\d{{4}}{_E}", rf"{_B}[MSRODmsrod]\d{{8}}{_E}"),
              ("여권", "여권번호", "korean passport")),
    WorldRule("kr_driver_license", "KR_DRIVER_LICENSE", (rf"{_B}\d{{2}}[- ]?\d{{2}}[- ]?\d{{6}}[- ]?\d{{2}}{_E}",),
              ("운전면허", "운전면허번호", "korean driver license", "korean driving licence")),
    WorldRule("ng_vehicle_registration", "NG_VEHICLE_REGISTRATION", (rf"{_B}[A-Z]{{3}}[- ]?\d{{3}}[A-Z]{{2}}{_E}",),
              ("plate", "vehicle", "registration", "number plate")),
    WorldRule("tr_license_plate", "TR_LICENSE_PLATE",
              (rf"{_B}(?:0[1-9]|[1-7]\d|8[01])([ -]?)[A-PR-VYZ]{{1,3}}\1\d{{2,4}}{_E}",),
              ("plaka", "license plate", "plate")),
    WorldRule("uk_passport", "UK_PASSPORT", (rf"{_B}(?:[A-Z]{{2}}\d{{7}}|\d{{9}}){_E}",),
              ("uk passport", "british passport", "hm passport", "hmpo")),
    WorldRule("uk_driving_licence", "UK_DRIVING_LICENCE",
              (rf"{_B}[A-Z9]{{5}}\d(?:0[1-9]|1[0-2]|5[1-9]|6[0-2])(?:0[1-9]|[12]\d|3[01])\d[A-Z9]{{2}}[A-Z0-9][A-Z]{{2}}{_E}",),
              ("driving licence", "driving license", "dvla", "licence number")),
    WorldRule("uk_vehicle_registration", "UK_VEHICLE_REGISTRATION",
              (rf"{_B}[A-HJ-PR-Y]{{2}}(?:0[1-9]|[1-7]\d)[ -]?[A-HJ-PR-Z]{{3}}{_E}",),
              ("registration", "reg", "number plate", "vrm", "vehicle")),
    WorldRule("us_mbi", "US_MBI",
              (rf"{_B}[1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?[AC-HJKMNP-RT-Y]{{2}}\d{{2}}{_E}",),
              ("mbi", "medicare beneficiary", "medicare number", "medicare")),
)  # fmt: skip


class WorldIdRecognizer(PatternRecognizer):
    """A :class:`WorldRule`'s recognizer: a checked value with no context word scores the
    rule's ``bare`` score instead of 1.0; one that fails its check is kept only with a
    context word (announced, mistyped or synthetic), at :data:`FAILED`; a format-only
    value needs a context word."""

    bare_score: float = STRONG
    pattern_bound = True  # ``analyze`` rescores the patterns' findings

    def validate(self, value: str) -> str | None:
        ok = self.checksum is not None and self.checksum[1](value)
        return self.checksum[0] if ok and self.checksum is not None else None

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        if self.checksum is None or self.checksum[1](value):
            return False
        return not self._context.find(text, start, end)

    def analyze(self, text: str) -> list[Finding]:
        out = []
        for f in super().analyze(text):
            ex = f.explanation
            if ex is not None and self.checksum is not None:
                score = f.score
                if ex.validation is None:
                    score = FAILED
                elif not ex.context_words:
                    score = self.bare_score
                if score != f.score:
                    f = replace(f, score=score, explanation=replace(ex, score=score))
            out.append(f)
        return out


def _register(rule: WorldRule) -> type[WorldIdRecognizer]:
    cls = type(
        "".join(w.title() for w in rule.entity.split("_")) + "Recognizer",
        (WorldIdRecognizer,),
        {
            "__doc__": f"{rule.entity}: "
            + (
                (rule.check[1].__doc__ or "").splitlines()[0]
                if rule.check
                else "format and context"
            ),
            "__module__": __name__,
            "entity": rule.entity,
            "needs_digit": True,
            # a strong check wins over a phone or date layout on its digits; a weak one (a
            # digit in ten passes) does not win over another type's validated reading
            "tier": 0 if rule.check and rule.bare == STRONG else 1,
            "patterns": tuple(
                Pattern(f"{rule.name}_{i}", rx, _FORMAT) for i, rx in enumerate(rule.regexes)
            ),
            "context": rule.context,
            "context_required": rule.check is None,
            "checksum": rule.check,
            "bare_score": rule.bare,
        },
    )
    recognizers.register(rule.name)(cls)
    return cls


for _rule in WORLD_RULES:
    _register(_rule)
