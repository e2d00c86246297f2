"""Pydantic models of the YAML policy.

Every model is frozen and forbids unknown keys, so a typo in a policy is an error that names
the key, never a silently ignored setting. Defaults live here and nowhere else (the field
transforms' models in :mod:`veil.policy._transform_models`, the dp and synth sections' in
:mod:`veil.policy._release_models`, the shared base in :mod:`veil.policy._base`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from veil.policy._base import LocatedError, _Model
from veil.policy._release_models import DPConfig, SynthConfig
from veil.policy._text_models import TextConfig
from veil.policy._transform_models import (
    DateGeneralizeTransform,
    DateShiftTransform,
    DropTransform,
    GeoDisplaceTransform,
    GeoRoundTransform,
    HashTransform,
    KeepTransform,
    MaskTransform,
    NoiseTransform,
    TokenizeTransform,
    TopBottomCodeTransform,
    TransformConfig,
    _KeyedMixin,
)

__all__ = [
    "AnonymizeStageConfig",
    "AutoHierarchyConfig",
    "ColumnConfig",
    "DPConfig",
    "DataConfig",
    "DateGeneralizeTransform",
    "DateHierarchyConfig",
    "DateShiftTransform",
    "DeltaPresenceConfig",
    "DropTransform",
    "EngineConfig",
    "FileHierarchyConfig",
    "GeoDisplaceTransform",
    "GeoRoundTransform",
    "HashTransform",
    "HierarchyConfig",
    "IntervalHierarchyConfig",
    "KAnonymityConfig",
    "KMapConfig",
    "KeepTransform",
    "LDiversityConfig",
    "LocatedError",
    "MaskHierarchyConfig",
    "MaskTransform",
    "NoiseTransform",
    "OutputConfig",
    "Policy",
    "PrivacyConfig",
    "Role",
    "SearchConfig",
    "SynthConfig",
    "TClosenessConfig",
    "TaxonomyHierarchyConfig",
    "TextConfig",
    "TokenizeTransform",
    "TopBottomCodeTransform",
    "TransformConfig",
]


class Role(StrEnum):
    """What a column is, for privacy purposes."""

    identifier = "identifier"  # names, emails, SSNs: must be dropped or transformed
    quasi_identifier = "quasi_identifier"  # age, zip, sex: linkable, generalized by the search
    sensitive = "sensitive"  # diagnosis, salary: protected by l-diversity / t-closeness
    insensitive = "insensitive"  # kept as is
    text = "text"  # free text: PII detected and replaced


# --------------------------------------------------------------------------- data / output


class DataConfig(_Model):
    """Where the input table comes from: a file, or a table or query in a SQL database."""

    path: Path | None = None
    format: Literal["csv", "parquet", "jsonl"] | None = None  # inferred from the suffix
    separator: str = Field(",", min_length=1, max_length=1)
    encoding: str = "utf-8"
    quotechar: str = Field('"', min_length=1, max_length=1)
    quoting: Literal["minimal", "all", "none", "nonnumeric"] = "minimal"
    na_values: tuple[str, ...] = ()
    header: bool | None = Field(
        None,
        description="true: the first line names the columns; false: it is data (columns "
        "col_1 to col_N); unset: refuse a first line that looks like data",
    )
    url: str | None = Field(None, description="SQLAlchemy URL, e.g. postgresql+psycopg://u@h/db")
    url_env: str | None = Field(
        None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="environment variable holding the SQLAlchemy URL (keeps its password "
        "out of the policy)",
    )
    table: str | None = None
    query: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> DataConfig:
        given = [k for k in ("path", "url", "url_env") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of 'path' (a file), 'url' or 'url_env' (a SQL database)"
            )
        if self.path is None and (self.table is None) == (self.query is None):
            raise ValueError("a SQL source needs exactly one of 'table' or 'query'")
        return self


class OutputConfig(_Model):
    """Where the release and its report go."""

    path: Path = Path("out")
    format: Literal["parquet", "csv", "jsonl"] = "parquet"
    name: str = Field("released", pattern=r"^[A-Za-z0-9_.-]+$")
    report: tuple[Literal["json", "html"], ...] = ("json", "html")
    url: str | None = Field(None, description="also write the release to this SQL database")
    table: str | None = None
    if_exists: Literal["fail", "replace"] = "fail"
    partitioned: bool = Field(
        False,
        description="write the release as a folder NAME/ of one file per input partition "
        "(each input file's path relative to data.path, with the output format's suffix)",
    )

    @model_validator(mode="after")
    def _sql_pair(self) -> OutputConfig:
        if (self.url is None) != (self.table is None):
            raise ValueError("writing to SQL needs both 'url' and 'table'")
        return self


class EngineConfig(_Model):
    """Where ``veil run`` runs: this process (``local``) or Ray (``ray``, docs/scale.md).

    ``--engine`` and ``--ray-address`` on the command line override these keys.
    """

    type: Literal["local", "ray"] = "local"
    address: str | None = Field(
        None,
        description="Ray cluster (HOST:PORT or ray://HOST:PORT); unset: veil starts a local "
        "Ray runtime and shuts it down at the end",
    )
    num_cpus: int | None = Field(
        None, ge=1, description="CPUs of the local Ray runtime veil starts (unset: all)"
    )

    @model_validator(mode="after")
    def _ray_only(self) -> EngineConfig:
        if self.type == "local" and (self.address is not None or self.num_cpus is not None):
            raise ValueError("'address' and 'num_cpus' need type: ray")
        if self.address is not None and self.num_cpus is not None:
            raise ValueError("'num_cpus' sizes a local Ray runtime; a cluster has its own")
        return self


# --------------------------------------------------------------------------- field transforms


_ACTION_SHORTHANDS = {
    "drop": {"type": "drop"},
    "keep": {"type": "keep"},
    "mask": {"type": "mask"},
    "hash": {"type": "hash"},
    "pseudonymize": {"type": "hash"},
    "tokenize": {"type": "tokenize"},
}

# --------------------------------------------------------------------------- hierarchies


class FileHierarchyConfig(_Model):
    """An ARX-format CSV: one row per original value, one column per level, '*' as the top."""

    type: Literal["file"] = "file"
    path: Path
    separator: str = Field(";", min_length=1, max_length=1)
    encoding: str = "utf-8"


class IntervalHierarchyConfig(_Model):
    """Numeric intervals: fixed ``width`` doubled at each level, or explicit cut points."""

    type: Literal["interval"] = "interval"
    width: float | None = Field(None, gt=0)
    growth: float = Field(2.0, ge=1)
    levels: int | None = Field(None, ge=1, le=32)
    cuts: tuple[tuple[float, ...], ...] | None = None
    bottom: float | None = Field(None, description="values below go to an open bin '<bottom'")
    top: float | None = Field(None, description="values at or above go to an open bin '>=top'")

    @model_validator(mode="after")
    def _width_or_cuts(self) -> IntervalHierarchyConfig:
        if (self.width is None) == (self.cuts is None):
            raise ValueError("give either 'width' or 'cuts'")
        return self


class DateHierarchyConfig(_Model):
    """Dates coarsened level by level."""

    type: Literal["date"] = "date"
    levels: tuple[Literal["day", "month", "quarter", "year", "decade"], ...] = (
        "month",
        "year",
    )


class MaskHierarchyConfig(_Model):
    """Codes such as zip codes, masked one character per level from the right (or left)."""

    type: Literal["mask"] = "mask"
    from_: Literal["right", "left"] = Field("right", alias="from")
    char: str = Field("*", min_length=1, max_length=1)
    levels: int | None = Field(None, ge=1)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class TaxonomyHierarchyConfig(_Model):
    """A categorical taxonomy: ``{value: [level1, level2, ...]}``, written in YAML or a file."""

    type: Literal["taxonomy"] = "taxonomy"
    tree: dict[str, tuple[str, ...]] | None = None
    path: Path | None = None

    @model_validator(mode="after")
    def _tree_or_path(self) -> TaxonomyHierarchyConfig:
        if (self.tree is None) == (self.path is None):
            raise ValueError("give either 'tree' or 'path'")
        return self


class AutoHierarchyConfig(_Model):
    """Let veil build a default: intervals for numbers, masking for codes, '*' otherwise."""

    type: Literal["auto"] = "auto"


HierarchyConfig = Annotated[
    FileHierarchyConfig
    | IntervalHierarchyConfig
    | DateHierarchyConfig
    | MaskHierarchyConfig
    | TaxonomyHierarchyConfig
    | AutoHierarchyConfig,
    Field(discriminator="type"),
]

# --------------------------------------------------------------------------- columns


class ColumnConfig(_Model):
    """One column of the input table and what to do with it."""

    role: Role
    transform: TransformConfig | None = None
    hierarchy: HierarchyConfig | None = None
    dtype: Literal["numeric", "categorical", "date", "ordinal"] | None = None
    text: TextConfig | None = None
    # Legacy / shorthand keys folded into ``transform`` and ``text``.
    action: str | None = None
    entities: tuple[str, ...] | None = None
    operator: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthands(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        action = data.pop("action", None)
        if action is not None:
            if "transform" in data:
                raise ValueError("give 'action' or 'transform', not both")
            if action not in _ACTION_SHORTHANDS:
                raise ValueError(
                    f"unknown action {action!r}; use one of {', '.join(_ACTION_SHORTHANDS)} "
                    "or a full 'transform: {type: ...}'"
                )
            data["transform"] = _ACTION_SHORTHANDS[action]
        ents, op = data.pop("entities", None), data.pop("operator", None)
        if ents is not None or op is not None:
            text = dict(data.get("text") or {})
            if ents is not None:
                text.setdefault("entities", ents)
            if op is not None:
                text.setdefault("operator", op)
            data["text"] = text
        return data

    @model_validator(mode="after")
    def _role_fits(self) -> ColumnConfig:
        if self.role is Role.text and self.transform is not None:
            raise ValueError("a text column is redacted by 'text:', it takes no 'transform'")
        if self.role is not Role.text and self.text is not None:
            raise ValueError("'text:', 'entities' and 'operator' need role: text")
        if self.hierarchy is not None and self.role is not Role.quasi_identifier:
            raise ValueError("only a quasi_identifier takes a 'hierarchy'")
        if self.role is Role.identifier and isinstance(self.transform, KeepTransform):
            raise ValueError(
                "an identifier cannot be kept as is: drop it or use a transform "
                "(hash, tokenize, mask)"
            )
        return self


# --------------------------------------------------------------------------- privacy models


class KAnonymityConfig(_Model):
    k: int = Field(ge=2)


class LDiversityConfig(_Model):
    l: float = Field(ge=1)  # noqa: E741 - the model's own name
    variant: Literal["distinct", "entropy", "recursive"] = "distinct"
    c: float | None = Field(None, gt=0, description="c of recursive (c,l)-diversity")
    column: str | None = Field(
        None, description="sensitive column; default: every sensitive column, each on its own"
    )

    def applies_to(self, sensitive: Sequence[str]) -> list[str]:
        """The columns this model protects: its ``column``, or else every sensitive column
        (one model per column, each judged on its own, as ARX does)."""
        return [self.column] if self.column is not None else list(sensitive)

    @model_validator(mode="after")
    def _c(self) -> LDiversityConfig:
        if self.variant == "recursive" and self.c is None:
            raise ValueError("recursive (c,l)-diversity needs 'c'")
        if self.variant != "entropy" and self.l != int(self.l):
            raise ValueError(f"{self.variant} l-diversity needs a whole number l")
        return self


class TClosenessConfig(_Model):
    t: float = Field(gt=0, le=1)
    distance: Literal["equal", "ordered", "hierarchical"] = "equal"
    column: str | None = Field(
        None, description="sensitive column; default: every sensitive column, each on its own"
    )
    hierarchy: HierarchyConfig | None = Field(
        None, description="hierarchy of the sensitive column, for distance: hierarchical"
    )

    def applies_to(self, sensitive: Sequence[str]) -> list[str]:
        """The columns this model protects: its ``column``, or else every sensitive column
        (one model per column, each judged on its own, as ARX does)."""
        return [self.column] if self.column is not None else list(sensitive)


class DeltaPresenceConfig(_Model):
    """delta-presence (Nergiz et al.): each released class holds between ``delta_min`` and
    ``delta_max`` of the population's people in that class.

    The population comes from exactly one of ``population`` (a table file, relative to the
    policy; the policy's input is the released subset of it) or ``sample_column`` (the input
    is the population and this 0/1 column marks the rows to release).
    """

    delta_min: float = Field(0.0, ge=0, le=1)
    delta_max: float = Field(gt=0, le=1)
    population: Path | None = Field(None, description="population table (CSV/Parquet/JSONL)")
    sample_column: str | None = Field(None, description="0/1 column marking the released rows")

    @model_validator(mode="after")
    def _source(self) -> DeltaPresenceConfig:
        if self.delta_min > self.delta_max:
            raise LocatedError(
                f"delta_min ({self.delta_min:g}) is larger than delta_max ({self.delta_max:g})",
                "delta_min",
            )
        if (self.population is None) == (self.sample_column is None):
            raise ValueError(
                "give exactly one of 'population' (a population table file) or "
                "'sample_column' (a 0/1 column of the input marking the released rows)"
            )
        return self


class KMapConfig(_Model):
    """k-map: each released class matches at least ``k`` people of the population.

    The population sizes come from ``population`` (a table file, relative to the policy),
    from ``sampling_fraction`` (an estimate: class size / fraction), or, with neither, from
    the population that ``delta_presence`` names.
    """

    k: int = Field(ge=2)
    population: Path | None = Field(None, description="population table (CSV/Parquet/JSONL)")
    sampling_fraction: float | None = Field(None, gt=0, le=1)

    @model_validator(mode="after")
    def _source(self) -> KMapConfig:
        if self.population is not None and self.sampling_fraction is not None:
            raise ValueError("give 'population' or 'sampling_fraction', not both")
        return self


class LeakAllowConfig(_Model):
    """One (identifier column, released column) pair whose leak-scan hits are allowed."""

    source: str = Field(min_length=1, description="an identifier column of the input")
    released: str = Field(
        min_length=1,
        description="a released column (``synthetic.<fmt>/<column>`` for the synthetic table)",
    )


class LeakScanConfig(_Model):
    """The release leak scan (``veil.audit``): which hits are allowed; any other fails."""

    allow: tuple[LeakAllowConfig, ...] = ()


class PrivacyConfig(_Model):
    k_anonymity: KAnonymityConfig | None = None
    l_diversity: LDiversityConfig | None = None
    t_closeness: TClosenessConfig | None = None
    delta_presence: DeltaPresenceConfig | None = None
    k_map: KMapConfig | None = None
    suppression_limit: float = Field(0.0, ge=0, le=1)
    leak_scan: LeakScanConfig | None = None

    @model_validator(mode="after")
    def _one_population(self) -> PrivacyConfig:
        km, dp = self.k_map, self.delta_presence
        if km is None or km.sampling_fraction is not None:
            return self
        if km.population is None and dp is None:
            raise LocatedError(
                "k_map needs 'population' (a population table) or 'sampling_fraction'",
                "k_map",
            )
        if km.population is not None and dp is not None and km.population != dp.population:
            raise LocatedError(
                "k_map and delta_presence name different populations; one release has one "
                "population: drop k_map.population to use delta_presence's",
                "k_map",
                "population",
            )
        return self

    @property
    def uses_population(self) -> bool:
        """Whether a model reads a population table (or a sample column of the input)."""
        km = self.k_map
        return self.delta_presence is not None or (km is not None and km.sampling_fraction is None)

    @property
    def any_model(self) -> bool:
        return any(
            m is not None
            for m in (
                self.k_anonymity,
                self.l_diversity,
                self.t_closeness,
                self.delta_presence,
                self.k_map,
            )
        )


class SearchConfig(_Model):
    """How the privacy models are reached.

    ``optimal``: full-domain generalization over the hierarchies' lattice (ARX). ``mondrian``:
    strict multidimensional local recoding. ``mdav``: microaggregation of numeric
    quasi-identifiers into clusters of k, released as cluster means. ``cell_suppression``:
    single quasi-identifier cells replaced by ``*`` (a value of its own, not a wildcard) until
    every class has k records. ``metric`` and ``gs_factor`` steer the optimal search only.
    """

    algorithm: Literal["optimal", "mondrian", "mdav", "cell_suppression"] = "optimal"
    metric: Literal["loss", "entropy", "dm", "aecs", "height", "precision"] = "loss"
    gs_factor: float = Field(0.5, ge=0, le=1, description="generalization/suppression factor")
    round_to: int | None = Field(
        None, ge=0, le=15, description="mdav: decimals of the released cluster means"
    )
    transformation: dict[str, int] | None = Field(
        None,
        description="optimal: release this transformation (the hierarchy level of every "
        "quasi-identifier) instead of the search's optimum; refused unless it meets the "
        "privacy models within the suppression limit",
    )

    @model_validator(mode="after")
    def _options_fit(self) -> SearchConfig:
        if self.round_to is not None and self.algorithm != "mdav":
            raise LocatedError(
                f"round_to applies to algorithm: mdav only, not {self.algorithm}", "round_to"
            )
        if self.transformation is not None:
            if self.algorithm != "optimal":
                raise LocatedError(
                    f"transformation applies to algorithm: optimal only, not {self.algorithm}",
                    "transformation",
                )
            if any(level < 0 for level in self.transformation.values()):
                raise LocatedError("a level of the transformation is negative", "transformation")
        return self


class AnonymizeStageConfig(_Model):
    """Reserved for stage-level switches of the tabular anonymization."""

    enabled: bool = True


# --------------------------------------------------------------------------- the policy

# Search algorithms that guarantee class sizes (k, k-map by sampling fraction) and nothing else.
_CLASS_SIZE_ONLY = ("mdav", "cell_suppression")


class Policy(_Model):
    """A whole veil policy: what the data is, what each column is, what guarantee to reach."""

    version: Literal[1] = 1
    data: DataConfig
    columns: dict[str, ColumnConfig] = Field(min_length=1)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    dp: DPConfig | None = None
    synth: SynthConfig | None = None
    output: OutputConfig = Field(default_factory=OutputConfig)
    engine: EngineConfig = Field(default_factory=EngineConfig)
    unlisted_columns: Literal["error", "drop", "keep"] = Field(
        "error", description="what to do with input columns the policy does not list"
    )
    base_dir: Path | None = Field(None, exclude=True, description="set by the loader")

    @field_validator("columns")
    @classmethod
    def _names(cls, columns: dict[str, ColumnConfig]) -> dict[str, ColumnConfig]:
        for name in columns:
            if not name.strip():
                raise ValueError("a column name is empty")
        return columns

    def output_files(self) -> dict[str, str]:
        """The files a run writes in ``output.path`` besides the release: name -> what."""
        files: dict[str, str] = {}
        for kind in self.output.report:
            files[f"report.{kind}"] = f"the {kind.upper()} report (output.report)"
        if self.dp is not None:
            files["dp_statistics.json"] = "the DP statistics (dp:)"
        if self.synth is not None:
            files[f"synthetic.{self.output.format}"] = "the synthetic table (synth:)"
        if any(isinstance(c.transform, _KeyedMixin) for c in self.columns.values()):
            files["key_check.json"] = "the key check values of the keyed transforms"
        return files

    @model_validator(mode="after")
    def _output_names_apart(self) -> Policy:
        """The release cannot share a name with another output: one would overwrite the other."""
        name = f"{self.output.name}.{self.output.format}"
        other = self.output_files().get(name)
        if other is not None:
            raise LocatedError(
                f"the release would be written as {name}, the name of {other}, and one would "
                "overwrite the other; choose another output.name",
                "output",
                "name",
            )
        if self.output.partitioned and self.data.path is None:
            raise LocatedError(
                "output.partitioned writes a file per input file: it needs data.path",
                "output",
                "partitioned",
            )
        if self.output.name.startswith(".veil-"):
            raise LocatedError(
                "output.name cannot start with '.veil-': veil marks its temporary files so",
                "output",
                "name",
            )
        return self

    @model_validator(mode="after")
    def _cross_checks(self) -> Policy:
        qis = self.quasi_identifiers
        sens = self.sensitive
        p = self.privacy
        if p.any_model and not qis:
            raise LocatedError(
                "privacy models need at least one column with role: quasi_identifier", "privacy"
            )
        if qis and not p.any_model:
            raise LocatedError(
                "quasi-identifiers are listed but no privacy model is set; "
                "add e.g. privacy: {k_anonymity: {k: 5}}",
                "columns",
                qis[0],
            )
        for label, model in (("l_diversity", p.l_diversity), ("t_closeness", p.t_closeness)):
            if model is None:
                continue
            if not sens:
                raise LocatedError(
                    f"privacy.{label} needs a column with role: sensitive", "privacy", label
                )
            if model.column is not None and model.column not in sens:
                raise LocatedError(
                    f"privacy.{label}.column names {model.column!r}, "
                    "which is not a sensitive column",
                    "privacy",
                    label,
                    "column",
                )
        tc = p.t_closeness
        if tc is not None and tc.distance == "hierarchical" and tc.column is None and len(sens) > 1:
            raise LocatedError(
                "privacy.t_closeness with distance: hierarchical has one hierarchy, which "
                f"describes one column, but {len(sens)} columns have role: sensitive; name the "
                "one it describes with 'column', or use distance: equal or ordered",
                "privacy",
                "t_closeness",
            )
        sample = p.delta_presence.sample_column if p.delta_presence is not None else None
        if sample is not None:
            where = ("privacy", "delta_presence", "sample_column")
            if sample not in self.columns:
                raise LocatedError(
                    f"privacy.delta_presence.sample_column names {sample!r}, which the policy "
                    "does not list; list it under columns: with role: insensitive",
                    *where,
                )
            if self.columns[sample].role is not Role.insensitive:
                raise LocatedError(
                    f"the sample column {sample!r} marks the released rows; give it "
                    f"role: insensitive, not {self.columns[sample].role.value}",
                    *where,
                )
            if not isinstance(self.columns[sample].transform, KeepTransform | None):
                raise LocatedError(
                    f"the sample column {sample!r} is read to select the released rows; it "
                    "takes no transform",
                    "columns",
                    sample,
                    "transform",
                )
        if self.search.algorithm == "optimal":
            missing = [q for q in qis if self.columns[q].hierarchy is None]
            if missing:
                raise LocatedError(
                    f"quasi-identifier(s) {', '.join(missing)} have no hierarchy; the optimal "
                    "search needs one: add 'hierarchy: {type: auto}' for a default builder, "
                    "or a file, interval, date, mask or taxonomy hierarchy",
                    "columns",
                    missing[0],
                )
        if self.search.algorithm in _CLASS_SIZE_ONLY:
            self._check_class_size_only(qis)
        partners = {
            getattr(col.transform, "longitude_column", None) for col in self.columns.values()
        }
        for name, col in self.columns.items():
            if col.role is Role.identifier and col.transform is None and name not in partners:
                raise LocatedError(
                    f"identifier column {name!r} must be dropped or transformed: add "
                    "'action: drop' or a transform (hash, tokenize, mask)",
                    "columns",
                    name,
                )
        for i, pair in enumerate(p.leak_scan.allow if p.leak_scan is not None else ()):
            src = self.columns.get(pair.source)
            if src is None or src.role is not Role.identifier:
                raise LocatedError(
                    f"privacy.leak_scan.allow names {pair.source!r} as source, which is not a "
                    "column with role: identifier; name the identifier column whose values "
                    "may appear in the release",
                    "privacy",
                    "leak_scan",
                    "allow",
                    i,
                    "source",
                )
        for name, col in self.columns.items():
            t = col.transform
            for partner in (
                getattr(t, "longitude_column", None),
                getattr(t, "entity_column", None),
            ):
                if partner is not None and partner not in self.columns:
                    raise LocatedError(
                        f"column {name!r} refers to {partner!r}, which the policy does not list",
                        "columns",
                        name,
                    )
        return self

    def _check_class_size_only(self, qis: list[str]) -> None:
        """MDAV and cell suppression only bound class sizes: refuse what they cannot give."""
        algo = self.search.algorithm
        p = self.privacy
        for label in ("l_diversity", "t_closeness", "delta_presence"):
            if getattr(p, label) is not None:
                raise LocatedError(
                    f"search algorithm {algo} only bounds class sizes and cannot give "
                    f"{label}; use search: {{algorithm: mondrian}} or {{algorithm: optimal}}, "
                    f"or remove privacy.{label}",
                    "privacy",
                    label,
                )
        if p.k_map is not None and p.k_map.sampling_fraction is None:
            raise LocatedError(
                f"search algorithm {algo} supports k_map with a sampling_fraction only (it "
                "reads no population table); give sampling_fraction or use algorithm: optimal",
                "privacy",
                "k_map",
            )
        if algo == "mdav":
            typed = [q for q in qis if self.columns[q].dtype in ("categorical", "date")]
            if typed:
                raise LocatedError(
                    f"search algorithm mdav averages numeric quasi-identifiers, but "
                    f"{', '.join(typed)} {'is' if len(typed) == 1 else 'are'} declared "
                    f"{self.columns[typed[0]].dtype}; use algorithm: mondrian or "
                    "cell_suppression for a mix of numbers and categories",
                    "columns",
                    typed[0],
                    "dtype",
                )

    # Convenience views -------------------------------------------------------------------

    def by_role(self, role: Role) -> list[str]:
        return [name for name, col in self.columns.items() if col.role is role]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.by_role(Role.quasi_identifier)

    @property
    def sensitive(self) -> list[str]:
        return self.by_role(Role.sensitive)

    @property
    def text_columns(self) -> list[str]:
        return self.by_role(Role.text)

    def resolve(self, path: Path) -> Path:
        """Resolve a path from the policy relative to the policy file's folder."""
        if path.is_absolute() or self.base_dir is None:
            return path
        return self.base_dir / path
