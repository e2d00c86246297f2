"""How many candidate transformations ``veil ui``'s exploration shows on Adult, and how fast.

The policy ARX's own Adult example uses: the eight quasi-identifiers with ARX's hierarchy
files (shipped in ``veil.data``), k=5, a 2 % suppression limit. Every node of that lattice
is a candidate ARX's exploration can show; the view evaluates each one (loss, suppression,
classes, prosecutor risk), so it shows at least as many as any ARX view of the same
lattice. Also checks that the view's optimum is the node ``veil run`` releases.

    PYTHONPATH=src python benchmarks/ui_explore_arx.py [--repeat 3] [--baseline-src DIR]

Writes benchmarks/results/ui_explore_arx.json (wall and CPU seconds of the whole
exploration, best of ``--repeat``; the wall seconds of the page's first view, which shows
the candidates evaluated so far and reloads itself until all are in; the load average at
the start and end).

``--baseline-src DIR`` (another veil ``src``, e.g. the main branch's): the exploration is
also timed side by side in fresh processes, this ``src`` and that one taking turns
(``--rounds`` each), CPU seconds best of ``--repeat`` in each process, and the two
explorations' figures (every node's levels, loss, suppression, classes, risks; the
optimum) are compared: ``side_by_side.figures_identical``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parent / "src")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-src", type=Path, default=None, help="another veil src dir")
    ap.add_argument("--rounds", type=int, default=3, help="side-by-side processes per src")
    ap.add_argument(
        "--out",
        type=Path,
        default=HERE / "results" / "ui_explore_arx.json",
        help="where to write the results (default benchmarks/results/ui_explore_arx.json)",
    )
    ap.add_argument("--child", nargs=2, metavar=("SRC", "WORK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(Path(args.child[0]), Path(args.child[1]), args.repeat)
        return
    sys.path.insert(0, SRC)
    from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame
    from veil.pipeline import run_policy
    from veil.policy import load_policy
    from veil.ui._explore import FIRST_VIEW_SECONDS, explore

    load_start = os.getloadavg()
    side: dict | None = None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        adult = adult_frame()
        _setup(work, adult)
        if args.baseline_src is not None:
            side = _side_by_side(work, args.baseline_src.resolve(), args.repeat, args.rounds)
        wall = cpu = float("inf")
        result: dict = {}
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            result = explore(work, "policy.yaml")
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        first_view, first_nodes = _first_view(work, args.repeat)
        ran = run_policy(load_policy(work / "policy.yaml"), write=False)
        released = list(ran.report["anonymize"]["transformation"].values())

    out = {
        "benchmark": "ui_explore_arx",
        "command": "PYTHONPATH=src python benchmarks/ui_explore_arx.py",
        "repeat": args.repeat,
        "table": {
            "name": "UCI Adult",
            "rows": len(adult),
            "quasi_identifiers": len(ADULT_QUASI_IDENTIFIERS),
        },
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "lattice_size": result["lattice_size"],
        "candidates_shown": result["evaluated"],
        "candidates_meeting_k5": sum(n["feasible"] for n in result["nodes"]),
        "complete": result["complete"],
        "optimum_is_the_released_node": result["optimum"] == released,
        "seconds": {"wall": round(wall, 3), "cpu": round(cpu, 3)},
        # the page itself: a fresh app's first GET of the exploration (it shows the nodes
        # evaluated so far and reloads itself until all are in), best of --repeat
        "first_view": {
            "seconds_wall": round(first_view, 3),
            "candidates_shown": first_nodes,
            "waits_at_most_seconds": FIRST_VIEW_SECONDS,
        },
    }
    if side is not None:
        out["command"] += f" --baseline-src {args.baseline_src} --rounds {args.rounds}"
        out["side_by_side"] = side
    path = args.out
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


def _setup(work: Path, adult: Any) -> None:
    """ARX's Adult example as a working folder: the table, its hierarchies, the policy."""
    from veil.data import ADULT_QUASI_IDENTIFIERS, adult_hierarchy_path

    adult.to_csv(work / "adult.csv", index=False)
    lines = []
    for q in ADULT_QUASI_IDENTIFIERS:
        src = adult_hierarchy_path(q)
        shutil.copy(src, work / src.name)
        lines.append(
            f"  {q}: {{role: quasi_identifier, hierarchy: {{type: file, path: {src.name}}}}}"
        )
    lines += [
        f"  {c}: {{role: insensitive}}" for c in adult.columns if c not in ADULT_QUASI_IDENTIFIERS
    ]
    (work / "policy.yaml").write_text(
        "version: 1\ndata: {path: adult.csv}\ncolumns:\n"
        + "\n".join(lines)
        + "\nprivacy:\n  k_anonymity: {k: 5}\n  suppression_limit: 0.02\n"
        "output: {path: out, format: csv}\n"
    )


def _child(src: Path, work: Path, repeat: int) -> None:
    """In a fresh process with ``src`` first on the path: the exploration's best CPU and
    wall seconds (after one untimed run: imports, caches) and a digest of its figures."""
    sys.path.insert(0, str(src))
    from veil.ui._explore import explore

    result = explore(work, "policy.yaml")
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        result = explore(work, "policy.yaml")
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    figures = {k: result[k] for k in ("nodes", "optimum", "heights", "suppression_limit")}
    # a figure a version leaves empty (the journalist risk, without a population) is left
    # out, so versions that add one still compare on the figures both compute
    figures["nodes"] = [{k: v for k, v in n.items() if v is not None} for n in result["nodes"]]
    digest = hashlib.sha256(json.dumps(figures, sort_keys=True).encode()).hexdigest()
    import veil

    where = str(Path(veil.__file__).resolve().parent.parent)
    print(
        json.dumps(
            {
                "cpu": cpu,
                "wall": wall,
                "digest": digest,
                "nodes": len(result["nodes"]),
                "src": where,
            }
        )
    )


def _side_by_side(work: Path, baseline: Path, repeat: int, rounds: int) -> dict:
    """This src and ``baseline`` timed in turns, each in fresh processes."""
    runs: dict[str, list[dict]] = {"this": [], "baseline": []}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for _ in range(rounds):
        for name, src in (("baseline", baseline), ("this", Path(SRC))):
            cmd = [sys.executable, __file__, "--repeat", str(repeat), "--child", str(src)]
            done = subprocess.run(
                [*cmd, str(work)], env=env, capture_output=True, text=True, check=True
            )
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    best = {n: min(r["cpu"] for r in rs) for n, rs in runs.items()}
    digests = {r["digest"] for rs in runs.values() for r in rs}
    return {
        "baseline_src": str(baseline),
        "rounds": rounds,
        "cpu_seconds": {n: round(v, 3) for n, v in best.items()},
        "wall_seconds": {n: round(min(r["wall"] for r in rs), 3) for n, rs in runs.items()},
        "cpu_speedup": round(best["baseline"] / best["this"], 2),
        "figures_identical": len(digests) == 1,
        "nodes": runs["this"][0]["nodes"],
    }


def _first_view(work: Path, repeat: int) -> tuple[float, int]:
    """Wall seconds of a fresh app's first exploration page, and the candidates it shows."""
    import re
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from veil.ui import UiSettings, create_app

    best, shown = float("inf"), 0
    for _ in range(repeat):
        settings = UiSettings(workdir=work, port=8799)
        client = TestClient(create_app(settings), base_url="http://127.0.0.1:8799")
        client.get(f"/data?token={settings.sessions.token}", follow_redirects=False)
        w0 = time.perf_counter()
        page = client.get("/explore?policy=policy.yaml")
        seconds = time.perf_counter() - w0
        if page.status_code != 200:
            raise SystemExit(f"the exploration page failed: {page.status_code}")
        found = re.search(r'id="explore-count">(\d+)<', page.text)
        if seconds < best:
            best, shown = seconds, int(found.group(1)) if found else 0
        while 'id="explore-running"' in client.get("/explore?policy=policy.yaml").text:
            time.sleep(0.2)  # let it finish before the next app starts its own
    return best, shown


if __name__ == "__main__":
    main()
