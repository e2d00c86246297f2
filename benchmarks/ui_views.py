"""How long ``veil ui`` takes to start and to render its views on UCI Adult.

The path users run: ``veil ui --no-browser`` as a subprocess (start-up until the URL line),
then HTTP requests from a client holding the session cookie: the data view of Adult
(30,162 rows, 9 columns: read, types, distinct counts, drafted roles, the HTML page) and the text view
of a pasted clinical note; the policy view of Adult (the drafted policy checked as ``veil
policy check`` does), saving it, running it with k=5 from the app until its page says done,
and the budget view. Side by side, the baselines: ``veil policy init adult.csv --json``,
the CLI that drafts the same roles with the same code, and ``veil run policy.yaml --json``
on the same policy, start-up included.

    PYTHONPATH=src python benchmarks/ui_views.py [--repeat 3]

Writes benchmarks/results/ui_views.json. Wall times, best of ``--repeat`` (each a fresh server; the text view is its first
request of that kind); the load
average at the start and the end is recorded with them.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parent / "src")

NOTE = (
    "Patient John Smith (DOB 04/12/1957), MRN 4471203, seen on 03/02/2024 at 12 Oak Street, "
    "Springfield. Call 212-555-0175 or mail john.smith@example.com. Card on file "
    "4111 1111 1111 1111. Follow up with Dr. Alice Brown in two weeks. "
) * 8


def _env() -> dict[str, str]:
    ledger = Path(tempfile.gettempdir()) / f"veil-ui-bench-{os.getpid()}.db"
    return {**os.environ, "PYTHONPATH": SRC, "VEIL_LEDGER_URL": f"sqlite:///{ledger}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--out",
        type=Path,
        default=HERE / "results" / "ui_views.json",
        help="where to write the results (default benchmarks/results/ui_views.json)",
    )
    args = ap.parse_args()
    sys.path.insert(0, SRC)
    from veil.data import adult_frame

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        adult = adult_frame()
        adult.to_csv(work / "adult.csv", index=False)
        (work / "notes.jsonl").write_text(
            "".join(json.dumps({"id": i, "text": NOTE}) + "\n" for i in range(200))
        )

        # the baseline: the CLI drafting the same roles
        policy_init = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "veil", "policy", "init", "adult.csv", "--json"],
                cwd=work,
                env=_env(),
                check=True,
                capture_output=True,
            )
            policy_init = min(policy_init, time.perf_counter() - t0)

        # the drafted policy (k=5), for the CLI baseline of the run
        draft = subprocess.run(
            [sys.executable, "-m", "veil", "policy", "init", "adult.csv", "-o", "cli.yaml"],
            cwd=work,
            env=_env(),
            check=True,
            capture_output=True,
        )
        assert draft.returncode == 0
        run_cli = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "veil", "run", "cli.yaml", "--json", "-o", "out-cli"],
                cwd=work,
                env=_env(),
                check=True,
                capture_output=True,
            )
            run_cli = min(run_cli, time.perf_counter() - t0)

        policy_view = float("inf")
        policy_save = float("inf")
        run_ui = float("inf")
        budget_view = float("inf")
        more = {
            k: float("inf")
            for k in (
                "certificate_view",
                "explore_view_adult_first",
                "explore_view_adult_again",
                "hierarchy_set_and_preview_adult",
                "redact_preview_notes",
                "dp_query_check",
            )
        }
        candidates = 0
        startup = float("inf")
        data_view = float("inf")
        data_again = float("inf")
        text_view = float("inf")
        findings = 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "veil", "ui", "--no-browser", "--workdir", str(work)],
                env=_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            try:
                assert proc.stdout is not None
                line = proc.stdout.readline()
                startup = min(startup, time.perf_counter() - t0)
                url = re.search(r"(http://\S+)", line)
                assert url is not None, "veil ui printed no URL"
                base, _, token = url.group(1).partition("/?token=")
                opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
                for _ in range(100):
                    try:
                        opener.open(f"{base}/?token={token}", timeout=30).read()
                        break
                    except OSError:
                        time.sleep(0.05)
                # the first view right after the session opens (the worst case: the
                # server's warm-up thread may still be importing), then the same view again
                t1 = time.perf_counter()
                page = opener.open(f"{base}/data?path=adult.csv", timeout=60).read().decode()
                data_view = min(data_view, time.perf_counter() - t1)
                t1 = time.perf_counter()
                opener.open(f"{base}/data?path=adult.csv", timeout=60).read()
                data_again = min(data_again, time.perf_counter() - t1)
                assert f"{len(adult):,} rows" in page, "the data view did not describe Adult"
                csrf = re.search(r'name="csrf-token" content="([^"]+)"', page)
                assert csrf is not None
                form = urllib.parse.urlencode({"text": NOTE, "csrf": csrf.group(1)}).encode()
                t2 = time.perf_counter()
                page = opener.open(f"{base}/text", data=form, timeout=60).read().decode()
                text_view = min(text_view, time.perf_counter() - t2)
                findings = len(re.findall(r"<mark ", page))
                t1 = time.perf_counter()
                page = opener.open(f"{base}/policy?table=adult.csv", timeout=60).read().decode()
                policy_view = min(policy_view, time.perf_counter() - t1)
                assert 'id="check-ok"' in page, "the drafted policy did not check"
                yaml_text = re.search(
                    r'<textarea id="yaml" name="yaml"[^>]*>(.*?)</textarea>', page, re.S
                )
                assert yaml_text is not None
                form = urllib.parse.urlencode(
                    {
                        "csrf": csrf.group(1),
                        "target": "policy.yaml",
                        "yaml": html.unescape(yaml_text.group(1)),
                        "action": "save",
                    }
                ).encode()
                t1 = time.perf_counter()
                page = opener.open(f"{base}/policy", data=form, timeout=60).read().decode()
                policy_save = min(policy_save, time.perf_counter() - t1)
                assert 'id="saved"' in page, "the policy was not saved"
                form = urllib.parse.urlencode({"csrf": csrf.group(1), "policy": "policy.yaml"})
                t1 = time.perf_counter()
                with opener.open(f"{base}/run", data=form.encode(), timeout=60) as resp:
                    run_url = resp.geturl()
                while True:
                    page = opener.open(run_url, timeout=60).read().decode()
                    state = re.search(r'data-state="(\w+)"', page)
                    assert state is not None
                    if state.group(1) != "running":
                        break
                    time.sleep(0.1)
                run_ui = min(run_ui, time.perf_counter() - t1)
                assert state.group(1) == "done", "the run from the app failed"
                t1 = time.perf_counter()
                opener.open(f"{base}/budget", timeout=60).read()
                budget_view = min(budget_view, time.perf_counter() - t1)

                def timed(
                    key: str, url: str, data: dict[str, str] | None = None, opener: Any = opener
                ) -> str:
                    body = None if data is None else urllib.parse.urlencode(data).encode()
                    t = time.perf_counter()
                    text = opener.open(url, data=body, timeout=120).read().decode()
                    more[key] = min(more[key], time.perf_counter() - t)
                    return text

                token_csrf = csrf.group(1)
                page = timed("certificate_view", f"{run_url}/certificate")
                assert 'data-agrees="yes"' in page, "the certificate's re-check did not agree"
                page = timed("explore_view_adult_first", f"{base}/explore?policy=policy.yaml")
                count = re.search(r'id="explore-count">(\d+)<', page)
                assert count is not None and 'id="explore-optimum"' in page
                candidates = int(count.group(1))
                timed("explore_view_adult_again", f"{base}/explore?policy=policy.yaml&node=1")
                policy_text = (work / "policy.yaml").read_text()
                page = timed(
                    "hierarchy_set_and_preview_adult",
                    f"{base}/policy",
                    {
                        "csrf": token_csrf,
                        "target": "policy.yaml",
                        "yaml": policy_text,
                        "action": "hierarchy",
                        "h.column": "age",
                        "h.kind": "interval",
                        "h.width": "10",
                    },
                )
                assert "hierarchy-preview" in page, "the hierarchy was not previewed"
                page = timed("redact_preview_notes", f"{base}/redact?path=notes.jsonl")
                assert "<mark " in page, "the redaction preview found nothing"
                opener.open(
                    f"{base}/budget/init",
                    data=urllib.parse.urlencode(
                        {"csrf": token_csrf, "dataset": "adult", "epsilon": "1", "delta": "0"}
                    ).encode(),
                    timeout=60,
                ).read()
                page = timed(
                    "dp_query_check",
                    f"{base}/budget/query",
                    {
                        "csrf": token_csrf,
                        "action": "check",
                        "table": "adult.csv",
                        "dataset": "adult",
                        "stat": "mean",
                        "column": "age",
                        "lower": "17",
                        "upper": "90",
                        "epsilon": "0.1",
                    },
                )
                assert 'data-dry-run="yes"' in page, "the DP query check failed"
                Path(_env()["VEIL_LEDGER_URL"].removeprefix("sqlite:///")).unlink(missing_ok=True)
            finally:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=30)

    result = {
        "benchmark": "ui_views",
        "command": "PYTHONPATH=src python benchmarks/ui_views.py",
        "repeat": args.repeat,
        "table": {"name": "UCI Adult", "rows": len(adult), "columns": adult.shape[1]},
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "seconds": {
            "ui_startup_to_url": round(startup, 3),
            "data_view_adult_first": round(data_view, 3),
            "data_view_adult_again": round(data_again, 3),
            "text_view_note": round(text_view, 3),
            "baseline_policy_init_cli": round(policy_init, 3),
            "policy_view_adult": round(policy_view, 3),
            "policy_save": round(policy_save, 3),
            "run_adult_k5_until_done_ui": round(run_ui, 3),
            "baseline_run_adult_k5_cli": round(run_cli, 3),
            "budget_view": round(budget_view, 3),
            **{k: round(v, 3) for k, v in more.items()},
        },
        "explore_candidates_adult": candidates,
        "text_note_chars": len(NOTE),
        "text_findings_marked": findings,
        "target_view_seconds": 1.0,
    }
    Path(_env()["VEIL_LEDGER_URL"].removeprefix("sqlite:///")).unlink(missing_ok=True)
    out = args.out
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
