"""``lazy_compile``: a pattern compiled on first use answers exactly as ``re.compile``."""

from __future__ import annotations

import pickle
import re

from hypothesis import given
from hypothesis import strategies as st

from veil._lazyre import lazy_compile

PATTERNS = [
    (r"\b\d{3}-\d{2}-\d{4}\b", 0),
    (r"(?P<user>[\w.]+)@(?P<host>[\w.]+)", 0),
    (r"jan|feb|mar", re.IGNORECASE),
    (r"^\s*(\w+)\s*$", re.MULTILINE),
]


def test_nothing_compiles_until_first_use() -> None:
    rx = lazy_compile(r"(a)(b)?", re.IGNORECASE)
    assert rx.pattern == "(a)(b)?"
    assert "_compiled" not in vars(rx)
    assert rx.groups == 2
    assert "_compiled" in vars(rx)
    assert rx.flags == re.compile(r"(a)(b)?", re.IGNORECASE).flags


def test_a_bad_pattern_fails_on_first_use() -> None:
    rx = lazy_compile(r"(\d")
    try:
        rx.search("1")
    except re.error:
        pass
    else:  # pragma: no cover - the assertion below names the failure
        raise AssertionError("a bad pattern matched")


def test_unknown_attributes_are_attribute_errors() -> None:
    rx = lazy_compile("x")
    assert not hasattr(rx, "no_such_method")


def test_it_pickles_as_the_same_pattern() -> None:
    rx = lazy_compile(r"\d+", re.ASCII)
    back = pickle.loads(pickle.dumps(rx))
    assert back.pattern == rx.pattern
    assert back.findall("a 12 b 345") == ["12", "345"]


@given(st.sampled_from(PATTERNS), st.text(alphabet="abcJANFEB0123456789-@. \n_xy", max_size=60))
def test_every_method_answers_as_re_compile(spec: tuple[str, int], text: str) -> None:
    pattern, flags = spec
    lazy, eager = lazy_compile(pattern, flags), re.compile(pattern, flags)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.findall(text) == eager.findall(text)
    assert lazy.sub("<X>", text) == eager.sub("<X>", text)
    assert lazy.split(text) == eager.split(text)
    for method in ("search", "match", "fullmatch"):
        a, b = getattr(lazy, method)(text), getattr(eager, method)(text)
        assert (a and a.span()) == (b and b.span())
    assert lazy.groupindex == eager.groupindex
