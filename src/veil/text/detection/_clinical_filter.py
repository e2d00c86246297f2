"""What a clinical note's vocabulary rules out: findings of the general recognizers that a
note's own shorthand produces.

veil's general recognizers are tuned on ordinary text. In the precise pass of the
recall-first mode (the ``hipaa`` profile, in a text that reads as a clinical note:
:func:`veil.text.detection._clinical_allow.allow_pass_applies`) some of them misread the
register, and :func:`clinical_keeps` drops those findings (the ``clinical`` profile keeps
them: recall first):

* **NER on clinical vocabulary.** Notes write system headers, drugs and findings in capitals
  ("NEURO:", "LASIX", "RESP CARE"), which spaCy reads as organisations and people. A
  ``spacy_ner`` finding every word of which is clinical or English vocabulary as spelt
  (:func:`veil.text.recognition._clinical_shapes.is_english`) and none of which is a known
  first or last name is dropped; a name such as "Griffin" stays.
* **Identifier labels that are clinical abbreviations.** In a note "CC" is cubic
  centimetres or the chief complaint, "SS" a sliding scale, "card" cardiology, "PAN" a
  pan-culture, "case" and "plan" the care. An ``announced_id`` finding whose label is a
  clinical abbreviation or charting word (:data:`CLINICAL_LABELS`; also "ID", infectious
  disease, and "A/C", the ventilator mode), or whose value holds no run of five digits (a
  dose, a setting, a count, a lab or vital value; record numbers are longer), is dropped. "MRN", "medical record", "patient ID", "SSN" and the other identity labels stay
  with longer values.
* **Domains that are typing.** A full stop with no space after it turns charting into a
  domain's shape ("pt.care", "lasix.given", "report.doc"). A ``url`` finding with no scheme
  and no "www." is dropped unless its top-level domain is one a web address in a note
  would carry (:data:`WEB_TLDS`); every address with a scheme or "www." stays.

* **Phones and passwords that are values.** A ``phone`` finding read by a foreign
  numbering plan with no phone word before it (patterns ``cue_*``, ``any_*`` other than
  North America's: the cue "HR" is a heart rate in a note) and a ``password_shape``
  token (glued lab values: "K3.5Mg2.1") are dropped.

Every other finding is kept. The rules read vocabularies and formats only; none was taken
from a labelled corpus.
"""

from __future__ import annotations

from veil._lazy import lazy_compile
from veil.text.ner._ner import names_clinical_date
from veil.text.recognition._clinical_shapes import is_english, setting_or_count
from veil.text.recognition._finding import Finding
from veil.text.vocab._clinical_vocab import is_name_word
from veil.text.vocab._lexicon import clinical_register, word_set

__all__ = ["CLINICAL_LABELS", "NOT_IN_NOTES", "WEB_TLDS", "clinical_keeps", "ner_lines"]

#: identifier labels that, in a clinical note, are clinical abbreviations or charting words
CLINICAL_LABELS = word_set("cc ss card case plan staff group order file ni nin dl pan id a/c acc")
#: top-level domains a web address in a note carries (generic ones read as words there)
WEB_TLDS = word_set("com org net edu gov mil int us uk ca au de fr io info biz")

# an identifier a label announces in a note is kept only with this many digits in a row
_LONG_RUN = 5
#: recognizers whose findings :func:`clinical_keeps` drops in a note unless they hold a
#: run of at least this many digits (``None``: every one; a lab value or a drug's dose in
#: shorthand has a password's shape): under ``hipaa`` the analyzer does not run them on a
#: note without such a run
NOT_IN_NOTES: dict[str, int | None] = {"password_shape": None, "announced_id": _LONG_RUN}

_WORD = lazy_compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_LONG_NUMBER = lazy_compile(rf"\d{{{_LONG_RUN}}}")
_SCHEME = lazy_compile(r"(?i)(?:https?|ftp)://|www\.")


_FACILITY = word_set(
    "hospital hosp clinic center centre medical memorial infirmary rehab nursing manor hospice"
)


def _vocabulary_only(span: str) -> bool:
    words = _WORD.findall(span)
    if any(w.casefold() in _FACILITY for w in words):
        return False  # "General Hospital": a facility's name, however English its words
    return bool(words) and all(is_english(w) and not is_name_word(w) for w in words)


def _may_keep(word: str) -> bool:
    """Whether an NER span holding ``word`` can pass :func:`_vocabulary_only`."""
    return word.casefold() in _FACILITY or not is_english(word) or is_name_word(word)


def ner_lines(text: str) -> list[tuple[int, int]] | None:
    """The lines (``(start, end)``) of the clinical note ``text`` in which an NER finding
    can survive :func:`clinical_keeps` under ``hipaa``, or ``None`` (read it all) when the
    NER recognizer does not read ``text`` as a note (``clinical_register``).

    In a note the recognizer keeps a date only when it names a month or a year, and the
    clinical filter drops a name, place or organisation made of English and clinical words
    alone; a span ends at its line's end (bar a wrapped name). A line with neither can
    yield no finding, and the model need not read it: the lines left are read alone,
    joined, so the model sees less context around them, and what it finds there may
    differ a little (a trade, measured in docs/text.md, "NER, batching and processes").

    Examples
    --------
    >>> t = "NPO, cont lasix.\\nSeen by Griffin.\\nBP stable overnight.\\nCABG March 2012"
    >>> [t[a:b] for a, b in ner_lines(t)]
    ['Seen by Griffin.', 'CABG March 2012']
    """
    if not clinical_register(text):
        return None
    out = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if any(_may_keep(w) for w in _WORD.findall(text, start, end)) or names_clinical_date(
            text, start, end
        ):
            out.append((start, end))
        start = end + 1
    return out


def clinical_keeps(text: str, f: Finding) -> bool:
    """Whether finding ``f`` of the clinical note ``text`` survives the note's vocabulary
    (see the module doc).

    Examples
    --------
    >>> from veil.text.recognition._finding import Explanation
    >>> t = "NEURO: A&Ox3. CC: 40 given. pt.care done. MRN: 1234567. Seen by Griffin."
    >>> f = lambda s, e, rec, label=(): Finding(
    ...     s, e, "X", 0.6, rec, 1, Explanation(rec, "p", 0.6, 0.6, label, None))
    >>> [clinical_keeps(t, f(*a)) for a in [(0, 5, "spacy_ner"), (18, 20, "announced_id", ("CC",)),
    ...     (28, 35, "url"), (47, 54, "announced_id", ("MRN",)), (64, 71, "spacy_ner")]]
    [False, False, False, True, True]
    """
    span = text[f.start : f.end]
    if f.recognizer == "spacy_ner" and f.entity_type != "DATE_TIME":
        return not _vocabulary_only(span)
    if f.recognizer == "announced_id":
        labels = f.explanation.context_words if f.explanation is not None else ()
        if any(label.casefold().strip(" :#.") in CLINICAL_LABELS for label in labels):
            return False
        return bool(_LONG_NUMBER.search(span))
    if f.recognizer == "date" and setting_or_count(text, f.start, f.end):
        return False
    if f.recognizer == "password_shape":
        return False
    if f.recognizer == "phone" and f.explanation is not None:
        how = f.explanation.pattern_name or ""
        if how.startswith(("cue_", "any_")) and not how.endswith(("_US", "_CA")):
            return False
    if f.recognizer == "url" and not _SCHEME.match(span):
        host = span.split("/", 1)[0].rstrip(".")
        return host.rsplit(".", 1)[-1].casefold() in WEB_TLDS
    return True
