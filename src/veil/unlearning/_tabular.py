"""SISA training of veil's tabular classifier straight from a table (``veil unlearn fit``).

The table is split into training and held-out rows (seeded), encoded with
:class:`veil.train.TabularEncoder` (categories learned from the training rows, numerics
standardized; the id column is never a feature) and trained with
:class:`~veil.unlearning.TorchShardTrainer` over :func:`veil.train.make_tabular_mlp`.

Privacy semantics: the unit of erasure is one row (one id). What forgetting removes is the
row's influence on the shard models' weights and the row itself from the stored training and
held-out data. What it does not remove: the encoder learned at fit time (each categorical
column's list of values and the numeric columns' mean and standard deviation). A value that
only an erased row had stays in the category list (its embedding is never trained once the
row is gone: its gradient is zero). Pass ``categories=``/``numeric_stats=`` built from public
information to keep data-derived values out of the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError, SchemaError
from veil._progress import Progress
from veil.tabular._keys import Secret
from veil.unlearning._sisa import SISAModel
from veil.unlearning._store import ModelStore
from veil.unlearning._trainers import TorchShardTrainer

if TYPE_CHECKING:
    import pandas as pd

    from veil.train import TabularEncoder
    from veil.unlearning._dp import DPSchedule

__all__ = ["fit_table", "id_strings", "table_arrays", "trainer_from_manifest"]

TABULAR_TRAINER = "veil-tabular"


def id_strings(frame: pd.DataFrame, id_column: str) -> list[str]:
    """The id column as text, refused when it has nulls or duplicates (counts only)."""
    import pandas as pd

    if id_column not in frame.columns:
        raise SchemaError(
            f"id column {id_column!r} is not in the table ({len(frame.columns)} columns)",
            hint="pass --id-column with the column that identifies a person's row",
        )
    col = frame[id_column]
    nulls = int(col.isna().sum())
    if pd.api.types.is_float_dtype(col) and col.dropna().mod(1).eq(0).all():
        col = col.astype("Int64")
    text = col.astype(str)
    dups = int(text[col.notna()].duplicated(keep=False).sum())
    if nulls or dups:
        raise InputError(
            f"id column {id_column!r} has {nulls} empty value(s) and {dups} row(s) sharing an "
            "id with another row; every row needs its own id to be erasable",
            hint="fill and deduplicate the id column (one row per id)",
        )
    return text.tolist()


def _make_trainer(
    encoder: TabularEncoder,
    hidden: Sequence[int],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    schedule: DPSchedule | None = None,
    key: Secret | None = None,
) -> TorchShardTrainer:
    from veil.train import make_tabular_mlp

    cards = encoder.cardinalities
    n_num, n_cls = len(encoder.numeric_), len(encoder.classes_)
    hidden = tuple(int(h) for h in hidden)

    def factory() -> Any:
        return make_tabular_mlp(cards, n_num, n_cls, hidden)

    common: dict[str, Any] = {
        "input_keys": ("x_cat", "x_num"),
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "name": TABULAR_TRAINER,
        "extra": {"hidden": list(hidden)},
    }
    if schedule is None:
        return TorchShardTrainer(factory, **common)
    from veil.unlearning._dp import DPTorchShardTrainer

    assert key is not None
    return DPTorchShardTrainer(factory, **common, schedule=schedule, noise_key=_noise_key(key))


def _noise_key(key: Secret) -> bytes:
    """The subkey that seeds DP-SGD's sampling and noise (never stored)."""
    from veil.tabular._keys import derive_subkey

    return derive_subkey(key, "unlearning-dpsgd-noise").reveal()


def warm_up() -> None:
    """Import torch, its optimizer machinery (see :meth:`TorchShardTrainer.warm_up`) and
    veil's tabular model."""
    import sqlalchemy.dialects.sqlite  # noqa: F401  (the default erasure log's driver)

    import veil.train  # noqa: F401

    TorchShardTrainer(lambda: None).warm_up()  # type: ignore[arg-type, return-value]


def trainer_from_manifest(manifest: Mapping[str, Any], key: Secret) -> TorchShardTrainer:
    """Rebuild the tabular trainer a model folder was fitted with (``key``: the erasure
    key, which seeds a DP model's noise)."""
    from veil.train import TabularEncoder
    from veil.unlearning._dp import DPSchedule

    cfg = manifest["config"]
    t = cfg["trainer"]
    if t.get("name") != TABULAR_TRAINER or "encoder" not in cfg:
        raise InputError(
            f"this model was trained from Python with a {t.get('kind')} trainer "
            f"({t.get('name')!r}); reopen it with SISAModel.open(..., trainer=...)",
        )
    encoder = TabularEncoder.from_dict(cfg["encoder"])
    schedule = DPSchedule(**t["dp"]) if t.get("dp") else None
    return _make_trainer(
        encoder,
        t["hidden"],
        int(t["epochs"]),
        int(t["batch_size"]),
        float(t["learning_rate"]),
        schedule,
        key,
    )


def table_arrays(encoder: TabularEncoder, frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Encode rows for the tabular model (``y`` only where the target is present)."""
    x_cat, x_num = encoder.transform(frame)
    out = {"x_cat": x_cat.numpy(), "x_num": x_num.numpy()}
    if encoder.target in frame.columns:
        out["y"] = encoder.encode_target(frame[encoder.target]).numpy()
    return out


def fit_table(
    frame: pd.DataFrame,
    target: str,
    id_column: str,
    *,
    out: str | Path,
    key: Secret | bytes,
    shards: int = 5,
    slices: int = 4,
    epochs: int = 5,
    batch_size: int = 128,
    learning_rate: float = 5e-3,
    hidden: Sequence[int] = (128,),
    aggregation: str = "mean",
    test_fraction: float = 0.2,
    drop: Sequence[str] = (),
    seed: int = 0,
    log_url: str | None = None,
    monolithic: bool = True,
    progress: Progress | None = None,
    epsilon: float | None = None,
    delta: float = 1e-5,
    max_grad_norm: float = 1.0,
    accountant: str = "prv",
    ledger: Any = None,
    dataset_name: str | None = None,
    fingerprint: str | None = None,
) -> SISAModel:
    """Fit veil's tabular classifier SISA-style on a table; write the model folder ``out``.

    Rows without a target are left out. The id column identifies each row for erasure
    (text; no nulls, no duplicates) and is never a feature.

    With ``epsilon``, every shard trains with DP-SGD so that the whole model is
    (epsilon, delta)-DP with respect to the training rows (parallel composition over the
    disjoint shards; :mod:`veil.unlearning._dp`); with a ``ledger`` (a
    :class:`veil.dp.BudgetLedger`) and ``dataset_name`` the fit is paid for there once,
    reserved before the first step and committed when the folder is written. Erasures
    never refund it. The monolithic baseline is trained with its own DP-SGD schedule for
    the whole table; only its accuracy and time leave the process (not charged, as
    ``veil train``'s non-private baseline).

    Examples
    --------
    >>> import secrets, tempfile
    >>> from veil.data import adult_frame
    >>> df = adult_frame().head(400).reset_index(names="rid")
    >>> m = fit_table(df, "salary-class", "rid", out=tempfile.mkdtemp() + "/m",
    ...               key=secrets.token_bytes(32), shards=2, slices=2, epochs=1)
    >>> m.config["shards"], m.forget(["5"])["forgotten"]
    (2, 1)
    """
    from veil.train import TabularEncoder

    if not 0 <= test_fraction < 1:
        raise InputError(f"test_fraction must be in [0, 1), got {test_fraction!r}")
    if target not in frame.columns:
        raise SchemaError(
            f"target column {target!r} is not in the table ({len(frame.columns)} columns)",
            hint="pass --target with one of the table's column names",
        )
    if target == id_column:
        raise InputError("the id column cannot be the target")
    ids = np.asarray(id_strings(frame, id_column), dtype=object)
    has_target = frame[target].notna().to_numpy()
    df = frame.loc[has_target]
    ids = ids[has_target]
    if len(df) == 0:
        raise InputError(f"no row has a value in the target column {target!r}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(df))
    n_test = round(len(df) * test_fraction)
    test_idx, train_idx = np.sort(order[:n_test]), np.sort(order[n_test:])
    train_df, test_df = df.iloc[train_idx], df.iloc[test_idx]
    if len(train_df) < shards * slices:
        raise InputError(
            f"too few rows for the shards: {len(train_df)} training row(s) cannot fill "
            f"{shards} shard(s) x {slices} slice(s) (every slice needs at least one row)",
            hint="use fewer shards or slices, or more data",
        )
    schedules: tuple[DPSchedule, DPSchedule] | None = None
    if epsilon is not None:
        schedules = _plan(
            epsilon,
            delta,
            len(train_df),
            shards,
            slices,
            epochs,
            batch_size,
            max_grad_norm,
            accountant,
        )
    elif ledger is not None or dataset_name is not None:
        raise InputError(
            "a ledger or dataset was given without an epsilon: non-private training spends "
            "no budget",
            hint="pass --epsilon to train the shards with DP-SGD, or drop --dataset/--ledger",
        )
    encoder = TabularEncoder(target=target, drop=[id_column, *drop]).fit(train_df)
    known = test_df[target].astype(str).isin(encoder.classes_).to_numpy()
    test_df, test_ids = test_df.loc[known], ids[test_idx][known]
    secret = ModelStore(out, key).key
    trainer = _make_trainer(
        encoder,
        hidden,
        epochs,
        batch_size,
        learning_rate,
        None if schedules is None else schedules[0],
        secret,
    )
    mono_trainer = None
    if schedules is not None:
        mono_trainer = _make_trainer(
            encoder, hidden, epochs, batch_size, learning_rate, schedules[1], secret
        )

    def run(extra: dict[str, Any]) -> SISAModel:
        return SISAModel.fit(
            out,
            table_arrays(encoder, train_df),
            list(ids[train_idx]),
            trainer=trainer,
            key=secret,
            shards=shards,
            slices=slices,
            seed=seed,
            aggregation=aggregation,
            test=table_arrays(encoder, test_df) if len(test_df) else None,
            test_ids=list(test_ids) if len(test_df) else None,
            log_url=log_url,
            monolithic=monolithic,
            meta={
                "target": target,
                "id_column": id_column,
                "encoder": encoder.to_dict(),
                "test_fraction": test_fraction,
                "rows_without_target": int((~has_target).sum()),
                **extra,
            },
            progress=progress,
            partition="permutation" if schedules is None else "keyed",
            monolithic_trainer=mono_trainer,
        )

    if schedules is None:
        return run({})
    from veil.train._spend import charge_run

    sched = schedules[0]
    with charge_run(
        ledger,
        dataset_name,
        epsilon=float(epsilon),  # type: ignore[arg-type]
        delta=float(delta),
        what=f"veil unlearn fit: SISA {shards} shard(s) x {slices} slice(s), DP-SGD "
        "(parallel composition over the shards)",
        curve={
            "type": "dpsgd",
            "history": [
                [sched.noise_multiplier, sched.sample_rate, sched.steps_per_stage * sched.stages]
            ],
        },
        fingerprint=fingerprint,
    ) as (charge, _escaped):
        dp_meta: dict[str, Any] = {
            "dp": {
                **sched.as_dict(),
                "partition": "keyed id hash (a row's shard and slice depend on it alone)",
                "composition": "parallel over the disjoint shards; within a shard, the "
                "worst-case row (slice 0) is in every step of every stage",
                "not_covered": "the encoder's category lists and numeric scaling, held-out "
                "accuracy, and the difference between model versions before and after an "
                "erasure",
                "monolithic_baseline": schedules[1].as_dict(),
            },
            "ledger": None
            if charge is None
            else {
                "dataset": charge.dataset,
                "spend_id": charge.spend_id,
                "epsilon_charged": charge.epsilon,
                "delta_charged": charge.delta,
                "refunded_by_erasures": False,
            },
        }
        return run(dp_meta)


def _plan(
    epsilon: float,
    delta: float,
    n: int,
    shards: int,
    slices: int,
    epochs: int,
    batch_size: int,
    max_grad_norm: float,
    accountant: str,
) -> tuple[DPSchedule, DPSchedule]:
    """The shards' DP schedule and the monolithic baseline's (its own, for the whole table)."""
    from veil.unlearning._dp import plan_schedule

    per_stage = TorchShardTrainer(lambda: None, epochs=epochs).stage_epochs(slices)  # type: ignore[arg-type, return-value]
    shard = plan_schedule(
        epsilon=epsilon,
        delta=delta,
        rows=n,
        shards=shards,
        stages=slices,
        epochs_per_stage=per_stage,
        batch_size=batch_size,
        max_grad_norm=max_grad_norm,
        accountant=accountant,
    )
    mono = plan_schedule(
        epsilon=epsilon,
        delta=delta,
        rows=n,
        shards=1,
        stages=1,
        epochs_per_stage=epochs,
        batch_size=batch_size,
        max_grad_norm=max_grad_norm,
        accountant=accountant,
    )
    return shard, mono
