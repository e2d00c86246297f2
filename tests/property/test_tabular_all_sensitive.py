"""Hypothesis: with two sensitive columns and an l-diversity / t-closeness model that names no
column, every class released by the optimal search and by Mondrian meets l and t for EACH
sensitive column, checked here by plain pandas (not the engine's models, not the re-check);
when either refuses (exit 4), even the whole table as one class fails a column.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabular_tables import qi_tables

from veil._errors import PrivacyRequirementNotMet
from veil.policy import PrivacyConfig, SearchConfig
from veil.tabular import AnonymizeConfig, anonymize

SENSITIVE = ("s", "s2")


@st.composite
def problems(draw):
    qis, hier, df = draw(qi_tables(rows=(4, 40)))
    # the second column: numbers (ordered by value), often less diverse than the first
    df["s2"] = draw(st.lists(st.integers(1, 4), min_size=len(df), max_size=len(df)))
    privacy: dict[str, object] = {"k_anonymity": {"k": draw(st.integers(2, 4))}}
    variant = draw(st.sampled_from([None, "distinct", "entropy", "recursive"]))
    if variant is not None:
        ld: dict[str, object] = {"l": draw(st.integers(2, 3)), "variant": variant}
        if variant == "recursive":
            ld["c"] = draw(st.sampled_from([1.0, 2.0, 3.0]))
        privacy["l_diversity"] = ld
    if variant is None or draw(st.booleans()):
        privacy["t_closeness"] = {
            "t": draw(st.sampled_from([0.2, 0.4, 0.7])),
            "distance": draw(st.sampled_from(["equal", "ordered"])),
        }
    privacy["suppression_limit"] = draw(st.sampled_from([0.0, 0.2, 1.0]))
    algorithm = draw(st.sampled_from(["optimal", "mondrian"]))
    return df, qis, hier, PrivacyConfig.model_validate(privacy), algorithm


def _class_ok(s: pd.Series, whole: pd.Series, cfg: PrivacyConfig) -> bool:
    """One class, one sensitive column, by hand (``whole``: the column over the input)."""
    counts = s.value_counts()
    ld = cfg.l_diversity
    if ld is not None:
        if len(counts) < math.ceil(ld.l):
            return False
        if ld.variant == "entropy":
            p = counts.to_numpy() / len(s)
            if -(p * np.log(p)).sum() < math.log(ld.l) - 1e-9:
                return False
        if ld.variant == "recursive":
            r = sorted(counts.tolist(), reverse=True)
            if not r[0] < (ld.c or 0.0) * sum(r[int(ld.l) - 1 :]):
                return False
    tc = cfg.t_closeness
    if tc is not None:
        values = sorted(whole.unique())
        p = whole.value_counts(normalize=True).reindex(values).to_numpy()
        q = s.value_counts(normalize=True).reindex(values, fill_value=0.0).to_numpy()
        if tc.distance == "equal":
            emd = 0.5 * np.abs(q - p).sum()
        else:
            emd = np.abs(np.cumsum(q - p)).sum() / max(len(values) - 1, 1)
        if emd > tc.t + 1e-9:
            return False
    return True


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(problems())
def test_every_released_class_meets_l_and_t_for_every_sensitive_column(problem) -> None:
    df, qis, hier, privacy, algorithm = problem
    config = AnonymizeConfig(
        tuple(qis),
        hier,
        privacy,
        SearchConfig.model_validate({"algorithm": algorithm}),
        SENSITIVE,
    )
    k = privacy.k_anonymity.k if privacy.k_anonymity else 1
    try:
        result = anonymize(df, config)
    except PrivacyRequirementNotMet as exc:
        assert exc.exit_code == 4
        whole_fails = not all(_class_ok(df[c], df[c], privacy) for c in SENSITIVE)
        assert k > len(df) or whole_fails
        return
    released = result.data.reset_index(drop=True)
    kept = released.loc[~np.asarray(result.suppressed, dtype=bool)]
    assert len(released) == len(df)
    for col in SENSITIVE:
        assert (released[col].to_numpy() == df[col].to_numpy()).all()
    if len(kept) == 0:
        return
    groups = kept.groupby([kept[q].astype(str) for q in qis])
    assert groups.size().min() >= k
    for col in SENSITIVE:
        for _, grp in groups:
            assert _class_ok(grp[col], df[col], privacy), col
