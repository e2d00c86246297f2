"""The layout of ``veil.text``: sub-packages by what they do, imports that only go one way.

Every module under ``src/veil/text`` is parsed with :mod:`ast` (nothing is imported), and
every import of another ``veil.text`` module counts: at module level, inside a function
or under ``TYPE_CHECKING``. A function-local import is still a dependency, so it cannot
hide a cycle.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import veil.text

TEXT = Path(veil.text.__file__).parent

# Each sub-package and the sub-packages it may import (besides itself), bottom up.
LAYERS: dict[str, frozenset[str]] = {
    "vocab": frozenset(),
    "recognition": frozenset({"vocab"}),
    "ner": frozenset({"vocab", "recognition"}),
    "replacement": frozenset({"vocab", "recognition"}),
    "detection": frozenset({"vocab", "recognition", "ner"}),
    "evaluation": frozenset({"vocab", "recognition", "replacement"}),
    "redaction": frozenset({"vocab", "recognition", "ner", "replacement", "detection"}),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(TEXT.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(TEXT.rglob("*.py"))}


def _graph() -> dict[str, set[str]]:
    """Module -> the ``veil.text`` modules it imports (a package counts as its ``__init__``)."""
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # "from veil.text.recognition import _names" imports the module _names
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                    for a in node.names
                ]
            else:
                assert not isinstance(node, ast.ImportFrom), f"{path}: relative import"
                continue
            edges[mod].update(t for t in targets if t in mods and t != mod)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the list of modules around it, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(mod: str) -> list[str] | None:
        state[mod] = 1
        path.append(mod)
        for nxt in sorted(edges[mod]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[mod] = 2
        return None

    for mod in sorted(edges):
        if mod not in state and (found := visit(mod)):
            return found
    return None


def _layer(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[2] if len(parts) > 2 else None  # veil.text.<layer>.<module>


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_in_veil_text() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_module_lives_in_a_known_sub_package() -> None:
    misplaced = [m for m in _modules() if m != "veil.text" and _layer(m) not in LAYERS]
    assert not misplaced, f"put these in one of {sorted(LAYERS)} (or add a layer): {misplaced}"


def test_imports_only_go_down_the_layers() -> None:
    wrong = sorted(
        f"{mod} imports {dep}"
        for mod, deps in _graph().items()
        for dep in deps
        if (layer := _layer(mod)) in LAYERS
        and _layer(dep) != layer
        and _layer(dep) not in LAYERS[layer]
    )
    assert not wrong, "imports against the layering (see LAYERS):\n" + "\n".join(wrong)


def test_only_the_package_root_imports_through_the_package_root() -> None:
    # "from veil.text import X" inside veil.text would run the public __init__ (which
    # imports every layer) from below
    users = sorted(m for m, deps in _graph().items() if "veil.text" in deps)
    assert not users, f"import from the sub-package instead of veil.text: {users}"


def test_no_sub_package_is_shadowed_by_a_public_name() -> None:
    # veil.text's public "recognizers" (the registry) once hid a sub-package of that name:
    # "import veil.text.recognizers._names as m" failed
    assert not set(LAYERS) & set(veil.text.__all__)
    for layer in LAYERS:
        assert importlib.import_module(f"veil.text.{layer}") is getattr(veil.text, layer)


def test_each_sub_package_says_what_it_holds() -> None:
    for layer in LAYERS:
        init = TEXT / layer / "__init__.py"
        assert init.is_file(), f"{layer}/ has no __init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 10, f"{init}: needs a docstring saying what it holds"


def test_data_cache_sources_exist() -> None:
    # cached_json hashes its source files; a path that does not exist (a module moved)
    # would silently turn the cache off
    sources = []
    for path in TEXT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "sources":
                assert isinstance(node.value, ast.Tuple), f"{path}: sources must be a literal"
                sources += [ast.literal_eval(e) for e in node.value.elts]
    assert sources, "no cached_json(sources=...) found"
    missing = [s for s in sources if not (TEXT / s).is_file()]
    assert not missing, f"cached_json sources that are not files under veil/text: {missing}"
