"""The policy copied into the report never carries literal terms from allow/deny lists."""

from __future__ import annotations

import json

from veil.policy import parse_policy
from veil.report._build import policy_for_report

SECRET = "Zebulon Quixtrot"


def test_allow_deny_lists_and_patterns_are_withheld() -> None:
    policy = parse_policy(
        {
            "data": {"path": "x.csv"},
            "columns": {
                "notes": {
                    "role": "text",
                    "text": {
                        "allow_list": [SECRET],
                        "deny_list": [SECRET, "Other Person"],
                        "patterns": [{"name": "badge", "entity": "BADGE", "regex": SECRET}],
                    },
                }
            },
        }
    )
    dumped = policy_for_report(policy)
    text = dumped["columns"]["notes"]["text"]
    assert text["allow_list"] == "<1 term(s) withheld>"
    assert text["deny_list"] == "<2 term(s) withheld>"
    assert text["patterns"] == [{"name": "badge", "entity": "BADGE", "regex": "<withheld>"}]
    assert SECRET not in json.dumps(dumped)
