"""The row deny list on names and addresses from Faker locales the demo does not use.

A row's identifiers (its name and its e-mail address) are written into the row's note in
several shapes; after redaction none of the inserted values, nor any part of the name of
three letters or more, may be left. Checked against the values the test inserted, not by
asking the analyzer again.
"""

from __future__ import annotations

import re

import pandas as pd
from faker import Faker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer, TextRedactor, make_operator
from veil.text.redaction._row_deny import row_deny_terms

_REDACTOR = TextRedactor(TextAnalyzer.from_config(ner=False), make_operator("placeholder"))
_LOCALES = ("de_DE", "fr_FR", "es_ES", "it_IT", "pl_PL", "nl_NL", "pt_BR", "sv_SE")
_FAKERS = {loc: Faker(loc) for loc in _LOCALES}
_TEMPLATES = (
    "Rückruf an {name} wegen Termin; Mail an {email}.",
    "customer {first} satisfied, contact {email}",
    "{last} a appelé pour la facture.",
    "Hablé con {first} {last} ayer sobre el pago.",
    "Note: {first} prefers e-mail ({email}); ask for {last} at reception.",
)


def _parts(name: str) -> list[str]:
    return [w for w in name.split() if sum(c.isalpha() for c in w) >= 3]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    locale=st.sampled_from(_LOCALES),
    seed=st.integers(0, 2**31 - 1),
    template=st.sampled_from(_TEMPLATES),
)
def test_row_identifiers_never_survive(locale: str, seed: int, template: str) -> None:
    fake = _FAKERS[locale]
    fake.seed_instance(seed)
    first, last = fake.first_name(), fake.last_name()
    name = f"{first} {last}"
    email = fake.email()
    note = template.format(name=name, first=first, last=last, email=email)
    original = pd.DataFrame({"name": [name], "email": [email]})
    terms = row_deny_terms(original, ["name", "email"], original.index)
    red = _REDACTOR.redact_batch([note], row_terms=terms)[0].text or ""
    assert email not in red
    for part in [name, *_parts(first), *_parts(last)]:
        assert re.search(rf"(?<!\w){re.escape(part)}(?!\w)", red) is None, (locale, template)
