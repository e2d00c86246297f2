"""``veil -q``: silence what other libraries print, keep veil's own warnings and errors.

Third-party libraries warn through the :mod:`warnings` module (deprecations, numerical
notes) and through their loggers, some with handlers of their own (presidio attaches one
at import). Under ``-q`` every Python warning is ignored and every log record below ERROR
from a logger outside ``veil`` is dropped, including loggers created later, when a command
imports its heavy dependencies. veil's own warnings (a key file readable by others, a run
without a ledger) still print: they concern what the user is releasing.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_requested", "restoring_warnings", "silence_third_party"]


def _ours(name: str) -> bool:
    return name == "veil" or name.startswith("veil.")


_active: list[bool] = []  # non-empty while -q is on


class _QuietFilter(logging.Filter):
    """While ``-q`` is on, let through veil's records and anything at ERROR or above."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _active or record.levelno >= logging.ERROR or _ours(record.name)


_FILTER = _QuietFilter("veil-quiet")


class _QuietLogger(logging.Logger):
    """The class of loggers created while ``-q`` is on (a command imports its libraries
    late): their records are filtered before any handler sees them, the library's own
    handlers included. After the command they behave as plain loggers."""

    def handle(self, record: logging.LogRecord) -> None:
        if _FILTER.filter(record):
            super().handle(record)


_previous_class: list[type[logging.Logger]] = []


def silence_third_party() -> None:
    """Ignore Python warnings and other libraries' log records below ERROR, until
    :func:`restoring_warnings` ends."""
    warnings.simplefilter("ignore")
    if _active:
        return
    _active.append(True)
    for logger in [logging.root, *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.addFilter(_FILTER)  # loggers that exist already
    for handler in logging.root.handlers:
        handler.addFilter(_FILTER)  # records propagated from a child skip the root's filters
    _previous_class.append(logging.getLoggerClass())
    logging.setLoggerClass(_QuietLogger)


def _undo() -> None:
    if not _active:
        return
    _active.clear()
    logging.setLoggerClass(_previous_class.pop())
    for logger in [logging.root, *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.removeFilter(_FILTER)
            for handler in logger.handlers:
                handler.removeFilter(_FILTER)


def quiet_requested(args: list[str]) -> bool:
    """Whether ``-q``/``--quiet`` is among the options before the command name."""
    for arg in args:
        if not arg.startswith("-"):
            return False
        if arg in ("-q", "--quiet"):
            return "--debug" not in args
    return False


@contextmanager
def restoring_warnings() -> Iterator[None]:
    """Run a command; afterwards the warning filters and logging are as they were."""
    with warnings.catch_warnings():
        try:
            yield
        finally:
            _undo()
