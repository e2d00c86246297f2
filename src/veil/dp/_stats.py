"""Differentially private statistics on a pandas table, built on OpenDP's vetted mechanisms.

Privacy semantics
-----------------
Unit of privacy: one row, or with ``id_column`` one person (all of their rows; only their
first ``max_contributions`` rows are used). Neighbouring tables differ by adding or removing
one unit (OpenDP's symmetric distance, ``d_in = max_contributions``).

Every answer is computed by an OpenDP measurement (``opendp.enable_features("contrib")``):
clamping, summing, resizing and counting are OpenDP transformations whose stability maps
account for floating-point rounding, and the noise comes from OpenDP's samplers (Laplace and
Gaussian over floats via their discretized, floating-point-safe constructions; the discrete
Laplace and discrete Gaussian over integers; the exponential mechanism for quantiles). No
noise is drawn with numpy. The only work done with pandas is deterministic, row-by-row
preparation that is 1-stable: selecting a column, dropping missing values, mapping values to
public category codes, and truncating each person's rows.

The privacy spent is what OpenDP's privacy map says for the calibrated measurement: a query
with ``mechanism: laplace`` is ``epsilon``-DP; with ``gaussian`` it is ``rho``-zCDP with the
``rho`` that OpenDP's zCDP-to-approximate-DP conversion turns into (``epsilon``, ``delta``).
Each query's spend is recorded (durably, committed) in the ledger before any noise is drawn:
the ledger's transaction runs on its worker thread while this thread calibrates and computes
the exact aggregates, which never leave the process; a refused spend raises
:class:`~veil.PrivacyBudgetExceeded` before any noise is drawn, and spends whose noisy step
then fails are removed again.

Intervals come from OpenDP's accuracy utilities: with probability ``confidence`` the noise
added is within the reported half-width. They cover the *clamped* statistic (values outside
``bounds`` are moved to them; for mean and variance, the table is resized to the public or
estimated size), not the bias that clamping or resizing may add. Histogram and group-by
intervals hold per cell, not simultaneously. Quantiles (the exponential mechanism) have no
closed-form interval; their answers report the candidate grid's spacing instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veil._errors import InputError
from veil.dp._composition import curve_pure, curve_zcdp
from veil.dp._mechanisms import _opendp
from veil.dp._plans import DPAnswer, _Plan, _plan
from veil.dp._query import QuerySpec, parse_queries

if TYPE_CHECKING:
    from concurrent.futures import Future

    import pandas as pd

    from veil.dp._ledger import BudgetLedger

__all__ = ["DPAnswer", "dp_query", "dp_query_many", "fingerprint_frame"]

log = logging.getLogger(__name__)


def fingerprint_frame(df: pd.DataFrame) -> str:
    """A content hash of a table (column names, dtypes and every value), for the ledger.

    It tells whether a spend is made on the data the budget was created for; it is not a
    pseudonym of anyone. It is unkeyed on purpose, so that every member of a team can check it
    without sharing a secret. Its privacy cost: someone holding the ledger and all but a few
    cells of a small table could confirm guesses of the missing cells. Do not record a
    fingerprint for a table of a handful of rows (pass none, or ``--no-fingerprint``).

    Examples
    --------
    >>> import pandas as pd
    >>> a = fingerprint_frame(pd.DataFrame({"x": [1, 2]}))
    >>> a == fingerprint_frame(pd.DataFrame({"x": [1, 2]})), a == fingerprint_frame(pd.DataFrame({"x": [2, 1]}))
    (True, False)
    """
    import hashlib

    import pandas as pd

    h = hashlib.sha256()
    h.update(repr([(str(c), str(t)) for c, t in df.dtypes.items()]).encode())
    h.update(str(len(df)).encode())
    h.update(pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes())
    return "sha256:" + h.hexdigest()


# --------------------------------------------------------------------------- entry points


def _check_delta(spec: QuerySpec, n_rows: int) -> None:
    if spec.delta > 0 and n_rows > 0 and spec.delta >= 1.0 / n_rows:
        raise InputError(
            f"{spec.label}: delta must be below 1/n for a table of {n_rows} rows",
            hint="a delta of 1/n or more allows releasing a whole row; use e.g. 1e-7",
        )


def dp_query_many(
    data: pd.DataFrame,
    queries: Sequence[str | dict[str, Any] | QuerySpec],
    *,
    ledger: BudgetLedger | None,
    dataset: str | None = None,
    fingerprint: str | None = None,
    who: str | None = None,
    dry_run: bool = False,
) -> list[DPAnswer]:
    """Answer several DP queries; their spends are reserved together before any is computed.

    Parameters
    ----------
    data
        The table (never modified).
    queries
        Query strings, JSON strings, dicts or :class:`QuerySpec` (see
        :mod:`veil.dp._query`).
    ledger, dataset
        Where to spend. ``ledger=None`` skips accounting: only when the caller's user asked
        for that explicitly.
    fingerprint
        The data's :func:`fingerprint_frame`; refused if the ledger recorded another.
    dry_run
        Check the budget and the queries; compute and record nothing (answers are empty).

    Raises
    ------
    PrivacyBudgetExceeded
        Before anything noisy is computed; nothing is recorded.
    """
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise InputError(f"DP queries run on a pandas DataFrame, got {type(data).__name__}")
    specs = parse_queries(list(queries))
    if ledger is not None and not dataset:
        raise InputError("spending from a ledger needs a dataset name", hint="pass --dataset")
    dp = _opendp()
    for spec in specs:
        _check_delta(spec, len(data))
    plans = [_plan(dp, data, spec) for spec in specs]  # everything checked before spending
    return answer_plans(
        plans, ledger=ledger, dataset=dataset, fingerprint=fingerprint, who=who, dry_run=dry_run
    )


def answer_plans(
    plans: list[_Plan],
    *,
    ledger: BudgetLedger | None,
    dataset: str | None,
    fingerprint: str | None,
    who: str | None,
    dry_run: bool,
) -> list[DPAnswer]:
    """Spend, then release: the ledger records every plan's spend (one entry per query)
    before any noise is drawn; :func:`dp_query_many`'s second half, shared with the Ray
    engine (whose plans draw their noise on the partitions' merged aggregates)."""
    if dry_run:
        if ledger is not None:
            assert dataset is not None
            with ledger.charge_many(
                dataset, _requests(plans, who), fingerprint=fingerprint, dry_run=True
            ):
                pass
        return []
    if ledger is None:
        log.warning("DP queries answered without a ledger: nothing was recorded")
        return [_timed(p) for p in plans]
    assert dataset is not None
    # The ledger checks and durably records the spends on its worker thread while this
    # thread stages the plans: calibration and exact aggregates, nothing that is released.
    # Noise is drawn only after the ledger accepted; a refusal raises before any is drawn.
    pending = ledger._submit_spends(dataset, _requests(plans, who), fingerprint=fingerprint)
    try:
        t0 = time.perf_counter()
        staged = []
        for p in plans:
            staged.append(p.stage())
        staged_s = time.perf_counter() - t0
    except BaseException:
        _settle(ledger, dataset, pending)
        raise
    spends = pending.result()  # PrivacyBudgetExceeded / LedgerUnavailableError: no noise drawn
    try:
        answers = []
        for release in staged:
            t0 = time.perf_counter()
            answers.append(release())
            answers[-1].seconds = time.perf_counter() - t0 + staged_s / len(staged)
    except BaseException:
        ledger._revoke(dataset, spends)  # the spends' noisy results were never computed
        raise
    for a, s in zip(answers, spends, strict=True):
        a.spend_id = s.id
    return answers


def _settle(ledger: BudgetLedger, dataset: str, pending: Future[list[Any]]) -> None:
    """Staging failed: wait for the ledger and remove the spends if it recorded them."""
    try:
        spends = pending.result()
    except Exception:  # noqa: BLE001 - refused or unreachable: nothing recorded to remove
        return
    ledger._revoke(dataset, spends)


def _timed(plan: _Plan) -> DPAnswer:
    t0 = time.perf_counter()
    a = plan.run()
    a.seconds = time.perf_counter() - t0
    return a


def _requests(plans: list[_Plan], who: str | None) -> list[Any]:
    from veil.dp._ledger import SpendRequest

    out = []
    for p in plans:
        b = p.budget
        curve: dict[str, Any] | None
        if b.gaussian and b.rho is not None:
            curve = curve_zcdp(b.rho)
        elif p.spec.thresholded:
            curve = None  # approximate DP without a curve: composed by the plain sum
        else:
            curve = curve_pure(b.epsilon)
        out.append(
            SpendRequest(
                epsilon=b.epsilon,
                delta=b.delta,
                what=f"dp {p.spec.label}",
                mechanism=f"opendp-{p.spec.mechanism}",
                who=who,
                curve=curve,
            )
        )
    return out


def dp_query(
    data: pd.DataFrame,
    query: str | dict[str, Any] | QuerySpec,
    *,
    ledger: BudgetLedger | None,
    dataset: str | None = None,
    fingerprint: str | None = None,
    who: str | None = None,
) -> DPAnswer:
    """Answer one DP query, spending its budget from ``ledger`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dp import BudgetLedger
    >>> ledger = BudgetLedger("sqlite:///:memory:")
    >>> ledger.init("people", epsilon=1.0)
    >>> df = pd.DataFrame({"age": [23, 35, 47, 51, 62] * 200})
    >>> a = dp_query(df, "mean(age, bounds=[0, 100], epsilon=0.5)", ledger=ledger,
    ...              dataset="people")
    >>> a.mechanism, a.epsilon, ledger.remaining("people")[0]
    ('laplace', 0.5, 0.5)
    >>> a.interval[0] <= a.value <= a.interval[1]
    True
    """
    (answer,) = dp_query_many(
        data, [query], ledger=ledger, dataset=dataset, fingerprint=fingerprint, who=who
    )
    return answer
