"""Clinical names and places: rules of the recall-first clinical mode that read a name or a
place from what stands next to a word, in any case.

Used only by :mod:`veil.text.detection._clinical_allow` (the ``hipaa`` profile in a clinical
note, the ``clinical`` profile anywhere), like :mod:`veil.text.recognition._clinical_shapes`
and :mod:`veil.text.recognition._clinical_context`. Each rule is a format or a context,
not a value; the vocabularies are Faker's and the US Census name lists and the English
dictionary of the spaCy pipeline (:mod:`veil.text.vocab._clinical_vocab`):

* **the rest of a shape** (:func:`shape_remainders`): a name or a place that a shape read
  whole ("ST. MARY", "LAUREL REGIONAL", "Q. LANDER") but that a typed finding or NER
  covers in part ("MARY", "LAUREL") adds the words the finding left out;
* **a first name and a surname** (:func:`first_and_surname`): a known first name that is
  no English or clinical word, then a word of four letters or more that no dictionary
  holds, in the same case ("mary theresa kondouli", "LISA ROSSETTI"); a known first name
  before it joins ("mary theresa");
* **places after a move** (:func:`moved_places`): after "transferred to", "sent to",
  "taken to", "admitted to", "discharged to" or "transferred from", a word that no
  dictionary holds, in any case, short words too ("transfered to gh", "SENT TO BWH"), with
  the unknown words after it;
* **places joined to a place** (:func:`coordinated_places`): a word that no dictionary holds,
  joined by "and", "&" or "/" to a place found before it ("BALTIMORE REHAB AND
  KIMBROUGH");
* **homes and residences** (:func:`residences`): an unknown word or a known name before
  "House", "NH", "SNF", "ECF", "LTAC", "Nursing Home", "Assisted Living" ("Grieco House
  NH", "BROOKHAVEN SNF"), capitalised, never a description ("nursing home", "the house");
* **first names after a contact** (:func:`contacted_names`): in a note in ordinary case,
  a capitalised known first name after a relation word or a contact verb ("reach Rob",
  "Husband Rich"), even one that is an English verb or adjective;
* **names by their shape** (:func:`named_pairs`), however English, with the frequent
  Census names (:func:`veil.text.vocab._clinical_vocab.is_frequent_name`): a pair joined
  by "and" before what follows a person (:func:`name_follows`: "Hope and Foster aware"),
  one after a single initial ("E. Price"), an initial and one before a care-team role
  ("d. white rrt"), and a signature on the note's last line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import (
    CLINICAL_EXTRA,
    is_derived_word,
    is_first_name,
    is_frequent_name,
    is_last_name,
    is_name_word,
    is_safe_word,
)
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    RELATION_WORDS,
    common_words,
    word_classes,
    word_set,
)

__all__ = [
    "NAME_AFTER",
    "compound_word",
    "contacted_names",
    "coordinated_places",
    "first_and_surname",
    "moved_places",
    "name_follows",
    "name_place_findings",
    "named_pairs",
    "parenthesised_people",
    "residences",
    "shape_remainders",
]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6

_FUNCTION = word_set(
    "a an the and or but of in on at by to from with for as is was be this that these those "
    "his her their its our my your he she they we it who which not no yes any all some per "
    "into onto via"
)
_WORD = lazy_compile(r"(?<![\w'’])[^\W\d_][^\W\d_'’]*(?:['’][^\W\d_]+)?(?![\w'’])")


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start, end, entity, _SCORE, RECOGNIZER, 1, Explanation(RECOGNIZER, pattern, _SCORE, _SCORE)
    )


def _plain(w: str) -> bool:
    """A function, clinical, charting or calendar word (``w`` case-folded)."""
    return w in _FUNCTION or w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS


def _case(word: str) -> str:
    if word.isupper():
        return "upper"
    if word.islower():
        return "lower"
    return "title" if word[:1].isupper() and word[1:].islower() else "mixed"


def _unknown(word: str, shortest: int = 4) -> bool:
    """A word of ``shortest`` letters or more that neither the English dictionary nor the
    clinical vocabulary holds, misspellings included, and that is no known name either."""
    w = word.casefold()
    return len(w) >= shortest and not _plain(w) and not is_safe_word(word)


def _not_english(word: str, shortest: int = 4) -> bool:
    """A word of ``shortest`` letters or more that no dictionary or clinical list holds as
    spelt (a word one letter off an English one, "Grieco", counts: next to a first name or
    a residence word it is a name, not a misspelling)."""
    w = word.casefold()
    return (
        len(w) >= shortest
        and not _plain(w)
        and w not in common_words()
        and not word_classes(w)
        and w.isalpha()
    )


def _first_name(w: str) -> bool:
    """A known first name (``w`` case-folded) that is no everyday, clinical, charting or
    calendar word, verb, adjective or adverb ("mary", "theresa"; not "will", "bill")."""
    return (
        len(w) >= 3
        and is_first_name(w)
        and not _plain(w)
        and w not in common_words()
        and not word_classes(w) & {"verb", "adj", "adv"}
    )


def _surname(w: str) -> bool:
    """A known last name (``w`` case-folded) that is no everyday, clinical, charting or
    calendar word, verb, adjective or adverb ("Hall", "Baker"; not "Will", "Young")."""
    return (
        len(w) >= 3
        and is_last_name(w)
        and not _plain(w)
        and w not in common_words()
        and not word_classes(w) & {"verb", "adj", "adv"}
    )


def _free(taken: bytearray, a: int, b: int) -> bool:
    return taken.find(1, a, b) < 0


def _mark(taken: bytearray, a: int, b: int) -> None:
    taken[a:b] = b"\x01" * (b - a)


# ---- the rest of a shape ----------------------------------------------------------------
def shape_remainders(text: str, shapes: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """The words of each ``PERSON`` or ``LOCATION`` shape in ``shapes`` that ``taken`` does
    not mark, as findings of their own, when some other word of the shape is marked (a
    typed finding or NER read the name in part); what is added is marked.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "TO GO TO ST. MARY ON TUESDAY"
    >>> taken = bytearray(len(t))
    >>> taken[13:17] = b"\\x01" * 4
    >>> [t[f.start:f.end] for f in shape_remainders(t, [Finding(9, 17, "LOCATION", 0.6, "x")], taken)]
    ['ST.']
    """
    out: list[Finding] = []
    for f in shapes:
        if f.entity_type not in {"PERSON", "LOCATION"} or _free(taken, f.start, f.end):
            continue
        # a town is read whole from the gazetteer ("MILFORD MILL"): each of its words
        gazetteer = f.explanation is not None and f.explanation.pattern_name == "town"
        for m in _PIECE.finditer(text, f.start, f.end):
            a, b = m.span()
            if not _free(taken, a, b):
                continue
            if _name_piece(m.group()) or (
                gazetteer and m.group().rstrip(".").casefold() not in FACILITY_WORDS
            ):
                _mark(taken, a, b)
                out.append(_finding(a, b, f.entity_type, "shape_remainder"))
    return out


# a word with the full stop of an initial or an abbreviation ("ST.", "Q.")
_PIECE = lazy_compile(r"[^\W_][\w'’-]*(?:\.(?=\s|$))?")
# what a place's name is made of besides names: the words of the facility rules
# ("LAUREL REGIONAL", "ST. MARY", "HOLY CROSS"); the facility's kind ("hospital",
# "MEDICAL CENTER") is a description and is left
_NAME_PARTS = word_set(
    "regional general memorial community county university saint st holy sacred good "
    "samaritan mount mt north south east west new port fort ft lake"
)
FACILITY_WORDS = word_set(
    "hospital hosp hosp. medical med center centre ctr clinic rehab nursing home hospice "
    "campus health healthcare institute infirmary manor house nh snf ecf ltac alf er ed ew"
)


def _name_piece(piece: str) -> bool:
    """A piece of a shape worth adding alone: an initial or an abbreviation with its full
    stop ("Q.", "ST."), a short word in capitals, a word no dictionary holds, a known name
    that is no verb, adjective or adverb, or a word places' names are made of."""
    word = piece.rstrip(".")
    w = word.casefold()
    if w in FACILITY_WORDS or w in _FUNCTION:
        return False
    if (piece.endswith(".") and len(word) <= 2) or (word.isupper() and len(word) <= 3):
        return True
    if w in _NAME_PARTS:
        return True
    if _plain(w) or w in common_words():
        return False
    if not is_safe_word(word):
        return True
    return is_name_word(w) and not word_classes(w) & {"verb", "adj", "adv"}


# ---- a first name and a surname ---------------------------------------------------------
def first_and_surname(text: str, taken: bytearray) -> list[Finding]:
    """A known first name then an unknown word in the same case (see the module doc);
    nothing ``taken`` marks; what is added is marked.

    Examples
    --------
    >>> t = "pt alert. mary theresa kondouli from speech in today. mary rounds"
    >>> [t[f.start:f.end] for f in first_and_surname(t, bytearray(len(t)))]
    ['mary theresa kondouli']
    """
    out: list[Finding] = []
    # the words are read as a stream, three at a time: a note of 10 MB without a line
    # break costs no list of its words
    before_span: tuple[int, int] | None = None
    span: tuple[int, int] | None = None
    for m in _WORD.finditer(text):
        prev_span, before_span, span = before_span, span, m.span()
        if before_span is None:
            continue
        (a, b), (c, d) = before_span, span
        gap = text[b:c]
        if not gap.isspace() or "\n" in gap:
            continue
        first = text[a:b]
        case = _case(first)  # each word's case once: this runs for every pair of words
        if case == "mixed":
            continue
        last = text[c:d]
        if _case(last) != case or not _first_name(first.casefold()):
            continue
        if case == "lower":
            # lower case: no word made of a known stem and an affix ("fem introducer")
            if not _not_english(last) or is_derived_word(last):
                continue
        elif not (_not_english(last) or _surname(last.casefold())):
            continue
        start = a
        if prev_span is not None:  # "mary theresa kondouli": a first name before it
            pa, pb = prev_span
            before = text[pa:pb]
            if (
                text[pb:a].isspace()
                and "\n" not in text[pb:a]
                and _case(before) == case
                and _first_name(before.casefold())
            ):
                start = pa
        if not _free(taken, start, d):
            if _free(taken, c, d):
                _mark(taken, c, d)
                out.append(_finding(c, d, "PERSON", "first_and_surname"))
            continue
        _mark(taken, start, d)
        out.append(_finding(start, d, "PERSON", "first_and_surname"))
    return out


# ---- places after a move ----------------------------------------------------------------
_MOVED = lazy_compile(
    r"\b(?:trans?fer+(?:r?ed)?|sent|taken|admitted|discharged|transported|"
    r"flown|medflighted|airlifted)[ \t]+(?:to|from)[ \t]+(?:the[ \t]+)?",
    re.IGNORECASE,
)


def moved_places(text: str, taken: bytearray) -> list[Finding]:
    """The place after a move (see the module doc): an unknown word of two letters or more
    and the unknown words after it on the line; nothing ``taken`` marks.

    Examples
    --------
    >>> t = "led him to be transfered to gh 7/22. Transferred to the floor."
    >>> [t[f.start:f.end] for f in moved_places(t, bytearray(len(t)))]
    ['gh']
    """
    out: list[Finding] = []
    for m in _MOVED.finditer(text):
        end = m.end()
        pos = m.end()
        while True:
            w = _WORD.match(text, pos)
            if w is None or not _unknown(w.group(), 2 if pos == m.end() else 3):
                break
            word = w.group().casefold()
            if word in _SHORT_NOT_PLACE or word in FACILITY_WORDS or compound_word(word):
                break
            end = w.end()
            gap = _GAP.match(text, end)
            if gap is None:
                break
            pos = gap.end()
        if end > m.end() and _free(taken, m.end(), end):
            _mark(taken, m.end(), end)
            out.append(_finding(m.end(), end, "LOCATION", "moved_to"))
    return out


_GAP = lazy_compile(r"[ \t]+")


def compound_word(w: str) -> bool:
    """Two safe words written as one ("stepdown", "ctscan")."""
    return len(w) >= 5 and any(
        is_safe_word(w[:k]) and is_safe_word(w[k:]) for k in range(2, len(w) - 1)
    )


# short words after a move that name no place: units and wards written as shorthand
_SHORT_NOT_PLACE = word_set("rm bed bay pod flr fl unit ward")


# ---- places joined to a place -----------------------------------------------------------
_AND_AFTER = lazy_compile(
    r"(?:[ \t]+(?:rehab|hospital|hosp|clinic|center|ctr|nh|snf))?[ \t]*(?:and|&|/)[ \t]*",
    re.IGNORECASE,
)


def coordinated_places(text: str, found: Iterable[Finding], taken: bytearray) -> list[Finding]:
    """An unknown word of three letters or more, in the case of the place's last word,
    after "and", "&" or "/" and a found ``LOCATION``; nothing ``taken`` marks.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "SCREENED BY BALTIMORE REHAB AND KIMBROUGH. TO GO HOME AND REST"
    >>> fs = [Finding(12, 27, "LOCATION", 0.6, "x")]
    >>> [t[f.start:f.end] for f in coordinated_places(t, fs, bytearray(len(t)))]
    ['KIMBROUGH']
    """
    out: list[Finding] = []
    for f in found:
        if f.entity_type != "LOCATION":
            continue
        last = text[f.start : f.end].split()
        if not last:
            continue
        gap = _AND_AFTER.match(text, f.end)
        if gap is None or gap.end() == f.end:
            continue
        w = _WORD.match(text, gap.end())
        if w is None or not _free(taken, w.start(), w.end()):
            continue
        word = w.group()
        if _case(word) != _case(last[-1].rstrip(".,")) or not _unknown(word, 3):
            continue
        _mark(taken, w.start(), w.end())
        out.append(_finding(w.start(), w.end(), "LOCATION", "coordinated_place"))
    return out


# ---- homes and residences ---------------------------------------------------------------
_RESIDENCE = lazy_compile(
    r"(?<![\w'’-])([A-Z][\w'’-]+)[ \t]+((?:House|HOUSE|Nursing[ \t]+Home|NURSING[ \t]+HOME|"
    r"Assisted[ \t]+Living|ASSISTED[ \t]+LIVING|NH|SNF|ECF|LTAC|ALF)(?:[ \t]+NH)?)\b"
)


def residences(text: str, taken: bytearray) -> list[Finding]:
    """A capitalised unknown word or known name before a residence word (see the module
    doc); nothing ``taken`` marks.

    Examples
    --------
    >>> t = "89 Y.O. woman, Grieco House NH resident. Lives at the Senate House."
    >>> [t[f.start:f.end] for f in residences(t, bytearray(len(t)))]
    ['Grieco House NH']
    """
    out: list[Finding] = []
    for m in _RESIDENCE.finditer(text):
        word = m.group(1)
        w = word.casefold()
        if _plain(w) or w in common_words():
            continue
        if not _not_english(word, 3):
            continue
        if _free(taken, m.start(1), m.end(1)):
            _mark(taken, m.start(1), m.end())
            out.append(_finding(m.start(1), m.end(), "LOCATION", "residence"))
    return out


# ---- first names after a contact --------------------------------------------------------
_CONTACT = lazy_compile(
    rf"\b(?:{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))}|sons|daughters|"
    r"brothers|sisters|dtr|friend|reach|reached|call|called|spoke[ \t]+(?:with|to)|"
    r"talked[ \t]+(?:with|to)|d/w|paged|notified|updated|informed)[ \t]*[:,-]?[ \t]+"
    r"([A-Z][a-z]{2,})\b",
    re.IGNORECASE,
)


def contacted_names(text: str, mixed: bool, taken: bytearray) -> list[Finding]:
    """In a note in ordinary case (``mixed``), a capitalised known first name after a
    relation word or a contact verb, whatever else the dictionary calls it; nothing
    ``taken`` marks.

    Examples
    --------
    >>> t = "Only able to reach Rob. Husband Frank in to visit. Called Pharmacy."
    >>> [t[f.start:f.end] for f in contacted_names(t, True, bytearray(len(t)))]
    ['Rob', 'Frank']
    """
    out: list[Finding] = []
    if not mixed:
        return out
    for m in _CONTACT.finditer(text):
        word = m.group(1)
        w = word.casefold()
        if not is_first_name(w) or _plain(w) or not _free(taken, m.start(1), m.end(1)):
            continue
        _mark(taken, m.start(1), m.end(1))
        out.append(_finding(m.start(1), m.end(1), "PERSON", "contacted_name"))
    return out


# ---- relations in parentheses and initials ----------------------------------------------
_RELATION = rf"(?:{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))}|dtr|friend|hcp|proxy)"
_RELATION_IN_PARENS = lazy_compile(
    rf"(?<![\w'’-])([^\W\d_][\w'’-]+)[ \t]*\([ \t]*{_RELATION}[ \t]*\)|"
    rf"\b{_RELATION}[ \t]*\([ \t]*([^\W\d_][\w'’-]+)[ \t]*\)",
    re.IGNORECASE,
)
# two or three capital initials with full stops ("J.R.", "J. R. S.") after a title, a
# role or a relation, before a role, or before a capitalised surname ("J.R. Brown")
_INITIALS = r"[A-Z]\.[ \t]?[A-Z]\.(?:[ \t]?[A-Z]\.)?"
_INITIALS_IN_CONTEXT = lazy_compile(
    rf"(?i:\b(?:dr|drs|doctor|mrs|miss|mr|ms|nurse|rn|np|md|pa|attending|resident|"
    rf"{_RELATION[3:-1]})\.?[ \t]*[:,-]?[ \t]+)(?P<a>{_INITIALS})(?![\w.])|"
    rf"(?<![\w.])(?P<b>{_INITIALS})[ \t]*,?[ \t]*(?:\(?(?:RN|MD|NP|RRT|PA|rn|md|np)\b)|"
    rf"(?<![\w.])(?P<c>{_INITIALS})[ \t]?(?P<surname>[A-Z][a-z'’-]+|[A-Z]{{2,}})(?![\w.])"
)


# abbreviations written with full stops that are no initials ("M.D.", "U.S.", "D.O.")
_DOTTED_ABBREVIATIONS = word_set(
    "md do rn np pa dr ms mr us uk er ed ok am pm dc po iv im sq sc or pr ng og qd bid tid "
    "qid prn hs ac pc os od ou ad as au ie eg nb ps ca co cc"
)


def parenthesised_people(text: str, taken: bytearray) -> list[Finding]:
    """A name before a relation in parentheses or inside them after one ("Joan
    (daughter)", "wife (Mary)"), and initials in a name's context ("Dr. J.R.", "J.R. RN",
    "J.R. Brown"); a word that is a known name or no English word, never a function,
    clinical or everyday word, nor a pair of letters that spells one ("P.O.", "I.V.").

    Examples
    --------
    >>> t = "Joan (daughter) and wife (Mary) aware. Seen by Dr. J.R. today; meds P.O. Given."
    >>> [t[f.start:f.end] for f in parenthesised_people(t, bytearray(len(t)))]
    ['Joan', 'Mary', 'J.R.']
    """
    out: list[Finding] = []
    for m in _RELATION_IN_PARENS.finditer(text):
        g = 1 if m.group(1) is not None else 2
        word = m.group(g)
        w = word.casefold()
        if len(w) < 3 or _plain(w) or w in common_words() or w in RELATION_WORDS:
            continue
        if word_classes(w) & {"verb", "adj", "adv"} or not (
            is_name_word(w) or not is_safe_word(word)
        ):
            continue
        if _free(taken, m.start(g), m.end(g)):
            _mark(taken, m.start(g), m.end(g))
            out.append(_finding(m.start(g), m.end(g), "PERSON", "relation_in_parens"))
    for m in _INITIALS_IN_CONTEXT.finditer(text):
        key = "a" if m.group("a") else "b" if m.group("b") else "c"
        a, b = m.span(key)
        letters = "".join(c for c in m.group(key) if c.isalpha()).casefold()
        if _plain(letters) or letters in common_words() or letters in _DOTTED_ABBREVIATIONS:
            continue  # "P.O.", "I.V.", "O.R.": an abbreviation
        if key == "c":
            surname = m.group("surname")
            if not (_not_english(surname, 3) or is_last_name(surname)):
                continue
            if _plain(surname.casefold()):
                continue
            b = m.end("surname")
        if _free(taken, a, b):
            _mark(taken, a, b)
            out.append(_finding(a, b, "PERSON", "initials"))
    return out


# ---- what follows a person ------------------------------------------------------------
#: words that follow a person's name in a note ("Griffin and Swackhamer aware", "DR X
#: NOTIFIED")
NAME_AFTER = word_set("aware notified paged updated informed called visited visiting")
# phrases that follow a person as "aware" does: "Griffin at bedside", "Hall is aware",
# "Rossi in to visit", "Hanley came in"; read only after a word that can start one
_NAME_AFTER_PHRASE = lazy_compile(
    r"[ \t]+(?:(?:is|was|were|has[ \t]+been|have[ \t]+been)[ \t]+(?:aware|notified|paged|"
    r"updated|informed|called|here|present|visiting)|at[ \t]+(?:the[ \t]+)?bedside|"
    r"in[ \t]+to[ \t]+(?:visit|see)|came[ \t]+(?:in|to[ \t]+visit)|here[ \t]+to[ \t]+visit)\b",
    re.IGNORECASE,
)
_NEXT_WORD = lazy_compile(r"[ \t]+([^\W\d_]+)")
_PHRASE_STARTS = word_set("is was were has have at in came here")


def name_follows(text: str, end: int, nxt: str) -> bool:
    """Whether what follows the word ending at ``end`` (``nxt`` the next word,
    case-folded) is what follows a person: "aware", "notified", "at bedside", "is aware".

    Examples
    --------
    >>> t = "Griffin at bedside. Pt at rest."
    >>> name_follows(t, 7, "at"), name_follows(t, 22, "at")
    (True, False)
    """
    if nxt in NAME_AFTER:
        return True
    return nxt in _PHRASE_STARTS and _NAME_AFTER_PHRASE.match(text, end) is not None


# ---- names by their shape, English or not -----------------------------------------------
# two capitalised words joined by "and" before what follows a person: "Hope and Foster
# aware", "PAGE AND LONG NOTIFIED"
# read from the joiner, rarer than a capital: the words on either side are matched there
_JOINER = lazy_compile(r"[ \t]+(?:and|AND|&)[ \t]+")
_PAIR_BEFORE = lazy_compile(r"(?<![\w'’.-])(?:[A-Z][a-z'’]+|[A-Z]{3,})$")
_PAIR_AFTER = lazy_compile(r"(?:[A-Z][a-z'’]+|[A-Z]{3,})\b")
# one initial with its full stop and a word: "E. Price", "R. WHITE", "d. white rrt"; not
# after a word's letter ("PVC'S. HEMODYNAMICS")
_INITIAL_WORD = lazy_compile(r"(?<![\w.'’&/+-])([A-Za-z])\.[ \t]?([A-Za-z][A-Za-z'’-]*)(?![\w'’-])")
# a surname capitalised or in capitals after a capital initial ("E. Price", "R. WHITE")
_CASED_SURNAME = lazy_compile(r"[A-Z][a-z'’-]+|[A-Z]{3,}")
# a signature: an initial, a surname in any case and a care-team role ("d. white rrt",
# "J. Long, RN")
_SIGNED_SURNAME = lazy_compile(r"[A-Za-z][a-z'’-]+|[A-Z]{3,}")
_ROLE_TAIL = lazy_compile(r",?[ \t]+(?:RN|RRT|MD|NP|LPN|CNA|rn|rrt|md|np|lpn)\b(?![/.-]\w)")


def _namelike(word: str) -> bool:
    """A frequent name, English word or not, that is no verb or adverb alone: a name's
    shape is the cue ("Price", "White", "Hope"; not "Will" or "Long")."""
    w = word.casefold()
    return is_frequent_name(w) and not (
        word_classes(w) & {"verb", "adj", "adv"} and not word_classes(w) & {"noun"}
    )


def named_pairs(text: str, taken: bytearray) -> list[Finding]:
    """Names by their shape, however English: a pair of frequent names joined by "and"
    before what follows a person (:func:`name_follows`), both capitalised or both in
    capitals; a capital initial and a frequent surname in the same shape; an initial, a
    frequent surname in any case and a care-team role. Nothing ``taken`` marks; what is
    added is marked.

    Examples
    --------
    >>> t = "Hope and Foster aware. Seen by E. Price. d. white rrt. Heat and Ice applied."
    >>> [t[f.start:f.end] for f in named_pairs(t, bytearray(len(t)))]
    ['Hope', 'Foster', 'E. Price', 'd. white']
    """
    out: list[Finding] = []

    def add(a: int, b: int) -> None:
        if _free(taken, a, b):
            _mark(taken, a, b)
            out.append(_finding(a, b, "PERSON", "name_shape"))

    for j in _JOINER.finditer(text):
        one = _PAIR_BEFORE.search(text, max(0, j.start() - 40), j.start())
        two = _PAIR_AFTER.match(text, j.end())
        if one is None or two is None or _case(one.group()) != _case(two.group()):
            continue
        if not (_namelike(one.group()) and _namelike(two.group())):
            continue
        nxt = _NEXT_WORD.match(text, two.end())
        if nxt is None or not name_follows(text, two.end(), nxt.group(1).casefold()):
            continue
        add(*one.span())
        add(*two.span())
    for m in _INITIAL_WORD.finditer(text):
        word = m.group(2)
        if m.group(1).isupper() and _CASED_SURNAME.fullmatch(word) and _namelike(word):
            add(m.start(), m.end(2))
        elif (
            _SIGNED_SURNAME.fullmatch(word) and _ROLE_TAIL.match(text, m.end()) and _namelike(word)
        ):
            add(m.start(), m.end(2))
    signature = _signature(text)
    if signature is not None:
        add(*signature)
    return out


# the last line of a note, a signature: one to three words (initials with their full
# stop too), a care-team role and punctuation after them ("J. Smith RN", "Mary Okafor")
_LAST_LINE = lazy_compile(
    r"(?:^|\n)[ \t]*((?:[A-Za-z]\.[ \t]?)?[A-Za-z][A-Za-z'’-]+(?:[ \t]+(?:[A-Za-z]\.[ \t]?)?"
    r"[A-Za-z][A-Za-z'’-]+){0,2})[ \t]*(?:,?[ \t]*(?:RN|RRT|MD|NP|LPN|CNA|rn|rrt|md|np|lpn)"
    r"\.?)?[ \t.,]*\s*$"
)


def _signature(text: str) -> tuple[int, int] | None:
    """The span of a signature on a note's last line: every word a frequent name or one
    that no dictionary holds, at least one no English word, in one case."""
    end = len(text.rstrip())
    start = text.rfind("\n", 0, end) + 1
    if end - start > 60:
        return None
    m = _LAST_LINE.match(text, max(0, start - 1))
    if m is None:
        return None
    words = [w.rstrip(".") for w in m.group(1).split()]
    names = [w for w in words if len(w) > 1]
    if not names or len({_case(w) for w in names}) > 1 or _case(names[0]) == "mixed":
        return None
    if not all(_namelike(w) or _unknown(w) for w in names):
        return None
    if all(w.casefold() in common_words() or word_classes(w.casefold()) for w in names):
        return None  # "Rest well", "Will follow": English words only
    return m.span(1)


def name_place_findings(
    text: str, found: list[Finding], taken: bytearray, *, mixed: bool
) -> list[Finding]:
    """The rules of this module that need no shape (see the module doc), in order; each
    marks what it adds in ``taken``. ``found`` holds the findings so far (places joined to
    a place are read from them)."""
    out = [
        *moved_places(text, taken),
        *residences(text, taken),
        *first_and_surname(text, taken),
        *contacted_names(text, mixed, taken),
        *parenthesised_people(text, taken),
        *named_pairs(text, taken),
    ]
    out.extend(coordinated_places(text, [*found, *out], taken))
    return out
