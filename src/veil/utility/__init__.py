"""Measure what a release kept: distribution distances, associations, information loss, ML.

- :func:`column_distances`: total variation and Kolmogorov-Smirnov per column;
- :func:`association_preservation`: Cramér's V of every column pair, original vs release;
- :func:`information_loss`: discernibility, average class size, non-uniform entropy;
- :func:`k_sweep`: risk and suppression across a sweep of k (a trade-off curve);
- :func:`ml_utility`: the same models trained on original and released rows, tested on
  held-out original rows;
- :func:`measure_utility`: all of the above, as the report's utility section.
"""

from veil.utility._assess import choose_target, measure_utility
from veil.utility._distance import association_preservation, column_distances
from veil.utility._loss import information_loss, k_sweep
from veil.utility._ml import ml_utility

__all__ = [
    "association_preservation",
    "choose_target",
    "column_distances",
    "information_loss",
    "k_sweep",
    "measure_utility",
    "ml_utility",
]
