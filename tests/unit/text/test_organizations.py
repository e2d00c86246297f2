"""Organisation names by their legal form, institution word or opening word."""

import pytest

from veil.text import TextAnalyzer
from veil.text._names import OrganizationRecognizer


@pytest.fixture(scope="module")
def recognizer() -> OrganizationRecognizer:
    return OrganizationRecognizer()


def spans(r: OrganizationRecognizer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in r.analyze(text)]


POSITIVES = [
    ("We bought it from Acme Inc. last year.", ["Acme Inc."]),
    ("Invoices from Margraf Trüb GmbH & Co. OHG arrived.", ["Margraf Trüb GmbH & Co. OHG"]),
    ("A spokesperson for Sampaio Ltda. declined.", ["Sampaio Ltda."]),
    ("Our supplier, Rossi S.p.A., is late.", ["Rossi S.p.A."]),
    (
        "She joined Tron, Pietrangeli e Castioni S.r.l. in May.",
        ["Tron, Pietrangeli e Castioni S.r.l."],
    ),
    ("He applied to Olesen A/S twice.", ["Olesen A/S"]),
    ("I work at Jespersen & Søn ApS.", ["Jespersen & Søn ApS"]),
    ("Our supplier, Krejčová a.s., is late.", ["Krejčová a.s."]),
    ("The audit of Vávrová Toman v.o.s. found nothing.", ["Vávrová Toman v.o.s."]),
    (
        "Fundacja Druszcz-Pastuszek Sp. z o.o. Sp.k. paid.",
        ["Fundacja Druszcz-Pastuszek Sp. z o.o. Sp.k."],
    ),
    ("Riihimäki Aalto As Oy reported profits.", ["Riihimäki Aalto As Oy"]),
    ("The audit of Serna y Cueto S.L. ended.", ["Serna y Cueto S.L."]),
    ("Shares of Volvo AB and Telenor AS rose.", ["Volvo AB", "Telenor AS"]),
    ("Mocanu SRL called about the invoice.", ["Mocanu SRL"]),
    ("The Smith Group met on Monday.", ["Smith Group"]),  # "The" is not the name
    ("She joined Ballard and Sons last year.", ["Ballard and Sons"]),
    ("Smith and Co. won the tender.", ["Smith and Co."]),
    ("Our supplier, Stichting Ketting, is late.", ["Stichting Ketting"]),
    ("Referred to Baker Clinic by Dr. Lee.", ["Baker Clinic"]),
    ("met at Martin, Young and Jarvis", ["Martin, Young and Jarvis"]),
]


@pytest.mark.parametrize(("text", "expected"), POSITIVES)
def test_organisations_found(
    recognizer: OrganizationRecognizer, text: str, expected: list[str]
) -> None:
    assert spans(recognizer, text) == expected


NEGATIVES = [
    "He lives in Reno NV now.",  # a city and its state code
    "Calgary AB is cold in January.",
    "Adelaide SA 5000",
    "Blood Type AB positive.",  # everyday words and a blood group
    "Pt Type AB neg, Hb 9.2.",
    "Meet me at the SE corner.",
    "The Co. was sold.",  # no name before the form
    "OR CONSEQUENTIAL DAMAGES OR LOSS AS",  # capitals, not a firm's name
    "MO, TU, WE, TH, FR, SA",
    "Swatch\nSwiss\nSystems",  # a list, one word per line
    # clinical abbreviations that are also legal forms: aspirin, sublingual, aortic
    # stenosis, anion gap
    "Cont Plavix, ASA 81 daily.",
    "Pt on Coumadin, ASA.",
    "Nitro SL x1 given, CP resolved.",
    "Severe AS noted on Echo.",  # one capitalised word that may only open the sentence
    "Lytes ok. Gap AG 14",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_organisation(recognizer: OrganizationRecognizer, text: str) -> None:
    assert spans(recognizer, text) == []


def test_a_legal_form_is_not_a_domain() -> None:
    analyzer = TextAnalyzer.from_config(ner=False)
    text = "The audit of Vilalta & Asociados S.Coop. found no issues; see vilalta.coop."
    found = [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text)]
    assert ("ORGANIZATION", "Vilalta & Asociados S.Coop.") in found
    assert ("URL", "vilalta.coop") in found
    assert all(t != "URL" or v == "vilalta.coop" for t, v in found)
