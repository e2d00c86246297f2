"""Clinical places (issue #25): facilities by the grammar of a name and a facility word,
towns after a residence frame from GeoNames' places and Faker's town shapes, capitals after
a move; each with the charting it must leave alone, and towns of Faker's locales that no
rule was written from."""

from __future__ import annotations

import time

import pytest

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.recognition._clinical_places import place_findings, town_names

_CHARTING = "Pt on vent, sats 95%, suctioned for thick secretions. NPO, lasix 40mg IV. "


def _cased(charting: str, line: str) -> str:
    """The charting in the case of ``line``: a note is written in one case."""
    return charting.upper() if line.isupper() else charting.lower() if line.islower() else charting


def _places(text: str) -> set[str]:
    return {text[f.start : f.end] for f in place_findings(text) if f.entity_type == "LOCATION"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("transferred to Empangeni Medical Centre for cath.", "Empangeni Medical Centre"),
        ("TRANSFER FROM KOLPASHEVO MEDICAL CENTRE FOR CABG.", "KOLPASHEVO MEDICAL CENTRE"),
        ("returned from nyuzen hosp. this am.", "nyuzen hosp."),
        ("d/c to Porlamar SNF tomorrow.", "Porlamar SNF"),
        ("SEEN AT VIADANA HEALTH CENTER LAST WEEK.", "VIADANA HEALTH CENTER"),
        ("screened by Lakeview Nursing Home, awaiting bed.", "Lakeview Nursing Home"),
        ("Lives at Goddard House.", "Goddard House"),
        ("sent to Okafor Pavilion for w/u.", "Okafor Pavilion"),
        ("TRANSFERRED TO ST. WOODS HOSPITAL.", "ST. WOODS HOSPITAL"),
        ("lives in East Crystalshire with his wife.", "East Crystalshire"),
        ("LIVES ALONE IN SOUTH RACHELSIDE.", "SOUTH RACHELSIDE"),
        ("resides in Regensburg.", "Regensburg"),
        ("Regensburg resident.", "Regensburg"),
        ("WINNEWEER RESIDENT.", "WINNEWEER"),
        ("family lives in the sevilla area.", "sevilla"),
        ("lives with dtr in agrate brianza.", "agrate brianza"),
        ("moved to Masse-sur-Riou last year.", "Masse-sur-Riou"),
        ("plan d/c home to Milford Mill.", "Milford Mill"),
        ("transferred to NWH for cath.", "NWH"),
        ("ADMITTED TO DPH YESTERDAY.", "DPH"),
        ("SEEN IN DPH ED, THEN NEBH ER.", "DPH"),
        ("Pt lives in Hingham.", "Hingham"),
        ("PT ADMITTED TO BROOKS10 W/ CHF.", "BROOKS10"),
        ("Pt transferred to Duran 14 at 1500.", "Duran 14"),
        ("Dialysis at Donaldson Health in Port Brandonstad MWF.", "Port Brandonstad"),
        ("Plan to transfer to clayton rehab tomorrow.", "clayton rehab"),
        ("sent to mt auburn for w/u.", "mt auburn"),
        ("TRANSFERRED TO MOUNT SINAI.", "MOUNT SINAI"),
        ("sent to sagaing nh for w/u.", "sagaing nh"),
        ("moved to new oliver last year.", "new oliver"),
    ],
)
def test_places_found(text: str, value: str) -> None:
    assert value in _places(_cased(_CHARTING, text) + text)


@pytest.mark.parametrize(
    "text",
    [
        "transferred to MICU.",
        "TRANSFERRED TO CCU OVERNIGHT. SENT TO CT. RETURNED FROM PACU.",
        "d/c home in am. back to floor. transferred to the floor.",
        "Seen in renal clinic and cardiology clinic.",
        "Transferred from the outside hospital; her nursing home aware.",
        "D/C TO NH WITH VNA. SEEN BY PT AND OT.",
        "Surgical resident aware. PGY2 RESIDENT AT BEDSIDE.",
        "Erythema in the groin area. Pain in the sacral area.",
        "lives with wife, independent. Pt is from home.",
        "LIVES IN LOWER FLOOR APT. transfer to rehab when stable.",
        "to community hospital for w/u. pt admitted to SICU.",
        "Call from wife. Message from the team. Seen in ED by team.",
        "PT ED DONE. IV ER RATE. TO OR. IN ED. MD ED.",
        "Pt sent to hand clinic and to wound clinic. Refer to coumadin clinic, to pain clinic.",
        "transferred to room 4. admitted to bed 2. sent to floor 4. weaned to PS 10.",
        "transferred to about 5 L NC. Transferred to CCU 7.",
        "Mount the bag. MT IS OK. mt of 5. Mount line.",
        "d/c to the nh. pt's snf. the vna. his vna nurse.",
    ],
)
def test_charting_left_alone(text: str) -> None:
    assert _places(_CHARTING + text) == set()


def test_the_pass_leaves_clinics_of_a_service_alone() -> None:
    """The facility shape of :mod:`_clinical_shapes` too: a service before "clinic" after
    "to" is a kind of care, however framed."""
    text = _CHARTING + "Sent to hand clinic, then to wound clinic. Refer to coumadin clinic."
    found = {text[f.start : f.end] for f in clinical_findings(text, [], thorough=False)}
    assert not any("clinic" in s for s in found), found


def test_town_gazetteer_ships_small_places_and_counties() -> None:
    names = town_names()
    assert "milford mill" in names  # a US place of a few thousand people
    assert "middlesex" in names  # a county, without its "County"
    assert "middlesex county" in names
    assert "lasix" not in names


def test_towns_of_faker_locales_in_frames() -> None:
    """Towns of Faker's locales (real lists and made-up English towns) in residence frames,
    in every case: what no rule was written from is found for the most part."""
    faker = pytest.importorskip("faker")
    frames = (
        "lives in {} with his wife.",
        "resides in {}.",
        "{} resident.",
        "moved to {} in 2019.",
    )
    found = total = 0
    for i, loc in enumerate(("en_GB", "en_AU", "en_CA", "de_DE", "fr_FR", "es_ES", "nl_NL")):
        fk = faker.Faker(loc)
        fk.seed_instance(7)
        for j in range(12):
            town = fk.city()
            line = frames[(i + j) % len(frames)].format(town)
            for variant in (line, line.upper(), line.lower()):
                name = (
                    town if variant == line else town.upper() if variant.isupper() else town.lower()
                )
                text = _cased(_CHARTING, variant) + variant
                spans = [(f.start, f.end) for f in place_findings(text)]
                a = text.index(name)
                total += 1
                found += any(s <= a and a + len(name) <= e for s, e in spans)
    assert found / total >= 0.85, (found, total)


def test_a_long_line_is_bounded() -> None:
    text = _CHARTING + ("lives in " + "Aab " * 20_000) + "hospital " * 2000
    t0 = time.perf_counter()
    place_findings(text)
    assert time.perf_counter() - t0 < 10


def test_hipaa_profile_reports_the_places() -> None:
    analyzer = TextAnalyzer.from_config(profile="hipaa", model=None)
    text = _CHARTING + "Pt resides in East Crystalshire. Transferred to Porlamar SNF. To MICU."
    spans = {text[f.start : f.end] for f in analyzer.analyze(text)}
    assert any("Crystalshire" in s for s in spans)
    assert any("Porlamar" in s for s in spans)
    assert "MICU" not in spans
