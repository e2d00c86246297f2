"""SISA training (Bourtoule et al., IEEE S&P 2021): sharded, isolated, sliced, aggregated.

The training rows are split into ``shards`` disjoint shards (a seeded permutation, or with
DP training each row's keyed id hash: :mod:`veil.unlearning._dp`) and each shard into
``slices`` slices. Shard ``s`` is trained in stages: stage ``j`` continues from
stage ``j-1``'s state on the shard's slices ``0..j`` and is checkpointed. Each shard has its
own model; a prediction aggregates them (``mean``, the default, or ``vote``). The staged
training, checkpoints and aggregation are :mod:`veil.unlearning._stages`; this module keeps
the model folder, its versions and the requests (fit, open, forget, verify).

**Forgetting** a row of shard ``s``, slice ``j`` removes it and retrains only shard ``s``,
from its checkpoint after slice ``j-1`` (the last state that never saw the row) through the
last slice. No other shard saw the row, so none changes.

**Exactness.** Every stage's randomness (shuffling) comes from a seed derived from (seed,
shard, slice) alone, the initial weights from (seed, shard), and PyTorch runs with
deterministic algorithms on one thread. The state after a forget is therefore the state that
training from scratch on the remaining rows produces, bit for bit, and :meth:`SISAModel.verify`
checks exactly that by retraining the affected shards from scratch and comparing every
parameter's bytes (and that no forgotten id's hash is left in the stored rows).

What is not unlearned: the preprocessing learned at fit time (category lists, numeric scaling
of the tabular model; see :mod:`veil.unlearning._tabular`), and a privacy budget spent by DP
training is not refunded.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veil._errors import InputError, LedgerUnavailableError, OutputError, VerificationError
from veil._progress import NullProgress, Progress
from veil.io import fsync_path
from veil.tabular._keys import Secret
from veil.unlearning._log import ErasureLog
from veil.unlearning._partition import partition_rows
from veil.unlearning._stages import (
    AGGREGATIONS,
    Arrays,
    aggregate_shards,
    checkpoint_blobs,
    replay,
    subset,
    train_shard,
    write_shard,
)
from veil.unlearning._store import (
    ModelStore,
    dump_arrays,
    folder_lock,
    hash_ids,
    id_keys,
    load_arrays,
    write_shard_blobs,
)
from veil.unlearning._trainers import ShardTrainer, derive_seed

__all__ = ["SISAModel", "default_log_url"]

log = logging.getLogger(__name__)


def default_log_url(path: Path) -> str:
    """The default erasure log: a SQLite file inside the model folder."""
    return f"sqlite:///{Path(path).resolve() / 'erasure-log.sqlite'}"


def checked_log(store: ModelStore, manifest: dict[str, Any], log_url: str | None) -> ErasureLog:
    """The model's erasure log (``log_url``, else the SQLite file in its folder), checked to
    record the model at the version of ``manifest``: an older copy of the folder (it may
    hold erased rows) or one ahead of its log is refused. The caller closes it."""
    if log_url is None:
        if not manifest["log"]["local"]:
            raise InputError(
                f"{store.path} keeps its erasure log at {manifest['log']['where']}",
                hint="pass that URL with --log (the password is not stored)",
            )
        log_url = default_log_url(store.path)
    # the model's fit created the tables: no schema check on the common path
    elog = ErasureLog(log_url, create=False)
    try:
        try:
            latest = elog.latest_version(manifest["model_id"])
        except LedgerUnavailableError:  # no tables (another log?) or unreachable
            elog.close()
            elog = ErasureLog(log_url)  # checks the schema; an outage raises here
            latest = elog.latest_version(manifest["model_id"])
        if latest is None:
            raise InputError(
                f"the erasure log {elog.where} has no record of the model in {store.path}",
                hint="pass the log the model was fitted with (--log URL)",
            )
        if latest != manifest["version"]:
            raise InputError(
                f"{store.path} is model version {manifest['version']} but the erasure log "
                f"records version {latest}: this folder is "
                f"{'an older copy (it may hold erased rows)' if latest > manifest['version'] else 'ahead of its log'}",
                hint="use the current model folder; never restore a copy from before an erasure",
            )
    except BaseException:
        elog.close()
        raise
    return elog


class SISAModel:
    """A SISA-trained classifier in a model folder, with its erasure log.

    Build one with :meth:`fit` (or :func:`veil.unlearning.fit_table` from a table), reopen it
    with :meth:`open`; :meth:`forget` erases rows by id, :meth:`verify` proves the erasure
    exact. The key (at least 16 random bytes) hashes the ids and authenticates the manifest.

    Examples
    --------
    >>> import numpy as np, secrets, tempfile
    >>> from sklearn.linear_model import LogisticRegression
    >>> from veil.unlearning import SklearnShardTrainer
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 3)); y = (x[:, 0] > 0).astype(np.int64)
    >>> d = tempfile.mkdtemp() + "/m"
    >>> key = secrets.token_bytes(32)
    >>> m = SISAModel.fit(d, {"x": x, "y": y}, [str(i) for i in range(200)],
    ...                   trainer=SklearnShardTrainer(LogisticRegression()), key=key,
    ...                   shards=4, slices=1)
    >>> shard = m.shard_of("7")
    >>> m.forget(["7"])["shards_retrained"] == [shard], m.shard_of("7")
    (True, None)
    >>> m.verify()["exact"]
    True
    """

    def __init__(
        self,
        store: ModelStore,
        manifest: dict[str, Any],
        trainer: ShardTrainer,
        log: ErasureLog,
    ) -> None:
        self.store = store
        self.manifest = manifest
        self.trainer = trainer
        self.log = log
        self.open_seconds = 0.0
        self._load()

    # -- properties -------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.manifest["config"])

    @property
    def version(self) -> int:
        return int(self.manifest["version"])

    @property
    def model_id(self) -> str:
        return str(self.manifest["model_id"])

    def _load(self) -> None:
        """Read the shards' rows and the held-out rows (each file checked against its
        checksum). Checkpoints are read when first needed (:meth:`ckpt_blob`), checked the
        same way: an erasure reads only its shard's, not every shard's."""
        self.data: list[Arrays] = []
        for shard in self.manifest["shards"]:
            self.data.append(load_arrays(self.store.read_file(shard["data"])))  # type: ignore[arg-type]
        self._blobs: dict[tuple[int, int], bytes | None] = {}
        test = self.manifest.get("test")
        self.test: Arrays | None = (
            None if test is None else load_arrays(self.store.read_file(test))  # type: ignore[assignment]
        )

    def ckpt_blob(self, shard: int, stage: int) -> bytes | None:
        """Shard ``shard``'s checkpoint after slice ``stage`` (``None``: not kept), read and
        checked against the manifest's checksum on first use."""
        where = (shard, stage)
        if where not in self._blobs:
            entry = self.manifest["shards"][shard]["checkpoints"][stage]
            self._blobs[where] = None if entry is None else self.store.read_file(entry)
        return self._blobs[where]

    def close(self) -> None:
        self.log.close()

    def __enter__(self) -> SISAModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- fit --------------------------------------------------------------------------------
    @classmethod
    def fit(
        cls,
        out: str | Path,
        train: Arrays,
        train_ids: Sequence[str],
        *,
        trainer: ShardTrainer,
        key: Secret | bytes,
        shards: int = 5,
        slices: int = 4,
        seed: int = 0,
        aggregation: str = "mean",
        test: Arrays | None = None,
        test_ids: Sequence[str] | None = None,
        log_url: str | None = None,
        monolithic: bool = True,
        meta: dict[str, Any] | None = None,
        progress: Progress | None = None,
        partition: str = "permutation",
        monolithic_trainer: ShardTrainer | None = None,
    ) -> SISAModel:
        """Train ``shards`` x ``slices`` SISA shards and write the model folder ``out``.

        Parameters
        ----------
        out
            A new folder (or an empty one). The whole folder appears at once, or not at all.
        train, train_ids
            The training arrays (the trainer's ``input_keys`` and ``"y"``) and one distinct
            id per row (text); only their keyed hashes are stored.
        test, test_ids
            Held-out rows for accuracy (optional); forgetting an id also removes it here.
        monolithic
            Also train one model on all the rows the same way (one shard, one slice): the
            baseline for accuracy and the full-retraining time ``forget`` compares with.
        log_url
            The erasure log (SQLAlchemy URL); default a SQLite file in ``out``.
        partition
            ``"permutation"`` (default): a seeded permutation split into equal shards and
            slices. ``"keyed"``: each row's shard and slice from its keyed id hash alone
            (sizes vary a little), which DP training needs (see :mod:`veil.unlearning._dp`).
        monolithic_trainer
            The baseline's trainer when it differs from the shards' (a DP schedule
            calibrated for the whole table); default ``trainer``.
        """
        progress = progress or NullProgress()
        out = Path(out)
        store_key = ModelStore(out, key).key
        if aggregation not in AGGREGATIONS:
            raise InputError(
                f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {aggregation!r}"
            )
        if shards < 1 or slices < 1:
            raise InputError(
                f"shards and slices must be at least 1, got {shards} and {slices}",
                hint="e.g. --shards 5 --slices 4",
            )
        n = len(train["y"])
        if len(train_ids) != n:
            raise InputError(f"{len(train_ids)} ids for {n} training rows")
        if n < shards * slices:
            raise InputError(
                f"too few rows for the shards: {n} training row(s) cannot fill "
                f"{shards} shard(s) x {slices} slice(s) (every slice needs at least one row)",
                hint="use fewer shards or slices, or more data",
            )
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise InputError(
                f"{out} already exists and is not an empty folder; refusing to overwrite it",
                hint="give a new folder to --out",
            )
        hashes = hash_ids(store_key, list(train_ids))
        if len(set(id_keys(hashes))) != n:
            raise InputError(
                "the ids are not distinct; every row needs its own id",
                hint="deduplicate the id column",
            )
        t_hashes = None
        if test is not None:
            t_hashes = hash_ids(store_key, list(test_ids or []))
            if len(t_hashes) != len(test["y"]):
                raise InputError(f"{len(t_hashes)} test ids for {len(test['y'])} test rows")
            if set(id_keys(t_hashes)) & set(id_keys(hashes)):
                raise InputError("an id is both a training and a held-out row")
        if partition not in ("permutation", "keyed"):
            raise InputError(f"partition must be 'permutation' or 'keyed', got {partition!r}")
        shard_rows, slice_parts = partition_rows(hashes, n, shards, slices, seed, partition)
        shard_data: list[Arrays] = []
        for rows, slice_of in zip(shard_rows, slice_parts, strict=True):
            d = {k: np.asarray(v)[rows] for k, v in train.items()}
            d["slice"] = slice_of
            d["id"] = hashes[rows]
            shard_data.append(d)
        # Imports first (torch, and what its optimizers import): no timing should include them.
        getattr(trainer, "warm_up", lambda: None)()
        initial = [trainer.initial_state(derive_seed(seed, s)) for s in range(shards)]
        mono_trainer = monolithic_trainer or trainer
        mono_init = mono_trainer.initial_state(derive_seed(seed, -1)) if monolithic else None
        t0, c0 = time.perf_counter(), time.process_time()
        states: list[list[Any]] = []
        with progress.task("SISA shards (stages)", total=shards * slices) as task:
            for s, d in enumerate(shard_data):
                states.append(
                    train_shard(
                        trainer, d, seed=seed, shard=s, slices=slices, state=initial[s], task=task
                    )
                )
        sisa_seconds = time.perf_counter() - t0
        sisa_cpu = time.process_time() - c0
        mono: dict[str, Any] | None = None
        if monolithic:
            t1, c1 = time.perf_counter(), time.process_time()
            with progress.task("monolithic baseline", total=1) as task:
                whole = {k: np.asarray(v) for k, v in train.items()}
                whole["slice"] = np.zeros(n, dtype=np.int64)
                mono_state = train_shard(
                    mono_trainer, whole, seed=seed, shard=-1, slices=1, state=mono_init
                )[-1]
                task.advance()
            mono_seconds = time.perf_counter() - t1
            mono_cpu = time.process_time() - c1
            mono_acc = None
            if test is not None and len(test["y"]):
                pred = mono_trainer.predict_proba(mono_state, test).argmax(axis=1)
                mono_acc = float((pred == test["y"]).mean())
            mono = {"accuracy": mono_acc, "seconds": mono_seconds, "cpu_seconds": mono_cpu}
        model_id = uuid.uuid4().hex
        staging = out.parent / f".{out.name}.staging-{model_id[:12]}"
        store = ModelStore(staging, store_key)
        manifest: dict[str, Any] = {
            "model_id": model_id,
            "version": 1,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "config": {
                "shards": shards,
                "slices": slices,
                "seed": seed,
                "aggregation": aggregation,
                "partition": partition,
                "trainer": trainer.describe(),
                **(meta or {}),
            },
            "log": {"local": log_url is None, "where": None},
            "shards": [],
            "test": None,
            "touched_shards": [],
            "forgotten": 0,
        }
        try:
            for s, (d, st) in enumerate(zip(shard_data, states, strict=True)):
                manifest["shards"].append(write_shard(store, trainer, s, 1, d, st))
            if test is not None:
                t = {k: np.asarray(v) for k, v in test.items()}
                t["id"] = t_hashes  # type: ignore[assignment]
                manifest["test"] = store.write_file("test/g1.bin", dump_arrays(t))
            accuracy = None
            if test is not None and len(test["y"]):
                proba = aggregate_shards(
                    trainer, [st[-1] for st in states], shard_data, test, aggregation
                )
                accuracy = float((proba.argmax(axis=1) == test["y"]).mean())
            manifest["metrics"] = {
                "accuracy": accuracy,
                "monolithic": mono,
                "seconds": sisa_seconds,
                "cpu_seconds": sisa_cpu,
                "n_train": n,
                "n_test": 0 if test is None else len(test["y"]),
            }
            if log_url is not None:
                from veil.dp._store import redact_url

                manifest["log"]["where"] = redact_url(log_url)
            store.write_manifest(manifest)
            try:
                if out.exists():
                    out.rmdir()
                os.replace(staging, out)
                fsync_path(out.parent)  # the model's name, after its files (write_manifest)
            except OSError as exc:
                raise OutputError(
                    f"cannot create {out} ({exc.strerror or type(exc).__name__})",
                    hint="check the parent folder exists and is writable",
                ) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        try:
            elog = ErasureLog(log_url or default_log_url(out))
            elog.record(model_id, kind="fit", model_version=1, id_hashes=[], seconds=sisa_seconds)
        except BaseException:
            shutil.rmtree(out, ignore_errors=True)
            raise
        final = cls(ModelStore(out, store_key), manifest, trainer, elog)
        return final

    # -- open -------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        key: Secret | bytes,
        trainer: ShardTrainer | None = None,
        log_url: str | None = None,
    ) -> SISAModel:
        """Reopen a model folder: the manifest's MAC, the stored rows' checksums and the erasure
        log are checked (each checkpoint's checksum when it is first read).

        ``trainer`` is needed for models trained from Python (scikit-learn, a user's module);
        the built-in tabular model rebuilds its own from the manifest. The folder must be at
        the version the erasure log last recorded: an older copy (restored from before an
        erasure, still holding the forgotten rows) is refused.
        """
        store = ModelStore(path, key)
        manifest = store.read_manifest()
        described = manifest["config"]["trainer"]
        if trainer is None:
            from veil.unlearning._tabular import trainer_from_manifest

            trainer = trainer_from_manifest(manifest, store.key)
        # imports (torch) now, not in the first request's timing
        getattr(trainer, "warm_up", lambda: None)()
        t0 = time.perf_counter()
        given = trainer.describe()
        if (given.get("kind"), given.get("name"), given.get("dp")) != (
            described.get("kind"),
            described.get("name"),
            described.get("dp"),
        ):
            raise InputError(
                f"{store.path} was trained with a {described.get('kind')} trainer named "
                f"{described.get('name')!r}{' with DP-SGD' if described.get('dp') else ''}; "
                "the trainer given is another",
                hint="pass the trainer the model was fitted with",
            )
        elog = checked_log(store, manifest, log_url)
        try:
            model = cls(store, manifest, trainer, elog)
        except BaseException:
            elog.close()
            raise
        model.open_seconds = time.perf_counter() - t0
        return model

    # -- prediction -------------------------------------------------------------------------
    def final_states(self) -> list[Any]:
        """Each shard's state after its last slice."""
        last = self.config["slices"] - 1
        blobs = [self.ckpt_blob(s, last) for s in range(len(self.data))]
        return [self.trainer.loads(b) if b is not None else None for b in blobs]

    def predict_proba(self, data: Arrays) -> np.ndarray:
        """Class probabilities aggregated over the shards (``mean`` or ``vote``)."""
        return aggregate_shards(
            self.trainer, self.final_states(), self.data, data, self.config["aggregation"]
        )

    def shard_of(self, identifier: str) -> int | None:
        """The shard holding the row with this id (``None``: not a training row)."""
        h = id_keys(hash_ids(self.store.key, [identifier]))[0]
        where = self.locate([h]).get(h)
        return None if where is None else where[0]

    def accuracy(self) -> float | None:
        """Held-out accuracy of the current version (computed once per version)."""
        if self.test is None or not len(self.test["y"]):
            return None
        memo = self.__dict__.get("_accuracy")
        if memo is not None and memo[0] == self.version:
            return float(memo[1])
        proba = self.predict_proba(self.test)
        value = float((proba.argmax(axis=1) == self.test["y"]).mean())
        self.__dict__["_accuracy"] = (self.version, value)
        return value

    # -- forget -----------------------------------------------------------------------------
    def forget(
        self, ids: Sequence[str], *, reason: str | None = None, progress: Progress | None = None
    ) -> dict[str, Any]:
        """Erase the rows with these ids; retrain only their shards, from the last clean slice.

        An id forgotten before is a no-op, recorded in the log. An id that is neither a
        row of the model nor forgotten before fails the whole request (nothing retrained,
        nothing logged). One erasure at a time per folder (a lock file); the folder must
        still be at the version this object opened. Returns ``veil unlearn forget --json``'s
        keys. ``seconds`` and ``cpu_seconds`` cover the whole erasure: the lock, the
        retraining, writing the new version and the log entry (not the ``accuracy``
        evaluated afterwards).
        """
        clock = (time.perf_counter(), time.process_time())
        with folder_lock(self.path):
            on_disk = self.store.read_version()
            if on_disk != self.version:
                raise InputError(
                    f"{self.path} changed since it was opened (now version "
                    f"{on_disk}, opened at {self.version}): another erasure ran",
                    hint="reopen the model and submit the request again",
                )
            result = self._forget(ids, reason=reason, progress=progress, clock=clock)
        result["accuracy"] = self.accuracy()
        return result

    def _forget(
        self,
        ids: Sequence[str],
        *,
        reason: str | None,
        progress: Progress | None,
        clock: tuple[float, float],
    ) -> dict[str, Any]:
        t0, c0 = clock
        progress = progress or NullProgress()
        unique = list(dict.fromkeys(str(i) for i in ids))
        if not unique:
            raise InputError("no id to forget", hint="pass --id X or --ids FILE")
        hashes = id_keys(hash_ids(self.store.key, unique))
        already_set = self.log.forgotten(self.model_id, among=[h.hex() for h in hashes])
        already = [h for h in hashes if h.hex() in already_set]
        todo = [h for h in hashes if h.hex() not in already_set]
        where = self.locate(todo)
        in_test = self.in_test(todo)
        unknown = [h for h in todo if h not in where and h not in in_test]
        if unknown:
            raise InputError(
                f"{len(unknown)} of {len(unique)} id(s) are not rows of this model (neither "
                "training nor held-out rows, nor forgotten before); nothing was retrained or "
                "logged",
                hint="ids are matched exactly as text against the id column given to fit",
            )
        todo_set = set(todo)
        affected: dict[int, int] = {}
        for h in todo:
            if h in where:
                s, j = where[h]
                affected[s] = min(j, affected.get(s, j))
        test_hit = bool(in_test)
        slices = self.config["slices"]
        seed = self.config["seed"]
        manifest = {**self.manifest, "shards": list(self.manifest["shards"])}
        new_data = dict(enumerate(self.data))
        new_blobs: dict[int, list[bytes | None]] = {}
        reused: dict[int, list[dict[str, str] | None]] = {}
        version = self.version
        retrained_slices: dict[int, list[int]] = {}
        if todo:
            version += 1
            total = sum(slices - j for j in affected.values())
            with progress.task("retraining affected shards (stages)", total=total) as task:
                for s, j in sorted(affected.items()):
                    d = self.data[s]
                    keep = np.array([h not in todo_set for h in id_keys(d["id"])], dtype=bool)
                    kept = subset(d, keep)
                    prev = None
                    if j > 0:
                        blob = self.ckpt_blob(s, j - 1)
                        prev = self.trainer.loads(blob) if blob is not None else None
                        if prev is None:  # a trainer without intermediate checkpoints
                            prev = replay(self.trainer, kept, seed, s, slices, j)
                    states = train_shard(
                        self.trainer,
                        kept,
                        seed=seed,
                        shard=s,
                        slices=slices,
                        start=j,
                        state=prev,
                        task=task,
                    )
                    new_data[s] = kept
                    # the clean slices' checkpoints are linked into the new version, not
                    # read and written again (:meth:`ModelStore.link_file`)
                    clean: list[bytes | None] = [None] * j
                    new_blobs[s] = clean + checkpoint_blobs(self.trainer, states)
                    reused[s] = list(self.manifest["shards"][s]["checkpoints"][:j])
                    retrained_slices[s] = list(range(j, slices))
        new_test = self.test
        if test_hit and self.test is not None:
            keep_test = np.array([h not in todo_set for h in id_keys(self.test["id"])], dtype=bool)
            new_test = subset(self.test, keep_test)

        def write_version() -> None:
            for s in affected:
                manifest["shards"][s] = write_shard_blobs(
                    self.store, s, version, new_data[s], new_blobs[s], reused[s]
                )
            if test_hit and new_test is not None:
                manifest["test"] = self.store.write_file(
                    f"test/g{version}.bin", dump_arrays(new_test)
                )
            manifest["version"] = version
            manifest["touched_shards"] = sorted({*manifest["touched_shards"], *affected})
            manifest["forgotten"] = int(manifest["forgotten"]) + len(todo)

        mono = (self.manifest.get("metrics") or {}).get("monolithic") or {}
        full = mono.get("seconds")
        full_cpu = mono.get("cpu_seconds")
        pairs = [(h.hex(), "already_forgotten") for h in already] + [
            (h.hex(), "forgotten") for h in todo
        ]

        written: list[dict[str, Any]] = []

        def commit() -> None:
            if todo:
                written.append(self.store.write_manifest(manifest))

        try:
            if todo:
                write_version()
            request_id = self.log.record(
                self.model_id,
                kind="forget",
                model_version=version,
                id_hashes=pairs,
                reason=reason,
                forgotten=len(todo),
                already=len(already),
                shards=sorted(affected),
                slices=retrained_slices,
                seconds=time.perf_counter() - t0,  # up to this entry
                before_commit=commit,
            )
        except BaseException:
            self.store.sweep(self.manifest)  # drop the new files; the old version stays current
            raise
        if todo:
            self.manifest = written[0]
            self.store.sweep(self.manifest)
            self.data = [new_data[s] for s in range(len(self.data))]
            for s, blobs in new_blobs.items():
                # the clean slices' blobs stay cached as they were (the same bytes)
                self._blobs.update({(s, k): b for k, b in enumerate(blobs) if k >= len(reused[s])})
            if test_hit:
                self.test = new_test
        seconds = time.perf_counter() - t0
        cpu_seconds = time.process_time() - c0
        return {
            "request_id": request_id,
            "forgotten": len(todo),
            "already_forgotten": len(already),
            "shards_retrained": sorted(affected),
            "slices_retrained": {str(s): v for s, v in sorted(retrained_slices.items())},
            "seconds": seconds,
            "full_retrain_seconds": full,
            "speedup": None if not full or not seconds else full / seconds,
            "cpu_seconds": cpu_seconds,
            "full_retrain_cpu_seconds": full_cpu,
            "speedup_cpu": None if not full_cpu or not cpu_seconds else full_cpu / cpu_seconds,
            "accuracy": None,  # set by forget(), outside the timing
            "model_version": self.version,
        }

    def locate(self, keys: Sequence[bytes]) -> dict[bytes, tuple[int, int]]:
        """(shard, slice) of each training row among these id hashes (vectorized lookup)."""
        if not keys:
            return {}
        query = np.frombuffer(b"".join(keys), dtype="V32")
        out: dict[bytes, tuple[int, int]] = {}
        for s, d in enumerate(self.data):
            ids = np.ascontiguousarray(d["id"]).view("V32").ravel()
            for i in np.flatnonzero(np.isin(ids, query)):
                out[d["id"][i].tobytes()] = (s, int(d["slice"][i]))
        return out

    def training_mask(self, keys: Sequence[bytes]) -> np.ndarray:
        """Which of these id hashes are training rows of the model."""
        query = np.frombuffer(b"".join(keys), dtype="V32")
        stored = [np.ascontiguousarray(d["id"]).view("V32").ravel() for d in self.data]
        return np.isin(query, np.concatenate(stored)) if stored else np.zeros(len(keys), bool)

    def in_test(self, keys: Sequence[bytes]) -> set[bytes]:
        """The id hashes among these that are held-out rows."""
        if self.test is None or not keys:
            return set()
        ids = np.ascontiguousarray(self.test["id"]).view("V32").ravel()
        query = np.frombuffer(b"".join(keys), dtype="V32")
        # the stored ids are tested against the (few) query ids: np.isin then compares
        # element-wise instead of sorting every stored id (tens of ms per request)
        found = ids[np.isin(ids, query)]
        return {h.tobytes() for h in found}

    # -- verify -----------------------------------------------------------------------------
    def verify(
        self, *, shards: Sequence[int] | None = None, progress: Progress | None = None
    ) -> dict[str, Any]:
        """Retrain shards from scratch on their remaining rows; compare every parameter's bytes.

        Checks the shards forgetting retrained (all shards if none was), or ``shards``. Also
        checks that no id the log records as forgotten is still among the stored rows.
        """
        t0 = time.perf_counter()
        progress = progress or NullProgress()
        n_shards = len(self.data)
        if shards is None:
            shards = self.manifest["touched_shards"] or list(range(n_shards))
        bad = [s for s in shards if not 0 <= int(s) < n_shards]
        if bad:
            raise InputError(f"the model has shards 0..{n_shards - 1}; asked for another")
        forgotten = {bytes.fromhex(h) for h in self.log.forgotten(self.model_id)}
        present = sum(
            1
            for d in [*self.data, *([self.test] if self.test is not None else [])]
            for h in id_keys(d["id"])
            if h in forgotten
        )
        slices = self.config["slices"]
        mismatched: list[int] = []
        with progress.task("retraining shards from scratch", total=len(shards) * slices) as task:
            for s in sorted(int(x) for x in shards):
                fresh = train_shard(
                    self.trainer,
                    self.data[s],
                    seed=self.config["seed"],
                    shard=s,
                    slices=slices,
                    task=task,
                )
                for j, st in enumerate(fresh):
                    blob = self.ckpt_blob(s, j)
                    if blob is None:
                        continue
                    if self.trainer.params(st) != self.trainer.params(self.trainer.loads(blob)):
                        mismatched.append(s)
                        break
        exact = not mismatched and present == 0
        return {
            "exact": exact,
            "shards_checked": sorted(int(x) for x in shards),
            "mismatched_shards": mismatched,
            "forgotten_rows_present": present,
            "model_version": self.version,
            "seconds": time.perf_counter() - t0,
        }

    def require_exact(self, result: dict[str, Any]) -> None:
        """Raise :class:`~veil.VerificationError` (exit 4) for a failed :meth:`verify`."""
        if not result["exact"]:
            raise VerificationError(
                f"unlearning is not exact: {len(result['mismatched_shards'])} shard(s) differ "
                f"from retraining without the forgotten rows, and "
                f"{result['forgotten_rows_present']} forgotten row(s) are still stored",
                hint="retrain the model from the source data without the erased ids",
            )

    def erasure_log(self) -> list[dict[str, Any]]:
        return self.log.requests(self.model_id)
