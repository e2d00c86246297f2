"""The dp pipeline stage: early checks, answers in the report, the artifact, the spends."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from veil import InputError, PolicyError, PrivacyBudgetExceeded
from veil.dp import BudgetLedger
from veil.dp._stage import ARTIFACT, DPStage
from veil.pipeline import RunContext
from veil.policy import Policy


def _policy(url: str, queries: list[dict[str, object]]) -> Policy:
    return Policy.model_validate(
        {
            "data": {"path": "x.csv"},
            "columns": {"age": {"role": "insensitive"}},
            "dp": {"dataset": "p", "ledger": url, "queries": queries},
        }
    )


@pytest.fixture
def url(tmp_path: Path) -> str:
    u = f"sqlite:///{tmp_path / 'l.sqlite'}"
    with BudgetLedger(u) as led:
        led.init("p", epsilon=1.0)
    return u


def test_stage_runs_queries_and_writes_report(url: str) -> None:
    df = pd.DataFrame({"age": list(range(20, 70)) * 40})
    pol = _policy(
        url,
        [
            {"stat": "count", "epsilon": 0.2},
            {"stat": "mean", "column": "age", "bounds": [0, 100], "epsilon": 0.3},
        ],
    )
    stage = DPStage()
    assert stage.name == "dp" and stage.wanted(pol)
    stage.check(pol)
    ctx = RunContext(policy=pol, original=df, data=df.copy())
    stage.run(ctx)
    sec = ctx.report["dp"]
    assert [a["stat"] for a in sec["answers"]] == ["count", "mean"]
    assert sec["spent"]["epsilon"] == pytest.approx(0.5)
    assert sec["remaining"]["epsilon"] == pytest.approx(0.5)
    assert sec["summary"]["dp_queries"] == 2
    art = json.loads(ctx.artifacts[ARTIFACT])
    assert art["answers"] == sec["answers"] and "summary" not in art
    with BudgetLedger(url) as led:
        assert len(led.history("p")) == 2


def test_check_rejects_bad_queries_with_their_key(url: str) -> None:
    pol = _policy(
        url, [{"stat": "count", "epsilon": 0.1}, {"stat": "sum", "column": "age", "epsilon": 0.1}]
    )
    with pytest.raises(PolicyError) as exc:
        DPStage().check(pol)
    assert exc.value.key == "dp.queries[1]" and "bounds" in str(exc.value)


def test_check_fails_early_on_budget_and_missing_dataset(url: str, tmp_path: Path) -> None:
    with pytest.raises(PrivacyBudgetExceeded):
        DPStage().check(_policy(url, [{"stat": "count", "epsilon": 5}]))
    other = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    with pytest.raises(InputError, match="no budget"):
        DPStage().check(_policy(other, [{"stat": "count", "epsilon": 0.1}]))


def test_not_wanted_without_queries(url: str) -> None:
    assert not DPStage().wanted(_policy(url, []))
