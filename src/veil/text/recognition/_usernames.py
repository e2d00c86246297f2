"""User names after their labels: ``USERNAME``.

A user name has no shape of its own ("jdoe", "maria.k", "admin2"), so only a label in the
text says that a token is one: "username: jdoe", "user=jdoe", "login: jdoe", "my login is
jdoe", "Benutzername: jdoe", "user jdoe42 logged in". Three layouts, each with its score:

* the label, then ``:`` or ``=`` (or "is"), then the value: :data:`LABELLED_SCORE` (0.6),
  whatever the value's shape, unless it is a word that follows such a label without being
  a name ("username: required", "login is incorrect");
* the label, a space, then a value shaped as a user name (a digit, a ``.``, ``_``,
  ``-`` or a domain's backslash inside it, or a lower-case token that is no common
  English word): :data:`BARE_SCORE` (0.45), below the detection threshold and above the redaction threshold ("user
  jdoe42", "login heidiharris"; not "user guide", "login page").

A domain before the name stays in the span ("CORP\\jdoe"). Nothing here logs a value.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer, recognizers
from veil.text.vocab._lexicon import common_words, word_set

__all__ = ["BARE_SCORE", "LABELLED_SCORE", "UsernameRecognizer"]

#: score of a value after a user-name label and a separator (not validated: a label says it)
LABELLED_SCORE = 0.6
#: score of a user-name-shaped value after a label without a separator
BARE_SCORE = 0.45

_LABEL = (
    r"(?<![^\W_])(?P<label>user[ _-]?name|user[ _-]?id|login(?:[ _-]?(?:name|id))?|log[ -]?on|log-in"
    r"|account[ ]name|screen[ ]name|handle|benutzer(?:name)?|nom[ ]d['’]utilisateur"
    r"|identifiant|(?:nombre[ ]de[ ])?usuario|utente|gebruikersnaam|user)(?![\w'’-])"
)
_VALUE = r"(?P<value>(?:[A-Za-z0-9][\w-]{0,30}\\)?[A-Za-z0-9][\w.@+-]{0,62}[\w])"
_SEPARATED = lazy_compile(
    _LABEL + r"[ \t]*(?:[:=]|：)[ \t]*[\"'“‘]?" + _VALUE + r"(?![\w@])", re.IGNORECASE
)
_IS = lazy_compile(
    _LABEL + r"[ \t]+(?:is|was)[ \t]+:?[ \t]*[\"'“‘]?" + _VALUE + r"(?![\w@])", re.IGNORECASE
)
_BARE = lazy_compile(_LABEL + r"[ \t]+" + _VALUE + r"(?![\w@])", re.IGNORECASE)
# words that follow a user-name label without being one
_NOT_VALUES = word_set(
    """
    a an the this that it my your his her our their its not no none n/a na null nil empty blank
    required incorrect correct wrong invalid unknown missing needed mandatory optional same
    different please and or but is was be been to for of on in at by with from as if when
    locked unlocked disabled enabled expired changed reset field prompt password pass pwd pin
    email e-mail mail account name id page screen form details credentials guide manual
    experience interface agent request requests session sessions data
    """
)
# labels that are everyday words too: their value must not be one ("User: hi there")
_GENERIC = frozenset({"user", "login", "handle", "utente", "usuario", "identifiant"})
_PROSE = lazy_compile(r"[ \t]*,?[ \t]+[a-z]+\b(?![ \t]*[:=])")  # ", my card ...", not " / pwd:"
_TURN = lazy_compile(r"^[ \t]*[A-Za-z][\w .'-]{0,30}:[ \t]", re.MULTILINE)
_STEMS = lazy_compile(r"user|log|handle|name|benutzer|utente|identifiant|usuario|gebruiker")
_NAME_CHARS = lazy_compile(r"[\d._\\-]")


def _speaker(text: str, start: int, end: int) -> bool:
    """Whether a label at ``start`` opens its line, words of a sentence follow the value on
    it and another line opens with a speaker's label: a transcript's speaker ("User: hi, my
    card is blocked\nAgent: ..."), not a form's field ("User: jdoe\nPassword: ...")."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    if text[line_start:start].strip() or not _PROSE.match(rest):
        return False
    # another line opens with a speaker's label: a transcript
    return any(m.start() != line_start for m in _TURN.finditer(text))


def _shaped(value: str) -> bool:
    """A user name's shape without a separator: a digit or ``._-`` inside, or lower case and
    no common word."""
    if value.casefold() in _NOT_VALUES or "@" in value:
        return False
    if _NAME_CHARS.search(value.strip("._-")) and any(c.isalpha() for c in value):
        return True
    return value.islower() and value.isalpha() and len(value) >= 4 and value not in common_words()


@recognizers.register("username")
class UsernameRecognizer(Recognizer):
    """User names after a label (module docstring).

    Examples
    --------
    >>> r = UsernameRecognizer()
    >>> text = "Username: simpsonlarry. Reset the password"
    >>> [(text[f.start:f.end], f.score) for f in r.analyze(text)]
    [('simpsonlarry', 0.6)]
    >>> r.analyze("See the user guide and the login page.")
    []
    """

    name = "username"
    entities = ("USERNAME",)
    tier = 1

    def analyze(self, text: str) -> list[Finding]:
        if _STEMS.search(text.lower()) is None:  # no label: no pattern can match (speed)
            return []
        found: dict[tuple[int, int], Finding] = {}
        for rx, layout, score in (
            (_SEPARATED, "label_separator", LABELLED_SCORE),
            (_IS, "label_verb", LABELLED_SCORE),
            (_BARE, "label_value", BARE_SCORE),
        ):
            for m in rx.finditer(text):
                start, end = m.span("value")
                value = text[start:end]
                while end > start and text[end - 1] in ".,;:!?)":
                    end -= 1  # sentence punctuation after the name
                value = text[start:end]
                if not value or value.casefold() in _NOT_VALUES:
                    continue
                if layout != "label_separator" and not _shaped(value):
                    continue
                if (
                    m.group("label").lower() in _GENERIC
                    and value.casefold() in common_words()
                    and not any(c.isdigit() for c in value)
                ):
                    continue  # "User: help", "login: please"
                if (
                    layout == "label_separator"
                    and m.group("label").lower() in _GENERIC
                    and _speaker(text, m.start(), end)
                ):
                    continue  # a transcript's speaker: "User: hi, my card is blocked"
                if any(s < end and start < e for s, e in found):
                    continue  # the better layout, found first, holds this value
                found[(start, end)] = Finding(
                    start,
                    end,
                    "USERNAME",
                    score,
                    self.name,
                    self.tier,
                    Explanation(self.name, layout, score, score, (m.group("label").lower(),), None),
                )
        return sorted(found.values(), key=lambda f: f.start)
