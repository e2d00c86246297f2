"""The recall-first clinical mode: an allow-list pass in the manner of UCSF's Philter.

In a clinical note a missed name is a leak and a false positive costs only a word, so the
``clinical`` profile (and the ``hipaa`` profile in a text that reads as a clinical note,
:func:`veil.text.vocab._lexicon.clinical_register`, or a short note with two clinical
abbreviations that are no English word, "pt", "abd": :func:`_shorthand_note`) turns the
question round: after veil's typed
recognizers and NER have run, every word that no finding covers and that is not known to
be safe is reported.

1. The clinical shapes (:mod:`veil.text.recognition._clinical_shapes`) add shorthand dates, pagers,
   facilities and titled or introduced names; :mod:`veil.text.recognition._clinical_numbers`
   pagers and extensions written short, numbers a phone word announces and the years of
   the patient's history; :mod:`veil.text.recognition._clinical_names` names and places
   in their context, and :mod:`veil.text.recognition._clinical_name_cues` names that need
   no title (a surname's prefix, a role or a relation beside it, a capitalised frequent
   Census name, a word only a name list holds, a frequent name before "aware" or after a
   hand-off; never an eponym, "Holter monitor"); last, the initials and the unknown word
   beside each person found (:func:`~veil.text.recognition._clinical_name_cues.person_initials`,
   :func:`~veil.text.recognition._clinical_name_cues.name_neighbours`).
2. Each remaining word of two or more letters is checked against the safe vocabulary
   (:mod:`veil.text.vocab._clinical_vocab`: English and clinical words and their misspellings).
   A word that is not safe is reported; so is a safe word that is also a known name when
   its context makes it one (after a title or a relation word, or joined by "and" to a
   reported name: "Griffin and Swackhamer aware"). A word of two or three letters that is
   not safe is reported only as a known name or where a place reads ("to GH"), since
   unknown short words in notes are almost always abbreviations.
   The precise pass (``hipaa``) reports an unsafe word without its context in two cases:
   a known first or last name of four letters or more in lower or title case (capitals in
   a note are abbreviations first; in a note written in capitals, a name of six letters or
   more; a Census name only by :func:`veil.text.vocab._clinical_vocab.is_bare_name`), and
   a hospital's abbreviation, an unsafe word in
   capitals after a place word or before a facility or unit word ("to GH", "BUMC ED").
   Their explanations' pattern names say so (``known_name``, ``abbreviation``).
   A third, ``capitalised``, is Philter's inversion where a capital says a name: in a
   note in ordinary case, a capitalised word of five letters or more in mid-sentence that
   no dictionary holds, or a Census name there that is safe only as a misspelling.
   The precise pass also reads names and places in context that are English words: a
   capitalised word right after "to", "from" or "at" in a note in ordinary case
   ("transferred to Faulkner"), a known name before "aware", "notified", "at bedside" or
   "is aware" (:func:`veil.text.recognition._clinical_names.name_follows`; "Hall
   aware"), a surname joined by "and" to a reported name before "aware" ("Green and
   Wilson aware"), and, in a note in lower case, an unknown word of two or three letters
   after a place word ("to gh").
3. The context gives the type: a word right after a place preposition ("to", "from",
   "at", also across "the"; not across a number or a full stop, "at 1645. Last") or
   before a facility word is a ``LOCATION``, any other a ``PERSON``; a capital initial
   before a reported name joins it ("S. DOMINICO").

Numbers are left to the recognizers and the shapes: doses, vitals and lab values are what
most of a note's numbers are. Findings of this pass never replace a finding of the typed
recognizers (a word covered by one is skipped, a shape overlapping one is dropped).

Memory is bounded: the text is read in windows of :data:`WINDOW` characters cut at
whitespace, so a 10 MB note with no line breaks costs what a window costs; a word cut
off from its context by a window edge is judged without it.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._clinical_context import (
    charting_note,
    context_findings,
    coordinated_people,
    extend_names,
    name_growth,
    repeat_mentions,
)
from veil.text.recognition._clinical_name_cues import (
    cued_name_findings,
    is_eponym,
    name_neighbours,
    person_initials,
)
from veil.text.recognition._clinical_names import (
    name_follows,
    name_place_findings,
    shape_remainders,
)
from veil.text.recognition._clinical_numbers import number_findings
from veil.text.recognition._clinical_shapes import is_english, shape_findings
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import (
    CLINICAL_EXTRA,
    is_bare_name,
    is_cued_name,
    is_derived_word,
    is_name_word,
    is_safe_word,
    known_words,
)
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    RELATION_WORDS,
    clinical_register,
    common_words,
    mostly_upper,
    word_classes,
    word_set,
)

__all__ = ["WINDOW", "allow_pass_applies", "clinical_findings"]

RECOGNIZER = "clinical_allow"
WINDOW = 50_000
_SCORE = 0.6
#: the explanation's pattern name: not safe and in context; "known_name" and "abbreviation"
#: say which rule of the precise pass reported a word without its context
_RULE = "not_in_allow_list"

_WORD = lazy_compile(r"(?<!\w)[^\W\d_]+(?:['’][^\W\d_]+)*(?!\w)")
_PLACE_BEFORE = word_set("to from at into in near via @ transfer transferred admitted lives leave")
_TO_PLACE = word_set("to from at into")
_PLACE_AFTER = word_set(
    "hospital hosp rehab clinic hospice infirmary manor memorial medical center ctr nursing"
)
_NAME_BEFORE = RELATION_WORDS | word_set(
    "dr doctor mr mrs ms miss rn np pa md attending resident fellow intern dtr friend "
    "neighbor neighbour called paged notified per by"
)
# what follows a hospital's abbreviation: "BUMC ED", "NEMC EW", "GH ICU"
_UNIT_AFTER = _PLACE_AFTER | word_set("ed er ew icu ccu micu sicu ctu ctic clinic")
# words that follow a person's name in a note ("Griffin and Swackhamer aware", "DR X NOTIFIED")
_NOT_ABBREVIATION_BEFORE = word_set("in via near")
_GAP = lazy_compile(r"[ \t]+(?:the[ \t]+)?|[ \t]*@[ \t]*", re.IGNORECASE)
_FUNCTION_WORDS = word_set(
    "a an the and or but of in on at by to from with for as is was be this that his her their "
    "its our my your he she they we it who which not no yes any all some"
)
_JOINERS = frozenset({"and", "&", "/"})
_INITIAL = lazy_compile(r"(?<![\w.])[A-Z]\.\s?$")


def allow_pass_applies(profile: str, text: str) -> bool:
    """Whether the allow-list pass runs on ``text`` under ``profile``: always under
    ``clinical``, under ``hipaa`` when the text reads as a clinical note, never otherwise.

    Examples
    --------
    >>> allow_pass_applies("hipaa", "NPO after midnight, cont lasix"), allow_pass_applies(
    ...     "hipaa", "Invoice for Acme Ltd"), allow_pass_applies("default", "NPO, lasix")
    (True, False, False)
    """
    if profile == "clinical":
        return True
    return profile == "hipaa" and (
        clinical_register(text) or _shorthand_note(text) or charting_note(text, WINDOW)
    )


# everyday and business abbreviations that CLINICAL_EXTRA also holds: no sign of a note
_EVERYDAY_SHORT = word_set(
    "am pm id cc us uk ok or er ed md do pa ms mr mrs dr drs st rd co ap mg kg ml lb lbs oz ft "
    "in g l u t min max sec hr hrs wk wks mo mos yr yrs eve asap approx appr apprx assoc med "
    "sm lg mod neg pos ext fam soc id cm ho sw rt ot rn rns np mds tv vt pc ac ex px "
    "top floor unit bay bed rm room staff team fellow intern resident attending"
)


def _shorthand_note(text: str, needed: int = 2) -> bool:
    """A short note with no unambiguous marker that still reads as charting: ``needed``
    distinct clinical abbreviations that are neither English words nor everyday
    abbreviations ("pt", "bp", "abd", "sob"), in its first :data:`WINDOW` characters."""
    seen: set[str] = set()
    for m in _WORD.finditer(text, 0, min(len(text), WINDOW)):
        w = m.group().casefold()
        if w in seen or w not in CLINICAL_EXTRA or w in _EVERYDAY_SHORT:
            continue
        if w in common_words() or word_classes(w):
            continue
        seen.add(w)
        if len(seen) >= needed:
            return True
    return False


def _windows(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + WINDOW)
        if end < len(text):
            cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
            if cut > start:
                end = cut + 1
        out.append((start, end))
        start = end
    return out


def _ambiguous_name(word: str) -> bool:
    """A safe word that is also a name where a cue says one (a rare Census surname one
    letter off an English word too: "DR LAVELY") and neither a common nor a clinical word."""
    w = word.casefold()
    return (
        is_cued_name(w)
        and w not in common_words()
        and w not in NOTE_WORDS
        and w not in CLINICAL_EXTRA
    )


def _charted_name(w: str, *, any_class: bool = False) -> bool:
    """A known first or last name, everyday word or not, that is no clinical, charting,
    calendar or function word (``w`` case-folded); unless ``any_class``, no verb,
    adjective or adverb either ("Will", "Frank")."""
    return (
        len(w) >= 3
        and is_name_word(w)
        and w not in NOTE_WORDS
        and w not in CLINICAL_EXTRA
        and w not in CALENDAR_WORDS
        and w not in _FUNCTION_WORDS
        and (any_class or not word_classes(w) & {"verb", "adj", "adv"})
    )


def _everyday_surname(w: str) -> bool:
    """An English noun that can be a surname where the context says a person ("Green",
    "Hope", "Bell"): no clinical, charting, calendar or function word."""
    return (
        len(w) >= 3
        and "noun" in word_classes(w)
        and w not in NOTE_WORDS
        and w not in CLINICAL_EXTRA
        and w not in CALENDAR_WORDS
        and w not in _FUNCTION_WORDS
    )


# what ends a sentence or a field before a word: its capital says nothing there
_SENTENCE_BEFORE = lazy_compile(r"(?:^|[.!?:;\n(\[*#>\d-])[ \t]*$")


def _capitalised_unknown(text: str, a: int, b: int) -> bool:
    """In a note in ordinary case, a capitalised word of five letters or more in mid-sentence
    that no dictionary holds, misspellings and words of a known stem and an affix included
    ("Kondouli"), nor two words of four letters or more written as one, nor an eponym's
    name (:func:`~veil.text.recognition._clinical_name_cues.is_eponym`): Philter's
    inversion, where a capital says a name."""
    word = text[a:b]
    if b - a < 5 or not word.istitle() or not word.isalpha():
        return False
    if _SENTENCE_BEFORE.search(text, max(0, a - 8), a) is not None:
        return False
    if is_eponym(text, a, b):
        return False  # a device's, a sign's or a disease's name ("Penrose drain")
    w = word.casefold()
    known = known_words()
    # two words of four letters or more written as one ("Stepdown", "Bedside")
    return not any(w[:k] in known and w[k:] in known for k in range(4, len(w) - 3)) and (
        not is_derived_word(word)
    )


def _capitalised_census(text: str, a: int, b: int) -> bool:
    """A capitalised Census name in mid-sentence, in a note in ordinary case, that the
    allow list calls safe only as a misspelling of an English word ("Weltmer", "Torsiello"
    one letter off): no dictionary holds it as spelt, and the capital says the name."""
    w = text[a:b].casefold()
    if w in common_words() or w in NOTE_WORDS or w in CLINICAL_EXTRA or word_classes(w):
        return False
    return is_cued_name(w) and _capitalised_unknown(text, a, b)


def _token_types(
    text: str,
    start: int,
    end: int,
    taken: bytearray,
    thorough: bool,
    mixed: bool,
    places: frozenset[str] = frozenset(),
) -> list[Finding]:
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    folded = [text[a:b].casefold() for a, b in words]
    types: list[str | None] = [None] * len(words)
    for i, (a, b) in enumerate(words):
        if taken.find(1, a, b) >= 0 or b - a < 2:
            continue
        word = text[a:b]
        prev = folded[i - 1] if i else ""
        if prev == "the" and i > 1:
            prev = folded[i - 2]  # "transferred to the X", "at the X"
        nxt = folded[i + 1] if i + 1 < len(words) else ""
        # a place word counts only right before the word ("at 1645. Last" is no place);
        # the gap is read only after a place word (most words follow none)
        place = (
            prev in _PLACE_BEFORE and i > 0 and _GAP.fullmatch(text, words[i - 1][1], a) is not None
        ) or nxt in _PLACE_AFTER
        if is_safe_word(word):
            if prev in _NAME_BEFORE and _ambiguous_name(word):
                types[i] = "PERSON"
            elif (
                not thorough
                and mixed
                and b - a >= 5
                and word[:1].isupper()
                and _capitalised_census(text, a, b)
            ):
                types[i] = "PERSON:capitalised"
            elif (
                not thorough
                and name_follows(text, b, nxt)
                and (word.istitle() or not mixed)
                and _charted_name(folded[i])
            ):
                # a known name, however English, before "aware", "notified" ("Hall aware")
                types[i] = "PERSON"
            elif (
                not thorough
                and mixed
                and word.istitle()
                and b - a >= 4
                and folded[i - 1] in _TO_PLACE
                and text[words[i - 1][1] : a].isspace()
                and folded[i] not in CLINICAL_EXTRA
                and folded[i] not in NOTE_WORDS
                and folded[i] not in CALENDAR_WORDS
            ):
                # a capital in mid-sentence after "to", "from", "at" in a note in ordinary
                # case names a place, however English ("transferred to Faulkner")
                types[i] = "LOCATION"
            continue
        named = is_name_word(word)
        # a facility's abbreviation in capitals: "to GH", "from NEMC", "BUMC ED"
        # not after "in" or "via": "in CAREVUE", "via OETT" name a record or a device
        abbreviation = (
            word.isupper()
            and not named
            and ((place and prev not in _NOT_ABBREVIATION_BEFORE) or nxt in _UNIT_AFTER)
        )
        if b - a <= 3 and not (place or abbreviation or (named and not is_english(word))):
            continue
        cased = word[:1].isupper()  # in a note in ordinary case, a capital says a name
        if not thorough and abbreviation:
            types[i] = "LOCATION:abbreviation"
            continue
        if not thorough and not mixed and word.islower() and place and not named:
            # a note in lower case: an unknown word after a place word is a place or its
            # abbreviation ("to gh", "from nwh")
            types[i] = "LOCATION:abbreviation"
            continue

        if (
            not thorough
            and named
            and is_bare_name(word)
            and b - a >= 4
            # a word in capitals in a note is an abbreviation first, unless a long one
            and (not word.isupper() or (not mixed and b - a >= 6))
            and not place
            and nxt not in _PLACE_AFTER
            # a name before a device's, a sign's or a disease's word is an eponym's
            # ("Holter monitor", "Penrose drain")
            and not is_eponym(text, a, b)
        ):
            # a known first or last name that is no English or clinical word, in lower or
            # title case, with no title before it ("yolanda at bedside", "Kowalczyk aware")
            types[i] = "PERSON:known_name"
            continue
        if not thorough and not (place and (word.istitle() if mixed else b - a >= 4)):
            # the precise pass: a place's name, or a person's, in its context only
            if b - a >= 4 and (word.istitle() or not mixed) and name_follows(text, b, nxt):
                types[i] = "PERSON"
            elif mixed and _capitalised_unknown(text, a, b):
                types[i] = "PERSON:capitalised"
            continue
        if mixed and not cased and not place and not is_bare_name(word):
            continue  # lower case in a note in ordinary case: shorthand or a misspelling
        if place and (not is_name_word(word) or folded[i] in places):
            # a name after a place word is a place when the note names a place so
            # ("FROM CALVERT HOSPITAL ... AT CALVERT": a surname too, by the Census)
            types[i] = "LOCATION"
        else:
            types[i] = "LOCATION" if nxt in _PLACE_AFTER else "PERSON"
    # a safe name joined to a reported one: "Griffin and Swackhamer aware"
    for j in [j for j, kind in enumerate(types) if kind and kind.startswith("PERSON")]:
        for i in (j - 2, j + 2):
            if not 0 <= i < len(words) or types[i] is not None:
                continue
            a, b = words[i]
            gap = text[min(words[j][1], b) : max(words[j][0], a)]
            w = text[a:b].casefold()
            k = max(i, j)
            after = folded[k + 1] if k + 1 < len(words) else ""
            cased = text[a:b].istitle() or not mixed
            if (
                gap.strip().casefold() in _JOINERS
                and taken.find(1, a, b) < 0
                and (
                    _ambiguous_name(text[a:b])
                    or (cased and _charted_name(w, any_class=True))
                    # "Green and Wilson aware": before "aware" a pair is two people,
                    # however English the surname
                    or (cased and name_follows(text, words[k][1], after) and _everyday_surname(w))
                )
            ):
                types[i] = "PERSON"
    out: list[Finding] = []
    for i, (a, b) in enumerate(words):
        if types[i] is None:
            continue
        kind, _, rule = str(types[i]).partition(":")
        if out and out[-1].entity_type == kind and text[out[-1].end : a].strip(" .-'’") == "":
            last = out.pop()
            joined = last.explanation.pattern_name if last.explanation else None
            out.append(_finding(last.start, b, kind, joined or _RULE))
            continue
        initial = _INITIAL.search(text, max(0, a - 3), a) if kind == "PERSON" else None
        if initial is not None and taken.find(1, initial.start(), a) >= 0:
            initial = None  # the initial is another finding's already ("DR W. roberto")
        out.append(_finding(initial.start() if initial else a, b, kind, rule or _RULE))
    return out


def _finding(start: int, end: int, entity: str, rule: str) -> Finding:
    return Finding(
        start,
        end,
        entity,
        _SCORE,
        RECOGNIZER,
        2,
        Explanation(RECOGNIZER, rule, _SCORE, _SCORE),
    )


def clinical_findings(text: str, found: list[Finding], *, thorough: bool = True) -> list[Finding]:
    """What the allow-list pass adds to ``found`` (the typed findings of ``text``): shapes
    and unsafe words that no finding covers, sorted by start (see the module doc).

    Examples
    --------
    >>> t = "Talked with helen. Griffin and Swackhamer aware. DR LAVELY NOTIFIED."
    >>> [t[f.start:f.end] for f in clinical_findings(t, [])]
    ['helen', 'Griffin', 'Swackhamer', 'LAVELY']
    """
    taken = bytearray(len(text))
    for f in found:
        taken[f.start : f.end] = b"\x01" * (f.end - f.start)
    extra: list[Finding] = []
    shapes = [*shape_findings(text), *context_findings(text), *number_findings(text)]
    partial = []
    for f in sorted(shapes, key=lambda f: (f.start, -f.end)):
        if taken.find(1, f.start, f.end) < 0:
            taken[f.start : f.end] = b"\x01" * (f.end - f.start)
            extra.append(f)
        else:
            partial.append(f)
    extra.extend(shape_remainders(text, partial, taken))
    head = text[:WINDOW]
    case = "upper" if mostly_upper(head) else "lower" if head == head.lower() else "mixed"
    extra.extend(name_place_findings(text, [*found, *extra], taken, mixed=case == "mixed"))
    extra.extend(cued_name_findings(text, taken, case=case))
    # the words of the places found so far: a known name after a place word that one of
    # them holds is that place again
    places = frozenset(
        w.casefold()
        for f in [*found, *extra]
        if f.entity_type == "LOCATION"
        for w in _WORD.findall(text, f.start, f.end)
    )
    for a, b in _windows(text):
        window = text[a:b]
        mixed = not (mostly_upper(window) or window == window.lower())
        words = _token_types(text, a, b, taken, thorough, mixed, places)
        for f in words:
            taken[f.start : f.end] = b"\x01" * (f.end - f.start)
        extra.extend(words)
    extra = [*extend_names(text, extra, taken), *name_growth(text, found, taken)]
    extra.extend(coordinated_people(text, [*found, *extra], taken))
    extra.extend(repeat_mentions(text, [*found, *extra], taken))
    extra.extend(name_neighbours(text, [*found, *extra], taken, case=case))
    extra.extend(person_initials(text, [*found, *extra], taken))
    extra.sort(key=lambda f: (f.start, f.end))
    return extra
