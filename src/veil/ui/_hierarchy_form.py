"""The hierarchy builder of ``veil ui``'s Policy view: fields for each quasi-identifier's
generalization hierarchy, written into the policy's YAML.

Kinds (what the policy's ``hierarchy:`` takes, see :mod:`veil.policy._models`):

* ``interval`` (numbers): a width that grows level by level, or explicit cut points per
  level, with open bins below ``bottom`` and at or above ``top``;
* ``mask`` (codes such as zip codes): one character masked per level, from the right or
  left;
* ``date``: the levels (day, month, quarter, year, decade);
* ``grouping`` (categories): lines ``GROUP = value, value, ...``; a line whose members are
  groups already named builds the next level (``ANY_RESPIRATORY = flu, cold`` then
  ``ILLNESS = ANY_RESPIRATORY, ...``). Saved as a ``taxonomy`` tree;
* ``ordinal`` (ordered categories): the values in order and a group size; level j groups
  runs of ``size * 2**(j-1)`` neighbours, labelled ``first..last``. Saved as a taxonomy;
* ``file``: an ARX hierarchy CSV of the working folder (one row per value, one column per
  level);
* ``auto``: veil's default.

Fields that do not parse are left for the policy's check to name at their key (the form
keeps the user's text, it never guesses); a grouping that gives values different depths is
refused here with the group's line.
"""

from __future__ import annotations

from typing import Any

from veil._errors import PolicyError

__all__ = [
    "DATE_LEVELS",
    "HIERARCHY_KINDS",
    "apply_hierarchy",
    "grouping_tree",
    "hierarchy_editors",
    "ordinal_tree",
]

HIERARCHY_KINDS = ("auto", "interval", "mask", "date", "grouping", "ordinal", "file")
DATE_LEVELS = ("day", "month", "quarter", "year", "decade")
_MAX_GROUP_LINES = 10_000


def _split(raw: str) -> list[str]:
    return [p.strip() for p in raw.replace("\n", ",").split(",") if p.strip()]


def grouping_tree(text: str, column: str, source: str) -> dict[str, list[str]]:
    """The taxonomy tree ``{value: [level 1 group, level 2 group, ...]}`` of grouping lines
    ``GROUP = member, member``; :class:`PolicyError` at the column's hierarchy key when a
    line is malformed, a value is in two groups, or values end at different depths."""
    key = f"columns.{column}.hierarchy"

    def fail(message: str, line: int) -> PolicyError:
        return PolicyError(
            f"grouping line {line}: {message}",
            file=source,
            key=key,
            hint="write one group a line, GROUP = value, value (a later line may group groups)",
        )

    parent: dict[str, str] = {}  # member -> its group
    groups: dict[str, list[str]] = {}
    lines = [ln for ln in text.splitlines()][:_MAX_GROUP_LINES]
    for n, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, eq, members = line.partition("=")
        name = name.strip()
        if not eq or not name:
            raise fail("expected GROUP = member, member", n)
        if name in groups:
            raise fail("this group is named twice", n)
        items = _split(members)
        if not items:
            raise fail("the group has no members", n)
        for item in items:
            if item in parent:
                raise fail("a member is already in another group", n)
            parent[item] = name
        groups[name] = items
    if not groups:
        raise PolicyError(
            "the grouping is empty",
            file=source,
            key=key,
            hint="write one group a line, GROUP = value, value",
        )
    values = [m for m in parent if m not in groups]
    tree: dict[str, list[str]] = {}
    for value in values:
        chain, at = [], value
        while at in parent:
            at = parent[at]
            if at in chain:
                raise PolicyError(
                    "the grouping has a cycle", file=source, key=key, hint="group groups upwards"
                )
            chain.append(at)
        tree[value] = chain
    depths = {len(c) for c in tree.values()}
    if len(depths) > 1:
        raise PolicyError(
            "the grouping puts values at different depths",
            file=source,
            key=key,
            hint="group every group of one level into the next, so every value has as many levels",
        )
    return tree


def ordinal_tree(values_text: str, size: str, column: str, source: str) -> dict[str, list[str]]:
    """Ordered ``values_text`` (one a line, or comma-separated) grouped in runs of
    ``size`` neighbours, doubling per level until one group would hold them all."""
    key = f"columns.{column}.hierarchy"
    values = _split(values_text)
    try:
        width = int(size)
    except ValueError:
        width = 0
    if width < 2:
        raise PolicyError(
            "the ordinal group size must be a whole number of at least 2",
            file=source,
            key=key,
            hint="e.g. 2 groups neighbours in pairs",
        )
    if len(values) < 3 or len(set(values)) != len(values):
        raise PolicyError(
            "an ordinal grouping needs at least 3 distinct values in order",
            file=source,
            key=key,
            hint="list the values from lowest to highest, one a line",
        )
    tree: dict[str, list[str]] = {v: [] for v in values}
    while width < len(values):
        for start in range(0, len(values), width):
            run = values[start : start + width]
            label = run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}"
            for v in run:
                tree[v].append(label)
        width *= 2
    return tree


def _tree_text(tree: dict[str, Any]) -> str:
    """Grouping lines for a taxonomy tree (the reverse of :func:`grouping_tree`)."""
    levels: list[dict[str, list[str]]] = []
    for value, chain in tree.items():
        chain = list(chain) if isinstance(chain, (list, tuple)) else [chain]
        below = str(value)
        for depth, group in enumerate(map(str, chain)):
            while len(levels) <= depth:
                levels.append({})
            members = levels[depth].setdefault(group, [])
            if below not in members:
                members.append(below)
            below = group
    return "\n".join(
        f"{group} = {', '.join(members)}" for level in levels for group, members in level.items()
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def hierarchy_editors(data: dict[str, Any]) -> list[dict[str, Any]]:
    """For each quasi-identifier of the policy mapping ``data``: its name, the builder's
    kind and the fields' current values."""
    columns = data.get("columns")
    out = []
    for name, col in columns.items() if isinstance(columns, dict) else []:
        if not isinstance(col, dict) or col.get("role") != "quasi_identifier":
            continue
        h = col.get("hierarchy")
        h = h if isinstance(h, dict) else {}
        kind = str(h.get("type") or "auto")
        fields: dict[str, str] = {
            "width": _text(h.get("width")),
            "growth": _text(h.get("growth")),
            "levels": _text(h.get("levels")) if kind != "date" else "",
            "bottom": _text(h.get("bottom")),
            "top": _text(h.get("top")),
            "cuts": "\n".join(
                ", ".join(map(str, level)) for level in (h.get("cuts") or []) if level
            )
            if isinstance(h.get("cuts"), list)
            else "",
            "from": _text(h.get("from") or "right"),
            "char": _text(h.get("char") or "*"),
            "path": _text(h.get("path")) if kind == "file" else "",
            "separator": _text(h.get("separator") or ";"),
            "groups": "",
            "values": "",
            "size": "2",
        }
        dates = h.get("levels") if kind == "date" else None
        date_levels = list(dates) if isinstance(dates, list) else ["month", "year"]
        if kind == "taxonomy":
            kind = "grouping"
            if isinstance(h.get("tree"), dict):
                fields["groups"] = _tree_text(h["tree"])
        out.append({"name": str(name), "kind": kind, "fields": fields, "date_levels": date_levels})
    return out


def apply_hierarchy(text: str, relative: str, form: dict[str, list[str]]) -> str:
    """The policy ``text`` with the builder's hierarchy (fields ``h.column``, ``h.kind``
    and the kind's own ``h.*`` fields) set on that quasi-identifier."""
    from veil.ui._policy_edit import _mapping, _number, dump_policy

    def field(name: str) -> str:
        return ((form.get(f"h.{name}") or [""])[0]).strip()

    data = _mapping(text, relative)
    column, kind = field("column"), field("kind")
    columns = data.get("columns")
    col = columns.get(column) if isinstance(columns, dict) else None
    if not isinstance(col, dict) or col.get("role") != "quasi_identifier":
        raise PolicyError(
            "the hierarchy's column is not a quasi-identifier of the policy",
            file=relative,
            key=f"columns.{column}",
            hint="set its role to quasi identifier and apply the form first",
        )
    if kind not in HIERARCHY_KINDS:
        raise PolicyError(
            "unknown hierarchy kind",
            file=relative,
            key=f"columns.{column}.hierarchy",
            hint="choose one of " + ", ".join(HIERARCHY_KINDS),
        )
    config: dict[str, Any] = {"type": kind}
    if kind == "interval":
        if field("cuts"):
            config["cuts"] = [
                [_number(x) for x in line.split(",") if x.strip()]
                for line in field("cuts").splitlines()
                if line.strip()
            ]
        else:
            config["width"] = _number(field("width"))
        for name in ("growth", "levels", "bottom", "top"):
            if field(name) and not (name in ("growth", "levels") and "cuts" in config):
                config[name] = _number(field(name))
    elif kind == "mask":
        config["from"] = field("from") or "right"
        config["char"] = field("char") or "*"
        if field("levels"):
            config["levels"] = _number(field("levels"))
    elif kind == "date":
        config["levels"] = [v for v in form.get("h.date_levels", []) if v]
    elif kind == "grouping":
        config = {"type": "taxonomy", "tree": grouping_tree(field("groups"), column, relative)}
    elif kind == "ordinal":
        config = {
            "type": "taxonomy",
            "tree": ordinal_tree(field("values"), field("size"), column, relative),
        }
    elif kind == "file":
        config["path"] = field("path")
        if field("separator") and field("separator") != ";":
            config["separator"] = field("separator")
    col["hierarchy"] = config
    return dump_policy(data)
