"""``veil ui``: start the local web app and print its one-time URL."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from veil._errors import InputError

__all__ = ["register"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ui(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Anything but the loopback address needs "
            "--allow-remote and --tls-cert/--tls-key.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: a free one).", min=0, max=65535)
    ] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the URL only; do not open a browser.")
    ] = False,
    workdir: Annotated[
        Path,
        typer.Option(
            "--workdir", help="The working folder: the app reads and writes files only inside it."
        ),
    ] = Path("."),
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Listen on a non-loopback --host (other machines can reach it; TLS required).",
        ),
    ] = False,
    tls_cert: Annotated[
        Path | None, typer.Option("--tls-cert", help="TLS certificate (PEM) for --allow-remote.")
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option("--tls-key", help="TLS private key (PEM) for --allow-remote.")
    ] = None,
) -> None:
    """Start the local web app (data, policy, run, budget and text views) and print its URL."""
    from veil._deps import require

    require("starlette", extra="ui", purpose="veil ui")
    uvicorn = require("uvicorn", extra="ui", purpose="veil ui")
    from veil.ui import UiSettings, create_app

    if not workdir.is_dir():
        raise InputError(
            "--workdir is not a folder", hint="name an existing folder with your tables"
        )
    loopback = _is_loopback(host)
    if not loopback and not allow_remote:
        raise InputError(
            "--host is not a loopback address, so other machines could reach the app",
            hint="add --allow-remote with --tls-cert and --tls-key, or keep --host 127.0.0.1",
        )
    if host in ("0.0.0.0", "::", ""):  # noqa: S104 - refused, not bound
        raise InputError(
            "--host names every address, but the app answers only to the Host it was given "
            "(DNS-rebinding protection)",
            hint="give the address or name that browsers will use, e.g. --host 192.0.2.10",
        )
    tls = tls_cert is not None or tls_key is not None
    if tls and (tls_cert is None or tls_key is None):
        raise InputError("--tls-cert and --tls-key go together", hint="give both files")
    if not loopback and not tls:
        raise InputError(
            "--allow-remote needs TLS: the session cookie must not cross the network in clear",
            hint="add --tls-cert CERT.pem --tls-key KEY.pem",
        )
    for opt, f in (("--tls-cert", tls_cert), ("--tls-key", tls_key)):
        if f is not None and not f.is_file():
            raise InputError(f"{opt} names no file", hint="give the path of a PEM file")

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on port {port} ({exc.strerror})",
            hint="pick another --port, or --port 0 for a free one",
        ) from exc
    # listen now, so a browser that opens the printed URL before uvicorn has started waits
    # in the backlog instead of being refused
    sock.listen(128)
    bound = sock.getsockname()[1]
    settings = UiSettings(workdir=workdir, host=host, port=bound, tls=tls)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,  # the access log would print the token and paths
        log_level="warning",
        ssl_certfile=str(tls_cert) if tls_cert else None,
        ssl_keyfile=str(tls_key) if tls_key else None,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    sys.stdout.write(f"veil ui: open {settings.url}  (Ctrl-C stops it)\n")
    sys.stdout.flush()
    if not no_browser:
        import webbrowser

        webbrowser.open(settings.url)
    import threading

    threading.Thread(target=app.warm, name="veil-ui-warm", daemon=True).start()
    server.run(sockets=[sock])


def register(app: typer.Typer) -> None:
    app.command("ui")(ui)
