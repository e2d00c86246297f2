"""``veil keygen`` and ``veil detokenize`` end to end through the CLI entry point."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pandas as pd
import pytest

CANARY = "CANARY-0c55e2"
HMAC_HEX = "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"
FPE_HEX = "f32819e4cf4dfa7a8d918d230eeb1972"

# typer re-exports click helpers that click 8.3+ deprecates (typer's issue, not ours; the
# project's pyproject filters it too). veil.cli is imported inside the tests so the filter
# applies to the import.
pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)


def veil_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from veil.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_keygen_writes_a_private_key_file_and_prints_nothing_secret(tmp_path, capsys) -> None:
    path = tmp_path / "keys" / "hmac.key"
    code, out, err = veil_cli(capsys, "keygen", "--out", path, "--json")
    assert code == 0, err
    key = path.read_text().strip()
    assert len(key) == 64 and int(key, 16) >= 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    doc = json.loads(out)
    assert doc == {"bytes": 32, "encoding": "hex", "path": str(path)}
    assert key not in out + err
    # a second key differs, and an existing file is not overwritten without --force
    code, _, err = veil_cli(capsys, "keygen", "--out", path)
    assert code == 2 and "already exists" in err
    assert path.read_text().strip() == key
    code, _, _ = veil_cli(capsys, "keygen", "--out", path, "--force", "--bytes", "16")
    assert code == 0 and len(path.read_text().strip()) == 32


def test_keygen_print_shows_the_key_only_when_asked(capsys) -> None:
    code, out, _ = veil_cli(capsys, "keygen", "--print")
    assert code == 0 and len(out.strip()) == 64
    code, _, err = veil_cli(capsys, "keygen")
    assert code == 2 and "--out" in err
    code, _, err = veil_cli(capsys, "keygen", "--print", "--bytes", "20")
    assert code == 2 and "16, 24 or 32" in err


POLICY = """\
data: {{path: people.csv}}
columns:
  id:    {{role: identifier, transform: {{type: hash, key_file: hmac.key}}}}
  ssn:   {{role: identifier, transform: {{type: tokenize, key_file: fpe.key}}}}
  card:  {{role: identifier, transform: {{type: tokenize, key_file: fpe.key, alphabet: digits}}}}
  email: {{role: identifier, transform: {{type: tokenize, key_file: fpe.key, alphabet: alnum}}}}
  note:  {{role: identifier, action: drop}}
output: {{path: out, format: {fmt}}}
"""


@pytest.fixture
def released(tmp_path: Path, capsys, request) -> tuple[Path, pd.DataFrame]:
    fmt = getattr(request, "param", "csv")
    n = 40
    people = pd.DataFrame(
        {
            "id": range(n),
            "ssn": [
                f"{i:03d}-{i % 97:02d}-{(i * 7919) % 10000:04d}" if i % 5 else None
                for i in range(n)
            ],
            "card": [f"4{(i * 104729) % 10**15:015d}" for i in range(n)],
            "email": [f"user{i}@example.com" if i % 7 else None for i in range(n)],
            "note": [CANARY] + ["x"] * (n - 1),
        }
    )
    people.to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "policy.yaml").write_text(POLICY.format(fmt=fmt))
    # fixed keys keep the tokens (and so the leading-zero check below) deterministic
    for name, key in (("hmac.key", HMAC_HEX), ("fpe.key", FPE_HEX)):
        (tmp_path / name).write_text(key + "\n")
        (tmp_path / name).chmod(0o600)
    code, _, err = veil_cli(capsys, "run", tmp_path / "policy.yaml", "--json")
    assert code == 0, err
    return tmp_path / "out" / f"released.{fmt}", pd.read_csv(tmp_path / "people.csv", dtype=str)


@pytest.mark.parametrize("released", ["csv", "parquet"], indirect=True)
def test_detokenize_restores_the_tokenized_columns(tmp_path, capsys, released) -> None:
    release, original = released
    raw = pd.read_csv(release, dtype=str) if release.suffix == ".csv" else pd.read_parquet(release)
    assert not raw["card"].isin(original["card"]).any()
    assert raw["card"].str.startswith("0").any()  # tokens with a leading zero are in the test
    target = tmp_path / "restored.csv"
    code, out, err = veil_cli(
        capsys, "detokenize", release, "--column", "ssn", "-c", "card", "-c", "email",
        "--policy", tmp_path / "policy.yaml", "--out", target, "--json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["columns"]["ssn"] == {"rows": 40, "missing": 8, "restored": 32}
    assert doc["output"] == str(target)
    restored = pd.read_csv(target, dtype=str)
    for col in ("ssn", "card", "email"):  # leading zeros survive the CSV round trip
        assert restored[col].fillna("").tolist() == original[col].fillna("").tolist()
    assert restored["id"].tolist() == raw["id"].astype(str).tolist()  # others untouched
    assert stat.S_IMODE(target.stat().st_mode) & 0o077 == 0
    assert "012-34-5678" not in out + err


def test_detokenize_refuses_columns_the_policy_does_not_tokenize(
    tmp_path, capsys, released
) -> None:
    release, _ = released
    args = ["--policy", tmp_path / "policy.yaml", "--out", tmp_path / "r.csv"]
    code, _, err = veil_cli(capsys, "detokenize", release, "--column", "id", *args)
    assert code == 2 and "not tokenized" in err and "ssn" in err
    code, _, err = veil_cli(capsys, "detokenize", release, "--column", "zzz", *args)
    assert code == 2 and "not in the policy" in err
    assert not (tmp_path / "r.csv").exists()


def test_detokenize_without_the_key_fails_cleanly(tmp_path, capsys, released) -> None:
    release, _ = released
    (tmp_path / "fpe.key").unlink()
    code, out, err = veil_cli(
        capsys, "detokenize", release, "-c", "ssn", "--policy", tmp_path / "policy.yaml",
        "--out", tmp_path / "r.csv",
    )  # fmt: skip
    assert code == 2 and "fpe.key" in err and "Traceback" not in err
    assert not (tmp_path / "r.csv").exists()
    assert CANARY not in out + err


def _detokenize(capsys, tmp_path: Path, release: Path, *extra: str | Path) -> tuple[int, str]:
    code, out, err = veil_cli(
        capsys, "detokenize", release, "-c", "ssn", "-c", "card", "--policy",
        tmp_path / "policy.yaml", "--out", tmp_path / "r.csv", *extra,
    )  # fmt: skip
    return code, out + err


def test_detokenize_with_a_wrong_key_refuses_and_writes_nothing(tmp_path, capsys, released) -> None:
    release, original = released
    other = "4c1e0f9d2b7a86e35d10c4f7a9b2e861"  # a strong key, but not the release's
    (tmp_path / "fpe.key").write_text(other + "\n")
    code, text = _detokenize(capsys, tmp_path, release)
    assert code == 2, text
    assert "not the one the release was made with" in text and "key_check.json" in text
    assert not (tmp_path / "r.csv").exists()
    assert other not in text and FPE_HEX not in text and CANARY not in text
    # the same key check is read from report.json when key_check.json is not there
    (release.parent / "key_check.json").unlink()
    code, text = _detokenize(capsys, tmp_path, release)
    assert code == 2 and "report.json" in text and not (tmp_path / "r.csv").exists()
    # the right key again: the original values come back
    (tmp_path / "fpe.key").write_text(FPE_HEX + "\n")
    code, text = _detokenize(capsys, tmp_path, release)
    assert code == 0, text
    restored = pd.read_csv(tmp_path / "r.csv", dtype=str)
    assert restored["ssn"].fillna("").tolist() == original["ssn"].fillna("").tolist()
    assert restored["card"].tolist() == original["card"].tolist()


def test_detokenize_without_a_recorded_key_check_refuses_unless_told(
    tmp_path, capsys, released
) -> None:
    release, original = released
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    alone = moved / release.name
    release.rename(alone)
    code, text = _detokenize(capsys, tmp_path, alone)
    assert code == 2 and "--no-key-check" in text and not (tmp_path / "r.csv").exists()
    code, text = _detokenize(capsys, tmp_path, alone, "--key-check", release.parent / "report.json")
    assert code == 0, text
    (tmp_path / "r.csv").unlink()
    code, text = _detokenize(capsys, tmp_path, alone, "--no-key-check")
    assert code == 0, text
    assert pd.read_csv(tmp_path / "r.csv", dtype=str)["card"].tolist() == original["card"].tolist()


def test_a_weak_key_file_is_refused_with_a_hint_to_keygen(tmp_path, capsys, released) -> None:
    release, _ = released
    for weak in ("00" * 16, "2e" * 16, "00112233445566778899aabbccddeeff", "raw:passwordpassword"):
        (tmp_path / "fpe.key").write_text(weak + "\n")
        code, text = _detokenize(capsys, tmp_path, release)
        assert code == 2, text
        assert "veil keygen" in text and weak not in text and weak.removeprefix("raw:") not in text
        assert not (tmp_path / "r.csv").exists()
