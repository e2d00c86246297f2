"""Given names coordinated with a found person's name ("Anthony and Isabel", "Ana, Luis and
Marta", "Isabel & Anthony"): a step after the recognizers, since it reads their findings."""

from __future__ import annotations

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._names import _CAP, _given_name
from veil.text.vocab._lexicon import clinical_register, first_last_name, name_lexicon

__all__ = ["COORDINATED_SCORE", "coordinated_names"]

# Names coordinated with a person's name: "Anthony and Isabel", "Ana, Luis and Marta",
# "Isabel & Anthony". What joins them: "and", "or", "&", or a comma inside a list that goes
# on (", Luis and"), never a lone comma ("Thanks, John, Paris is lovely").
_JOIN = r"(?:[ \t]*,[ \t]*(?:(?:and|or|&)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+)"
_JOIN_AFTER = lazy_compile(_JOIN)
_COORD_NAME = lazy_compile(rf"({_CAP})(?:[ \t]+({_CAP}))?(?![\w'’-])")
_LIST_GOES_ON = lazy_compile(rf"{_JOIN}{_CAP}")
_WORD_BEFORE_JOIN = lazy_compile(rf"(?<![\w'’.-])({_CAP})({_JOIN})$")
_WORD_BEFORE = lazy_compile(rf"(?<![\w'’.-])({_CAP})[ \t]+$")
_CONJUNCTION = lazy_compile(r"\b(?:and|or)\b|&")
COORDINATED_SCORE = 0.6


def _any_name(word: str) -> bool:
    first, last = name_lexicon()
    return word.casefold() in first or word.casefold() in last


def coordinated_names(text: str, findings: list[Finding]) -> list[Finding]:
    """``PERSON`` findings for given names joined to a found person's name by "and", "or",
    "&" or a list's commas, that nothing else covers: NER often finds the first of two
    coordinated names and not the second ("Anthony and Isabel will attend").

    The word must be a given name in the name lexicon and not an everyday or charting word;
    a surname from the lexicon right after it joins the span ("Isabel Garcia"), and any
    other capitalised word next to it makes it part of a longer name ("Mitchell Street"). A comma
    alone joins only inside a list that goes on ("Ana, Luis and Marta"; not "Paris, John
    called"). A name found this way can lead to the next one in the list. Not used in
    clinical notes, whose lists are of drugs and findings.

    Examples
    --------
    >>> text = "Anthony and Isabel will attend."
    >>> anthony = Finding(0, 7, "PERSON", 0.85, "spacy_ner")
    >>> [text[f.start : f.end] for f in coordinated_names(text, [anthony])]
    ['Isabel']
    """
    people = [f for f in findings if f.entity_type == "PERSON"]
    if not people or clinical_register(text):
        return []
    # the model's place or organisation on exactly the given name is overruled ("Ralph Hill
    # and Brandon", "Brandon" read as a town): the coordinated name wins the overlap rule
    overruled = {
        (f.start, f.end)
        for f in findings
        if f.recognizer == "spacy_ner" and f.entity_type in ("LOCATION", "ORGANIZATION", "NRP")
    }
    taken = [(f.start, f.end) for f in findings]
    out: list[Finding] = []

    def add(start: int, end: int, pattern: str) -> None:
        if any(a < end and start < b for a, b in taken if (a, b) != (start, end)):
            return
        if (start, end) in taken and (start, end) not in overruled:
            return
        if any((o.start, o.end) == (start, end) for o in out):
            return
        taken.append((start, end))
        f = Finding(
            start,
            end,
            "PERSON",
            COORDINATED_SCORE,
            "coordinated_name",
            1,
            Explanation("coordinated_name", pattern, COORDINATED_SCORE, COORDINATED_SCORE),
        )
        out.append(f)
        queue.append(f)

    def list_join(join: str, after: int) -> bool:
        """A join with "and", "or" or "&" in it, or a comma in a list that goes on."""
        return bool(_CONJUNCTION.search(join)) or _LIST_GOES_ON.match(text, after) is not None

    queue = list(people)
    while queue:
        f = queue.pop()
        # after it: " and Isabel", " & Isabel Garcia", ", Luis and ..."
        j = _JOIN_AFTER.match(text, f.end)
        m = _COORD_NAME.match(text, j.end()) if j is not None else None
        if j is not None and m is not None and _given_name(m.group(1)):
            # a second capitalised word must be a surname ("Isabel Garcia"); any other
            # makes the given name part of something longer ("Mitchell Street")
            two = m.group(2) is not None
            if not two or first_last_name([m.group(1).casefold(), m.group(2).casefold()]):
                end = m.end(2) if two else m.end(1)
                if list_join(j.group(0), end):
                    add(m.start(1), end, "after_person")
        # before it: "Isabel and Anthony", "Maria Lopez and Anthony", "Ana, Luis and ..."
        b = _WORD_BEFORE_JOIN.search(text, max(0, f.start - 40), f.start)
        if b is None or not list_join(b.group(2), f.end):
            continue
        w = _WORD_BEFORE.search(text, max(0, b.start(1) - 40), b.start(1))
        if w is not None and first_last_name([w.group(1).casefold(), b.group(1).casefold()]):
            add(w.start(1), b.end(1), "before_person")  # "Maria Lopez and Anthony"
        elif (w is None or not _any_name(w.group(1))) and _given_name(b.group(1)):
            add(b.start(1), b.end(1), "before_person")  # "Dear Isabel and Anthony"
    return out
