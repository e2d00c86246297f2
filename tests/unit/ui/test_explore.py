"""veil ui's exploration: every candidate transformation with its loss and risk, and
releasing another one than the optimum (search.transformation)."""

from __future__ import annotations

import json
import re
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
    from starlette.testclient import TestClient

from veil._errors import PolicyError, PrivacyRequirementNotMet
from veil.ui._explore import explore, with_transformation

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
POLICY = """version: 1
data: {path: people.csv}
columns:
  name: {role: identifier, transform: {type: drop}}
  age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}}
  zip: {role: quasi_identifier, hierarchy: {type: mask}}
  diagnosis: {role: sensitive}
privacy:
  k_anonymity: {k: 4}
  suppression_limit: 0.1
output: {path: out, format: csv}
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    rng = np.random.default_rng(7)
    rows = [
        f"P{i},{int(rng.integers(20, 70))},{10000 + int(rng.integers(0, 30))},{['flu', 'cold'][i % 2]}\n"
        for i in range(300)
    ]
    (root / "people.csv").write_text("name,age,zip,diagnosis\n" + "".join(rows))
    (root / "policy.yaml").write_text(POLICY)
    return root


def _complete(client: TestClient, url: str) -> Any:
    """The exploration page once every node is in (it shows them as they come)."""
    for _ in range(600):
        page = client.get(url)
        if 'id="explore-running"' not in page.text:
            return page
        assert '<meta http-equiv="refresh" content="1">' in page.text
        time.sleep(0.05)
    raise AssertionError("the exploration did not finish")


def test_every_candidate_is_evaluated_and_the_optimum_is_the_runs(workdir: Path) -> None:
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    result = explore(workdir, "policy.yaml")
    assert result["complete"] and result["evaluated"] == result["lattice_size"]
    assert result["lattice_size"] == int(np.prod(result["heights"]))
    assert len({tuple(n["levels"]) for n in result["nodes"]}) == result["lattice_size"]
    optimum = [n for n in result["nodes"] if n["optimum"]]
    assert len(optimum) == 1 and optimum[0]["feasible"]
    feasible = [n["loss"] for n in result["nodes"] if n["feasible"]]
    assert optimum[0]["loss"] == pytest.approx(min(feasible))
    ran = run_policy(load_policy(workdir / "policy.yaml"), write=False)
    assert list(ran.report["anonymize"]["transformation"].values()) == optimum[0]["levels"]
    # the bottom node, against plain pandas: classes of k=4 or more kept, the rest suppressed
    df = pd.read_csv(workdir / "people.csv")
    sizes = df.groupby(["age", "zip"]).size()
    bottom = next(n for n in result["nodes"] if n["levels"] == [0, 0])
    assert bottom["suppressed"] == int(sizes[sizes < 4].sum())
    assert bottom["classes"] == int((sizes >= 4).sum())
    assert bottom["feasible"] == (bottom["suppressed"] <= int(0.1 * 300))
    if bottom["classes"]:
        assert bottom["highest_risk"] == pytest.approx(1 / sizes[sizes >= 4].min())
    # the top node: one class, nothing suppressed
    top = next(n for n in result["nodes"] if n["levels"] == [h - 1 for h in result["heights"]])
    assert top["classes"] == 1 and top["suppressed"] == 0
    assert top["highest_risk"] == pytest.approx(1 / 300)


def test_the_page_plots_and_releases_another_candidate(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    page = _complete(client, "/explore?policy=policy.yaml")
    assert page.status_code == 200
    assert 'id="explore-optimum"' in page.text and 'id="explore-plot"' in page.text
    result = explore(workdir, "policy.yaml")
    assert page.text.count("<circle") == sum(n["loss"] is not None for n in result["nodes"])
    # another feasible candidate than the optimum, with more loss
    i, other = next(
        (i, n) for i, n in enumerate(result["nodes"]) if n["feasible"] and not n["optimum"]
    )
    picked = _complete(client, f"/explore?policy=policy.yaml&node={i}")
    assert 'id="release-picked"' in picked.text
    assert f'<td class="num">{other["suppressed"]}</td>' in picked.text
    levels = ",".join(map(str, other["levels"]))
    r = client.post(
        "/explore/choose",
        data={"csrf": csrf, "policy": "policy.yaml", "levels": levels},
        follow_redirects=False,
    )
    assert r.status_code == 303
    state = wait_job(client, "run", r.headers["location"].rsplit("/", 1)[1])
    assert state["state"] == "done", state
    report = json.loads((workdir / "out" / "report.json").read_text())
    assert list(report["anonymize"]["transformation"].values()) == other["levels"]
    assert report["anonymize"]["search"]["chosen"] is True
    assert "transformation:" in (workdir / "policy.yaml").read_text()
    # back to the optimum: the key is removed
    (workdir / "out").rename(workdir / "out-1")
    r = client.post(
        "/explore/choose",
        data={"csrf": csrf, "policy": "policy.yaml", "levels": "optimum"},
        follow_redirects=False,
    )
    assert wait_job(client, "run", r.headers["location"].rsplit("/", 1)[1])["state"] == "done"
    assert "transformation" not in (workdir / "policy.yaml").read_text()


def test_an_infeasible_choice_fails_with_nothing_written(
    workdir: Path, ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    result = explore(workdir, "policy.yaml")
    bad = next(n for n in result["nodes"] if not n["feasible"])
    r = client.post(
        "/explore/choose",
        data={"csrf": csrf, "policy": "policy.yaml", "levels": ",".join(map(str, bad["levels"]))},
        follow_redirects=False,
    )
    state = wait_job(client, "run", r.headers["location"].rsplit("/", 1)[1])
    assert state["state"] == "failed" and "suppress" in state["error"]["message"]
    assert not (workdir / "out").exists()


def test_a_transformation_must_name_every_qi_within_its_hierarchy(workdir: Path) -> None:
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    for levels, error in (
        ({"age": 0}, PolicyError),
        ({"age": 0, "zip": 0, "diagnosis": 0}, PolicyError),
        ({"age": 99, "zip": 0}, PolicyError),
        ({"age": 0, "zip": 0}, PrivacyRequirementNotMet),  # suppresses too much here
    ):
        (workdir / "p.yaml").write_text(with_transformation(POLICY, "p.yaml", levels))
        with pytest.raises(error):
            run_policy(load_policy(workdir / "p.yaml"), write=False)
    with pytest.raises(PolicyError, match="optimal"):
        load_policy_text = POLICY + "search: {algorithm: mondrian, transformation: {age: 0}}\n"
        (workdir / "m.yaml").write_text(load_policy_text)
        load_policy(workdir / "m.yaml")


def test_bad_explore_requests(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir)
    assert client.get("/explore").status_code == 400
    assert client.get("/explore?policy=../x.yaml").status_code == 400
    assert client.get("/explore?policy=policy.yaml&node=999999").status_code == 400
    assert client.get("/explore?policy=people.csv").status_code == 400
    r = client.post("/explore/choose", data={"policy": "policy.yaml", "levels": "0,0"})
    assert r.status_code == 403  # no CSRF token
    r = client.post("/explore/choose", data={"csrf": csrf, "policy": "policy.yaml", "levels": "0"})
    assert r.status_code == 400 and "do not match" in r.text
    assert "transformation" not in (workdir / "policy.yaml").read_text()


def test_a_policy_that_is_not_utf8_is_refused_by_name(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    (workdir / "latin.yaml").write_bytes(POLICY.encode() + "# caf\xe9\n".encode("latin-1"))
    client, csrf = ui_session(workdir)
    r = client.get("/explore?policy=latin.yaml")
    assert r.status_code == 400 and "not UTF-8" in r.text
    r = client.post(
        "/explore/choose", data={"csrf": csrf, "policy": "latin.yaml", "levels": "optimum"}
    )
    assert r.status_code == 400 and "not UTF-8" in r.text


def test_a_candidates_utility_is_what_veil_run_reports_when_it_is_released(
    workdir: Path,
    ui_session: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    from veil.ui._explore import candidate_utility

    client, csrf = ui_session(workdir)
    result = explore(workdir, "policy.yaml")
    i, other = next(
        (i, n) for i, n in enumerate(result["nodes"]) if n["feasible"] and not n["optimum"]
    )
    page = _complete(client, f"/explore?policy=policy.yaml&node={i}")
    assert 'id="measure-utility"' in page.text and 'id="utility"' not in page.text  # on demand
    page = _complete(client, f"/explore?policy=policy.yaml&node={i}&utility=1")
    assert page.status_code == 200 and 'id="utility"' in page.text
    shown = dict(re.findall(r'data-key="([a-z_]+)">([^<]+)<', page.text))
    before = sorted(p.name for p in workdir.rglob("*"))
    measured = candidate_utility(workdir, "policy.yaml", other["levels"])
    assert measured["levels"] == other["levels"]
    assert before == sorted(p.name for p in workdir.rglob("*"))  # nothing written
    assert not (workdir / "out").exists()
    # release that candidate as veil run does; its report's utility is the one measured
    levels = ",".join(map(str, other["levels"]))
    r = client.post(
        "/explore/choose",
        data={"csrf": csrf, "policy": "policy.yaml", "levels": levels},
        follow_redirects=False,
    )
    assert wait_job(client, "run", r.headers["location"].rsplit("/", 1)[1])["state"] == "done"
    report = json.loads((workdir / "out" / "report.json").read_text())
    assert list(report["anonymize"]["transformation"].values()) == other["levels"]
    reported = report["utility"]
    compared = {k: v for k, v in measured.items() if k not in ("seconds", "levels")}
    # every measure of the run's utility section, the engine's metrics included
    assert json.loads(json.dumps(compared, default=str)) == reported
    assert shown["mean_total_variation"] == f"{reported['summary']['mean_total_variation']:.4f}"
    assert shown["information_loss_entropy"] == (
        f"{reported['summary']['information_loss_entropy']:.4f}"
    )
    assert shown["ml_accuracy_delta"] == f"{reported['summary']['ml_accuracy_delta']:+.4f}"
    loss = reported["information_loss"]
    assert shown["discernibility_normalized"] == f"{loss['discernibility_normalized']:.4f}"
    assert shown["suppressed_share"] == f"{loss['suppressed_share']:.4f}"
    # the optimum's utility differs from this candidate's (the figures are the node's)
    optimum = next(n for n in result["nodes"] if n["optimum"])
    assert (
        candidate_utility(workdir, "policy.yaml", optimum["levels"])["summary"]
        != (measured["summary"])
    )


def test_an_infeasible_candidates_utility_is_refused_clearly(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    result = explore(workdir, "policy.yaml")
    infeasible = [i for i, n in enumerate(result["nodes"]) if not n["feasible"]]
    assert infeasible
    page = _complete(client, f"/explore?policy=policy.yaml&node={infeasible[0]}&utility=1")
    assert page.status_code == 200 and 'id="utility-problem"' in page.text
    assert "does not meet the models" in page.text and 'id="utility"' not in page.text


def test_a_slow_exploration_is_shown_as_it_goes_then_whole(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ui_session: Callable[..., Any]
) -> None:
    import threading

    import veil.ui._explore as explore_module
    from veil.tabular._search import _Evaluator

    evaluate = _Evaluator.evaluate
    jobs: list[Any] = []
    real = explore_module.Exploration
    gate = threading.Event()

    def recorded() -> Any:
        jobs.append(real())
        return jobs[-1]

    def held(self: Any, *args: Any, **kwargs: Any) -> Any:
        # the exploration's own nodes (after the search, once the head is known) wait at
        # the gate after the first one: the first view is certainly partial
        if jobs and jobs[0].head is not None and jobs[0].nodes:
            assert gate.wait(30)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(_Evaluator, "evaluate", held)
    monkeypatch.setattr(explore_module, "Exploration", recorded)
    monkeypatch.setattr(explore_module, "FIRST_VIEW_SECONDS", 0.0)
    client, _ = ui_session(workdir)
    try:
        first = client.get("/explore?policy=policy.yaml")
    finally:
        gate.set()
    assert first.status_code == 200
    assert 'id="explore-running"' in first.text
    assert '<meta http-equiv="refresh" content="1">' in first.text
    found = re.search(r'id="explore-count">(\d+)<', first.text)
    assert found is not None
    shown = int(found.group(1))
    total = jobs[0].head["lattice_size"]
    assert shown <= 1 < total and first.text.count("<circle") <= shown
    whole = _complete(client, "/explore?policy=policy.yaml")
    assert int(re.search(r'id="explore-count">(\d+)<', whole.text).group(1)) == total
    assert "<meta http-equiv" not in whole.text and 'id="explore-optimum"' in whole.text


def test_an_edited_policy_stops_the_old_exploration(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ui_session: Callable[..., Any]
) -> None:
    import veil.ui._explore as explore_module

    jobs: list[Any] = []
    real = explore_module.Exploration

    def recorded() -> Any:
        jobs.append(real())
        return jobs[-1]

    monkeypatch.setattr(explore_module, "Exploration", recorded)
    monkeypatch.setattr(explore_module, "FIRST_VIEW_SECONDS", 0.0)
    client, _ = ui_session(workdir)
    assert client.get("/explore?policy=policy.yaml").status_code == 200
    (workdir / "policy.yaml").write_text(POLICY.replace("limit: 0.1", "limit: 0.15"))
    assert client.get("/explore?policy=policy.yaml").status_code == 200
    assert len(jobs) == 2 and jobs[0].cancel.is_set() and not jobs[1].cancel.is_set()


def test_a_running_exploration_is_cancelled_and_keeps_what_it_evaluated(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ui_session: Callable[..., Any]
) -> None:
    import veil.ui._explore as explore_module
    from veil.tabular._search import _Evaluator

    evaluate = _Evaluator.evaluate
    jobs: list[Any] = []
    real = explore_module.Exploration

    def recorded() -> Any:
        jobs.append(real())
        return jobs[-1]

    def held(self: Any, *args: Any, **kwargs: Any) -> Any:
        # the first exploration's nodes after the first wait until it is cancelled
        job = jobs[0] if jobs else None
        if job is not None and job.head is not None and job.nodes and len(jobs) == 1:
            assert job.cancel.wait(30)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(_Evaluator, "evaluate", held)
    monkeypatch.setattr(explore_module, "Exploration", recorded)
    monkeypatch.setattr(explore_module, "FIRST_VIEW_SECONDS", 0.0)
    client, csrf = ui_session(workdir)
    try:
        first = client.get("/explore?policy=policy.yaml")
        assert first.status_code == 200 and 'id="explore-running"' in first.text
        assert 'id="explore-cancel"' in first.text and 'action="/explore/cancel"' in first.text
        # without the CSRF token: refused, the exploration goes on
        refused = client.post("/explore/cancel", data={"policy": "policy.yaml"})
        assert refused.status_code == 403 and not jobs[0].cancel.is_set()
        r = client.post(
            "/explore/cancel",
            data={"csrf": csrf, "policy": "policy.yaml"},
            follow_redirects=False,
        )
    finally:
        jobs[0].cancel.set()
    assert r.status_code == 303 and r.headers["location"] == "/explore?policy=policy.yaml"
    assert jobs[0].done.wait(30)
    total = jobs[0].head["lattice_size"]
    evaluated = len(jobs[0].nodes)
    # it stopped at the next node: the one held when cancel came, and no further
    assert 1 <= evaluated <= 2 < total
    page = client.get("/explore?policy=policy.yaml")
    assert page.status_code == 200 and len(jobs) == 1  # the cancelled one is shown, not re-run
    assert 'id="explore-cancelled"' in page.text and 'id="explore-running"' not in page.text
    assert "<meta http-equiv" not in page.text and 'id="explore-cancel"' not in page.text
    found = re.search(r'id="explore-count">(\d+)<', page.text)
    assert found is not None and int(found.group(1)) == evaluated
    # the candidates evaluated so far stay listed with their figures
    assert page.text.count('#picked">') == evaluated
    # explore again: a new exploration, run whole
    r = client.post(
        "/explore/restart", data={"csrf": csrf, "policy": "policy.yaml"}, follow_redirects=False
    )
    assert r.status_code == 303
    whole = _complete(client, "/explore?policy=policy.yaml")
    assert len(jobs) == 2 and not jobs[1].cancelled
    assert int(re.search(r'id="explore-count">(\d+)<', whole.text).group(1)) == total
    assert 'id="explore-cancelled"' not in whole.text


def test_cancelling_no_exploration_is_a_clear_404(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    r = client.post("/explore/cancel", data={"csrf": csrf, "policy": "policy.yaml"})
    assert r.status_code == 404 and "no exploration of this policy is running" in r.text
    r = client.post("/explore/cancel", data={"csrf": csrf, "policy": "../outside.yaml"})
    assert r.status_code == 404


def test_a_first_view_before_any_candidate_is_evaluated_renders_and_cancels(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ui_session: Callable[..., Any]
) -> None:
    import veil.ui._explore as explore_module
    from veil.tabular._search import _Evaluator

    evaluate = _Evaluator.evaluate
    jobs: list[Any] = []
    real = explore_module.Exploration

    def recorded() -> Any:
        jobs.append(real())
        return jobs[-1]

    def held(self: Any, *args: Any, **kwargs: Any) -> Any:
        # the exploration's first node (after the search) waits until it is cancelled
        if jobs and jobs[0].head is not None:
            assert jobs[0].cancel.wait(30)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(_Evaluator, "evaluate", held)
    monkeypatch.setattr(explore_module, "Exploration", recorded)
    monkeypatch.setattr(explore_module, "FIRST_VIEW_SECONDS", 0.0)
    client, csrf = ui_session(workdir)
    try:
        first = client.get("/explore?policy=policy.yaml")
        # the view with nothing evaluated yet: an empty plot, not a failed page
        assert first.status_code == 200, first.text
        assert re.search(r'id="explore-count">0<', first.text)
        assert 'id="explore-plot"' in first.text and "<circle" not in first.text
        r = client.post("/explore/cancel", data={"csrf": csrf, "policy": "policy.yaml"})
    finally:
        jobs[0].cancel.set()
    assert r.status_code == 200 and 'id="explore-cancelled"' in r.text
    assert len(jobs[0].nodes) <= 1


def _with_population(workdir: Path, privacy: str) -> None:
    """The sample people.csv inside a population four times its size (every sample row
    is one of the population's), and a policy with ``privacy`` against it."""
    rng = np.random.default_rng(11)
    sample = pd.read_csv(workdir / "people.csv")
    extra = pd.DataFrame(
        {
            "name": [f"Q{i}" for i in range(900)],
            "age": rng.integers(20, 70, 900),
            "zip": 10000 + rng.integers(0, 30, 900),
            "diagnosis": ["flu", "cold", "cough"] * 300,
        }
    )
    pd.concat([sample, extra]).to_csv(workdir / "population.csv", index=False)
    (workdir / "policy.yaml").write_text(
        POLICY.replace("  k_anonymity: {k: 4}\n", privacy).replace(
            "suppression_limit: 0.1", "suppression_limit: 0.2"
        )
    )


@pytest.mark.parametrize(
    "privacy",
    [
        "  k_map: {k: 6, population: population.csv}\n",
        "  k_anonymity: {k: 2}\n  delta_presence: {delta_min: 0.0, delta_max: 0.6, "
        "population: population.csv}\n",
    ],
    ids=["k_map", "delta_presence"],
)
def test_a_population_table_is_explored_as_veil_run_searches_it(
    workdir: Path, privacy: str
) -> None:
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    _with_population(workdir, privacy)
    result = explore(workdir, "policy.yaml")
    assert result["population"] == "table"
    assert result["complete"] and result["evaluated"] == result["lattice_size"]
    ran = run_policy(load_policy(workdir / "policy.yaml"), write=False)
    section = ran.report["anonymize"]
    optimum = next(n for n in result["nodes"] if n["optimum"])
    assert list(section["transformation"].values()) == optimum["levels"]
    assert optimum["suppressed"] == section["suppressed_records"]
    assert optimum["classes"] == section["equivalence_classes"]
    # the journalist's risk: one over the smallest population class the release keeps
    min_pop = section["population"]["min_class_population"]
    assert optimum["journalist_risk"] == pytest.approx(1 / min_pop)
    if "k_map" in privacy:
        # counted by hand at the bottom node: k-map keeps a sample class whose population
        # class holds 6 or more records; the journalist's risk is one over the smallest
        population = pd.read_csv(workdir / "population.csv")
        sample = pd.read_csv(workdir / "people.csv")
        pop_sizes = population.groupby(["age", "zip"]).size()
        in_sample = pop_sizes[sample.groupby(["age", "zip"]).size().index]
        kept = in_sample[in_sample >= 6]
        bottom = next(n for n in result["nodes"] if n["levels"] == [0, 0])
        assert bottom["classes"] == len(kept)
        if len(kept):
            assert bottom["journalist_risk"] == pytest.approx(1 / kept.min())
    # with the population, the lattice differs from the sample alone (k-map and
    # delta-presence read it): ignoring it would not reproduce the run
    assert any(n["journalist_risk"] is not None for n in result["nodes"])


def test_a_transform_on_a_quasi_identifier_is_applied_before_the_search(workdir: Path) -> None:
    from veil.pipeline import run_policy
    from veil.policy import load_policy

    before = explore(workdir, "policy.yaml")
    (workdir / "policy.yaml").write_text(
        POLICY.replace(
            "age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}}",
            "age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}, "
            "transform: {type: top_bottom_code, lower: 30, upper: 50}}",
        )
    )
    result = explore(workdir, "policy.yaml")
    assert result["complete"] and result["evaluated"] == result["lattice_size"]
    ran = run_policy(load_policy(workdir / "policy.yaml"), write=False)
    section = ran.report["anonymize"]
    optimum = next(n for n in result["nodes"] if n["optimum"])
    assert list(section["transformation"].values()) == optimum["levels"]
    assert optimum["suppressed"] == section["suppressed_records"]
    assert optimum["classes"] == section["equivalence_classes"]
    # the bottom node's classes are those of the coded ages, counted with pandas
    df = pd.read_csv(workdir / "people.csv")
    sizes = df.assign(age=df["age"].clip(30, 50)).groupby(["age", "zip"]).size()
    bottom = next(n for n in result["nodes"] if n["levels"] == [0, 0])
    assert bottom["suppressed"] == int(sizes[sizes < 4].sum())
    assert bottom["classes"] == int((sizes >= 4).sum())
    old_bottom = next(n for n in before["nodes"] if n["levels"] == [0, 0])
    assert (old_bottom["suppressed"], old_bottom["classes"]) != (
        bottom["suppressed"],
        bottom["classes"],
    )


def test_the_page_shows_the_journalist_risk_with_a_population(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    _with_population(workdir, "  k_map: {k: 6, population: population.csv}\n")
    client, _ = ui_session(workdir)
    page = _complete(client, "/explore?policy=policy.yaml")
    assert page.status_code == 200, page.text[:500]
    assert 'id="explore-optimum"' in page.text
    assert "Journalist risk</th>" in page.text and 'id="picked-journalist"' in page.text
