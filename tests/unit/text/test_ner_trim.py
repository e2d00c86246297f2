"""What the NER stage cuts from a model's span before it becomes a finding (no model
needed: the spans are given)."""

from __future__ import annotations

import pytest

from veil.text._ner import _trim


@pytest.mark.parametrize(
    ("text", "entity", "expected"),
    [
        # a date: a leading preposition goes, a date word stays
        ("before Jan 09, 2007", "DATE_TIME", "Jan 09, 2007"),
        ("as of March 2020", "DATE_TIME", "March 2020"),
        ("Before Jan 09, 2007", "DATE_TIME", "Before Jan 09, 2007"),  # capitalised: kept
        ("on", "DATE_TIME", "on"),  # nothing after it: left for the plausibility check
        # a person read as an organisation or a place: the place after "of" goes
        ("Peter Salazar of New Douglaschester", "ORGANIZATION", "Peter Salazar"),
        ("Bank of America", "ORGANIZATION", "Bank of America"),
        ("University of Toronto", "LOCATION", "University of Toronto"),
        ("Jane Roe of Springfield", "PERSON", "Jane Roe"),
    ],
)
def test_trim(text: str, entity: str, expected: str) -> None:
    start, end = _trim(text, 0, len(text), entity)
    assert text[start:end] == expected
