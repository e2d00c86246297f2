"""``veil risk`` and ``veil report`` on the command line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from veil.risk._reference import adult_release

QI = "sex,age,race,marital-status,education,native-country,workclass,salary-class"


@pytest.fixture(scope="module")
def released_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("risk") / "released.csv"
    adult_release((0, 3, 0, 0, 2, 1, 1, 0), rows=5000).data.to_csv(path, index=False)
    return path


def test_risk_json_has_the_promised_keys(cli, released_csv):
    res = cli(
        "risk",
        released_csv,
        "--qi",
        QI,
        "--sensitive",
        "occupation",
        "--suppressed-marker",
        "*",
        "--json",
    )
    assert res.code == 0, res.err
    d = json.loads(res.out)
    assert d["k"] >= 5
    assert set(d["l"]) >= {"distinct", "entropy"} and set(d["t"]) >= {"equal", "ordered"}
    r = d["risk"]
    assert set(r["prosecutor"]) >= {"highest", "average", "records_at_highest"}
    assert set(r["journalist"]) >= {"highest", "average"} and "average" in r["marketer"]
    assert r["prosecutor"]["highest"] == pytest.approx(1 / d["k"])
    assert d["suppressed_rows"] > 0


def test_without_marker_suppressed_rows_form_a_class(cli, released_csv):
    res = cli("risk", released_csv, "--qi", QI, "--json")
    assert res.code == 0
    with_marker = json.loads(
        cli("risk", released_csv, "--qi", QI, "--suppressed-marker", "*", "--json").out
    )
    assert json.loads(res.out)["classes"] == with_marker["classes"] + 1


def test_risk_table_output_and_population_estimates(cli, tmp_path):
    from veil.data import adult_frame

    path = tmp_path / "raw.csv"
    adult_frame(3000).to_csv(path, index=False)
    res = cli("risk", path, "--qi", "age,education,sex", "--sampling-fraction", "0.05", "--json")
    assert res.code == 0, res.err
    pu = json.loads(res.out)["population_uniqueness"]
    assert pu["sample_uniques"] > 0 and pu["dankar_model"] in ("pitman", "zayatz")
    res = cli("risk", path, "--qi", "age,sex")
    assert res.code == 0 and "prosecutor risk, highest" in res.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--qi", "sex,nope"], "not in the table"),
        (["--qi", "sex", "--sensitive", "nope"], "sensitive"),
        (["--qi", "sex", "--threshold", "2"], "threshold"),
    ],
)
def test_bad_input_is_a_clear_error(cli, released_csv, args, needle):
    res = cli("risk", released_csv, *args)
    assert res.code == 2
    assert needle in res.err
    assert "Traceback" not in res.err and "Bachelors" not in res.err


def test_report_rebuilds_html(cli, tmp_path):
    (tmp_path / "report.json").write_text(
        json.dumps({"report_version": "1.1", "summary": {"k": 5}, "columns": []})
    )
    res = cli("report", tmp_path, "--json")
    assert res.code == 0, res.err
    html = (tmp_path / "report.html").read_text()
    assert "veil privacy report" in html and 'id="compliance"' in html
    assert json.loads(res.out)["bytes"] == len(html.encode())


def test_report_examples_are_opt_in(cli, tmp_path):
    rel = pd.DataFrame({"zip": ["130", "130", "148"], "dx": ["a", "b", "c"]})
    rel.to_csv(tmp_path / "released.csv", index=False)
    report = {
        "report_version": "1.1",
        "summary": {},
        "columns": [],
        "risk": {"quasi_identifiers": ["zip"]},
        "outputs": {"table": str(tmp_path / "released.csv")},
    }
    (tmp_path / "report.json").write_text(json.dumps(report))
    assert cli("report", tmp_path).code == 0
    assert "148" not in (tmp_path / "report.html").read_text()
    assert cli("report", tmp_path, "--examples", "1").code == 0
    page = (tmp_path / "report.html").read_text()
    assert 'id="examples"' in page and "148" in page


def test_report_errors(cli, tmp_path):
    assert cli("report", tmp_path).code == 2
    (tmp_path / "report.json").write_text("{not json")
    res = cli("report", tmp_path)
    assert res.code == 2 and "not valid JSON" in res.err
    (tmp_path / "report.json").write_text(json.dumps({"report_version": "9.0"}))
    assert cli("report", tmp_path).code == 2


def test_linkage_attack_from_the_cli(cli, tmp_path):
    from veil.data import adult_frame

    df = adult_frame(2000)
    df.to_csv(tmp_path / "naive.csv", index=False)
    df.sample(300, random_state=1).to_csv(tmp_path / "external.csv", index=False)
    res = cli(
        "risk",
        tmp_path / "naive.csv",
        "--qi",
        QI,
        "--sensitive",
        "occupation",
        "--external",
        tmp_path / "external.csv",
        "--json",
    )
    assert res.code == 0, res.err
    lk = json.loads(res.out)["linkage"]
    assert lk["matched"] == 1.0 and lk["reidentified"] > 0.3 and lk["inferred"] > 0.3
