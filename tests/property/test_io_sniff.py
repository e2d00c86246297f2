"""Separator sniffing and headerless detection on tables Faker generates, in several locales.

With a header, the separator is found and the first line is never refused; without one,
a first line holding a data-shaped value (a number, a date, an e-mail address) is always
refused, however the separator is sniffed, and the refusal quotes none of its values. (The
separator of a headerless file can be ambiguous: a text column whose every record holds one
comma splits at commas as consistently as at the true separator; the header settles it.)
"""

from __future__ import annotations

import csv
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest
from faker import Faker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil import InputError
from veil.io import read_table
from veil.io._sniff import SEPARATORS, first_line_looks_like_data, head_rows, sniff_separator

LOCALES = ["en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "ja_JP", "pt_BR"]

# header name, how to draw a value, whether a first line holding it must be refused
KINDS: dict[str, tuple[str, Any, bool]] = {
    "email": ("email", lambda f: f.email(), True),
    "date": ("visit_date", lambda f: f.date(), True),
    "age": ("age", lambda f: str(f.random_int(0, 99)), True),
    "income": ("income", lambda f: f"{f.pyfloat(min_value=0, max_value=1e5):.2f}", True),
    "name": ("full name", lambda f: f.name(), False),
    "city": ("city", lambda f: f.city(), False),
    "job": ("job", lambda f: f.job(), False),
    "phone": ("phone", lambda f: f.phone_number(), False),
    "company": ("employer", lambda f: f.company(), False),
    # quoted by the writer: line breaks, commas and the like inside a field
    "address": ("address", lambda f: f.address(), False),
    "note": ("note", lambda f: f"{f.sentence()}; {f.word()}, {f.word()} | {f.word()}", False),
}


@st.composite
def faker_tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]], str]:
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=2, max_size=6, unique=True))
    fake = Faker(draw(st.sampled_from(LOCALES)))
    fake.seed_instance(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.integers(1, 40))
    rows = [[KINDS[k][1](fake) for k in kinds] for _ in range(n)]
    return kinds, rows, draw(st.sampled_from(SEPARATORS))


def _write(path: Path, header: list[str] | None, rows: list[list[str]], sep: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter=sep)
        if header is not None:
            w.writerow(header)
        w.writerows(rows)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=faker_tables())
def test_with_a_header_the_separator_is_found_and_the_header_accepted(
    table: tuple[list[str], list[list[str]], str],
) -> None:
    kinds, rows, sep = table
    header = [KINDS[k][0] for k in kinds]
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        _write(path, header, rows, sep)
        assert sniff_separator(path) == sep
        assert first_line_looks_like_data(head_rows(path, separator=sep)) is None
        df = read_table(path)  # separator sniffed, header detected
        assert list(df.columns) == header and len(df) == len(rows)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=faker_tables())
def test_without_a_header_a_data_shaped_first_line_is_refused_without_its_values(
    table: tuple[list[str], list[list[str]], str],
) -> None:
    kinds, rows, sep = table
    shaped = any(KINDS[k][2] for k in kinds)
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        _write(path, None, rows, sep)
        if shaped:  # refused whatever separator is sniffed (it is ambiguous without a header)
            with pytest.raises(InputError, match="first line looks like data") as info:
                read_table(path)
            message = str(info.value)
            leaked = [v for v in rows[0] if len(v) >= 3 and v in message]
            assert not leaked
            with pytest.raises(InputError, match="first line looks like data"):
                read_table(path, separator=sep)
        # with --no-header every line is a record, under generated names
        df = read_table(path, header=False, separator=sep)
        assert list(df.columns) == [f"col_{i}" for i in range(1, len(kinds) + 1)]
        assert len(df) == len(rows)
