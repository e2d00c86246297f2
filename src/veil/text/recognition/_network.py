"""Internet identifiers: e-mail addresses, IPv4/IPv6, MAC addresses, URLs and domain names.

Domain names are checked against the Public Suffix List snapshot that ships inside the
``tldextract`` package (read from the installed package, never fetched). A bare domain
without a scheme or ``www.`` must end in a generic top-level domain (``.com``, ``.org``,
``.health``...); a country-code ending (``edema.pl``, ``script.py``) needs a context word
such as "website" or "visit", and file-extension-like endings (``.zip``, ``.mov``) never
count on their own.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import re
from dataclasses import replace

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import (
    ContextMatcher,
    Pattern,
    PatternRecognizer,
    recognizers,
)
from veil.text.vocab._lexicon import word_set

__all__ = [
    "EmailRecognizer",
    "IpRecognizer",
    "MacRecognizer",
    "ObfuscatedEmailRecognizer",
    "UrlRecognizer",
    "top_level_domains",
]


@functools.cache
def top_level_domains() -> frozenset[str]:
    """Top-level labels of the ICANN section of the Public Suffix List bundled with tldextract.

    Kept on disk (:mod:`veil.text.vocab._datacache`): importing tldextract (and requests with it)
    to read the list cost a good part of the start-up of ``veil text detect``."""
    from veil.text.vocab._datacache import cached_json

    tlds: list[str] = cached_json(
        "top_level_domains",
        _read_top_level_domains,
        sources=("recognition/_network.py",),
        packages=("tldextract",),
    )
    return frozenset(tlds)


def _read_top_level_domains() -> list[str]:
    """The list as :func:`top_level_domains` keeps it: sorted, JSON-ready."""
    import pkgutil

    from veil._deps import require

    require("tldextract", extra="text", purpose="domain-name validation")
    data = pkgutil.get_data("tldextract", ".tld_set_snapshot")
    if data is None:  # pragma: no cover - the package guarantees the file
        return []
    tlds: set[str] = set()
    for line in data.decode("utf-8").splitlines():
        line = line.strip()
        if line.startswith("// ===END ICANN"):
            break
        if not line or line.startswith("//"):
            continue
        label = line.lstrip("*.!").rsplit(".", 1)[-1]
        if label.isascii():
            tlds.add(label.lower())
        else:  # an internationalised TLD, as DNS and mail write it: "рф" is "xn--p1ai"
            with contextlib.suppress(UnicodeError):  # the list holds valid labels
                tlds.add(label.encode("idna").decode("ascii").lower())
    return sorted(tlds)


_FILEISH = frozenset(
    [
        "zip",
        "mov",
        "app",
        "py",
        "sh",
        "pl",
        "rs",
        "md",
        "ps",
        "exe",
        "dll",
        "bat",
        "log",
        "txt",
        "csv",
        "doc",
        "json",
        "xml",
        "ini",
        "cfg",
        "bak",
        "tmp",
    ]
)


#: names that are no public top-level domain but are used for real mailboxes: reserved for
#: testing and documentation (RFC 2606, RFC 6761: example, test, invalid, localhost),
#: multicast DNS (RFC 6762: local), special use (RFC 7686 onion, RFC 9476 alt, RFC 8375
#: home.arpa, under the real arpa), ICANN's private-use ``internal`` (2024), and the
#: private names that company and home networks use (corp, lan, home, intranet, private,
#: localdomain). An address at one of them is still a person's address.
RESERVED_TLDS = frozenset(
    [
        "example",
        "test",
        "invalid",
        "localhost",
        "local",
        "onion",
        "alt",
        "internal",
        "corp",
        "lan",
        "home",
        "intranet",
        "private",
        "localdomain",
    ]
)


def _tld_ok(host: str) -> bool:
    tld = host.rstrip(".").rsplit(".", 1)[-1].lower()
    if tld.startswith("xn--"):
        # an internationalised TLD in punycode ("xn--p1ai", .рф): the bundled list holds
        # ASCII names only, so one that decodes to a valid IDNA label counts
        try:
            return bool(tld.encode("ascii").decode("idna"))
        except UnicodeError:
            return False
    return tld in top_level_domains() or tld in RESERVED_TLDS


@recognizers.register("email")
class EmailRecognizer(PatternRecognizer):
    """RFC-5322-ish addresses whose domain ends in a real top-level domain."""

    entity = "EMAIL_ADDRESS"
    requires = "@"
    tier = 0
    patterns = (
        Pattern(
            "email",
            r"(?<![\w.+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_])?@"
            # the top-level domain: letters, or an internationalised one in punycode
            r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
            r"(?:xn--[A-Za-z0-9-]{2,59}|[A-Za-z]{2,24})\b",
            0.6,
        ),
    )
    context = ("email", "e-mail", "mail", "contact")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not _tld_ok(value.rsplit("@", 1)[1])

    def validate(self, value: str) -> str | None:
        return "tld"


# e-mail addresses written to escape harvesters: "jo.ng [at] example [dot] com", "jo(at)
# example.org", "maria dot lopez at outlook dot com"
_OPEN, _CLOSE = r"[\[\(\{<]", r"[\]\)\}>]"
_B_AT = rf"[ \t]*{_OPEN}[ \t]*(?:at|AT|At)[ \t]*{_CLOSE}[ \t]*"
_B_DOT = rf"(?:\.|[ \t]*{_OPEN}[ \t]*(?:dot|DOT|Dot)[ \t]*{_CLOSE}[ \t]*)"
_S_DOT = r"(?:\.|[ \t]+(?:dot|DOT)[ \t]+)"
_LOCAL_WORD = r"[A-Za-z0-9](?:[A-Za-z0-9_%+-]{0,62}[A-Za-z0-9_])?"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
# the mail services whose name makes "jsmith at gmail dot com" an address with no other sign
_MAIL_HOSTS = word_set(
    "gmail googlemail outlook hotmail live msn yahoo ymail icloud me mac aol proton protonmail "
    "pm gmx web mail zoho yandex fastmail tutanota hey comcast verizon att"
)


@recognizers.register("email_obfuscated")
class ObfuscatedEmailRecognizer(PatternRecognizer):
    """E-mail addresses with "at" and "dot" written out: in brackets ("jo [at] example [dot]
    com", "jo(at)example.org"), or as words when the address cannot be a sentence: a
    dotted local part ("maria dot lopez at outlook dot com", "john.smith at gmail.com") or a
    mail service's name ("jsmith at gmail dot com"); "work at google dot com" stays out.
    The domain must end in a real top-level domain."""

    entity = "EMAIL_ADDRESS"
    tier = 0
    pattern_bound = True  # ``analyze`` skips texts before the patterns run
    patterns = (
        Pattern(
            "email_bracketed",
            rf"(?<![\w.+-]){_LOCAL_WORD}(?:{_B_DOT}{_LOCAL_WORD})*{_B_AT}"
            rf"{_LABEL}(?:{_B_DOT}{_LABEL})*{_B_DOT}[A-Za-z]{{2,24}}(?![\w-])",
            0.85,
        ),
        Pattern(
            "email_words",
            rf"(?<![\w.+@-]){_LOCAL_WORD}(?:{_S_DOT}{_LOCAL_WORD})*[ \t]+(?:at|AT)[ \t]+"
            rf"{_LABEL}(?:{_S_DOT}{_LABEL})*{_S_DOT}[A-Za-z]{{2,24}}(?![\w-])",
            0.6,
        ),
    )
    context = ("email", "e-mail", "mail", "contact", "write", "reach")

    def analyze(self, text: str) -> list[Finding]:
        # what every match holds: a bracketed "at", or " at " before a dotted or "dot" domain;
        # most texts have neither, and the patterns would try every word of them
        if _OBFUSCATED_GATE.search(text) is None:
            return []
        return super().analyze(text)

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        local, domain = _split_obfuscated(value)
        if not _tld_ok(domain) or domain.rsplit(".", 1)[-1].lower() in _FILEISH:
            return True
        if _BRACKETED.search(value):
            return False
        # written with words: a dotted local part, or a mail service's name
        return "." not in local and domain.split(".")[0].lower() not in _MAIL_HOSTS

    def validate(self, value: str) -> str | None:
        return "tld" if _BRACKETED.search(value) else None  # words alone prove less


_BRACKETED = lazy_compile(_B_AT)
_OBFUSCATED_GATE = lazy_compile(
    rf"{_OPEN}[ \t]*(?i:at)[ \t]*{_CLOSE}|[ \t](?i:at)[ \t]+[\w-]+(?:\.\w|[ \t]+(?i:dot)[ \t])"
)
_AT_SPLIT = lazy_compile(rf"{_B_AT}|[ \t]+(?:at|AT)[ \t]+")
_DOT_WORD = lazy_compile(
    rf"[ \t]*{_OPEN}[ \t]*(?:dot|DOT|Dot)[ \t]*{_CLOSE}[ \t]*|[ \t]+(?:dot|DOT)[ \t]+"
)


def _split_obfuscated(value: str) -> tuple[str, str]:
    """(local part, domain) of an obfuscated address, with its dots put back."""
    local, domain = _AT_SPLIT.split(value, 1)
    return _DOT_WORD.sub(".", local), _DOT_WORD.sub(".", domain)


@recognizers.register("ip_address")
class IpRecognizer(PatternRecognizer):
    """IPv4 and IPv6 addresses, parsed by :mod:`ipaddress`; version strings are refused.

    An IPv6 address may hold no digit ("dead:beef::cafe"): such an address counts with a
    context word ("ip", "host", "server" ...), since "a::b" is as often a path in code.
    """

    entity = "IP_ADDRESS"
    # no ``needs_digit``: an IPv6 address may be letters only; each pattern's prefilter
    # still skips texts without four digits (IPv4) or a colon (IPv6)
    tier = 0
    # ``analyze`` adds dotted runs, and a text holding one meets the ``ipv4`` pattern's needs
    pattern_bound = True
    patterns = (
        Pattern("ipv4", r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)", 0.6),
        Pattern(
            "ipv6",
            # an IPv4 tail is whole or nothing ("2001:db8::256.1.1.1" is no "2001:db8::256");
            # a prefix length may follow ("fe80::/10")
            r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|:"
            r"|(?:\d{1,3}\.){3}\d{1,3})?(?:/(?:12[0-8]|1[01]\d|\d{1,2}))?(?![\w:]|\.\d)",
            0.6,
        ),
    )
    context = (
        "ip", "ip address", "ipv4", "ipv6", "host", "server", "src", "dst", "subnet",
        "gateway", "route", "unspecified",
    )  # fmt: skip
    # whole words: "ver" ends "server", "never", "over", which once dropped the address
    _version = re.compile(r"\b(?:v|version|release|build|ver\.?)\s*$", re.IGNORECASE)

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        value, slash, _ = value.partition("/")  # a prefix length says it is a network
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return True
        if ":" in value and value.count(":") < 2:
            return True
        if (
            not any(c.isdigit() for c in value)
            and not slash
            and not self._context.find(text, start, end)
        ):
            return True  # letters only ("a::b"): an address only where the text says so
        return bool(self._version.search(text, max(0, start - 12), start))

    def validate(self, value: str) -> str | None:
        return "ipaddress"

    def analyze(self, text: str) -> list[Finding]:
        found = super().analyze(text)
        if text.count(".") >= 4:
            found.extend(self._dotted_runs(text))
        return found

    def _dotted_runs(self, text: str) -> list[Finding]:
        """Dotted-decimal runs of five or more parts that begin with an IPv4 address, whole,
        at :data:`DOTTED_RUN_SCORE`.

        RFC 3986's ``IPv4address`` is exactly four octets, so "192.168.1.1.1" is no
        address and the ``ipv4`` pattern leaves it (cutting a quad out of it would be a
        guess). It is most often an address with something glued to it (a mistyped octet,
        a port written with a dot), so a recall-first redaction replaces the whole run;
        ``veil text detect`` does not claim it. Parts over 255 (versions, dates, OIDs of
        large arcs), runs whose first four parts have one digit each ("1.2.3.4.5"), and
        runs after a version word or a word that numbers a part of a document ("section
        4.12.1.1.3") are left.
        """
        out: list[Finding] = []
        for m in _DOTTED_RUN.finditer(text):
            parts = m.group().split(".")
            if any(int(p) > 255 or (len(p) > 1 and p[0] == "0") for p in parts):
                continue
            if all(len(p) == 1 for p in parts[:4]):
                continue
            start, end = m.span()
            if self._version.search(text, max(0, start - 12), start):
                continue
            if _NUMBERED_BEFORE.search(text, max(0, start - 16), start):
                continue
            ex = Explanation(self.name, "dotted_run", DOTTED_RUN_SCORE, DOTTED_RUN_SCORE, (), None)
            out.append(Finding(start, end, self.entity, DOTTED_RUN_SCORE, self.name, 2, ex))
        return out


#: score of an IPv4 address inside a longer dotted-decimal run: redacted, not detected
DOTTED_RUN_SCORE = 0.45
# a word before a dotted number that says it numbers a part of a document or a standard
_NUMBERED_BEFORE = lazy_compile(
    r"(?i)\b(?:section|sec|§|chapter|ch|clause|article|art|para|paragraph|rule|figure|fig"
    r"|table|step|item|appendix|annex|oid|arc|standard)\.?\s*$|§\s*$"
)
_DOTTED_RUN = lazy_compile(r"(?<![\w.])(?:\d{1,3}\.){4,7}\d{1,3}(?![\w]|\.\d)")


#: score of a MAC address written with hex letters only (often a placeholder)
LETTERS_ONLY_MAC = 0.45


@recognizers.register("mac_address")
class MacRecognizer(PatternRecognizer):
    """MAC addresses: six colon- or dash-separated octets, or Cisco dotted quads."""

    entity = "MAC_ADDRESS"
    tier = 0
    pattern_bound = True  # ``analyze`` rescores the patterns' findings
    patterns = (
        Pattern(
            "mac",
            r"(?<![\w:-])[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])",
            0.8,
        ),
        Pattern(
            "mac_cisco", r"(?<![\w.])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w.])", 0.6
        ),
    )
    context = ("mac", "mac address", "hardware address", "ethernet")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        hexdigits = value.replace(":", "").replace("-", "").replace(".", "")
        return len(set(hexdigits)) == 1

    def analyze(self, text: str) -> list[Finding]:
        # letters only ("AA:BB:CC:DD:EE:FF"): often a placeholder, so below the detect
        # threshold, but still a MAC address's shape for a recall-first redaction
        return [
            f
            if any(c.isdigit() for c in text[f.start : f.end])
            else replace(f, score=LETTERS_ONLY_MAC)
            for f in super().analyze(text)
        ]


_GENERIC_HINT = ContextMatcher(
    ("website", "site", "web", "visit", "domain", "url", "link", "homepage", "online"),
    before=32,
    after=0,
)


@recognizers.register("url")
class UrlRecognizer(PatternRecognizer):
    """URLs with a scheme or ``www.``, and bare domain names with a real top-level domain."""

    entity = "URL"
    requires = "."
    tier = 0
    pattern_bound = True  # ``analyze`` trims the patterns' findings
    patterns = (
        Pattern("url_scheme", r"\b(?:https?|ftp)://[^\s<>\"'`]+", 0.9, flags=re.IGNORECASE),
        Pattern("url_www", r"\bwww\.[^\s<>\"'`]+", 0.85, flags=re.IGNORECASE),
        Pattern(
            "domain",
            r"(?<![\w@.-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}"
            r"(?:/[^\s<>\"'`]*)?(?![\w@-])",
            0.6,
        ),
    )
    context = ("url", "website", "link", "site", "domain")

    def analyze(self, text: str) -> list:  # type: ignore[override]
        out = []
        for f in super().analyze(text):
            end = f.end
            while end > f.start and text[end - 1] in ".,;:!?)]}'\"":
                end -= 1
            if end != f.end:
                f = type(f)(
                    f.start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation
                )
            out.append(f)
        return out

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        lowered = value.lower()
        if lowered.startswith(("http://", "https://", "ftp://", "www.")):
            host = re.split(r"[/?#:]", lowered.split("://", 1)[-1], maxsplit=1)[0].strip(".")
            if host.startswith("www.") and host.count(".") < 2:
                return True  # "www.microsoft": a name after "www.", not yet a host
            return not (host and "." in host and _tld_ok(host))
        host = lowered.split("/", 1)[0]
        labels = host.split(".")
        tld = labels[-1]
        written_tld = value.split("/", 1)[0].rsplit(".", 1)[-1]
        if not (written_tld.islower() or written_tld.isupper()):
            return True  # "S.Coop.", "Dr.Who": a top-level domain is not written capitalised
        if tld not in top_level_domains() or any(not lab for lab in labels):
            return True
        if all(lab.isdigit() for lab in labels[:-1]):
            return True  # numbers such as 3.14.ai are not hosts
        if tld in _FILEISH:
            return True
        if len(tld) == 2 or len(labels) < 2:
            # country code: "edema.pl", "script.py"; accept only with a web context word or
            # a second-level label typical of a registry ("co.uk", "com.au")
            if labels[-2] in ("co", "com", "org", "net", "gov", "ac", "edu") and len(labels) >= 3:
                return False
            return not _GENERIC_HINT.find(text, start, end)
        return False

    def validate(self, value: str) -> str | None:
        return "tld"
