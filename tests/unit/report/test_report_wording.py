"""Report wording: no stutter, t under the distance asked for, the two discernibility and
class-size figures labelled, the policy collapsed as YAML."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from veil import load_policy, run_policy
from veil.report import render_html


def _table(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "income": rng.integers(10, 200, n) * 1000,
        }
    )


def _run(tmp_path: Path, privacy: str) -> tuple[dict, str]:
    _table().to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "p.yaml").write_text(
        "data: {path: t.csv}\n"
        "columns:\n"
        "  age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}}\n"
        "  sex: {role: quasi_identifier, hierarchy: {type: auto}}\n"
        "  income: {role: sensitive}\n"
        f"privacy: {privacy}\n"
        "output: {path: out, format: csv, report: [json, html]}\n"
    )
    result = run_policy(load_policy(tmp_path / "p.yaml"))
    report = json.loads(result.outputs["report_json"].read_text())
    return report, result.outputs["report_html"].read_text()


def test_summary_names_the_search_score_once_and_t_as_asked(tmp_path: Path) -> None:
    report, html = _run(
        tmp_path,
        "{k_anonymity: {k: 5}, t_closeness: {t: 0.6, distance: ordered}, suppression_limit: 0.1}",
    )
    summary = report["summary"]
    assert not any(k.startswith("information_loss_loss") for k in summary)
    assert summary["search_metric"] == "loss" and summary["search_score"] >= 0
    assert "t_ordered" in summary and "t_equal" not in summary
    # the summary's t is the guarantee's re-checked figure (one truth), not the extra levels
    (req,) = [r for r in report["risk"]["requirements"] if r["model"].startswith("t-closeness")]
    assert req["model"] == "t-closeness (ordered distance)"
    assert summary["t_ordered"] == req["measured"]
    assert "loss loss" not in html


def test_discernibility_figures_are_labelled(tmp_path: Path) -> None:
    _, html = _run(tmp_path, "{k_anonymity: {k: 5}, suppression_limit: 0.2}")
    assert "discernibility (DM, suppressed records cost n each)" in html
    assert "average class size (kept records / kept classes)" in html
    assert "ARX's DM* (suppression not penalized)" in html


def test_policy_is_collapsed_compact_yaml(tmp_path: Path) -> None:
    report, html = _run(tmp_path, "{k_anonymity: {k: 5}}")
    start = html.index('<section id="policy">')
    section = html[start : html.index("</section>", start)]
    assert "<details>" in section and "<summary>" in section
    import html as html_lib

    text = html_lib.unescape(section.split("<pre>")[1].split("</pre>")[0])
    assert yaml.safe_load(text)["columns"]["age"]["hierarchy"]["width"] == 5
    assert '"columns": {' not in section  # not JSON
    assert ": null" not in text  # unset keys left out
    # shorter than the JSON it replaced by far
    assert len(text.splitlines()) * 3 < len(json.dumps(report["policy"], indent=2).splitlines())


def test_render_html_shows_warnings_section() -> None:
    page = render_html(
        {
            "summary": {},
            "columns": [],
            "warnings": [{"code": "x_code", "column": "c", "message": "m <b>"}],
        }
    )
    assert '<section id="warnings">' in page and "m &lt;b&gt;" in page


@pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)
def test_anonymize_and_run_name_each_figure_once_and_print_warnings(tmp_path: Path, capsys) -> None:
    from veil.cli import main

    table = _table()
    table["invoice"] = range(10_000, 10_000 + len(table))  # a distinct number per row
    table.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "p.yaml").write_text(
        "data: {path: t.csv}\n"
        "columns:\n"
        "  age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}}\n"
        "  sex: {role: quasi_identifier, hierarchy: {type: auto}}\n"
        "  income: {role: sensitive}\n"
        "  invoice: {role: insensitive}\n"
        "privacy: {k_anonymity: {k: 5}}\n"
        "output: {path: out, format: csv, report: [json]}\n"
    )
    capsys.readouterr()
    assert main(["-q", "anonymize", str(tmp_path / "p.yaml"), "--out", str(tmp_path / "a")]) == 0
    out, err = capsys.readouterr()
    assert "loss: loss" not in out and "information loss (ARX loss)" in out
    assert "warning: column 'invoice' is released as it is" in err
    assert main(["-q", "run", str(tmp_path / "p.yaml"), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "information_loss_loss" not in out and '"search_metric": "loss"' in out
    assert "warning: column 'invoice'" in err and "10000" not in err
