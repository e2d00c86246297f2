"""The server's side of client-level DP (DP-FedAvg), with fixed or adaptive clipping.

Fixed clipping (McMahan et al. 2018): every client clips its update to L2 norm ``C``; the
server adds Gaussian noise of standard deviation ``z * C`` to the sum of the clipped updates
and divides by the expected number of participants. ``z`` is the noise multiplier the
accountant calibrated for (epsilon, delta), the rounds and the client sampling rate.

Adaptive clipping (Andrew et al. 2021, "Differentially private learning with adaptive
clipping"): ``C`` tracks the ``quantile`` of the clients' update norms. Each client also
reports ``b - 1/2``, where ``b`` is 1 when its update's norm was at most ``C`` (summed with the
updates, so under SecAgg+ the server sees only the sum); the server adds Gaussian noise of
standard deviation ``count_noise`` (the paper's ``sigma_b``) to that sum, estimates the
unclipped share ``b_bar = noisy sum / expected participants + 1/2`` and moves the clip norm
geometrically, ``C <- C * exp(-lr * (b_bar - quantile))``.

Privacy of the pair: the centred bit changes by at most 1/2 when one client is added or
removed, so with the updates (sensitivity ``C``, noise ``z_update * C``) one round is one
Gaussian mechanism on the concatenated vector, whose noise multiplier ``z`` is given by
``z**-2 = z_update**-2 + (2 * count_noise)**-2`` (the paper's Theorem 1). The accountant is
calibrated for ``z`` as with fixed clipping, the ledger is charged exactly as much, and the
update noise is raised to ``z_update = (z**-2 - (2 * count_noise)**-2) ** -0.5``
(:func:`split_noise`): the quantile estimate's privacy is paid for out of the same budget.
The clip norm of the next round is a function of noisy releases only (post-processing).

Flower 1.42 ships this mechanism (``DifferentialPrivacyClientSideAdaptiveClipping`` and
``adaptiveclipping_mod``) but veil cannot use it: its clients send the bit in clear in the
reply's metrics (SecAgg+ does not mask metrics, so the server would learn each client's
bit), it divides the noisy count by the number of replies (not public under Poisson
sampling), draws its noise from ``numpy.random`` and does no accounting; and it wraps the
legacy strategies, while veil's server draws the noise itself around SecAgg+.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from veil._errors import InputError

__all__ = [
    "AdaptiveClip",
    "ClientDPAggregator",
    "combined_noise",
    "default_count_noise",
    "split_noise",
    "unclipped_bit",
]

Weights = list[Any]  # list of numpy arrays


@dataclass(frozen=True)
class AdaptiveClip:
    """Settings of adaptive clipping (Andrew et al. 2021; their defaults).

    ``quantile`` is the target share of updates left unclipped (the paper's gamma, 0.5: the
    median norm); ``lr`` the geometric learning rate of the clip norm (eta_C, 0.2);
    ``count_noise`` the standard deviation of the noise on the count of unclipped updates
    (sigma_b), by default :func:`default_count_noise`.
    """

    quantile: float = 0.5
    lr: float = 0.2
    count_noise: float | None = None

    def check(self) -> None:
        """Refuse settings the estimator cannot work with."""
        if not 0 < self.quantile < 1:
            raise InputError("--clip-quantile must be in (0, 1)", hint="e.g. 0.5 (the median)")
        if not self.lr > 0 or not math.isfinite(self.lr):
            raise InputError("--clip-lr must be a positive number", hint="e.g. 0.2")
        if self.count_noise is not None and (
            not self.count_noise > 0 or not math.isfinite(self.count_noise)
        ):
            raise InputError("--clip-count-noise must be a positive number")


def default_count_noise(expected_clients: float, noise_multiplier: float) -> float:
    """``sigma_b`` when none is given: the paper's ``expected_clients / 20``, but at least
    ``noise_multiplier`` so the update noise grows by at most ``1/sqrt(1 - 1/4)`` (15.5 %).

    With few clients per round (``expected_clients / 20 < z``) the quantile estimate is then
    noisy (its standard deviation ``z / expected_clients`` of the share), the price of
    privatizing it; the run's summary shows ``count_noise``.
    """
    return max(expected_clients / 20.0, noise_multiplier)


def split_noise(noise_multiplier: float, count_noise: float) -> float:
    """The update's noise multiplier when the count takes ``count_noise`` of ``z``'s budget.

    ``z_update = (z**-2 - (2 sigma_b)**-2) ** -0.5``; ``2 sigma_b`` must exceed ``z``.

    Examples
    --------
    >>> round(split_noise(1.0, 1.0), 4)
    1.1547
    """
    if not 2 * count_noise > noise_multiplier:
        raise InputError(
            f"adaptive clipping's count noise {count_noise:g} is too small for this budget: "
            f"the combined mechanism's noise multiplier is {noise_multiplier:.4g} and needs "
            f"a count noise above {noise_multiplier / 2:.4g}",
            hint=f"pass --clip-count-noise {noise_multiplier:.3g} or more, or leave it out",
        )
    return float((noise_multiplier**-2 - (2 * count_noise) ** -2) ** -0.5)


def combined_noise(update_noise: float, count_noise: float) -> float:
    """The noise multiplier of the pair (update noise, count noise): the inverse of
    :func:`split_noise`, ``(z_update**-2 + (2 sigma_b)**-2) ** -0.5``."""
    return float((update_noise**-2 + (2 * count_noise) ** -2) ** -0.5)


@dataclass
class ClientDPAggregator:
    """Noise on the sum of the clipped updates; with ``adaptive``, the clip norm's update.

    ``noise_multiplier`` is the one the accountant was calibrated for (``z``);
    ``expected_clients`` the expected participants of a round (``fraction_fit x clients``);
    ``rng`` a numpy ``Generator`` seeded from the OS's randomness (never from ``--seed``).
    ``clip_norm`` is the clip of the coming round; ``clip_history`` every round's.
    """

    noise_multiplier: float
    clip_norm: float
    expected_clients: float
    rng: Any
    adaptive: AdaptiveClip | None = None
    count_noise: float = field(default=0.0, init=False)
    update_noise: float = field(default=0.0, init=False)
    clip_history: list[float] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.update_noise = self.noise_multiplier
        if self.adaptive is not None:
            self.adaptive.check()
            self.count_noise = (
                self.adaptive.count_noise
                if self.adaptive.count_noise is not None
                else default_count_noise(self.expected_clients, self.noise_multiplier)
            )
            self.update_noise = split_noise(self.noise_multiplier, self.count_noise)

    @property
    def extra_arrays(self) -> int:
        """Arrays a client appends to its update: 1 (the centred bit) when adaptive."""
        return 0 if self.adaptive is None else 1

    def aggregate(self, total: Weights) -> Weights:
        """The noisy mean update from the sum of the clients' replies.

        ``total`` is the sum of the clipped updates, followed when adaptive by the sum of the
        centred bits (a one-element array), which this consumes to set the next clip norm.
        """
        import numpy as np

        clip = self.clip_norm
        self.clip_history.append(clip)
        if self.adaptive is not None:
            *total, bits = total
            noisy = float(np.sum(bits)) + float(self.rng.normal(0.0, self.count_noise))
            unclipped = noisy / self.expected_clients + 0.5
            self.clip_norm = clip * math.exp(
                -self.adaptive.lr * (unclipped - self.adaptive.quantile)
            )
        std = self.update_noise * clip
        return [
            (t + self.rng.normal(0.0, std, size=np.shape(t))).astype(np.asarray(t).dtype)
            / self.expected_clients
            for t in total
        ]

    def summary(self) -> dict[str, Any]:
        """What the run's ``dp`` summary says about the noise and the clip norms."""
        out: dict[str, Any] = {"update_noise_multiplier": self.update_noise}
        if self.adaptive is not None:
            out["adaptive_clip"] = {
                "quantile": self.adaptive.quantile,
                "lr": self.adaptive.lr,
                "count_noise": self.count_noise,
                "clip_norms": list(self.clip_history),
            }
        return out


def unclipped_bit(norm: float, clip: float) -> float:
    """A client's centred bit: ``+1/2`` when its update's norm was at most ``clip``, else
    ``-1/2``."""
    return 0.5 if norm <= clip else -0.5
