"""A seeded, generated hospital-discharge-like table with skewed numeric columns.

Shared by ``benchmarks/synth_skewed.py`` and the tests. Columns (n rows):

- ``age`` integer 0-99 (a mixture: children and adults);
- ``sex``, ``admission`` (emergency/elective/urgent/newborn), ``region`` (6, one rare),
  ``zip3`` (three digits with leading zeros, as text in the CSV);
- ``stay`` Poisson length of stay (1 + Poisson, mean depends on admission and age);
- ``charges`` log-normal total charges, driven by the stay, written with 2 decimals;
- ``procedures`` zero-inflated count (60 % zeros, else 1 + Poisson(2));
- ``readmitted`` the binary target (depends on stay, age and procedures).

The public domain of the table (what a data owner could declare) is ``DOMAIN``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DOMAIN", "skewed_table"]

REGIONS = ["north", "south", "east", "west", "central", "islands"]
ADMISSIONS = ["emergency", "elective", "urgent", "newborn"]

DOMAIN = {
    "bounds": {
        "age": [0, 110],
        "stay": [1, 365],
        "charges": [0, 2_000_000],
        "procedures": [0, 50],
    },
    "categories": {
        "sex": ["F", "M"],
        "admission": ADMISSIONS,
        "region": REGIONS,
        "readmitted": ["no", "yes"],
    },
}


def skewed_table(n: int = 40_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    adm = rng.choice(ADMISSIONS, size=n, p=[0.5, 0.3, 0.15, 0.05])
    newborn = adm == "newborn"
    age = np.where(
        newborn,
        0,
        np.where(
            rng.random(n) < 0.15,
            rng.integers(1, 18, n),
            np.clip(np.round(rng.normal(58, 18, n)), 18, 99),
        ),
    ).astype(int)
    sex = rng.choice(["F", "M"], size=n, p=[0.53, 0.47])
    region = rng.choice(REGIONS, size=n, p=[0.3, 0.25, 0.2, 0.15, 0.08, 0.02])
    mean_stay = (
        np.where(adm == "emergency", 4.0, np.where(adm == "elective", 2.0, 3.0))
        * (1 + age / 100)
        * np.where(newborn, 0.6, 1.0)
    )
    stay = 1 + rng.poisson(mean_stay - 0.5)
    procedures = np.where(rng.random(n) < 0.6, 0, 1 + rng.poisson(2.0, n))
    log_charges = 8.6 + 0.18 * stay + 0.25 * procedures + rng.normal(0, 0.6, n)
    charges = np.round(np.exp(log_charges), 2)
    logit = -3.2 + 0.15 * stay + 0.02 * (age - 50) + 0.3 * procedures
    readmitted = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    zip3 = np.char.zfill(rng.integers(5, 999, n).astype(str), 3)
    return pd.DataFrame(
        {
            "age": age,
            "sex": sex,
            "admission": adm,
            "region": region,
            "zip3": zip3,
            "stay": stay,
            "charges": charges,
            "procedures": procedures,
            "readmitted": readmitted,
        }
    )
