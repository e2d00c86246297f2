"""A TVAE-style synthesizer (variational autoencoder for tables) in PyTorch, optionally DP-SGD.

Rows are encoded as one vector: categorical columns one-hot (missing is a category), and
numeric, integer and date columns as one standard score each, plus a one-hot "is missing"
pair when the column has missing values. The decoder outputs category logits and, for each
score, a mean and a log standard deviation; the loss is the negative ELBO (cross-entropy +
Gaussian likelihood + KL). Sampling draws ``z ~ N(0, I)``, decodes it, draws each category
from its softmax and each score from its Gaussian, and maps the scores back.

Score transform: without DP, the empirical CDF mapped to normal scores (1,001 stored
quantiles; best quality). With DP, a min-max scaling between the column bounds, so the only
thing read from the data outside DP-SGD is the domain (declare it with ``bounds=`` /
``categories=``), as with MST and AIM.

Privacy (``epsilon`` given): DP-SGD with Opacus (per-example clipping, Gaussian noise,
Poisson sampling, RDP accountant); the noise multiplier is calibrated by Opacus to reach
``(epsilon, delta)`` after ``epochs`` for one row (add/remove). The charge is made to the
ledger before training and refunded if training fails.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._deps import require
from veil._numeric import coerce_numbers
from veil._progress import Progress
from veil.synth._base import (
    NOT_DP,
    LedgerLike,
    Synthesizer,
    check_epsilon_delta,
    dp_guard,
    dp_statement,
    synthesizers,
)
from veil.synth._constraints import Constraint
from veil.synth._schema import ColumnSpec, TableSchema

__all__ = ["TVAESynthesizer"]

log = logging.getLogger(__name__)
_GRID = 1001


def _float_values(s: pd.Series, spec: ColumnSpec) -> np.ndarray:
    if spec.kind == "datetime":
        return np.where(s.isna(), np.nan, s.astype("int64", errors="ignore").astype("float64"))
    return coerce_numbers(s).to_numpy(dtype="float64")


def _build_net(d_in: int, d_out: int, hidden: int, latent: int) -> Any:
    torch = require("torch", extra="synth", purpose="the TVAE synthesizer")
    nn = torch.nn

    class _VAE(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Sequential(
                nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
            )
            self.mu = nn.Linear(hidden, latent)
            self.logvar = nn.Linear(hidden, latent)
            self.dec = nn.Sequential(
                nn.Linear(latent, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, d_out),
            )

        def forward(self, x: Any, eps: Any) -> tuple[Any, Any, Any]:
            h = self.enc(x)
            mu, logvar = self.mu(h), self.logvar(h).clamp(-8, 8)
            z = mu + eps * torch.exp(0.5 * logvar)
            return self.dec(z), mu, logvar

    return _VAE()


@synthesizers.register("tvae")
class TVAESynthesizer(Synthesizer):
    """Variational autoencoder for tables; DP-SGD (Opacus) when ``epsilon`` is given.

    Parameters
    ----------
    epochs, batch_size, lr, hidden, latent
        Training settings (defaults train Adult in well under a minute of CPU).
    epsilon, delta
        Train with DP-SGD to this budget; ``None`` trains without DP.
    max_grad_norm
        DP-SGD per-example clipping norm.
    secure_mode
        Opacus' cryptographically secure noise and sampling (needs ``torchcsprng``).
        Otherwise both come from torch generators seeded from the operating system's
        entropy; the ``seed`` only ever seeds the initialisation and the sampling of rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": range(200), "b": ["x", "y"] * 100})
    >>> TVAESynthesizer(epochs=1, seed=0).fit(df).sample(3).shape  # doctest: +SKIP
    (3, 2)
    """

    def __init__(
        self,
        *,
        epochs: int = 40,
        batch_size: int = 500,
        lr: float = 2e-3,
        hidden: int = 128,
        latent: int = 32,
        epsilon: float | None = None,
        delta: float = 1e-6,
        max_grad_norm: float = 1.0,
        ledger: LedgerLike | None = None,
        dataset: str | None = None,
        account: bool = True,
        threads: int | None = 1,
        secure_mode: bool = False,
        constraints: Sequence[Constraint] = (),
        seed: int | None = None,
    ) -> None:
        super().__init__(constraints=constraints, seed=seed)
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.hidden = hidden
        self.latent = latent
        self.epsilon = epsilon
        self.delta = delta
        self.max_grad_norm = max_grad_norm
        self.ledger = ledger
        self.dataset = dataset
        self.account = account
        self.threads = threads
        self.secure_mode = secure_mode

    @property
    def dp(self) -> bool:  # type: ignore[override]
        return self.epsilon is not None

    def _params(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "lr": self.lr,
            "hidden": self.hidden,
            "latent": self.latent,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "max_grad_norm": self.max_grad_norm,
        }

    def _check_dp_params(self, n: int) -> None:
        if self.epsilon is not None:
            check_epsilon_delta(self.epsilon, self.delta, n)

    def _privacy_info(self) -> dict[str, Any]:
        if self.epsilon is None:
            return {"differential_privacy": False, "privacy_statement": NOT_DP}
        declared: set[str] = getattr(self, "_declared_domain", set())
        from_data = sorted(
            s.name for s in self.schema_.columns if s.name not in declared and s.kind != "boolean"
        )
        return {
            "privacy_statement": dp_statement(self.epsilon, self.delta, from_data),
            "domain_from_data": from_data,
            "differential_privacy": True,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "epsilon_spent": self.epsilon_spent_,
            "noise_multiplier": self.noise_multiplier_,
            "mechanism": "DP-SGD (Opacus, RDP accountant)",
            "unit": "one row (add/remove)",
            "ledger_entry": self.ledger_entry_,
        }

    # ---------------------------------------------------------------- transform
    def _layout(self, data: pd.DataFrame, schema: TableSchema) -> None:
        self.blocks_: list[dict[str, Any]] = []
        self.arrays_: dict[str, np.ndarray] = {}
        for i, spec in enumerate(schema.modelled):
            if spec.continuous:
                b: dict[str, Any] = {"name": spec.name, "kind": "num", "missing": spec.has_missing}
                if self.epsilon is None:
                    x = _float_values(data[spec.name], spec)
                    self.arrays_[f"q.{i}"] = np.quantile(x[~np.isnan(x)], np.linspace(0, 1, _GRID))
                    b["transform"] = "quantile"
                else:
                    b["transform"] = "minmax"
                b["index"] = i
                self.blocks_.append(b)
            else:
                self.blocks_.append(
                    {"name": spec.name, "kind": "cat", "size": len(spec.categories) + 1, "index": i}
                )

    def _encode(
        self, data: pd.DataFrame, schema: TableSchema, rng: np.random.Generator
    ) -> np.ndarray:
        parts: list[np.ndarray] = []
        for b in self.blocks_:
            spec = schema[b["name"]]
            if b["kind"] == "cat":
                codes = np.asarray(
                    pd.Categorical(data[b["name"]], categories=spec.categories).codes,
                    dtype=np.int64,
                )
                codes[codes < 0] = len(spec.categories)
                parts.append(np.eye(b["size"], dtype=np.float32)[codes])
                continue
            x = _float_values(data[b["name"]], spec)
            miss = np.isnan(x)
            if b["transform"] == "quantile":
                from scipy import special

                # empirical CDF with random tie-breaking: exactly normal scores
                ok = ~miss
                order = np.lexsort((rng.random(int(ok.sum())), x[ok]))
                u = np.empty(int(ok.sum()))
                u[order] = (np.arange(len(order)) + rng.random(len(order))) / max(len(order), 1)
                z = np.zeros(len(x))
                z[ok] = special.ndtri(np.clip(u, 1e-4, 1 - 1e-4))
            else:
                lo_b = float(spec.low) if spec.low is not None else 0.0
                hi_b = float(spec.high) if spec.high is not None else 1.0
                z = 2 * (np.nan_to_num(x, nan=lo_b) - lo_b) / max(hi_b - lo_b, 1e-12) - 1
            z = np.where(miss, 0.0, z).astype(np.float32)
            parts.append(z[:, None])
            if b["missing"]:
                parts.append(np.stack([~miss, miss], axis=1).astype(np.float32))
        return np.concatenate(parts, axis=1)

    def _out_dims(self) -> int:
        d = 0
        for b in self.blocks_:
            d += b["size"] if b["kind"] == "cat" else 2 + (2 if b["missing"] else 0)
        return d

    def _loss(self, out: Any, x: Any, mu: Any, logvar: Any) -> Any:
        torch = require("torch", extra="synth", purpose="the TVAE synthesizer")
        f = torch.nn.functional
        pos_in, pos_out = 0, 0
        rec = 0.0
        for b in self.blocks_:
            if b["kind"] == "cat":
                k = b["size"]
                target = x[:, pos_in : pos_in + k].argmax(dim=1)
                rec = rec + f.cross_entropy(out[:, pos_out : pos_out + k], target, reduction="none")
                pos_in += k
                pos_out += k
            else:
                mean = out[:, pos_out]
                log_sd = out[:, pos_out + 1].clamp(-5, 3)
                z = x[:, pos_in]
                nll = 0.5 * ((z - mean) / torch.exp(log_sd)) ** 2 + log_sd
                if b["missing"]:
                    present = x[:, pos_in + 1]
                    nll = nll * present
                    rec = rec + f.cross_entropy(
                        out[:, pos_out + 2 : pos_out + 4],
                        x[:, pos_in + 1 : pos_in + 3].argmax(dim=1),
                        reduction="none",
                    )
                    pos_in += 2
                    pos_out += 2
                rec = rec + nll
                pos_in += 1
                pos_out += 2
        kl = -0.5 * torch.sum(1 + logvar - mu**2 - torch.exp(logvar), dim=1)
        return (rec + kl).mean()

    # ---------------------------------------------------------------- fit
    def _fit(self, data: pd.DataFrame, schema: TableSchema, progress: Progress) -> None:
        torch = require("torch", extra="synth", purpose="the TVAE synthesizer")
        old_threads = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            # The user's seed must never reach the DP noise or the Poisson sampling: a known
            # seed would let anyone regenerate the noise. It seeds the initialisation only,
            # inside a forked generator that leaves the caller's global state alone.
            with torch.random.fork_rng(devices=[]):
                self._train(data, schema, progress, torch)
        finally:
            torch.set_num_threads(old_threads)

    def _train(
        self, data: pd.DataFrame, schema: TableSchema, progress: Progress, torch: Any
    ) -> None:
        rng = np.random.default_rng(self.seed)
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        torch.manual_seed(self.seed if self.seed is not None else secrets.randbits(63))
        self._layout(data, schema)
        x = torch.from_numpy(self._encode(data, schema, rng))
        net = _build_net(x.shape[1], self._out_dims(), self.hidden, self.latent)
        if self.epsilon is not None:
            # From here on (Poisson sampling, reparametrisation) draw from OS entropy.
            torch.manual_seed(secrets.randbits(63))
        opt = torch.optim.Adam(net.parameters(), lr=self.lr, weight_decay=1e-5)
        dataset = torch.utils.data.TensorDataset(x)
        batch = min(self.batch_size, len(x))
        loader = torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=True, generator=gen)
        self.epsilon_spent_ = None
        self.noise_multiplier_ = None
        self.ledger_entry_ = None
        if self.epsilon is None:
            self._loop(net, opt, loader, progress, torch)
        else:
            opacus = require("opacus", extra="dp", purpose="DP-SGD training of the TVAE")
            guard = dp_guard(
                self.ledger,
                self.dataset,
                epsilon=float(self.epsilon),
                delta=self.delta,
                what=f"synthetic data (tvae DP-SGD, {len(data)} rows)",
                mechanism="dpsgd",
                account=self.account,
            )
            with guard as spend:
                engine = opacus.PrivacyEngine(accountant="rdp", secure_mode=self.secure_mode)
                noise_gen = (
                    None
                    if self.secure_mode
                    else torch.Generator().manual_seed(secrets.randbits(63))
                )
                net, opt, loader = engine.make_private_with_epsilon(
                    module=net,
                    optimizer=opt,
                    data_loader=loader,
                    target_epsilon=float(self.epsilon),
                    target_delta=self.delta,
                    epochs=self.epochs,
                    max_grad_norm=self.max_grad_norm,
                    noise_generator=noise_gen,
                )
                self._loop(net, opt, loader, progress, torch)
                self.epsilon_spent_ = float(engine.get_epsilon(self.delta))
                self.noise_multiplier_ = float(opt.noise_multiplier)
                self.ledger_entry_ = getattr(spend, "id", None)
            net = net._module
        self.state_ = {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}
        self.net_ = net.eval()
        self.in_dims_ = int(x.shape[1])

    def _loop(self, net: Any, opt: Any, loader: Any, progress: Progress, torch: Any) -> None:
        net.train()
        with progress.task(
            f"tvae: training ({'DP-SGD' if self.epsilon else 'no DP'})", total=self.epochs
        ) as task:  # type: ignore[attr-defined]
            for _ in range(self.epochs):
                for (xb,) in loader:
                    if len(xb) == 0:
                        continue
                    eps = torch.randn(len(xb), self.latent)
                    out, mu, logvar = net(xb, eps)
                    loss = self._loss(out, xb, mu, logvar)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                task.advance()

    # ---------------------------------------------------------------- sample
    def _net(self) -> Any:
        if getattr(self, "net_", None) is None:
            torch = require("torch", extra="synth", purpose="the TVAE synthesizer")
            net = _build_net(self.in_dims_, self._out_dims(), self.hidden, self.latent)
            net.load_state_dict(
                {k: torch.from_numpy(np.asarray(v)) for k, v in self.state_.items()}
            )
            self.net_ = net.eval()
        return self.net_

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        torch = require("torch", extra="synth", purpose="the TVAE synthesizer")
        net = self._net()
        z = torch.from_numpy(rng.standard_normal((n, self.latent)).astype(np.float32))
        with torch.no_grad():
            out = net.dec(z).numpy().astype(np.float64)
        cols: dict[str, Any] = {}
        pos = 0
        for b in self.blocks_:
            spec = self.schema_[b["name"]]
            if b["kind"] == "cat":
                logits = out[:, pos : pos + b["size"]]
                p = np.exp(logits - logits.max(axis=1, keepdims=True))
                cdf = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
                codes = (rng.random((n, 1)) > cdf).sum(axis=1)
                codes = np.minimum(codes, b["size"] - 1)
                cats = np.array([*spec.categories, None], dtype=object)
                cols[b["name"]] = cats[codes]
                pos += b["size"]
                continue
            mean, log_sd = out[:, pos], np.clip(out[:, pos + 1], -5, 3)
            zz = mean + np.exp(log_sd) * rng.standard_normal(n)
            if b["transform"] == "quantile":
                from scipy import special

                q = self.arrays_[f"q.{b['index']}"]
                x = np.interp(special.ndtr(zz), np.linspace(0, 1, len(q)), q)
            else:
                lo_b = float(spec.low) if spec.low is not None else 0.0
                hi_b = float(spec.high) if spec.high is not None else 1.0
                x = lo_b + (np.clip(zz, -1, 1) + 1) / 2 * (hi_b - lo_b)
            if spec.kind in ("integer", "datetime"):
                x = np.round(x)
            pos += 2
            if b["missing"]:
                lg = out[:, pos : pos + 2]
                pm = 1 / (1 + np.exp(lg[:, 0] - lg[:, 1]))
                x = np.where(rng.random(n) < pm, np.nan, x)
                pos += 2
            cols[b["name"]] = x
        return pd.DataFrame(cols)

    # ---------------------------------------------------------------- state
    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        arrays = dict(self.arrays_)
        keys = sorted(self.state_)
        for i, k in enumerate(keys):
            arrays[f"w.{i}"] = np.asarray(self.state_[k])
        meta = {
            "blocks": self.blocks_,
            "weights": keys,
            "in_dims": self.in_dims_,
            "epsilon_spent": self.epsilon_spent_,
            "noise_multiplier": self.noise_multiplier_,
        }
        return meta, arrays

    def _set_state(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.blocks_ = list(meta["blocks"])
        self.in_dims_ = int(meta["in_dims"])
        self.state_ = {k: arrays[f"w.{i}"] for i, k in enumerate(meta["weights"])}
        self.arrays_ = {k: v for k, v in arrays.items() if k.startswith("q.")}
        self.epsilon_spent_ = meta.get("epsilon_spent")
        self.noise_multiplier_ = meta.get("noise_multiplier")
        self.net_ = None
        if not math.isfinite(float(self.in_dims_)):  # pragma: no cover - defensive
            raise ValueError("bad model file")
