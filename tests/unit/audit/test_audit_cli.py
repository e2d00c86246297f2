"""``veil audit mia`` and ``veil audit dp`` end to end on small tables (real training)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the audits train veil's tabular model (the dp extra)")

from veil.data import adult_frame

TARGET = "salary-class"


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "adult_1500.csv"
    adult_frame().sample(1500, random_state=0).to_csv(path, index=False)
    return path


def test_mia_json_and_report(cli, small_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "mia"
    r = cli(
        "audit", "mia", small_csv, "--target", TARGET, "--attack", "lira", "--shadows", "2",
        "--epochs", "3", "--bootstrap", "20", "--seed", "1", "--json", "--out", out,
    )  # fmt: skip
    assert r.code == 0, r.err
    res = json.loads(r.out)
    assert {"attack", "auc", "tpr_at_fpr", "members", "nonmembers"} <= set(res)
    assert res["attack"] == "lira" and set(res["tpr_at_fpr"]) == {"0.001", "0.01"}
    assert res["members"] + res["nonmembers"] == 1500
    assert 0 <= res["auc"] <= 1 and res["auc_ci"][0] <= res["auc"] <= res["auc_ci"][1]
    report = json.loads((out / "report.json").read_text())
    assert report["kind"] == "model_audit"
    assert report["membership_inference"]["auc"] == res["auc"]
    assert any("membership inference" in e["provision"] for e in report["compliance"])
    page = (out / "report.html").read_text()
    assert 'id="mia-roc"' in page and "false-positive rate (log)" in page


def test_mia_with_fewer_than_two_shadows_is_refused_and_writes_nothing(
    cli, small_csv: Path, tmp_path: Path
) -> None:
    out = tmp_path / "mia"
    r = cli(
        "audit", "mia", small_csv, "--target", TARGET, "--attack", "rmia", "--shadows", "1",
        "--seed", "0", "--out", out,
    )  # fmt: skip
    assert r.code == 2
    assert "at least 2 shadow models" in r.err
    assert not out.exists()


def test_dp_audit_has_power_on_a_non_private_model(cli, small_csv: Path) -> None:
    # no DP: 200 mislabelled canaries in 1500 rows are memorized, and one run proves it
    r = cli(
        "audit", "dp", small_csv, "--target", TARGET, "--canaries", "200", "--epochs", "60",
        "--batch-size", "32", "--hidden", "256", "--seed", "0", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    res = json.loads(r.out)
    assert {"epsilon_claimed", "epsilon_lower_bound", "confidence", "canaries"} <= set(res)
    assert res["epsilon_claimed"] is None and res["canaries"] == 200
    assert res["epsilon_lower_bound"] >= 1


def test_dp_audit_of_dp_sgd_stays_below_the_claim(cli, small_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "dp"
    r = cli(
        "audit", "dp", small_csv, "--target", TARGET, "--epsilon", "1", "--canaries", "200",
        "--epochs", "20", "--seed", "0", "--json", "--out", out,
    )  # fmt: skip
    assert r.code == 0, r.err
    res = json.loads(r.out)
    assert res["epsilon_claimed"] == 1.0 and res["confidence"] == 0.95
    assert res["epsilon_lower_bound"] <= 1.0 and res["bound_exceeds_claim"] is False
    assert res["training"]["epsilon_spent"] <= 1.0
    page = (out / "report.html").read_text()
    assert 'id="dp-audit"' in page and 'class="ok"' in page


def test_dp_audit_catches_a_broken_dp_implementation(
    cli, small_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a bug that drops the noise: the model claims epsilon 0.5 but trains without DP
    from veil.audit import TabularAuditModel

    real_train = TabularAuditModel.train

    def no_noise(self: TabularAuditModel, rows, seed, labels=None):  # type: ignore[no-untyped-def]
        claimed, self.epsilon = self.epsilon, None
        try:
            return real_train(self, rows, seed, labels)
        finally:
            self.epsilon = claimed

    monkeypatch.setattr(TabularAuditModel, "train", no_noise)
    out = tmp_path / "dp"
    r = cli(
        "audit", "dp", small_csv, "--target", TARGET, "--epsilon", "0.5", "--canaries", "200",
        "--epochs", "60", "--batch-size", "32", "--hidden", "256", "--seed", "0", "--json",
        "--out", out,
    )  # fmt: skip
    assert r.code == 4
    assert "above the claimed epsilon" in r.err
    res = json.loads(r.out)
    assert res["bound_exceeds_claim"] is True and res["epsilon_lower_bound"] > 0.5
    report = json.loads((out / "report.json").read_text())
    assert report["dp_audit"]["bound_exceeds_claim"] is True
    assert 'class="bad"' in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--canaries", "1000"], "more than half"),
        (["--canaries", "1"], "canaries must be an integer >= 2"),
        (["--epsilon", "-1"], "epsilon must be a positive"),
        (["--confidence", "1.5"], "confidence must be in"),
    ],
)
def test_dp_audit_bad_input(cli, small_csv: Path, args: list[str], match: str) -> None:
    r = cli("audit", "dp", small_csv, "--target", TARGET, "--seed", "0", *args)
    assert r.code == 2 and match in r.err


def test_unknown_target_column(cli, small_csv: Path) -> None:
    r = cli("audit", "mia", small_csv, "--target", "nope", "--seed", "0")
    assert r.code == 2 and "target column 'nope'" in r.err
