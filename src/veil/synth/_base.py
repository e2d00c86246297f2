"""The synthesizer contract: ``fit`` a table, ``sample`` rows, ``save``/``load`` a file.

Every synthesizer:

- infers a :class:`~veil.synth._schema.TableSchema` and refuses bad input (identifier-like
  columns, data that violates a constraint) before learning anything;
- reproduces constant and all-missing columns as they were, without modelling them;
- enforces constraints on sampled rows by rejection (:func:`~veil.synth._constraints.enforce`);
- saves to a zip of JSON and numpy arrays (no pickle, see :mod:`veil.synth._format`).

Differentially private synthesizers (``dp = True``) also take ``epsilon``/``delta``, charge
them to a :class:`veil.dp.BudgetLedger` *before* touching the data, and refund the charge if
fitting fails.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
import pandas as pd

from veil._errors import InputError
from veil._progress import NullProgress, Progress
from veil._registry import Registry
from veil.synth._constraints import (
    Constraint,
    check_constraints,
    constraint_from_dict,
    enforce,
)
from veil.synth._format import read_model_file, write_model_file
from veil.synth._schema import TableSchema, clip_to_bounds, infer_schema, restore_dtypes

if TYPE_CHECKING:
    from typing import Self

__all__ = [
    "NOT_DP",
    "LedgerLike",
    "Synthesizer",
    "dp_statement",
    "load_synthesizer",
    "synthesizers",
]

log = logging.getLogger(__name__)

synthesizers: Registry[type[Synthesizer]] = Registry("synthesizer")

MAX_EPSILON = 100.0

NOT_DP = (
    "not differentially private: the model and the synthetic rows are learnt from the data "
    "with no formal privacy guarantee (test data and development only; check them with "
    "'veil synth evaluate')"
)


class LedgerLike(Protocol):
    """What the synthesizers need of :class:`veil.dp.BudgetLedger`."""

    def charge(
        self, dataset: str, *, epsilon: float, delta: float, what: str, mechanism: str, **kw: Any
    ) -> AbstractContextManager[Any]: ...


class Synthesizer:
    """Base class. Subclasses implement ``_fit``, ``_sample``, ``_get_state``, ``_set_state``.

    Parameters
    ----------
    constraints
        Rules every sampled row satisfies (see :mod:`veil.synth._constraints`).
    seed
        Seed of the ordinary randomness (initialisation, sampling). DP noise never uses it:
        it comes from OpenDP's or Opacus' secure samplers.
    """

    name: ClassVar[str] = ""
    dp: ClassVar[bool] = False

    def __init__(self, *, constraints: Sequence[Constraint] = (), seed: int | None = None) -> None:
        self.constraints = tuple(constraints)
        self.seed = seed

    # ------------------------------------------------------------------ subclass hooks
    def _fit(self, data: pd.DataFrame, schema: TableSchema, progress: Progress) -> None:
        raise NotImplementedError

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """``n`` rows of the modelled columns (may contain NaN for missing values)."""
        raise NotImplementedError

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        raise NotImplementedError

    def _set_state(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    def _params(self) -> dict[str, Any]:
        """Constructor parameters, saved with the model (JSON-able)."""
        return {"seed": self.seed}

    # ------------------------------------------------------------------ public API
    def fit(
        self,
        data: pd.DataFrame,
        *,
        declared: Mapping[str, str] | None = None,
        categories: Mapping[str, Sequence[Any]] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        progress: Progress | None = None,
    ) -> Self:
        """Learn the table. See :func:`~veil.synth._schema.infer_schema` for the options.

        Raises
        ------
        InputError
            Empty table, identifier-like columns, a constraint the data violates.
        """
        progress = progress or NullProgress()
        if not isinstance(data, pd.DataFrame):
            raise InputError(f"fit expects a pandas DataFrame, got {type(data).__name__}")
        data = data.reset_index(drop=True)
        data.columns = [str(c) for c in data.columns]
        schema = infer_schema(data, declared=declared, categories=categories, bounds=bounds)
        self._declared_domain = set(categories or {}) | set(bounds or {})
        check_constraints(data, self.constraints)
        self._check_dp_params(len(data))
        data = clip_to_bounds(data, schema)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        modelled = [c.name for c in schema.modelled]
        self._fit(data[modelled], schema, progress)
        self.schema_ = schema
        self.n_rows_ = len(data)
        self.fit_info_: dict[str, Any] = {
            "method": self.name,
            "rows": len(data),
            "columns": len(schema.columns),
            "cpu_seconds": round(time.process_time() - cpu0, 3),
            "wall_seconds": round(time.perf_counter() - wall0, 3),
            "notes": list(schema.notes),
            **self._privacy_info(),
        }
        return self

    def _check_dp_params(self, n: int) -> None:
        return None

    def _privacy_info(self) -> dict[str, Any]:
        return {"differential_privacy": False, "privacy_statement": NOT_DP}

    def _check_fitted(self) -> None:
        if not hasattr(self, "schema_"):
            raise InputError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def sample(self, n: int, *, seed: int | None = None) -> pd.DataFrame:
        """Draw ``n`` synthetic rows with the columns (and dtypes) of the training table.

        Every row satisfies the constraints. ``seed`` (or the constructor's) makes the
        draw repeatable.
        """
        self._check_fitted()
        if not isinstance(n, int | np.integer) or n < 0:
            raise InputError(f"the number of rows must be a non-negative integer, got {n!r}")
        rng = np.random.default_rng(seed if seed is not None else self.seed)
        schema = self.schema_

        def draw(k: int) -> pd.DataFrame:
            part = (
                self._sample(k, rng)
                if k
                else pd.DataFrame(columns=[c.name for c in schema.modelled])
            )
            cols: dict[str, Any] = {}
            for spec in schema.columns:
                if spec.kind == "empty":
                    cols[spec.name] = pd.Series(
                        [np.nan] * k, dtype="float64" if "float" in spec.dtype else object
                    )
                elif spec.kind == "constant":
                    v = np.array([spec.categories[0]] * k, dtype=object)
                    if spec.has_missing:
                        v[rng.random(k) < spec.missing_rate] = None
                    s = pd.Series(v)
                    if spec.dtype.startswith("datetime"):
                        s = pd.to_datetime(s)
                    elif not spec.has_missing and spec.dtype != "object":
                        with suppress(TypeError, ValueError):
                            s = s.astype(pd.api.types.pandas_dtype(spec.dtype))
                    cols[spec.name] = s
                else:
                    cols[spec.name] = part[spec.name].reset_index(drop=True)
            return restore_dtypes(pd.DataFrame(cols), schema)

        return enforce(draw, int(n), self.constraints)

    def save(self, path: str | Path) -> Path:
        """Write the fitted model to ``path`` atomically (zip of JSON + numpy; no pickle)."""
        self._check_fitted()
        meta, arrays = self._get_state()
        doc = {
            "method": self.name,
            "params": self._params(),
            "schema": self.schema_.to_dict(),
            "constraints": [c.to_dict() for c in self.constraints],
            "fit_info": self.fit_info_,
            "n_rows": self.n_rows_,
            "state": meta,
        }
        return write_model_file(path, doc, arrays)

    @classmethod
    def load(cls, path: str | Path) -> Synthesizer:
        """Read a model written by :meth:`save` (any method; the file names it)."""
        return load_synthesizer(path)

    def __repr__(self) -> str:
        fitted = "fitted" if hasattr(self, "schema_") else "not fitted"
        return f"{type(self).__name__}({fitted})"


def load_synthesizer(path: str | Path) -> Synthesizer:
    """Load any saved synthesizer. The file is read without unpickling anything."""
    meta, arrays = read_model_file(path)
    method = meta.get("method")
    if not isinstance(method, str) or method not in synthesizers:
        raise InputError(f"{path}: unknown synthesizer method {method!r}")
    cls = synthesizers.get(method)
    params = dict(meta.get("params", {}))
    constraints = [constraint_from_dict(c) for c in meta.get("constraints", [])]
    obj = cls(constraints=constraints, **params)
    obj.schema_ = TableSchema.from_dict(meta["schema"])
    obj.fit_info_ = dict(meta.get("fit_info", {}))
    obj.n_rows_ = int(meta.get("n_rows", 0))
    obj._set_state(dict(meta.get("state", {})), arrays)
    return obj


def dp_guard(
    ledger: LedgerLike | None,
    dataset: str | None,
    *,
    epsilon: float,
    delta: float,
    what: str,
    mechanism: str,
    account: bool,
    curve: dict[str, Any] | None = None,
) -> AbstractContextManager[Any]:
    """The ledger charge that must wrap a DP fit, or a no-op when accounting is skipped."""
    if ledger is None or dataset is None:
        if account:
            raise InputError(
                "a differentially private fit must be charged to a privacy-budget ledger",
                hint="pass ledger= and dataset= (CLI: --dataset NAME [--ledger URL]), or "
                "account=False (CLI: --no-ledger) to skip accounting on purpose",
            )
        log.warning("DP fit without budget accounting (explicitly requested)")
        return nullcontext()
    if curve is not None:
        return ledger.charge(
            dataset, epsilon=epsilon, delta=delta, what=what, mechanism=mechanism, curve=curve
        )
    return ledger.charge(dataset, epsilon=epsilon, delta=delta, what=what, mechanism=mechanism)


def dp_statement(epsilon: float, delta: float, from_data: Sequence[str]) -> str:
    """What the (epsilon, delta) of a DP fit covers, in words (CLI, JSON and report)."""
    head = f"({epsilon:g}, {delta:g})-DP for one row"
    if not from_data:
        return (
            f"{head}; epsilon covers the values and the domain (bounds, categories) of every column"
        )
    return (
        f"{head}; epsilon covers the values, not the domain of columns "
        f"{', '.join(from_data)} (bounds, categories or constant values read from the data "
        "without DP)"
    )


def check_epsilon_delta(epsilon: float, delta: float, n: int, *, need_delta: bool = True) -> None:
    """Refuse an epsilon outside (0, 100] or a delta outside (0, 1/n)."""
    if (
        not isinstance(epsilon, int | float)
        or not math.isfinite(epsilon)
        or not 0 < epsilon <= MAX_EPSILON
    ):
        raise InputError(
            f"epsilon must be a number in (0, {MAX_EPSILON:g}]",
            hint="typical values are 0.1 to 10",
        )
    if need_delta:
        if not isinstance(delta, int | float) or not math.isfinite(delta) or not 0 < delta < 1:
            raise InputError("delta must be a number in (0, 1)")
        if n > 0 and delta >= 1.0 / n:
            raise InputError(
                f"delta must be below 1/rows (rows = {n}); a larger delta allows releasing a row",
                hint="use e.g. delta = 1e-9, or at most 1/(10 * rows)",
            )
