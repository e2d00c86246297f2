"""The database-error messages of the ledger and the erasure log: what was not done, in
which store, the password hidden, no SQL."""

from __future__ import annotations

import sqlite3

import pytest

from veil._errors import LedgerUnavailableError
from veil.dp._store import db_errors

URL = "postgresql://alice:s3cret@db.example:5432/veil"


@pytest.mark.parametrize("done", ["read", "spent", "opened", "committed", "recorded"])
def test_the_message_says_what_was_not_done(done: str) -> None:
    with pytest.raises(LedgerUnavailableError) as info, db_errors(URL, 5.0, done):
        raise sqlite3.OperationalError("unable to open database file: SELECT secret FROM t")
    message = info.value.message
    assert message.endswith(f"nothing was {done}")
    assert message.startswith("cannot reach the ledger ")
    assert "s3cret" not in message and "SELECT" not in message


def test_a_locked_store_is_named_and_retry_is_suggested() -> None:
    with (
        pytest.raises(LedgerUnavailableError) as info,
        db_errors(URL, 2.5, "recorded", store="the erasure log"),
    ):
        raise sqlite3.OperationalError("database is locked")
    assert info.value.message.startswith("the erasure log ")
    assert "waited 2.5 s" in info.value.message
    assert info.value.message.endswith("nothing was recorded")


def test_a_database_that_is_no_store_says_so() -> None:
    with pytest.raises(LedgerUnavailableError) as info, db_errors(URL, 1.0, "read"):
        raise sqlite3.DatabaseError("file is not a database")
    assert info.value.message.endswith("failed (DatabaseError); nothing was read")
