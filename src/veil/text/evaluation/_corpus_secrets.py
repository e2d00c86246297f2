"""Business texts with secrets in them, for ``veil text corpus --kind secrets``.

IT tickets, HR mails, chat messages and pasted configuration: passwords and PINs after
their labels (several languages), provider API keys and tokens, JWTs, PEM private keys,
connection strings; and hard negatives (a password label with no value, a commit hash, a
request id, a ``data:`` image). Values are drawn at random in each provider's published
format (Faker's ``password()`` for passwords), never copied from a real secret.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Any

from veil.text.recognition._secrets import SECRET_TYPES

__all__ = ["SECRET_TEMPLATES", "SECRET_TYPES", "secret_value"]

SECRET_TEMPLATES: tuple[str, ...] = (
    "Hi {PERSON:first}, your temporary password is {PASSWORD} - please change it at first login.",
    "Ticket closed: account unlocked for {EMAIL_ADDRESS}. New password {PASSWORD}",
    "login: {_USER} / pass: {PASSWORD}",
    "Wi-Fi for visitors this week, password: {PASSWORD}",
    "Your new PIN is {PASSWORD:pin}. Never share it with anyone.",
    "Mot de passe : {PASSWORD}",
    "Ihr neues Passwort lautet {PASSWORD}.",
    "Su contraseña: {PASSWORD}",
    'The recovery passphrase is "{PASSWORD:phrase}", keep it offline.',
    "Connection string: Server=sql01;Database=hr;User Id={_USER};Password={PASSWORD:conn};",
    "Deploy log printed AWS_ACCESS_KEY_ID={API_KEY:aws} and "
    "aws_secret_access_key={CREDENTIAL:aws_secret}; rotate both.",
    "Please revoke the GitHub token {API_KEY:github} that {PERSON} pasted in the channel.",
    "Stripe key {API_KEY:stripe} was committed to the public repo on {DATE_TIME}.",
    "Slack bot token for the alerts app: {API_KEY:slack}",
    "curl -H 'Authorization: Bearer {API_KEY:jwt}' https://api.example.com/v1/me",
    "The reporting service token is {API_KEY:random}, rotate it monthly.",
    "export OPENAI_API_KEY={API_KEY:openai}",
    "Maps API key {API_KEY:google} is restricted to our domain.",
    "CI uses the npm token {API_KEY:npm} and the GitLab token {API_KEY:gitlab}.",
    "SendGrid key for newsletters: {API_KEY:sendgrid}",
    "DATABASE_URL={CREDENTIAL:url}",
    "Attached the deploy key:\n{CREDENTIAL:pem}\nPlease move it to the vault.",
    # hard negatives
    "Password reset link sent; the password policy requires 12 characters.",
    "The PIN code of the building is posted at the front desk.",
    "Fixed in commit {_SHA} and deployed as build {_SHORT}.",
    "Request {_UUID} completed in 120 ms.",
    "I forgot my password again, can you help me before the meeting?",
    "Logo embedded as data:image/png;base64,{_B64IMG} in the signature.",
)

_B62 = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"


def _run(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _pem(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
    body = "\n".join(_run(rng, _B62 + "+/", 64) for _ in range(rng.randint(3, 6)))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


def secret_value(kind: str, variant: str, rng: random.Random, fake: Any) -> str:
    """A random value for a slot of :data:`SECRET_TEMPLATES` (``kind`` an entity type of
    :data:`SECRET_TYPES` or a filler ``_USER``, ``_SHA``, ``_SHORT``, ``_UUID``,
    ``_B64IMG``)."""
    r = rng
    if kind == "PASSWORD":
        if variant == "pin":
            return _run(r, string.digits, r.choice([4, 4, 6, 8]))
        if variant == "phrase":
            return " ".join(fake.words(4))
        special = variant != "conn"  # ADO.NET ends a value at ';'; Faker adds none
        return str(fake.password(length=r.randint(8, 16), special_chars=special))
    if kind == "API_KEY":
        makers = {
            "aws": lambda: (
                r.choice(["AKIA", "ASIA"]) + _run(r, string.ascii_uppercase + "234567", 16)
            ),
            "github": lambda: f"gh{r.choice('pousr')}_" + _run(r, _B62, 36),
            "stripe": lambda: (
                f"{r.choice(['sk', 'rk', 'pk'])}_{r.choice(['live', 'test'])}_" + _run(r, _B62, 24)
            ),
            "slack": lambda: (
                f"xox{r.choice('abprs')}-{r.randint(10**10, 10**11)}-" + _run(r, _B62, 24)
            ),
            "jwt": lambda: (
                f"{_b64url({'alg': 'HS256', 'typ': 'JWT'})}."
                f"{_b64url({'sub': str(r.randint(1, 10**9)), 'iat': r.randint(10**9, 2 * 10**9)})}."
                + _run(r, _B62 + "-_", 43)
            ),
            "random": lambda: _run(r, _B62, r.randint(24, 40)),
            "openai": lambda: "sk-proj-" + _run(r, _B62, 48),
            "google": lambda: "AIza" + _run(r, _B62 + "-_", 35),
            "npm": lambda: "npm_" + _run(r, _B62, 36),
            "gitlab": lambda: "glpat-" + _run(r, _B62, 20),
            "sendgrid": lambda: f"SG.{_run(r, _B62, 22)}.{_run(r, _B62, 43)}",
        }
        value = makers[variant]()
        # a random run may lack a digit or a letter, which no generator guarantees
        while variant == "random" and (value.isalpha() or value.isdigit()):
            value = makers[variant]()
        return value
    if kind == "CREDENTIAL":
        if variant == "aws_secret":
            return (
                _run(r, string.ascii_uppercase, 4) + _run(r, _B62, 31) + _run(r, string.digits, 5)
            )
        if variant == "url":
            scheme = r.choice(["postgres", "mysql", "mongodb", "redis", "amqp"])
            user = fake.user_name()
            pw = fake.password(length=12, special_chars=False)
            return (
                f"{scheme}://{user}:{pw}@{fake.domain_word()}.internal:{r.randint(1024, 9999)}/app"
            )
        return _pem(r)
    fillers = {
        "_USER": lambda: str(fake.user_name()),
        "_SHA": lambda: _run(r, _HEX, 40),
        "_SHORT": lambda: _run(r, _HEX, 7),
        "_UUID": lambda: str(fake.uuid4()),
        "_B64IMG": lambda: "iVBORw0KGgo" + _run(r, _B62 + "+/", 60) + "==",
    }
    return fillers[kind]()
