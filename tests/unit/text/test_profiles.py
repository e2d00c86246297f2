"""Detection profiles: HIPAA Safe Harbor narrows findings to the rule's list of identifiers."""

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from veil import PolicyError
from veil.cli import main
from veil.policy import TextConfig
from veil.text import TextAnalyzer
from veil.text.detection._profiles import PROFILES, profile_keeps
from veil.text.recognition._finding import Finding

OLD = dt.date.today().year - 95  # a birth year that makes a person older than 89 today
YOUNG = dt.date.today().year - 60


@pytest.fixture(scope="module")
def regex_only() -> tuple[TextAnalyzer, TextAnalyzer]:
    return (
        TextAnalyzer.from_config(ner=False),
        TextAnalyzer.from_config(ner=False, profile="hipaa"),
    )


def _spans(analyzer: TextAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text)]


@pytest.mark.parametrize(
    ("text", "entity", "span", "kept"),
    [
        ("Pt is a 67 y/o male", "AGE", "67", False),
        ("Pt is 89 years old", "AGE", "89", False),
        ("Pt is 92 years old", "AGE", "92", True),  # over 89: an identifier
        ("a woman in her 90s", "AGE", "90s", True),
        ("a man in his late 80s", "AGE", "late 80s", False),
        ("she is ninety-two years old", "AGE", "ninety-two", True),  # ages in words too
        ("he is sixty-seven years old", "AGE", "sixty-seven", False),
        ("a woman in her nineties", "AGE", "nineties", True),
        ("hx CABG in 2019", "DATE_TIME", "2019", False),  # a year alone may stay
        ("big in the 1990s", "DATE_TIME", "the 1990s", False),
        (f"born in {OLD}", "DATE_TIME", str(OLD), True),  # a year indicative of age > 89
        (f"DOB: {OLD}", "DATE_TIME", str(OLD), True),
        (f"born in {YOUNG}", "DATE_TIME", str(YOUNG), False),
        ("seen at 3:30 pm", "DATE_TIME", "3:30 pm", False),  # a time of day is not listed
        ("seen at 1400 hrs", "DATE_TIME", "at 1400 hrs", False),
        ("seen at 14:30", "DATE_TIME", "14:30", False),
        ("admitted on 4/10", "DATE_TIME", "4/10", True),  # month and day
        ("seen March 3", "DATE_TIME", "March 3", True),
        ("since March 2019", "DATE_TIME", "March 2019", True),  # a month is an element
        ("on 2019-03-04 14:30", "DATE_TIME", "2019-03-04 14:30", True),
        ("moved to Texas", "LOCATION", "Texas", False),  # a state
        ("Boston, MA", "LOCATION", "MA", False),
        ("from the United States", "LOCATION", "the United States", False),
        ("visiting Canada", "LOCATION", "Canada", False),
        ("from the U.S.", "LOCATION", "U.S.", False),
        ("lives in Revere", "LOCATION", "Revere", True),  # a town: smaller than a state
        ("call Jane Roe", "PERSON", "Jane Roe", True),  # other types are untouched
    ],
)
def test_hipaa_keeps_what_safe_harbor_lists(text: str, entity: str, span: str, kept: bool) -> None:
    start = text.index(span)
    f = Finding(start, start + len(span), entity, 0.8, "test")
    assert profile_keeps("hipaa", text, f) is kept
    assert profile_keeps("default", text, f)


def test_analyzer_applies_the_profile(regex_only: tuple[TextAnalyzer, TextAnalyzer]) -> None:
    default, hipaa = regex_only
    text = (
        "Pt is a 67 y/o admitted on 4/10 at 3:30 pm; mother aged 93 lives with him since "
        "2019. Call 617-555-0199."
    )
    assert _spans(default, text) == [
        ("AGE", "67"),
        ("DATE_TIME", "4/10"),
        ("DATE_TIME", "3:30 pm"),
        ("AGE", "93"),
        ("DATE_TIME", "2019"),
        ("PHONE_NUMBER", "617-555-0199"),
    ]
    assert _spans(hipaa, text) == [
        ("DATE_TIME", "4/10"),
        ("AGE", "93"),
        ("PHONE_NUMBER", "617-555-0199"),
    ]
    assert hipaa.profile == "hipaa" and default.profile == "default"


_FRAGMENTS = [
    "Pt is 67 years old",
    "aged 94",
    "in 2019",
    "born in 1925",
    "at 3:30 pm",
    "on 4/10",
    "March 3, 2020",
    "call 617-555-0199",
    "mail jo@example.com",
    "lives at 12 Main St, Boston, MA 02139",
    "SSN 536-22-1234",
    "Neuro: MAE.",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=6))
def test_profile_only_narrows(
    regex_only: tuple[TextAnalyzer, TextAnalyzer], parts: list[str]
) -> None:
    default, hipaa = regex_only
    text = "; ".join(parts)
    narrowed = set(hipaa.analyze(text))
    # every finding the default reports and Safe Harbor lists is reported under hipaa; the
    # profile never adds a finding of its own
    assert {f for f in default.analyze(text) if profile_keeps("hipaa", text, f)} == narrowed


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(PolicyError, match="unknown text profile") as err:
        TextAnalyzer(profile="gdpr")
    assert all(p in err.value.hint for p in PROFILES)  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        TextConfig.model_validate({"profile": "gdpr"})
    assert TextConfig.model_validate({"profile": "hipaa"}).profile == "hipaa"


def test_cli_profile(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "notes.txt"
    src.write_text("Pt is a 67 y/o, mother aged 93, seen at 3:30 pm on 4/10.\n", encoding="utf-8")
    out = tmp_path / "found.jsonl"
    args = ["-q", "text", "detect", str(src), "--no-ner", "--out", str(out), "--json"]
    assert main([*args, "--profile", "hipaa"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["profile"] == "hipaa"
    assert summary["findings"] == {"AGE": 1, "DATE_TIME": 1}
    bad = tmp_path / "bad.jsonl"
    assert main([*args[:-3], "--out", str(bad), "--profile", "gdpr"]) == 2
    assert "unknown text profile" in capsys.readouterr().err
    assert not bad.exists()


def test_policy_text_stage_uses_the_profile(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from veil.pipeline import RunContext
    from veil.policy import Policy
    from veil.text.redaction._stage import TextStage

    policy = Policy.model_validate(
        {
            "data": {"path": str(tmp_path / "in.csv")},
            "columns": {
                "id": {"role": "insensitive"},
                "notes": {"role": "text", "text": {"ner": False, "profile": "hipaa"}},
            },
        }
    )
    df = pd.DataFrame({"id": [1], "notes": ["Pt is a 67 y/o, mother aged 93, seen on 4/10."]})
    ctx = RunContext(policy=policy, original=df, data=df.copy())
    TextStage().run(ctx)
    assert ctx.data["notes"].tolist() == ["Pt is a 67 y/o, mother aged <AGE>, seen on <DATE_TIME>."]
    col = ctx.report["text"]["columns"]["notes"]
    assert col["profile"] == "hipaa" and col["entities"] == {"AGE": 1, "DATE_TIME": 1}
