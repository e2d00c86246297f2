"""Clinical names by their spelling, by a role beside them and by how often the Census
saw them: rules of the recall-first clinical mode that need no title before a name.

Used only by :mod:`veil.text.detection._clinical_allow` (the ``hipaa`` profile in a
clinical note, the ``clinical`` profile anywhere), after
:mod:`veil.text.recognition._clinical_names`. Each rule is a format or a vocabulary, not
a value; the vocabularies are Faker's and the US Census name lists
(:mod:`veil.text.vocab._census`) and the English dictionary of the spaCy pipeline:

* **a surname's prefix** (:func:`prefixed_surnames`): "O'" or "D'" before a capital, and
  "Mc", "Mac" or "Fitz" before a capital inside the word ("O'Donnell", "D'Angelo",
  "McCafferty", "MacArthur", "O'DONNELL"), the shape of Irish, Scottish and Italian
  surnames; the rest must be no English word unless it is a known name ("O'Neil"), so
  "o'clock" and "O'Clock" stay, and no eponym's ("McBurney point", :func:`is_eponym`);
* **a name beside a care-team role or a relation** (:func:`role_side_names`): a word that
  only a name list holds (:func:`veil.text.vocab._clinical_vocab.is_cued_name`: a Faker or
  Census name that is no common, clinical or dictionary word, however rare) right before
  or after "RN", "MD", "NP", "PA", "RRT", "attending", "resident", "nurse", "PCP", a
  title or a relation word, in any case ("HARTWELL RN", "rn hartwell", "wife Maureen"),
  written as the note writes names (capitalised in a note in ordinary case); after a
  relation word, any first name of the lists, an English word too ("WIFE ROSE", "son
  frank"), but no common word ("son will call");
* **a frequent name in mid-sentence** (:func:`capitalised_frequent_names`): in a note in
  ordinary case, a capitalised word of four letters or more in mid-sentence that is a
  Faker name or one of the :data:`FREQUENT_RANK` most frequent Census surnames or first
  names, an English noun included ("Fowler", "Marsh"), never a verb, adjective, adverb,
  common, clinical, charting or calendar word: where the note writes its words in lower
  case, a capital on a name the Census saw often says the name. A rarer name stays with
  the rules that need a cue; Census frequency, not the word's, is the score, since no
  English frequency table ships with the pipeline.

* **a frequent name where only a person stands** (the ninth round): a name the Census
  saw often, however English (:func:`_frequent_person`: a Faker name or one of the 5,000
  most frequent Census names, used as a noun or adjective too, never a relation, a role,
  an auxiliary or an adverb), right after a relation word or beside a care-team role no
  abbreviation shares (:func:`role_side_names`: "wife hope", "Young RN"), right before
  what follows a person (:func:`followed_names`: "Hope aware", "YOUNG AT BEDSIDE"), after
  a contact or a hand-off or before a relation in parentheses (:func:`contacted_names`:
  "d/w Young", "report given to bell", "Hope (wife) called");
* **the rest of a name found in part** (the ninth round, after every other rule): an
  initial with its full stop beside a found person and a capital alone between two
  (:func:`person_initials`: "Q. LANDER", "Roe, J.", "ROBERT V DEGIORGIO"), and the word
  beside a found person that no dictionary holds (:func:`name_neighbours`: "Maria
  Kondouli").

Measured only in aggregate on the PhysioNet deid notes (how many gold name tokens and
how many other tokens each candidate rule would take; which ones only on the first half):
see docs/text.md, the eighth and ninth rounds.
"""

from __future__ import annotations

import functools
import itertools
import re

from veil._lazy import lazy_compile
from veil.text.recognition._clinical_names import name_follows
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._census import census_names
from veil.text.vocab._clinical_vocab import (
    CLINICAL_EXTRA,
    is_cued_name,
    is_frequent_name,
    is_name_word,
    is_safe_word,
)
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    RELATION_WORDS,
    common_words,
    name_lexicon,
    relation_pattern,
    word_classes,
    word_set,
)

__all__ = [
    "FREQUENT_RANK",
    "capitalised_frequent_names",
    "contacted_names",
    "cued_name_findings",
    "followed_names",
    "is_eponym",
    "listed_names",
    "name_neighbours",
    "person_initials",
    "prefixed_surnames",
    "role_side_names",
]

RECOGNIZER = "clinical_shapes"
_SCORE = 0.6
#: the Census names frequent enough that a capital in mid-sentence makes them a name
FREQUENT_RANK = 20_000

# what ends a sentence or a field before a word: its capital says nothing there
_SENTENCE_BEFORE = lazy_compile(r"(?:^|[.!?:;\n(\[*#>\d\"-])[ \t]*$")
# words in one case, read by the regex engine rather than word by word: capitalised
# ("Fowler"), in capitals, in lower case, of the given length or more
_CASED = {
    ("title", 4): lazy_compile(r"(?<![\w'’])[A-Z][a-z]{3,}(?![\w'’])"),
    ("upper", 5): lazy_compile(r"(?<![\w'’])[A-Z]{5,}(?![\w'’])"),
    ("lower", 5): lazy_compile(r"(?<![\w'’])[a-z]{5,}(?![\w'’])"),
}


def _finding(start: int, end: int, entity: str, pattern: str) -> Finding:
    return Finding(
        start, end, entity, _SCORE, RECOGNIZER, 1, Explanation(RECOGNIZER, pattern, _SCORE, _SCORE)
    )


def _plain(w: str) -> bool:
    """A clinical, charting or calendar word (``w`` case-folded)."""
    return w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS


def _free(taken: bytearray, a: int, b: int) -> bool:
    return taken.find(1, a, b) < 0


def _mark(taken: bytearray, a: int, b: int) -> None:
    taken[a:b] = b"\x01" * (b - a)


# ---- a surname's prefix -------------------------------------------------------------------
_PREFIXED = lazy_compile(
    r"(?<![\w'’])(?:[OD]['’](?P<rest>[A-Z][a-z]{2,}|[A-Z]{3,})|"
    r"(?:Mc|Mac|Fitz)(?P<tail>[A-Z][a-z]{2,}))(?![\w'’])"
)


def prefixed_surnames(text: str, taken: bytearray) -> list[Finding]:
    """Surnames written with their prefix (see the module doc); nothing ``taken`` marks;
    what is added is marked.

    Examples
    --------
    >>> t = "Seen by O'Donnell and McCafferty at 3 o'clock. Made with O'Clock gel, Mace."
    >>> [t[f.start:f.end] for f in prefixed_surnames(t, bytearray(len(t)))]
    ["O'Donnell", 'McCafferty']
    """
    out: list[Finding] = []
    for m in _PREFIXED.finditer(text):
        rest = (m.group("rest") or m.group("tail")).casefold()
        if (is_safe_word(rest) or _plain(rest)) and not is_name_word(rest):
            continue  # "O'Clock", "MacBook"-like words made of an English one
        a, b = m.span()
        if _free(taken, a, b) and not is_eponym(text, a, b):
            _mark(taken, a, b)
            out.append(_finding(a, b, "PERSON", "prefixed_surname"))
    return out


# ---- a name beside a role -------------------------------------------------------------------
#: care-team roles, titles and relations that stand right before or after a person's name
ROLE_SIDE = RELATION_WORDS | word_set(
    "rn rns md np pa rrt lpn cna attending resident fellow intern nurse pcp dr drs dtr friend "
    "neighbor neighbour mr mrs ms"
)


_RELATIONS = RELATION_WORDS | word_set("dtr friend neighbor neighbour sons daughters")
#: care-team roles no clinical abbreviation shares ("PA" is the pulmonary artery too, "RT"
#: right, "CM" centimetres)
_TEAM_ROLES = word_set("rn rns md np rrt lpn cna attending resident fellow intern nurse pcp")


@functools.lru_cache(maxsize=65536)
def _given_name(w: str) -> bool:
    """A first name of Faker's or the Census lists, however English ("rose", "frank",
    "grace"), though none of the thousand most common words ("will", "may"): what a
    relation word before it makes a name (``w`` case-folded)."""
    return (
        len(w) >= 3
        and w.isalpha()
        and not _plain(w)
        and w not in common_words()
        and (w in name_lexicon()[0] or w in census_names()[0])
    )


#: words a relation word or a person's name is followed by that are no name, however
#: often the Census saw them as one: auxiliaries and modals ("son will call", "wife may
#: visit"), adverbs of a note ("wife still here") and who else is in the room
_NOT_PEOPLE = word_set(
    "will would shall should can could may might must did does do has had have was were is "
    "are been being also still now not all just only here there then very too again later "
    "made kept left both each other family team staff nurse nurses resident residents md "
    "mds ho pt pts patient friend friends"
)


@functools.lru_cache(maxsize=65536)
def _frequent_person(w: str) -> bool:
    """A name the Census saw often (:func:`veil.text.vocab._clinical_vocab.is_frequent_name`:
    a name of the lists or one of the 5,000 most frequent Census names), however English
    or common ("hope", "young", "grace"), that is no relation, role, auxiliary or adverb
    (:data:`_NOT_PEOPLE`) and is used as a noun or adjective too (a word that is only a
    verb or an adverb, "made", is no name) (``w`` case-folded)."""
    if len(w) < 3 or w in _NOT_PEOPLE or w in RELATION_WORDS or _plain(w):
        return False
    classes = word_classes(w)
    if classes and not classes & {"noun", "adj"}:
        return False
    return is_frequent_name(w)


@functools.lru_cache(maxsize=65536)
def _cued(word: str) -> bool:
    """A word only a name list holds, three letters or more (see the module doc)."""
    w = word.casefold()
    if len(w) < 3 or _plain(w) or w in common_words():
        return False
    return is_cued_name(w) and not word_classes(w)


def role_side_names(text: str, taken: bytearray, *, mixed: bool) -> list[Finding]:
    """A word only a name list holds right before or after a role, a title or a relation
    (see the module doc), capitalised when the note is in ordinary case (``mixed``);
    nothing ``taken`` marks; what is added is marked.

    Examples
    --------
    >>> t = "HARTWELL RN AT BEDSIDE. WIFE ROSE AWARE. RN GAVE LASIX. MD ORDERS. SON WILL CALL."
    >>> [t[f.start:f.end] for f in role_side_names(t, bytearray(len(t)), mixed=False)]
    ['HARTWELL', 'ROSE']
    """
    out: list[Finding] = []
    # read from the role words, rarer than words: the word on each side is matched there
    for r in _ROLE.finditer(text):
        role = r.group().casefold()
        # beside a care-team role or after a relation a name the Census saw often counts
        # however English ("Young RN", "wife Hope"); not beside "PA", "DR", "MR": the
        # pulmonary artery's numbers, a title's word are read by other rules
        frequent = role in _RELATIONS or role in _TEAM_ROLES
        after = _WORD_AFTER.match(text, r.end())
        if after is not None:
            _role_side(text, taken, out, mixed, after.start(1), after.end(1), frequent)
        before = _WORD_BEFORE.search(text, max(0, r.start() - 40), r.start())
        if before is not None:
            team = role in _TEAM_ROLES
            _role_side(text, taken, out, mixed, before.start(1), before.end(1), team)
    out.sort(key=lambda f: f.start)
    return out


_ROLE = lazy_compile(
    rf"(?<![\w'’/-])(?:{'|'.join(sorted(ROLE_SIDE, key=len, reverse=True))})(?![\w'’/-])",
    re.IGNORECASE,
)
# a word on the same line with only blanks, a comma or a colon between it and the role
_WORD_AFTER = lazy_compile(r"[ \t,:]*[ \t:,][ \t,:]*([^\W\d_][^\W\d_'’]*)(?![\w'’])")
_WORD_BEFORE = lazy_compile(r"(?<![\w'’])([^\W\d_][^\W\d_'’]*)[ \t,:]*[ \t:,][ \t,:]*$")


def _role_side(
    text: str,
    taken: bytearray,
    out: list[Finding],
    mixed: bool,
    a: int,
    b: int,
    frequent: bool,
) -> None:
    word = text[a:b]
    if (mixed and not word.istitle()) or not _free(taken, a, b):
        return
    folded = word.casefold()
    if not (_cued(word) or (frequent and (_given_name(folded) or _frequent_person(folded)))):
        return
    _mark(taken, a, b)
    out.append(_finding(a, b, "PERSON", "role_side_name"))


# ---- a frequent name in mid-sentence --------------------------------------------------------
_PLACE_BEFORE = word_set("to from at in into near")
_FACILITY_AFTER = word_set(
    "hospital hosp rehab clinic hospice infirmary manor memorial medical center ctr nursing "
    "house nh snf"
)
_PREV_WORD = lazy_compile(r"([^\W\d_]+)[ \t]+$")
_NEXT_WORD = lazy_compile(r"[ \t]+([^\W\d_]+)")
# the next two words, over blanks or a hyphen: an eponym's head ("Swan Ganz catheter",
# "Jackson-Pratt drain", "Glasgow coma scale", "Bair Hugger")
_NEXT_TWO = lazy_compile(r"(?:[ \t]+|-)([^\W\d_]+)(?:(?:[ \t]+|-)([^\W\d_]+))?")
#: what a name before it makes an eponym, not a person: devices, signs, scales, diseases
EPONYM_HEADS = word_set(
    "catheter cath catheters tube tubes drain drains sump monitor bag bags scale score coma "
    "sign signs disease diseases syndrome vest hugger blade boots boot stockings pump line "
    "port maneuver manoeuvre test criteria procedure operation splint collar frame bed "
    "mattress dressing shunt valve clamp forceps needle suture lead leads filter mask "
    "cannula pouch tray sump reflex reflexes classification staging stage formula solution "
    "point"
)


def is_eponym(text: str, a: int, b: int) -> bool:
    """Whether the word at ``a:b`` names a device, a sign or a disease: joined by a hyphen
    to another word ("Swan-Ganz"), or one of the next two words an eponym's head."""
    if text[a - 1 : a] == "-" and a > 0:
        return True
    m = _NEXT_TWO.match(text, b)
    if m is None:
        return False
    return any(g is not None and g.casefold() in EPONYM_HEADS for g in m.groups())


def _entity(text: str, a: int, b: int) -> str:
    """``LOCATION`` for a word right after "to", "from", "at", "in", "into", "near" or
    before a facility word ("at CALVERT", "Whitman Rehab"), ``PERSON`` otherwise."""
    before = _PREV_WORD.search(text, max(0, a - 20), a)
    after = _NEXT_WORD.match(text, b)
    place = (before is not None and before.group(1).casefold() in _PLACE_BEFORE) or (
        after is not None and after.group(1).casefold() in _FACILITY_AFTER
    )
    return "LOCATION" if place else "PERSON"


@functools.lru_cache(maxsize=65536)
def _frequent(w: str) -> bool:
    """A Faker name or a Census name among the :data:`FREQUENT_RANK` most frequent
    (``w`` case-folded), no verb, adjective or adverb, common or clinical word."""
    if len(w) < 4 or _plain(w) or w in common_words():
        return False
    if word_classes(w) & {"verb", "adj", "adv"}:
        return False
    if is_name_word(w):
        return True
    first, last = census_names()
    ranks = [r for r in (first.get(w), last.get(w)) if r is not None]
    return min(ranks, default=FREQUENT_RANK + 1) <= FREQUENT_RANK


def capitalised_frequent_names(text: str, taken: bytearray, *, mixed: bool) -> list[Finding]:
    """In a note in ordinary case (``mixed``), a capitalised frequent name in mid-sentence
    (see the module doc): a ``LOCATION`` after "to", "from", "at", "in" or before a
    facility word, a ``PERSON`` otherwise; nothing ``taken`` marks; what is added is
    marked.

    Examples
    --------
    >>> t = "Pt seen by Fowler today. Sent to Marsh Rehab. Pt Will call. Given Lasix."
    >>> [t[f.start:f.end] for f in capitalised_frequent_names(t, bytearray(len(t)), mixed=True)]
    ['Fowler', 'Marsh']
    """
    out: list[Finding] = []
    if not mixed:
        return out
    for m in _CASED[("title", 4)].finditer(text):
        a, b = m.span()
        if not _frequent(m.group().casefold()) or not _free(taken, a, b):
            continue
        if _SENTENCE_BEFORE.search(text, max(0, a - 8), a) or is_eponym(text, a, b):
            continue
        _mark(taken, a, b)
        out.append(_finding(a, b, _entity(text, a, b), "capitalised_frequent_name"))
    return out


# ---- a frequent name before what follows a person ----------------------------------------
# the words that start what follows a person ("aware", "at bedside", "in to visit"): read
# from them, rarer than words, and the word before each is matched there
_FOLLOWER = lazy_compile(
    r"(?<![\w'’])(?:aware|notified|paged|updated|informed|called|visited|visiting|is|was|"
    r"were|has|have|at|in|came|here)(?![\w'’])",
    re.IGNORECASE,
)
_BEFORE_FOLLOWER = lazy_compile(r"(?<![\w'’./-])([^\W\d_]{3,})[ \t]+$")


def _after_found_first_name(text: str, taken: bytearray, a: int) -> bool:
    """Whether the word right before ``a`` is a first name already found that is no
    English word, and the word at ``a`` is capitalised or in capitals: the name's growth
    (:func:`veil.text.recognition._clinical_context.extend_names`) then takes the surname
    into the same span ("Samantha White"; not after "Dana", a dictionary's word)."""
    prev = _PREV_WORD.search(text, max(0, a - 30), a)
    if prev is None or not taken[prev.start(1)] or not text[a : a + 1].isupper():
        return False
    first = prev.group(1).casefold()
    return _given_name(first) and not word_classes(first)


def followed_names(text: str, taken: bytearray, *, mixed: bool) -> list[Finding]:
    """A name the Census saw often, however English (:func:`_frequent_person`: "Hope
    aware", "young at bedside", "GRACE IN TO VISIT"), right before what follows a person
    (:func:`veil.text.recognition._clinical_names.name_follows`), capitalised when the
    note is in ordinary case (``mixed``); never a relation, a role, an auxiliary ("family
    aware", "son in to visit", "made aware") nor an eponym's name; nothing ``taken``
    marks; what is added is marked.

    Examples
    --------
    >>> t = "Hope aware of plan. Family made aware. Son in to visit. Grace at bedside."
    >>> [t[f.start:f.end] for f in followed_names(t, bytearray(len(t)), mixed=True)]
    ['Hope', 'Grace']
    """
    out: list[Finding] = []
    for f in _FOLLOWER.finditer(text):
        m = _BEFORE_FOLLOWER.search(text, max(0, f.start() - 40), f.start())
        if m is None:
            continue
        a, b = m.span(1)
        word = m.group(1)
        if (mixed and not word.istitle()) or not _free(taken, a, b):
            continue
        if not _frequent_person(word.casefold()):
            continue
        if _after_found_first_name(text, taken, a):
            continue  # the first name found before it grows over it (``extend_names``)
        if not name_follows(text, b, f.group().casefold()) or is_eponym(text, a, b):
            continue
        _mark(taken, a, b)
        out.append(_finding(a, b, "PERSON", "followed_name"))
    out.sort(key=lambda f: f.start)
    return out


# ---- a frequent name after a contact or a hand-off --------------------------------------
# what a note writes before the person it spoke with, handed over to or acted for
_CONTACT = lazy_compile(
    r"(?<![\w'’/])(?:(?:talked|spoke|spoken|speaking|met|discussed|reviewed|conferred)"
    r"[ \t]+(?:with|w/|to)|d/w|per|(?:seen|evaluated|examined|assessed)[ \t]+by|"
    r"(?:report|sign[ -]?out|c/o)[ \t]+(?:given[ \t]+)?to|signed[ \t]+out[ \t]+to|"
    r"(?:care[ \t]+)?(?:turned[ \t]+)?over[ \t]+to|handed[ \t]+off[ \t]+to|"
    r"covering[ \t]+for|(?:hcp|proxy)[ \t]+is|(?:contact|hcp|proxy)[ \t]*:)[ \t]+"
    r"([^\W\d_]{3,})(?![\w'’])",
    re.IGNORECASE,
)


#: what makes the word before it part of a role's name ("house staff", "case worker")
_ROLE_HEADS = word_set(
    "staff worker workers officer team service services manager management nurse nurses "
    "physician physicians resident residents md mds rn rns"
)


# a word before a relation in parentheses: "Hope (wife) called", "GRACE (DTR)"
_BEFORE_RELATION_IN_PARENS = lazy_compile(
    rf"(?<![\w'’])([^\W\d_]{{3,}})[ \t]*\((?:{relation_pattern('dtr', 'hcp', 'proxy')})\)",
    re.IGNORECASE,
)


def contacted_names(text: str, taken: bytearray, *, mixed: bool) -> list[Finding]:
    """A name the Census saw often, however English (:func:`_frequent_person`), right
    after a contact or a hand-off ("d/w Young", "per Hope", "report given to long",
    "covering for Bell", "hcp is Grace", "Contact: Rose") or before a relation in
    parentheses ("Hope (wife) called"), capitalised when the note is in ordinary case
    (``mixed``); never a relation, a role or an auxiliary ("per team", "spoke with
    family"); nothing ``taken`` marks; what is added is marked.

    Examples
    --------
    >>> t = "D/w Young re plan. Per protocol. Report given to Bell. Hope (wife) called."
    >>> [t[f.start:f.end] for f in contacted_names(t, bytearray(len(t)), mixed=True)]
    ['Young', 'Bell', 'Hope']
    """
    out: list[Finding] = []
    for m in (*_CONTACT.finditer(text), *_BEFORE_RELATION_IN_PARENS.finditer(text)):
        a, b = m.span(1)
        word = m.group(1)
        if (mixed and not word.istitle()) or not _free(taken, a, b):
            continue
        if not _frequent_person(word.casefold()) or is_eponym(text, a, b):
            continue
        if _after_found_first_name(text, taken, a):
            continue  # "William Park (sister)": the first name grows over it
        head = _NEXT_WORD.match(text, b)
        if head is not None and head.group(1).casefold() in _ROLE_HEADS:
            continue  # "house staff", "case worker": a role, not a person
        _mark(taken, a, b)
        out.append(_finding(a, b, "PERSON", "contacted_name"))
    out.sort(key=lambda f: f.start)
    return out


# ---- a word only a name list holds --------------------------------------------------------
def listed_names(text: str, taken: bytearray, *, case: str) -> list[Finding]:
    """A word only a name list holds (:func:`_cued`) written as the note writes names:
    capitalised, of four letters or more, in a note in ordinary case (``case`` "mixed"),
    where a sentence's first word counts too; of five letters or more in a note in
    capitals ("upper") or in lower case ("lower"), where case says nothing. Never an
    eponym's name (:func:`is_eponym`); a ``LOCATION`` after a place word or before a
    facility word, as in :func:`capitalised_frequent_names`, a ``PERSON`` otherwise;
    nothing ``taken`` marks; what is added is marked.

    Examples
    --------
    >>> t = "Kowalczyk called. SEEN BY OKONKWO. Pt given Lasix, Foley placed."
    >>> [t[f.start:f.end] for f in listed_names(t, bytearray(len(t)), case="mixed")]
    ['Kowalczyk']
    >>> t = "PT SEEN BY OKONKWO. GIVEN LASIX. SWAN GANZ CATHETER."
    >>> [t[f.start:f.end] for f in listed_names(t, bytearray(len(t)), case="upper")]
    ['OKONKWO']
    """
    out: list[Finding] = []
    shape = {"mixed": ("title", 4), "upper": ("upper", 5), "lower": ("lower", 5)}[case]
    for m in _CASED[shape].finditer(text):
        a, b = m.span()
        if not _cued(m.group()) or not _free(taken, a, b) or is_eponym(text, a, b):
            continue
        _mark(taken, a, b)
        out.append(_finding(a, b, _entity(text, a, b), "listed_name"))
    return out


# ---- the initials of a person found -----------------------------------------------------
# an initial with its full stop right before a name ("Q. LANDER"), not after a word's
# letter, a slash or an ampersand ("PVC'S. X", "r/t", "A&O. X")
_INITIAL_BEFORE = lazy_compile(r"(?<![\w.'’/&+-])([A-Za-z])\.[ \t]*$")
# after a name, a comma or a blank and an initial with its full stop ("Roe, J.", "ROE J.")
_INITIAL_AFTER = lazy_compile(r",?[ \t]+([A-Za-z])\.(?![\w'’])")
# a bare letter between two names on a line ("ROBERT V DEGIORGIO")
_INITIAL_BETWEEN = lazy_compile(r"[ \t]+([A-Za-z])\.?[ \t]+")


def person_initials(text: str, people: list[Finding], taken: bytearray) -> list[Finding]:
    """The initials around the ``PERSON`` findings that no rule took: an initial with its
    full stop right before or after a name ("Q. LANDER", "Roe, J."), in the name's case
    (a capital before a capitalised name or one in capitals, a small letter in lower
    case), and a letter alone between two names ("ROBERT V DEGIORGIO"); nothing
    ``taken`` marks; what is added is marked.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "Q. LANDER RRT. Seen by Roe, J. T MAX 101. r/t Roe."
    >>> fs = [Finding(3, 9, "PERSON", 0.6, "x"), Finding(23, 26, "PERSON", 0.6, "x"),
    ...       Finding(47, 50, "PERSON", 0.6, "x")]
    >>> [t[f.start:f.end] for f in person_initials(t, fs, bytearray(len(t)))]
    ['Q.', 'J']
    """
    out: list[Finding] = []
    ps = sorted((f for f in people if f.entity_type == "PERSON"), key=lambda f: f.start)
    spans: list[tuple[int, int]] = []
    for f in ps:
        name = text[f.start : f.end]
        lower = name.islower()
        m = _INITIAL_BEFORE.search(text, max(0, f.start - 6), f.start)
        if m is not None and (m.group(1).isupper() or lower):
            spans.append((m.start(1), m.end(1) + 1))  # the initial with its full stop
        m = _INITIAL_AFTER.match(text, f.end)
        if m is not None and m.group(1).isupper() and m.group(1) not in "AI":
            spans.append(m.span(1))
    for f, g in itertools.pairwise(ps):
        m = _INITIAL_BETWEEN.fullmatch(text, f.end, g.start)
        if m is not None and (m.group(1).isupper() or text[g.start : g.end].islower()):
            spans.append(m.span(1))
    for a, b in sorted(set(spans)):
        if _free(taken, a, b):
            _mark(taken, a, b)
            out.append(_finding(a, b, "PERSON", "initial"))
    return out


# the word right before or right after a name, on its line, over blanks only
_NEIGHBOUR_BEFORE = lazy_compile(r"(?<![\w'’.-])([^\W\d_]{2,})[ \t]+$")
_NEIGHBOUR_AFTER = lazy_compile(r"[ \t]+([^\W\d_]{2,})(?![\w'’.-])")


def name_neighbours(
    text: str, people: list[Finding], taken: bytearray, *, case: str
) -> list[Finding]:
    """The rest of a name a ``PERSON`` finding holds part of: the word right before or
    after it, in the name's case (capitalised in a note in ordinary case), that no
    dictionary holds (no word class, no common, clinical or relation word) and that is a
    name of the lists (:func:`veil.text.vocab._clinical_vocab.is_cued_name`) or, in a
    note not written in capitals (where an unknown word in capitals is an abbreviation
    first), a word of four letters or more that is no English word or misspelling of
    one; never an eponym's name ("Passy Muir valve"); nothing ``taken`` marks; what is
    added is marked.

    Examples
    --------
    >>> from veil.text.recognition._finding import Finding
    >>> t = "Seen by Maria Kondouli today. Hall Lasix given."
    >>> fs = [Finding(8, 13, "PERSON", 0.6, "x"), Finding(30, 34, "PERSON", 0.6, "x")]
    >>> [t[f.start:f.end] for f in name_neighbours(t, fs, bytearray(len(t)), case="mixed")]
    ['Kondouli']
    """
    out: list[Finding] = []
    for f in people:
        if f.entity_type != "PERSON":
            continue
        name = text[f.start : f.end]
        for m in (
            _NEIGHBOUR_BEFORE.search(text, max(0, f.start - 30), f.start),
            _NEIGHBOUR_AFTER.match(text, f.end),
        ):
            if m is None:
                continue
            a, b = m.span(1)
            word = m.group(1)
            w = word.casefold()
            if word.isupper() != name.isupper() or word.islower() != name.islower():
                continue
            if (case == "mixed" and not word.istitle()) or not _free(taken, a, b):
                continue
            if _plain(w) or w in common_words() or w in RELATION_WORDS or word_classes(w):
                continue
            unknown = len(w) >= 4 and case != "upper" and not is_safe_word(word)
            if not (is_cued_name(w) or unknown) or is_eponym(text, a, b):
                continue
            _mark(taken, a, b)
            out.append(_finding(a, b, "PERSON", "name_neighbour"))
    return out


def cued_name_findings(text: str, taken: bytearray, *, case: str) -> list[Finding]:
    """The rules of this module, in order, for a note whose words are written in ``case``
    ("mixed": ordinary case; "upper"; "lower"); each marks what it adds in ``taken``."""
    mixed = case == "mixed"
    return [
        *prefixed_surnames(text, taken),
        *role_side_names(text, taken, mixed=mixed),
        *capitalised_frequent_names(text, taken, mixed=mixed),
        *listed_names(text, taken, case=case),
        *followed_names(text, taken, mixed=mixed),
        *contacted_names(text, taken, mixed=mixed),
    ]
