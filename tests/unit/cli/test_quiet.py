"""``veil -q`` silences other libraries' warnings (warnings module and loggers), not veil's."""

from __future__ import annotations

import io
import logging
import warnings
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

POLICY = "data: {path: t.csv}\ncolumns:\n  a: {role: insensitive}\n"


class _Noisy:
    """Stands in for a command's library: warns through every channel a library uses."""

    def __init__(self, own: logging.Handler) -> None:
        self.own = own

    def __call__(self, *args: object, **kwargs: object) -> list[object]:
        warnings.warn("library deprecation", DeprecationWarning, stacklevel=1)
        warnings.warn("library runtime note", RuntimeWarning, stacklevel=1)
        # a library that attaches its own handler at import, as presidio does; created
        # while the command runs, as the heavy libraries are imported late
        lib = logging.getLogger("noisylib.engine")
        lib.propagate = False
        if self.own not in lib.handlers:
            lib.addHandler(self.own)
        lib.warning("library own-handler warning")
        logging.getLogger("otherlib").warning("library root warning")
        logging.getLogger("otherlib").error("library error")
        logging.getLogger("veil.test").warning("veil warning")
        return []


def _run(tmp_path: Path, monkeypatch, capsys, caplog, *flags: str) -> tuple[int, str, str]:
    from veil.cli import main

    (tmp_path / "p.yaml").write_text(POLICY)
    own = io.StringIO()
    handler = logging.StreamHandler(own)
    monkeypatch.setattr("veil.pipeline.plan", _Noisy(handler))
    caplog.clear()
    with caplog.at_level(logging.DEBUG), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main([*flags, "policy", "check", str(tmp_path / "p.yaml")])
    logging.getLogger("noisylib.engine").removeHandler(handler)
    capsys.readouterr()
    shown = " | ".join(str(w.message) for w in caught)
    return code, own.getvalue() + caplog.text, shown


def test_quiet_drops_library_warnings_and_keeps_veil_warnings(
    tmp_path, monkeypatch, capsys, caplog
) -> None:
    code, logs, shown = _run(tmp_path, monkeypatch, capsys, caplog, "-q")
    assert code == 0
    assert shown == ""  # neither warning reached the warnings machinery's output
    assert "library own-handler warning" not in logs
    assert "library root warning" not in logs
    assert "library error" in logs  # errors still show
    assert "veil warning" in logs  # veil's own warnings are about the release: kept


def test_without_quiet_library_warnings_show(tmp_path, monkeypatch, capsys, caplog) -> None:
    code, logs, shown = _run(tmp_path, monkeypatch, capsys, caplog)
    assert code == 0
    assert "library deprecation" in shown and "library runtime note" in shown
    assert "library own-handler warning" in logs and "library root warning" in logs


def test_quiet_ends_with_the_command(tmp_path, monkeypatch, capsys, caplog) -> None:
    _run(tmp_path, monkeypatch, capsys, caplog, "-q")
    # the next command (same process) is not quiet: loggers made during -q log normally
    code, logs, shown = _run(tmp_path, monkeypatch, capsys, caplog)
    assert code == 0
    assert "library own-handler warning" in logs and "library root warning" in logs
    assert "library deprecation" in shown
    assert logging.getLoggerClass() is logging.Logger


def test_quiet_is_on_before_the_command_module_imports(monkeypatch) -> None:
    from veil.cli import _app
    from veil.cli._quiet import quiet_requested

    assert quiet_requested(["-q", "run", "p.yaml"]) and quiet_requested(["--quiet", "demo"])
    assert not quiet_requested(["run", "-q"])  # a command's own -q (dp query) is not ours
    assert not quiet_requested(["--debug", "-q", "run"])  # --debug shows everything
    seen: list[list[str]] = []

    def build(modules: list[str] | None = None):
        warnings.warn("warned while a command module imports", DeprecationWarning, stacklevel=1)
        seen.append(list(modules or []))
        raise SystemExit(0)

    monkeypatch.setattr(_app, "build_app", build)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SystemExit):
            _app.main(["-q", "policy", "check", "p.yaml"])
    assert seen and [str(w.message) for w in caught] == []
