"""Measure a release: anonymity levels, re-identification risk, uniqueness and attacks.

Everything here measures a table; nothing changes it. Start with :func:`assess` for the
whole picture, or use the parts:

- :func:`equivalence_classes`: the classes over the quasi-identifiers (suppressed rows out);
- :func:`verify`: k, l (distinct, entropy, recursive), t (equal, ordered), alpha, beta, delta;
- :func:`reidentification_risk`: prosecutor, journalist and marketer risk (as ARX defines them);
- :func:`population_uniqueness`: Pitman, Zayatz, SNB and Dankar's decision rule;
- :func:`linkage_attack`, :func:`attribute_inference`: simulated attacks.
"""

from veil.risk._assess import RiskAssessment, assess
from veil.risk._attacks import attribute_inference, learn_recoding, linkage_attack
from veil.risk._classes import EquivalenceClasses, equivalence_classes
from veil.risk._reid import ReidentificationRisk, population_class_sizes, reidentification_risk
from veil.risk._uniqueness import PopulationUniqueness, population_uniqueness
from veil.risk._verify import SensitiveLevels, VerificationReport, verify

__all__ = [
    "EquivalenceClasses",
    "PopulationUniqueness",
    "ReidentificationRisk",
    "RiskAssessment",
    "SensitiveLevels",
    "VerificationReport",
    "assess",
    "attribute_inference",
    "equivalence_classes",
    "learn_recoding",
    "linkage_attack",
    "population_class_sizes",
    "population_uniqueness",
    "reidentification_risk",
    "verify",
]
