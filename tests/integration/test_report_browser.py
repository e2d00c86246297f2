"""The HTML report seen in a real browser: headless Chromium over the DevTools protocol.

Fails on any console error, uncaught exception, failed or external resource load, or missing
element, and saves a screenshot (to ``$VEIL_SCREENSHOT_DIR`` when set, else the test's tmp
folder). Skips with a reason when no Chromium is installed, except under ``CI=true``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

websockets_sync = pytest.importorskip("websockets.sync.client")

REQUIRED_IDS = (
    "summary",
    "guarantees",
    "risk",
    "class-size-histogram",
    "risk-distribution",
    "generalization-levels",
    "distributions",
    "utility-table",
    "ml-table",
    "tradeoff-curve",
    "dp-budget",
    "compliance",
)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _Browser:
    """One headless Chromium page driven over the DevTools protocol (no network needed)."""

    def __init__(self, binary: str, profile: Path) -> None:
        # A loaded CI machine has, rarely, seen Chromium exit or stall before it wrote its
        # DevTools port. That is the test's browser failing, not the page under test, so a
        # start is tried three times on a fresh profile, and the last failure says why.
        why = ""
        for attempt in range(3):
            folder = profile.with_name(f"{profile.name}-{attempt}") if attempt else profile
            why = self._launch(binary, folder)
            if not why:
                break
        else:
            raise RuntimeError(f"Chromium did not start in 3 tries: {why}")
        port = (self._profile / "DevToolsActivePort").read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            pages = [t for t in json.load(resp) if t["type"] == "page"]
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(
            websockets_sync.connect(pages[0]["webSocketDebuggerUrl"], max_size=2**26)
        )
        self._id = 0
        self.events: list[dict] = []

    def _launch(self, binary: str, profile: Path) -> str:
        """Start Chromium on ``profile``; return "" once its port is written, else why not."""
        profile.mkdir(parents=True, exist_ok=True)
        self._profile = profile
        self._log = profile.parent / f"{profile.name}.stderr"
        with self._log.open("wb") as err:
            self.proc = subprocess.Popen(
                [
                    binary,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    f"--user-data-dir={profile}",
                    "--remote-debugging-port=0",
                    "--window-size=1200,900",
                    "about:blank",
                ],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            code = self.proc.poll()
            if code is not None or time.monotonic() > deadline:
                self.close()
                tail = self._log.read_text(errors="replace").strip().splitlines()[-5:]
                state = f"exited with {code}" if code is not None else "no port after 60 s"
                return f"{state}; stderr: {' | '.join(tail) or '(empty)'}"
            time.sleep(0.1)
        return ""

    def call(self, method: str, **params) -> dict:
        self._id += 1
        my_id = self._id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, event: str, timeout: float = 30) -> None:
        if any(e.get("method") == event for e in self.events):
            return
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            msg = json.loads(self.ws.recv(timeout=end - time.monotonic()))
            self.events.append(msg)
            if msg.get("method") == event:
                return
        raise TimeoutError(event)

    def open(self, url: str) -> None:
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable")
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.call("Runtime.evaluate", expression="1")  # drain pending console events

    def problems(self) -> list[str]:
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append(f"console {p['type']}")
            elif m == "Runtime.exceptionThrown":
                out.append("uncaught exception")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log error: {p['entry'].get('source')}")
            elif m == "Network.loadingFailed":
                out.append("a resource failed to load")
            elif m == "Network.requestWillBeSent" and not p["request"]["url"].startswith(
                ("file:", "data:", "about:")
            ):
                out.append("an external request")
        return out

    def missing(self, ids: tuple[str, ...]) -> list[str]:
        expr = f"JSON.stringify({json.dumps(list(ids))}.filter(i => !document.getElementById(i)))"
        res = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        return json.loads(res["result"]["value"])

    def screenshot(self, path: Path) -> None:
        metrics = self.call("Page.getLayoutMetrics")
        height = int(metrics["cssContentSize"]["height"])
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": 1200, "height": min(height, 6000), "scale": 1},
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        stack = getattr(self, "_stack", None)
        if stack is not None:
            stack.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def browser(tmp_path, require_service):
    binary = _chromium()
    require_service(binary is not None, "no Chromium installed (apt-get install chromium)")
    assert binary is not None
    b = _Browser(binary, tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()


def _demo_report_html() -> str:
    from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
    from veil.pipeline import RunContext
    from veil.policy import Policy
    from veil.report import build_report, render_html
    from veil.risk._reference import adult_release
    from veil.risk._stage import RiskStage

    qis = list(ADULT_QUASI_IDENTIFIERS)
    levels = (0, 3, 0, 0, 2, 1, 1, 0)
    cols = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "file", "path": str(adult_hierarchy_path(q))},
        }
        for q in qis
    }
    cols["occupation"] = {"role": "sensitive"}
    policy = Policy.model_validate(
        {
            "data": {"path": "adult.csv"},
            "columns": cols,
            "privacy": {
                "k_anonymity": {"k": 5},
                "t_closeness": {"t": 0.9},
                "suppression_limit": 0.05,
            },
        }
    )
    rel = adult_release(levels)
    ctx = RunContext(
        policy=policy, original=adult_frame(), data=rel.data, suppressed=rel.suppressed
    )
    ctx.report["anonymize"] = {
        "transformation": dict(zip(qis, levels, strict=True)),
        "max_levels": rel.max_levels,
    }
    ctx.report["dp"] = {
        "epsilon_spent": 0.7,
        "budget": 1.0,
        "queries": [{"name": "count", "epsilon": 0.2}, {"name": "mean age", "epsilon": 0.5}],
    }
    RiskStage(max_train_rows=1000).run(ctx)
    report = build_report(ctx, timings={"risk": 0.5}, stages=["anonymize", "dp", "risk"])
    return render_html(json.loads(json.dumps(report, default=str)))


def test_report_in_chromium(browser, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(_demo_report_html(), encoding="utf-8")
    browser.open(page.as_uri())
    assert browser.problems() == []
    assert browser.missing(REQUIRED_IDS) == []
    shots = Path(os.environ.get("VEIL_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    browser.screenshot(shots / "report.png")
    png = (shots / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_the_checks_can_fail(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><body><div id='summary'></div>"
        "<script>console.error('boom')</script></body></html>",
        encoding="utf-8",
    )
    browser.open(page.as_uri())
    assert "console error" in browser.problems()
    assert "risk" in browser.missing(("summary", "risk"))
