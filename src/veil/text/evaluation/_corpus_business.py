"""Business and support texts, for ``veil text corpus --kind business``.

HR mails, bank and tax tickets, IT requests and support chats, written in the register of
real business mail (greetings, ticket headers, signatures, chat turns in lower case), with
every kind of value a reader would call personal or secret in them:

* names (of several locales, some written in lower case in chats), e-mail addresses,
  phone numbers (US formats, a label glued to the number as in "555-201-3344-Fax", an
  extension "x204", and foreign numbers from Faker's locales), postal addresses;
* passwords, passphrases and PINs after their labels, API keys and tokens, credentials
  (:mod:`veil.text.evaluation._corpus_secrets`);
* US SSNs (valid, and masked as "XXX-XX-2409", "***-**-2409" or "987-XX-XXXX"), US
  employer ids (EIN "94-2841935"), Indian PANs and Aadhaar numbers, passports of several
  countries, patient ids and MRNs (also glued: "MRN_987654321"), insurance member, voter,
  employee and student ids, usernames;
* ABA routing and bank account numbers, IBANs (valid, and with wrong check digits, compact
  or printed in groups), card numbers (valid, failing Luhn, and masked as
  "4532********7890" or "XXXX-XXXX-XXXX-9876");
* dates in many formats ("03/05/2024", "5 March 2024", "May-2021", "21-May",
  "2024-03-05T14:22:10Z"), IPv4 and IPv6 addresses, URLs.

A span's ``entity_type`` is the name veil and Presidio report it under where they have one
(``ID`` for the identifiers neither names, ``USERNAME`` for a user name); its ``kind`` is
the slot that made it ("US_SSN:masked", "ID:ein", "IBAN_CODE:bad"), so a benchmark can say
which shapes leak. Some templates hold values that are no personal data (amounts, ticket
counts, versions, a commit hash), which a redactor should leave.

Values are drawn with Faker (several locales) and :mod:`random`, seeded: the same seed gives
the same corpus. Nothing is copied from a real person or a real secret.

Examples
--------
>>> recs = generate_business_corpus(4, seed=2)
>>> all(r["full_text"][s["start_position"]:s["end_position"]] == s["entity_value"]
...     for r in recs for s in r["spans"])
True
>>> sorted({s["kind"].split(":")[0] for r in generate_business_corpus(60) for s in r["spans"]})[:3]
['ABA_ROUTING_NUMBER', 'API_KEY', 'CREDENTIAL']
"""

from __future__ import annotations

import random
import string
from datetime import date, timedelta
from typing import Any

from veil.text.evaluation._corpus import _fill, _Filler
from veil.text.recognition._checksums import luhn_ok

__all__ = ["BUSINESS_TEMPLATES", "generate_business_corpus"]

BUSINESS_TEMPLATES: tuple[str, ...] = (
    # HR mails
    "Hi {PERSON:first},\n\nWelcome aboard! Your employee ID is {ID:employee} and your start "
    "date is {DATE_TIME}. IT will send your laptop to {STREET_ADDRESS:us}.\n\n"
    "Best,\n{PERSON}\nPeople Operations",
    "Subject: Payroll change for {PERSON}\n\nPlease update the direct deposit: routing "
    "number {ABA_ROUTING_NUMBER}, account {US_BANK_NUMBER}. SSN on file: {US_SSN:masked}.\n"
    "Thanks, {PERSON:first}",
    "Dear {PERSON},\nwe received your onboarding documents. For the I-9 we still need a copy "
    "of your passport ({US_PASSPORT}) and your social security number {US_SSN}. Please reply "
    "by {DATE_TIME:loose}.\nKind regards,\nHR Team",
    "Hello,\nemployee no. {ID:employee} ({PERSON}) moves to the Berlin office on "
    "{DATE_TIME:loose}. New desk phone {PHONE_NUMBER:foreign}, mobile {PHONE_NUMBER}.",
    "Hi team, {PERSON:lower} is out sick today, please route her calls to {PHONE_NUMBER:ext}. thx",
    "Reference check for {PERSON}: previous employer EIN {ID:ein}, badge number {ID:employee}, "
    "personal mail {EMAIL_ADDRESS}.",
    "Congrats {PERSON:first}! Your student id {ID:student} is linked to the tuition "
    "reimbursement; receipts go to {EMAIL_ADDRESS}.",
    # bank and tax tickets
    "Ticket: customer {PERSON} says the card {CREDIT_CARD} was charged twice on "
    "{DATE_TIME}. Refund to IBAN {IBAN_CODE}.",
    "Customer reports a declined payment with card number {CREDIT_CARD:bad}; please "
    "check with the issuer. Callback {PHONE_NUMBER}.",
    "Chargeback for card {CREDIT_CARD:masked} (holder {PERSON}), amount USD 1,240.00, "
    "disputed on {DATE_TIME}.",
    "Wire failed: IBAN {IBAN_CODE:bad} was rejected by the beneficiary bank. "
    "Contact {PERSON} at {EMAIL_ADDRESS}.",
    "Please verify the account holder: {PERSON}, DOB {DATE_TIME:dob}, SSN {US_SSN}, "
    "address {STREET_ADDRESS:us}.",
    "Tax query from {PERSON}: PAN {IN_PAN}, Aadhaar {IN_AADHAAR}, mobile {PHONE_NUMBER:in}.",
    "Form W-9 received for {ORGANIZATION}, EIN: {ID:ein}, signed by {PERSON} on {DATE_TIME}.",
    "Our records show IBAN {IBAN_CODE:spaced} for {PERSON}. The transfer of EUR 3,200 is "
    "scheduled for {DATE_TIME:loose}.",
    "Statement for acct # {US_BANK_NUMBER}, routing {ABA_ROUTING_NUMBER}, period "
    "{DATE_TIME:loose} to {DATE_TIME:loose}.",
    "The caller confirmed the last four of the SSN ({US_SSN:masked}) and the card "
    "{CREDIT_CARD:masked}. Identity verified.",
    "Refund of 49.99 issued to card {CREDIT_CARD} on {DATE_TIME}; the customer, {PERSON}, "
    "asked for a receipt at {EMAIL_ADDRESS}.",
    "KYC: {PERSON}, passport {US_PASSPORT:foreign}, voter ID {ID:voter}, residing at "
    "{STREET_ADDRESS:intl}.",
    # IT requests
    "INC ticket from {PERSON}: cannot log in from {IP_ADDRESS} since {DATE_TIME:iso}. "
    "Username: {USERNAME}. Reset the password to {PASSWORD} and tell her by phone.",
    "Hi IT, my VPN keeps dropping. user: {USERNAME} / pwd: {PASSWORD}. Laptop IP "
    "{IP_ADDRESS}. Thanks, {PERSON:first}",
    "New hire setup for {PERSON}: login {USERNAME}, temp password {PASSWORD}, "
    "email {EMAIL_ADDRESS}.",
    "The integration broke after the key rotation; the old key {API_KEY:random_key} is "
    "still in the config at {URL}.",
    "Deploy notes: set STRIPE_SECRET={API_KEY:stripe} and DB={CREDENTIAL:url}. Build "
    "{_VERSION} passed.",
    "Please revoke the token {API_KEY:github} that {PERSON} pasted in the channel on {DATE_TIME}.",
    "Door code for the server room changed, new PIN {PASSWORD:pin}. Ask {PERSON} "
    "({PHONE_NUMBER:fax}-Fax) if it does not work.",
    "Recovery passphrase for the backup vault: {PASSWORD:phrase}",
    "Firewall log: {IP_ADDRESS} -> {IP_ADDRESS} denied at {DATE_TIME:iso}, user {USERNAME}.",
    "Hi, I'm locked out. My login is {USERNAME} and my email is {EMAIL_ADDRESS}. "
    "Call me at {PHONE_NUMBER:ext}.",
    # health and insurance support
    "Claim for patient ID {ID:patient}, MRN {MEDICAL_RECORD_NUMBER}, seen on "
    "{DATE_TIME}. Member id {ID:insurance}.",
    "Lab results for {MEDICAL_RECORD_NUMBER:glued} were faxed to Dr. {PERSON:last} "
    "at {PHONE_NUMBER:fax}(fax), or call {PHONE_NUMBER:fax}-Tel.",
    "Insurance policy number {ID:insurance} covers {PERSON} and the dependants listed "
    "on the {DATE_TIME:loose} form.",
    # support chats
    "[{DATE_TIME:time}] {PERSON:lower}: hi my card {CREDIT_CARD:masked} got blocked\n"
    "[{DATE_TIME:time}] agent: sorry about that, can you confirm your dob?\n"
    "[{DATE_TIME:time}] {PERSON:lower_again}: {DATE_TIME:dob}",
    "agent: how can I help?\ncustomer: i changed my number to {PHONE_NUMBER:foreign}, "
    "email is {EMAIL_ADDRESS}\nagent: updated, thanks {PERSON:first_lower}",
    "me: whats the wifi pw\n{PERSON:first_lower}: {PASSWORD}\nme: ty",
    "customer: my ssn is {US_SSN} and the account is {US_BANK_NUMBER}\n"
    "agent: please never send these over chat",
    "Chat transcript {DATE_TIME}: visitor from {IP_ADDRESS} asked about order "
    "status; no account linked. Shared link {URL}.",
    # values that are no personal data
    "Reminder: the quarterly all-hands moves to room 4B; 120 seats, coffee from the third floor.",
    "Invoice total EUR 12,480.50, payable within 30 days; 3 items, VAT 19 %.",
    "Release {_VERSION} fixes 14 bugs; commit {_SHA} is tagged and deployed.",
)

_DATE_TO = date(2026, 11, 22)  # a fixed day: the same corpus whenever it is generated
_B62 = string.ascii_letters + string.digits
_PHONE_LOCALES = ("en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "en_AU")
_NAME_LOCALES = ("en_US", "en_GB", "en_IN", "de_DE", "fr_FR", "es_ES", "pl_PL", "it_IT")
_IBAN_LOCALES = ("de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "en_GB")
_PAN_HOLDER = "PCHFATBLJG"  # the fourth letter of a PAN: the holder's kind


def _digits(r: random.Random, n: int) -> str:
    return "".join(r.choice(string.digits) for _ in range(n))


def _group4(s: str) -> str:
    return " ".join(s[i : i + 4] for i in range(0, len(s), 4))


def _bad_iban(iban: str) -> str:
    """The IBAN with its two check digits changed (so that the mod-97 check fails)."""
    check = int(iban[2:4])
    return f"{iban[:2]}{(check + 1 + check % 7) % 100:02d}{iban[4:]}"


class _BusinessFiller(_Filler):
    """The general corpus's filler, with the business kinds: every labelled value's slot is
    kept in ``kinds``, in the order of the spans."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.kinds: list[str] = []

    def value(self, slot: str) -> tuple[str, str | None, str | None]:
        text, label, prefix = self._business(slot)
        if label is not None:
            self.kinds.append(slot)
        return text, label, prefix

    def _person(self, variant: str) -> tuple[str, str | None, str | None]:
        r = self.rng
        if variant in ("", "lower") or not self.person:
            fake = self._locale(r.choice(_NAME_LOCALES))
            self.person = {"first": fake.first_name(), "last": fake.last_name(), "sex": "female"}
        p = self.person
        full = f"{p['first']} {p['last']}"
        if variant in ("lower", "lower_again"):
            return full.lower(), "PERSON", None
        if variant == "first_lower":
            return p["first"].lower(), "PERSON", None
        if variant in ("first", "last"):
            return p[variant], "PERSON", None
        return full, "PERSON", None

    def _date(self, variant: str) -> str:
        r = self.rng
        d = _DATE_TO - timedelta(days=r.randint(0, 3650))
        if variant == "dob":
            d = _DATE_TO - timedelta(days=r.randint(18 * 365, 80 * 365))
        if variant == "time":
            return f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}"
        if variant == "iso":
            return f"{d.isoformat()}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z"
        formats = ["%m/%d/%Y", "%Y-%m-%d", "%d.%m.%Y", "%B %d, %Y", "%d %b %Y", "%d/%m/%y"]
        if variant == "loose":  # as people write them in mail
            formats = ["%b-%Y", "%d-%b", "%B %Y", "%d %B", "%b %d", "%d.%m.%y", "%A, %B %d"]
        return d.strftime(r.choice(formats))

    def _phone(self, variant: str) -> str:
        r = self.rng
        us = (
            f"{r.randint(201, 989)}-{r.randint(200, 999)}-{r.randint(0, 9999):04d}"
            if r.random() < 0.5
            else f"({r.randint(201, 989)}) {r.randint(200, 999)}-{r.randint(0, 9999):04d}"
        )
        if variant == "ext":
            ext = str(r.randint(10, 9999))
            return f"{us} {r.choice(['x', 'ext. ', 'ext '])}{ext}"
        if variant == "in":
            return str(self._locale("en_IN").phone_number())
        if variant == "foreign":
            return str(self._locale(r.choice(_PHONE_LOCALES)).phone_number())
        return us  # "fax": a US number the template glues a label to

    def _business(self, slot: str) -> tuple[str, str | None, str | None]:
        f, r = self.fake, self.rng
        kind, _, variant = slot.partition(":")
        if kind == "PERSON":
            return self._person(variant)
        if kind == "DATE_TIME":
            return self._date(variant), "DATE_TIME", None
        if kind == "PHONE_NUMBER":
            return self._phone(variant), "PHONE_NUMBER", None
        if kind == "US_SSN" and variant == "masked":
            ssn = str(f.ssn())
            form = r.choice(["XXX-XX-{c}", "***-**-{c}", "{a}-XX-XXXX", "xxx-xx-{c}"])
            return form.format(a=ssn[:3], c=ssn[-4:]), "US_SSN", None
        if kind == "CREDIT_CARD" and variant == "bad":
            while True:
                ds = r.choice("4455") + _digits(r, 15)
                if not luhn_ok(ds):
                    return (_group4(ds) if r.random() < 0.5 else ds), "CREDIT_CARD", None
        if kind == "CREDIT_CARD" and variant == "masked":
            ds = str(f.credit_card_number(card_type="visa16"))
            form = r.choice(["compact", "grouped", "stars"])
            if form == "compact":
                return ds[:4] + "*" * 8 + ds[-4:], "CREDIT_CARD", None
            if form == "grouped":
                return f"XXXX-XXXX-XXXX-{ds[-4:]}", "CREDIT_CARD", None
            return f"**** **** **** {ds[-4:]}", "CREDIT_CARD", None
        if kind == "IBAN_CODE":
            iban = str(self._locale(r.choice(_IBAN_LOCALES)).iban())
            if variant == "bad":
                iban = _bad_iban(iban)
                return (_group4(iban) if r.random() < 0.5 else iban), "IBAN_CODE", None
            if variant == "spaced":
                return _group4(iban), "IBAN_CODE", None
            return iban, "IBAN_CODE", None
        if kind == "US_PASSPORT" and variant == "foreign":
            loc = r.choice(("de_DE", "fr_FR", "en_IN", "es_ES", "it_IT", "en_GB"))
            return str(self._locale(loc).passport_number()), "US_PASSPORT", None
        if kind == "US_PASSPORT":
            return str(f.passport_number()), "US_PASSPORT", None
        if kind == "US_BANK_NUMBER":
            return _digits(r, r.randint(8, 12)), "US_BANK_NUMBER", None
        if kind == "IN_PAN":
            up = string.ascii_uppercase
            pan = "".join(r.choice(up) for _ in range(3)) + r.choice(_PAN_HOLDER)
            return pan + r.choice(up) + _digits(r, 4) + r.choice(up), "IN_PAN", None
        if kind == "IN_AADHAAR":
            value = str(self._locale("en_IN").aadhaar_id())
            return (_group4(value) if r.random() < 0.6 else value), "IN_AADHAAR", None
        if kind == "MEDICAL_RECORD_NUMBER":
            if variant == "glued":
                return f"MRN_{_digits(r, 9)}", "MEDICAL_RECORD_NUMBER", None
            return _digits(r, r.randint(6, 8)), "MEDICAL_RECORD_NUMBER", None
        if kind == "ID":
            up = string.ascii_uppercase
            makers = {
                "ein": lambda: str(f.ein()),
                "patient": lambda: "".join(r.choice(up) for _ in range(3)) + "-" + _digits(r, 7),
                "insurance": lambda: "".join(r.choice(up) for _ in range(3)) + _digits(r, 9),
                "voter": lambda: "".join(r.choice(up) for _ in range(3)) + _digits(r, 7),
                "employee": lambda: r.choice(["EMP-", "E", ""]) + _digits(r, r.randint(5, 6)),
                "student": lambda: f"S{r.randint(2015, 2026)}-{_digits(r, 4)}",
            }
            return makers[variant](), "ID", None
        if kind == "USERNAME":
            name = str(f.user_name())
            return (name if r.random() < 0.7 else f"{name}{r.randint(1, 99)}"), "USERNAME", None
        if kind == "API_KEY" and variant == "random_key":
            value = "".join(r.choice(_B62) for _ in range(32))
            while value.isalpha():
                value = "".join(r.choice(_B62) for _ in range(32))
            return value, "API_KEY", None
        if kind == "IP_ADDRESS":
            return (f.ipv4_public() if r.random() < 0.75 else f.ipv6()), "IP_ADDRESS", None
        if kind == "URL":
            return (f.url() + r.choice(["", "docs/setup", "admin/login?next=/"])), "URL", None
        if kind == "STREET_ADDRESS" and not variant:
            return self.address("us"), "STREET_ADDRESS", None
        return super().value(slot)


def generate_business_corpus(n: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` labelled business and support texts, templates of :data:`BUSINESS_TEMPLATES`
    drawn in turn (so every template appears), in the record format of
    :func:`veil.text.generate_corpus`; each span also has its slot as ``kind``."""
    filler = _BusinessFiller(seed)
    rng = random.Random(seed + 1)
    order = list(range(len(BUSINESS_TEMPLATES)))
    out: list[dict[str, Any]] = []
    while len(out) < n:
        rng.shuffle(order)
        for ti in order:
            if len(out) >= n:
                break
            filler.kinds = []
            rec = _fill(BUSINESS_TEMPLATES[ti], filler)
            for span, kind in zip(rec["spans"], filler.kinds, strict=True):
                span["kind"] = kind
            rec["template"] = ti
            out.append(rec)
    return out
