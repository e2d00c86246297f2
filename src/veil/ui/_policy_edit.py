"""The policy editor behind ``veil ui``'s Policy view: edit, check, save.

A policy is edited as its YAML text. The form's fields (each column's role and transform,
the privacy models) are applied to that text's mapping and dumped back; checking runs the
same code as ``veil policy check`` (:func:`veil.policy.load_yaml_located`,
:func:`veil.policy.parse_policy`, then :func:`veil.pipeline.plan`), so the messages are the
CLI's, with the file, line and key. Every file the policy names (data, hierarchies,
populations, the output folder) must lie in the working folder. Saving writes the file
atomically inside the working folder, and only a policy that passes the check.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from veil._errors import InputError, PolicyError, VeilError

__all__ = [
    "POLICY_SUFFIXES",
    "ROLES",
    "TRANSFORMS",
    "apply_form",
    "check_policy_text",
    "dump_policy",
    "editor_model",
    "policy_target",
    "save_policy_text",
]

POLICY_SUFFIXES = (".yaml", ".yml")
ROLES = ("identifier", "quasi_identifier", "sensitive", "insensitive", "text")
# the transforms the form offers; any other type already in the YAML is kept and offered too
TRANSFORMS = ("none", "drop", "hash", "tokenize", "mask", "keep")
_MAX_POLICY_CHARS = 1_000_000


def policy_target(workdir: Path, relative: str) -> Path:
    """Where a policy named ``relative`` is written: a ``.yaml``/``.yml`` file inside
    ``workdir`` (it need not exist yet), in a folder that exists; :class:`InputError`
    otherwise."""
    root = workdir.resolve()
    if not relative or "\x00" in relative:
        raise InputError("no policy file named", hint="name it, e.g. policy.yaml")
    candidate = Path(relative)
    if candidate.is_absolute():
        raise InputError(
            "an absolute path was given for the policy",
            hint="name the policy relative to the working folder, e.g. policy.yaml",
        )
    if not candidate.name.lower().endswith(POLICY_SUFFIXES) or candidate.name.startswith("."):
        raise InputError("a policy file ends in .yaml or .yml", hint="e.g. policy.yaml")
    parent = (root / candidate).parent.resolve()
    target = parent / candidate.name
    if not parent.is_relative_to(root) or not target.resolve().is_relative_to(root):
        raise InputError(
            "the policy path leaves the working folder",
            hint="save the policy inside the working folder (links out of it are refused too)",
        )
    if not parent.is_dir():
        raise InputError("the policy's folder does not exist", hint="save it in an existing folder")
    return target


def _inside(root: Path, path: Path, key: str, source: str) -> None:
    if not path.resolve().is_relative_to(root):
        raise PolicyError(
            "the path leaves the working folder veil ui was started in",
            file=source,
            key=key,
            hint="put the file inside the working folder, or run it with `veil run`",
        )


# keys whose string value names a file the run reads (data, hierarchies, taxonomies,
# populations, public domains) or writes (output)
_PATH_KEYS = frozenset({"path", "population", "public_domain"})


def _file_paths(
    node: Any, loc: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _PATH_KEYS and isinstance(value, str):
                yield (*loc, key), value
            else:
                yield from _file_paths(value, (*loc, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _file_paths(value, (*loc, i))


def _has_password(url: str) -> bool:
    import sqlalchemy as sa

    try:
        return sa.engine.make_url(url).password is not None
    except Exception:  # noqa: BLE001 - a malformed URL is the run's to refuse
        return "@" in url and ":" in url.split("@", 1)[0].split("//", 1)[-1]


def check_policy_text(workdir: Path, relative: str, text: str) -> dict[str, Any]:
    """Validate policy YAML ``text`` as if saved at ``relative``, with ``veil policy
    check``'s code. Returns ``{"valid", "error", "summary"}``; ``error`` has the CLI's
    ``message`` (file, line, key), ``hint``, and the ``key`` and ``line`` apart."""
    from veil.pipeline import plan
    from veil.policy._loader import load_yaml_located, parse_policy

    try:
        target = policy_target(workdir, relative)
        if len(text) > _MAX_POLICY_CHARS:
            raise InputError(
                f"the policy is longer than {_MAX_POLICY_CHARS:,} characters",
                hint="a policy needs far fewer",
            )
        data, lines = load_yaml_located(text, relative)
        if data is None:
            raise PolicyError(
                "policy file is empty", file=relative, hint="see 'veil policy schema'"
            )
        pol = parse_policy(data, source=relative, lines=lines, base_dir=target.parent)
        stages = [s.name for s in plan(pol)]
        root = workdir.resolve()
        for loc, value in _file_paths(data, ()):
            _inside(root, target.parent / value, ".".join(map(str, loc)), relative)
        if pol.output.url is None:
            _inside(root, pol.resolve(pol.output.path), "output.path", relative)
        for key, url in (("data.url", pol.data.url), ("output.url", pol.output.url)):
            if url is not None and _has_password(url):
                raise PolicyError(
                    "the policy holds a database password in clear",
                    file=relative,
                    key=key,
                    hint="put the URL in an environment variable and name it with "
                    "data.url_env (veil ui reads VEIL_DATA_URL)",
                )
    except PolicyError as exc:
        return {
            "valid": False,
            "error": {"message": exc.message, "hint": exc.hint, "key": exc.key, "line": exc.line},
            "summary": None,
        }
    except VeilError as exc:
        return {
            "valid": False,
            "error": {"message": exc.message, "hint": exc.hint, "key": None, "line": None},
            "summary": None,
        }
    return {
        "valid": True,
        "error": None,
        "summary": {
            "policy": relative,
            "columns": len(pol.columns),
            "quasi_identifiers": pol.quasi_identifiers,
            "sensitive": pol.sensitive,
            "text": pol.text_columns,
            "stages": stages,
        },
    }


def save_policy_text(workdir: Path, relative: str, text: str) -> dict[str, Any]:
    """Check ``text``; when it is valid, write it to ``relative`` atomically (all or
    nothing). Returns the check's result with ``saved`` added."""
    result = check_policy_text(workdir, relative, text)
    result["saved"] = False
    if result["valid"]:
        from veil.io._atomic import write_text_atomic

        write_text_atomic(policy_target(workdir, relative), text)
        result["saved"] = True
    return result


def _mapping(text: str, relative: str) -> dict[str, Any]:
    from veil.policy._loader import load_yaml_located

    data, _ = load_yaml_located(text, relative)
    if not isinstance(data, dict):
        raise PolicyError(
            "expected a mapping at the top level",
            file=relative,
            line=1,
            hint="a policy starts with keys such as 'data:' and 'columns:'",
        )
    return data


def dump_policy(data: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _number(raw: str) -> Any:
    """A form field as an int or float when it reads as one; else the text (the policy's
    check then says what is wrong with it)."""
    raw = raw.strip()
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


def apply_form(text: str, relative: str, form: dict[str, list[str]]) -> str:
    """The policy ``text`` with the form's edits: ``name.N``/``role.N``/``transform.N``
    for column N, and ``k``, ``l``, ``t``, ``suppression_limit`` (blank removes a model).

    A column whose role leaves ``quasi_identifier`` loses its hierarchy; one that becomes a
    quasi-identifier without one gets ``{type: auto}``. Raises :class:`PolicyError` when
    ``text`` is not a YAML mapping."""
    data = _mapping(text, relative)
    columns = data.get("columns")
    if not isinstance(columns, dict):
        columns = {}
        data["columns"] = columns

    def field(name: str) -> str | None:
        values = form.get(name)
        return values[0] if values else None

    n = 0
    while (name := field(f"name.{n}")) is not None:
        col = columns.get(name)
        if not isinstance(col, dict):
            col = {}
            columns[name] = col
        role, transform = field(f"role.{n}"), field(f"transform.{n}")
        if role:
            if role != "quasi_identifier":
                col.pop("hierarchy", None)
            elif "hierarchy" not in col:
                col["hierarchy"] = {"type": "auto"}
            col["role"] = role
        current = col.get("transform")
        current_type = current.get("type") if isinstance(current, dict) else current
        if transform and transform != current_type:
            col.pop("action", None)
            if transform == "none":
                col.pop("transform", None)
            else:
                col["transform"] = {"type": transform}
        n += 1

    privacy = data.get("privacy")
    if not isinstance(privacy, dict):
        privacy = {}
        data["privacy"] = privacy
    for key, model, param in (
        ("k", "k_anonymity", "k"),
        ("l", "l_diversity", "l"),
        ("t", "t_closeness", "t"),
    ):
        raw = field(key)
        if raw is None:
            continue
        if raw.strip() == "":
            privacy.pop(model, None)
            continue
        block = privacy.get(model)
        block = dict(block) if isinstance(block, dict) else {}
        block[param] = _number(raw)
        privacy[model] = block
    raw = field("suppression_limit")
    if raw is not None:
        if raw.strip() == "":
            privacy.pop("suppression_limit", None)
        else:
            privacy["suppression_limit"] = _number(raw)
    return dump_policy(data)


def editor_model(text: str, relative: str, error: dict[str, Any] | None) -> dict[str, Any]:
    """What the form shows for ``text``: the columns (name, role, transform, the options
    and the error at this column), the privacy models' values and their errors, and the
    error that belongs to no field. A text that is not a mapping gives no form."""
    try:
        data = _mapping(text, relative)
    except VeilError:
        return {"columns": [], "privacy": {}, "field_errors": {}, "general_error": error}
    key = (error or {}).get("key") or ""
    columns_out: list[dict[str, Any]] = []
    raw_columns = data.get("columns")
    columns: dict[Any, Any] = raw_columns if isinstance(raw_columns, dict) else {}
    matched = False
    # longest name first, so "a.b" is not taken for column "a"
    owner = next(
        (
            name
            for name in sorted(map(str, columns), key=len, reverse=True)
            if key == f"columns.{name}" or key.startswith(f"columns.{name}.")
        ),
        None,
    )
    for name, col in columns.items():
        col = col if isinstance(col, dict) else {}
        current = col.get("transform")
        current_type = current.get("type") if isinstance(current, dict) else current
        if current_type is None and col.get("action"):
            current_type = str(col["action"])
        options = list(TRANSFORMS)
        if current_type and current_type not in options:
            options.append(str(current_type))
        row_error = error if owner == str(name) else None
        matched = matched or row_error is not None
        columns_out.append(
            {
                "name": str(name),
                "role": str(col.get("role", "")),
                "transform": str(current_type or "none"),
                "transforms": options,
                "error": row_error,
            }
        )
    raw_privacy = data.get("privacy")
    privacy: dict[Any, Any] = raw_privacy if isinstance(raw_privacy, dict) else {}

    def param(model: str, name: str) -> str:
        block = privacy.get(model)
        value = block.get(name) if isinstance(block, dict) else None
        return "" if value is None else str(value)

    values = {
        "k": param("k_anonymity", "k"),
        "l": param("l_diversity", "l"),
        "t": param("t_closeness", "t"),
        "suppression_limit": ""
        if privacy.get("suppression_limit") is None
        else str(privacy["suppression_limit"]),
    }
    field_errors: dict[str, Any] = {}
    for field_name, prefix in (
        ("k", "privacy.k_anonymity"),
        ("l", "privacy.l_diversity"),
        ("t", "privacy.t_closeness"),
        ("suppression_limit", "privacy.suppression_limit"),
    ):
        if key == prefix or key.startswith(prefix + "."):
            field_errors[field_name] = error
            matched = True
    return {
        "columns": columns_out,
        "privacy": values,
        "field_errors": field_errors,
        "general_error": None if matched else error,
    }
