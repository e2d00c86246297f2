"""A preview of a policy's hierarchies on its table, for ``veil ui``'s Policy view.

For each quasi-identifier, the hierarchy the run would build (the same
:func:`veil.tabular._hierarchy.build_hierarchy` over the column's distinct values, spelled
as the search spells them) and, per level, how many groups the table's rows fall into, the
smallest and largest group, and how many groups (and rows) are smaller than k. Values the
hierarchy does not cover are counted as a warning. Counts only: no value or group label of
the table is returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from veil._errors import InputError

__all__ = ["hierarchy_preview"]


def hierarchy_preview(workdir: Path, relative: str, text: str) -> dict[str, Any]:
    """``{"k", "columns": [{"name", "type", "levels": [...], "uncovered", "problems"}]}``
    for the valid policy ``text`` saved as ``relative``; :class:`InputError` when the
    policy does not pass the check or names no file table."""
    import numpy as np

    from veil.io import read_table
    from veil.policy._loader import load_yaml_located, parse_policy
    from veil.policy._models import AutoHierarchyConfig
    from veil.tabular._hierarchy import build_hierarchy, value_labels
    from veil.ui._policy_edit import check_policy_text, policy_target

    checked = check_policy_text(workdir, relative, text)
    if not checked["valid"]:
        raise InputError(checked["error"]["message"], hint=checked["error"]["hint"])
    data, lines = load_yaml_located(text, relative)
    pol = parse_policy(
        data, source=relative, lines=lines, base_dir=policy_target(workdir, relative).parent
    )
    if pol.data.path is None and pol.data.url_env is None:
        raise InputError(
            "the preview reads files and SQL tables named by url_env",
            hint="name the database with data.url_env, or run the policy",
        )
    frame = read_table(pol.data, base_dir=pol.base_dir)
    k = pol.privacy.k_anonymity.k if pol.privacy.k_anonymity is not None else None
    out: list[dict[str, Any]] = []
    for q in pol.quasi_identifiers:
        if q not in frame.columns:
            raise InputError(
                f"the policy's quasi-identifier {q!r} is not a column of the table",
                hint="check the column names on the Data page",
            )
        config = pol.columns[q].hierarchy or AutoHierarchyConfig()
        codes, labels = value_labels(frame[q])
        hierarchy = build_hierarchy(q, config, labels.tolist(), base_dir=pol.base_dir)
        row_of = {str(v): i for i, v in enumerate(hierarchy.values)}
        at = np.array([row_of.get(str(v), -1) for v in labels], dtype=np.int64)
        covered = at[codes] >= 0
        levels = []
        for level in range(hierarchy.height):
            groups = hierarchy.table[at[codes[covered]], level]
            _, sizes = np.unique(groups.astype(str), return_counts=True)
            small = sizes[sizes < k] if k is not None else sizes[:0]
            levels.append(
                {
                    "level": level,
                    "groups": len(sizes),
                    "smallest": int(sizes.min()) if len(sizes) else 0,
                    "largest": int(sizes.max()) if len(sizes) else 0,
                    "groups_below_k": len(small),
                    "rows_below_k": int(small.sum()),
                }
            )
        out.append(
            {
                "name": q,
                "type": config.type,
                "levels": levels,
                "uncovered_values": int((at < 0).sum()),
                "uncovered_rows": int((~covered).sum()),
                "problems": hierarchy.problems(),
            }
        )
    return {"k": k, "rows": len(frame), "columns": out}
