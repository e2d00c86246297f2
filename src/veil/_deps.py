"""Loading optional heavy dependencies on use, with an error that names the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

from veil._errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``veil[extra]``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the Python package {module.split('.')[0]!r}, which is not installed",
            hint=f"pip install 'veil[{extra}]'",
        ) from exc
