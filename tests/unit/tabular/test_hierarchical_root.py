"""The root above a hierarchy's several top nodes belongs to the hierarchy, not to the data.

Hierarchical t-closeness puts a root above a sensitive hierarchy whose top level has
several nodes (veil's rule, docs/anonymization.md; the tree of the ground distance has one
root). The full-domain search and the independent re-check added it only when the *data*
held values under several of those nodes, while Mondrian (and the rule) add it whenever the
hierarchy has them: the same class read 1/4 in one and 1/8 in the other, and a Mondrian
release that met t failed its own re-check (exit 4, "report this as a bug").

The hierarchy here, an ARX file without a common top: ``a;A``, ``b;A``, ``c;B``. The data
holds ``a`` three times and ``b`` once (no ``c``): p = (3/4, 1/4). The tree has height 2 (A
and B at level 1, the root at 2). A class of ``a`` only: extras p - q = (-1/4, 1/4); node A
costs 1/2 * min(1/4, 1/4) = 1/8 and leaves nothing to move across the root. Distance 1/8
(1/4 with the root left out: height 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.policy import PrivacyConfig
from veil.risk._requirements import check_release
from veil.tabular import Hierarchy
from veil.tabular._encoding import encode
from veil.tabular._partition_checks import encode_sensitive
from veil.tabular._privacy_models import HierarchicalDistanceTClosenessModel

ROWS = [["a", "A"], ["b", "A"], ["c", "B"]]
ONLY_A = np.array([[1, 0]], dtype=np.int64)  # a class of a's, codes (a, b)


def _hier() -> Hierarchy:
    return Hierarchy.from_rows("s", ROWS)


def _table() -> pd.DataFrame:
    return pd.DataFrame({"q": ["x", "x", "y", "y"], "s": ["a", "a", "a", "b"]})


def _codes_of_a_b(values: np.ndarray) -> np.ndarray:
    """The class histogram in the domain's code order (a, b)."""
    labels = [str(v) for v in values]
    return ONLY_A[:, [labels.index("a"), labels.index("b")]]


def test_the_full_domain_search_measures_the_tree_of_the_hierarchy() -> None:
    qh = Hierarchy.from_rows("q", [["x", "*"], ["y", "*"]])
    ft = encode(_table(), ["q"], {"q": qh}, ["s"], sensitive_hierarchies={"s": _hier()})
    dom = ft.domains["s"]
    model = HierarchicalDistanceTClosenessModel(t=0.2, domain=dom)
    h = _codes_of_a_b(ft.sensitive_labels["s"])
    assert model.distances({"s": h}).tolist() == [0.125]


def test_mondrian_measures_the_same_tree() -> None:
    codes, dom = encode_sensitive(_table(), "s", hierarchy=_hier())
    model = HierarchicalDistanceTClosenessModel(t=0.2, domain=dom)
    first = [int(np.flatnonzero(codes == c)[0]) for c in range(dom.n_codes)]
    h = _codes_of_a_b(_table()["s"].to_numpy()[first])
    assert model.distances({"s": h}).tolist() == [0.125]


def test_the_re_check_measures_the_same_tree() -> None:
    released = pd.DataFrame({"g": ["x", "x", "x"], "s": ["a", "a", "a"]})
    privacy = PrivacyConfig.model_validate(
        {
            "t_closeness": {
                "t": 0.125,
                "distance": "hierarchical",
                "hierarchy": {"type": "taxonomy", "tree": {"a": ["A"], "b": ["A"], "c": ["B"]}},
            },
            "suppression_limit": 1.0,
        }
    )
    (req,) = check_release(
        released, ["g"], privacy, ["s"], reference=_table()[["s"]], hierarchies={"s": _hier()}
    )
    assert req.measured == pytest.approx(0.125, abs=1e-12)
    assert req.met is True


def test_a_one_level_hierarchy_still_reads_every_move_at_full_cost() -> None:
    # values only (no level above them): the root above the values is the tree, height 1
    flat = Hierarchy.from_rows("s", [["a"], ["b"], ["c"]])
    released = pd.DataFrame({"g": ["x", "x"], "s": ["a", "a"]})
    privacy = PrivacyConfig.model_validate(
        {
            "t_closeness": {
                "t": 0.5,
                "distance": "hierarchical",
                "hierarchy": {"type": "taxonomy", "tree": {"a": ["*"], "b": ["*"], "c": ["*"]}},
            },
            "suppression_limit": 1.0,
        }
    )
    ref = pd.DataFrame({"s": ["a", "a", "a", "b"]})
    (req,) = check_release(released, ["g"], privacy, ["s"], reference=ref, hierarchies={"s": flat})
    # 1/4 of the mass moves from b to a, at cost 1
    assert req.measured == pytest.approx(0.25, abs=1e-12)


def test_a_mondrian_release_meets_its_re_check(tmp_path: Path) -> None:
    import yaml

    from veil.cli import main

    rows = [{"zip": 1000 + i, "s": "b" if i % 4 == 0 else "a"} for i in range(40)]
    pd.DataFrame(rows).to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "s.csv").write_text("a;A\nb;A\nc;B\n")
    policy = {
        "data": {"path": "people.csv"},
        "columns": {"zip": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "privacy": {
            "k_anonymity": {"k": 2},
            "t_closeness": {
                "t": 0.2,
                "distance": "hierarchical",
                "hierarchy": {"type": "file", "path": "s.csv"},
            },
            "suppression_limit": 0.0,
        },
        "search": {"algorithm": "mondrian"},
        "output": {"path": "out", "format": "csv"},
    }
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    assert main(["run", str(tmp_path / "policy.yaml"), "--json"]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (t_req,) = [r for r in report["risk"]["requirements"] if r["model"].startswith("t-closeness")]
    assert t_req["met"] is True and t_req["measured"] <= 0.2
