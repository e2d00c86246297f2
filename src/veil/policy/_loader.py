"""Load a policy from YAML with errors that name the file, the line, the key and the fix."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from veil._errors import PolicyError
from veil.policy._locate import remember_location
from veil.policy._models import LocatedError, Policy

__all__ = ["MAX_NODES", "load_policy", "load_yaml_located", "parse_policy", "policy_schema"]

_Loc = tuple[str | int, ...]


# A policy of a few hundred columns has a few thousand nodes; aliases may repeat a block, but
# a document that expands to more than this is refused before anything walks it (an 11-line
# "billion laughs" alias bomb expands to 10**9 nodes while composing to a hundred).
MAX_NODES = 100_000


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every key and sequence item."""


def expanded_size(node: yaml.Node, source: str, limit: int = MAX_NODES) -> int:
    """The number of nodes ``node`` stands for once every alias is expanded.

    Computed per distinct node (aliases share their anchor's node), so the cost is linear in
    the text however far the aliases would expand.

    Raises
    ------
    PolicyError
        The expansion passes ``limit`` nodes, or an alias refers to a node that contains it.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(n: yaml.Node) -> int:
        key = id(n)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise PolicyError(
                "a YAML alias refers to a node that contains it (a recursive structure)",
                file=source,
                line=n.start_mark.line + 1,
                hint="write the repeated part out, without '*' aliases",
            )
        active.add(key)
        total = 1
        if isinstance(n, yaml.MappingNode):
            children = [c for pair in n.value for c in pair]
        elif isinstance(n, yaml.SequenceNode):
            children = list(n.value)
        else:
            children = []
        for child in children:
            total += size(child)
            if total > limit:
                raise PolicyError(
                    f"the YAML aliases ('*name') expand to more than {limit:,} nodes",
                    file=source,
                    line=n.start_mark.line + 1,
                    hint="a policy needs far fewer; write the repeated parts out, or use "
                    "fewer aliases",
                )
        active.discard(key)
        sizes[key] = total
        return total

    return size(node)


def _compose_lines(
    node: yaml.Node, path: _Loc, lines: dict[_Loc, int], source: str = "<policy>"
) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                line = key_node.start_mark.line + 1
                if key in seen:
                    dotted = ".".join(str(p) for p in (*path, key))
                    raise PolicyError(
                        f"duplicate key (first given on line {seen[key]})",
                        file=source,
                        line=line,
                        key=dotted,
                        hint="give each key once; YAML would keep only the last, silently",
                    )
                seen[key] = line
            lines[(*path, key)] = key_node.start_mark.line + 1
            _compose_lines(value_node, (*path, key), lines, source)
            lines[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _compose_lines(item, (*path, i), lines, source)


def _line_for(loc: _Loc, lines: dict[_Loc, int]) -> int | None:
    # Pydantic's loc includes union tags (e.g. 'mask') that are not YAML keys: drop parts
    # from the end until a known path is found, then try skipping a tag in the middle.
    parts = list(loc)
    while parts:
        if tuple(parts) in lines:
            return lines[tuple(parts)]
        parts.pop()
    return lines.get(())


def _clean_loc(loc: _Loc, data: Any) -> _Loc:
    """Remove pydantic's discriminator tags from a location so it reads like the YAML."""
    out: list[str | int] = []
    node: Any = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out.append(part)
            node = node[part]
        elif isinstance(part, str) and part.startswith("function-"):
            continue
        elif isinstance(node, dict) and isinstance(part, str) and node.get("type") == part:
            continue  # discriminator tag
        else:
            out.append(part)
            node = None
    return tuple(out)


_FIXES = {
    "extra_forbidden": "remove it or check its spelling",
    "missing": "add it",
    "union_tag_invalid": "use one of the types listed",
    "literal_error": "use one of the values listed",
}


def _expected_keys(loc: _Loc) -> list[str]:
    """Valid keys at a location (for 'did you mean')."""
    from typing import get_origin

    from pydantic import BaseModel

    model: Any = Policy
    skip_dict_key = False
    for part in loc[:-1]:
        if isinstance(part, int) or skip_dict_key:
            skip_dict_key = False
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        ann = field.annotation
        skip_dict_key = get_origin(ann) is dict
        model = _first_model(ann)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [f.alias or n for n, f in model.model_fields.items() if n != "base_dir"]
    return []


def _first_model(ann: Any) -> Any:
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for arg in get_args(ann):
        found = _first_model(arg)
        if found is not None:
            return found
    return None


def parse_policy(
    data: Any,
    *,
    source: str = "<policy>",
    lines: dict[_Loc, int] | None = None,
    base_dir: Path | None = None,
) -> Policy:
    """Validate an already-parsed policy mapping.

    Raises
    ------
    PolicyError
        With the first problem's line and key, and every other problem counted.
    """
    if not isinstance(data, dict):
        raise PolicyError(
            f"expected a mapping at the top level, got {type(data).__name__}",
            file=source,
            line=1,
            hint="a policy starts with keys such as 'data:' and 'columns:'",
        )
    lines = lines or {}
    try:
        policy = Policy.model_validate({**data, "base_dir": base_dir})
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        first = errors[0]
        located = (first.get("ctx") or {}).get("error")
        raw_loc = tuple(first["loc"])
        if isinstance(located, LocatedError):
            raw_loc = (*raw_loc, *located.loc)
        loc = _clean_loc(raw_loc, data)
        key = ".".join(str(p) for p in loc) or None
        msg = first["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        hint = _FIXES.get(first["type"])
        if first["type"] == "extra_forbidden" and loc:
            valid = _expected_keys(loc)
            close = difflib.get_close_matches(str(loc[-1]), valid, n=1)
            if close:
                hint = f"did you mean {close[0]!r}?"
            elif valid:
                hint = f"valid keys here: {', '.join(valid)}"
            msg = "unknown key"
        if len(errors) > 1:
            msg += f" (and {len(errors) - 1} more problem(s); fix this one first)"
        raise PolicyError(
            msg, file=source, line=_line_for(loc, lines), key=key, hint=hint
        ) from None
    return policy


def load_policy(path: str | Path) -> Policy:
    """Read and validate a YAML policy file.

    Paths inside the policy (data, hierarchies, outputs) resolve relative to the policy's folder.

    Examples
    --------
    >>> from veil.policy import load_policy
    >>> policy = load_policy("policy.yaml")  # doctest: +SKIP
    >>> policy.quasi_identifiers  # doctest: +SKIP
    ['age', 'zipcode']
    """
    path = Path(path)
    if not path.is_file():
        raise PolicyError(
            "policy file not found",
            file=str(path),
            hint="check the path, or draft one with 'veil policy init DATA'",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PolicyError("policy file is not valid UTF-8", file=str(path)) from None
    data, lines = load_yaml_located(text, str(path))
    if data is None:
        raise PolicyError("policy file is empty", file=str(path), hint="see 'veil policy schema'")
    policy = parse_policy(data, source=str(path), lines=lines, base_dir=path.resolve().parent)
    remember_location(policy, str(path), lines)
    return policy


def load_yaml_located(text: str, source: str) -> tuple[Any, dict[_Loc, int]]:
    """Parse one YAML document safely: the data and the line of every key.

    The document is composed once; its alias expansion is bounded (:data:`MAX_NODES`) and a
    duplicated key is refused (naming both lines) before it is walked or built.
    """
    loader = _LineLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[_Loc, int] = {}
        if node is None:
            return None, lines
        expanded_size(node, source)
        _compose_lines(node, (), lines, source)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise PolicyError(
            f"not valid YAML: {exc.problem}",
            file=source,
            line=mark.line + 1 if mark else None,
            hint="check indentation and that ':' is followed by a space",
        ) from None
    except yaml.YAMLError as exc:  # e.g. a control character: its message quotes the text
        raise PolicyError(f"not valid YAML ({type(exc).__name__})", file=source) from None
    finally:
        loader.dispose()
    return data, lines


def policy_schema() -> str:
    """JSON Schema of the policy, for editors (e.g. the YAML language server)."""
    schema = Policy.model_json_schema(mode="validation")
    schema["properties"].pop("base_dir", None)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "veil policy"
    return json.dumps(schema, indent=2, sort_keys=True)
