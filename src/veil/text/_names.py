"""Names introduced by a title ("Dr. Foley", "Mrs. O'Neil"), found without NER."""

from __future__ import annotations

from veil.text._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = ["OrganizationRecognizer", "TitledNameRecognizer"]


@recognizers.register("titled_name")
class TitledNameRecognizer(PatternRecognizer):
    """Surnames after a title ("Dr. Foley", "Mrs. O'Neil"): the title is not part of the span."""

    entity = "PERSON"
    patterns = (
        Pattern(
            "titled",
            r"\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof)\.?\s+((?:[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?\s+)?"
            r"[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?)\b",
            0.8,
            group=1,
        ),
    )


_ORG_SUFFIX = (
    r"Inc|Incorporated|LLC|L\.L\.C|Ltd|Limited|PLC|plc|LLP|LP|Corp|Corporation|Co|Company|"
    r"Group|Holdings|Partners|Associates|GmbH|AG|S\.A|SA|NV|BV|Hospital|Medical Center|"
    r"Clinic|Health|Healthcare|University|College|Institute|Foundation|Bank|Trust|Agency|"
    r"Laboratories|Labs|Pharmaceuticals|Systems|Technologies|Solutions|Services"
)


@recognizers.register("organization")
class OrganizationRecognizer(PatternRecognizer):
    """Organisations named with a legal or institutional suffix ("Smith PLC", "Baker Clinic"),
    and partnership names after a preposition ("at Martin, Young and Jarvis")."""

    entity = "ORGANIZATION"
    patterns = (
        Pattern(
            "org_suffix",
            rf"\b(?:[A-Z][A-Za-z&'’-]*,?\s+(?:and\s+|&\s+)?){{1,4}}(?:{_ORG_SUFFIX})\b\.?",
            0.75,
        ),
        Pattern(
            "partnership",
            r"\b(?:at|from|for|with|of|by|joined|to)\s+((?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?,\s+){1,2}"
            r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?,?\s+(?:and|&)\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b",
            0.7,
            group=1,
        ),
    )

    def analyze(self, text: str) -> list:  # type: ignore[override]
        out = []
        for f in super().analyze(text):
            end = f.end
            if text[end - 1 : end] == "." and not text[f.start : end].endswith(
                ("Inc.", "Co.", "Corp.", "Ltd.")
            ):
                end -= 1
            value = text[f.start : end]
            # a sentence-initial capitalised word is not part of the name ("Meeting Acme Inc")
            out.append(
                type(f)(f.start, end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation)
            )
            del value
        return out
