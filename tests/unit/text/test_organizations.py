"""Organisation names by their legal form, institution word or opening word."""

import pytest

from veil.text import TextAnalyzer
from veil.text.recognition._organizations import OrganizationRecognizer


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
    # a saint's abbreviation opens the name ("Mary's Hospital" left "St." out)
    ("She was admitted to St. Mary's Hospital.", ["St. Mary's Hospital"]),
    ("Call Ste. Justine Hospital today.", ["Ste. Justine Hospital"]),
    ("She joined Ballard and Sons last year.", ["Ballard and Sons"]),
    ("Smith and Co. won the tender.", ["Smith and Co."]),
    ("Our supplier, Stichting Ketting, is late.", ["Stichting Ketting"]),
    ("Referred to Baker Clinic by Dr. Lee.", ["Baker Clinic"]),
    ("met at Martin, Young and Jarvis", ["Martin, Young and Jarvis"]),
    # more forms of ISO 20275's list, and the Spanish ones without their last dot
    ("The audit of Logística Malo S.L.N.E found nothing.", ["Logística Malo S.L.N.E"]),
    ("Payment to Torrent y asociados S.Com. is due.", ["Torrent y asociados S.Com."]),
    ("A letter from Bäckman HB arrived.", ["Bäckman HB"]),
    ("She left Dupont SPRL in May.", ["Dupont SPRL"]),
    ("Nadace Nováková z.s. paid.", ["Nadace Nováková z.s."]),
    # family-firm endings in Polish, Portuguese and French
    ("He joined FPUH Ziegert i syn s.c. last year.", ["FPUH Ziegert i syn s.c."]),
    ("A letter from Almeida e Filhos arrived.", ["Almeida e Filhos"]),
    ("Invoices from Girard et Fils came.", ["Girard et Fils"]),
    # name particles inside and before the name
    ("Our supplier, Janssen de Jong Groep, is late.", ["Janssen de Jong Groep"]),
    ("I work for van den Velde BV now.", ["van den Velde BV"]),
    ("Shares of Infraestructuras del Norte S.Com. fell.", ["Infraestructuras del Norte S.Com."]),
]


# a verb or greeting that opens the sentence is not part of the name
OPENERS = [
    ("Contact Avery Inc for details.", ["Avery Inc"]),
    ("Email Brown LLC now", ["Brown LLC"]),
    ("Thanks again. Ask Foster Ltd about it", ["Foster Ltd"]),
    ("Contact Ltd is the supplier.", []),  # no name after the verb
    # not at the start of a sentence: the word may be the firm's own
    ("We hired Welcome Break Ltd. last year", ["Welcome Break Ltd."]),
]


@pytest.mark.parametrize(("text", "expected"), OPENERS)
def test_an_opening_verb_is_not_the_name(
    recognizer: OrganizationRecognizer, text: str, expected: list[str]
) -> None:
    assert spans(recognizer, text) == expected


def test_ner_spans_lose_the_opening_verb_too() -> None:
    text = "Email Brown Holdings about the invoice."
    found = TextAnalyzer.from_config(ner=True).analyze(text)
    assert all(not text[f.start : f.end].startswith("Email") for f in found)


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
    "Labs: HB 9.8, Plt 140.",  # haemoglobin, not a Swedish partnership
    "The file is 512 KB and the Hotel SPA opens at 9.",
    "Then I do Acme and Co",  # "do" is no name particle
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
