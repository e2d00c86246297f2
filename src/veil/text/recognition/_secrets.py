"""Secrets in text: passwords after their labels, API keys and tokens, credentials.

Three entity types, by what the secret is and who made it:

``PASSWORD``
    A secret a person chose or was given to type: a password, passphrase, passcode or PIN,
    found after its label ("password:", "pwd=", "PIN 4821", "temp password is ...",
    "mot de passe :", "Passwort:", "contraseña:", ``Password=...;`` in an ADO.NET string).
    The label is what makes it a password, whatever the value's shape; a label with no
    value after it ("password reset link sent", "the password policy requires 12
    characters", "PIN code of the building") is no finding.
``API_KEY``
    A token a service issued to a program, found by the provider's published prefix and
    format (AWS access key ids ``AKIA``/``ASIA``, GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/
    ``ghr_``/``github_pat_``, GitLab ``glpat-``, Slack ``xox[abprs]-``, Stripe
    ``sk_``/``rk_``/``pk_`` live and test keys, Google ``AIza``, OpenAI ``sk-``, Twilio
    ``SK``/``AC`` ids, SendGrid ``SG.``, npm ``npm_``, PyPI ``pypi-``), a JSON Web Token
    (three base64url parts whose header decodes to a JSON object with ``"alg"``), a bearer
    token, or a long high-entropy token near a secret-like word (token, secret, key, api,
    auth, bearer, credential).
``CREDENTIAL``
    Key material or a bundle that logs in by itself: a PEM private key block (from its
    ``-----BEGIN ... PRIVATE KEY-----`` line to its END line, across lines), an AWS secret
    access key near an AWS word, an Azure storage ``AccountKey=``, a URL or connection
    string with a user and a password (``postgres://user:pw@host/db``, reported whole) and
    an HTTP ``Basic`` authorization value.

A high-entropy token counts only near a secret-like word: its Shannon entropy per
character must reach :data:`ENTROPY_BITS`, it is at least 20 characters long and holds
letters and digits. Without such a word a git commit hash, a UUID or a base64 image in a
``data:`` URI is no finding (a ``data:`` URI never is).

Each finding carries an :class:`~veil.text.Explanation` (recognizer, pattern, score);
nothing here logs or raises with a value.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import random
import re
from collections import Counter

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import (
    Pattern,
    PatternRecognizer,
    Recognizer,
    recognizers,
    scan,
)
from veil.text.vocab._lexicon import word_set

__all__ = [
    "ENTROPY_BITS",
    "SECRET_TYPES",
    "ApiKeyRecognizer",
    "CredentialRecognizer",
    "HighEntropyTokenRecognizer",
    "JwtRecognizer",
    "PasswordRecognizer",
    "secret_surrogate",
    "shannon_entropy",
]

#: the entity types of this module
SECRET_TYPES = frozenset({"PASSWORD", "API_KEY", "CREDENTIAL"})

#: least Shannon entropy per character, in bits, of a token reported near a secret word
#: (random base64 of 20 characters scores about 4.0, random hex of 40 about 3.7; English
#: words glued together about 3.0 to 3.5)
ENTROPY_BITS = 3.3

_I = re.IGNORECASE

# -- passwords ------------------------------------------------------------------------------
# the labels; "pass" alone only before ":" or "=" (a boarding pass, pass the test)
_PW_LABEL = (
    r"(?:(?:new|temp(?:orary)?|initial|default|one[- ]time|current|old|admin|root|user|"
    r"wifi|wi-fi|wlan|vpn|db|database|email|e-mail|account|login|system)[ _-]?)?"
    r"(?:pass(?:word|wd|code|phrase)s?|pass[ ]phrase|pwd|pin(?:[ ]?code)?|"
    r"mot[ ]de[ ]passe|passwort|kennwort|contrase(?:ñ|n)a|clave|senha|wachtwoord|"
    r"has(?:ł|l)o|parola|salasana|l(?:ö|o)senord)"
)
_PASS_ONLY = r"pass|pw"  # noqa: S105 - a label regex, not a password
# what may sit between a label and its separator: "password for the VPN:", "Password (temp):"
_QUAL = r"(?:[ \t]+(?:for|to|of|on|du|de|für|para)[ \t]+[\w.@-]{1,30}(?:[ \t]+[\w.@-]{1,30}){0,2}|[ \t]*\([\w .-]{1,20}\))?"
# a value: one token; trailing sentence punctuation is cut off by the recognizer
_VALUE = r"[^\s\"'<>;]{1,128}"
_PW_SEP = r"[\"']?[ \t]*(?::|=|=>|->|：)[ \t]*"
_PW_VERB = (
    r"[ \t]+(?:is|was|will[ ]be|has[ ]been[ ]set[ ]to|set[ ]to|changed[ ]to|reset[ ]to|"
    r"is[ ]now|now[ ]is|est|es|ist|lautet|é|è|wordt|to)(?!\w)[ \t]*:?[ \t]*"
)
_LEFT = r"(?<![^\W_])"  # not inside a word, but "DB_PASSWORD=" counts


# words that follow a label without being its value ("password: required", "password is
# incorrect", "PIN is wrong")
_NOT_VALUES = word_set(
    """
    a an the this that it my your his her our their its not no none n/a na null nil empty blank
    required incorrect correct wrong invalid expired expires expiring reset resets change changed
    changing same unknown missing needed mandatory optional protected encrypted hidden masked
    redacted sent set updated weak strong too very case-sensitive sensitive below above attached
    enclosed here there same as different please and or but if when which who what where how
    locked unlocked forgotten forgot lost stolen compromised valid ok okay fine good bad long short
    like similar
    requirements policy manager field prompt login user username sms email mail via by with
    provided shared given changed. est es ist lautet is was be been being to for of on in at
    """
)


def _trim(text: str, start: int, end: int) -> int:
    """``end`` moved left past trailing sentence punctuation and closing brackets."""
    while end > start and text[end - 1] in ".,;:)]}»\"'":
        end -= 1
    return end


class _LabelledValueRecognizer(PatternRecognizer):
    """A pattern recognizer whose value is trimmed of trailing punctuation and checked
    against the words that follow a label without being a value."""

    tier = 0
    pattern_bound = True  # ``analyze`` trims and filters the patterns' findings

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return value.casefold() in _NOT_VALUES or not any(ch.isalnum() for ch in value)

    def analyze(self, text: str) -> list[Finding]:
        out = []
        for f in super().analyze(text):
            end = _trim(text, f.start, f.end)
            if end <= f.start:
                continue
            value = text[f.start : end]
            if value.casefold() in _NOT_VALUES or not any(ch.isalnum() for ch in value):
                continue
            if end != f.end:
                f = Finding(
                    f.start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation
                )
            out.append(f)
        return out


def _looks_made(value: str) -> bool:
    """A value that no sentence word has: a digit or a symbol with letters, or mixed case
    inside the word ("W!nter2024", "hunter2", "CorrectHorse")."""
    if len(value) < 4:
        return False
    has_digit = any(ch.isdigit() for ch in value)
    has_alpha = any(ch.isalpha() for ch in value)
    has_symbol = any(not ch.isalnum() for ch in value.rstrip(".,;:!?"))
    inner_upper = any(ch.isupper() for ch in value[1:])
    return (has_alpha and (has_digit or has_symbol or inner_upper)) or (has_digit and has_symbol)


@recognizers.register("password")
class PasswordRecognizer(_LabelledValueRecognizer):
    """Passwords, passphrases, passcodes and PINs after their label, in several languages.

    Examples
    --------
    >>> r = PasswordRecognizer()
    >>> text = "login: jdoe / pass: W!nter2024."
    >>> [text[f.start:f.end] for f in r.analyze(text)]
    ['W!nter2024']
    >>> r.analyze("the password policy requires 12 characters")
    []
    """

    entity = "PASSWORD"
    patterns = (
        # "password: X", "pwd=X", "DB_PASSWORD=X", "Password=X;" (ADO.NET), "pass: X"
        Pattern(
            "label_separator",
            rf"{_LEFT}(?:{_PW_LABEL}|{_PASS_ONLY}){_QUAL}{_PW_SEP}({_VALUE})",
            0.85,
            group=1,
            flags=_I,
        ),
        # "password: 'a b c'", "passphrase = \"correct horse battery staple\""
        Pattern(
            "label_quoted",
            rf"{_LEFT}(?:{_PW_LABEL}|{_PASS_ONLY}){_QUAL}{_PW_SEP}[\"'“‘]([^\"'”’\n]{{1,128}})[\"'”’]",
            0.85,
            group=1,
            flags=_I,
        ),
        # "temp password is W!nter2024", "das Passwort lautet X"
        Pattern(
            "label_verb",
            rf"{_LEFT}{_PW_LABEL}{_QUAL}{_PW_VERB}[\"'“‘]?({_VALUE})",
            0.8,
            group=1,
            flags=_I,
        ),
        # "the passphrase is 'blue fox ran far'"
        Pattern(
            "label_verb_quoted",
            rf"{_LEFT}{_PW_LABEL}{_QUAL}{_PW_VERB}[\"'“‘]([^\"'”’\n]{{1,128}})[\"'”’]",
            0.8,
            group=1,
            flags=_I,
        ),
        # "new password W!nter2024": the value must look made (checked in ``invalidate``)
        Pattern("label_value", rf"{_LEFT}{_PW_LABEL}[ \t]+({_VALUE})", 0.75, group=1, flags=_I),
        # "passphrase: correct horse battery staple" (to the end of the line)
        Pattern(
            "passphrase_line",
            rf"(?<![^\W_])pass[ ]?phrase{_QUAL}[ \t]*(?::|=|is)[ \t]*([^\n\"'<>]{{3,80}}?)[ \t]*(?:$|[.\n])",
            0.8,
            group=1,
            flags=_I | re.MULTILINE,
        ),
    )

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if _PW_STEMS.search(text.lower()) is None:  # no label stem: no pattern can match (speed)
            return out
        for f in super().analyze(text):
            e = f.explanation
            value = text[f.start : f.end]
            pin = _is_pin_label(text, f.start)
            if (
                e is not None
                and e.pattern_name == "label_value"
                and not _looks_made(value)
                and not (pin and value.isdigit() and _pin_ok(value))  # "new PIN 3694"
            ):
                continue
            if pin and not _pin_ok(value):
                continue
            if _BARE_PASS.search(text, max(0, f.start - 16), f.start) and (
                len(value) < 4 or value.isdigit()
            ):
                continue  # "Pass: 120, Fail: 3", "boarding pass: 12345"
            out.append(f)
        out.extend(self._near_word(text, out))
        return out

    def _near_word(self, text: str, found: list[Finding]) -> list[Finding]:
        """A complex token a few words after a password word with no label layout between
        them: "changed my password, the old one SecureP@ss8901 still works"."""
        out: list[Finding] = []
        for w in _PW_WORD.finditer(text):
            stop = min(len(text), w.end() + _NEAR_WINDOW)
            cut = _SENTENCE_END.search(text, w.end(), stop)
            if cut is not None:
                stop = cut.start()
            for m in _PW_TOKEN.finditer(text, w.end(), stop):
                start, end = m.start(), _trim(text, m.start(), m.end())
                value = text[start:end]
                if not _complex(value) or _NOT_A_PASSWORD.search(value):
                    continue
                if any(f.start < end and start < f.end for f in (*found, *out)):
                    continue
                word = w.group().lower()
                out.append(
                    Finding(
                        start,
                        end,
                        self.entity,
                        _NEAR_SCORE,
                        self.name,
                        self.tier,
                        Explanation(
                            self.name,
                            "complex_near_password_word",
                            _NEAR_SCORE,
                            _NEAR_SCORE,
                            (word,),
                        ),
                    )
                )
        return out


# a password word with no label layout after it, and how far after it a complex token may
# stand (in the same sentence): a token a person typed is no word of the sentence
_PW_WORD = lazy_compile(
    r"(?<![^\W_])(?:pass(?:word|wd|code|phrase)s?|pwd|mot de passe|passwort|kennwort|"
    r"contrase(?:ñ|n)a|senha|wachtwoord|has(?:ł|l)o)(?![^\W_])",
    _I,
)
_NEAR_WINDOW = 48
_NEAR_SCORE = 0.7
_SENTENCE_END = lazy_compile(r"[.!?](?:\s|$)|\n")
_PW_TOKEN = lazy_compile(r"(?<!\S)[^\s\"'<>]{8,64}")
# an address, a path or a placeholder, not a typed secret
_NOT_A_PASSWORD = lazy_compile(
    r"://|^www\.|@[\w-]+\.[A-Za-z]{2,}|^[/~]|^\$\{|^<|^\["
    # a file's name ("Q3-report.xlsx"), a date and time ("2024-01-15T10:00Z")
    r"|\.[A-Za-z][A-Za-z0-9]{1,4}$|^\d{4}-\d{2}-\d{2}"
)


def _complex(value: str) -> bool:
    """Lower case and at least two of upper case, digits and symbols, in 8 to 64
    characters: what a password policy asks for, and what a word of a sentence never has."""
    if not 8 <= len(value) <= 64 or not any(ch.islower() for ch in value):
        return False  # a typed password has a lower-case letter; "COVID-19" has none
    kinds = (
        any(ch.islower() for ch in value)
        + any(ch.isupper() for ch in value)
        + any(ch.isdigit() for ch in value)
        + any(not ch.isalnum() for ch in value)
    )
    return kinds >= 3


# a stem of every label above, searched once before the patterns run
_PW_STEMS = lazy_compile(
    r"pass|pw|pin|mot de passe|kennwort|contrase|clave|senha|wachtwoord|has[łl]o|parola|"
    r"salasana|l[öo]senord"
)  # searched in the lower-cased text: ten times faster than IGNORECASE
_BARE_PASS = lazy_compile(r"(?<![^\W_])pass[\"']?[ \t]*(?::|=|=>|->|：)[ \t]*[\"'“‘]?$", _I)
_PIN_BEFORE = lazy_compile(r"(?<![^\W_])pin(?:[ ]?code)?\b[^\n]{0,24}$", _I)


def _is_pin_label(text: str, start: int) -> bool:
    before = text[max(0, start - 32) : start]
    return _PIN_BEFORE.search(before) is not None and not re.search(r"pass", before, _I)


def _pin_ok(value: str) -> bool:
    """A PIN is 4 to 12 digits (or letters and digits, with a digit)."""
    return 4 <= len(value) <= 12 and any(ch.isdigit() for ch in value) and value.isalnum()


# -- API keys by prefix ----------------------------------------------------------------------
_B = r"(?<![A-Za-z0-9_])"
_E = r"(?![A-Za-z0-9_])"


def _mixed(value: str) -> bool:
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)


@recognizers.register("api_key")
class ApiKeyRecognizer(PatternRecognizer):
    """API keys and tokens by their providers' published prefixes and formats.

    Examples
    --------
    >>> r = ApiKeyRecognizer()
    >>> text = "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"
    >>> [(text[f.start:f.end], f.explanation.pattern_name) for f in r.analyze(text)]
    [('AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id')]
    """

    entity = "API_KEY"
    tier = 0
    pattern_bound = True  # ``analyze`` filters the patterns' findings
    patterns = (
        Pattern("aws_access_key_id", rf"{_B}(?:AKIA|ASIA)[A-Z0-9]{{16}}{_E}", 0.9),
        Pattern("github_token", rf"{_B}gh[pousr]_[A-Za-z0-9]{{36,255}}{_E}", 0.95),
        Pattern("github_fine_grained_pat", rf"{_B}github_pat_[A-Za-z0-9_]{{22,255}}{_E}", 0.95),
        Pattern("gitlab_pat", rf"{_B}glpat-[A-Za-z0-9_-]{{20,64}}(?![A-Za-z0-9_-])", 0.95),
        Pattern("slack_token", rf"{_B}xox[abprs]-[A-Za-z0-9-]{{10,250}}(?![A-Za-z0-9-])", 0.9),
        Pattern("stripe_key", rf"{_B}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{{10,247}}{_E}", 0.95),
        Pattern("google_api_key", rf"{_B}AIza[0-9A-Za-z_-]{{35}}(?![A-Za-z0-9_-])", 0.9),
        Pattern(
            "openai_key",
            rf"{_B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,200}}(?![A-Za-z0-9_-])",
            0.8,
        ),
        Pattern("twilio_sid", rf"{_B}(?:SK|AC)[0-9a-f]{{32}}{_E}", 0.8),
        Pattern(
            "sendgrid_key",
            rf"{_B}SG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}(?![A-Za-z0-9_-])",
            0.95,
        ),
        Pattern("npm_token", rf"{_B}npm_[A-Za-z0-9]{{36}}{_E}", 0.9),
        Pattern("pypi_token", rf"{_B}pypi-[A-Za-z0-9_-]{{50,}}(?![A-Za-z0-9_-])", 0.9),
        Pattern(
            "bearer_token",
            r"(?<![^\W_])bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
            0.8,
            group=1,
            flags=_I,
        ),
    )

    def analyze(self, text: str) -> list[Finding]:
        # an "sk-" or bearer value of letters only ("sk-learn-compatible-...", "Bearer
        # authentication-required") is a word, not a key; prefixes that are specific
        # enough need no digit (an AWS key id may have none)
        return [
            f
            for f in super().analyze(text)
            if f.explanation is None
            or f.explanation.pattern_name not in _NEEDS_DIGIT
            or _mixed(text[f.start : f.end])
        ]


_NEEDS_DIGIT = frozenset({"openai_key", "bearer_token"})


# -- JWTs ------------------------------------------------------------------------------------
def _b64url_json(part: str) -> object:
    try:
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


@recognizers.register("jwt")
class JwtRecognizer(PatternRecognizer):
    """JSON Web Tokens: three base64url parts, the header a JSON object with ``"alg"``.

    Examples
    --------
    >>> tok = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    ...        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
    >>> [f.validation for f in (x.explanation for x in JwtRecognizer().analyze(tok))]
    ['jwt_header']
    """

    entity = "API_KEY"
    tier = 0
    requires = "."
    patterns = (
        Pattern(
            "jwt",
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])",
            0.6,
        ),
    )

    def validate(self, value: str) -> str | None:
        return "jwt_header"

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        header = _b64url_json(value.split(".", 1)[0])
        return not (isinstance(header, dict) and "alg" in header)


# -- credentials -----------------------------------------------------------------------------
# what every pattern of the credential recognizer holds: a PEM line, a URL's "://",
# "AccountKey", "Authorization", or one of its context words
_CRED_HINTS = lazy_compile(r"-----begin|://|accountkey|authorization|aws|secret")  # lower-cased
_AWS_WORDS = ("aws", "secret", "aws_secret_access_key", "secret_access_key", "secretaccesskey")


@recognizers.register("credential")
class CredentialRecognizer(PatternRecognizer):
    """Private keys, cloud secret keys and URLs or strings that carry a login.

    Examples
    --------
    >>> r = CredentialRecognizer()
    >>> text = "DATABASE_URL=postgres://app:s3cr3t@db.internal:5432/prod"
    >>> [text[f.start:f.end] for f in r.analyze(text)]
    ['postgres://app:s3cr3t@db.internal:5432/prod']
    """

    entity = "CREDENTIAL"
    tier = 0
    patterns = (
        Pattern(
            "pem_private_key",
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?"
            r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
            1.0,
        ),
        # a block cut off before its END line (a pasted excerpt): the header and the
        # base64 lines that follow it
        Pattern(
            "pem_private_key_open",
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*\r?\n?[ \t]*[A-Za-z0-9+/=:,-]{8,})*",
            0.9,
        ),
        Pattern(
            "url_with_password",
            r"(?<![\w+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@\"'<>]{1,64}:[^\s@/\"'<>]{1,128}@"
            r"[^\s/?#\"'<>]+(?:[/?#][^\s\"'<>]*)?",
            0.9,
        ),
        Pattern(
            "azure_account_key",
            r"(?<![^\W_])AccountKey[ \t]*=[ \t]*([A-Za-z0-9+/]{40,}={0,2})",
            0.95,
            group=1,
            flags=_I,
        ),
        Pattern(
            "http_basic",
            r"(?<![^\W_])authorization[\"']?[ \t]*[:=][ \t]*[\"']?basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
            0.9,
            group=1,
            flags=_I,
        ),
        Pattern(
            "aws_secret_access_key",
            r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
            0.4,
            context_required=True,
        ),
    )
    context = _AWS_WORDS
    context_window = 64
    pattern_bound = True  # ``analyze`` skips texts and trims the patterns' findings

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if _CRED_HINTS.search(text.lower()) is None:  # no pattern can match without one (speed)
            return out
        for f in super().analyze(text):
            e = f.explanation
            if e is not None and e.pattern_name == "url_with_password":
                end = _trim(text, f.start, f.end)
                f = Finding(f.start, end, f.entity_type, f.score, f.recognizer, f.tier, e)
            out.append(f)
        return out

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        if value.startswith("-----") or "://" in value:
            return False
        if len(value) == 40 and "=" not in text[start - 12 : start]:
            # a bare 40-character run near an AWS word: letters of both cases and digits
            return not (
                any(c.isupper() for c in value)
                and any(c.islower() for c in value)
                and any(c.isdigit() for c in value)
            )
        return False


# -- high-entropy tokens near a secret word ----------------------------------------------------
def shannon_entropy(value: str) -> float:
    """Shannon entropy per character of ``value``, in bits.

    Examples
    --------
    >>> round(shannon_entropy("aaaa"), 2), round(shannon_entropy("abcd"), 2)
    (0.0, 2.0)
    """
    if not value:
        return 0.0
    n = len(value)
    return sum(c / n * math.log2(n / c) for c in Counter(value).values())  # never -0.0


_NEAR_WORDS = (
    r"(?:tokens?|secrets?|keys?|api|apikey|auth|authorization|bearer|credentials?|"
    r"access[_-]?key|api[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token|"
    r"access[_-]?token|refresh[_-]?token|session[_-]?token|private[_-]?key|signing[_-]?key)"
)
_NEAR_HINT = lazy_compile(r"token|secret|key|api|auth|bearer|credential")  # lower-cased
_SECRET_WORD = lazy_compile(rf"(?<![A-Za-z]){_NEAR_WORDS}(?![A-Za-z])", _I)
_TOKEN = lazy_compile(r"(?<![A-Za-z0-9+/_.=-])[A-Za-z0-9+/_.=-]{20,512}(?![A-Za-z0-9+/_.=-])")


def _inside_pem(text: str, start: int) -> bool:
    """Whether ``start`` lies in a PEM block (a public key or certificate is no secret; a
    private key block is the credential recognizer's, whole)."""
    begin = text.rfind("-----BEGIN", 0, start)
    return begin >= 0 and text.rfind("-----END", begin, start) < 0


@recognizers.register("secret_token")
class HighEntropyTokenRecognizer(Recognizer):
    """Long random-looking tokens (``API_KEY``) within a few words after a secret-like word.

    A token is at least 20 characters of base64/base64url/hex alphabet, holds letters and
    digits, and has at least :data:`ENTROPY_BITS` bits of entropy per character; a word
    such as token, secret, key, api, auth, bearer or credential must stand at most
    ``window`` characters before it. Tokens inside a ``data:`` URI or a URL path, and
    findings that another recognizer makes by prefix, are left to those.

    Examples
    --------
    >>> r = HighEntropyTokenRecognizer()
    >>> text = "the service token is 9fQ2xLk7Pz3RtW8vN1bYc4Ud"
    >>> [(text[f.start:f.end], f.explanation.pattern_name) for f in r.analyze(text)]
    [('9fQ2xLk7Pz3RtW8vN1bYc4Ud', 'entropy_near_secret_word')]
    >>> r.analyze("fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b")
    []
    """

    name = "secret_token"
    entities = ("API_KEY",)
    tier = 1
    window = 40
    score = 0.7

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if _NEAR_HINT.search(text.lower()) is None or _SECRET_WORD.search(text) is None:
            return out
        for m in scan(_TOKEN, text):
            start, end = m.span()
            value = m.group(0).rstrip(".=")
            end = start + len(value)
            if len(value) < 20 or not _mixed(value):
                continue
            before = text[max(0, start - self.window) : start]
            if re.search(r"(?:base64,|://|data:)[^\s]*$", before, _I):
                continue
            if shannon_entropy(value) < ENTROPY_BITS or _inside_pem(text, start):
                continue
            words = tuple(w.lower() for w in _SECRET_WORD.findall(before))
            if not words:
                continue
            out.append(
                Finding(
                    start,
                    end,
                    "API_KEY",
                    self.score,
                    self.name,
                    self.tier,
                    Explanation(
                        self.name, "entropy_near_secret_word", self.score, self.score, words
                    ),
                )
            )
        return out


# -- surrogates --------------------------------------------------------------------------------
_KEEP_PREFIX = lazy_compile(
    r"^(?:AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|[srp]k_(?:live|test)_|AIza|"
    r"sk-(?:proj-|svcacct-|admin-)?|SK|AC|SG\.|npm_|pypi-|eyJ|[A-Za-z][A-Za-z0-9+.-]{1,20}://)"
)
_PEM_LINE = lazy_compile(r"-----(?:BEGIN|END)[ A-Z0-9]*-----")


def secret_surrogate(value: str, rng: random.Random) -> str:
    """A random string of ``value``'s shape: each letter a random letter of the same case,
    each digit a random digit, other characters kept, and the provider prefix ("ghp_",
    "AKIA", "postgres://") and PEM BEGIN/END lines kept so the text still reads. The
    characters come from ``rng``, never from ``value``.

    Examples
    --------
    >>> s = secret_surrogate("ghp_" + "a1B2" * 9, random.Random(0))
    >>> s.startswith("ghp_"), len(s), s == "ghp_" + "a1B2" * 9
    (True, 40, False)
    """
    keep = [False] * len(value)
    m = _KEEP_PREFIX.match(value)
    if m is not None:
        keep[: m.end()] = [True] * m.end()
    for pm in _PEM_LINE.finditer(value):
        keep[pm.start() : pm.end()] = [True] * (pm.end() - pm.start())
    lower, upper, digits = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
    out = []
    for ch, k in zip(value, keep, strict=True):
        if k or not ch.isascii():
            out.append(ch if k else rng.choice(lower))
        elif ch.islower():
            out.append(rng.choice(lower))
        elif ch.isupper():
            out.append(rng.choice(upper))
        elif ch.isdigit():
            out.append(rng.choice(digits))
        else:
            out.append(ch)
    return "".join(out)
