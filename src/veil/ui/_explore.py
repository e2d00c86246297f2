"""Exploring the candidate transformations of a policy in ``veil ui`` (ARX's exploration).

For a saved policy with the optimal search, every node of the generalization lattice (the
hierarchy level of each quasi-identifier) is evaluated as the search evaluates it, on the
table read as ``veil run`` reads it (its field transforms applied by the run's own stage, a
delta-presence or k-map population table split and encoded as the run does): whether it meets the privacy models within the
suppression limit, its information loss under the policy's metric, the records it must
suppress, its classes and the prosecutor risk of the records it keeps (highest: one over
the smallest class; average: classes over records) and, against a population table, the
journalist risk (one over the smallest population class kept). The search's optimum is marked. Picking
another node writes it into the policy as ``search.transformation``; ``veil run`` then
releases exactly that node (and refuses one that does not meet the models), re-checked as
always. Counts and measures only: no value of the table.
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from veil._errors import InputError

__all__ = ["MAX_EXPLORED", "Exploration", "candidate_utility", "explore", "with_transformation"]

MAX_EXPLORED = 20_000  # lattice nodes evaluated at most
_BUDGET_SECONDS = 20.0
FIRST_VIEW_SECONDS = 0.6  # the page waits this long for the exploration, then shows it so far


def _frame_and_config(workdir: Path, relative: str) -> tuple[Any, Any, Any]:
    """The saved policy, the table its search sees and its anonymization config: the input
    read as ``veil run`` reads it, its field transforms applied by the run's own stage, and
    the columns the search reads as written swapped in (as :class:`AnonymizeStage` does)."""
    from veil.io import read_table
    from veil.pipeline import RunContext, _read_raw, _reconcile_columns, plan, text_columns
    from veil.policy import load_policy
    from veil.policy._locate import located_errors
    from veil.tabular._anonymize import AnonymizeConfig, raw_columns
    from veil.ui._policy_edit import check_policy_text
    from veil.ui._security import safe_path

    path = safe_path(workdir, relative)
    checked = check_policy_text(workdir, relative, _read_policy(path))
    if not checked["valid"]:
        raise InputError(checked["error"]["message"], hint=checked["error"]["hint"])
    policy = load_policy(path)
    if policy.search.algorithm != "optimal" or not policy.quasi_identifiers:
        raise InputError(
            "exploring needs the optimal search over quasi-identifiers",
            hint="set search: {algorithm: optimal} and give the policy quasi-identifiers",
        )
    stages = plan(policy, only=("transforms", "anonymize"))
    data = read_table(policy.data, base_dir=policy.base_dir, text_columns=text_columns(policy))
    raw = _read_raw(policy, stages, data)
    data = _reconcile_columns(policy, data)
    ctx = RunContext(policy=policy, original=data, data=data.copy(deep=False), raw=raw)
    for stage in stages:
        if stage.name != "anonymize":  # the field transforms, as the run applies them
            with located_errors(policy):
                stage.run(ctx)
    df = ctx.data
    if raw is not None and len(raw) == len(df):
        df = df.copy(deep=False)
        for c in raw_columns(policy):
            if c in raw.columns and c in df.columns:
                df[c] = raw[c].to_numpy()
    return policy, df, AnonymizeConfig.from_policy(policy)


def _read_policy(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the policy is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
        ) from None


class Exploration:
    """An exploration filled as it goes (the app's page shows it while it runs): ``head``
    once the table is read and the search's optimum known, then ``nodes`` one by one."""

    def __init__(self) -> None:
        self.head: dict[str, Any] | None = None
        self.nodes: list[dict[str, Any]] = []
        self.complete = False
        self.cancelled = False  # stopped by the user (or a re-saved policy), not a budget
        self.seconds: float | None = None
        self.error: dict[str, Any] | None = None
        self.started = time.perf_counter()
        self.done = threading.Event()
        self.cancel = threading.Event()

    def snapshot(self) -> dict[str, Any] | None:
        """The result so far (``running`` while nodes are still evaluated); ``None``
        before the head is known."""
        if self.head is None:
            return None
        running = not self.done.is_set()
        nodes = list(self.nodes)
        seconds = self.seconds if self.seconds is not None else time.perf_counter() - self.started
        return {
            **self.head,
            "evaluated": len(nodes),
            "complete": self.complete and not running,
            "running": running,
            "cancelled": self.cancelled,
            "nodes": nodes,
            "seconds": round(seconds, 3),
        }


def explore(workdir: Path, relative: str, into: Exploration | None = None) -> dict[str, Any]:
    """The lattice of the saved policy ``relative``: each node's levels, whether it meets
    the models, its loss, suppression, classes and risk; the optimum; the QIs' heights.
    ``into``: filled as the nodes are evaluated (stops early when its ``cancel`` is set)."""
    from veil.tabular._anonymize import (
        _check_numeric,
        _check_table,
        _hierarchies,
        _sensitive_hierarchies,
    )
    from veil.tabular._encoding import POPULATION, encode
    from veil.tabular._metrics import METRICS
    from veil.tabular._population import check_contained, split_population
    from veil.tabular._privacy_models import build_models
    from veil.tabular._search import LatticeSearch, _Evaluator, lattice

    job = into if into is not None else Exploration()
    started = job.started
    policy, df, config = _frame_and_config(workdir, relative)
    # the population of delta-presence and k-map, split and encoded as the run does it
    df, population = split_population(
        df,
        config.privacy,
        config.quasi_identifiers,
        table=config.population,
        base_dir=config.base_dir,
        read_options=config.read_options,
    )
    _check_table(df, config, len(df))
    if population is not None:
        _check_numeric(population.table, config, "population table: ")
    hier = _hierarchies(df, config, population)
    ft = encode(
        df,
        config.quasi_identifiers,
        hier,
        config.sensitive,
        sensitive_hierarchies=_sensitive_hierarchies(df, config),
        population=None if population is None else population.table,
    )
    if population is not None and population.source == "table":
        check_contained(ft)
    models = build_models(config.privacy, ft.domains, sensitive=config.sensitive)
    metric = METRICS.get(config.search.metric)(config.search.gs_factor)
    search = LatticeSearch(models, metric, config.privacy.suppression_limit)
    optimum = search.run(ft).levels
    metric.prepare(ft)
    limit = search.max_outliers(ft.n_rows)
    nodes = lattice(ft.heights)
    order = np.lexsort((np.arange(len(nodes)), nodes.sum(axis=1)))  # lowest first
    ev = _Evaluator(ft, models)
    job.head = {
        "policy": relative,
        "rows": ft.n_rows,
        "quasi_identifiers": list(config.quasi_identifiers),
        "heights": [int(h) for h in ft.heights],
        "metric": config.search.metric,
        "suppression_limit": limit,
        "lattice_size": len(nodes),
        "optimum": None if optimum is None else list(optimum),
        "chosen": policy.search.transformation,
        "population": None if population is None else population.source,
    }
    best = None if optimum is None else tuple(optimum)
    out = job.nodes
    complete = True
    for levels_list in nodes[order].tolist():
        if job.cancel.is_set():
            complete = False
            job.cancelled = True
            break
        if len(out) >= MAX_EXPLORED or time.perf_counter() - started > _BUDGET_SECONDS:
            complete = False
            break
        levels = tuple(levels_list)
        node, _ = ev.evaluate(levels)
        kept = node.kept & (node.sizes > 0)
        kept_sizes = node.sizes[kept]
        records = int(kept_sizes.sum())
        score = float(metric.score(node))
        journalist = None
        if population is not None and records:
            # the population's records in each kept class: a journalist who knows someone
            # is in the population (not that they are in the release) re-identifies one in
            # that many
            tab = ev.cache_map.get(levels)
            if tab is None:
                tab = ev.table(levels)
            pop = ev.histograms(tab)[POPULATION][:, 0][kept]
            journalist = float(1.0 / max(pop.min(), 1.0))
        out.append(
            {
                "levels": list(levels),
                "feasible": bool(node.suppressed_records <= limit),
                "loss": score if math.isfinite(score) else None,
                "suppressed": int(node.suppressed_records),
                "classes": len(kept_sizes),
                "highest_risk": float(1.0 / kept_sizes.min()) if records else 0.0,
                "average_risk": float(len(kept_sizes) / records) if records else 0.0,
                "journalist_risk": journalist,
                "optimum": levels == best,
            }
        )
    job.complete = complete
    job.seconds = time.perf_counter() - started
    job.done.set()
    result = job.snapshot()
    assert result is not None
    return result


# the stages a candidate's utility needs: what shapes the released table and measures it;
# text (a vault), dp (a ledger spend) and synth never run for a preview
_UTILITY_STAGES = frozenset({"transforms", "anonymize", "risk"})


def candidate_utility(workdir: Path, relative: str, levels: list[int]) -> dict[str, Any]:
    """The report's utility section for the policy ``relative`` released at ``levels``
    (one level per quasi-identifier): ``veil run``'s own pipeline in memory with
    ``search.transformation`` set to them, writing nothing. :class:`InputError` when the
    candidate cannot be released; the run's own error when it fails."""
    from veil.pipeline import run_policy
    from veil.policy import load_policy
    from veil.ui._policy_edit import check_policy_text
    from veil.ui._security import safe_path

    path = safe_path(workdir, relative)
    checked = check_policy_text(workdir, relative, _read_policy(path))
    if not checked["valid"]:
        raise InputError(checked["error"]["message"], hint=checked["error"]["hint"])
    policy = load_policy(path)
    if policy.dp is not None or policy.synth is not None:
        raise InputError(
            "a candidate's utility is not shown for a policy with dp: or synth: (its "
            "release is not the generalized table)",
            hint="release it and read the run's report",
        )
    qis = list(policy.quasi_identifiers)
    if len(levels) != len(qis):
        raise InputError("the levels do not match the policy's quasi-identifiers")
    search = policy.search.model_copy(
        update={"transformation": dict(zip(qis, levels, strict=True))}
    )
    chosen = policy.model_copy(update={"search": search})
    started = time.perf_counter()
    result = run_policy(chosen, write=False, only=_UTILITY_STAGES)
    utility = dict(result.report.get("utility") or {})
    utility["seconds"] = round(time.perf_counter() - started, 3)
    utility["levels"] = list(levels)
    return utility


def with_transformation(text: str, relative: str, levels: dict[str, int] | None) -> str:
    """The policy ``text`` with ``search.transformation`` set to ``levels`` (``None``:
    removed, the search's optimum again)."""
    from veil.ui._policy_edit import _mapping, dump_policy

    data = _mapping(text, relative)
    search = data.get("search")
    search = dict(search) if isinstance(search, dict) else {}
    if levels is None:
        search.pop("transformation", None)
    else:
        search["transformation"] = {str(k): int(v) for k, v in levels.items()}
    if search:
        data["search"] = search
    else:
        data.pop("search", None)
    return dump_policy(data)


def scatter(result: dict[str, Any], width: int = 640, height: int = 320) -> dict[str, Any]:
    """Points of the risk-against-loss view, in SVG coordinates (no script, no styles)."""
    nodes = [n for n in result["nodes"] if n["loss"] is not None]
    pad = 30
    if not nodes:  # none evaluated yet (the first view of a running exploration), or no loss
        return {
            "points": [],
            "width": width,
            "height": height,
            "max_loss": 0.0,
            "max_risk": 0.0,
            "pad": pad,
        }
    max_loss = max(n["loss"] for n in nodes) or 1.0
    max_risk = max(n["highest_risk"] for n in nodes) or 1.0
    points = []
    for i, n in enumerate(result["nodes"]):
        if n["loss"] is None:
            continue
        points.append(
            {
                "i": i,
                "x": round(pad + (width - 2 * pad) * n["loss"] / max_loss, 1),
                "y": round(height - pad - (height - 2 * pad) * n["highest_risk"] / max_risk, 1),
                "feasible": n["feasible"],
                "optimum": n["optimum"],
                "levels": ",".join(map(str, n["levels"])),
            }
        )
    points.sort(key=lambda p: (p["optimum"], p["feasible"]))  # the optimum drawn last
    return {
        "points": points,
        "width": width,
        "height": height,
        "max_loss": max_loss,
        "max_risk": max_risk,
        "pad": pad,
    }


def _first_view(job: Exploration) -> None:
    """Wait :data:`FIRST_VIEW_SECONDS` for the exploration, and in any case until its head
    is known (the table read and the search run) or it failed."""
    job.done.wait(FIRST_VIEW_SECONDS)
    while job.head is None and not job.done.wait(0.02):
        pass


def explore_routes(workdir: Path, page: Any, runs: Any) -> list[Any]:
    """``GET /explore?policy=P[&node=I]``, ``POST /explore/choose``, ``POST /explore/cancel``
    (stop the running exploration, keeping what it evaluated) and ``POST /explore/restart``
    (explore a cancelled policy again)."""
    import logging
    import threading
    from urllib.parse import parse_qs

    from starlette.concurrency import run_in_threadpool
    from starlette.responses import RedirectResponse
    from starlette.routing import Route

    from veil._errors import VeilError
    from veil.ui._policy_edit import POLICY_SUFFIXES, save_policy_text
    from veil.ui._security import safe_path

    log = logging.getLogger("veil.ui")
    cache: dict[tuple[str, int, int], Exploration] = {}
    utilities: dict[tuple[str, int, int, tuple[int, ...]], dict[str, Any]] = {}
    lock = threading.Lock()
    utility_lock = threading.Lock()

    def utility_of(relative: str, levels: list[int]) -> dict[str, Any]:
        st = safe_path(workdir, relative).stat()
        key = (relative, st.st_mtime_ns, st.st_size, tuple(levels))
        with utility_lock:
            if key not in utilities:
                if len(utilities) >= 32:
                    utilities.clear()
                utilities[key] = candidate_utility(workdir, relative, levels)
                log.info("candidate utility measured in %.2f s", utilities[key]["seconds"])
            return utilities[key]

    def work(job: Exploration, relative: str) -> None:
        try:
            explore(workdir, relative, job)
            log.info("explored %d nodes", len(job.nodes))
        except VeilError as exc:
            job.error = {"message": exc.message, "hint": exc.hint}
        except OSError:
            job.error = {"message": "the policy or its table could not be read", "hint": None}
        except Exception as exc:  # noqa: BLE001 - logged by its type: a message may quote data
            job.error = {
                "message": f"the exploration failed ({type(exc).__name__})",
                "hint": "run the policy with `veil run` to see the full error",
            }
            log.error("exploration failed: %s", type(exc).__name__)
        finally:
            job.done.set()

    def started(relative: str) -> Exploration:
        """The exploration of the saved policy (started in a thread unless it is known
        for this version of the file); one policy's lattice at a time."""
        path = safe_path(workdir, relative)
        if not path.name.lower().endswith(POLICY_SUFFIXES):
            raise InputError("this file is not a policy", hint="pick a .yaml policy")
        st = path.stat()
        key = (relative, st.st_mtime_ns, st.st_size)
        with lock:
            job = cache.get(key)
            if job is None or job.error is not None:
                for old in cache.values():
                    old.cancel.set()
                cache.clear()
                job = cache[key] = Exploration()
                threading.Thread(
                    target=work, args=(job, relative), name="veil-ui-explore", daemon=True
                ).start()
            return job

    async def explore_page(request: Any) -> Any:
        relative = request.query_params.get("policy") or ""
        problem: dict[str, Any] | None
        if not relative:
            problem = {"message": "no policy named", "hint": "save a policy, then explore it"}
            return page(request, "explore.html", {"result": None, "problem": problem}, 400)
        try:
            job = started(relative)
        except (VeilError, OSError) as exc:
            problem = (
                {"message": exc.message, "hint": exc.hint}
                if isinstance(exc, VeilError)
                else {"message": "the policy could not be read", "hint": None}
            )
            return page(request, "explore.html", {"result": None, "problem": problem}, 400)
        # a small lattice is shown whole; a large one at once as far as it got, the page
        # reloading itself until every node is in
        await run_in_threadpool(_first_view, job)
        if job.error is not None:
            return page(request, "explore.html", {"result": None, "problem": job.error}, 400)
        result = job.snapshot()
        assert result is not None
        picked = None
        raw = request.query_params.get("node")
        if raw is not None:
            try:
                picked = result["nodes"][int(raw)]
            except (ValueError, IndexError):
                problem = {"message": "no such candidate", "hint": "pick one from the view"}
                return page(request, "explore.html", {"result": None, "problem": problem}, 400)
        if picked is None:
            picked = next((n for n in result["nodes"] if n["optimum"]), None)
        shown = sorted(
            range(len(result["nodes"])),
            key=lambda i: (
                not result["nodes"][i]["feasible"],
                result["nodes"][i]["loss"] if result["nodes"][i]["loss"] is not None else 1e300,
            ),
        )[:200]
        context = {
            "result": result,
            "plot": scatter(result),
            "shown": shown,
            "picked": picked,
            "picked_index": result["nodes"].index(picked) if picked is not None else None,
            "utility": None,
            "utility_problem": None,
        }
        if picked is not None and request.query_params.get("utility") == "1":
            if not picked["feasible"]:
                context["utility_problem"] = {
                    "message": "this candidate does not meet the models: it cannot be released",
                    "hint": "pick one that meets them",
                }
            else:
                try:
                    context["utility"] = await run_in_threadpool(
                        utility_of, relative, picked["levels"]
                    )
                except VeilError as exc:
                    context["utility_problem"] = {"message": exc.message, "hint": exc.hint}
                    log.info("candidate utility failed: %s", type(exc).__name__)
        return page(request, "explore.html", context)

    def current(relative: str) -> Exploration | None:
        """The exploration of the saved policy's current version, if one was started."""
        st = safe_path(workdir, relative).stat()
        with lock:
            return cache.get((relative, st.st_mtime_ns, st.st_size))

    async def _policy_field(request: Any) -> str:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        return (form.get("policy") or [""])[0]

    def _back(relative: str) -> Any:
        from urllib.parse import quote

        return RedirectResponse(f"/explore?policy={quote(relative)}", status_code=303)

    async def cancel(request: Any) -> Any:
        relative = await _policy_field(request)
        try:
            job = current(relative)
        except (VeilError, OSError):
            job = None
        if job is None:
            problem = {"message": "no exploration of this policy is running", "hint": None}
            return page(request, "explore.html", {"result": None, "problem": problem}, 404)
        job.cancel.set()
        log.info("exploration cancel asked")
        # the thread stops before its next node; the page shows what it evaluated
        await run_in_threadpool(job.done.wait, 5.0)
        return _back(relative)

    async def restart(request: Any) -> Any:
        relative = await _policy_field(request)
        try:
            path = safe_path(workdir, relative)
            st = path.stat()
        except (VeilError, OSError):
            problem = {"message": "no such policy", "hint": "pick a saved policy"}
            return page(request, "explore.html", {"result": None, "problem": problem}, 404)
        with lock:
            key = (relative, st.st_mtime_ns, st.st_size)
            job = cache.get(key)
            if job is not None and job.done.is_set():
                del cache[key]  # the next view starts it again
        return _back(relative)

    async def choose(request: Any) -> Any:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        relative = (form.get("policy") or [""])[0]
        raw = (form.get("levels") or [""])[0]
        try:
            path = safe_path(workdir, relative)
            text = _read_policy(path)
            from veil.ui._policy_edit import _mapping

            data = _mapping(text, relative)
            raw_cols = data.get("columns")
            cols: dict[Any, Any] = raw_cols if isinstance(raw_cols, dict) else {}
            qis = [
                str(n)
                for n, c in cols.items()
                if isinstance(c, dict) and c.get("role") == "quasi_identifier"
            ]
            levels = None
            if raw != "optimum":
                values = [int(x) for x in raw.split(",")]
                if len(values) != len(qis):
                    raise InputError("the levels do not match the policy's quasi-identifiers")
                levels = dict(zip(qis, values, strict=True))
            result = save_policy_text(
                workdir, relative, with_transformation(text, relative, levels)
            )
            if not result["saved"]:
                err = result["error"]
                raise InputError(err["message"], hint=err["hint"])
            job = runs.start(relative)
        except VeilError as exc:
            problem = {"message": exc.message, "hint": exc.hint}
            return page(request, "explore.html", {"result": None, "problem": problem}, 400)
        except ValueError:
            problem = {"message": "the levels are not whole numbers", "hint": "pick a candidate"}
            return page(request, "explore.html", {"result": None, "problem": problem}, 400)
        log.info("transformation chosen: %s", "optimum" if levels is None else "another node")
        return RedirectResponse(f"/run/{job.id}", status_code=303)

    return [
        Route("/explore", explore_page),
        Route("/explore/choose", choose, methods=["POST"]),
        Route("/explore/cancel", cancel, methods=["POST"]),
        Route("/explore/restart", restart, methods=["POST"]),
    ]
