"""The package surface: exports, light import, version."""

from __future__ import annotations

import json
import subprocess
import sys

import veil


def isort_key(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps ``__all__`` in: CONSTANTS, then Classes, then the rest."""
    if len(name) > 1 and name.isupper():
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


HEAVY = ("torch", "spacy", "presidio_analyzer", "opacus", "opendp", "flwr", "ray", "mbi", "jax")


def test_top_level_all_is_complete_and_sorted() -> None:
    public = {name for name in dir(veil) if not name.startswith("_")} - {
        # subpackages and modules are reachable as attributes once imported; not exports
        "cli",
        "data",
        "demo",
        "io",
        "pipeline",
        "policy",
        "report",
        "tabular",
        "text",
        "risk",
        "utility",
        "dp",
        "train",
        "synth",
        "federated",
        "unlearning",
        "audit",
        "ui",
        "engine",
    }
    exported = set(veil.__all__) - {"__version__"}
    assert public == exported
    assert veil.__all__ == sorted(veil.__all__, key=isort_key)


def test_import_veil_and_cli_stay_light() -> None:
    code = (
        "import sys, json, veil, veil.cli, veil.pipeline, veil.policy, veil.io;"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_version_flag(cli) -> None:
    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"veil {veil.__version__}"


def test_subpackages_export_sorted_all() -> None:
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(veil.__path__):
        if info.name.startswith("_") or not info.ispkg:
            continue
        module = importlib.import_module(f"veil.{info.name}")
        names = getattr(module, "__all__", None)
        assert names is not None, f"veil.{info.name} has no __all__"
        assert list(names) == sorted(names, key=isort_key), f"veil.{info.name}.__all__ unsorted"
        for name in names:
            assert hasattr(module, name), f"veil.{info.name}.{name} is exported but missing"


def test_cli_command_map_matches_what_modules_register() -> None:
    """``main`` builds only the invoked command's module; the map must not drift."""
    from veil.cli._app import _COMMAND_MODULES, _COMMANDS, build_app

    registered: dict[str, str] = {}
    for module in _COMMAND_MODULES:
        sub = build_app([module])
        names = [c.name for c in sub.registered_commands] + [g.name for g in sub.registered_groups]
        for name in names:
            assert name is not None
            registered[name] = module
    assert registered == _COMMANDS


def test_help_lists_every_command(cli) -> None:
    from veil.cli._app import _COMMANDS

    result = cli("--help")
    assert result.code == 0
    for name in _COMMANDS:
        assert name in result.out


def test_cli_imports_only_the_invoked_commands_module() -> None:
    """``veil unlearn ...`` imports no other command's module (each costs start-up); the
    full app is built only when asked for (``veil --help``, ``veil.cli.app``)."""
    code = (
        "import sys, contextlib, io, json\n"
        "from veil.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['unlearn', '--help'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('veil.cli._'))))\n"
        "import veil.cli\n"
        "veil.cli.app\n"
        "print('veil.cli._policy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    loaded = set(json.loads(out[0]))
    assert "veil.cli._unlearn" in loaded
    others = {m for m in loaded if m.rsplit(".", 1)[-1] in {"_policy", "_synth", "_text", "_fl"}}
    assert others == set()
    assert out[1] == "True"  # veil.cli.app: every command
