"""Benchmark: membership inference on veil's tabular model and on a synthetic table.

Setting (chosen so that the non-private model overfits enough to be attackable): ROWS rows
of UCI Adult (the shipped table, sampled with ``random_state=0``); every model (target or
shadow) is veil's tabular MLP (one hidden layer of 256) trained on a random half of them
(1000 rows by default) for EPOCHS epochs at batch size 64 with Adam (lr 5e-3). TARGETS target
models each on its own random half are attacked and their scores pooled (``--targets`` of
``veil audit mia``), so members and non-members number TARGETS * ROWS / 2 each.

Attacks, side by side on the same models: the loss attack (Yeom et al. 2018; the baseline
every paper compares with, and what a threshold attack in ART or privacy-meter computes),
LiRA online and offline (Carlini et al. 2022) and RMIA (Zarifzadeh et al. 2024), all through
the public API :func:`veil.audit.audit_membership` (what ``veil audit mia`` calls).

Settings: without DP (SHADOWS shadows) and DP-SGD at epsilon 1, 3 and 8 (delta 1e-5,
DP_SHADOWS shadows, same data, model, epochs and batch size). And a synthetic table: the
distance-based attack of ``veil synth evaluate`` on a Gaussian-copula table fitted to one
half (members) against the other half (non-members), beside a "synthesizer" that copies its
training rows (the leak the attack must see). Both use the audit's ROC code.

Targets: LiRA's TPR at 0.1 % FPR above the loss attack's without DP; at epsilon 1 no attack's
AUC above 0.55.

Run: ``PYTHONPATH=src python benchmarks/audit_mia.py``; writes
``benchmarks/results/audit_mia.json`` (rewritten after each setting).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "results" / "audit_mia.json"
TARGET = "salary-class"
ATTACKS = ["loss", "lira", "lira-offline", "rmia"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _keep(res: dict[str, Any]) -> dict[str, Any]:
    return {
        k: res[k]
        for k in ("auc", "auc_ci", "tpr_at_fpr", "tpr_at_fpr_ci", "members", "nonmembers")
        if k in res
    }


def _model_setting(
    frame: Any, epsilon: float | None, shadows: int, args: argparse.Namespace
) -> dict[str, Any]:
    from veil.audit import audit_membership

    c0, t0 = _cpu(), time.perf_counter()
    res = audit_membership(
        frame,
        TARGET,
        epsilon=epsilon,
        attacks=ATTACKS,
        shadows=shadows,
        targets=args.targets,
        seed=args.seed,
        epochs=args.epochs,
        batch_size=64,
        hidden=(256,),
        n_boot=args.bootstrap,
    )
    return {
        "epsilon": epsilon,
        "shadows": shadows,
        "targets": args.targets,
        "attacks": {a: _keep(r) for a, r in res["attacks"].items()},
        "model": res["model"],
        "cpu_seconds": round(_cpu() - c0, 2),
        "wall_seconds": round(time.perf_counter() - t0, 2),
    }


def _synthetic(frame: Any, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from veil.synth import GaussianCopulaSynthesizer, privacy_metrics

    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(frame))
    half = len(frame) // 2
    members, holdout = frame.iloc[order[:half]], frame.iloc[order[half:]]
    out: dict[str, Any] = {}
    c0 = _cpu()
    syn = GaussianCopulaSynthesizer(seed=args.seed).fit(members).sample(len(members), seed=1)
    copy = members.sample(len(members), replace=True, random_state=1)
    for name, table in (("gaussian_copula", syn), ("copy_of_training_rows", copy)):
        pm = privacy_metrics(members, table, holdout, seed=args.seed)
        out[name] = {
            "auc": pm["mia_auc"],
            "tpr_at_fpr": pm["mia_tpr_at_fpr"],
            "members": pm["mia_members"],
            "nonmembers": pm["mia_nonmembers"],
            "dcr_synthetic": pm["dcr_synthetic"],
            "dcr_holdout": pm["dcr_holdout"],
        }
    out["cpu_seconds"] = round(_cpu() - c0, 2)
    return out


def _write(result: dict[str, Any]) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(OUT)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--shadows", type=int, default=16)
    ap.add_argument("--dp-shadows", type=int, default=4)
    ap.add_argument("--targets", type=int, default=2)
    ap.add_argument("--epsilons", type=float, nargs="*", default=[1.0, 3.0, 8.0])
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch

    from veil.data import adult_frame

    torch.set_num_threads(1)
    frame = adult_frame().sample(args.rows, random_state=0).reset_index(drop=True)
    result: dict[str, Any] = {
        "benchmark": "audit_mia",
        "setting": {
            "data": f"UCI Adult, {args.rows} rows sampled with random_state=0",
            "model": "veil tabular MLP, hidden 256, Adam lr 5e-3, batch 64",
            "epochs": args.epochs,
            "rows_per_model": args.rows // 2,
            "targets": args.targets,
            "bootstrap": args.bootstrap,
            "seed": args.seed,
        },
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg()[0],
        },
        "settings": {},
    }
    settings: list[tuple[str, float | None, int]] = [("non_private", None, args.shadows)]
    settings += [(f"dp_eps_{e:g}", e, args.dp_shadows) for e in args.epsilons]
    for name, eps, shadows in settings:
        result["settings"][name] = _model_setting(frame, eps, shadows, args)
        _write(result)
        print(name, json.dumps(result["settings"][name]["attacks"]["lira"]["tpr_at_fpr"]))
    result["synthetic_table"] = _synthetic(frame, args)
    s = result["settings"]
    np_ = s["non_private"]["attacks"]
    checks: dict[str, Any] = {
        "lira_tpr_at_0.1%_fpr": np_["lira"]["tpr_at_fpr"]["0.001"],
        "loss_tpr_at_0.1%_fpr": np_["loss"]["tpr_at_fpr"]["0.001"],
        "lira_above_loss_at_0.1%_fpr": np_["lira"]["tpr_at_fpr"]["0.001"]
        > np_["loss"]["tpr_at_fpr"]["0.001"],
    }
    if "dp_eps_1" in s:
        top = max(a["auc"] for a in s["dp_eps_1"]["attacks"].values())
        checks["dp_eps_1_max_auc"] = top
        checks["dp_eps_1_no_auc_above_0.55"] = top <= 0.55
    result["checks"] = checks
    result["machine"]["load_after"] = os.getloadavg()[0]
    _write(result)
    print(json.dumps(checks, indent=2))


if __name__ == "__main__":
    main()
