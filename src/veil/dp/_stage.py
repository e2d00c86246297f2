"""The ``dp`` pipeline stage: the policy's DP queries, answered and spent from the ledger.

Policy::

    dp:
      dataset: adult                       # the ledger's dataset (its budget must exist)
      ledger: sqlite:///ledger.sqlite      # optional; default: the user's ledger
      queries:
        - {stat: count}
        - {stat: mean, column: age, bounds: [17, 90], epsilon: 0.5}
        - {stat: histogram, column: sex, categories: [Male, Female], epsilon: 0.5}

Each query is a :class:`~veil.dp.QuerySpec` object. The queries run on the input table as
read (``ctx.original``): the guarantee is about the people in the input. They are reserved
in the ledger together before any is computed, and answered together or not at all.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from veil._errors import InputError, PolicyError

if TYPE_CHECKING:
    from veil.dp._query import QuerySpec
    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["DPStage"]

ARTIFACT = "dp_statistics.json"


def _specs(policy: Policy) -> list[QuerySpec]:
    from veil.dp._query import parse_query

    assert policy.dp is not None
    out = []
    for i, q in enumerate(policy.dp.queries):
        try:
            out.append(parse_query(q))
        except InputError as exc:
            raise PolicyError(exc.message, hint=exc.hint, key=f"dp.queries[{i}]") from None
    return out


class DPStage:
    """Answer ``policy.dp.queries`` with OpenDP and record their spends in the ledger."""

    name: ClassVar[str] = "dp"

    def wanted(self, policy: Policy) -> bool:
        return policy.dp is not None and bool(policy.dp.queries)

    def check(self, policy: Policy) -> None:
        """Validate the queries, OpenDP, the ledger and the budget before data is read."""
        import math

        from veil.dp._ledger import BudgetLedger
        from veil.dp._stats import _opendp

        assert policy.dp is not None
        specs = _specs(policy)
        _opendp()  # the dp extra is installed
        with BudgetLedger(policy.dp.ledger) as ledger:
            status = ledger.status(policy.dp.dataset)  # reachable, and the budget exists
        eps = math.fsum(s.epsilon for s in specs)
        left = status.remaining[0]
        if status.composition == "basic" and eps > left * (1 + 1e-9):
            from veil._errors import PrivacyBudgetExceeded

            raise PrivacyBudgetExceeded(
                f"the policy's {len(specs)} DP queries need epsilon={eps:g}, but dataset "
                f"{policy.dp.dataset!r} has epsilon={left:.6g} left; nothing was computed",
                hint="lower the queries' epsilon, or use a dataset with budget left",
            )

    def run(self, ctx: RunContext) -> None:
        from veil.dp._ledger import BudgetLedger
        from veil.dp._stats import dp_query_many, fingerprint_frame
        from veil.dp._store import redact_url

        policy = ctx.policy
        assert policy.dp is not None
        specs = _specs(policy)
        # (Progress.task is typed as contextmanager[...] in veil._progress, which mypy rejects)
        with ctx.progress.task("DP statistics", total=len(specs)) as task:  # type: ignore[attr-defined]
            with BudgetLedger(policy.dp.ledger) as ledger:
                answers = dp_query_many(
                    ctx.original,
                    specs,
                    ledger=ledger,
                    dataset=policy.dp.dataset,
                    fingerprint=fingerprint_frame(ctx.original),
                )
                status = ledger.status(policy.dp.dataset)
                url = redact_url(ledger.url)
            task.advance(len(specs))
        eps_left, delta_left = status.remaining
        section: dict[str, Any] = {
            "dataset": policy.dp.dataset,
            "ledger": url,
            "composition": status.composition,
            "answers": [a.as_dict() for a in answers],
            "spent": {
                "epsilon": sum(a.epsilon for a in answers),
                "delta": sum(a.delta for a in answers),
            },
            "budget": status.as_dict(),
            "remaining": {"epsilon": eps_left, "delta": delta_left},
            "summary": {
                "dp_queries": len(answers),
                "dp_epsilon_spent": sum(a.epsilon for a in answers),
                "dp_epsilon_remaining": eps_left,
            },
        }
        ctx.report["dp"] = section
        artifact = {k: v for k, v in section.items() if k != "summary"}
        ctx.artifacts[ARTIFACT] = json.dumps(artifact, indent=2, default=str) + "\n"
