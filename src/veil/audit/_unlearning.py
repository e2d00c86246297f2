"""Unlearning audit: do the forgotten rows still look like members of the model?

A membership score is the per-row loss ``-log p(true class)`` under the model's aggregated
predicted probabilities (the loss attack of Yeom et al. 2018: rows a model trained on tend to
have lower loss). Three groups of rows of the table are scored:

* **forgotten**: rows whose id the erasure log records as forgotten;
* **held-out**: rows the model never trained on (its held-out rows, and rows of the table
  whose id it does not know);
* **training**: rows still in the model (the attack's positive control: if these do not
  score as members, the attack has no power and a "clean" result means little).

A row is *scored as a member* when its loss is below the threshold that flags ``fpr`` of the
held-out rows. For rows the model never saw, the expected share is ``fpr``; the report gives
the forgotten rows' share with a one-sided binomial p-value against ``fpr``, the AUC of
forgotten against held-out (0.5: indistinguishable), the loss quantiles of each group and
**every forgotten row's own score** with its percentile among held-out losses: an average
can look clean while a few rows (outliers, the ones a model memorizes) still stand out.

The forgotten rows are also scored by a model *retrained without them* (the affected shards
retrained from scratch, as ``verify`` does): for exact unlearning the two losses are equal,
row by row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from veil.unlearning import SISAModel

__all__ = ["audit_unlearning", "audit_unlearning_table", "row_losses"]

_QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def row_losses(proba: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``-log p(y)`` per row (probabilities floored at 1e-12)."""
    p = proba[np.arange(len(y)), y.astype(np.int64)]
    out: np.ndarray = -np.log(np.clip(p, 1e-12, 1.0))
    return out


def _auc(pos: np.ndarray, neg: np.ndarray) -> float | None:
    """P(a positive has a lower loss than a negative), ties count half (Mann-Whitney)."""
    if len(pos) == 0 or len(neg) == 0:
        return None
    from scipy.stats import rankdata

    ranks = rankdata(np.concatenate([-pos, -neg]))
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2
    return float(u / (len(pos) * len(neg)))


def _quantiles(x: np.ndarray) -> dict[str, float] | None:
    if len(x) == 0:
        return None
    return {f"q{int(q * 100):02d}": float(np.quantile(x, q)) for q in _QUANTILES}


def _retrained_proba(model: SISAModel, data: dict[str, np.ndarray]) -> np.ndarray:
    """The aggregated prediction with the touched shards retrained from scratch."""
    from veil.unlearning._stages import aggregate_shards, train_shard

    cfg = model.config
    finals = model.final_states()
    for s in model.manifest["touched_shards"]:
        finals[s] = train_shard(
            model.trainer, model.data[s], seed=cfg["seed"], shard=s, slices=cfg["slices"]
        )[-1]
    return aggregate_shards(model.trainer, finals, model.data, data, cfg["aggregation"])


def audit_unlearning(
    model: SISAModel,
    data: dict[str, np.ndarray],
    ids: list[str],
    *,
    fpr: float = 0.05,
    row_numbers: np.ndarray | None = None,
) -> dict[str, Any]:
    """Score the rows of ``data`` (with ``y``) by group; see the module docstring.

    ``ids`` are the rows' ids (text, as given to fit); ``row_numbers`` how the per-row view
    names the rows (default their positions). Returns the ``audit`` section's dict.
    """
    from scipy.stats import binomtest

    from veil.unlearning._store import hash_ids, id_keys

    if not 0 < fpr < 1:
        raise InputError(f"fpr must be in (0, 1), got {fpr!r}", hint="e.g. --fpr 0.05")
    if len(ids) != len(data["y"]):
        raise InputError(f"{len(ids)} ids for {len(data['y'])} rows")
    keys = id_keys(hash_ids(model.store.key, list(ids)))
    forgotten_set = {bytes.fromhex(h) for h in model.log.forgotten(model.model_id)}
    forgotten = np.array([k in forgotten_set for k in keys], dtype=bool)
    training = model.training_mask(keys) & ~forgotten
    heldout = ~training & ~forgotten
    if not forgotten.any():
        raise InputError(
            "no row of the table is a forgotten row of this model: nothing to audit",
            hint="pass the table the model was fitted on (with its id column), after forgetting",
        )
    if heldout.sum() < 20:
        raise InputError(
            f"only {int(heldout.sum())} held-out row(s) in the table; the audit needs at least "
            "20 rows the model never trained on to set its threshold",
            hint="fit with --test-fraction 0.2 (the default) and pass the whole table",
        )
    rows = np.arange(len(ids)) if row_numbers is None else np.asarray(row_numbers)
    proba = model.predict_proba(data)
    loss = row_losses(proba, data["y"])
    # Both models score the forgotten rows in the same batch: a matrix product's rounding
    # may depend on the batch's size, and the comparison is meant to be exact.
    sub = {k: v[forgotten] for k, v in data.items()}
    f_loss = row_losses(model.predict_proba(sub), sub["y"])
    loss_re = row_losses(_retrained_proba(model, sub), sub["y"])
    loss[forgotten] = f_loss
    held = np.sort(loss[heldout])
    threshold = float(np.quantile(held, fpr))
    member = loss < threshold
    share = {
        "forgotten": float(member[forgotten].mean()),
        "heldout": float(member[heldout].mean()),
        "training": float(member[training].mean()) if training.any() else None,
    }
    n_f = int(forgotten.sum())
    pval = float(binomtest(int(member[forgotten].sum()), n_f, fpr, alternative="greater").pvalue)
    pct = np.searchsorted(held, f_loss, side="right") / len(held)
    diff = np.abs(f_loss - loss_re)
    return {
        "forgotten": n_f,
        "heldout": int(heldout.sum()),
        "training": int(training.sum()),
        "fpr": fpr,
        "threshold": threshold,
        "member_share": share,
        "forgotten_member_pvalue": pval,
        "auc": {
            "forgotten_vs_heldout": _auc(f_loss, loss[heldout]),
            "training_vs_heldout": _auc(loss[training], loss[heldout]),
        },
        "loss_quantiles": {
            "forgotten": _quantiles(f_loss),
            "heldout": _quantiles(loss[heldout]),
            "training": _quantiles(loss[training]),
            "forgotten_retrained": _quantiles(loss_re),
        },
        "retrained": {
            "max_abs_loss_difference": float(diff.max()),
            "identical": bool((f_loss == loss_re).all()),
        },
        "rows": [
            {
                "row": int(r),
                "loss": float(a),
                "loss_retrained": float(b),
                "heldout_percentile": float(p),
                "member": bool(m),
            }
            for r, a, b, p, m in zip(
                rows[forgotten], f_loss, loss_re, pct, member[forgotten], strict=True
            )
        ],
    }


def audit_unlearning_table(
    model: SISAModel, frame: pd.DataFrame, *, fpr: float = 0.05
) -> dict[str, Any]:
    """:func:`audit_unlearning` on a table, encoded as ``veil unlearn fit`` encoded it."""
    from veil.train import TabularEncoder
    from veil.unlearning._tabular import id_strings, table_arrays

    cfg = model.config
    if "encoder" not in cfg:
        raise InputError(
            "this model was trained from Python, not from a table",
            hint="call veil.audit.audit_unlearning with the encoded arrays",
        )
    encoder = TabularEncoder.from_dict(cfg["encoder"])
    target = cfg["target"]
    if target not in frame.columns:
        raise InputError(f"the table has no target column {target!r}")
    ids = np.asarray(id_strings(frame, cfg["id_column"]), dtype=object)
    known = frame[target].notna() & frame[target].astype(str).isin(encoder.classes_)
    mask = known.to_numpy()
    sub = frame.loc[mask]
    return audit_unlearning(
        model,
        table_arrays(encoder, sub),
        list(ids[mask]),
        fpr=fpr,
        row_numbers=np.flatnonzero(mask),
    )
