"""veil.synth: synthetic tables (Gaussian copula; MST and AIM with differential privacy on
mbi; a TVAE, optionally trained with DP-SGD) and their evaluation (quality, ML efficacy,
privacy). Heavy dependencies (jax/mbi, torch/opacus, opendp) load only when used."""

from veil.synth._aim import AIMSynthesizer
from veil.synth._base import Synthesizer, load_synthesizer, synthesizers
from veil.synth._constraints import (
    AllowedCombinations,
    Constraint,
    Inequality,
    Range,
    parse_constraint,
)
from veil.synth._copula import GaussianCopulaSynthesizer
from veil.synth._evaluate import evaluate, ml_efficacy, privacy_metrics
from veil.synth._mst import MSTSynthesizer
from veil.synth._quality import quality_report
from veil.synth._schema import ColumnSpec, TableSchema, infer_schema
from veil.synth._tvae import TVAESynthesizer

__all__ = [
    "AIMSynthesizer",
    "AllowedCombinations",
    "ColumnSpec",
    "Constraint",
    "GaussianCopulaSynthesizer",
    "Inequality",
    "MSTSynthesizer",
    "Range",
    "Synthesizer",
    "TVAESynthesizer",
    "TableSchema",
    "evaluate",
    "infer_schema",
    "load_synthesizer",
    "ml_efficacy",
    "parse_constraint",
    "privacy_metrics",
    "quality_report",
    "synthesizers",
]
