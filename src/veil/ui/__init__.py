"""A local web app over veil's workflow (``veil ui``): data, policy, run, budget and text views.

The server listens on the loopback address by default and answers only to a browser that
opened the one-time token URL it printed (see :mod:`veil.ui._security`). It needs the
``ui`` extra (Starlette and uvicorn): ``pip install 'veil[ui]'``.
"""

from __future__ import annotations

from veil.ui._app import UiSettings, create_app, describe_table, explain_text, list_tables

__all__ = ["UiSettings", "create_app", "describe_table", "explain_text", "list_tables"]
