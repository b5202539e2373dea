"""DP pieces against hand computation and an accountant built here: clipping, the noisy
fixed-denominator mean, Poisson sampling, ε and the rounds an ε budget allows."""

from __future__ import annotations

import math

import dp_accounting
import pytest
import torch
from dp_accounting import rdp

from jupiter.federated import privacy


def accountant_epsilon(z: float, q: float, rounds: int, delta: float) -> float:
    """ε of `rounds` Poisson-sampled Gaussian releases, straight from dp-accounting."""
    acc = rdp.RdpAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    )
    event = dp_accounting.GaussianDpEvent(z)
    if q < 1:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc.compose(dp_accounting.SelfComposedDpEvent(event, rounds))
    return acc.get_epsilon(delta)


@pytest.mark.parametrize(("z", "q", "rounds"), [(1.0, 1.0, 1), (1.1, 1.0, 7), (0.8, 0.25, 30)])
def test_epsilon_is_the_accountants(z: float, q: float, rounds: int) -> None:
    got = privacy.epsilon(z, q, rounds, 1e-5)
    assert got == pytest.approx(accountant_epsilon(z, q, rounds, 1e-5), rel=1e-12)
    # more rounds cost more; sampling amplifies
    assert privacy.epsilon(z, q, rounds + 1, 1e-5) > got
    if q < 1:
        assert got < privacy.epsilon(z, 1.0, rounds, 1e-5)
    assert privacy.epsilon(z, q, 0, 1e-5) == 0.0


def test_epsilon_of_every_round_at_once_is_the_accountants() -> None:
    got = privacy.epsilons(0.9, 0.3, 12, 1e-6)
    assert len(got) == 12
    for r in (1, 2, 5, 12):
        assert got[r - 1] == pytest.approx(accountant_epsilon(0.9, 0.3, r, 1e-6), rel=1e-9)
    assert got == sorted(got)


def test_rounds_within_a_budget() -> None:
    eps = privacy.epsilons(1.2, 0.5, 20, 1e-5)
    budget = (eps[4] + eps[5]) / 2  # between 5 and 6 rounds
    assert privacy.rounds_within(1.2, 0.5, 1e-5, budget, 20) == 5
    assert privacy.rounds_within(1.2, 0.5, 1e-5, eps[0] / 2, 20) == 0
    assert privacy.rounds_within(1.2, 0.5, 1e-5, 1e9, 20) == 20


def test_clip_scales_long_updates_only() -> None:
    long = {"a": torch.tensor([3.0, 0.0]), "b": torch.tensor([[0.0, 4.0]])}  # norm 5
    clipped, norm = privacy.clip(long, 1.0)
    assert norm == pytest.approx(5.0)
    assert privacy.l2_norm(clipped) == pytest.approx(1.0)
    assert torch.allclose(clipped["a"], torch.tensor([0.6, 0.0]))
    assert torch.allclose(clipped["b"], torch.tensor([[0.0, 0.8]]))
    short = {"a": torch.tensor([0.3, 0.4])}
    same, n = privacy.clip(short, 1.0)
    assert n == pytest.approx(0.5) and torch.equal(same["a"], short["a"])


def test_private_update_is_the_noisy_sum_over_a_fixed_denominator() -> None:
    ref = {"w": torch.zeros(200_000)}
    ups = [{"w": torch.full((200_000,), 0.01)}, {"w": torch.full((200_000,), -0.03)}]
    z, c, m = 1.5, 2.0, 4.0
    gen = torch.Generator().manual_seed(3)
    mean, info = privacy.private_update(ups, ref, c, z, m, gen)
    # norms 0.01*sqrt(2e5)=4.47 and 13.4: both clipped to 2
    assert info["clipped"] == 2 and info["noise_std_sum"] == pytest.approx(3.0)
    exact = sum(privacy.clip(u, c)[0]["w"].double() for u in ups)
    noise = mean["w"].double() * m - exact
    assert abs(float(noise.mean())) < 0.03  # mean 0: 3/sqrt(2e5) = 0.0067 standard error
    assert float(noise.std()) == pytest.approx(z * c, rel=0.02)
    # the same generator state gives the same noise: nothing else is random
    again, _ = privacy.private_update(ups, ref, c, z, m, torch.Generator().manual_seed(3))
    assert torch.equal(again["w"], mean["w"])


def test_poisson_sample_keeps_each_at_the_rate() -> None:
    ids = list(range(4000))
    got = privacy.poisson_sample(ids, 0.3)
    assert set(got) <= set(ids) and len(set(got)) == len(got)
    sd = math.sqrt(4000 * 0.3 * 0.7)
    assert abs(len(got) - 1200) < 5 * sd
    assert privacy.poisson_sample(ids, 1.0) == ids
