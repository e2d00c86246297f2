"""Under CI=true no test may skip (tests/conftest.py): a missing dependency, service or module
of ours fails there. Checked by running pytest on small test files with the project's conftest,
with and without CI=true."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

SKIPPING = """
import pytest

def test_service():
    pytest.skip("service down")

def test_gpu():
    pytest.skip("[hardware] no GPU on this machine")

@pytest.mark.skipif(True, reason="a condition")
def test_condition():
    pass

@pytest.mark.xfail(strict=True, reason="a known bug")
def test_known_bug():
    assert False

def test_passes():
    pass
"""

MODULE_SKIP = """
import pytest

pytest.importorskip("veil_no_such_module")

def test_never_runs():
    pass
"""


def _pytest(tmp: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            str(tmp),
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def test_skips_fail_under_ci_except_hardware(project: Path) -> None:
    (project / "test_skipping.py").write_text(SKIPPING)
    local = _pytest(project, None)
    assert local.returncode == 0, local.stdout
    assert "1 passed, 3 skipped, 1 xfailed" in local.stdout
    ci = _pytest(project, "true")
    assert ci.returncode == 1, ci.stdout
    assert "FAILED test_skipping.py::test_service - skipped under CI=true" in ci.stdout
    # a skip at setup (skipif) is reported as an error of the setup
    assert "ERROR test_skipping.py::test_condition - skipped under CI=true" in ci.stdout
    assert "1 failed, 1 passed, 1 skipped, 1 xfailed, 1 error" in ci.stdout  # GPU skip stays


def test_module_level_importorskip_fails_under_ci(project: Path) -> None:
    (project / "test_module_skip.py").write_text(MODULE_SKIP)
    (project / "test_other.py").write_text("def test_passes():\n    pass\n")
    assert _pytest(project, None).returncode == 0
    ci = _pytest(project, "1")
    assert ci.returncode != 0
    assert "skipped under CI=true" in ci.stdout and "veil_no_such_module" in ci.stdout
