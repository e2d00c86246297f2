"""The ``synth`` pipeline stage: a synthetic table released beside the protected one.

Policy::

    synth:
      method: aim            # copula | mst | aim | tvae
      rows: 30000            # default: as many rows as the input
      epsilon: 1.0           # required for mst and aim; tvae with epsilon trains with DP-SGD
      delta: 1e-9            # default 1e-9 (tvae: 1e-6)
      dataset: adult         # ledger dataset charged (required for DP methods)
      ledger: sqlite:///l.db # optional; default: the user's ledger
      seed: 0
      bounds: {age: [0, 120]}            # public domain: costs no budget
      categories: {sex: [F, M]}
      public_domain: domain.json         # or a file of both (JSON or YAML)
      domain_from_data: false            # mst/aim: read undeclared domains outside DP

Decisions (see ``docs/synthetic-data.md``):

- The synthetic table is written as the artifact ``synthetic.<format>`` next to the
  release; the protected table stays the main output (``ctx.data`` is not replaced).
- It is learnt from the *input* table (``ctx.original``), without the columns whose role is
  ``identifier`` or ``text``: the synthesizer gives its own protection (DP for mst, aim and
  DP-TVAE) and learning from already generalized values would only lose utility.
- For the report, up to 20 % of the rows (at most 5,000) are held out from fitting and used
  as the real holdout of the evaluation (ML efficacy on the first categorical ``sensitive``
  column, if any; privacy measures). ``ctx.report["synth"]`` holds the method, the fit
  summary (privacy parameters, ledger entry) and the evaluation.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from veil._errors import PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["SynthStage"]

_DP_METHODS = ("mst", "aim")


def _table_bytes(df: pd.DataFrame, fmt: str) -> str | bytes:
    if fmt == "csv":
        return str(df.to_csv(index=False))
    if fmt == "jsonl":
        return str(df.to_json(orient="records", lines=True, date_format="iso"))
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def _public_domain(syn: Any, bounds: dict[str, Any], categories: dict[str, Any]) -> set[str]:
    """Columns whose domain may label the report's plots: declared, or estimated under DP."""
    out = set(bounds) | set(categories)
    for name, entry in (syn.fit_info_.get("domain") or {}).items():
        if entry.get("source") in ("declared", "dp"):
            out.add(name)
    return out


def _left_out(policy: Policy) -> set[str]:
    """Columns the synthetic table leaves out: identifiers and free text (the synthesizer
    provides its own protection; these would only be copied or memorised)."""
    return {
        name
        for name, col in policy.columns.items()
        if str(getattr(col.role, "value", col.role)) in ("identifier", "text")
    }


class SynthStage:
    """Fit the policy's synthesizer, sample, evaluate, and attach ``synthetic.<fmt>``."""

    name: ClassVar[str] = "synth"

    def wanted(self, policy: Policy) -> bool:
        return policy.synth is not None

    def _is_dp(self, policy: Policy) -> bool:
        cfg = policy.synth
        assert cfg is not None
        return cfg.method in _DP_METHODS or (cfg.method == "tvae" and cfg.epsilon is not None)

    def check(self, policy: Policy) -> None:
        cfg = policy.synth
        assert cfg is not None
        if cfg.method in _DP_METHODS and cfg.epsilon is None:
            raise PolicyError(f"the {cfg.method} synthesizer needs an epsilon", key="synth.epsilon")
        if cfg.method == "copula" and cfg.epsilon is not None:
            raise PolicyError(
                "the copula synthesizer is not differentially private; remove epsilon",
                key="synth.epsilon",
                hint="use method: aim or mst for a DP synthetic table",
            )
        if cfg.domain_from_data and cfg.method not in _DP_METHODS:
            raise PolicyError(
                "domain_from_data applies to the mst and aim methods only",
                key="synth.domain_from_data",
            )
        if (cfg.target is not None or cfg.triples) and cfg.method not in _DP_METHODS:
            raise PolicyError(
                "target and triples apply to the mst and aim methods only",
                key="synth.target" if cfg.target is not None else "synth.triples",
            )
        if cfg.triples and cfg.target is None:
            raise PolicyError(
                "triples measures triples of the target column, but no target is named",
                key="synth.triples",
                hint="add synth.target: the column to be predicted",
            )
        if cfg.target is not None and cfg.target not in policy.columns:
            raise PolicyError(
                f"synth.target names a column the policy does not list: {cfg.target}",
                key="synth.target",
                hint="name one of the policy's columns",
            )
        if cfg.target is not None and cfg.target in _left_out(policy):
            raise PolicyError(
                f"synth.target {cfg.target} is an identifier or text column, which the "
                "synthetic table leaves out",
                key="synth.target",
            )
        if cfg.epsilon is not None and cfg.epsilon > 100:
            raise PolicyError("epsilon must be at most 100", key="synth.epsilon")
        if self._is_dp(policy):
            if cfg.dataset is None:
                raise PolicyError(
                    "a DP synthesizer is charged to the privacy-budget ledger: name the dataset",
                    key="synth.dataset",
                )
            from veil.dp import BudgetLedger

            with BudgetLedger(cfg.ledger) as ledger:
                ledger.status(cfg.dataset)  # reachable, and the budget exists

    def _columns(self, policy: Policy, df: pd.DataFrame) -> list[str]:
        skip = _left_out(policy)
        return [c for c in df.columns if str(c) not in skip]

    def run(self, ctx: RunContext) -> None:
        import pandas as pd

        from veil.synth._base import synthesizers
        from veil.synth._evaluate import column_histograms, evaluate

        policy = ctx.policy
        cfg = policy.synth
        assert cfg is not None
        cols = self._columns(policy, ctx.original)
        # learnt from the text as written where a numeric parse would rewrite it ("01")
        from veil.io._exact import format_like_input, text_forms_for_synthesis

        exact = getattr(ctx, "exact_text", None)
        source, formats = text_forms_for_synthesis(
            ctx.original[cols], exact, as_categories=not self._is_dp(policy)
        )
        table = source.reset_index(drop=True)
        rng = np.random.default_rng(cfg.seed)
        n_hold = min(int(0.2 * len(table)), 5000) if len(table) >= 50 else 0
        perm = rng.permutation(len(table))
        holdout = table.iloc[perm[:n_hold]].reset_index(drop=True) if n_hold else None
        train = table.iloc[perm[n_hold:]].reset_index(drop=True)

        kw: dict[str, Any] = {"seed": cfg.seed}
        if cfg.target is not None:
            kw["target"] = cfg.target
            kw["triples"] = cfg.triples
        if cfg.domain_from_data:
            kw["domain_from_data"] = True
        bounds: dict[str, tuple[float, float]] = {}
        categories: dict[str, list[Any]] = {}
        if cfg.public_domain is not None:
            from veil.synth._domain import read_public_domain

            bounds, categories = read_public_domain(cfg.public_domain)
        bounds.update({k: (float(v[0]), float(v[1])) for k, v in cfg.bounds.items()})
        categories.update({k: list(v) for k, v in cfg.categories.items()})
        ledger = None
        if self._is_dp(policy):
            from veil.dp import BudgetLedger

            ledger = BudgetLedger(cfg.ledger)
            kw.update(epsilon=cfg.epsilon, ledger=ledger, dataset=cfg.dataset)
            if cfg.delta is not None:
                kw["delta"] = cfg.delta
        try:
            syn = synthesizers.get(cfg.method)(**kw).fit(
                train, bounds=bounds, categories=categories, progress=ctx.progress
            )
        finally:
            if ledger is not None:
                ledger.close()
        rows = cfg.rows or len(table)
        synthetic = format_like_input(syn.sample(rows, seed=cfg.seed), formats)

        # the report's train-on-synthetic AUC predicts the declared target when it is a
        # class (2-50 values), else the first categorical sensitive column
        if cfg.target is not None and 2 <= train[cfg.target].nunique(dropna=False) <= 50:
            target: str | None = cfg.target
        else:
            target = next(
                (
                    c
                    for c in policy.sensitive
                    if c in train.columns and not pd.api.types.is_numeric_dtype(train[c])
                ),
                None,
            )
        evaluation = evaluate(
            train,
            synthetic,
            holdout,
            target=target if holdout is not None else None,
            max_rows=1000,
            seed=cfg.seed or 0,
            progress=ctx.progress,
        )
        # every pair's score (or the reason it has none) stays in the report; the real
        # table's association strengths do not (they are statistics of the private data)
        details = evaluation["quality"].pop("details", None) or {}
        evaluation["quality"]["pairs"] = [
            {k: p[k] for k in ("columns", "joint_score", "score", "reason") if k in p}
            for p in details.get("column_pair_trends", [])
        ]
        evaluation["quality"]["columns"] = details.get("column_shapes", [])
        fmt = policy.output.format
        ctx.artifacts[f"synthetic.{fmt}"] = _table_bytes(synthetic, fmt)
        info = syn.fit_info_
        ctx.report["synth"] = {
            "method": cfg.method,
            "artifact": f"synthetic.{fmt}",
            "rows": rows,
            "columns": cols,
            "fit": info,
            "evaluation": evaluation,
            "privacy_statement": info.get("privacy_statement"),
            "domain_from_data": info.get("domain_from_data", []),
            "histograms": column_histograms(
                train,
                syn.sample(min(rows, 20_000), seed=(cfg.seed or 0) + 1),
                syn.schema_,
                public=_public_domain(syn, bounds, categories),
            ),
            "summary": {
                "synthetic_rows": rows,
                "synthetic_quality": round(float(evaluation["quality"]["score"] or 0.0), 4),
                "synthetic_epsilon": info.get("epsilon")
                if info.get("differential_privacy")
                else None,
            },
        }
