"""An identifier its label announces never survives ``veil redact``, whatever its shape."""

import tempfile
import warnings
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    # typer imports names that click deprecates (click.utils.get_binary_stream): not ours to fix
    warnings.simplefilter("ignore", DeprecationWarning)
    from veil.cli._app import main

labels = st.sampled_from(
    [
        "Patient ID",
        "passport no.",
        "policy number",
        "Member #",
        "MRN",
        "employee ID",
        "EIN",
        "PAN",
        "account",
        "claim no",
        "ticket #",
        "voter ID",
        "IBAN",
        "driver's license",
        "n°",
        "SSN",
        "card",
    ]
)
# identifiers of many shapes: letters and digits in capitals, groups joined by "-" or "/",
# always with a digit in the first group, five characters or more
values = st.builds(
    lambda head, digits, tail: f"{head}{digits}{tail}",
    st.one_of(st.just(""), st.from_regex(r"[A-Z]{1,3}-?", fullmatch=True)),
    st.from_regex(r"[0-9]{5,12}", fullmatch=True),
    st.from_regex(r"(?:[-/][A-Z0-9]{1,4})?[A-Z]?", fullmatch=True),
)
layouts = st.sampled_from(
    [
        "{label}: {value}",
        "Our {label} is {value}, please check.",
        "{value} ({label})",
        "Filed under {label} {value} yesterday.",
        "{label}#{value}",
        "Re {label} - {value}",
    ]
)


@settings(max_examples=40, deadline=None)
@given(label=labels, value=values, layout=layouts)
def test_announced_value_is_absent_from_redact_output(label: str, value: str, layout: str) -> None:
    text = "Hello,\n" + layout.format(label=label, value=value) + "\nThanks\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.txt"
        out = Path(tmp) / "out.txt"
        src.write_text(text)
        assert main(["-q", "redact", str(src), "--no-ner", "--out", str(out)]) == 0
        redacted = out.read_text()
    assert value not in redacted
    digits = "".join(c for c in value if c.isdigit())
    assert digits not in redacted  # no digit run of it left in clear either
