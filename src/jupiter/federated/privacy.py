"""Differential privacy of a federated run: each client's update clipped to L2 norm C, the
clipped updates summed, Gaussian noise of std z·C added to the sum, the result divided by
the expected number of clients a round (DP-FedAvg, McMahan et al. 2018, "Learning
Differentially Private Recurrent Language Models", its fixed-denominator estimator).

The privacy unit is one client (all of its data): adding or removing a client moves the sum
by at most C, so each round is a Gaussian mechanism with noise multiplier z, applied to a
Poisson sample of the clients at rate q (q = 1: every client, no amplification). ε at δ for
r rounds comes from dp-accounting's RDP accountant over r compositions of that event.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import torch

Tensors = dict[str, torch.Tensor]


def round_event(noise_multiplier: float, sample_rate: float) -> Any:
    """One round as a dp-accounting event: a Gaussian mechanism, Poisson-sampled if q < 1."""
    import dp_accounting

    gaussian = dp_accounting.GaussianDpEvent(noise_multiplier)
    if sample_rate >= 1.0:
        return gaussian
    return dp_accounting.PoissonSampledDpEvent(sample_rate, gaussian)


def epsilon(noise_multiplier: float, sample_rate: float, rounds: int, delta: float) -> float:
    """ε at δ after `rounds` rounds (RDP accountant, add-or-remove-one-client neighbours)."""
    from dp_accounting import rdp

    if rounds <= 0:
        return 0.0
    _quiet_accountant()
    accountant = rdp.RdpAccountant()
    accountant.compose(round_event(noise_multiplier, sample_rate), rounds)
    return float(accountant.get_epsilon(delta))


def epsilons(noise_multiplier: float, sample_rate: float, rounds: int, delta: float) -> list[float]:
    """ε at δ after each of rounds 1..`rounds`. RDP adds up over rounds, so one round's RDP
    curve is computed once (0.1 s under Poisson sampling) and scaled: what the accountant
    composed r times gives, without r computations."""
    from dp_accounting import rdp
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    _quiet_accountant()
    accountant = rdp.RdpAccountant()
    accountant.compose(round_event(noise_multiplier, sample_rate), 1)
    orders, one = accountant.orders, [float(x) for x in accountant.rdp]
    return [
        float(compute_epsilon(orders, [x * r for x in one], delta)[0]) for r in range(1, rounds + 1)
    ]


def _quiet_accountant() -> None:
    """dp-accounting logs each RDP order it cannot evaluate and leaves out (the bound stays
    valid over the others): dozens of lines a call at q = 0.5."""
    import logging

    logging.getLogger("absl").setLevel(logging.ERROR)


def rounds_within(
    noise_multiplier: float, sample_rate: float, delta: float, budget: float, max_rounds: int
) -> int:
    """How many rounds fit in an ε budget (at most max_rounds): ε grows with the rounds."""
    eps = epsilons(noise_multiplier, sample_rate, max_rounds, delta)
    return sum(1 for e in eps if e <= budget)


def poisson_sample(ids: Sequence[int], rate: float) -> list[int]:
    """Each id kept with probability `rate`, independently, from the OS's entropy (the
    sample is part of the secret the amplification rests on)."""
    if rate >= 1.0:
        return list(ids)
    rng = random.SystemRandom()
    return [i for i in ids if rng.random() < rate]


def l2_norm(tensors: Mapping[str, torch.Tensor]) -> float:
    """The L2 norm of all tensors taken as one vector (summed in fp64)."""
    return math.sqrt(sum(float(t.double().square().sum()) for t in tensors.values()))


def clip(update: Mapping[str, torch.Tensor], clip_norm: float) -> tuple[Tensors, float]:
    """The update scaled down to L2 norm clip_norm if it is longer; and its norm before."""
    norm = l2_norm(update)
    scale = min(1.0, clip_norm / norm) if norm > 0 else 1.0
    return {k: v.float() * scale for k, v in update.items()}, norm


def noisy_sum(
    clipped: Sequence[Mapping[str, torch.Tensor]],
    reference: Mapping[str, torch.Tensor],
    noise_std: float,
    generator: torch.Generator | None = None,
) -> Tensors:
    """sum_i clipped_i + N(0, noise_std^2) on every coordinate (shapes from `reference`)."""
    gen = generator or noise_generator()
    out: Tensors = {}
    for name, ref in reference.items():
        acc = torch.zeros(ref.shape, dtype=torch.float64)
        for c in clipped:
            acc += c[name].double()
        acc += torch.normal(
            0.0, noise_std, size=tuple(ref.shape), generator=gen, dtype=torch.float64
        )
        out[name] = acc.float()
    return out


def noise_generator() -> torch.Generator:
    """A generator seeded from the OS's entropy, so no one can replay the noise. Torch's
    sampler is not hardened against floating-point attacks on the Gaussian's low bits
    (Mironov 2012): said in the README."""
    return torch.Generator().manual_seed(secrets.randbits(63))


def private_update(
    updates: Sequence[Mapping[str, torch.Tensor]],
    reference: Mapping[str, torch.Tensor],
    clip_norm: float,
    noise_multiplier: float,
    denominator: float,
    generator: torch.Generator | None = None,
) -> tuple[Tensors, dict[str, Any]]:
    """(sum of the clipped updates + N(0, (z·C)^2)) / denominator; and the norms seen."""
    clipped, norms = [], []
    for u in updates:
        c, n = clip(u, clip_norm)
        clipped.append(c)
        norms.append(n)
    noise_std = noise_multiplier * clip_norm
    total = noisy_sum(clipped, reference, noise_std, generator)
    mean = {k: v / denominator for k, v in total.items()}
    # clipped: longer than C beyond float rounding (a client-side clip arrives at C ± 1 ulp)
    info = {
        "norms": norms,
        "clipped": sum(n > clip_norm * (1 + 1e-6) for n in norms),
        "noise_std_sum": noise_std,
        "denominator": denominator,
    }
    return mean, info
