"""The ReDoS check shared by policy patterns and ``--pattern``: a golden table of
catastrophic shapes and of safe look-alikes, and a timing that shows the refused shapes
are slow in fact."""

from __future__ import annotations

import re
import time

import pytest

from veil.text.recognition._redos import catastrophic_regex

CATASTROPHIC = [
    r"(a+)+",
    r"(a*)*",
    r"(.*)*",
    r"(a|a)*",
    r"(a|)*",
    r"(\w+\s?)*x",
    r"((a+)b?)+",
    r"(x+x+)+y",
    r"(?:a+){2,50}",
    r"(\w{1,20} ?)+",
    r"(?:\d{3}|\d{4})+",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
]
SAFE = [
    r"(\d+\.)+\d+",
    r"\bE-\d{6}\b",
    r"(?:cat|dog)+",
    r"(?:[A-Z]{4} )+",
    r"\d{3}-\d{2}-\d{4}",
    r"[A-Z]+\d*",
    r"(?:\d{1,3}\.){3}\d{1,3}",
    r"(?i)acme\s+(?:corp|inc)",
    r"(?:[a-z]+-)+[a-z]+",
    r"\w+@\w+\.com",
    r"(\d|\w)+",  # one character class, however it is written
    r"(?:a+){3}",  # a fixed number of rounds
]


@pytest.mark.parametrize("regex", CATASTROPHIC)
def test_catastrophic_shapes_are_refused(regex: str) -> None:
    assert catastrophic_regex(regex) is not None


@pytest.mark.parametrize("regex", SAFE)
def test_safe_look_alikes_pass(regex: str) -> None:
    assert catastrophic_regex(regex) is None


def test_the_reason_names_the_shape_not_the_text() -> None:
    reason = catastrophic_regex(r"(Hunter2\w+\s?)*x")
    assert reason == "nested quantifiers"


@pytest.mark.parametrize("regex", [r"(a+)+$", r"(a|a)*$"])
def test_refused_shapes_are_slow_in_fact(regex: str) -> None:
    # 20 characters already take well over the time of the same search on a safe pattern
    # (the least of several runs each: one run can be stalled by the other test worker)
    text = "a" * 20 + "!"

    def least(pattern: str, subject: str, runs: int) -> float:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            re.search(pattern, subject)
            times.append(time.perf_counter() - t0)
        return min(times)

    slow = least(regex, text, 3)
    fast = least(r"(\d+\.)+$", "1." * 22 + "!", 20)
    assert slow > 50 * fast
