"""The population behind delta-presence and k-map: where it comes from, and its checks.

A release judged against a population is a *subset* of that population (ARX: the research
subset). A policy gives the two tables in one of two ways:

population table (``delta_presence.population: FILE`` or ``k_map.population: FILE``)
    The policy's input is the subset that is released; FILE (CSV, Parquet or JSONL, relative
    to the policy, read like the input) holds the whole population with at least the same
    quasi-identifier columns. Every subset record must have its own population record with
    the same quasi-identifier values (multiset containment, checked on the original values).
sample column (``delta_presence.sample_column: COL``)
    The policy's input is the population; COL (booleans, 0/1 or true/false) marks the rows
    of the subset. Only those rows are released, without COL.

:func:`split_population` turns either into ``(subset, population)``; the engine then encodes
both against the same hierarchies (:func:`veil.tabular._encoding.encode`), so the population
is generalized exactly like the subset. Errors give counts and column names, never a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from veil._errors import InputError, SchemaError

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import PrivacyConfig
    from veil.tabular._encoding import FrequencyTable

__all__ = ["Population", "check_contained", "population_path", "split_population"]

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f"}


@dataclass(frozen=True)
class Population:
    """The population a release is judged against.

    Attributes
    ----------
    table
        The population's rows (the quasi-identifier columns are the ones read).
    source
        ``"table"`` (a population file; the input is the subset) or ``"sample_column"``
        (the input is the population).
    """

    table: pd.DataFrame
    source: Literal["table", "sample_column"]

    @property
    def rows(self) -> int:
        return len(self.table)


def population_path(privacy: PrivacyConfig) -> Path | None:
    """The population file the privacy section names, if any (as written in the policy)."""
    dp, km = privacy.delta_presence, privacy.k_map
    if dp is not None and dp.population is not None:
        return dp.population
    if km is not None and km.population is not None:
        return km.population
    return None


def _resolve(path: Path, base_dir: Path | None) -> Path:
    return path if path.is_absolute() or base_dir is None else base_dir / path


def read_population(
    path: Path, *, base_dir: Path | None, options: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """Read the population file, relative to ``base_dir``, with the input's CSV options."""
    from veil.io import read_table

    try:
        return read_table(_resolve(path, base_dir), **dict(options or {}))
    except InputError as exc:
        raise InputError(f"population table: {exc.message}", hint=exc.hint) from None


def _sample_mask(series: pd.Series, column: str) -> np.ndarray:
    """The 0/1 marker column as booleans; an error counts what is not a clear 0/1."""
    import pandas as pd

    missing = int(series.isna().sum())
    if missing:
        raise InputError(
            f"sample column {column!r} has {missing} missing value(s); it must mark every "
            "row with 1 (released) or 0 (population only)",
            hint="fill the column with 0/1 or true/false",
        )
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=np.float64)
        bad = int(((values != 0.0) & (values != 1.0)).sum())
        if bad:
            raise InputError(
                f"sample column {column!r} has {bad} value(s) other than 0 and 1",
                hint="mark released rows with 1 and the others with 0",
            )
        return values == 1.0
    text = series.astype(str).str.strip().str.lower()
    yes, no = text.isin(_TRUE).to_numpy(), text.isin(_FALSE).to_numpy()
    bad = int((~yes & ~no).sum())
    if bad:
        raise InputError(
            f"sample column {column!r} has {bad} value(s) that are not 0/1 or true/false",
            hint="mark released rows with 1 (or true) and the others with 0 (or false)",
        )
    return np.asarray(yes, dtype=bool)


def split_population(
    df: pd.DataFrame,
    privacy: PrivacyConfig,
    quasi_identifiers: tuple[str, ...],
    *,
    table: pd.DataFrame | None = None,
    base_dir: Path | None = None,
    read_options: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, Population | None]:
    """``(subset to release, population)`` for the models of ``privacy``.

    Without a population model, ``(df, None)``. ``table`` is a population table given in
    Python; it takes the place of the file a policy names.

    Raises
    ------
    SchemaError
        The sample column is missing, or the population lacks quasi-identifier columns.
    InputError
        The sample column is not 0/1, the subset is empty, the population is empty or cannot
        be read.
    """
    if not privacy.uses_population:
        return df, None
    dp = privacy.delta_presence
    column = dp.sample_column if dp is not None else None
    if column is not None:
        if column not in df.columns:
            raise SchemaError(f"sample column {column!r} is not in the data")
        mask = _sample_mask(df[column], column)
        if not mask.any():
            raise InputError(
                f"sample column {column!r} marks no row: the subset to release is empty",
                hint="mark the released rows with 1",
            )
        population = df.drop(columns=[column]).reset_index(drop=True)
        subset = population.loc[mask].reset_index(drop=True)
        return subset, Population(population, "sample_column")
    if table is None:
        path = population_path(privacy)
        if path is None:
            raise InputError(
                "delta-presence / k-map need a population table",
                hint="give privacy.delta_presence.population (or k_map.population)",
            )
        table = read_population(path, base_dir=base_dir, options=read_options)
    missing = [q for q in quasi_identifiers if q not in table.columns]
    if missing:
        raise SchemaError(
            f"the population table lacks {len(missing)} quasi-identifier column(s): "
            + ", ".join(missing),
            hint="the population needs every quasi-identifier column of the input",
        )
    if len(table) == 0:
        raise InputError("the population table is empty", hint="check the population file")
    return df, Population(table.reset_index(drop=True), "table")


def check_contained(ft: FrequencyTable) -> None:
    """Every subset record has its own population record with the same quasi-identifiers.

    Compared on the distinct original combinations of the frequency table: a combination
    with more subset records than population records is a violation.
    """
    pop = ft.population_counts
    assert pop is not None
    excess = np.maximum(ft.counts - pop, 0)
    n_bad = int(excess.sum())
    if n_bad:
        raise InputError(
            f"the input is not a subset of the population table: {n_bad} of its "
            f"{ft.n_rows} record(s) have no matching population record (compared on the "
            f"quasi-identifiers; {int(np.count_nonzero(excess))} distinct combination(s))",
            hint="the population must contain every released person; or give the whole "
            "population as the input and mark the released rows with delta_presence."
            "sample_column",
        )
