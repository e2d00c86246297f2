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
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from veil._deps import require

__all__ = ["best_english_model", "import_spacy", "load_pipeline"]

_NEED_TORCH = ("spacy_transformers", "spacy_curated_transformers")
_SIZE_RANK = {"trf": 4, "lg": 3, "md": 2, "sm": 1}


def import_spacy() -> ModuleType:
    """``import spacy``, keeping thinc from importing torch where nothing needs it."""
    if "spacy" in sys.modules or "torch" in sys.modules:
        return require("spacy", extra="text", purpose="named-entity recognition")
    if any(importlib.util.find_spec(name) is not None for name in _NEED_TORCH):
        return require("spacy", extra="text", purpose="named-entity recognition")
    sys.modules["torch"] = None  # type: ignore[assignment]  # 'import torch' -> ImportError
    try:
        return require("spacy", extra="text", purpose="named-entity recognition")
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


def load_pipeline(name: str, **kwargs: Any) -> Any:
    """``spacy.load(name, **kwargs)`` without importing every spaCy plug-in installed."""
    spacy = import_spacy()
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
