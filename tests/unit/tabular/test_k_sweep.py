"""The report's risk-utility curve: the optimal search re-run for each k on one table."""

from __future__ import annotations

from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.policy._models import FileHierarchyConfig
from veil.tabular import AnonymizeConfig, anonymize


def test_sweep_point_at_the_configured_k_is_the_release_and_risk_falls_with_k() -> None:
    df = adult_frame(6000)
    qis = list(ADULT_QUASI_IDENTIFIERS)
    hierarchies = {q: FileHierarchyConfig(path=adult_hierarchy_path(q), separator=";") for q in qis}
    config = AnonymizeConfig.build(qis, hierarchies, k=5, suppression_limit=0.02)
    result = anonymize(df, config, sweep=(2, 5, 20, 100), sweep_seconds=60)
    sweep = result.k_sweep
    assert sweep is not None
    assert [p["k"] for p in sweep] == [2, 5, 20, 100]
    assert all(p["feasible"] for p in sweep)
    at5 = sweep[1]
    assert dict(zip(qis, at5["levels"], strict=True)) == result.transformation
    assert at5["information_loss"] == result.information_loss["loss"]
    assert at5["classes"] == result.equivalence_classes
    assert at5["highest_risk"] == 1 / result.min_class_size
    for point in sweep:
        assert point["highest_risk"] <= 1 / point["k"]  # each point is k-anonymous
        assert point["suppressed_share"] <= 0.02
    losses = [p["information_loss"] for p in sweep]
    assert losses == sorted(losses)  # a larger k never costs less at the optimum
    assert result.to_dict()["k_sweep"] == sweep
