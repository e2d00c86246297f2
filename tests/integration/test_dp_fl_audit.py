"""``veil audit dp --fl``: the one-run audit on a federated simulation with client-level DP,
through Flower's real simulation engine (Ray). Kept small (3 clients, 2 rounds, one worker)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from veil.data import adult_frame

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("flaudit") / "adult.csv"
    adult_frame().sample(900, random_state=1).to_csv(path, index=False)
    return path


def _audit(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "veil",
            "audit",
            "dp",
            str(data),
            "--target",
            "salary-class",
            "--fl",
            "--clients",
            "3",
            "--rounds",
            "2",
            "--workers",
            "1",
            "--seed",
            "0",
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_client_level_dp_bound_is_reported_against_the_claim(data: Path) -> None:
    proc = _audit(data, "--epsilon", "2", "--delta", "1e-3", "--canaries", "100")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["epsilon_claimed"] == 2.0 and out["canaries"] == 100
    assert out["confidence"] == 0.95
    # valid: a 95 % lower bound on a 2-DP run; client-level noise leaves it far below
    assert 0.0 <= out["epsilon_lower_bound"] <= 2.0 and out["bound_exceeds_claim"] is False
    fed = out["federated"]
    assert fed["dp"] == "client" and fed["unit"] == "one client" and fed["clients"] == 3
    assert fed["epsilon_accountant"] <= 2.0 and fed["noise_multiplier"] > 0
    assert 0 < out["included"] < 100 and out["guesses"] >= out["correct"] >= 0


def test_bad_delta_refused_before_any_training(data: Path) -> None:
    proc = _audit(data, "--epsilon", "2", "--delta", "0.5")
    assert proc.returncode == 2 and "delta must be below" in proc.stderr
    proc = _audit(data, "--canaries", "5000")
    assert proc.returncode == 2 and "more than half" in proc.stderr
