"""``lazy_compile``: a pattern compiled on first use answers exactly as ``re.compile``;
``lazy_exports``: a package name imported on first read."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veil._lazy import lazy_compile

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
    rx = lazy_compile(r"(\d")  # no error yet: nothing is compiled
    with pytest.raises(re.error):
        rx.search("1")


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


def test_lazy_exports_import_a_name_on_first_read_and_keep_it() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, types, json\n"
        "from veil._lazy import lazy_exports\n"
        "pkg = types.ModuleType('pkg_under_test'); sys.modules['pkg_under_test'] = pkg\n"
        "get, names = lazy_exports('pkg_under_test', {'dumps': 'json', 'Fraction': 'fractions'})\n"
        "pkg.__getattr__ = get\n"
        "before = 'fractions' in sys.modules\n"
        "frac = pkg.Fraction\n"
        "try:\n    pkg.nothing\n    missing = False\nexcept AttributeError:\n    missing = True\n"
        "print(json.dumps([before, 'fractions' in sys.modules, 'Fraction' in vars(pkg),"
        " missing, sorted(n for n in names() if not n.startswith('_'))]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == '[false, true, true, true, ["Fraction", "dumps"]]'
