"""What the NER stage cuts from a model's span before it becomes a finding (no model
needed: the spans are given)."""

from __future__ import annotations

import pytest

from veil.text.ner._ner import _middle_initial, _trim
from veil.text.ner._ner_lines import line_pieces as _line_pieces


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


class _Ent:
    def __init__(self, start: int, end: int, label: str = "PERSON") -> None:
        self.start_char, self.end_char, self.label_ = start, end, label


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Kristen Whitaker\nBrown LLC", "Kristen Whitaker"),
        ("Anthony Hatfield\nDOB", "Anthony Hatfield"),
        ("Anthony Hatfield  \r\nDOB", "Anthony Hatfield"),
        ("Jane Roe", "Jane Roe"),  # one line: as the model read it
        # a name that a line wrap breaks stays whole: one word or an initial on the first
        # line, name-like words on the next
        ("Maria\nGonzalez", "Maria\nGonzalez"),
        ("John A.\nSmith", "John A.\nSmith"),
        ("Anthony\nDOB", "Anthony"),  # a field's label in capitals
        ("Maria\nLater", "Maria"),  # an everyday word
    ],
)
def test_a_span_ends_at_its_line(text: str, expected: str) -> None:
    """A model's span that runs over a line break keeps its first line only (the next
    line is the next field of a header or a form)."""
    ent = _Ent(0, len(text))
    ((got, start, end),) = list(_line_pieces([ent], text))
    assert got is ent
    assert text[start:end] == expected


def test_a_wrapped_organisation_is_cut_at_its_line() -> None:
    """Only a person's name is kept over a wrap; another label ends at the line."""
    text = "Acme\nGonzalez"
    ((_, start, end),) = list(_line_pieces([_Ent(0, len(text), "ORG")], text))
    assert text[start:end] == "Acme"


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        # a place's span over an address block: each line that names a place stays
        (
            "Paix\nMarseille\nFrance",
            "GPE",
            [("Paix", "GPE"), ("Marseille", "GPE"), ("France", "GPE")],
        ),
        ("Lyon\n> Rhône", "LOC", [("Lyon", "LOC"), ("Rhône", "LOC")]),  # a reply's quote mark
        # another label: a later line stays only as a place of the gazetteer
        ("Zachary Phelps\nBoston", "PERSON", [("Zachary Phelps", "PERSON"), ("Boston", "GPE")]),
        ("Zachary Phelps\nScientist", "PERSON", [("Zachary Phelps", "PERSON")]),
        ("Kristen Whitaker\nBrown LLC", "PERSON", [("Kristen Whitaker", "PERSON")]),
        # everyday, charting or lower-case words are no place, whatever the label
        ("Paix\nThe end", "GPE", [("Paix", "GPE")]),
        ("Paix\nNPO", "GPE", [("Paix", "GPE")]),
        ("Paix\nmarseille", "GPE", [("Paix", "GPE")]),
    ],
)
def test_later_lines_that_name_a_place_are_kept(
    text: str, label: str, expected: list[tuple[str, str]]
) -> None:
    """The lines after a cut are not dropped when they name a place on their own: a town
    and a country below a street read as one span leaked with the cut."""
    got = [(text[s:e], ent.label_) for ent, s, e in _line_pieces([_Ent(0, len(text), label)], text)]
    assert got == expected


def test_an_envelope_header_keeps_the_addressee() -> None:
    """End to end with the model: the addressee above a company and an address."""
    from veil.text import TextAnalyzer

    text = "Kristen Whitaker\nBrown LLC\n12 Main St\nSpringfield, IL 62704"
    found = {
        (text[f.start : f.end], f.entity_type) for f in TextAnalyzer.from_config().analyze(text)
    }
    assert ("Kristen Whitaker", "PERSON") in found
    assert ("Brown LLC", "ORGANIZATION") in found


@pytest.mark.parametrize(
    ("span", "person"),
    [
        ("Wulf G Wernecke", True),
        ("Dylano S van Doorn", True),  # particles open the surname
        ("Ana L Clara Pinto", True),  # a second given name after the initial
        ("Þórunn R. Aðalsteinsdóttir", True),  # names the lexicon need not know
        ("Procter & Gamble", False),
        ("General M Hospital", False),  # an institution word
        ("Smith J Will", False),  # an everyday word as the surname
        ("Wells Fargo", False),  # no initial
    ],
)
def test_a_model_organisation_shaped_as_a_name_with_a_middle_initial(
    span: str, person: bool
) -> None:
    """The model's organisation or place of a given name, a middle initial and a surname
    is relabelled a person, whether or not the lexicon knows the words."""
    assert _middle_initial(span) is person
