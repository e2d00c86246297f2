"""The ``anonymize`` stage of ``veil run``: k-anonymity, l-diversity, t-closeness,
delta-presence and k-map.

:meth:`AnonymizeStage.check` validates what can be checked before data is read (hierarchy
and population files exist, hierarchy files parse, models are supported). :meth:`AnonymizeStage.run` anonymizes
``ctx.data`` (after the field transforms), sets ``ctx.data`` and ``ctx.suppressed`` and writes
``ctx.report["anonymize"]``: the JSON of :meth:`AnonymizationResult.to_dict` plus a
``"summary"`` dict. Counts and levels only, never a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from veil._errors import PolicyError

if TYPE_CHECKING:
    from veil.pipeline import RunContext
    from veil.policy import Policy

__all__ = ["AnonymizeStage", "check_policy"]


def check_policy(policy: Policy) -> None:
    """Fail early on what the anonymization cannot do, before any data is read."""
    from veil.policy._models import FileHierarchyConfig, KeepTransform
    from veil.tabular._hierarchy import read_arx_hierarchy
    from veil.tabular._population import population_path

    p = policy.privacy
    if p.uses_population:
        model = "delta_presence" if p.delta_presence is not None else "k_map"
        if policy.search.algorithm == "mondrian":
            raise PolicyError(
                f"privacy.{model} against a population needs the optimal search; Mondrian "
                "supports k-map only with a sampling fraction",
                key="search.algorithm",
                hint="set search: {algorithm: optimal}",
            )
        path = population_path(p)
        if path is not None:
            key = f"privacy.{model}.population"
            if p.delta_presence is None or p.delta_presence.population is None:
                key = "privacy.k_map.population"
            if not policy.resolve(path).is_file():
                raise PolicyError(
                    f"population table not found: {policy.resolve(path)}",
                    key=key,
                    hint="paths are relative to the policy file",
                )
            changed = [
                q
                for q in policy.quasi_identifiers
                if not isinstance(policy.columns[q].transform, KeepTransform | None)
            ]
            if changed:
                raise PolicyError(
                    f"quasi-identifier(s) {', '.join(changed)} have a field transform, but "
                    "the population table is read as is and would no longer match the input",
                    key=f"columns.{changed[0]}.transform",
                    hint="remove the transform, or give the whole population as the input "
                    "with delta_presence.sample_column",
                )
    for q in policy.quasi_identifiers:
        h = policy.columns[q].hierarchy
        if isinstance(h, FileHierarchyConfig):
            read_arx_hierarchy(
                policy.resolve(h.path), q, separator=h.separator, encoding=h.encoding
            ).validate()
    tc = p.t_closeness
    if tc is not None and tc.distance == "hierarchical" and getattr(tc, "hierarchy", None) is None:
        raise PolicyError(
            "hierarchical t-closeness needs a hierarchy of the sensitive column",
            key="privacy.t_closeness.hierarchy",
        )


def summary_of(section: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "equivalence_classes": section["equivalence_classes"],
        "min_class_size": section["min_class_size"],
        "suppressed_records": section["suppressed_records"],
        "search_algorithm": section["search"]["algorithm"],
    }
    metric = section.get("metric")
    if metric is not None and section["information_loss"].get(metric) is not None:
        # the search's own score ("information_loss_loss" read as a stutter, and an entropy
        # metric's bits clashed with the utility's normalized information_loss_entropy)
        out["search_metric"] = metric
        out["search_score"] = section["information_loss"][metric]
    details = section.get("details") or {}
    if "cells_suppressed" in details:
        out["cells_suppressed"] = details["cells_suppressed"]
    population = section.get("population")
    if population:
        out["min_class_population"] = population["min_class_population"]
        out["delta_min"] = population["delta_min"]
        out["delta_max"] = population["delta_max"]
    return out


# The k values of the report's risk-utility trade-off curve (each is a full optimal search).
SWEEP_KS = (2, 3, 5, 10, 20, 50, 100)


class AnonymizeStage:
    """Protect the quasi-identifiers: optimal full-domain search (ARX-exact), Mondrian, MDAV
    microaggregation or local cell suppression (``search.algorithm``)."""

    name: ClassVar[str] = "anonymize"

    def __init__(self, *, sweep: bool = True) -> None:
        # The k sweep feeds the report's risk-utility curve; `veil anonymize` skips it.
        self.sweep = sweep

    def wanted(self, policy: Policy) -> bool:
        return policy.privacy.any_model

    def check(self, policy: Policy) -> None:
        check_policy(policy)

    def raw_columns(self, policy: Policy) -> list[str]:
        from veil.tabular._anonymize import raw_columns

        return raw_columns(policy)

    def run(self, ctx: RunContext) -> None:
        from veil.tabular._anonymize import AnonymizeConfig, anonymize, raw_columns

        config = AnonymizeConfig.from_policy(ctx.policy)
        df = ctx.data
        # the search sees these columns as written (see raw_columns); the release keeps the
        # input's types for every column it does not generalize
        raw = ctx.raw
        swapped: list[str] = []
        if raw is not None and len(raw) == len(df):
            swapped = [c for c in raw_columns(ctx.policy) if c in raw.columns and c in df.columns]
            df = df.copy(deep=False)
            for c in swapped:
                df[c] = raw[c].to_numpy()
        result = anonymize(
            df, config, progress=ctx.progress, sweep=SWEEP_KS if self.sweep else None
        )
        _restore_types(ctx, result, [c for c in swapped if c not in config.quasi_identifiers])
        ctx.data = result.data
        ctx.suppressed = result.suppressed
        section = result.to_dict()
        section["summary"] = summary_of(section)
        ctx.report["anonymize"] = section


def _restore_types(ctx: RunContext, result: Any, columns: list[str]) -> None:
    """Put the input's typed values back in columns the release does not generalize."""
    if not columns:
        return
    dp = ctx.policy.privacy.delta_presence
    rows = None
    if dp is not None and dp.sample_column is not None:  # only the marked rows are released
        from veil.tabular._population import _sample_mask

        rows = _sample_mask(ctx.data[dp.sample_column], dp.sample_column)
    result.data = result.data.copy(deep=False)
    for c in columns:
        typed = ctx.data[c].to_numpy()
        if rows is not None:
            typed = typed[rows]
        if len(typed) == len(result.data):
            result.data[c] = typed


def run_anonymize(
    policy: Policy,
    *,
    out_dir: Any = None,
    progress: Any = None,
    write: bool = True,
) -> tuple[dict[str, Any], dict[str, Any], float]:
    """``veil anonymize``: the pipeline restricted to field transforms and anonymization.

    Unlike ``veil run`` no other stage (text, dp, synth, risk) runs, and the report's k sweep
    is skipped. Nothing is written unless every step and the re-check succeed. Returns
    (report, outputs, seconds).
    """
    from veil.pipeline import run_policy

    result = run_policy(
        policy,
        out_dir=out_dir,
        progress=progress,
        write=write,
        only=("transforms", "anonymize"),
        stages_given={"anonymize": AnonymizeStage(sweep=False)},
    )
    outputs = {k: str(v) for k, v in result.outputs.items()}
    return result.report, outputs, result.seconds
