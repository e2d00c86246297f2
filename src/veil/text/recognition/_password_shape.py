"""Password-shaped tokens without a label: ``PASSWORD`` at a score only redaction uses.

Password generators and password policies make a token of upper- and lower-case letters,
digits and a symbol ("F%J%jWhmYvW^)1n", "&0M+#XToSD"); no word, number, date, version,
file name, address or code has all four. A chat answers "whats the wifi pw" on the next
line, a ticket pastes the new password without a label: the shape alone says what the
token probably is, so :class:`PasswordShapeRecognizer` reports a token of 8 to 64
characters, with no space, that holds an upper-case letter, a lower-case letter, a digit
and a symbol other than the punctuation of ordinary identifiers (``.``, ``-``, ``_``,
``/``, ``:``), and that is no e-mail address, URL, ``data:`` URI or list of settings
("Server=sql01;Database=hr").

Its score, :data:`SHAPE_SCORE` (0.45), is below the detection threshold and above the
redaction threshold (:data:`veil.policy.DETECT_SCORE_THRESHOLD`,
:data:`veil.policy.REDACT_SCORE_THRESHOLD`): ``veil redact`` replaces such a token,
``veil text detect`` does not report it. A password after its label is found by
:class:`veil.text.recognition._secrets.PasswordRecognizer` at a higher score. Nothing here logs a value.
"""

from __future__ import annotations

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer, recognizers

__all__ = ["SHAPE_SCORE", "PasswordShapeRecognizer"]

#: score of a password-shaped token without a label: redacted, not detected
SHAPE_SCORE = 0.45

# a run of printable characters without space, quotes or brackets that end a sentence
_TOKEN = lazy_compile(r"(?<![^\s\"'(\[<])[^\s\"'<>]{8,64}(?![^\s\"')\]>.,;:!?])")
_SYMBOL = lazy_compile(r"[!#$%^&*+=?~|{}\[\]()@]")
_NOT = lazy_compile(r"://|^www\.|^data:|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$|^[-=*#~+]+$")
# "Server=sql01;Database=hr;User": settings, key=value pairs joined by ";" or "&"
_KEY = lazy_compile(r"[A-Za-z_][\w.-]*[=:]")
_SETTINGS = lazy_compile(r"(?:^|[;&,])[A-Za-z_][\w.-]*=")


def _trim_brackets(text: str, start: int, end: int) -> tuple[int, int]:
    """The token without sentence punctuation after it and without a bracket that opens or
    closes around it ("(555) 201-3344-Fax)": the ")" is the sentence's, not a symbol)."""
    while end > start:
        last = text[end - 1]
        if last in ".,;:!?" or (
            last in ")]}" and text.count("([{"[")]}".index(last)], start, end) == 0
        ):
            end -= 1
        else:
            break
    while start < end and text[start] in "([{":
        if text.count(")]}"["([{".index(text[start])], start, end) > 0:
            break
        start += 1
    if end - start > 2 and text[start] + text[end - 1] in ("()", "[]", "{}"):
        start, end = start + 1, end - 1  # "(Ab3!xyzq1)": brackets around the token
    return start, end


def password_shaped(token: str) -> bool:
    """Upper, lower, digit and a symbol, and no e-mail address or URL.

    Examples
    --------
    >>> password_shaped("F%J%jWhmYvW^)1n"), password_shaped("Build-4.2.0_rc1")
    (True, False)
    >>> password_shaped("Server=sql01;Database=hr;User"), password_shaped("data:image/png;base64,iVB0Rw==")
    (False, False)
    """
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
        and _SYMBOL.search(token) is not None
        and _NOT.search(token) is None
        and len(_SETTINGS.findall(token)) < 2
    )


@recognizers.register("password_shape")
class PasswordShapeRecognizer(Recognizer):
    """Password-shaped tokens without a label (module docstring).

    Examples
    --------
    >>> r = PasswordShapeRecognizer()
    >>> text = "me: whats the wifi pw\\nana: &0M+#XToSD\\nme: ty"
    >>> [(text[f.start:f.end], f.score) for f in r.analyze(text)]
    [('&0M+#XToSD', 0.45)]
    >>> r.analyze("Release 4.2.0 (build A7) is out; see docs/setup.md.")
    []
    >>> [(f.start, f.end) for f in r.analyze("pwd=Tr0ub4dor&3")]
    [(4, 15)]
    >>> r.analyze("Ask Laura ((432) 708-4183-Fax) if it fails")
    []
    """

    name = "password_shape"
    entities = ("PASSWORD",)
    tier = 1

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if _SYMBOL.search(text) is None:
            return out
        for m in _TOKEN.finditer(text):
            start, end = _trim_brackets(text, *m.span())
            whole = text[start:end]
            if _NOT.search(whole) is not None or len(_SETTINGS.findall(whole)) >= 2:
                continue  # a URL, an e-mail address, a data: URI, settings
            key = _KEY.match(text, start, end)
            if key is not None:  # "pwd=Tr0ub4dor&3": the value after a key, not the key
                start = key.end()
            token = text[start:end]
            if len(token) >= 8 and password_shaped(token):
                out.append(
                    Finding(
                        start,
                        end,
                        "PASSWORD",
                        SHAPE_SCORE,
                        self.name,
                        self.tier,
                        Explanation(self.name, "shape", SHAPE_SCORE, SHAPE_SCORE, (), None),
                    )
                )
        return out
