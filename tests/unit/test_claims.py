"""Every measured figure quoted in the README and docs comes from a committed results file.

A quoted figure is followed by a marker naming the results file and the JSON path of the value:

    6.28x<!-- figure: benchmarks/results/text_presidio.json#speed.ratios.veil_batch_ner_p1/presidio_per_doc_ner_p1 -->

The marker applies to the last number before it on the same line. The path's parts are
separated by dots; a key that itself holds dots is matched whole (the longest key that fits).
``scale=N`` multiplies the JSON value first (seconds quoted as milliseconds: ``scale=1000``).
The figure must equal the value rounded to as many decimals as the text shows.

In every file, a benchmark-like figure (a ratio such as ``6.28x``, a throughput in docs/s or
MB/s) without a marker fails the test, naming the file, the line and the figure: mark it, or
remove it. A target ("target 2x") is a goal, not a measurement, and needs no marker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

MARKER = re.compile(r"<!--\s*figure:\s*(?P<file>[^#\s]+)#(?P<path>\S+)(?P<opts>[^>]*?)\s*-->")
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
BENCHMARK_LIKE = re.compile(
    # a ratio ("6.28x"), not a table's dimensions ("51 x 51 cells")
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:x|×)(?![\w])(?!\s*\d)|\bdocs/s\b|\bMB/s\b",
    re.IGNORECASE,
)
# A product in a formula ("4 × length bits", "8 × `nn.Embedding`"): a spaced x or × before a
# name or code; "6.28 x faster" is still a ratio.
PRODUCT = re.compile(
    r"[\d,.]+\s(?:x|×)\s+(?:`|(?!(?:faster|slower|more|less|larger|smaller|higher|lower|as|"
    r"over|the|that|speed|throughput)\b)[A-Za-z_])",
    re.IGNORECASE,
)
# A goal is not a measurement: "(target 2x)", "target: at most 2x" quote no run.
TARGET_BEFORE = re.compile(
    r"\btargets?:?\s+(?:of\s+|at\s+most\s+|under\s+|below\s+)?\**$", re.IGNORECASE
)


def resolve(data: Any, path: str) -> Any:
    """The value at a dotted ``path``; a dict key containing dots matches whole."""
    node = data
    rest = path
    while rest:
        if isinstance(node, list):
            head, _, rest = rest.partition(".")
            node = node[int(head)]
            continue
        if not isinstance(node, dict):
            raise KeyError(f"{path!r}: nothing below {type(node).__name__} at {rest!r}")
        fits = [k for k in node if rest == k or rest.startswith(k + ".")]
        if not fits:
            raise KeyError(f"{path!r}: no key {rest.split('.')[0]!r} (keys: {sorted(node)[:12]})")
        key = max(fits, key=len)
        node = node[key]
        rest = rest[len(key) + 1 :]
    return node


def figures(text: str) -> list[tuple[int, str, str, str, float]]:
    """(line, shown number, results file, JSON path, scale) for every marker in ``text``."""
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in MARKER.finditer(line):
            before = MARKER.sub("", line[: m.start()])
            numbers = NUMBER.findall(before)
            shown = numbers[-1] if numbers else ""
            scale = 1.0
            for opt in m.group("opts").split():
                key, _, value = opt.partition("=")
                if key != "scale":
                    raise ValueError(f"line {lineno}: unknown marker option {opt!r}")
                scale = float(value)
            out.append((lineno, shown, m.group("file"), m.group("path"), scale))
    return out


def matches(shown: str, value: float) -> bool:
    """``value`` rounded to the decimals ``shown`` has equals ``shown``."""
    number = float(shown.replace(",", ""))
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(value - number) <= 0.5 * 10**-decimals + 1e-9


def unmarked(text: str) -> list[tuple[int, str]]:
    """Benchmark-like figures with no marker after them on their line."""
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("<!--") and "figure:" not in line:
            continue
        markers = [m.start() for m in MARKER.finditer(line)]
        plain = MARKER.sub(lambda m: " " * len(m.group(0)), line)
        for m in BENCHMARK_LIKE.finditer(plain):
            if TARGET_BEFORE.search(plain[: m.start()]) or PRODUCT.match(plain, m.start()):
                continue
            if not any(pos >= m.end() for pos in markers):
                out.append((lineno, m.group(0)))
    return out


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_marked_figures_match_their_results_file(doc: Path) -> None:
    problems = []
    for lineno, shown, file, path, scale in figures(doc.read_text(encoding="utf-8")):
        where = f"{_rel(doc)}:{lineno}"
        results = ROOT / file
        if not shown:
            problems.append(f"{where}: marker for {file}#{path} follows no number")
            continue
        if not results.is_file():
            problems.append(f"{where}: {shown} cites {file}, which is not committed")
            continue
        try:
            value = resolve(json.loads(results.read_text(encoding="utf-8")), path)
        except (KeyError, IndexError, ValueError) as exc:
            problems.append(f"{where}: {shown} cites {file}#{path}: {exc}")
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            problems.append(f"{where}: {file}#{path} is not a number ({type(value).__name__})")
        elif not matches(shown, value * scale):
            problems.append(
                f"{where}: the text says {shown} but {file}#{path} is {value}"
                + (f" (x{scale:g} = {value * scale:g})" if scale != 1 else "")
            )
    assert not problems, "figures that do not match their results file:\n" + "\n".join(problems)


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_no_unmarked_benchmark_figure(doc: Path) -> None:
    found = unmarked(doc.read_text(encoding="utf-8"))
    assert not found, (
        f"benchmark figures in {_rel(doc)} without a results-file marker (add "
        "'<!-- figure: benchmarks/results/FILE.json#path.to.value -->' after each, or remove "
        "the figure):\n" + "\n".join(f"{_rel(doc)}:{n}: {fig!r}" for n, fig in found)
    )


# ---------------------------------------------------------------- the checker checks itself


def test_checker_catches_wrong_missing_and_unmarked_figures(tmp_path: Path) -> None:
    data = {"speed": {"ratios": {"a/b": 6.28}, "k5_t0.2": {"s": 0.0172}}, "runs": [{"x": 1.5}]}
    assert resolve(data, "speed.ratios.a/b") == 6.28
    assert resolve(data, "speed.k5_t0.2.s") == 0.0172
    assert resolve(data, "runs.0.x") == 1.5
    with pytest.raises(KeyError):
        resolve(data, "speed.nope")
    assert matches("6.28", 6.28) and matches("6.3", 6.28) and not matches("6.2", 6.28)
    assert matches("17", 0.0172 * 1000) and not matches("78", 0.0172 * 1000)
    assert matches("1,048", 1048.0) and not matches("5.65", 6.28)
    text = (
        "veil 6.28x<!-- figure: r.json#speed.ratios.a/b --> Presidio; 17 ms"
        "<!-- figure: r.json#speed.k5_t0.2.s scale=1000 -->\n"
        "then 5.65x to 8.5x Presidio, 1,770 docs/s\n"
        "1.37x (target 2x; target: at most **3x**), a 7,680 x 288 matrix, 4.2x faster\n"
        "4 × length bits, 8 × `nn.Embedding`, but 6.28 x faster and 3 × slower\n"
    )
    assert figures(text) == [
        (1, "6.28", "r.json", "speed.ratios.a/b", 1.0),
        (1, "17", "r.json", "speed.k5_t0.2.s", 1000.0),
    ]
    assert unmarked(text) == [
        (2, "5.65x"),
        (2, "8.5x"),
        (2, "docs/s"),
        (3, "1.37x"),
        (3, "4.2x"),
        (4, "6.28 x"),
        (4, "3 ×"),
    ]
