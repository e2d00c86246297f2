"""Benchmark: the optimal search on datasets with ARX-format hierarchies, against brute force.

Run by hand (not in the test suite), on a folder of datasets that are not in this repository::

    PYTHONPATH=src python benchmarks/tabular_external.py --data DIR [--quick] [--only NAME,...]

``DIR`` holds datasets laid out as in ARX's own repositories: a table ``NAME.csv`` (``;``
separated, with a header) and beside it one ``NAME_hierarchy_ATTRIBUTE.csv`` per attribute
that has a hierarchy (ARX's CSV format). Datasets may sit in ``DIR`` or in its sub-folders.
An optional ``DIR/SOURCES.json`` (``{NAME: "where it came from"}``) is copied into the results,
and an optional ``DIR/SETS.json`` (``{NAME: [[QI, ...], ...]}``) adds quasi-identifier sets.

For each dataset the script picks a sensitive column (an attribute with a hierarchy and a
small domain, so hierarchical t-closeness applies) and up to two sets of quasi-identifiers
whose lattice stays small enough for brute force, then runs the matrix

* k in {2, 5, 10} alone; k=5 with distinct, entropy and recursive (c=3) l-diversity (l=2) and
  with equal, ordered and hierarchical t-closeness (t=0.2),
* each with suppression limits 0 and 0.05 and metrics ``loss`` and ``entropy``,
* once k=5 at 5 % suppression with ``dm``, ``aecs``, ``height`` and ``precision``.

Every run goes through the policy the CLI would read (``veil anonymize``'s reading of the
CSV and hierarchies), through the Python API (:func:`veil.tabular.anonymize`, which re-checks
its release), and is compared with an exhaustive evaluation of the whole lattice
(``LatticeSearch(..., exhaustive=True)``) on the same frequency table: the same score and the
same sum of levels (ARX's tie rule: among equal scores the lower node wins); ``same_levels``
says whether the levels are identical too (equal score and level sum with other levels is a
genuine tie). A subset of the runs (first quasi-identifier set, k=5) also goes through the
real CLI, ``python -m veil anonymize POLICY --out DIR --json``, which must give the API's
transformation. Search wall and CPU time and the number of nodes checked are recorded.

Writes ``benchmarks/results/tabular_external.json``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from veil.policy import load_policy  # noqa: E402
from veil.tabular import AnonymizeConfig, anonymize  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "tabular_external.json"
MAX_LATTICE = 1200  # nodes: the exhaustive pass evaluates every one
MAX_QIS = 5
REL = 1e-9


@dataclass
class Dataset:
    name: str
    table: Path
    header: list[str]
    hierarchies: dict[str, Path]  # attribute -> ARX hierarchy file
    heights: dict[str, int] = field(default_factory=dict)
    distinct: dict[str, int] = field(default_factory=dict)
    rows: int = 0


def _read_header(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return next(csv.reader(fh, delimiter=";"))


def discover(root: Path) -> list[Dataset]:
    """Every ``NAME.csv`` in ``root`` or a sub-folder with ``NAME_hierarchy_*.csv`` beside it."""
    found = []
    for table in sorted(root.rglob("*.csv")):
        if "_hierarchy_" in table.name:
            continue
        stem = table.stem
        prefix = f"{stem}_hierarchy_"
        files = sorted(table.parent.glob(f"{prefix}*.csv"))
        if not files:
            continue
        header = _read_header(table)
        hier = {}
        for f in files:
            attr = f.name[len(prefix) : -len(".csv")]
            if attr in header:
                hier[attr] = f
        if hier:
            found.append(Dataset(stem, table, header, hier))
    return found


def _profile(ds: Dataset) -> None:
    """Hierarchy heights and the number of distinct values of each column (raw strings)."""
    values: dict[str, set[str]] = {c: set() for c in ds.header}
    rows = 0
    with ds.table.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=";")
        next(reader)
        for r in reader:
            if not r:
                continue
            rows += 1
            for c, v in zip(ds.header, r, strict=False):
                values[c].add(v)
    ds.rows = rows
    ds.distinct = {c: len(v) for c, v in values.items()}
    for attr, path in ds.hierarchies.items():
        with path.open(newline="", encoding="utf-8-sig") as fh:
            first = next(r for r in csv.reader(fh, delimiter=";") if r)
        ds.heights[attr] = len(first)


def _lattice(ds: Dataset, qis: list[str]) -> int:
    size = 1
    for q in qis:
        size *= ds.heights[q]
    return size


def choose(ds: Dataset) -> tuple[str, list[list[str]]]:
    """A sensitive attribute and up to two quasi-identifier sets with small lattices."""
    attrs = [c for c in ds.header if c in ds.hierarchies]
    candidates = [a for a in attrs if 3 <= ds.distinct[a] <= 60 and ds.heights[a] >= 3]
    candidates = candidates or [a for a in attrs if 2 <= ds.distinct[a] <= 60]
    sensitive = candidates[-1] if candidates else attrs[-1]
    pool = [a for a in attrs if a != sensitive]
    sets: list[list[str]] = []
    for order in (pool, pool[::-1]):
        chosen: list[str] = []
        for a in order:
            if len(chosen) < MAX_QIS and _lattice(ds, [*chosen, a]) <= MAX_LATTICE:
                chosen.append(a)
        chosen = [a for a in pool if a in chosen]  # data column order
        if chosen and chosen not in sets:
            sets.append(chosen)
    return sensitive, sets


def matrix(quick: bool) -> list[dict[str, Any]]:
    """The configurations run on every quasi-identifier set."""
    out: list[dict[str, Any]] = []
    sups = (0.0, 0.05)
    metrics = ("loss", "entropy")
    models: list[dict[str, Any]] = [{"k": k} for k in ((5,) if quick else (2, 5, 10))]
    models += [
        {"k": 5, "l": 2, "variant": "distinct"},
        {"k": 5, "l": 2, "variant": "entropy"},
        {"k": 5, "l": 2, "variant": "recursive", "c": 3},
        {"k": 5, "t": 0.2, "distance": "equal"},
        {"k": 5, "t": 0.2, "distance": "ordered"},
        {"k": 5, "t": 0.2, "distance": "hierarchical"},
    ]
    if quick:
        models = models[:1] + models[1:2] + models[4:5] + models[6:7]
    for m in models:
        for sup in sups:
            for metric in metrics:
                out.append({**m, "suppression": sup, "metric": metric})
    for metric in ("dm", "aecs", "height", "precision"):
        out.append({"k": 5, "suppression": 0.05, "metric": metric})
    return out


def _q(s: str | Path) -> str:
    return json.dumps(str(s))


def policy_yaml(ds: Dataset, qis: list[str], sensitive: str, cfg: dict[str, Any]) -> str:
    lines = [f"data: {{path: {_q(ds.table)}, separator: ';'}}", "columns:"]
    for q in qis:
        h = ds.hierarchies[q]
        lines.append(
            f"  {_q(q)}: {{role: quasi_identifier, "
            f"hierarchy: {{type: file, path: {_q(h)}, separator: ';'}}}}"
        )
    lines.append(f"  {_q(sensitive)}: {{role: sensitive}}")
    privacy = [f"k_anonymity: {{k: {cfg['k']}}}"]
    if "l" in cfg:
        c = f", c: {cfg['c']}" if "c" in cfg else ""
        privacy.append(f"l_diversity: {{l: {cfg['l']}, variant: {cfg['variant']}{c}}}")
    if "t" in cfg:
        h = ""
        if cfg["distance"] == "hierarchical":
            h = f", hierarchy: {{type: file, path: {_q(ds.hierarchies[sensitive])}}}"
        privacy.append(f"t_closeness: {{t: {cfg['t']}, distance: {cfg['distance']}{h}}}")
    privacy.append(f"suppression_limit: {cfg['suppression']}")
    lines += [
        "unlisted_columns: drop",
        "privacy: {" + ", ".join(privacy) + "}",
        f"search: {{algorithm: optimal, metric: {cfg['metric']}}}",
        "output: {format: csv, report: [json]}",
    ]
    return "\n".join(lines) + "\n"


def _label(cfg: dict[str, Any]) -> str:
    parts = [f"k={cfg['k']}"]
    if "l" in cfg:
        parts.append(f"l={cfg['l']} {cfg['variant']}" + (f" c={cfg['c']}" if "c" in cfg else ""))
    if "t" in cfg:
        parts.append(f"t={cfg['t']} {cfg['distance']}")
    parts += [f"sup={cfg['suppression']}", cfg["metric"]]
    return ", ".join(parts)


def _via_cli(cfg: dict[str, Any]) -> bool:
    """The runs repeated through ``veil anonymize``: k=5 alone, and each l / t model and each
    other metric once per suppression limit."""
    if cfg["k"] != 5 or cfg["metric"] == "aecs":
        return False
    return ("l" not in cfg and "t" not in cfg) or cfg["metric"] == "loss"


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


class Runner:
    """Reads each table once, as the CLI does, and caches frequency tables."""

    def __init__(self, tmp: Path, cli: bool) -> None:
        self.tmp = tmp
        self.cli = cli
        self.frames: dict[tuple[str, tuple[str, ...]], Any] = {}
        self.tables: dict[tuple[Any, ...], Any] = {}

    def frame(self, ds: Dataset, policy: Any) -> Any:
        """The input as a Python user reads it for the search: the hierarchy columns and the
        sensitive column as text (what ``veil anonymize`` does, see ``raw_columns``)."""
        from veil.io import read_table
        from veil.pipeline import _reconcile_columns
        from veil.tabular._anonymize import raw_columns

        key = (ds.name, tuple(sorted(raw_columns(policy))))
        if key not in self.frames:
            self.frames[key] = read_table(
                policy.data, base_dir=policy.base_dir, raw_columns=list(key[1])
            )
        return _reconcile_columns(policy, self.frames[key])

    def run(self, ds: Dataset, qis: list[str], sens: str, cfg: dict[str, Any]) -> dict[str, Any]:
        from veil.tabular._anonymize import _hierarchies, _sensitive_hierarchies
        from veil.tabular._encoding import encode
        from veil.tabular._metrics import METRICS
        from veil.tabular._privacy_models import build_models
        from veil.tabular._search import LatticeSearch

        path = self.tmp / "policy.yaml"
        path.write_text(policy_yaml(ds, qis, sens, cfg))
        policy = load_policy(path)
        config = AnonymizeConfig.from_policy(policy)
        df = self.frame(ds, policy)
        row: dict[str, Any] = {
            "dataset": ds.name,
            "qis": qis,
            "sensitive": sens,
            "config": cfg,
        }
        # the Python API, end to end (hierarchies, encoding, search, release, re-check)
        try:
            t0 = time.perf_counter()
            res = anonymize(df, config)
            levels = [res.transformation[q] for q in qis] if res.transformation else None
            row["api"] = {
                "levels": levels,
                "score": res.information_loss[cfg["metric"]],
                "suppressed": res.suppressed_records,
                "classes": res.equivalence_classes,
                "seconds": round(time.perf_counter() - t0, 4),
                "satisfied": all(res.satisfied.values()),
            }
        except Exception as exc:  # recorded, the run goes on
            row["api"] = {"error": f"{type(exc).__name__}: {exc}"}
        # the search alone, timed, and the exhaustive pass on the same frequency table
        hkey = (ds.name, tuple(qis), sens, cfg.get("distance") == "hierarchical")
        if hkey not in self.tables:
            hier = _hierarchies(df, config)
            sens_h = _sensitive_hierarchies(df, config)
            self.tables[hkey] = encode(df, qis, hier, [sens], sensitive_hierarchies=sens_h)
        ft = self.tables[hkey]
        models = build_models(config.privacy, ft.domains, default_column=sens)
        metric_cls = METRICS.get(cfg["metric"])
        w0, c0 = time.perf_counter(), time.process_time()
        opt = LatticeSearch(models, metric_cls(), cfg["suppression"]).run(ft)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        w0 = time.perf_counter()
        ex = LatticeSearch(models, metric_cls(), cfg["suppression"], exhaustive=True).run(ft)
        ex_wall = time.perf_counter() - w0
        row["optimal"] = {
            "levels": list(opt.levels) if opt.levels else None,
            "score": opt.score,
            "checked": opt.checked,
            "lattice_size": opt.lattice_size,
            "wall_s": round(wall, 4),
            "cpu_s": round(cpu, 4),
        }
        row["exhaustive"] = {
            "levels": list(ex.levels) if ex.levels else None,
            "score": ex.score,
            "checked": ex.checked,
            "wall_s": round(ex_wall, 4),
        }
        o, e = opt.levels, ex.levels
        row["same_as_exhaustive"] = _same(opt.score, ex.score) and (
            (o is None and e is None) or (o is not None and e is not None and sum(o) == sum(e))
        )
        row["same_levels"] = o == e
        api = row["api"]
        row["api_same_as_search"] = (
            "error" not in api and api["levels"] == row["optimal"]["levels"]
        ) or ("error" in api and o is None and "PrivacyRequirementNotMet" in api["error"])
        return row

    def cli_run(self, ds: Dataset, qis: list[str], sens: str, cfg: dict[str, Any]) -> dict:
        path = self.tmp / "policy_cli.yaml"
        path.write_text(policy_yaml(ds, qis, sens, cfg))
        out = self.tmp / "cli_out"
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "veil", "anonymize", str(path), "--out", str(out), "--json"],
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
        res: dict[str, Any] = {"exit": proc.returncode, "wall_s": round(wall, 3)}
        if proc.returncode == 0:
            doc = json.loads(proc.stdout)
            res["levels"] = [doc["transformation"][q] for q in qis]
            res["score"] = doc["score"]
            res["checked"] = doc["search"]["checked"]
        else:
            res["stderr_tail"] = proc.stderr.strip().splitlines()[-1:] if proc.stderr else []
        return res


def _commit() -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return proc.stdout.strip() or None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="folder of ARX-format datasets")
    ap.add_argument("--quick", action="store_true", help="a smaller matrix")
    ap.add_argument("--only", default="", help="comma-separated dataset names")
    ap.add_argument("--no-cli", action="store_true", help="skip the CLI runs")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    datasets = discover(args.data)
    if args.only:
        keep = set(args.only.split(","))
        datasets = [d for d in datasets if d.name in keep]
    sources_file = args.data / "SOURCES.json"
    sources = json.loads(sources_file.read_text()) if sources_file.is_file() else {}
    sets_file = args.data / "SETS.json"
    extra_sets = json.loads(sets_file.read_text()) if sets_file.is_file() else {}
    configs = matrix(args.quick)
    runs: list[dict[str, Any]] = []
    described = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(Path(tmp), cli=not args.no_cli)
        for ds in datasets:
            _profile(ds)
            sens, qi_sets = choose(ds)
            qi_sets += [
                q for q in extra_sets.get(ds.name, []) if sens not in q and q not in qi_sets
            ]
            described.append(
                {
                    "name": ds.name,
                    "source": sources.get(ds.name),
                    "sha256": hashlib.sha256(ds.table.read_bytes()).hexdigest(),
                    "rows": ds.rows,
                    "columns": len(ds.header),
                    "hierarchies": {a: ds.heights[a] for a in ds.hierarchies},
                    "sensitive": sens,
                    "qi_sets": [{"qis": qis, "lattice_size": _lattice(ds, qis)} for qis in qi_sets],
                }
            )
            print(f"== {ds.name}: {ds.rows} rows, sensitive {sens}, sets {qi_sets}", flush=True)
            for si, qis in enumerate(qi_sets):
                for cfg in configs:
                    row = runner.run(ds, qis, sens, cfg)
                    if runner.cli and si == 0 and _via_cli(cfg):
                        cli = runner.cli_run(ds, qis, sens, cfg)
                        api = row["api"]
                        cli["same_as_api"] = (
                            cli.get("levels") == api.get("levels")
                            if cli["exit"] == 0
                            else cli["exit"] == 4 and "error" in api
                        )
                        row["cli"] = cli
                    runs.append(row)
                    flag = (
                        "ok " if row["same_as_exhaustive"] and row["api_same_as_search"] else "BAD"
                    )
                    opt = row["optimal"]
                    print(
                        f"  {flag} {','.join(qis)} | {_label(cfg)} | {opt['levels']} "
                        f"{opt['score']} checked {opt['checked']}/{opt['lattice_size']} "
                        f"{opt['wall_s']:.3f}s (exhaustive {row['exhaustive']['wall_s']:.2f}s)"
                        + ("" if "cli" not in row else f" cli={row['cli'].get('same_as_api')}")
                        + ("" if "error" not in row["api"] else f" api: {row['api']['error']}"),
                        flush=True,
                    )
    bad = [
        r
        for r in runs
        if not r["same_as_exhaustive"]
        or not r["api_same_as_search"]
        or ("cli" in r and not r["cli"]["same_as_api"])
    ]
    result = {
        "environment": {
            "veil_commit": _commit(),
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
        },
        "matrix": [_label(c) for c in configs],
        "datasets": described,
        "summary": {
            "runs": len(runs),
            "same_as_exhaustive": sum(r["same_as_exhaustive"] for r in runs),
            "same_levels": sum(r["same_levels"] for r in runs),
            "api_same_as_search": sum(r["api_same_as_search"] for r in runs),
            "cli_runs": sum("cli" in r for r in runs),
            "cli_same_as_api": sum(r["cli"]["same_as_api"] for r in runs if "cli" in r),
            "with_solution": sum(r["optimal"]["levels"] is not None for r in runs),
            "mismatches": len(bad),
            "search_wall_s_total": round(sum(r["optimal"]["wall_s"] for r in runs), 3),
            "search_wall_s_max": max((r["optimal"]["wall_s"] for r in runs), default=0.0),
            "seconds": round(time.perf_counter() - started, 1),
        },
        "runs": [compact(r) for r in runs],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(result))
    print(json.dumps(result["summary"], indent=1))


def compact(row: dict[str, Any]) -> dict[str, Any]:
    """One run as the results file keeps it (the QI set by name; errors and CLI in short)."""
    opt, ex, api = row["optimal"], row["exhaustive"], row["api"]
    out: dict[str, Any] = {
        "dataset": row["dataset"],
        "qis": ",".join(row["qis"]),
        "config": _label(row["config"]),
        "same_as_exhaustive": row["same_as_exhaustive"],
        "same_levels": row["same_levels"],
        "levels": opt["levels"],
        "score": opt["score"],
        "checked": opt["checked"],
        "lattice_size": opt["lattice_size"],
        "seconds": opt["wall_s"],
        "cpu_seconds": opt["cpu_s"],
        "exhaustive_seconds": ex["wall_s"],
        "api_same_as_search": row["api_same_as_search"],
    }
    if "error" in api:
        out["api_error"] = api["error"].split(":")[0]
    else:
        out["suppressed"] = api["suppressed"]
    if "cli" in row:
        out["cli_same_as_api"] = row["cli"]["same_as_api"]
        out["cli_seconds"] = row["cli"]["wall_s"]
    return out


def dump(result: dict[str, Any]) -> str:
    """JSON with one line per run (the file stays small enough to read and diff)."""
    head = {k: v for k, v in result.items() if k != "runs"}
    text = json.dumps(head, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(r) for r in result["runs"])
    return text + ',\n "runs": [\n  ' + lines + "\n ]\n}\n"


if __name__ == "__main__":
    main()
