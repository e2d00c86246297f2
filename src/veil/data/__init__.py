"""Data shipped with veil: UCI Adult (30,162 rows, ';'-separated) with ARX-format hierarchies.

UCI Adult is from the UCI Machine Learning Repository (Dua & Graff), in the cleaned form ARX
distributes with its hierarchies. It is used by ``veil demo``, the tests and the benchmarks.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ADULT_QUASI_IDENTIFIERS", "adult_csv_path", "adult_frame", "adult_hierarchy_path"]

ADULT_QUASI_IDENTIFIERS = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
)


def _root() -> Path:
    return Path(str(files("veil.data"))) / "adult"


def adult_csv_path() -> Path:
    """Path of the gzip-compressed Adult CSV (';' separator)."""
    return _root() / "adult.csv.gz"


def adult_hierarchy_path(column: str) -> Path:
    """Path of the ARX-format hierarchy CSV for an Adult column (';' separator)."""
    path = _root() / f"adult_hierarchy_{column}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no shipped hierarchy for column {column!r}")
    return path


def adult_frame(rows: int | None = None) -> pd.DataFrame:
    """UCI Adult as a DataFrame; ``age`` is an integer column, the rest are strings."""
    import pandas as pd

    df = pd.read_csv(adult_csv_path(), sep=";", nrows=rows)
    return df
