"""The report: the risk stage on a demo-like run, JSON Schema validity, HTML, no data values."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.pipeline import RunContext
from veil.policy import Policy
from veil.report import REPORT_VERSION, build_report, render_html, schema
from veil.risk._reference import adult_release
from veil.risk._stage import RiskStage


def _jsonschema():
    # a test dependency (jsonschema>=4.18); only the schema checks need it
    return pytest.importorskip("jsonschema")


QIS = list(ADULT_QUASI_IDENTIFIERS)
LEVELS = (0, 3, 0, 0, 2, 1, 1, 0)


def _policy(**privacy) -> Policy:
    cols = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "file", "path": str(adult_hierarchy_path(q))},
        }
        for q in QIS
    }
    cols["occupation"] = {"role": "sensitive"}
    privacy = privacy or {
        "k_anonymity": {"k": 5},
        "l_diversity": {"l": 2},
        "suppression_limit": 0.05,
    }
    return Policy.model_validate(
        {"data": {"path": "adult.csv"}, "columns": cols, "privacy": privacy}
    )


@pytest.fixture(scope="module")
def demo_report() -> dict:
    """A demo-like report: Adult released at ARX's k=5 / 5 % optimum, measured by the stage."""
    original = adult_frame(6000)
    rel = adult_release(LEVELS, rows=6000)
    ctx = RunContext(policy=_policy(), original=original, data=rel.data, suppressed=rel.suppressed)
    ctx.report["anonymize"] = {
        "transformation": dict(zip(QIS, LEVELS, strict=True)),
        "max_levels": rel.max_levels,
    }
    ctx.report["dp"] = {
        "epsilon_spent": 0.7,
        "budget": 1.0,
        "queries": [{"name": "count", "epsilon": 0.2}, {"name": "mean age", "epsilon": 0.5}],
    }
    ctx.report["future_stage"] = {"score": 0.5, "items": [{"a": 1, "b": "two"}]}
    RiskStage(max_train_rows=800).run(ctx)
    report = build_report(ctx, timings={"risk": 0.1}, stages=["risk"])
    return json.loads(json.dumps(report, default=str))


def test_report_validates_against_the_schema(demo_report):
    jsonschema = _jsonschema()
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    jsonschema.Draft202012Validator(s).validate(demo_report)
    assert demo_report["report_version"] == REPORT_VERSION


def test_schema_rejects_a_broken_report(demo_report):
    jsonschema = _jsonschema()
    bad = json.loads(json.dumps(demo_report))
    bad["risk"]["risk"]["prosecutor"]["highest"] = 1.5
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema())
    del bad["summary"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema())


def test_stage_measures_and_summarizes(demo_report):
    risk, summary = demo_report["risk"], demo_report["summary"]
    assert risk["k"] >= 5 and summary["k"] == risk["k"]
    assert summary["highest_prosecutor_risk"] == pytest.approx(1 / risk["k"])
    assert risk["suppressed_rows"] == demo_report["summary"]["suppressed_rows"] > 0
    assert {r["model"] for r in risk["requirements"]} == {"k-anonymity", "distinct l-diversity"}
    assert all(r["met"] for r in risk["requirements"])
    util = demo_report["utility"]
    assert {c["column"] for c in util["columns"]} == {*QIS, "occupation"}
    ml = util["ml"]
    assert ml["target"] == "salary-class"  # the last binary column is preferred
    for model in ("logistic_regression", "gradient_boosting"):
        m = ml["models"][model]
        assert 0.5 < m["original"]["accuracy"] <= 1 and 0.5 < m["original"]["auc"] <= 1
        assert m["accuracy_delta"] == pytest.approx(
            m["released"]["accuracy"] - m["original"]["accuracy"]
        )
    assert [s["k"] for s in util["k_sweep"]][:4] == [1, 2, 3, 5]
    nue = util["information_loss"]["non_uniform_entropy"]
    assert 0 < nue["normalized"] < 1


def _data_values() -> set[str]:
    df = adult_frame(6000)
    rel = adult_release(LEVELS, rows=6000).data
    values = set()
    for frame in (df, rel):
        for c in frame.columns:
            values |= {str(v) for v in frame[c].unique() if len(str(v)) >= 4}
    return values


def test_no_data_value_in_json_or_html(demo_report):
    text = json.dumps(demo_report)
    page = render_html(demo_report)
    names = {*QIS, "occupation", "salary-class"}
    tokens = set(re.findall(r"[A-Za-z][A-Za-z0-9_<>=.-]{3,}", text + page))
    leaked = (tokens & _data_values()) - names
    # words that happen to be both a data value and English used by the report itself
    assert not leaked, sorted(leaked)[:10]


def test_html_is_self_contained_with_every_section(demo_report):
    page = render_html(demo_report)
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page and "<img" not in page and "@import" not in page
    for element in (
        'id="summary"',
        'id="guarantees"',
        'id="risk"',
        'id="class-size-histogram"',
        'id="risk-distribution"',
        'id="generalization-levels"',
        'id="distributions"',
        'id="utility-table"',
        'id="ml-table"',
        'id="tradeoff-curve"',
        'id="dp-budget"',
        'id="compliance"',
        'id="section-future_stage"',
    ):
        assert element in page, element
    for provision in (
        "Recital 26",
        "Art. 5(1)(c)",
        "Art. 17",
        "Safe Harbor",
        "Expert Determination",
        "CCPA",
    ):
        assert provision in page
    assert "cannot establish" in page
    assert len(page.encode()) < 2_000_000


def test_html_renders_minimal_and_odd_reports():
    page = render_html(
        {
            "summary": {},
            "columns": [],
            "weird": [1, 2, 3],
            "nested": {"a": {"b": {"c": {"d": {"e": 1}}}}},
        }
    )
    assert 'id="section-weird"' in page and 'id="compliance"' in page
    page = render_html({"risk": {"note": "the release keeps no quasi-identifier"}, "columns": []})
    assert "no quasi-identifier" in page


def test_all_suppressed_release_reports_cleanly():
    original = adult_frame(300)
    released = original.copy()
    released[QIS] = "*"
    ctx = RunContext(
        policy=_policy(), original=original, data=released, suppressed=np.ones(300, bool)
    )
    RiskStage(ml=False).run(ctx)
    report = json.loads(json.dumps(build_report(ctx, timings={}, stages=["risk"]), default=str))
    _jsonschema().validate(report, schema())
    assert report["risk"]["k"] is None and "note" in report["risk"]
    assert "every row is suppressed" in render_html(report)


def test_stage_on_an_unaligned_release():
    """A release of another length (e.g. synthetic rows): measured without row alignment."""
    original = adult_frame(3000)
    released = adult_frame(6000).iloc[3000:].sample(2500, random_state=0)
    ctx = RunContext(policy=_policy(), original=original, data=released)
    RiskStage(max_train_rows=500).run(ctx)
    util = ctx.report["utility"]
    assert util["rows_aligned"] is False
    assert util["ml"]["rows_aligned"] is False and util["ml"]["note"]
    assert util["information_loss"]["non_uniform_entropy"] is None
    assert ctx.report["risk"]["k"] >= 1


def test_guarantees_table_says_at_which_l_recursive_c_is_measured():
    req = {
        "model": "recursive (c,l)-diversity",
        "column": "diagnosis",
        "required": 2,
        "measured": 1.5,
        "met": False,
        "l": 3,
        "condition": "r1 < c * (r3 + ... + rm) in every class",
    }
    page = render_html({"summary": {}, "columns": [], "risk": {"note": "x", "requirements": [req]}})
    table = page[page.index('id="guarantees-table"') :]
    table = table[: table.index("</table>")]
    assert "c = 2 at l = 3" in table and "NOT met" in table
    assert "r1 &lt; c * (r3 + ... + rm) in every class" in table
