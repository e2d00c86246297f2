"""Realistic fake values of the same type and format (Faker, seeded per value).

Each surrogate is drawn from a generator seeded with a number derived from the original
value (by the caller, with a keyed HMAC), so one value always gets the same surrogate and
different values almost always different ones. Formats are kept: separators and grouping
of numbers, the case of names, the issuer digit and Luhn validity of cards, the country
and mod-97 validity of IBANs, the SSA rules of SSNs, the ISO/numeric/month-name shape of
dates. A full postal address is replaced by one whole fake address of the same country's
format (Faker's locale for it), on one line with ", " or over lines as the original was, so
street, city and postcode agree; a lone street line by a street line.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable
from typing import Any

from veil._lazy import lazy_compile
from veil.text.recognition._address_lower import address_layout, address_shape
from veil.text.recognition._checksums import IBAN_LENGTHS
from veil.text.recognition._national_ids import (
    aadhaar_ok,
    abn_ok,
    medicare_ok,
    nino_ok,
    nric_ok,
    tfn_ok,
)
from veil.text.recognition._secrets import secret_surrogate
from veil.text.recognition._street_names import LONE_UNIT
from veil.text.vocab._street_words import _STATE_CODES, _STATE_NAMES, _STATES

__all__ = ["SurrogateFactory"]

# "²" and "٣" are digits to str.isdigit() but not to int() on their own, nor to a layout
_ASCII_DIGITS = frozenset("0123456789")
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS_FULL = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# Faker locale for an address whose format says its country
_ADDRESS_LOCALES = {
    "US": "en_US",
    "CA": "en_CA",
    "GB": "en_GB",
    "AU": "en_AU",
    "DE": "de_DE",
    "FR": "fr_FR",
    "IT": "it_IT",
    "ES": "es_ES",
    "NL": "nl_NL",
    "PT": "pt_PT",
    "BR": "pt_BR",
    "MX": "es_MX",
    "BE": "nl_BE",
    "SE": "sv_SE",
    "DK": "da_DK",
    "NO": "no_NO",
    "FI": "fi_FI",
    "PL": "pl_PL",
    "CZ": "cs_CZ",
    "NZ": "en_NZ",
    "IE": "en_IE",
    "IN": "en_IN",
}
_NRP = [
    "American",
    "Canadian",
    "Mexican",
    "Brazilian",
    "French",
    "German",
    "Italian",
    "Spanish",
    "Polish",
    "Irish",
    "Nigerian",
    "Kenyan",
    "Egyptian",
    "Indian",
    "Chinese",
    "Japanese",
    "Korean",
    "Vietnamese",
    "Filipino",
    "Australian",
    "Catholic",
    "Muslim",
    "Jewish",
    "Buddhist",
    "Hindu",
    "Protestant",
    "Democrat",
    "Republican",
]


def _digits_like(value: str, rng: random.Random, first_nonzero: bool = True) -> str:
    out = []
    first = True
    for ch in value:
        if ch in _ASCII_DIGITS:
            lo = 1 if (first and first_nonzero) else 0
            out.append(str(rng.randint(lo, 9)))
            first = False
        elif ch.isalpha():
            letter = chr(rng.randint(65, 90))
            out.append(letter if ch.isupper() else letter.lower())
        else:
            out.append(ch)
    return "".join(out)


def _with_layout(template: str, digits: str) -> str:
    """``digits`` written in ``template``'s layout ("123-45-6789"); a template with another
    count of digits (an odd value, "0000000000" as an SSN) gets the digits bare, never a
    mix of its own."""
    if sum(ch in _ASCII_DIGITS for ch in template) != len(digits):
        return digits
    it = iter(digits)
    return "".join(next(it) if ch in _ASCII_DIGITS else ch for ch in template)


def _luhn_complete(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body + str((10 - total % 10) % 10)


def _match_case(template: str, fake: str) -> str:
    if template.isupper():
        return fake.upper()
    if template.islower():
        return fake.lower()
    return fake


@functools.cache
def _place_kinds() -> tuple[list[str], list[str], frozenset[str], tuple[str, ...]]:
    """Built once: the 50 states' and DC's codes, the states' names (and case-folded), and
    Faker's English country names."""
    from faker.providers.address.en_US import Provider

    names = _STATE_NAMES.split("|")
    return list(_STATE_CODES), names, frozenset(n.casefold() for n in names), Provider.countries


def _name_part(template: str, fake: str) -> str:
    """One part of a fake name in the original's form: an initial stays an initial ("F."
    and "G" give the fake part's first letter, with the full stop if there was one)."""
    if re.fullmatch(r"[^\W\d_]\.?", template):
        return fake[:1].upper() + template[1:]
    return _match_case(template, fake)


def faker_postal_address(fake: Any, locale: str) -> str:
    """A full Faker address in the layout of ``locale``'s postal service, one line per line.

    Two of Faker's quirks are repaired: ``en_IE`` puts the town after the Eircode (An Post
    puts the Eircode last), and ``fr_CA`` writes town names as "Saint- Luc".
    """
    if locale == "en_IE":
        return f"{fake.street_address()}\n{fake.city()}\n{fake.postcode()}"
    return str(fake.address()).replace("- ", "-")


_DECADE_DIGITS = lazy_compile(r"((?:(?:early|mid|late)[- ])?)(\d0)s", re.IGNORECASE)
_DECADE_WORDS = lazy_compile(r"((?:(?:early|mid|late)[- ])?)[a-z]+ies", re.IGNORECASE)


class SurrogateFactory:
    """Fake values by entity type. ``make(entity_type, value, seed)`` is deterministic."""

    def __init__(self, locale: str = "en_US") -> None:
        from faker import Faker

        self.fake: Any = Faker(locale)
        self.locale = locale
        self._fakers: dict[str, Any] = {locale: self.fake}
        self._by_type: dict[str, Callable[[str, random.Random], str]] = {
            "PERSON": self._person,
            "EMAIL_ADDRESS": self._email,
            "PHONE_NUMBER": self._phone,
            "CREDIT_CARD": self._card,
            "US_SSN": self._ssn,
            "US_ITIN": self._itin,
            "IBAN_CODE": self._iban,
            "ABA_ROUTING_NUMBER": self._aba,
            "IP_ADDRESS": self._ip,
            "MAC_ADDRESS": self._mac,
            "URL": self._url,
            "DATE_TIME": self._date,
            "LOCATION": self._location,
            "ORGANIZATION": lambda v, r: self.fake.company(),
            "NRP": lambda v, r: r.choice(_NRP),
            "STREET_ADDRESS": self._address,
            "ZIP_CODE": lambda v, r: self.fake.zipcode_plus4() if "-" in v else self.fake.zipcode(),
            "AGE": self._age,
            "UK_NHS": self._nhs,
            "MEDICAL_LICENSE": self._dea,
            "CRYPTO": self._crypto,
            # national numbers: a valid one of the same country, from its Faker locale
            "ES_NIF": lambda v, r: self._faker("ES", r).nif(),
            "ES_NIE": lambda v, r: self._faker("ES", r).nie(),
            "IT_FISCAL_CODE": lambda v, r: self._faker("IT", r).ssn(),
            "PL_PESEL": lambda v, r: self._faker("PL", r).pesel(),
            "FI_PERSONAL_IDENTITY_CODE": lambda v, r: self._faker("FI", r).ssn(),
            "IN_AADHAAR": lambda v, r: _valid_digits(v, r, aadhaar_ok),
            "AU_ABN": lambda v, r: _valid_digits(v, r, abn_ok),
            "AU_TFN": lambda v, r: _valid_digits(v, r, tfn_ok),
            "AU_MEDICARE": lambda v, r: _valid_digits(v, r, medicare_ok),
            "SG_NRIC_FIN": _nric,
            "UK_NINO": _nino,
            # secrets: random characters of the same shape, the provider prefix kept
            "PASSWORD": secret_surrogate,
            "API_KEY": secret_surrogate,
            "CREDENTIAL": secret_surrogate,
        }

    def make(self, entity_type: str, value: str, seed: int) -> str:
        rng = random.Random(seed)
        self.fake.seed_instance(seed)
        fn = self._by_type.get(entity_type)
        for _ in range(5):
            out = (
                fn(value, rng) if fn is not None else _digits_like(value, rng, first_nonzero=False)
            )
            if out != value:
                return out
        # a value the type's generator could not change (a form it does not read): never
        # return it; its shape with other characters, or else the type's placeholder
        out = _digits_like(value, rng, first_nonzero=False)
        return out if out != value else f"<{entity_type}>"

    def person_parts(self, n_parts: int, seed: int) -> list[str]:
        """``n_parts`` fake name parts: first [middle ...] last."""
        self.fake.seed_instance(seed)
        if n_parts <= 1:
            return [self.fake.last_name()]
        parts = [self.fake.first_name()]
        parts += [self.fake.first_name() for _ in range(n_parts - 2)]
        parts.append(self.fake.last_name())
        return parts

    # ------------------------------------------------------------------------------------
    def _person(self, value: str, rng: random.Random) -> str:
        words = value.split() or [value]  # whitespace alone: one part
        parts = self.person_parts(len(words), rng.randint(0, 2**62))
        return " ".join(_name_part(w, p) for w, p in zip(words, parts, strict=True))

    def _location(self, value: str, rng: random.Random) -> str:
        """A place of the same kind: a state's code for a code ("CA"), a state for a state,
        a country for a country, else a town."""
        from veil.text.vocab._lexicon import state_or_country

        codes, states, folded_states, countries = _place_kinds()
        bare = value.strip().rstrip(".,")
        if bare in _STATES:
            return rng.choice(codes)
        if not state_or_country(bare):
            return str(self.fake.city())
        if bare.casefold() in folded_states:
            return _match_case(bare, rng.choice(states))
        return _match_case(bare, rng.choice(countries))

    def _faker(self, country: str | None, rng: random.Random) -> Any:
        locale = _ADDRESS_LOCALES.get(country or "", self.locale)
        if locale not in self._fakers:
            from faker import Faker

            self._fakers[locale] = Faker(locale)
        fake = self._fakers[locale]
        if fake is not self.fake:
            fake.seed_instance(rng.randint(0, 2**62))
        return fake

    def _address(self, value: str, rng: random.Random) -> str:
        if not any(c.isdigit() for c in value):  # a street named without a number
            return str(self._faker(None, rng).street_name())
        if LONE_UNIT.fullmatch(value.strip()):  # "Apt. 4B", "Suite 210"
            return str(self._faker(None, rng).secondary_address())
        composite, country = address_shape(value)
        fake = self._faker(country, rng)
        locale = _ADDRESS_LOCALES.get(country or "", self.locale)
        if not composite:
            out = str(fake.street_address())
        elif (layout := address_layout(value)) and layout.endswith("+town_country"):
            return _town_country(value, fake, rng)
        elif locale == "en_US":
            # Faker's en_US address() also writes military (APO/FPO) addresses
            return _us_envelope(value, fake)
        else:
            out = faker_postal_address(fake, locale)
        lines = [line.strip() for line in out.split("\n") if line.strip()]
        return ("\n" if "\n" in value else ", ").join(lines)

    def _email(self, value: str, rng: random.Random) -> str:
        return f"{self.fake.user_name()}@{self.fake.free_email_domain()}"

    def _phone(self, value: str, rng: random.Random) -> str:
        ds = [c for c in value if c in _ASCII_DIGITS]
        n = len(ds)
        keep = 1 if (value.lstrip().startswith("+1") or (n == 11 and ds[0] == "1")) else 0
        if value.lstrip().startswith("+") and not keep:
            keep = 2
        new = ds[:keep]
        for i in range(keep, n):
            pos = i - keep
            new.append(str(rng.randint(2, 9) if pos in (0, 3) else rng.randint(0, 9)))
        return _with_layout(value, "".join(new))

    def _card(self, value: str, rng: random.Random) -> str:
        ds = "".join(c for c in value if c in _ASCII_DIGITS)
        keep = 2 if ds[:2] in ("34", "37", "36", "38", "51", "52", "53", "54", "55", "65") else 1
        body = ds[:keep] + "".join(str(rng.randint(0, 9)) for _ in range(len(ds) - keep - 1))
        return _with_layout(value, _luhn_complete(body))

    def _ssn(self, value: str, rng: random.Random) -> str:
        area = rng.choice([a for a in range(1, 900) if a != 666])
        new = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
        return _with_layout(value, new)

    def _itin(self, value: str, rng: random.Random) -> str:
        new = f"9{rng.randint(0, 99):02d}{rng.choice([70, 71, 72, 80, 88]):02d}{rng.randint(1, 9999):04d}"
        return _with_layout(value, new)

    def _iban(self, value: str, rng: random.Random) -> str:
        compact = "".join(c for c in value if c.isalnum()).upper()
        cc = compact[:2]
        length = IBAN_LENGTHS.get(cc, len(compact))
        bban = "".join(
            (chr(rng.randint(65, 90)) if ch.isalpha() else str(rng.randint(0, 9)))
            for ch in compact[4:length]
        )
        num = "".join(str(int(ch, 36)) for ch in bban + cc + "00")
        check = 98 - int(num) % 97
        new = f"{cc}{check:02d}{bban}"
        # a span longer than the country's IBAN (a code printed after it) keeps its layout:
        # its extra letters and digits are drawn as such
        it = iter(new)
        out = []
        for ch in value:
            if not ch.isalnum():
                out.append(ch)
                continue
            nxt = next(it, None)
            if nxt is None:
                nxt = chr(rng.randint(65, 90)) if ch.isalpha() else str(rng.randint(0, 9))
            out.append(nxt)
        return "".join(out)

    def _aba(self, value: str, rng: random.Random) -> str:
        while True:
            d = [rng.randint(0, 1)] + [rng.randint(0, 9) for _ in range(7)]
            s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
            d.append((10 - s % 10) % 10)
            if d[1] <= 2 or d[0] == 1:
                return _with_layout(value, "".join(map(str, d)))

    def _ip(self, value: str, rng: random.Random) -> str:
        return str(self.fake.ipv6() if ":" in value else self.fake.ipv4_public())

    def _mac(self, value: str, rng: random.Random) -> str:
        out = "".join(rng.choice("0123456789abcdef") if c.isalnum() else c for c in value)
        return out.upper() if value.isupper() else out

    def _url(self, value: str, rng: random.Random) -> str:
        if re.match(r"(?i)(https?|ftp)://", value):
            return str(self.fake.url())
        if value.lower().startswith("www."):
            return "www." + str(self.fake.domain_name())
        return str(self.fake.domain_name())

    def _nhs(self, value: str, rng: random.Random) -> str:
        """Another NHS number with a valid check digit, in the value's layout (3-3-4 when
        the value is not ten digits)."""
        layout = value if sum(c in _ASCII_DIGITS for c in value) == 10 else "000 000 0000"
        while True:  # one body in eleven has no valid check digit: try again
            body = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(8)]
            total = sum(d * w for d, w in zip(body, range(10, 1, -1), strict=True))
            check = (11 - total % 11) % 11
            if check != 10:
                return _with_layout(layout, "".join(map(str, [*body, check])))

    def _dea(self, value: str, rng: random.Random) -> str:
        """Another DEA number of the same registrant type, with a valid check digit."""
        from veil.text.recognition._checksums import DEA_REGISTRANTS

        kind = value[:1].upper() if value[:1].upper() in DEA_REGISTRANTS else "A"
        d = [rng.randint(0, 9) for _ in range(6)]
        check = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10
        return f"{kind}{chr(rng.randint(65, 90))}{''.join(map(str, d))}{check}"

    def _crypto(self, value: str, rng: random.Random) -> str:
        """A string of the address's shape and alphabet; its checksum does not hold, so it is
        no one's address."""
        if value[:3].lower() == "bc1":
            chars = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
            tail = "".join(rng.choice(chars) for _ in value[3:])
            return value[:3] + (tail.upper() if value.isupper() else tail)
        alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
        return value[:1] + "".join(rng.choice(alphabet) for _ in value[1:])

    def _age(self, value: str, rng: random.Random) -> str:
        """An age near the real one, written as it was: "47" -> "44", "40s" -> "50s",
        "early 40s" -> "early 30s", "forty-five" -> "forty-one", "mid-fifties" ->
        "mid-sixties". Never the value itself: what cannot be read becomes a number."""
        from veil.text.recognition._ages import decade_words, number_words, spelled_number

        def near(age: int, step: int, lo: int, hi: int, width: int = 5) -> int:
            """Another age within ``width`` steps of ``age`` (a decade moves by 10)."""
            span = range(max(lo, age - width * step), min(hi, age + width * step) + 1, step)
            return rng.choice([a for a in span if a != age] or [age + step])

        if value and all(c in _ASCII_DIGITS for c in value):
            return str(near(int(value), 1, 0, 110))
        decade = _DECADE_DIGITS.fullmatch(value)
        if decade:  # "40s", "early 40s", "mid-40s"
            new = near(int(decade.group(2)), 10, 20, 90, width=2)
            return f"{decade.group(1)}{new}s"
        words = _DECADE_WORDS.fullmatch(value)
        number = spelled_number(value)
        if words and number is not None:  # "forties", "mid-fifties"
            out = words.group(1) + decade_words(near(number, 10, 20, 90, width=2))
        elif number is not None:  # "forty-five"
            out = number_words(near(number, 1, 1, 110))
        else:
            return str(rng.randint(18, 90))
        return out[:1].upper() + out[1:] if value[:1].isupper() else out

    def _date(self, value: str, rng: random.Random) -> str:
        def month_name(m: re.Match[str]) -> str:
            full = rng.choice(_MONTHS_FULL)
            word = m.group(0)
            return full[: len(word)] if len(word) <= 4 else full

        out = re.sub(
            r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b", month_name, value
        )

        def weekday(m: re.Match[str]) -> str:
            word = m.group(0)
            full = rng.choice([d for d in _WEEKDAYS if not d.startswith(word[:3])])
            return full[: len(word)] if len(word) <= 4 else full

        out = re.sub(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\b", weekday, out)

        def number(m: re.Match[str]) -> str:
            tok = m.group(0)
            prev = out[m.start() - 1] if m.start() > 0 else ""
            if len(tok) == 4:
                return str(rng.randint(1950, 2023))
            if prev == ":":
                return f"{rng.randint(0, 59):02d}"
            v = rng.randint(1, 12)
            return f"{v:0{len(tok)}d}"

        return re.sub(r"\d+", number, out)


_LINE_SPLIT = lazy_compile(r"[ \t]*\r?\n[ \t]*")


def _valid_digits(value: str, rng: random.Random, ok: Callable[[str], bool]) -> str:
    """Other digits in ``value``'s layout that pass its national rule ``ok``; the first
    digit kept, as it may carry a range (an Aadhaar's 2 to 9, a Medicare card's 2 to 6)."""
    for _ in range(10_000):
        out = "".join(
            c if not c.isdigit() or i == 0 else str(rng.randrange(10)) for i, c in enumerate(value)
        )
        if out != value and ok(out):
            return out
    return value  # the caller then falls back to the shape with other characters


def _nric(value: str, rng: random.Random) -> str:
    """Another NRIC or FIN of the same series, with its check letter."""
    digits = "".join(str(rng.randrange(10)) for _ in range(7))
    letter = next(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if nric_ok(value[0] + digits + c))
    out = value[0] + digits + letter
    return out if value[-1].isupper() else out[:-1] + letter.lower()


def _nino(value: str, rng: random.Random) -> str:
    """Another well-formed National Insurance number in ``value``'s layout."""
    while True:
        chars = rng.choice("ABCEGHJKLMNOPRSTWXYZ") + rng.choice("ABCEGHJKLMNPRSTWXYZ")
        chars += "".join(str(rng.randrange(10)) for _ in range(6)) + rng.choice("ABCD")
        if nino_ok(chars):
            break
    it = iter(chars)
    return "".join(next(it) if c.isalnum() else c for c in value)


def _town_country(value: str, fake: Any, rng: random.Random) -> str:
    """A fake street and town in an envelope's block of street, town and country lines; the
    country's line stays (the fake is of its country where Faker has a locale for it), but
    for the digits of a city-state's postcode ("Singapore 048616")."""
    lines = [line for line in _LINE_SPLIT.split(value.strip()) if line]
    country = re.sub(r"\d", lambda _: str(rng.randrange(10)), lines[-1])
    return f"{fake.street_address()}\n{fake.city()}\n{country}"


def _us_envelope(value: str, fake: Any) -> str:
    """A fake US address in the original's layout: on one line, on two ("street\ncity, ST
    ZIP"), or an envelope's block of a line per part ("street\ncity\nstate\nZIP"), with
    the state spelt out or as a code and the city in capitals as the original has them."""
    lines = [line for line in _LINE_SPLIT.split(value.strip()) if line]
    # the region: the locality's last words before the postcode ("... Illinois 62704",
    # "Albany, New York 12207"); a city named as a state ("Washington, DC") is no region
    rest = " ".join(lines[1:]) if len(lines) > 1 else value.partition(",")[2]
    words = re.findall(r"[^\W\d_]+", rest.casefold())
    spelt = any(" ".join(words[-n:]) in _place_kinds()[2] for n in (1, 2, 3) if len(words) >= n)
    state = str(fake.state()) if spelt else str(fake.state_abbr())
    city = str(fake.city())
    if len(lines) > 1 and lines[1].isupper():
        city = city.upper()
    street, postcode = str(fake.street_address()), str(fake.postcode())
    if len(lines) >= 4:
        return "\n".join([street, city, state, postcode])
    if len(lines) == 3:
        return f"{street}\n{city}\n{state} {postcode}"
    sep = "\n" if len(lines) == 2 else ", "
    return f"{street}{sep}{city}, {state} {postcode}"
