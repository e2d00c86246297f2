"""Names found without NER: after a title ("Dr. Foley") and from the name lexicon ("Jane
Roe", "wife Mary"). Organisations are in ``_organizations``."""

from __future__ import annotations

import itertools
import re

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._lower_names import (
    acting_lower_pairs,
    cued_lower_pairs,
    transcript_names,
)
from veil.text.recognition._places import gazetteer
from veil.text.recognition._recognizer import (
    Pattern,
    PatternRecognizer,
    Recognizer,
    recognizers,
    text_features,
)
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    LOWER_LATIN,
    NOTE_WORDS,
    RELATION_WORDS,
    UPPER_LATIN,
    clinical_register,
    common_words,
    first_last_name,
    has_dictionary,
    mostly_lower,
    mostly_upper,
    name_lexicon,
    relation_pattern,
    word_classes,
    word_set,
)

__all__ = [
    "CasedTitledNameRecognizer",
    "LexiconNameRecognizer",
    "TitledNameRecognizer",
    "surname_like",
]


@recognizers.register("titled_name")
class TitledNameRecognizer(PatternRecognizer):
    """Surnames after a title ("Dr. Foley", "Mrs. O'Neil"): the title is not part of the span."""

    entity = "PERSON"
    reads_case = True
    patterns = (
        Pattern(
            "titled",
            r"\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof)\.?\s+((?:[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?\s+)?"
            r"[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)?)\b",
            0.8,
            group=1,
        ),
    )


_CASED_WORD = rf"(?:[{LOWER_LATIN}][{LOWER_LATIN}'’-]+|[{UPPER_LATIN}][{UPPER_LATIN}'’-]+)"
_CASED_PARTICLES = "van|von|de|der|den|del|della|di|du|da|dos|das|le|la|ter|ten"
_CASED_TITLED = lazy_compile(
    rf"(?<![\w.])(?:[Dd]r|DR|[Mm]rs?|MRS?|[Pp]rof|PROF)\.?[ \t]+"
    rf"((?:(?i:{_CASED_PARTICLES})[ \t]+){{0,2}})({_CASED_WORD})"
    rf"(?:[ \t]+({_CASED_WORD}))?(?![\w'’-])"
)
# "12 Oak dr", "12 OAK DR": a street's type, not a title
_STREET_BEFORE = lazy_compile(r"\d+[A-Za-z]?(?:[ \t]+\S+){1,4}[ \t]*$")
_NOT_NAME_CLASSES = frozenset(("verb", "adj", "adv"))
# what chat and notes abbreviate after "dr" and "mr" besides names ("dr appt tmrw")
_SHORTHAND = word_set("appt appts apt ofc tmrw tmr asap pls plz thx fyi eta msg re ok okay")


def surname_like(word: str, *, known_surnames: bool = False) -> bool:
    """Whether a word where case cannot tell (after a title in lower case or capitals, at
    the start of a wrapped line) reads as a name: no everyday, charting or calendar word,
    no verb, adjective or adverb of the dictionary ("dr aware", "DR NOTIFIED", "md made
    aware"), and a noun of it only when it is a known name ("dr smith" stays, "dr office"
    goes); a word the dictionary lacks is a name. ``known_surnames`` lets a verb or an
    adjective that is a known surname count ("Maria\nBrown" on a wrapped line, where the
    capital already says "name"). Without a dictionary (no English spaCy pipeline
    installed) only a known name counts."""
    w = word.casefold().strip("'’-")
    if len(w) < 2 or w in common_words() or w in NOTE_WORDS or w in CALENDAR_WORDS:
        return False
    if w in _SHORTHAND or w in _PARTICLE_SET:  # "mr de": a particle is no surname alone
        return False
    first, last = name_lexicon()
    if not has_dictionary():  # no English pipeline installed: known names only
        return w in first or w in last
    classes = word_classes(w)
    if classes & _NOT_NAME_CLASSES:
        return known_surnames and w in last
    return "noun" not in classes or w in first or w in last


@recognizers.register("titled_name_cased")
class CasedTitledNameRecognizer(Recognizer):
    """Surnames after a title written in lower case or in capitals, as notes and chat write
    them ("seen by dr. kowalski", "DR. OKAFOR IN TO SEE PT", "Dr. NGUYEN"): the word is no
    everyday word, verb, adjective or adverb (see :func:`surname_like`), and a known given
    name takes the next word with it ("dr maria kowalski"). Title-case names are
    :class:`TitledNameRecognizer`'s; "12 Oak dr" is a street."""

    name = "titled_name_cased"
    entities = ("PERSON",)
    score = 0.75

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        for m in _CASED_TITLED.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if _STREET_BEFORE.search(text, line_start, m.start()):
                continue
            # the particles that open a surname ("dr van dijk") go with it
            particles, word, second = m.group(1), m.group(2), m.group(3)
            if not surname_like(word):
                continue
            end = m.end(2)
            given = not particles and word.casefold() in name_lexicon()[0]
            if second and given and surname_like(second):
                end = m.end(3)
            out.append(
                Finding(
                    m.start(1),
                    end,
                    "PERSON",
                    self.score,
                    self.name,
                    self.tier,
                    Explanation(self.name, "titled_cased", self.score, self.score),
                )
            )
        return out


_UPC, _LOWC = UPPER_LATIN, LOWER_LATIN
# a capitalised name word: "Smith", "McDonald", "O'Neil", "Smith-Jones", "Łukasz"
_CAP = rf"[{_UPC}][{_LOWC}]+(?:[{_UPC}][{_LOWC}]+)?(?:['’-][{_UPC}]?[{_LOWC}]+)?"
# two or three capitalised words (overlapping matches through the lookahead), and the
# character after them so a longer capitalised run ("Rose Hill Cemetery") can be refused
_NAME_RUN = lazy_compile(rf"(?<![\w.'’-])(?=({_CAP}(?: {_CAP}){{1,2}})(?![\w'’-])((?: [{_UPC}])?))")
# a name with lower-case particles before the surname: "Renske van der Spaendonck", "Emanuelly
# das Neves", "Ursula von der Leyen" (one or two given names, one or two particles)
_PARTICLES_TEXT = "van von de da das dos do di du del della der den ter ten le la al bin ibn el"
_NAME_PARTICLE = "|".join(sorted(_PARTICLES_TEXT.split(), key=len, reverse=True))
_PARTICLE_SET = frozenset(_PARTICLES_TEXT.split())
# first words of place names, never of a person's name written in lower case
_PLACE_OPENERS_TEXT = (
    "san santa santo são sao los las new fort port saint sainte st lake north south east west "
    "mount glen"
)
_PLACE_OPENERS = frozenset(_PLACE_OPENERS_TEXT.split())
_PARTICLE_NAME = lazy_compile(
    rf"(?<![\w.'’-])({_CAP}(?: {_CAP})?) (?:{_NAME_PARTICLE})(?: (?:{_NAME_PARTICLE}))? ({_CAP})"
    rf"(?![\w'’-])((?: [{_UPC}])?)"  # and whether a capitalised word goes on ("... Airport")
)
# an initial and a surname, after a given name or alone: "Anamika M. Ficino", "F. Feliciano"
# (not "U.S. Grant": the initial may not follow a dot or a letter)
_INITIAL_NAME = lazy_compile(rf"(?<![\w.'’-])([{_UPC}])\. ?({_CAP})(?![\w'’-])((?: [{_UPC}])?)")
_GIVEN_BEFORE = lazy_compile(rf"(?<![\w'’.-])({_CAP}) $")
# a middle initial written without its full stop: "Wulf G Wernecke", "Romina G Telesio"
_BARE_INITIAL_NAME = lazy_compile(
    rf"(?<![\w.'’-])({_CAP}) ([{_UPC}]) ({_CAP})(?![\w'’-])((?: [{_UPC}])?)"
)
# two or three words in capitals inside a text that is not written in capitals (which is
# read in ordinary case already): "Please call ELMO SOLIMENA tomorrow"
_UPPER_WORD = rf"[{_UPC}]{{2,}}(?:['’-][{_UPC}]+)?"
_UPPER_RUN = lazy_compile(
    rf"(?<![\w.'’-])(?=({_UPPER_WORD}(?: {_UPPER_WORD}){{1,2}})(?![\w'’-])((?: [{_UPC}])?))"
)
_UPPER_GATE = lazy_compile(rf"[{_UPC}]{{2}} [{_UPC}]{{2}}")
# lower-case words, in a text written without capitals: "pls call alison ramos"
_LOWER_WORD = lazy_compile(rf"(?<![\w.'’-])[{_LOWC}]{{2,}}(?![\w'’-])")
# in a text without capitals: two or more words joined as a list is ("ana, luis and
# marta", "ana & luis"), a title and a word ("mr. kowalski"), a word labelling a line
_LW = rf"[{_LOWC}]{{2,}}"
_LOWER_LIST = lazy_compile(
    rf"(?<![\w.'’-]){_LW}(?:(?:[ \t]*,[ \t]*(?:(?:and|or|&)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+){_LW})+"
    r"(?![\w'’-])"
)
_LISTED_SCORE = 0.9  # above NER's 0.85
_LOWER_LABEL = lazy_compile(rf"^[ \t>]*({_LW})[ \t]*:(?=[ \t]*\S)", re.MULTILINE)
# the greetings and verbs that address someone ("Thanks Carly!", "Call Caroline today"),
# after which a name must be capitalised: in lower case they are everyday phrases ("hi
# there", "call home")
_ADDRESSING_TEXT = (
    "thanks hi hello hey dear call ask email e-mail text meet tell congrats congratulations"
)
_ADDRESSING = frozenset([*_ADDRESSING_TEXT.split(), "thank you"])
_GREETINGS = frozenset(
    ["thanks", "hi", "hello", "hey", "dear", "thank you", "congrats", "congratulations"]
)
_CLOSED = lazy_compile(r"[ \t]*(?:[,!?:;]|\.(?!\w)|$)", re.MULTILINE)
# a name introduced by its bearer, signed or addressed: "my name is marc collins", "Hi,
# this is Alejandro from accounting", "Regards, jane roe" in any case, "Thanks Carly"
# capitalised. The cue is searched in the lower-cased text (a case-insensitive alternation
# costs several times more), the name after it in the text itself.
_INTRO_CUE_TEXT = (
    r"\b(?:(?:my|his|her|their|your|first|last|maiden|middle|full|nick)\s*name\s+is|"
    r"my\s+name['’]s|name\s*:|this\s+is|i\s+am|i['’]m|calls?\s+me|"
    r"regards\s*,|thanks\s*,|cheers\s*,|sincerely\s*,|signed\s*,|contact\s*:|"
    rf"(?:thank\s+you|{'|'.join(sorted(_ADDRESSING_TEXT.split(), key=len, reverse=True))})"
    r"[ \t]+)[ \t\n]*"
)
_INTRO_CUE = lazy_compile(_INTRO_CUE_TEXT)
_SURNAME_CUE = lazy_compile(r"(?i:maiden|last)\s*name")  # what names a surname alone
_INTRO_CUE_ANY_CASE = lazy_compile(_INTRO_CUE_TEXT, re.IGNORECASE)
_INTRO_WORD = rf"[{_UPC}{_LOWC}][{_LOWC}]+|[{_UPC}]+"
_INTRO_NAME = lazy_compile(rf"({_INTRO_WORD})(?:[ \t]({_INTRO_WORD}))?(?![\w'’-])")
# a relation, care-team or patient word, in any case, then a capitalised word: "wife Mary",
# "RN Okafor", "Pt Wilson"
_RELATION_EXTRA = (
    "friend", "partner", "rn", "np", "pa", "pt", "patient", "cousin", "kid", "child", "baby",
    "stepson", "stepdaughter", "mom", "mum", "dad", "grandma", "grandpa",
    # a person's role towards a business, and talking to someone: "customer Nancy",
    # "spoke with Nancy"
    "customer", "client", "caller", "resident", "tenant", "guest", "visitor", "applicant",
    "employee", "member", "spoke with", "spoke to", "talked with", "talked to", "met with",
    "speak with", "speak to", "meeting with", "contacted", "emailed", "phoned", "texted",
)  # fmt: skip
_RELATION = lazy_compile(rf"\b(?i:{relation_pattern(*_RELATION_EXTRA)})\s+({_CAP})(?![\w'’-])")
_RELATION_SET = frozenset({*RELATION_WORDS, *(w.split()[0] for w in _RELATION_EXTRA)})
_ASCII_WORD = lazy_compile(r"[a-z]+")


def _may_hold_relation(text: str) -> bool:
    """Whether an ASCII text holds a relation word as a whole word (a cheap necessary
    condition for :data:`_RELATION`, whose case-insensitive alternation is slow to scan);
    other texts are always scanned."""
    lower = text_features(text).lower  # lower-cased once per text, for every recognizer
    if not lower:
        return True  # not ASCII
    return not _RELATION_SET.isdisjoint(_ASCII_WORD.findall(lower))


@recognizers.register("lexicon_name")
class LexiconNameRecognizer(Recognizer):
    """Names that NER misses, checked against first and last names (Faker's lists for every
    locale it ships, :func:`veil.text.vocab._lexicon.name_lexicon`).

    * A run of two or three capitalised words whose first word is a known first name, whose
      last word is a known last name, and that no further capitalised word continues ("Jane
      Roe"; not "Rose Hill Cemetery").
    * A known first name, lower-case particles, a known last name ("Renske van der
      Spaendonck", "Emanuelly das Neves").
    * A known name right after a relation, care-team or customer word, or after talking to
      someone ("wife Mary", "RN Okafor", "customer Nancy", "spoke with Nancy").
    * An initial and a known surname ("F. Feliciano"), after a known given name too
      ("Anamika M. Ficino"), where a middle initial may lack its full stop ("Wulf G
      Wernecke"; not "I").
    * A known first + last name in capitals inside a text that is not written in capitals
      ("call ELMO SOLIMENA"), and in lower case inside a text written without capitals
      ("pls call alison ramos"; not after "san", "port" ..., not with particles, not in
      clinical notes).
    * A known name in any case right after "my name is", "this is", "I'm", "call me",
      "Name:", "Contact:" or a sign-off ("hi, my name is marc collins", "Regards, Jane");
      after a greeting, capitalised, or in a text without capitals when punctuation
      closes the given name ("hey mike, can you ..."); a known surname alone after
      "maiden name is" or "last name is".
    * A capitalised known given name alone that a question asks about, that acts, that
      speaks or that labels a transcript's line ("Is Anne coming?", "Anne began",
      "said Anne", "Anne: I'm fine"); in a text without capitals, known given names
      listed together, a name after a title, a given name labelling a line.

    No word may be charting vocabulary ("Will", "Neo", "Echo"). Score 0.6, below NER's, so
    an NER span of another type on the same words wins the overlap rule.
    """

    name = "lexicon_name"
    entities = ("PERSON",)
    tier = 2
    score = 0.6
    reads_case = True

    def analyze(self, text: str) -> list[Finding]:
        first, last = name_lexicon()
        out: list[Finding] = []
        for m in _NAME_RUN.finditer(text):
            if m.group(2):
                continue  # the run goes on: part of a longer capitalised name
            name, end = m.group(1), m.end(1)
            if name[-2:] in ("'s", "’s"):  # "Jodi Hardy's account"
                name, end = name[:-2], end - 2
            if first_last_name([w.casefold() for w in name.split()]):
                out.append(self._finding(m.start(1), end, "first_last"))
        for m in _PARTICLE_NAME.finditer(text):
            if m.group(3):
                continue  # the run goes on: "Charles de Gaulle Airport"
            given = m.group(1).split()[0].casefold()
            surname = m.group(2).casefold()
            if given in first and surname in last and not {given, surname} & NOTE_WORDS:
                out.append(self._finding(m.start(), m.end(), "particle_name"))
        for m in _RELATION.finditer(text) if _may_hold_relation(text) else ():
            w = m.group(1).casefold()
            if any(f.start <= m.start(1) and m.end(1) <= f.end for f in out):
                continue  # the first word of a longer name found above ("spoke with Renske van der ...")
            if (w in first or w in last) and w not in NOTE_WORDS:
                out.append(self._finding(m.start(1), m.end(1), "after_relation"))
        out.extend(self._initials(text))
        if _UPPER_GATE.search(text) and not mostly_upper(text):
            for m in _UPPER_RUN.finditer(text):
                if not m.group(2) and first_last_name([w.casefold() for w in m.group(1).split()]):
                    out.append(self._finding(m.start(1), m.end(1), "first_last_upper"))
        if mostly_lower(text) and not clinical_register(text):
            out.extend(self._lower_case(text))
            out.extend(self._lower_case_alone(text))
        out.extend(self._introduced(text))
        out.extend(self._asked_or_acting(text))
        out.extend(  # "call susan mikulic", "From: susan mikulic": see _lower_names
            self._finding(a, b, "cued_lower")
            for a, b, given, surname in cued_lower_pairs(text)
            if _lower_full_name(given, surname)
        )
        out.extend(self._acting_lower(text))
        out.extend(self._transcript(text))
        return out

    def _acting_lower(self, text: str) -> list[Finding]:
        """A lower-case full name that a verb follows, in any text ("hi team, alphons
        scarponi is out sick"): a known given name and a word that can only be a surname
        (:func:`_lower_full_name`), the pair no place ("santa clara is") and the given name
        no place's opening word or saint's title."""
        out = []
        places = gazetteer()
        for a, b, given, surname in acting_lower_pairs(text):
            if (
                given in _PLACE_OPENERS
                or given in _SAINTS
                or f"{given} {surname}".title() in places
                or not _lower_full_name(given, surname)
            ):
                continue
            out.append(self._finding(a, b, "acting_lower"))
        return out

    def _transcript(self, text: str) -> list[Finding]:
        """A chat transcript's speaker written in lower case, as a label ("[10:02] jane
        doe: hi", "jane: ok") or addressed at the end of a turn ("agent: done, thanks
        jane"): a known given name that is no everyday, charting, calendar or place word,
        with a surname-like second word if two ("agent:", "me:" stay)."""
        out = []
        places = gazetteer()
        found = list(transcript_names(text))
        # a chat with a role among its speakers ("me:", "agent:"): its other labels are
        # people, even a given name that is also a place's ("elizabeth:", "victoria:")
        chat = any(words[0] in _CHAT_ROLES and len(words) == 1 for _, _, words in found)
        for a, b, words in found:
            given = words[0]
            if len(words) == 2 and not _lower_full_name(*words):
                continue
            # a surname-like second word says "person" ("ramona greggio"); alone, a given
            # name that is also a place's is one only in a chat
            place_ok = len(words) == 2 or chat or given.title() not in places
            if (
                _given_name(given)
                and given not in common_words()
                and given not in CALENDAR_WORDS
                and place_ok
                and given not in _SAINTS
            ):
                out.append(self._finding(a, b, "transcript_lower"))
        return out

    def _asked_or_acting(self, text: str) -> list[Finding]:
        """A capitalised known given name alone that a question asks about, that does what
        people do, that speaks or that labels a line of a transcript ("Is Anne coming
        tonight?", "Ctibor called yesterday", '"Stop!" shouted Anne', "Anne: I'm fine"): no
        everyday or charting word ("Will", "Rose" ...), no month or weekday ("Could April
        work?"), no place ("Georgia said" stays out) and no saint's title ("Santa
        arrived")."""
        out: list[Finding] = []
        common, places = common_words(), gazetteer()
        rules = [(_ASKED, "asked_about"), (_ACTOR, "acting")]
        # the rarer frames only where their cheap mark is: a speech verb, a colon
        if _SPEECH_GATE.search(text):
            rules.append((_SPEAKER_AFTER, "speaking"))
        if ":" in text:
            rules.append((_SPEAKER_LABEL, "speaker_label"))
        for rx, pattern in rules:
            for m in rx.finditer(text):
                word = m.group(1)
                folded = word.casefold()
                if (
                    _given_name(word)
                    and folded not in common
                    and folded not in CALENDAR_WORDS
                    and word not in places
                    and folded not in _SAINTS
                ):
                    out.append(self._finding(m.start(1), m.end(1), pattern))
        return out

    def _lower_case_alone(self, text: str) -> list[Finding]:
        """A name alone in a text written without capitals, where the text says it is
        one: known given names listed together ("invited ana, luis and marta"), a given
        name labelling a line of a chat ("priya: you there?"). No everyday, charting,
        calendar or place word. (A surname after a title, "mr. kowalski", in any text:
        :class:`CasedTitledNameRecognizer`.)"""
        first = name_lexicon()[0]
        common, places = common_words(), gazetteer()

        def plain(word: str) -> bool:
            return (
                word not in common
                and word not in NOTE_WORDS
                and word not in CALENDAR_WORDS
                and word.title() not in places
                and word not in _SAINTS
            )

        out = []
        for m in _LOWER_LIST.finditer(text):
            words = [w for w in _LOWER_WORD.finditer(m.group()) if w.group() not in ("and", "or")]
            if all(w.group() in first and plain(w.group()) for w in words):
                for w in words:
                    # a list of known given names outweighs the model's place or firm on
                    # one of them ("ana, calebe and marta" read as two places)
                    a, b = m.start() + w.start(), m.start() + w.end()
                    out.append(self._finding(a, b, "listed_lower", score=_LISTED_SCORE))
        for m in _LOWER_LABEL.finditer(text) if ":" in text else ():
            name = m.group(1)
            if name in first and plain(name):
                out.append(self._finding(m.start(1), m.end(1), "speaker_label_lower"))
        return out

    def _lower_case(self, text: str) -> list[Finding]:
        """A known first + last name in a text written without capitals ("call alison
        ramos"), with a known name between them if three words ("mary ann jones")."""
        first, last = name_lexicon()
        words = [(m.start(), m.end(), m.group()) for m in _LOWER_WORD.finditer(text)]
        out = []
        i = 0
        while i < len(words) - 1:
            if words[i][2] in _PLACE_OPENERS:  # "san marcos", "port arthur": a place
                i += 2
                continue
            hit = None
            for n in (3, 2):  # the longer name first
                run = words[i : i + n]
                if len(run) < n or any(
                    text[a[1] : b[0]] != " " for a, b in itertools.pairwise(run)
                ):
                    continue
                names = [w for _, _, w in run]
                if any(w in _PARTICLE_SET for w in names):
                    continue  # particles make lower-case runs ambiguous: "marcos de la"
                if n == 3 and not (names[1] in first or names[1] in last):
                    continue
                if names[-1] in _VERBS:
                    continue  # "maurice said": a name and its verb ("Said" is a surname)
                if first_last_name(names):
                    hit = n
                    break
            if hit is None:
                i += 1
                continue
            out.append(self._finding(words[i][0], words[i + hit - 1][1], "first_last_lower"))
            i += hit
        return out

    def _initials(self, text: str) -> list[Finding]:
        """ "Anamika M. Ficino" (a known first and last name around an initial) and "F.
        Feliciano" (an initial and a known last name)."""
        last = name_lexicon()[1]
        out = []
        for m in _INITIAL_NAME.finditer(text):
            if m.group(3):
                continue  # the run goes on: "J. Edgar Hoover Building"
            surname = m.group(2).casefold()
            if surname not in last or surname in NOTE_WORDS:
                continue
            given = _GIVEN_BEFORE.search(text, max(0, m.start() - 40), m.start())
            if given is not None and first_last_name([given.group(1).casefold(), surname]):
                out.append(self._finding(given.start(1), m.end(2), "first_initial_last"))
            else:
                out.append(self._finding(m.start(1), m.end(2), "initial_last"))
        for m in _BARE_INITIAL_NAME.finditer(text):
            if m.group(4) or m.group(2) == "I":
                continue  # the run goes on; "I" is a word ("Tell Anna I Miss her")
            surname, end = m.group(3), m.end(3)
            if surname[-2:] in ("'s", "’s"):  # "Romina G Telesio's account"
                surname, end = surname[:-2], end - 2
            if first_last_name([m.group(1).casefold(), surname.casefold()]):
                out.append(self._finding(m.start(1), end, "first_bare_initial_last"))
        return out

    def _introduced(self, text: str) -> list[Finding]:
        """A name right after "my name is", "this is", "I'm", "call me" or a sign-off, in any
        case: a known first and last name, or a known first name alone."""
        out = []
        lower = text_features(text).lower  # an ASCII text, lower-cased once, same offsets
        cues = _INTRO_CUE.finditer(lower) if lower else _INTRO_CUE_ANY_CASE.finditer(text)
        for cue in cues:
            m = _INTRO_NAME.match(text, cue.end())
            if m is None:
                continue
            said = cue.group()
            addressed = " ".join(said.split())
            if (
                "," not in said  # "Thanks,\njane roe" is a sign-off: any case
                and addressed in _ADDRESSING  # not "call me maryse"
                and not m.group(1)[0].isupper()
                and not (
                    # "hey mike, can you ...", "thanks priya!" in a text without capitals:
                    # a greeting, then a name that the sentence's punctuation closes;
                    # "Dear susan mikulic,": a given name and a surname-like word
                    addressed in _GREETINGS
                    and (m.group(2) is None or _lower_full_name(m.group(1), m.group(2)))
                    and _CLOSED.match(text, m.end())
                    and (mostly_lower(text) or m.group(2) is not None)
                )
            ):
                continue  # "please call alison ramos" in a text with capitals elsewhere
            one, two = m.group(1).casefold(), m.group(2)
            if _SURNAME_CUE.search(said) and two is None:
                # "her maiden name is Novak": a known surname, no everyday word
                if one in name_lexicon()[1] and one not in common_words() and one not in NOTE_WORDS:
                    out.append(self._finding(m.start(1), m.end(1), "introduced"))
                continue
            longer = _longer_introduced(text, m.start(1))
            if longer is not None:  # "maria helena da cruz", "luiz felipe cirino"
                out.append(self._finding(m.start(1), longer, "introduced"))
            elif two is not None and first_last_name([one, two.casefold()]):
                out.append(self._finding(m.start(1), m.end(2), "introduced"))
            elif (
                two is not None
                and _given_name(m.group(1))
                and _given_name(two)
                and two[:1].isupper() == m.group(1)[:1].isupper()
                and two.casefold() not in name_lexicon()[1]
                and two.casefold() not in common_words()  # "Thanks, Anna Can you ..."
            ):
                out.append(self._finding(m.start(1), m.end(2), "introduced"))  # "María Belén"
            elif two is not None and _lower_full_name(m.group(1), two):
                # "my name is susan mikulic": a known given name and, written in the same
                # lower case, a word that can only be a surname (no dictionary word)
                out.append(self._finding(m.start(1), m.end(2), "introduced_lower"))
            elif _given_name(m.group(1)) and (
                two is None or two.casefold() not in name_lexicon()[1]
            ):
                out.append(self._finding(m.start(1), m.end(1), "introduced"))
        return out

    def _finding(self, start: int, end: int, pattern: str, score: float | None = None) -> Finding:
        score = self.score if score is None else score
        return Finding(
            start,
            end,
            "PERSON",
            score,
            self.name,
            self.tier,
            Explanation(self.name, pattern, score, score),
        )


# a given name alone asked about or acting: "Is Anne coming tonight?", "Ctibor called"
_ASKED = lazy_compile(
    rf"\b(?:Is|Was|Will|Did|Does|Has|Had|Can|Could|Should|Would|Where['’]s|Where\s+is)"
    rf"[ \t]+({_CAP})[ \t]+[a-z]"
)
_ACTOR_VERBS = (
    "called|calls|said|says|wrote|writes|asked|asks|emailed|phoned|texted|replied|told|tells|"
    "mentioned|confirmed|agreed|explained|thinks|thought|wants|wanted|needs|needed|"
    "began|begins|started|starts|lives|lived|shouted|shouts|whispered|smiled|laughed|cried|"
    "answered|arrived|arrives|works|worked|joined|visited|bought|paid|"
    "reports|reported|denies|denied|complains|complained"
)
_ACTOR = lazy_compile(rf"(?<![\w'’.-])({_CAP})[ \t]+(?:{_ACTOR_VERBS})\b")
# verbs that follow a name, some of which are surnames too ("Said", "Told", "Wants")
_VERBS = frozenset(_ACTOR_VERBS.split("|")) | frozenset(
    ["went", "came", "got", "made", "saw", "knew", "took", "gave", "sent", "left", "goes"]
)
# the roles that label a chat's lines beside its people
_CHAT_ROLES = word_set(
    "me agent customer support user visitor operator rep bot admin client caller guest"
)
# given names that alone are more often a saint's title ("Santa arrived")
_SAINTS = frozenset(["santa", "santo", "saint"])
# a speech verb before the speaker: '"Stop!" shouted Anne', "said Ctibor"
_SPEECH_VERBS = (
    "said",
    "says",
    "asked",
    "asks",
    "replied",
    "shouted",
    "whispered",
    "answered",
    "cried",
    "added",
)
_SPEAKER_AFTER = lazy_compile(rf"\b(?:{'|'.join(_SPEECH_VERBS)})[ \t]+({_CAP})(?![\w'’-])")
_SPEECH_GATE = lazy_compile("|".join(_SPEECH_VERBS))  # no word boundary: a cheaper scan
# a speaker's label opening a line of a transcript or a chat: "Anne: I am fine"
_SPEAKER_LABEL = lazy_compile(rf"^[ \t>]*({_CAP})[ \t]*:(?=[ \t]*\S)", re.MULTILINE)
# three or four words after an introduction: given names, particles, a surname
_INTRO_RUN = lazy_compile(rf"(?:{_INTRO_WORD})(?:[ \t](?:{_INTRO_WORD})){{2,3}}")


def _longer_introduced(text: str, start: int) -> int | None:
    """The end of a name of three or four words at ``start`` after an introduction, a
    known given name first and a known surname last, with given names, surnames or
    particles between ("maria helena da cruz", "Luiz Felipe Cirino"); else ``None``."""
    m = _INTRO_RUN.match(text, start)
    if m is None:
        return None
    first, last = name_lexicon()
    words = list(re.finditer(r"\S+", m.group()))
    for n in range(len(words), 2, -1):
        names = [w.group().casefold() for w in words[:n]]
        if (
            names[0] in first
            and names[-1] in last
            and names[-1] not in _PARTICLE_SET
            and all(w in first or w in last or w in _PARTICLE_SET for w in names[1:-1])
            and not set(names) & NOTE_WORDS
        ):
            return start + words[n - 1].end()
    return None


def _lower_full_name(given: str, surname: str) -> bool:
    """A given name and a surname both in lower case ("susan mikulic"), the given name known
    and the surname no everyday, charting or dictionary word (:func:`surname_like`, with a
    known surname needed where no dictionary is installed)."""
    return (
        given.islower()
        and surname.islower()
        and _given_name(given)
        and surname.casefold() not in _VERBS
        and surname_like(surname)
    )


def _given_name(word: str) -> bool:
    """A given name of the lexicon (which holds no everyday word) that is no charting word."""
    w = word.casefold()
    return w in name_lexicon()[0] and w not in NOTE_WORDS
