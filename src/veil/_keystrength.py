"""Key strength and key check values, shared by every keyed transform and operator.

A keyed hash, an FF3-1 token, a keyed date shift or an encrypted text span is only as
secret as its key. A key an attacker can guess turns each of them into an unkeyed hash,
reversible by enumerating the identifiers. :func:`weak_key_reason` refuses keys that are
guessable by construction (a conservative test: it never calls a key from
``veil keygen`` weak, and it does not try to measure the entropy of a random key):

* one byte value repeated (``bytes(32)``, ``"ab" * 16``), or a short pattern repeated
  (a key whose period is under 16 bytes holds at most that much secret);
* few distinct byte values (fewer than 8, or half the length for shorter keys): 32 random
  bytes hold about 30 distinct values, and fewer than 8 of 16 happens by chance with a
  probability under 1e-8;
* a simple sequence: consecutive bytes differing by one or two fixed steps
  (``bytes(range(16))``, ``00112233...``);
* printable text (a passphrase, ``raw:...``, or a key file holding a password) whose
  estimated entropy is under :data:`MIN_TEXT_BITS` bits. The estimate is the cheapest
  split of the text into common words, keyboard runs, repeats and single characters, in
  the manner of zxcvbn (Wheeler, USENIX Security 2016): a word of :data:`COMMON_WORDS`
  (also spelt with digits for letters, ``p4ssw0rd``) costs :data:`WORD_BITS` bits, a
  character continuing a run (``aaa``, ``1234``) 1 bit, any other character log2 of the
  alphabet the text draws from. Four common words ("correct horse battery staple") are
  about 60 bits, a 16-character random alphanumeric string about 95 bits.

:func:`key_check_value` is the key check value (KCV) recorded with every keyed release: the
first 8 bytes of HMAC-SHA256(key, ``"veil-kcv-v1"``), in hex. It tells whether a key is the
one a release was made with, without revealing the key (it is keyed, unlike a hash of the
key, which would let anyone test guesses offline) and without allowing anything to be
computed from it.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math

__all__ = [
    "COMMON_WORDS",
    "KCV_LABEL",
    "MIN_TEXT_BITS",
    "WORD_BITS",
    "key_check_value",
    "text_bits",
    "weak_key_reason",
]

KCV_LABEL = b"veil-kcv-v1"
MIN_TEXT_BITS = 72
#: bits a common word is worth: an attacker's list of the 16,384 most common words and
#: passwords holds each of these (ours is a small sample of such a list)
WORD_BITS = 14.0
_MIN_PERIOD = 16

# Words that passwords and test keys are made of: the most common passwords' stems,
# words about keys and secrets, placeholder words, and frequent English words. Short on
# purpose: a word missing here still meets the character-level estimate.
_COMMON_WORDS_TEXT = """
    password passwd pass word secret secrets key keys private public token api apikey admin
    administrator root user username login logon guest default test testing tester example
    sample demo dummy changeme change me letmein welcome hello hi hey master dragon monkey
    football baseball soccer hockey shadow sunshine princess qwerty azerty abc abcd abcdef
    abcdefgh iloveyou love trustno trust nobody superman batman starwars whatever freedom
    ninja mustang access flower summer winter spring autumn fall january february march
    april may june july august september october november december monday tuesday wednesday
    thursday friday saturday sunday veil hmac aes hash salt pepper seed random crypto cipher
    encrypt encryption decrypt token tokens tokenize vault signing sign signature auth
    authentication session cookie prod production staging stage dev development local
    localhost server database data company corp corporate office team project system systems
    service services secure security safe safety protect protected privacy private personal
    patient hospital health medical clinic record records customer client account bank money
    correct horse battery staple have from they will would there their what about which when
    make like time just know take people into year your good some could them see other than
    then now look only come its over think also back after use two how our work first well
    way even new want because any these give day most very long little great right left
    small large big old young black white red blue green yellow orange purple pink brown
    gold silver one two three four five six seven eight nine ten zero hundred thousand cat
    dog bird fish lion tiger bear wolf eagle shark horse apple banana cherry orange lemon
    coffee tea beer water fire earth wind air stone rock star moon sun sky sea home house
    door window table chair book paper pen computer internet network phone mother father
    sister brother family friend friends baby girl boy man woman king queen god angel devil
    heaven hell life death live die happy sad lucky magic power super hero killer hunter
    soldier pirate knight wizard dragon phoenix asdf asdfgh zxcv zxcvbn zxcvbnm qazwsx
    qwertz wasd
"""
COMMON_WORDS = frozenset(_COMMON_WORDS_TEXT.split())

#: the most frequent short words: worth fewer bits than a common word
_SHORT_WORDS_TEXT = """
    a an i the and for you not with this that is to of in it my be we me on at by or as so
    no do go up us he she his her our are was all can get got let new one two yes
"""
SHORT_WORDS = frozenset(_SHORT_WORDS_TEXT.split())
SHORT_WORD_BITS = 7.0
_SEPARATORS = frozenset(" -_.,:;/+")
_SEPARATOR_BITS = 2.0

_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
_KEYBOARD_ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "qwertzuiop", "azertyuiop")


@functools.cache
def _patterns() -> tuple[frozenset[str], int]:
    """Common words plus every keyboard run of 4 or more keys; and the longest length."""
    runs = {
        row[i:j]
        for row in _KEYBOARD_ROWS
        for i in range(len(row))
        for j in range(i + 4, len(row) + 1)
    }
    runs |= {r[::-1] for r in runs}
    words = frozenset(w for w in COMMON_WORDS | runs if len(w) >= 3)
    return words, max(len(w) for w in words)


def _word_cost(piece: str, original: str) -> float | None:
    words, _ = _patterns()
    caps = 1.0 if original != original.lower() else 0.0
    if piece in SHORT_WORDS:
        return SHORT_WORD_BITS + caps
    if piece in words:
        return WORD_BITS + caps
    return None


def _alphabet(text: str) -> int:
    size = 0
    if any(c.islower() for c in text):
        size += 26
    if any(c.isupper() for c in text):
        size += 26
    if any(c.isdigit() for c in text):
        size += 10
    if any(not c.isalnum() for c in text):
        size += 33
    return max(size, 2)


def text_bits(text: str) -> float:
    """A conservative estimate of the entropy of a text key, in bits (see the module).

    Examples
    --------
    >>> round(text_bits("password"))
    14
    >>> text_bits("correct horse battery staple") < 72
    True
    >>> text_bits("Xq7#pL2v9Rk!mZ4wT8bN") > 100
    True
    """
    _, longest = _patterns()
    plain = text.casefold().translate(_LEET)
    char_bits = math.log2(_alphabet("".join(c for c in text if c not in _SEPARATORS) or text))
    n = len(text)
    best = [0.0] + [math.inf] * n  # best[i]: the cheapest cost of text[:i]
    for i in range(n):
        if best[i] == math.inf:
            continue
        step_in = ord(text[i]) - ord(text[i - 1]) if i > 0 else 9
        run = i > 1 and abs(step_in) <= 1 and step_in == ord(text[i - 1]) - ord(text[i - 2])
        step = 1.0 if run else _SEPARATOR_BITS if text[i] in _SEPARATORS else char_bits
        best[i + 1] = min(best[i + 1], best[i] + step)
        for j in range(i + 1, min(n, i + longest) + 1):
            cost = _word_cost(plain[i:j], text[i:j])
            if cost is not None:
                best[j] = min(best[j], best[i] + cost)
            elif j - i >= 4 and plain[i:j] in plain[:i]:  # a repeat of an earlier part
                best[j] = min(best[j], best[i] + math.log2(max(i, 2)) + 2)
    return best[n]


def _period(material: bytes) -> int:
    n = len(material)
    for p in range(1, n):
        if all(material[k] == material[k % p] for k in range(p, n)):
            return p
    return n


def weak_key_reason(material: bytes) -> str | None:
    """Why ``material`` is too weak to be a key, or ``None`` when it passes.

    The reason describes the key's shape (counts, a bit estimate), never its bytes.

    Examples
    --------
    >>> weak_key_reason(bytes(32))
    'is one byte value repeated'
    >>> weak_key_reason(b"passwordpassword")
    'repeats a pattern of 8 bytes'
    >>> import secrets; weak_key_reason(secrets.token_bytes(32)) is None
    True
    """
    n = len(material)
    if n == 0:
        return "is empty"
    if len(set(material)) == 1:
        return "is one byte value repeated"
    period = _period(material)
    if period <= n // 2 and period < _MIN_PERIOD:
        return f"repeats a pattern of {period} bytes"
    distinct = len(set(material))
    needed = min(8, max(2, n // 2))
    if distinct < needed:
        return f"holds only {distinct} distinct byte values (a random key of {n} bytes holds about {round(256 * (1 - (255 / 256) ** n))})"
    steps = {(material[i + 1] - material[i]) % 256 for i in range(n - 1)}
    if n >= 8 and len(steps) <= 2:
        return "is a simple sequence of byte values"
    if all(0x20 <= b < 0x7F for b in material):
        bits = text_bits(material.decode("ascii"))
        if bits < MIN_TEXT_BITS:
            return (
                f"is text made of common words or patterns (about {bits:.0f} bits of entropy "
                f"estimated; at least {MIN_TEXT_BITS} are needed)"
            )
    return None


def key_check_value(material: bytes, context: bytes = b"") -> str:
    """The key check value: the first 8 bytes of HMAC-SHA256(key, label + context), hex.

    ``context`` binds further secret inputs (an FF3-1 tweak) to the value.

    Examples
    --------
    >>> len(key_check_value(b"\\x01" * 32))
    16
    """
    label = KCV_LABEL + (b"\x00" + context if context else b"")
    return hmac.new(material, label, hashlib.sha256).hexdigest()[:16]
