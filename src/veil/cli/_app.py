"""The ``veil`` command: a thin typer layer over the library.

Errors become one line on stderr plus a hint, and the exit code the exception owns
(0 ok, 1 error, 2 usage/policy, 3 budget exceeded, 4 privacy requirement not met).
``--debug`` shows the traceback.
"""

from __future__ import annotations

import importlib
import logging
import sys
import traceback
from typing import Annotated, Any

import click
import typer

from veil._errors import VeilError
from veil._version import __version__
from veil.cli._ui import err_console, state

__all__ = ["app", "main"]  # noqa: F822 - ``app`` is built on first use (``__getattr__``)


def _new_app() -> typer.Typer:
    new = typer.Typer(
        name="veil",
        help="Release tables, text and models built on personal data without exposing the people.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    new.callback()(_root)
    return new


# Each module defines ``register(app)``. A later feature adds its module here and names the
# top-level commands it registers in _COMMANDS (a test checks the two agree).
_COMMAND_MODULES = [
    "veil.cli._run",
    "veil.cli._policy",
    "veil.cli._keys",
    "veil.cli._anonymize",
    "veil.cli._budget",
    "veil.cli._text",
    "veil.cli._risk",
    "veil.cli._report",
    "veil.cli._train",
    "veil.cli._synth",
    "veil.cli._fl",
    "veil.cli._unlearn",
    "veil.cli._audit",
    "veil.cli._ui_cmd",
]
# Top-level command -> the module that registers it. ``main`` builds only the invoked
# command's module: typer inspects every registered command's signature on each call, which
# would cost every invocation about 0.2 s.
_COMMANDS = {
    "run": "veil.cli._run",
    "demo": "veil.cli._run",
    "policy": "veil.cli._policy",
    "keygen": "veil.cli._keys",
    "detokenize": "veil.cli._keys",
    "anonymize": "veil.cli._anonymize",
    "budget": "veil.cli._budget",
    "dp": "veil.cli._budget",
    "redact": "veil.cli._text",
    "text": "veil.cli._text",
    "risk": "veil.cli._risk",
    "report": "veil.cli._report",
    "train": "veil.cli._train",
    "synth": "veil.cli._synth",
    "fl": "veil.cli._fl",
    "unlearn": "veil.cli._unlearn",
    "audit": "veil.cli._audit",
    "ui": "veil.cli._ui_cmd",
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"veil {__version__}")
        raise typer.Exit()


def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs.")] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No progress bars, and no warnings from other libraries."
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    state.debug = debug
    state.quiet = quiet
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if quiet and not debug:
        from veil.cli._quiet import silence_third_party

        silence_third_party()


def build_app(modules: list[str] | None = None) -> typer.Typer:
    """A ``veil`` app with the commands of ``modules`` (default: every command)."""
    new = _new_app()
    for name in modules if modules is not None else _COMMAND_MODULES:
        importlib.import_module(name).register(new)
    return new


def __getattr__(name: str) -> Any:
    """``app``, the app with every command, built on first use: importing every command's
    module (pydantic's policy models, the DP and report modules...) cost each ``veil``
    invocation a few hundred milliseconds, and ``main`` builds only the invoked one's."""
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(args: list[str]) -> typer.Typer:
    """The app to run for ``args``: only the invoked command's module when it is known."""
    first = next((a for a in args if not a.startswith("-")), None)
    if first in _COMMANDS and "--help" not in args[: args.index(first)]:
        return build_app([_COMMANDS[first]])
    return __getattr__("app")  # type: ignore[no-any-return]


_reported: list[int] = []  # exit codes whose error was printed during this run


def _fail(message: str, hint: str | None, code: int) -> int:
    _reported.append(code)
    err_console.print(
        f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True
    )
    if hint:
        err_console.print(f"[dim]hint:[/] {hint}", highlight=False, soft_wrap=True)
    return code


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, like Ctrl-C: every output being
    written is a temporary file that the unwinding removes, so nothing half-written is
    left (the default action kills the process on the spot, temporary file and all)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_signalled: list[int] = []  # the signal that stopped this run, if one did
_fork_hook = False


def _raise_terminated(signum: int, frame: object) -> None:
    _signalled.append(signum)
    raise _Terminated(signum)


def _raise_interrupted(signum: int, frame: object) -> None:
    """Ctrl-C as Python's own handler does, noted so the exit can say what happened."""
    _signalled.append(signum)
    raise KeyboardInterrupt


def _default_termination_in_child() -> None:
    """A forked worker (a pool's, or a benchmark's) ends on SIGTERM as workers do: its
    pool's terminate() sends one, and the parent owns every output file."""
    import signal

    if signal.getsignal(signal.SIGTERM) is _raise_terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if getattr(signal, "SIGHUP", None) and signal.getsignal(signal.SIGHUP) is _raise_terminated:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) is _raise_interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _on_termination() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into :class:`_Terminated`; return the handlers replaced."""
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}  # handlers can be set from the main thread only (an embedding program)
    global _fork_hook
    if not _fork_hook:
        os.register_at_fork(after_in_child=_default_termination_in_child)
        _fork_hook = True
    old: dict[int, Any] = {}
    _signalled.clear()
    _reported.clear()
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            old[sig] = signal.signal(sig, _raise_terminated)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        # left alone where the caller ignores Ctrl-C or handles it itself
        old[signal.SIGINT] = signal.signal(signal.SIGINT, _raise_interrupted)
    return old


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``veil`` command. Returns the exit code."""
    import signal

    from veil.cli._quiet import quiet_requested, restoring_warnings, silence_third_party
    from veil.cli._signals import Watchdog

    args = sys.argv[1:] if argv is None else argv
    handlers = _on_termination()
    # the veil process itself: a signal whose exception cannot be raised within a second
    # (the main thread inside a long C call) is delivered again with its default action
    watchdog = Watchdog()
    if handlers and argv is None:
        watchdog.start()
    try:
        with restoring_warnings():  # -q's silence ends with the command (tests call main)
            if quiet_requested(args):
                silence_third_party()  # before the command's module and libraries import
            code = _main(args)
    finally:
        watchdog.stop()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    if _signalled and not _reported:
        # typer turns the exception into a silent exit 130, after the unwinding has
        # removed every temporary output: say what happened, with the signal's code
        what = "interrupted" if _signalled[0] == signal.SIGINT else "terminated"
        return _fail(what, "no output was left half-written", 128 + _signalled[0])
    if _signalled and code != 128 + _signalled[0]:
        return 128 + _signalled[0]
    return code


def _main(args: list[str]) -> int:
    debug = "--debug" in args
    try:
        rv = _app_for(args)(args=args, prog_name="veil", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        return _fail("aborted", None, 1)
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code
    except VeilError as exc:
        if debug:
            traceback.print_exc()
        from rich.markup import escape

        return _fail(escape(exc.message), escape(exc.hint) if exc.hint else None, exc.exit_code)
    except _Terminated as exc:
        return _fail("terminated", "no output was left half-written", 128 + exc.signum)
    except KeyboardInterrupt:
        return _fail("interrupted", "no output was left half-written", 130)
    except OSError as exc:  # the system refused: say where and why (a path, never data)
        if debug:
            traceback.print_exc()
        from rich.markup import escape

        where = f" on {exc.filename}" if exc.filename else ""
        reason = exc.strerror or type(exc).__name__
        return _fail(escape(f"{reason}{where}"), "no output was left half-written", 1)
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback, no data
        if debug:
            traceback.print_exc()
        return _fail(
            f"internal error ({type(exc).__name__})",
            "rerun with --debug for the traceback and report it; no output was left half-written",
            1,
        )
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
