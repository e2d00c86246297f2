"""SISA unlearning: fit, forget, verify, the erasure log and the refusals of bad input."""

from __future__ import annotations

import json
import secrets
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError, KeyMissingError, WeakKeyError
from veil.unlearning import (
    SISAModel,
    SklearnShardTrainer,
    TorchShardTrainer,
    aggregate,
    fit_table,
)

KEY = bytes.fromhex("3f9a0c41d27e88b5190e6ad4c3b27f51a8e46d09b2c57f13e8a0d94b6c21e7f5")


def _table(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["red", "green", "blue"], size=n)
    x = rng.normal(size=n)
    y = np.where((a == "red") ^ (x > 0.3), "yes", "no")
    return pd.DataFrame({"pid": [f"p{i:04d}" for i in range(n)], "colour": a, "x": x, "t": y})


@pytest.fixture
def tabular(tmp_path: Path) -> SISAModel:
    m = fit_table(
        _table(),
        "t",
        "pid",
        out=tmp_path / "m",
        key=KEY,
        shards=3,
        slices=3,
        epochs=2,
        batch_size=32,
    )
    yield m
    m.close()


def _xy(n: int = 300, seed: int = 1) -> tuple[dict[str, np.ndarray], list[str]]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64)
    return {"x": x, "y": y}, [f"id{i}" for i in range(n)]


def test_fit_writes_manifest_metrics_and_log(tabular: SISAModel) -> None:
    metrics = tabular.manifest["metrics"]
    assert metrics["n_train"] + metrics["n_test"] == 240
    assert 0.5 <= metrics["accuracy"] <= 1 and 0.5 <= metrics["monolithic"]["accuracy"] <= 1
    assert [len(d["y"]) for d in tabular.data] == [64, 64, 64]  # 192 rows in 3 shards
    # slices are contiguous thirds of each shard
    assert np.bincount(tabular.data[0]["slice"]).tolist() == [22, 21, 21]
    log = tabular.erasure_log()
    assert [r["kind"] for r in log] == ["fit"] and log[0]["model_version"] == 1
    text = (tabular.path / "manifest.json").read_text()
    assert "p0001" not in text  # no id in the manifest
    raw = b"".join(p.read_bytes() for p in tabular.path.rglob("*.bin"))
    assert raw  # the shards' rows and the held-out rows
    assert b"p0001" not in raw  # nor in the stored rows: only keyed hashes


def test_forget_retrains_only_the_shard_from_the_last_clean_slice(tabular: SISAModel) -> None:
    target = next(f"p{i:04d}" for i in range(240) if tabular.shard_of(f"p{i:04d}") == 1)
    from veil.unlearning import hash_ids
    from veil.unlearning._store import id_keys

    key = id_keys(hash_ids(tabular.store.key, [target]))[0]
    s, j = tabular.locate([key])[key]  # the slice the row sits in
    before = [dict(e) for e in tabular.manifest["shards"]]
    blobs = [tabular.ckpt_blob(1, k) for k in range(3)]
    out = tabular.forget([target], reason="request 1")
    assert out["forgotten"] == 1 and out["shards_retrained"] == [s] == [1]
    assert out["slices_retrained"] == {"1": list(range(j, 3))}
    assert out["model_version"] == 2 and tabular.version == 2
    assert out["full_retrain_seconds"] > 0 and out["speedup"] > 0
    # other shards (their files: same paths, same checksums) and the clean slices of
    # shard 1 are untouched, byte for byte
    after = tabular.manifest["shards"]
    for other in (0, 2):
        assert after[other] == before[other]
    assert [tabular.ckpt_blob(1, k) for k in range(j)] == blobs[:j]
    assert [c["sha256"] for c in after[1]["checkpoints"][:j]] == [
        c["sha256"] for c in before[1]["checkpoints"][:j]
    ]
    assert len(tabular.data[1]["y"]) == 63
    assert tabular.shard_of(target) is None
    # the old generation is gone from disk
    gens = sorted(p.name for p in (tabular.path / "shards" / "1").iterdir())
    assert gens == ["g2"]


def _row_in_slice(model: SISAModel, shard: int, slice_: int) -> str:
    from veil.unlearning import hash_ids
    from veil.unlearning._store import id_keys

    for i in range(240):
        key = id_keys(hash_ids(model.store.key, [f"p{i:04d}"]))[0]
        if model.locate([key]).get(key) == (shard, slice_):
            return f"p{i:04d}"
    raise AssertionError("no such row")


def test_clean_checkpoints_are_linked_not_copied_and_a_leftover_link_is_not_written_through(
    tabular: SISAModel,
) -> None:
    target = _row_in_slice(tabular, 0, 2)
    old = [tabular.path / c["path"] for c in tabular.manifest["shards"][0]["checkpoints"]]
    inodes = [p.stat().st_ino for p in old]
    contents = [p.read_bytes() for p in old]
    # a crashed erasure's leftover: the next version's folder, its slice-2 checkpoint a hard
    # link to the current slice-0 checkpoint (writing through it would change that file)
    leftover = tabular.path / "shards" / "0" / "g2"
    leftover.mkdir()
    import os

    os.link(old[0], leftover / "slice_2.ckpt")
    tabular.forget([target])
    new = [tabular.path / c["path"] for c in tabular.manifest["shards"][0]["checkpoints"]]
    assert all("/g2/" in str(p) for p in new)
    # slices 0 and 1 did not see the row: the same files (inodes), not copies
    assert [p.stat().st_ino for p in new[:2]] == inodes[:2]
    assert [p.read_bytes() for p in new[:2]] == contents[:2]
    assert new[2].stat().st_ino != inodes[0] and new[2].read_bytes() != contents[0]
    assert not (tabular.path / "shards" / "0" / "g1").exists()
    assert tabular.verify(shards=[0])["exact"] is True


def test_model_files_of_the_npz_format_are_still_read() -> None:
    """Folders written before the array container hold .npz rows and checkpoints."""
    import io

    from torch import nn

    from veil.unlearning._store import dump_arrays, load_arrays

    rows = {"x": np.arange(12.0).reshape(6, 2), "y": np.arange(6), "id": np.ones((6, 32), np.uint8)}
    buf = io.BytesIO()
    np.savez(buf, **rows)
    for blob in (buf.getvalue(), dump_arrays(rows)):
        back = load_arrays(blob)
        assert set(back) == set(rows)
        for k, v in rows.items():
            assert back[k].dtype == v.dtype and np.array_equal(back[k], v)
    data, _ = _xy(64)
    data = {"x": data["x"].astype(np.float32), "y": data["y"]}
    t = TorchShardTrainer(lambda: nn.Linear(4, 2), ("x",), epochs=1, batch_size=16)
    state = t.train_stage(t.initial_state(1), data, 5, final=True)
    new = t.dumps(state)
    from veil.unlearning._store import unpack_arrays
    from veil.unlearning._trainers import _STATE_MAGIC

    arrays, meta = unpack_arrays(new, magic=_STATE_MAGIC)
    old = io.BytesIO()
    old.write(b"veil-sisa-torch-state/1\n")
    meta_bytes = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(old, **arrays, meta=meta_bytes)
    assert t.params(t.loads(old.getvalue())) == t.params(state)
    # a damaged container is refused with a clear error, not a crash
    with pytest.raises(InputError, match="array container"):
        t.loads(new[: len(_STATE_MAGIC) + 8] + b"{not json" + new[len(_STATE_MAGIC) + 17 :])


def test_verify_is_exact_after_forgets_and_detects_a_changed_parameter(
    tabular: SISAModel,
) -> None:
    ids = [f"p{i:04d}" for i in (3, 50, 77, 120, 199)]
    tabular.forget(ids[:2])
    tabular.forget(ids[2:])
    v = tabular.verify()
    assert v["exact"] is True and v["forgotten_rows_present"] == 0
    assert v["shards_checked"] == tabular.manifest["touched_shards"]
    # a model whose stored state is not the retrained one fails verification
    s = v["shards_checked"][0]
    state = tabular.trainer.loads(tabular.ckpt_blob(s, 2))
    first = next(iter(state["module"]))
    state["module"][first] = state["module"][first] + 1e-6
    tabular._blobs[(s, 2)] = tabular.trainer.dumps(state)  # what the checkpoint would hold
    bad = tabular.verify(shards=[s])
    assert bad["exact"] is False and bad["mismatched_shards"] == [s]
    from veil._errors import VerificationError

    with pytest.raises(VerificationError):
        tabular.require_exact(bad)


def test_resubmitted_id_is_a_recorded_no_op(tabular: SISAModel) -> None:
    tabular.forget(["p0010"])
    files = sorted(str(p) for p in tabular.path.rglob("*.ckpt"))
    out = tabular.forget(["p0010"], reason="again")
    assert out["forgotten"] == 0 and out["already_forgotten"] == 1
    assert out["shards_retrained"] == [] and out["model_version"] == tabular.version
    assert sorted(str(p) for p in tabular.path.rglob("*.ckpt")) == files
    log = tabular.erasure_log()
    assert [(r["kind"], r["forgotten"], r["already_forgotten"]) for r in log] == [
        ("fit", 0, 0),
        ("forget", 1, 0),
        ("forget", 0, 1),
    ]
    assert log[-1]["reason"] == "again"


def test_unknown_id_fails_whole_request_nothing_retrained_or_logged(tabular: SISAModel) -> None:
    manifest = (tabular.path / "manifest.json").read_bytes()
    with pytest.raises(InputError, match="1 of 2 id"):
        tabular.forget(["p0005", "nobody"])
    assert (tabular.path / "manifest.json").read_bytes() == manifest
    assert len(tabular.erasure_log()) == 1
    assert tabular.shard_of("p0005") is not None or "p0005" in _heldout(tabular)


def _heldout(m: SISAModel) -> set[str]:
    return {f"p{i:04d}" for i in range(240) if m.shard_of(f"p{i:04d}") is None}


def test_forgetting_a_heldout_row_removes_it_without_retraining(tabular: SISAModel) -> None:
    held = sorted(_heldout(tabular))[0]
    n_test = len(tabular.test["y"])
    out = tabular.forget([held])
    assert out["forgotten"] == 1 and out["shards_retrained"] == []
    assert len(tabular.test["y"]) == n_test - 1 and out["model_version"] == 2
    assert len(list((tabular.path / "test").glob("g*"))) == 1


def test_reopen_checks_checksums_mac_and_version(tabular: SISAModel, tmp_path: Path) -> None:
    path = tabular.path
    backup = tmp_path / "copy"
    shutil.copytree(path, backup)
    tabular.forget(["p0001"])
    tabular.close()
    with SISAModel.open(path, key=KEY) as m:
        assert m.version == 2 and m.accuracy() is not None
    # wrong key: the manifest's keyed checksum does not match
    with pytest.raises(InputError, match="keyed checksum"):
        SISAModel.open(path, key=secrets.token_bytes(32))
    # an older copy of the folder (still holding the row) is refused by the log
    for extra in ("-wal", "-shm"):  # the copy's stale write-ahead log would shadow the new
        (backup / f"erasure-log.sqlite{extra}").unlink(missing_ok=True)
    shutil.copy(path / "erasure-log.sqlite", backup / "erasure-log.sqlite")
    with pytest.raises(InputError, match="older copy"):
        SISAModel.open(backup, key=KEY)
    # a tampered checkpoint
    ckpt = next((path / "shards" / "0").rglob("slice_2.ckpt"))
    blob = bytearray(ckpt.read_bytes())
    blob[-20] ^= 1
    ckpt.write_bytes(bytes(blob))
    # checkpoints are checked when read: every use of shard 0's refuses it
    with SISAModel.open(path, key=KEY) as m:
        with pytest.raises(InputError, match="checksum"):
            m.verify(shards=[0])
        with pytest.raises(InputError, match="checksum"):
            m.accuracy()
    # a tampered shard data file is refused when the folder is opened
    data = next((path / "shards" / "1").rglob("data.bin"))
    data.write_bytes(data.read_bytes() + b"\0")
    with pytest.raises(InputError, match="checksum"):
        SISAModel.open(path, key=KEY)


def test_edited_manifest_and_other_format_are_refused(tabular: SISAModel) -> None:
    tabular.close()
    mpath = tabular.path / "manifest.json"
    manifest = json.loads(mpath.read_text())
    manifest["config"]["aggregation"] = "vote"
    mpath.write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="edited"):
        SISAModel.open(tabular.path, key=KEY)
    manifest["format"] = "veil-sisa-model/0"
    mpath.write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="format"):
        SISAModel.open(tabular.path, key=KEY)
    with pytest.raises(InputError, match=r"no manifest\.json"):
        SISAModel.open(tabular.path / "shards", key=KEY)


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (["a", "b", None, "d"], "1 empty value"),
        (["a", "b", "b", "d"], "2 row"),
    ],
)
def test_id_column_with_nulls_or_duplicates_is_refused(
    tmp_path: Path, ids: list[str | None], message: str
) -> None:
    df = _table(4).assign(pid=ids)
    with pytest.raises(InputError, match=message) as exc:
        fit_table(df, "t", "pid", out=tmp_path / "m", key=KEY, shards=1, slices=1)
    assert "'b'" not in str(exc.value)  # counts, never the value
    assert not (tmp_path / "m").exists()


def test_too_few_rows_for_the_shards_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="too few rows for the shards"):
        fit_table(_table(20), "t", "pid", out=tmp_path / "m", key=KEY, shards=5, slices=4)
    assert not (tmp_path / "m").exists()
    assert list(tmp_path.iterdir()) == []


def test_weak_or_short_key_is_refused(tmp_path: Path) -> None:
    data, ids = _xy(40)
    trainer = SklearnShardTrainer(_logreg())
    with pytest.raises(WeakKeyError):
        SISAModel.fit(tmp_path / "m", data, ids, trainer=trainer, key=b"a" * 32, shards=2)
    with pytest.raises(KeyMissingError, match="at least 16"):
        SISAModel.fit(tmp_path / "m", data, ids, trainer=trainer, key=b"short", shards=2)
    assert not (tmp_path / "m").exists()


def test_existing_folder_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "keep.txt").write_text("x")
    data, ids = _xy(40)
    with pytest.raises(InputError, match="refusing to overwrite"):
        SISAModel.fit(
            tmp_path / "m", data, ids, trainer=SklearnShardTrainer(_logreg()), key=KEY, shards=2
        )
    assert [p.name for p in (tmp_path / "m").iterdir()] == ["keep.txt"]


def _logreg():  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression()


@pytest.mark.parametrize("incremental", [False, True])
def test_sklearn_shards_forget_and_verify_exact(tmp_path: Path, incremental: bool) -> None:
    from sklearn.linear_model import SGDClassifier

    est = SGDClassifier(loss="log_loss") if incremental else _logreg()
    data, ids = _xy()
    trainer = SklearnShardTrainer(est, n_classes=2, incremental=incremental)
    with SISAModel.fit(
        tmp_path / "m",
        data,
        ids,
        trainer=trainer,
        key=KEY,
        shards=3,
        slices=3,
        test=_xy(60, seed=9)[0],
        test_ids=[f"t{i}" for i in range(60)],
    ) as m:
        assert m.manifest["metrics"]["accuracy"] > 0.8
        out = m.forget(["id3", "id200"])
        assert out["forgotten"] == 2 and m.verify()["exact"] is True
    with SISAModel.open(tmp_path / "m", key=KEY, trainer=trainer) as m:
        assert m.predict_proba(data).shape == (300, 2)
        # another kind of trainer is refused
        with pytest.raises(InputError, match="trainer"):
            SISAModel.open(tmp_path / "m", key=KEY, trainer=TorchShardTrainer(lambda: None))


def test_user_torch_module(tmp_path: Path) -> None:
    from torch import nn

    data, ids = _xy(200)
    data = {"x": data["x"].astype(np.float32), "y": data["y"]}
    trainer = TorchShardTrainer(
        lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)), ("x",), epochs=2
    )
    with SISAModel.fit(
        tmp_path / "m",
        data,
        ids,
        trainer=trainer,
        key=KEY,
        shards=2,
        slices=2,
        aggregation="vote",
    ) as m:
        m.forget(["id7", "id8", "id150"])
        assert m.verify(shards=[0, 1])["exact"] is True
        proba = m.predict_proba(data)
        assert set(np.unique(proba)) <= {0.0, 0.5, 1.0}  # vote shares of 2 shards


def test_aggregate_mean_and_vote() -> None:
    a = np.array([[0.9, 0.1], [0.4, 0.6]])
    b = np.array([[0.6, 0.4], [0.45, 0.55]])
    c = np.array([[0.2, 0.8], [0.7, 0.3]])
    assert np.allclose(aggregate([a, b, c], "mean"), [[1.7 / 3, 1.3 / 3], [1.55 / 3, 1.45 / 3]])
    assert np.allclose(aggregate([a, b, c], "vote"), [[2 / 3, 1 / 3], [1 / 3, 2 / 3]])


def test_log_stores_ids_only_as_keyed_hashes(tabular: SISAModel) -> None:
    tabular.forget(["p0042"], reason="art 17")
    con = sqlite3.connect(tabular.path / "erasure-log.sqlite")
    rows = con.execute("SELECT id_hash, outcome FROM veil_erasure_ids").fetchall()
    con.close()
    assert len(rows) == 1 and rows[0][1] == "forgotten"
    assert len(rows[0][0]) == 64 and "p0042" not in rows[0][0]
    dump = b"".join(p.read_bytes() for p in tabular.path.glob("erasure-log.sqlite*"))
    assert b"p0042" not in dump


def test_a_second_handle_is_refused_after_another_erasure(tabular: SISAModel) -> None:
    other = SISAModel.open(tabular.path, key=KEY)
    try:
        tabular.forget(["p0002"])
        with pytest.raises(InputError, match="changed since it was opened"):
            other.forget(["p0003"])
        assert len(tabular.erasure_log()) == 2  # the refused request left no entry
    finally:
        other.close()


def test_audit_needs_forgotten_rows(tabular: SISAModel) -> None:
    from veil.audit import audit_unlearning_table

    with pytest.raises(InputError, match="no row of the table is a forgotten row"):
        audit_unlearning_table(tabular, _table())
    tabular.forget(["p0004", "p0100"])
    out = audit_unlearning_table(tabular, _table())
    assert out["forgotten"] == 2 and [r["row"] for r in out["rows"]] == [4, 100]
    assert out["retrained"]["identical"] is True
    with pytest.raises(InputError, match="fpr"):
        audit_unlearning_table(tabular, _table(), fpr=1.5)


def test_adam_is_torch_adam_bit_for_bit() -> None:
    """The trainer's Adam (no torch._dynamo import) computes what torch.optim.Adam does,
    including when resumed from a torch.optim.Adam state_dict (checkpoints of older veils)."""
    import torch
    from torch import nn

    from veil.unlearning._trainers import Adam

    def run(use_torch: bool, resume_from_torch: bool = False) -> list[bytes]:
        torch.manual_seed(3)
        m = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
        x, y = torch.randn(40, 5), torch.randint(0, 3, (40,))
        make = (
            (lambda: torch.optim.Adam(m.parameters(), lr=0.01))
            if use_torch
            else (lambda: Adam(list(m.parameters()), lr=0.01))
        )
        opt = make()
        for step in range(6):
            if step == 3:  # resume from a state_dict, as forget does from a checkpoint
                sd = opt.state_dict()
                opt = Adam(list(m.parameters()), lr=0.01) if resume_from_torch else make()
                opt.load_state_dict(sd)
            for p in m.parameters():
                p.grad = None
            nn.functional.cross_entropy(m(x[step::3]), y[step::3]).backward()
            opt.step()
        out = [p.detach().numpy().tobytes() for p in m.parameters()]
        for st in opt.state_dict()["state"].values():
            out += [v.numpy().tobytes() for v in st.values()]
        return out

    reference = run(True)
    assert run(False) == reference
    assert run(True, resume_from_torch=True) == reference
    with pytest.raises(InputError, match="not the Adam"):
        Adam([torch.zeros(2, requires_grad=True)], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": [{"params": [0, 1], "betas": (0.9, 0.999)}]}
        )


def test_user_torch_module_with_dropout_is_exact(tmp_path: Path) -> None:
    """Dropout draws from torch's global generator: each stage seeds it from its own seed,
    so resuming from a checkpoint and retraining from scratch draw the same masks."""
    import torch
    from torch import nn

    data, ids = _xy(240)
    data = {"x": data["x"].astype(np.float32), "y": data["y"]}
    trainer = TorchShardTrainer(
        lambda: nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 2)),
        ("x",),
        epochs=3,
        batch_size=16,
    )
    with SISAModel.fit(
        tmp_path / "m", data, ids, trainer=trainer, key=KEY, shards=2, slices=3
    ) as m:
        locs = m.locate(_keys(m, ids))
        late = next(i for i, k in zip(ids, _keys(m, ids), strict=True) if locs[k][1] == 2)
        torch.manual_seed(999)  # the caller's generator is elsewhere than at fit
        out = m.forget([late])  # resumes from the checkpoint after slice 1
        assert out["slices_retrained"] == {str(locs[_keys(m, [late])[0]][0]): [2]}
        torch.rand(5)  # and elsewhere again
        assert m.verify()["exact"] is True


def _keys(m: SISAModel, ids: list[str]) -> list[bytes]:
    from veil.unlearning import hash_ids
    from veil.unlearning._store import id_keys

    return id_keys(hash_ids(m.store.key, ids))


def test_sklearn_random_forest_exact_and_a_changed_model_is_caught(tmp_path: Path) -> None:
    """A randomized scikit-learn estimator (random_state from the shard's seed) unlearns
    exactly, and verify is not vacuous: a shard fitted otherwise fails it."""
    from sklearn.ensemble import RandomForestClassifier

    data, ids = _xy(240)
    trainer = SklearnShardTrainer(RandomForestClassifier(n_estimators=5), n_classes=2)
    with SISAModel.fit(
        tmp_path / "m", data, ids, trainer=trainer, key=KEY, shards=3, slices=2
    ) as m:
        out = m.forget(["id10", "id11", "id12"])
        shards = out["shards_retrained"]
        result = m.verify()
        assert result["exact"] is True and result["shards_checked"] == shards
        s = shards[0]
        state = m.trainer.loads(m.ckpt_blob(s, 1))
        state["estimator"].set_params(random_state=12345)  # same rows, other randomness
        state["estimator"].fit(m.data[s]["x"], m.data[s]["y"])
        m._blobs[(s, 1)] = m.trainer.dumps(state)
        bad = m.verify(shards=[s])
        assert bad["exact"] is False and bad["mismatched_shards"] == [s]


def test_checkpoint_format_round_trips_and_falls_back_to_torch_save() -> None:
    import torch
    from torch import nn

    data, _ = _xy(64)
    data = {"x": data["x"].astype(np.float32), "y": data["y"]}
    t = TorchShardTrainer(lambda: nn.Linear(4, 2), ("x",), epochs=1, batch_size=16)
    state = t.train_stage(t.initial_state(1), data, 5, final=True)
    blob = t.dumps(state)
    assert blob.startswith(b"veil-sisa-torch-state/2\n")
    back = t.loads(blob)
    assert t.params(back) == t.params(state)
    # resuming from the loaded state trains exactly as from the live one
    assert t.params(t.train_stage(back, data, 6, final=True)) == t.params(
        t.train_stage(state, data, 6, final=True)
    )
    # a dtype NumPy lacks: torch.save, read back the same
    odd = {"seed": 1, "module": {"w": torch.ones(2, dtype=torch.bfloat16)}, "optimizer": None}
    blob = t.dumps(odd)
    assert not blob.startswith(b"veil-sisa") and torch.equal(
        t.loads(blob)["module"]["w"], odd["module"]["w"]
    )


def test_another_log_is_refused_with_a_clear_message(tabular: SISAModel, tmp_path: Path) -> None:
    """Opening skips the schema check; a log without the tables still gets the clear error."""
    tabular.close()
    with pytest.raises(InputError, match="has no record of the model"):
        SISAModel.open(tabular.path, key=KEY, log_url=f"sqlite:///{tmp_path / 'other.sqlite'}")


def test_a_forget_flushes_the_new_files_and_their_folders_before_the_manifest_names_them(
    tabular: SISAModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest's rename commits a new version and the old generations are deleted
    after it: each file it names, and the folders holding their names, must be on the disk
    first, or a power loss leaves a manifest pointing at empty files and no old version."""
    import os

    synced: list[str] = []
    real = os.fsync

    def record(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("[hardware] no /proc to name the flushed descriptors")
    old = {c["sha256"] for c in tabular.manifest["shards"][1]["checkpoints"] if c is not None}
    monkeypatch.setattr(os, "fsync", record)
    target = next(f"p{i:04d}" for i in range(240) if tabular.shard_of(f"p{i:04d}") == 1)
    tabular.forget([target], reason="durability")
    root = tabular.path.resolve()
    manifest = json.loads((root / "manifest.json").read_text())
    # the manifest's temporary file is flushed before its rename, the model folder after
    tmp_at = next(i for i, p in enumerate(synced) if p.endswith(".manifest.json.tmp"))
    assert synced[-1] == str(root)
    before = set(synced[:tmp_at])
    entries = [c for c in manifest["shards"][1]["checkpoints"] if c is not None]
    entries.append(manifest["shards"][1]["data"])
    fresh = [e for e in entries if e["sha256"] not in old]  # the rest: links to clean slices
    assert fresh
    for e in entries:
        path = root / e["path"]
        if e in fresh:
            assert str(path) in before, e["path"]
        assert str(path.parent) in before, e["path"]
    assert str(root / "shards" / "1") in before and str(root) in before
