"""SQL tables in ``veil ui``: a database named by an environment variable, never by URL.

The app reads a database whose SQLAlchemy URL is in an environment variable of the
server's process (``VEIL_DATA_URL`` unless the page names another), lists its tables,
describes one as the Data view describes a file, and drafts a policy that names the
variable (``data: {url_env: VEIL_DATA_URL, table: ...}``), so the URL and its password
never reach the policy, the page or the logs. ``veil run`` and the app's runs read the same
variable when they read the table.
"""

from __future__ import annotations

import re
from typing import Any

from veil._errors import InputError

__all__ = ["DEFAULT_SQL_ENV", "describe_sql", "sql_tables"]

DEFAULT_SQL_ENV = "VEIL_DATA_URL"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_TABLES = 500
_PLACEHOLDER = "__veil_sql_source__"


def _url(env: str) -> str:
    import os

    if not _ENV_NAME.fullmatch(env or ""):
        raise InputError(
            "the environment variable's name is not valid",
            hint=f"letters, digits and _, e.g. {DEFAULT_SQL_ENV}",
        )
    value = os.environ.get(env)
    if not value:
        raise InputError(
            f"the environment variable {env} is not set in the server's environment",
            hint=f"start veil ui with {env} set to the database's SQLAlchemy URL, e.g. "
            f"{env}=postgresql+psycopg://user:password@host:5432/db veil ui",
        )
    return value


def sql_tables(env: str) -> list[str]:
    """The tables (and views) of the database whose URL is in ``env``, by name."""
    import sqlalchemy as sa

    url = _url(env)
    try:
        engine = sa.create_engine(url)
    except Exception as exc:  # noqa: BLE001 - many kinds; the message could quote the URL
        raise InputError(
            f"cannot use the database URL in {env} ({type(exc).__name__})",
            hint="a SQLAlchemy URL looks like postgresql+psycopg://user@host:5432/db",
        ) from None
    try:
        with engine.connect() as conn:
            insp = sa.inspect(conn)
            names = list(insp.get_table_names()) + list(insp.get_view_names())
    except sa.exc.SQLAlchemyError as exc:
        raise InputError(
            f"the database in {env} could not be read ({type(exc).__name__})",
            hint="check that the server is reachable and the user may read it",
        ) from None
    finally:
        engine.dispose()
    return sorted(names)[:_MAX_TABLES]


def describe_sql(env: str, table: str) -> dict[str, Any]:
    """Rows, each column's type, distinct and missing counts and inferred role, and a
    draft policy that reads the table through ``url_env`` (no value of the table and no
    part of the URL)."""
    from veil.io import read_sql
    from veil.policy._draft import draft_policy
    from veil.ui._app import describe_frame

    if table not in sql_tables(env):
        raise InputError("no such table in the database", hint="pick a table from the list")
    frame = read_sql(_url(env), table=table)
    from pathlib import Path

    yaml_text, guesses = draft_policy(frame, data_path=Path(_PLACEHOLDER))
    line = f"  path: {_PLACEHOLDER}"
    if line not in yaml_text:  # pragma: no cover - the draft's data block changed
        raise InputError("the draft policy could not name the SQL table", hint="use a file")
    yaml_text = yaml_text.replace(line, f"  url_env: {env}\n  table: {_quoted(table)}", 1)
    return describe_frame(frame, guesses, f"sql:{table}", yaml_text)


def _quoted(name: str) -> str:
    import json

    return json.dumps(name)  # a JSON string is a YAML string
