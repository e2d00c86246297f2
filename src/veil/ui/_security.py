"""The app's guard: one-time token, session cookie, Host and Origin checks, CSRF, safe paths.

Every request passes :class:`Guard` (a plain ASGI middleware) before any view runs:

1. The ``Host`` header must name the address the server was started on (``127.0.0.1``,
   ``localhost`` or ``[::1]`` with its port, or the explicit ``--host``): a page on another
   site that points its own name at 127.0.0.1 (DNS rebinding) gets 403.
2. ``?token=...`` with the printed one-time token opens a session: the token is spent, and
   the browser gets a random session id as a ``SameSite=Strict``, ``HttpOnly`` cookie, then
   a redirect to the same path without the token (so it leaves the address bar and the
   history). A wrong or spent token gets 403; no token and no session cookie gets 401.
3. Every request that is not GET/HEAD/OPTIONS must carry the session's CSRF token, in the
   ``X-CSRF-Token`` header or the ``csrf`` field of a urlencoded form (or of the upload's
   multipart form, whose body may then be up to 10 MB), and any ``Origin``
   header must be the server's own; otherwise 403.

Nothing here logs or echoes a request's body, query or a file's content.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

from veil._errors import InputError

log = logging.getLogger("veil.ui")

__all__ = ["SESSION_COOKIE", "Guard", "Sessions", "allowed_hosts", "safe_path"]

# browsers send a host's cookies to every port of it: the cookie is named by the port, so
# two veil ui servers on one machine do not overwrite each other's session
SESSION_COOKIE = "veil_ui_session_{port}"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_MAX_FORM_BYTES = 2_000_000  # a pasted text
# an uploaded file (veil.ui._upload.UPLOAD_MAX_BYTES) and its form, on the upload route only
_UPLOAD_PATH = "/redact/upload"
_MAX_UPLOAD_BODY = 10_000_000 + 64_000


@dataclass
class Sessions:
    """The one-time token and the sessions it opened (each with its own CSRF token)."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    spent: bool = False
    csrf: dict[str, str] = field(default_factory=dict)  # session id -> CSRF token

    def exchange(self, offered: str) -> str | None:
        """A new session id for the right, unspent token; ``None`` otherwise."""
        if self.spent or not hmac.compare_digest(offered.encode(), self.token.encode()):
            return None
        self.spent = True
        sid = secrets.token_urlsafe(32)
        self.csrf[sid] = secrets.token_urlsafe(32)
        return sid

    def csrf_for(self, sid: str | None) -> str | None:
        if not sid:
            return None
        for known, csrf in self.csrf.items():
            if hmac.compare_digest(known.encode(), sid.encode()):
                return csrf
        return None


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """``Host`` header values that name this server (lower case)."""
    if host in ("127.0.0.1", "localhost", "::1"):
        names = ["127.0.0.1", "localhost", "[::1]"]
    else:
        names = [f"[{host}]" if ":" in host else host]
    return frozenset(n.lower() for name in names for n in (f"{name}:{port}",))


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _cookie(headers: dict[str, str], name: str) -> str | None:
    raw = headers.get("cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a malformed Cookie header is no session
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


async def _plain(
    send: Any, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware enforcing the checks in this module's docstring."""

    def __init__(
        self,
        app: Any,
        *,
        sessions: Sessions,
        hosts: frozenset[str],
        origins: frozenset[str],
        secure_cookie: bool = False,
        warm: Callable[[], None] | None = None,
        port: int = 0,
    ) -> None:
        self.app = app
        self.cookie = SESSION_COOKIE.format(port=port)
        self.warm = warm or (lambda: None)
        self.sessions = sessions
        self.hosts = hosts
        self.origins = origins
        self.secure_cookie = secure_cookie

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets in this app
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        send = _with_headers(send)
        headers = _headers(scope)
        if headers.get("host", "").lower() not in self.hosts:
            await _plain(
                send,
                403,
                "Forbidden: this server answers only to the address veil ui printed "
                "(the request's Host header names another).",
            )
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        offered = query.get("token")
        if offered:
            sid = self.sessions.exchange(offered[0])
            if sid is None:
                await _plain(
                    send,
                    403,
                    "Forbidden: this token is wrong or already used. Open the URL veil ui "
                    "printed in a new browser, or restart veil ui for a new token.",
                )
                return
            rest = {k: v for k, v in query.items() if k != "token"}
            location = scope.get("path", "/") + ("?" + urlencode(rest, doseq=True) if rest else "")
            cookie = f"{self.cookie}={sid}; Path=/; HttpOnly; SameSite=Strict" + (
                "; Secure" if self.secure_cookie else ""
            )
            await _plain(
                send,
                303,
                "See other",
                [(b"location", location.encode()), (b"set-cookie", cookie.encode())],
            )
            return
        csrf = self.sessions.csrf_for(_cookie(headers, self.cookie))
        if csrf is None:
            await _plain(
                send,
                401,
                "Unauthorized: open the URL with the token that veil ui printed.",
                [(b"www-authenticate", b'Cookie realm="veil ui"')],
            )
            return
        scope.setdefault("state", {})["csrf"] = csrf
        if scope["method"] in _SAFE_METHODS:
            await self._run(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            await _plain(send, 403, "Forbidden: the request came from another site (Origin).")
            return
        content_type = headers.get("content-type", "")
        upload = scope.get("path") == _UPLOAD_PATH and content_type.startswith(
            "multipart/form-data"
        )
        body, complete = await _read_body(receive, _MAX_UPLOAD_BODY if upload else _MAX_FORM_BYTES)
        if not complete:
            await _plain(
                send,
                413,
                "Request too large: upload at most 10 MB (put a larger file in the working "
                "folder and pick it there, or use veil redact)."
                if upload
                else "Request too large: paste at most 2 MB of text.",
            )
            return
        offered_csrf = headers.get("x-csrf-token")
        if offered_csrf is None and content_type.startswith("application/x-www-form-urlencoded"):
            form = parse_qs(body.decode("utf-8", "replace"))
            offered_csrf = (form.get("csrf") or [""])[0] or None
        elif offered_csrf is None and upload:
            offered_csrf = _multipart_field(body, content_type, "csrf")
        if offered_csrf is None or not hmac.compare_digest(offered_csrf.encode(), csrf.encode()):
            await _plain(
                send,
                403,
                "Forbidden: the CSRF token is missing or wrong. Reload the page and try again.",
            )
            return
        await self._run(scope, _replay(body), send)

    async def _run(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The view; an unexpected error is logged by its type only (its message could
        quote a value) and answered 500, instead of the server's traceback log."""
        started = False

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # noqa: BLE001 - the log must not carry the message
            log.error("%s %s failed: %s", scope["method"], scope["path"], type(exc).__name__)
            if not started:
                await _plain(send, 500, "Internal error: the view failed; see the server log.")


# every response: no framing (clickjacking), nothing but our own assets, no caching of
# pages that show findings, no MIME sniffing
_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # same-origin, not no-referrer: under no-referrer Chromium sends "Origin: null" on the
    # app's own form posts, which the Origin check must refuse
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def _with_headers(send: Any) -> Any:
    async def wrapped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in _HEADERS if k not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped


_QUIET = logging.getLogger("veil.ui.multipart")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False
_QUIET.setLevel(logging.CRITICAL + 1)


def _multipart_field(body: bytes, content_type: str, name: str) -> str | None:
    """The value of the small form field ``name`` (at most 200 bytes) in a multipart body;
    ``None`` when absent, longer or unreadable. File parts are skipped, not stored."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if not boundary:
        return None
    state: dict[str, Any] = {"header": b"", "value": b"", "disp": b"", "found": None}

    def on_header_field(data: bytes, start: int, end: int) -> None:
        state["header"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        if state["header"].lower() == b"content-disposition":
            state["disp"] += data[start:end]

    def on_header_end() -> None:
        state["header"] = b""

    def on_part_begin() -> None:
        state["disp"], state["value"] = b"", b""

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if len(state["value"]) <= 200:
            state["value"] += data[start:end][:201]

    def on_part_end() -> None:
        _, opts = parse_options_header(state["disp"])
        named = opts.get(b"name") == name.encode() and b"filename" not in opts
        if named and len(state["value"]) <= 200:
            state["found"] = state["value"]

    parser = MultipartParser(
        boundary,
        {
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_part_begin": on_part_begin,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        },
    )
    parser.logger = _QUIET  # its warnings quote the body's bytes
    try:
        parser.write(body)
        parser.finalize()
    except Exception:  # noqa: BLE001 - a malformed body carries no token
        return None
    found = state["found"]
    return found.decode("ascii", "replace") if found else None


async def _read_body(receive: Any, limit: int = _MAX_FORM_BYTES) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), True
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes) -> Any:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def safe_path(workdir: Path, relative: str) -> Path:
    """``relative`` inside ``workdir``, symlinks resolved; :class:`InputError` otherwise."""
    root = workdir.resolve()
    if not relative or "\x00" in relative:
        raise InputError("no file named", hint="pick a file from the list")
    candidate = Path(relative)
    if candidate.is_absolute():
        raise InputError(
            "an absolute path was given",
            hint="name a file relative to the working folder veil ui was started in",
        )
    resolved = (root / candidate).resolve()
    if not resolved.is_relative_to(root):
        raise InputError(
            "the path leaves the working folder",
            hint="pick a file inside the working folder (links out of it are refused too)",
        )
    if not resolved.is_file():
        raise InputError("no such file in the working folder", hint="pick a file from the list")
    return resolved
