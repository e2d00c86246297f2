"""Benchmark: where a SecAgg+ round's time goes against plain aggregation, on Flower's engine.

One process per run calls ``simulate_federated`` (the function behind ``veil fl simulate``)
on Adult, 10 clients, IID, through Flower's simulation engine on Ray, with its rounds
alternating between plain aggregation and SecAgg+ (the server loop reads ``secagg`` from
the run's settings once a round; here it alternates, and each client app answers either
kind of message: plain aggregation's with veil's Message API client, SecAgg+'s with
veil's SecAgg+ client behind Flower's mod). A plain round and the SecAgg+ round after it
meet the same load, within a second of each other, so their ratio holds on a busy machine
where runs one after the other did not (two runs minutes apart gave 1.47x and 2.23x).
Each exchange the server has with the clients (plain aggregation: one a round; SecAgg+:
setup, key sharing, masked vectors with the local training, unmasking) is recorded with
its wall seconds and the CPU seconds of the whole process tree (server, Ray's daemons and
workers, from /proc), so that a loaded machine's waiting shows as wall time but not as CPU.
Reading /proc twice an exchange costs the server a few milliseconds of wall time (a look at
every process on the machine), four times as often in a SecAgg+ round as in a plain one: that
time is the benchmark's, so it is recorded for each exchange (``exchanges``: wall, CPU, the
reads' own wall) and taken off the round's wall time (``round_seconds``; as measured,
``round_seconds_gross`` and ``secagg_over_plain_wall_gross``, the ratio files before
2026-11-28T03:40Z reported).

Variants, each a run of its own, interleaved ``--repeats`` times (the order reversed on
every other pass):

- ``new``: veil as shipped (this checkout's ``src``);
- ``baseline`` (with ``--baseline-src DIR``, e.g. the main branch's ``src``): another copy
  of veil, measured in the same minutes;
- ``polling`` (with ``--polling``): this checkout with the waits veil replaced put back
  (Flower's simulation dispatcher and workers, ``vce_api.add_messages_to_queue``, which
  looks for new messages every 0.1 s, and ``vce_api.worker``, one Ray call per message;
  the server's look for replies every 10 ms and more) instead of waking on each stored
  message and batching an exchange's messages per Ray actor
  (:mod:`veil.federated._dispatch`).

Figures: for each variant and kind of round, medians over the rounds after each kind's
first ``--warmup`` (start-up and first-use costs), all repeats pooled; and the median of
the ratios of each SecAgg+ round to the mean of the plain rounds on either side of it
(``pair_ratio``), the figure least moved by load that drifts during a run.

The centralized baseline is cut to one epoch in these runs (it is not what is measured).

Run: ``PYTHONPATH=src python benchmarks/fl_secagg_profile.py [--rounds 16] [--repeats 2]
[--warmup 2] [--baseline-src /work/main/src] [--polling] [--note TEXT]``; writes
``benchmarks/results/fl_secagg_profile.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fl_accuracy import ROOT, SHARED, SHIPPED

OUT = Path(__file__).parent / "results" / "fl_secagg_profile.json"
TICK = os.sysconf("SC_CLK_TCK")
# the exchanges of a round, by the stage its messages carry (a plain round: one, "train");
# a SecAgg+ round has no setup exchange where its clients made their keys a round ahead,
# and neither setup nor key sharing where those were done with the last round's unmasking
STAGES = {
    "plain": ["train"],
    "secagg": ["setup", "share_keys", "collect_masked_vectors", "unmask"],
}


def _stage(messages: list[Any]) -> str:
    from flwr.common.secure_aggregation.secaggplus_constants import RECORD_KEY_CONFIGS, Key

    records = messages[0].content.config_records if messages else {}
    if RECORD_KEY_CONFIGS in records:
        return str(records[RECORD_KEY_CONFIGS][Key.STAGE])
    return "train"


def tree_cpu() -> float:
    """CPU seconds (user + system) of this process and all its descendants, from /proc."""
    me = os.getpid()
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(f[1])
        cpu[int(d)] = (int(f[11]) + int(f[12])) / TICK
    total = 0.0
    for pid, c in cpu.items():
        q = pid
        while q and q != me and q in parent:
            q = parent[q]
        if q == me:
            total += c
    return total


class _Alternating:
    """A run's settings whose ``secagg`` alternates, plain first, when the round loop reads it.

    Everything else (validation, the client app, the summary) sees ``secagg=True``.
    """

    def __init__(self, config: Any) -> None:
        self._config = config
        self.modes: list[str] = []

    @property
    def secagg(self) -> bool:
        if sys._getframe(1).f_code.co_name != "_loop":
            return True
        self.modes.append("secagg" if len(self.modes) % 2 else "plain")
        return self.modes[-1] == "secagg"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, name)


def _either_app(rows: Any) -> Any:
    """A ClientApp that answers plain aggregation's messages and SecAgg+'s."""
    from flwr.clientapp import ClientApp

    from veil.federated import _client

    class EitherApp(ClientApp):  # pickled by value with the benchmark (a __main__ class)
        def __init__(self, plain: Any, secure: Any) -> None:
            super().__init__()
            self.plain, self.secure = plain, secure

        def __call__(self, message: Any, context: Any) -> Any:
            if "arrays" in message.content.array_records:
                return self.plain(message, context)
            return self.secure(message, context)

    return EitherApp(_client.client_app(rows), _SECAGG_APP(rows))


_SECAGG_APP: Any = None  # veil's own secagg_client_app, set by child()


def child(polling: bool, rounds: int, data: Path) -> dict[str, Any]:
    """One run in this process (called with ``--child``)."""
    global _SECAGG_APP
    import pandas as pd

    import veil.train
    from veil.federated import FLConfig, _client, _server, simulate_federated

    exchanges: list[tuple[float, float, float, str]] = []

    def timed(self: Any, messages: Any, *, timeout: float | None = None) -> list[Any]:
        msgs = list(messages)
        s0 = time.perf_counter()
        c = tree_cpu()
        t = time.perf_counter()
        out = list(self._grid.send_and_receive(msgs, timeout=timeout))
        t1 = time.perf_counter()
        c1 = tree_cpu()
        # the two reads of /proc (a few ms each, all of it on the server's thread between
        # exchanges) are the benchmark's, not the round's: kept apart, taken off the round
        exchanges.append((t1 - t, c1 - c, (t - s0) + (time.perf_counter() - t1), _stage(msgs)))
        return out

    _server._ObservedGrid.send_and_receive = timed  # type: ignore[method-assign]
    if polling:
        # as before the wake-ups: Flower's own dispatcher (a look every 0.1 s) and workers
        # (a Ray call per message), and the server's looks for replies every 10 ms or more
        import contextlib

        import veil.federated._runtime as runtime
        import veil.federated._simulate as simulate

        setattr(simulate, "prompt_dispatch", contextlib.nullcontext)  # noqa: B010
        setattr(runtime, "doorbell", lambda state, method: None)  # noqa: B010
        setattr(runtime, "pushing", lambda state: contextlib.nullcontext())  # noqa: B010
    _SECAGG_APP = _client.secagg_client_app
    _client.secagg_client_app = _either_app  # type: ignore[assignment]
    train = veil.train.train_nonprivate

    def one_epoch(model: Any, ds: Any, **kw: Any) -> Any:
        kw["epochs"] = 1
        return train(model, ds, **kw)

    veil.train.train_nonprivate = one_epoch  # type: ignore[assignment]
    frame = pd.read_csv(data, sep=None, engine="python")
    cfg = _Alternating(FLConfig(clients=10, rounds=rounds, secagg=True))
    out = simulate_federated(frame, "salary-class", cfg, observe=lambda m: None)  # type: ignore[arg-type]
    result: dict[str, Any] = {"modes": cfg.modes, "accuracy": out["accuracy"]}
    i = 0
    net = []
    for mode, seconds in zip(cfg.modes, out["round_seconds"], strict=True):
        # a plain round's one exchange; a SecAgg+ round's up to its unmasking
        last = STAGES[mode][-1]
        j = i
        while exchanges[j][3] != last:
            j += 1
        ex = exchanges[i : j + 1]
        i = j + 1
        one = result.setdefault(
            mode, {"round_seconds": [], "round_seconds_gross": [], "exchanges": []}
        )
        net.append(seconds - sum(x[2] for x in ex))
        one["round_seconds"].append(net[-1])
        one["round_seconds_gross"].append(seconds)
        one["exchanges"].append(ex)
    assert i == len(exchanges), "every exchange belongs to a round"
    result["round_seconds"] = net
    result["round_seconds_gross"] = out["round_seconds"]
    return result


def _pooled(runs: list[dict[str, Any]], mode: str, warmup: int) -> dict[str, Any]:
    """Medians over the rounds of one kind after its first ``warmup``, every run pooled."""
    walls = [s for r in runs for s in r[mode]["round_seconds"][warmup:]]
    gross = [s for r in runs for s in r[mode].get("round_seconds_gross", [])[warmup:]]
    exs = [e for r in runs for e in r[mode]["exchanges"][warmup:]]

    def by_stage(k: int) -> list[float | None]:
        # the median over the rounds that had the stage; None where none had it
        out: list[float | None] = []
        for stage in STAGES[mode]:
            values = [x[k] for e in exs for x in e if x[3] == stage]
            out.append(statistics.median(values) if values else None)
        return out

    return {
        "median_round_seconds": statistics.median(walls),
        "median_round_seconds_gross": statistics.median(gross) if gross else None,
        "median_instrument_seconds": statistics.median(sum(x[2] for x in e) for e in exs),
        "median_round_cpu_seconds": statistics.median(sum(x[1] for x in e) for e in exs),
        "median_exchange_seconds": by_stage(0),
        "median_exchange_cpu_seconds": by_stage(1),
        "rounds_with_exchange": [
            sum(any(x[3] == stage for x in e) for e in exs) for stage in STAGES[mode]
        ],
        "rounds_pooled": len(walls),
    }


def _pair_ratios(run: dict[str, Any], warmup: int) -> list[float]:
    """Each SecAgg+ round after the warm-up over the mean of the plain rounds around it."""
    secs, modes = run["round_seconds"], run["modes"]
    out = []
    for r in range(2 * warmup, len(modes)):
        if modes[r] != "secagg":
            continue
        around = [secs[q] for q in (r - 1, r + 1) if 0 <= q < len(modes) and modes[q] == "plain"]
        out.append(secs[r] / statistics.mean(around))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=16, help="rounds a run (half of each kind)")
    ap.add_argument("--repeats", type=int, default=2, help="interleaved passes over the runs")
    ap.add_argument("--warmup", type=int, default=2, help="first rounds of each kind left out")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--note", default="", help="recorded with the results (e.g. the load)")
    ap.add_argument("--child", metavar="WAITS", choices=("wakeups", "polling"))
    ap.add_argument("--baseline-src", type=Path, help="another veil src to run beside")
    ap.add_argument("--polling", action="store_true", help="also with Flower's own dispatch")
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    if a.child:
        print(json.dumps(child(a.child == "polling", a.rounds, data)))
        return
    if a.rounds < 2 * a.warmup + 2:
        ap.error("--rounds must leave rounds of each kind after --warmup")
    plan: list[tuple[str, bool, Path]] = [("new", False, ROOT / "src")]
    if a.baseline_src is not None:
        plan.append(("baseline", False, a.baseline_src))
    if a.polling:
        plan.append(("polling", True, ROOT / "src"))
    done: dict[str, list[dict[str, Any]]] = {name: [] for name, *_ in plan}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for rep in range(a.repeats):
        for name, polling, src in plan if rep % 2 == 0 else plan[::-1]:
            env = {**os.environ, "PYTHONPATH": str(src)}
            # the clients at the command's priority in every variant, as veil now runs them
            # (a baseline from before would leave Ray's +15 and lose the CPU to any load)
            env.setdefault("RAY_worker_niceness", "0")
            waits = "polling" if polling else "wakeups"
            cmd = [sys.executable, __file__, "--rounds", str(a.rounds), "--child", waits]
            load = os.getloadavg()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
            one = json.loads(proc.stdout.strip().splitlines()[-1])
            one["load_average_before"] = load
            one["load_average_after"] = os.getloadavg()
            done[name].append(one)
            pr = _pair_ratios(one, a.warmup)
            print(rep, name, f"median pair ratio {statistics.median(pr):.2f}", flush=True)
    runs: dict[str, Any] = {}
    ratios: dict[str, Any] = {}
    for name, _, src in plan:
        plain, secagg = (
            _pooled(done[name], "plain", a.warmup),
            _pooled(done[name], "secagg", a.warmup),
        )
        pairs = [x for r in done[name] for x in _pair_ratios(r, a.warmup)]
        runs[name] = {"src": str(src), "plain": plain, "secagg": secagg, "runs": done[name]}
        ratios[name] = {
            "secagg_over_plain_wall": secagg["median_round_seconds"]
            / plain["median_round_seconds"],
            "secagg_over_plain_wall_gross": secagg["median_round_seconds_gross"]
            / plain["median_round_seconds_gross"],
            "secagg_over_plain_cpu": secagg["median_round_cpu_seconds"]
            / plain["median_round_cpu_seconds"],
            "median_pair_ratio_wall": statistics.median(pairs),
            "pair_ratios_wall": pairs,
            "per_run_median_pair_ratio_wall": [
                statistics.median(_pair_ratios(r, a.warmup)) for r in done[name]
            ],
        }
    if a.baseline_src is not None:
        ratios["secagg_wall_baseline_over_new"] = (
            runs["baseline"]["secagg"]["median_round_seconds"]
            / runs["new"]["secagg"]["median_round_seconds"]
        )
        ratios["secagg_cpu_baseline_over_new"] = (
            runs["baseline"]["secagg"]["median_round_cpu_seconds"]
            / runs["new"]["secagg"]["median_round_cpu_seconds"]
        )
    result = {
        "benchmark": "fl_secagg_profile",
        "data": str(data),
        "clients": 10,
        "rounds": a.rounds,
        "repeats": a.repeats,
        "warmup_rounds_left_out_of_each_kind": a.warmup,
        "command": " ".join(["PYTHONPATH=src", "python", *sys.argv]),
        "started_utc": started,
        "note": a.note,
        "exchanges": STAGES,
        "ratios": ratios,
        "runs": runs,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(a.out)
    print(json.dumps({k: v for k, v in ratios.items() if not isinstance(v, dict)}, indent=2))
    for name in runs:
        print(name, {k: v for k, v in ratios[name].items() if k != "pair_ratios_wall"})


if __name__ == "__main__":
    main()
