"""Importing spaCy, finding the best installed English pipeline, and loading it without
the packages NER does not use. It sits with the vocabularies because the lexicon reads
that pipeline's lemma tables.

Two things made ``veil text detect`` on ten records take seconds before the first record:

- thinc (spaCy's machine-learning library) imports torch when it is installed (it is, with
  ``veil[dp]``), only to offer PyTorch-wrapped layers, at ``import spacy``. The CNN pipelines
  veil runs for NER (``en_core_web_sm/md/lg``) never use them. :func:`import_spacy` imports
  spaCy with torch hidden from that one import, unless torch is already loaded or a
  transformer pipeline package (``spacy-transformers``, ``spacy-curated-transformers``,
  which need torch) is installed. torch itself stays importable afterwards.
- ``import spacy`` imports its command line (``spacy.cli``: typer, weasel, jinja2, requests,
  urllib3 ...), a third of the import, only to offer ``spacy.info``. :func:`import_spacy`
  imports spaCy with a stand-in for ``spacy.cli`` that imports the real one on first use
  (``spacy.info()``, ``spacy.cli.download``); ``import spacy.cli`` imports it as before.
- every ``spacy.load`` imports *all* packages that advertise spaCy factories through entry
  points, used or not: presidio-analyzer (``veil[text]``) advertises one, and importing it
  imports its predefined recognizers and their dependencies. :func:`load_pipeline` loads
  with that bulk import switched off; a factory the pipeline names is still found by name
  through its own entry point (spaCy's registry looks it up when asked), and should the load
  still fail, it is retried the ordinary way.

Neither changes what the pipeline computes: the same components, weights and settings.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from veil._deps import require

__all__ = ["best_english_model", "import_spacy", "load_pipeline"]

_NEED_TORCH = ("spacy_transformers", "spacy_curated_transformers")
_SIZE_RANK = {"trf": 4, "lg": 3, "md": 2, "sm": 1}


def import_spacy() -> ModuleType:
    """``import spacy``, keeping thinc from importing torch where nothing needs it, and
    leaving spaCy's command line to be imported when first used."""
    if "spacy" in sys.modules:
        return require("spacy", extra="text", purpose="named-entity recognition")
    hide_torch = "torch" not in sys.modules and not any(
        importlib.util.find_spec(name) is not None for name in _NEED_TORCH
    )
    if hide_torch:
        sys.modules["torch"] = None  # type: ignore[assignment]  # 'import torch' -> ImportError
    stand_ins = _cli_stand_ins() | _langcodes_stand_in()
    try:
        spacy = require("spacy", extra="text", purpose="named-entity recognition")
    finally:
        if hide_torch and sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]  # the next 'import spacy.cli' imports the real one
    if "spacy.cli" not in sys.modules and "spacy.cli" in stand_ins:
        # 'spacy.cli.download' without 'import spacy.cli'
        spacy.cli = stand_ins["spacy.cli"]  # type: ignore[attr-defined]
    return spacy


def _langcodes_stand_in() -> dict[str, ModuleType]:
    """A module that stands in for ``langcodes`` during ``import spacy``: ``spacy.util``
    imports it at once (its language tables take about 30 ms to build) but calls it only to
    match a language code that spaCy does not know by name, which loading an installed
    pipeline never does. The first attribute read imports the real module and puts it in
    ``spacy.util``'s place. Empty when ``langcodes`` is already imported."""
    if "langcodes" in sys.modules:
        return {}
    stand_in = ModuleType("langcodes", "langcodes, imported on first use (veil)")

    def real(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if sys.modules.get("langcodes") is stand_in:
            del sys.modules["langcodes"]
        module = importlib.import_module("langcodes")
        util = sys.modules.get("spacy.util")
        if util is not None and getattr(util, "langcodes", None) is stand_in:
            util.langcodes = module  # type: ignore[attr-defined]
        return getattr(module, attr)

    stand_in.__getattr__ = real  # type: ignore[method-assign]
    sys.modules["langcodes"] = stand_in
    return {"langcodes": stand_in}


def _cli_stand_ins() -> dict[str, ModuleType]:
    """Modules that stand in for ``spacy.cli`` and ``spacy.cli.info`` during ``import spacy``
    (``spacy/__init__.py`` runs ``from .cli.info import info``); empty when ``spacy.cli``
    is already imported."""
    if "spacy.cli" in sys.modules or "spacy.cli.info" in sys.modules:
        return {}

    def info(*args: Any, **kwargs: Any) -> Any:
        """``spacy.info``: spaCy's own, imported on first call."""
        return importlib.import_module("spacy.cli.info").info(*args, **kwargs)

    def cli_attr(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(importlib.import_module("spacy.cli"), attr)

    cli = ModuleType("spacy.cli", "spaCy's command line, imported on first use (veil)")
    cli.__path__ = []  # a package, so that 'spacy.cli.info' can be imported from it
    cli.__getattr__ = cli_attr  # type: ignore[method-assign]
    cli.info = info  # type: ignore[attr-defined]
    cli_info = ModuleType("spacy.cli.info")
    cli_info.info = info  # type: ignore[attr-defined]
    stand_ins = {"spacy.cli": cli, "spacy.cli.info": cli_info}
    sys.modules.update(stand_ins)
    return stand_ins


def load_pipeline(name: str, **kwargs: Any) -> Any:
    """``spacy.load(name, **kwargs)`` without importing every spaCy plug-in installed, and
    without building a tokenizer that the pipeline's own replaces at once."""
    spacy = import_spacy()
    blank = "config" not in kwargs and _stock_tokenizer(spacy, name, kwargs.get("exclude", ()))
    if blank:
        spacy.registry.tokenizers.register(_BLANK_TOKENIZER, func=_blank_tokenizer)
        kwargs = {**kwargs, "config": {"nlp": {"tokenizer": {"@tokenizers": _BLANK_TOKENIZER}}}}
    nlp = _load(spacy, name, kwargs)
    if blank:  # the pipeline's config names the tokenizer it was saved with, as before
        nlp.config["nlp"]["tokenizer"] = dict(_STOCK_TOKENIZER)
    return nlp


def _load(spacy: ModuleType, name: str, kwargs: dict[str, Any]) -> Any:
    bulk = getattr(spacy.util.registry, "_entry_point_factories", None)
    if bulk is None or not getattr(bulk, "entry_points", False):
        return spacy.load(name, **kwargs)
    bulk.entry_points = False
    try:
        return spacy.load(name, **kwargs)
    except ValueError:  # a factory only the bulk import registers: load the ordinary way
        bulk.entry_points = True
        return spacy.load(name, **kwargs)
    finally:
        bulk.entry_points = True


def _installed_models() -> list[str]:
    return sorted(import_spacy().util.get_installed_models())


def best_english_model(installed: Iterable[str] | None = None, language: str = "en") -> str | None:
    """The largest installed spaCy pipeline for ``language`` (trf > lg > md > sm), or ``None``.

    Examples
    --------
    >>> best_english_model(["en_core_web_sm", "en_core_web_md", "de_core_news_lg"])
    'en_core_web_md'
    """
    names = list(installed) if installed is not None else _installed_models()
    english = [n for n in names if n.startswith(f"{language}_")]
    if not english:
        return None

    def rank(n: str) -> tuple[int, int, str]:
        size = next((v for k, v in _SIZE_RANK.items() if f"_{k}" in n), 0)
        return (size, "web" in n, n)

    return max(english, key=rank)


# spacy.load builds the tokenizer the config names, with the language's thousands of
# special cases, then reads the saved one over it: Tokenizer.from_bytes first resets every
# setting (rules, prefix/suffix/infix searches, token and URL matches), so the first
# one's settings never reach the result. Where the config names spaCy's own tokenizer and
# the pipeline has it saved, an empty Tokenizer of the same class is built instead.
_STOCK_TOKENIZER = {"@tokenizers": "spacy.Tokenizer.v1"}
_BLANK_TOKENIZER = "veil.empty_tokenizer.v1"


def _blank_tokenizer() -> Callable[[Any], Any]:
    from spacy.tokenizer import Tokenizer

    def make(nlp: Any) -> Any:
        return Tokenizer(nlp.vocab)

    return make


def _stock_tokenizer(spacy: ModuleType, name: str, exclude: str | Iterable[str]) -> bool:
    """Whether pipeline ``name`` (a package or a directory) builds spaCy's own tokenizer
    from its config and has it saved, and the load reads it (not excluded)."""
    excluded = {exclude} if isinstance(exclude, str) else set(exclude)
    if "tokenizer" in excluded:
        return False
    try:
        path = Path(name) if Path(name).exists() else spacy.util.get_package_path(name)
        if (path / "config.cfg").exists():
            data = [path]
        else:  # a package: its data directory ("en_core_web_sm-3.8.0") holds the config
            data = [d for d in path.iterdir() if (d / "config.cfg").exists()]
        if len(data) != 1 or not (data[0] / "tokenizer").is_file():
            return False
        config = spacy.util.load_config(data[0] / "config.cfg")
        return dict(config["nlp"]["tokenizer"]) == _STOCK_TOKENIZER
    except (ImportError, OSError, KeyError, TypeError, ValueError):  # in doubt: as before
        return False
