"""``veil demo``: the whole pipeline on UCI Adult with generated identifiers and notes.

The identifiers are synthetic: names, emails, SSNs, phones, card numbers, birth dates, zip
codes and coordinates drawn deterministically from a seed (Faker pools combined with a seeded
numpy generator), and a free-text ``notes`` column that mentions some of them. No real person's
identifiers are shipped.
"""

from __future__ import annotations

import os
import secrets
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from veil._progress import Progress
    from veil.pipeline import RunResult
    from veil.policy import Policy

__all__ = ["demo_frame", "demo_policy", "demo_policy_text", "demo_private_dir", "run_demo"]

_TEMPLATES = (
    "Patient {name} called from {phone} about the last visit; follow up by email at {email}.",
    "Billing: card {card} was declined for {name}. SSN on file {ssn}.",
    "{first} reports mild headache since Tuesday. Neuro exam normal, CV stable.",
    "Spoke with {name} (DOB {dob}); lives near {street}, {city} {zip}.",
    "Labs reviewed: 91/42/7.36, Foley removed today. No concerns raised.",
    "Refund sent to {email} for order 4471; customer {first} satisfied.",
    "Mr. {last} asked to update phone to {phone}. Verified identity with SSN {ssn}.",
    "No personal details recorded for this contact.",
)


def _luhn_complete(prefix: np.ndarray) -> np.ndarray:
    """Append the Luhn check digit to rows of 15 digits (vectorized)."""
    import numpy as np

    digits = prefix.copy()
    # Double every second digit from the right of the final 16-digit number, i.e. positions
    # 0, 2, 4, ... of the 15-digit prefix.
    doubled = digits[:, 0::2] * 2
    doubled = np.where(doubled > 9, doubled - 9, doubled)
    total = doubled.sum(axis=1) + digits[:, 1::2].sum(axis=1)
    check = (10 - total % 10) % 10
    return np.concatenate([digits, check[:, None]], axis=1)


def demo_frame(rows: int | None = None, *, seed: int = 7) -> pd.DataFrame:
    """UCI Adult with generated identifier columns and a ``notes`` text column.

    Deterministic for a given ``seed``.
    """
    import numpy as np
    import pandas as pd
    from faker import Faker

    from veil.data import adult_frame

    df = adult_frame(rows)
    n = len(df)
    rng = np.random.default_rng(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    firsts = np.array(sorted({fake.first_name() for _ in range(800)}))
    lasts = np.array(sorted({fake.last_name() for _ in range(800)}))
    cities = np.array([fake.city() for _ in range(300)])
    streets = np.array([fake.street_address() for _ in range(600)])
    domains = np.array(["example.com", "mail.example.org", "inbox.example.net", "corp.example"])

    first = firsts[rng.integers(0, len(firsts), n)]
    last = lasts[rng.integers(0, len(lasts), n)]
    name = np.char.add(np.char.add(first, " "), last)
    email = np.char.add(
        np.char.add(np.char.lower(np.char.add(np.char.add(first, "."), last)), "@"),
        domains[rng.integers(0, len(domains), n)],
    )
    # SSNs of valid shape: area 001-899 except 666, group 01-99, serial 0001-9999.
    area = rng.integers(1, 900, n)
    area = np.where(area == 666, 667, area)
    ssn = [
        f"{a:03d}-{g:02d}-{s:04d}"
        for a, g, s in zip(area, rng.integers(1, 100, n), rng.integers(1, 10000, n), strict=True)
    ]
    phone = [
        f"({a}) {b}-{c:04d}"
        for a, b, c in zip(
            rng.integers(201, 990, n),
            rng.integers(200, 1000, n),
            rng.integers(0, 10000, n),
            strict=True,
        )
    ]
    card_digits = np.concatenate(
        [np.full((n, 1), 4), rng.integers(0, 10, (n, 14))], axis=1
    )  # Visa prefix
    cards = _luhn_complete(card_digits)
    card = ["".join(map(str, row)) for row in cards]
    card = [f"{c[:4]} {c[4:8]} {c[8:12]} {c[12:]}" for c in card]
    ref_year = 2024
    birth_year = ref_year - df["age"].to_numpy() - rng.integers(0, 2, n)
    birth_day = rng.integers(0, 365, n)
    birth = pd.to_datetime(pd.Series(birth_year.astype(str)) + "-01-01") + pd.to_timedelta(
        birth_day, unit="D"
    )
    zips = np.array([f"{z:05d}" for z in rng.integers(1001, 99950, n)])
    lat = np.round(rng.uniform(25.0, 48.5, n), 6)
    lon = np.round(rng.uniform(-124.0, -67.0, n), 6)
    city = cities[rng.integers(0, len(cities), n)]
    street = streets[rng.integers(0, len(streets), n)]
    template_ids = rng.integers(0, len(_TEMPLATES), n)
    dob = birth.dt.strftime("%m/%d/%Y").tolist()
    notes = [
        _TEMPLATES[t].format(
            name=name[i],
            first=first[i],
            last=last[i],
            phone=phone[i],
            email=email[i],
            card=card[i],
            ssn=ssn[i],
            dob=dob[i],
            street=street[i],
            city=city[i],
            zip=zips[i],
        )
        for i, t in enumerate(template_ids)
    ]
    ids = pd.DataFrame(
        {
            "name": name,
            "email": email,
            "ssn": ssn,
            "phone": phone,
            "credit_card": card,
            "birth_date": birth.dt.date.astype(str),
            "zip": zips,
            "latitude": lat,
            "longitude": lon,
            "notes": notes,
        }
    )
    return pd.concat([ids, df.reset_index(drop=True)], axis=1)


def demo_policy_text() -> str:
    """The demo policy as shipped (YAML)."""
    return (files("veil.data") / "demo_policy.yaml").read_text(encoding="utf-8")


def demo_private_dir(out_dir: Path) -> Path:
    """The demo's private folder beside (never inside) its output: keys and a scratch ledger."""
    return out_dir.parent / f"{out_dir.name}-private"


def _ensure_demo_keys(out_dir: Path) -> Path:
    """Use keys from the environment, or create fresh random ones beside (not in) the output.

    veil never uses a default key: the demo generates new ones on first use and tells the
    user where they are, so the tokens it writes stay reversible for ``veil detokenize``.
    """
    key_dir = demo_private_dir(out_dir)
    wanted = {"VEIL_HMAC_KEY": 32, "VEIL_FPE_KEY": 16, "VEIL_FPE_TWEAK": 7}
    for env, nbytes in wanted.items():
        if os.environ.get(env):
            continue
        key_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = key_dir / env.lower().removeprefix("veil_")
        if not path.exists():
            from veil.io import write_text_atomic

            write_text_atomic(path, secrets.token_hex(nbytes) + "\n", mode=0o600)
        os.environ[env] = path.read_text(encoding="utf-8").strip()
    return key_dir


DEMO_DATASET = "adult-demo"
DEMO_BUDGET = (3.0, 1e-6)


def _fresh_demo_ledger(out_dir: Path) -> str:
    """A scratch budget ledger for the demo, reset by every demo run.

    Only the demo does this: its data are regenerated each run, so a fresh budget is honest
    there. A real dataset's ledger is never reset by veil.
    """
    from veil.dp import BudgetLedger

    folder = demo_private_dir(out_dir)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = (folder / "demo-ledger.sqlite").resolve()
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    url = f"sqlite:///{path}"
    with BudgetLedger(url) as ledger:
        ledger.init(DEMO_DATASET, epsilon=DEMO_BUDGET[0], delta=DEMO_BUDGET[1], who="veil demo")
    return url


def demo_policy(out_dir: str | Path, *, dp: bool = True, **overrides: Any) -> Policy:
    """The shipped demo policy writing to ``out_dir``.

    ``dp=True`` points its DP queries at a fresh scratch ledger (see :func:`run_demo`);
    ``dp=False`` leaves the DP stage out. ``overrides`` replace top-level sections' keys, e.g.
    ``privacy={"k_anonymity": {"k": 10}}``.
    """
    import yaml

    from veil.policy import parse_policy

    out = Path(out_dir)
    data = yaml.safe_load(demo_policy_text())
    data["output"]["path"] = str(out)
    if not dp:
        data.pop("dp", None)
    elif "dp" in data:
        data["dp"]["ledger"] = _fresh_demo_ledger(out)
    for section, values in overrides.items():
        data.setdefault(section, {}).update(values)
    return parse_policy(data, source="<demo policy>", base_dir=Path(str(files("veil.data"))))


def run_demo(
    out_dir: str | Path, *, rows: int | None = None, progress: Progress | None = None
) -> RunResult:
    """Run the demo policy on the demo data and write the release and report to ``out_dir``."""
    from veil.pipeline import run_policy

    out = Path(out_dir)
    _ensure_demo_keys(out)
    policy = demo_policy(out)
    return run_policy(policy, data=demo_frame(rows), out_dir=out, progress=progress)
