"""An on-disk cache of word lists that veil derives from installed packages at start-up.

The name lexicon (Faker's person providers of every locale) and the place gazetteer
(GeoNames cities and countries, Faker's countries) are rebuilt from those packages by
every process that detects text: about half a second of CPU before the first record. They
depend only on public package data and veil's own code, never on the user's data, so the
result is kept as JSON (never pickle: a cache file cannot run code) in
``$VEIL_CACHE_DIR``, else ``$XDG_CACHE_HOME/veil``, else ``~/.cache/veil``. The file name
holds a hash of veil's version, the source files that build the list, and the versions of
the packages read, so a new version of any of them rebuilds it. ``VEIL_CACHE_DIR=off``
turns the cache off. A cache that cannot be read or written is ignored (the list is built
in memory as before); a corrupt file is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "cached_json"]

log = logging.getLogger(__name__)


def cache_dir() -> Path | None:
    """Where the cache lives, or ``None`` when ``VEIL_CACHE_DIR=off``."""
    env = os.environ.get("VEIL_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("off", "0", "") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "veil"


def _key(name: str, sources: Iterable[str], packages: Iterable[str]) -> str:
    from veil._version import __version__

    h = hashlib.sha256(f"{name}|{__version__}|{sys.version_info[:2]}".encode())
    here = Path(__file__).parent.parent  # veil/text
    for src in sorted(sources):
        h.update(src.encode())
        h.update((here / src).read_bytes())
    for pkg in sorted(packages):
        try:
            h.update(f"{pkg}={metadata.version(pkg)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{pkg}=missing".encode())
    return h.hexdigest()[:20]


def cached_json(
    name: str,
    build: Callable[[], Any],
    *,
    sources: Iterable[str],
    packages: Iterable[str],
) -> Any:
    """``build()``, or its JSON from an earlier process with the same code and packages.

    ``sources`` are paths under ``veil/text`` of the files whose code shapes the result; ``packages``
    the distributions it reads. The value must survive a JSON round trip unchanged (callers
    convert sets to lists and back).
    """
    where = cache_dir()
    if where is None:
        return build()
    try:
        path = where / f"{name}-{_key(name, sources, packages)}.json"
    except OSError:  # pragma: no cover - a source file that cannot be read
        return build()
    try:
        with path.open(encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        log.debug("veil cache file %s unreadable; rebuilding it", path.name)
    value = build()
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=f".{name}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(value, fh, ensure_ascii=False, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        log.debug("veil cache directory %s not writable; not caching %s", where, name)
    return value
