"""What veil loads on first use, not on import: regular expressions and package exports.

:func:`lazy_exports` gives a package a module ``__getattr__`` (PEP 562) that imports each
public name from the module that defines it when the name is first read, so that ``import
veil`` or ``import veil.text`` does not import every part (``veil text detect``'s start-up).

veil's text recognizers define a few hundred module-level patterns. Compiling them all when
the package is imported cost about a third of ``veil text detect``'s start-up, although a
short input reaches only some of them. :func:`lazy_compile` returns a stand-in with the
pattern's source and flags that compiles on the first call of any method and then binds the
compiled pattern's methods on itself, so later calls cost what a compiled pattern's do.

Examples
--------
>>> rx = lazy_compile(r"\\d{3}-\\d{4}")
>>> rx.pattern
'\\\\d{3}-\\\\d{4}'
>>> rx.search("call 555-1234").group()
'555-1234'
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, cast

__all__ = ["lazy_compile", "lazy_exports", "set_scan_gate"]

# the methods and attributes that need the compiled pattern, bound on first use
_COMPILED = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "groups",
    "groupindex",
)


# a hook that may give a compiled pattern's scanning methods a stand-in each, which answers
# "no match" at once for a text that provably holds none (set by the text recognizers,
# :func:`veil.text.recognition._recognizer._gated_scans`; ``None``: methods bound as they are)
_SCAN_GATE: Callable[[re.Pattern[str]], Mapping[str, Callable[..., Any]] | None] | None = None


def set_scan_gate(
    gate: Callable[[re.Pattern[str]], Mapping[str, Callable[..., Any]] | None] | None,
) -> None:
    """Install the hook that gates the scanning methods of patterns compiled from now on."""
    global _SCAN_GATE
    _SCAN_GATE = gate


class _LazyPattern:
    __slots__ = ("__dict__", "flags", "pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        # called only for names not yet bound: compile once, bind every method, answer
        if name not in _COMPILED:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        self.flags = compiled.flags  # as re reports them (re.UNICODE added for str patterns)
        for attr in _COMPILED:
            self.__dict__[attr] = getattr(compiled, attr)
        if _SCAN_GATE is not None:
            gated = _SCAN_GATE(compiled)
            if gated:
                self.__dict__.update(gated)
        self.__dict__["_compiled"] = compiled
        return self.__dict__[name]

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (for APIs that need a real ``re.Pattern``)."""
        if "_compiled" not in self.__dict__:
            self.__getattr__("search")
        return cast("re.Pattern[str]", self.__dict__["_compiled"])

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self.flags!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (lazy_compile, (self.pattern, self.flags))


def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, deferred until the pattern is first used.

    The result is typed as a compiled pattern: ``pattern``, ``flags`` and every matching
    method behave as on one. ``flags`` reads as given until the first use, then as ``re``
    reports it. Code that needs a real ``re.Pattern`` (``isinstance``, passing it to a C
    library) calls ``re.compile(rx.pattern, rx.flags)``, which ``re``'s cache answers.
    """
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))


def lazy_exports(
    module: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for package ``module``: a name in ``homes`` is imported
    from the module ``homes[name]`` on first read and then kept in the package's namespace.

    Use in a package's ``__init__.py``, with the same names imported under ``TYPE_CHECKING``
    for type checkers: ``__getattr__, __dir__ = lazy_exports(__name__, {"X": "pkg._x"})``.
    """
    package = sys.modules[module]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(package, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(package)) | set(homes))

    return __getattr__, __dir__
