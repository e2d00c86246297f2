"""The exceptions veil raises.

Every error derives from :class:`VeilError` and also from the builtin it resembles, so
``except ValueError`` keeps working for callers that do not know veil. Each class owns the
exit code the CLI returns for it::

    VeilError (Exception)                       exit 1
    ├── PolicyError (ValueError)                exit 2   the policy file is wrong
    ├── InputError (ValueError)                 exit 2   the data or an argument is wrong
    │   └── SchemaError (KeyError)              exit 2   a column is missing or mistyped
    ├── KeyMissingError (PermissionError)       exit 2   a transform needs a secret it lacks
    │   ├── WeakKeyError                        exit 2   the key is guessable (too little entropy)
    │   └── KeyMismatchError                    exit 2   not the key the release was made with
    ├── MissingDependencyError (ImportError)    exit 1   an optional extra is not installed
    ├── OutputError (OSError)                   exit 1   an output cannot be written (path, OS reason)
    ├── StageUnavailableError (NotImplementedError)  exit 2   a policy asks for a stage not built
    ├── LedgerUnavailableError (ConnectionError) exit 1  the budget ledger cannot be reached or is locked
    ├── PrivacyBudgetExceeded (RuntimeError)    exit 3   a spend would overspend the budget
    ├── PrivacyRequirementNotMet (RuntimeError) exit 4   no release satisfies the models
    └── VerificationError (AssertionError)      exit 4   the released table failed its re-check

Messages say what failed, what was expected, what was received (a type or a count, never a
value) and how to fix it. They never contain a data value: this is a privacy tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "InputError",
    "KeyMismatchError",
    "KeyMissingError",
    "LedgerUnavailableError",
    "MissingDependencyError",
    "OutputError",
    "PolicyError",
    "PrivacyBudgetExceeded",
    "PrivacyRequirementNotMet",
    "SchemaError",
    "StageUnavailableError",
    "VeilError",
    "VerificationError",
    "WeakKeyError",
    "column_names",
]


class VeilError(Exception):
    """Root of every error veil raises on purpose.

    Parameters
    ----------
    message
        One line: what failed.
    hint
        One line: how to fix it. Shown by the CLI after the message.
    """

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} (hint: {self.hint})"
        return self.message


class PolicyError(VeilError, ValueError):
    """The policy file is invalid: names the file, line and key where known."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        file: str | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.key = key
        where = ""
        if file is not None:
            where = f"{file}:{line}: " if line is not None else f"{file}: "
        if key:
            where += f"{key}: "
        super().__init__(where + message, hint=hint)


class InputError(VeilError, ValueError):
    """The input data or a command-line argument is unusable."""

    exit_code = 2


class SchemaError(InputError, KeyError):
    """A column named by the policy or a command is missing or has the wrong type."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the plain message
        return VeilError.__str__(self)


class KeyMissingError(VeilError, PermissionError):
    """A keyed transform was asked for but no key was supplied. veil never uses a default key."""

    exit_code = 2


class WeakKeyError(KeyMissingError):
    """A key has too little entropy to protect what it keys: one repeated byte, a few
    distinct bytes, a short repeated pattern, a simple sequence, or a word or passphrase.
    The message says which, never the key; the hint points to ``veil keygen``."""


class KeyMismatchError(KeyMissingError):
    """The key given is not the one the release was made with: its key check value differs
    from the one recorded in the release. Nothing was written."""


class OutputError(VeilError, OSError):
    """An output cannot be written: the message names the path and the operating system's
    reason (permission denied, no space left, read-only file system, ...)."""

    exit_code = 1


class MissingDependencyError(VeilError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    exit_code = 1


class StageUnavailableError(VeilError, NotImplementedError):
    """The policy asks for a pipeline stage that this version of veil does not provide."""

    exit_code = 2


class LedgerUnavailableError(VeilError, ConnectionError):
    """The privacy-budget ledger database cannot be reached, is locked, or is not a ledger.

    Nothing was spent: a spend is recorded in one transaction or not at all.
    """

    exit_code = 1


class PrivacyBudgetExceeded(VeilError, RuntimeError):
    """A spend would exceed the dataset's privacy budget; nothing was computed or recorded."""

    exit_code = 3


class PrivacyRequirementNotMet(VeilError, RuntimeError):
    """No release satisfies the privacy models within the limits given."""

    exit_code = 4


class VerificationError(VeilError, AssertionError):
    """The independent re-check of a released table failed; nothing was written."""

    exit_code = 4


_NAME_SHAPE = re.compile(r"[^\W\d][\w.\- ]{0,39}")


def column_names(names: Iterable[object], limit: int = 30) -> str:
    """The column names of a file, for a hint, when they all look like column names.

    A file without a header row makes its first record the "column names"; listing them
    would put data in an error. So the names are listed only if every one looks like a
    name (a letter or ``_`` first, at most 40 characters of letters, digits, ``_``, ``.``,
    ``-`` and spaces, at most four words); otherwise the hint says how many there are and
    that the first line may be data.

    Examples
    --------
    >>> column_names(["id", "notes", "visit date"])
    'id, notes, visit date'
    >>> column_names(["1", "Jane Roe wrote to jane@example.com"])
    'the 2 columns of the data (not listed: the first line looks like data; is the header row missing?)'
    """
    listed = [str(n) for n in names]
    if all(_NAME_SHAPE.fullmatch(n) and len(n.split()) <= 4 for n in listed):
        more = f" (and {len(listed) - limit} more)" if len(listed) > limit else ""
        return ", ".join(listed[:limit]) + more
    return (
        f"the {len(listed)} column{'s' if len(listed) != 1 else ''} of the data (not listed: "
        "the first line looks like data; is the header row missing?)"
    )
