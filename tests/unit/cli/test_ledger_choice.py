"""Who pays for a DP command (``--dataset``, ``--ledger``, ``--no-ledger``): ``veil train``,
``veil fl simulate --dp`` and ``veil unlearn fit --epsilon`` refuse the same mistakes, before
reading the data or training, and spend nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

COMMANDS = {
    "train": (["train", "{data}", "--target", "y", "--epsilon", "1"], "run", "train"),
    "fl": (
        ["fl", "simulate", "{data}", "--target", "y", "--dp", "client", "--epsilon", "1"],
        "run",
        "run",
    ),
    "unlearn": (
        [
            "unlearn",
            "fit",
            "{data}",
            "--target",
            "y",
            "--id-column",
            "a",
            "--out",
            "{out}",
            "--epsilon",
            "1",
        ],
        "fit",
        "train",
    ),
}


def _args(tmp_path: Path, name: str) -> tuple[list[str], str, str]:
    data = tmp_path / "t.csv"
    data.write_text("a,y\n1,0\n2,1\n", encoding="utf-8")
    template, paying, verb = COMMANDS[name]
    args = [a.format(data=data, out=tmp_path / "model") for a in template]
    return args, paying, verb


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_dataset_and_no_opt_out_is_refused(cli, tmp_path: Path, name: str) -> None:
    args, paying, verb = _args(tmp_path, name)
    r = cli(*args)
    assert r.code == 2
    assert f"say which dataset's privacy budget pays for this {paying}" in r.err
    assert f"--no-ledger to {verb} without recording the spend" in r.err
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("extra", [["--dataset", "d"], ["--ledger", "sqlite:///never.db"]])
def test_no_ledger_with_a_dataset_or_ledger_is_refused(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, extra: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    args, _, _ = _args(tmp_path, name)
    r = cli(*args, "--no-ledger", *extra)
    assert r.code == 2
    assert "--no-ledger contradicts --dataset/--ledger" in r.err
    assert not (tmp_path / "never.db").exists() and not (tmp_path / "model").exists()
