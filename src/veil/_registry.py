"""A small generic registry: ``@registry.register("name")`` on a class or function.

Keys are the ``name`` given to :meth:`Registry.register`; nothing is instantiated to read
them. An unknown name fails with the list of valid names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from veil._errors import PolicyError

T = TypeVar("T")

__all__ = ["Registry"]


class Registry(Generic[T]):
    """Named entries of one kind (transforms, hierarchies, metrics, recognizers, ...).

    Examples
    --------
    >>> metrics: Registry[object] = Registry("metric")
    >>> @metrics.register("height")
    ... class Height: ...
    >>> metrics.get("height").__name__
    'Height'
    >>> metrics.names()
    ['height']
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def decorate(obj: T) -> T:
            if name in self._entries:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._entries[name] = obj
            if isinstance(obj, type) and "name" not in obj.__dict__:
                obj.name = name  # type: ignore[attr-defined]
            return obj

        return decorate

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise PolicyError(
                f"unknown {self.kind} {name!r}",
                hint=f"use one of: {', '.join(self.names())}",
            ) from None

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    @contextmanager
    def temporary(self, name: str, obj: T) -> Iterator[T]:
        """Register ``obj`` for the duration of a ``with`` block (for tests)."""
        self.register(name)(obj)
        try:
            yield obj
        finally:
            del self._entries[name]
