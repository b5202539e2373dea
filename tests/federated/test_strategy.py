"""JupiterStrategy.aggregate_train on Flower replies built here: FedAvg against a hand
weighted mean, NaN and misshapen replies rejected, a ×1e6 client outvoted by the median and
Krum, too few replies refused, an error reply not stopping a DP round, and the DP update
against its formula."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from flwr.app import (
    ArrayRecord,
    ConfigRecord,
    Error,
    Message,
    MessageType,
    MetricRecord,
    RecordDict,
)
from flwr.supercore.task_identity import TaskIdentity

from jupiter.config import FederatedConfig, FederatedDP
from jupiter.federated.strategy import JupiterStrategy

GLOBAL = {"l.lora_A.weight": torch.zeros(2, 3), "l.lora_B.weight": torch.zeros(3, 2)}


@pytest.fixture(autouse=True)
def task_identity() -> Iterator[None]:
    """A ServerApp process's identity, which Flower's Message needs."""
    saved = (TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id)
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = 1, 0, 1
    yield
    TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id = saved


def strategy(**fed: object) -> JupiterStrategy:
    s = JupiterStrategy(FederatedConfig(**fed))  # type: ignore[arg-type]
    s.population = 5
    s.global_weights = {k: v.clone() for k, v in GLOBAL.items()}
    return s


def reply(node: int, weights: dict[str, torch.Tensor], n: int, loss: float = 1.0) -> Message:
    ask = Message(
        RecordDict({"arrays": ArrayRecord(GLOBAL), "config": ConfigRecord()}),
        dst_node_id=node,
        message_type=MessageType.TRAIN,
    )
    content = RecordDict(
        {
            "arrays": ArrayRecord(weights),
            "metrics": MetricRecord({"num-examples": n, "train-loss": loss}),
        }
    )
    return Message(content, reply_to=ask)


def failed(node: int) -> Message:
    ask = Message(RecordDict(), dst_node_id=node, message_type=MessageType.TRAIN)
    return Message(Error(code=1, reason="client crashed"), reply_to=ask)


def client(seed: int, scale: float = 1.0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {k: torch.randn(v.shape, generator=g) * 0.1 * scale for k, v in GLOBAL.items()}


def test_fedavg_is_the_example_weighted_mean() -> None:
    s = strategy(strategy="fedavg", min_results=3)
    ws, ns = [client(1), client(2), client(3)], [6, 10, 14]
    arrays, metrics = s.aggregate_train(
        1, [reply(i + 1, w, n, float(i)) for i, (w, n) in enumerate(zip(ws, ns, strict=True))]
    )
    assert arrays is not None and metrics is not None
    got = arrays.to_torch_state_dict()
    for k in GLOBAL:
        hand = sum(w[k] * n for w, n in zip(ws, ns, strict=True)) / sum(ns)
        assert torch.allclose(got[k], hand, atol=1e-7)
    assert metrics["train-loss"] == pytest.approx((0 * 6 + 1 * 10 + 2 * 14) / 30)
    assert sorted(s.last["used"]) == ["node-1", "node-2", "node-3"] and not s.last["rejected"]


def test_nan_and_misshapen_replies_are_rejected_with_their_reason() -> None:
    s = strategy(strategy="fedavg", min_results=1)
    nan = {k: torch.full_like(v, float("nan")) for k, v in GLOBAL.items()}
    bad = {"l.lora_A.weight": torch.zeros(5), "l.lora_B.weight": torch.zeros(3, 2)}
    good = client(4)
    arrays, _ = s.aggregate_train(1, [reply(1, nan, 5), reply(2, bad, 5), reply(3, good, 5)])
    assert arrays is not None
    assert s.last["rejected"] == {"node-1": "non_finite", "node-2": "shape_mismatch"}
    for k, v in arrays.to_torch_state_dict().items():
        assert torch.equal(v, good[k])


@pytest.mark.parametrize(("method", "n"), [("fedmedian", 3), ("krum", 5), ("trimmed", 5)])
def test_a_client_sending_weights_times_1e6_is_outvoted(method: str, n: int) -> None:
    s = strategy(strategy=method, byzantine=1, min_results=n)
    honest = [client(10 + i) for i in range(n - 1)]
    attacker = {k: v * 1e6 for k, v in client(99).items()}
    replies = [reply(i + 1, w, 10) for i, w in enumerate(honest)] + [reply(n, attacker, 10)]
    arrays, _ = s.aggregate_train(1, replies)
    assert arrays is not None
    got = arrays.to_torch_state_dict()
    for k in GLOBAL:
        stack = torch.stack([w[k] for w in honest])
        # every coordinate stays inside the honest clients' range
        assert bool((got[k] >= stack.min(0).values - 1e-6).all())
        assert bool((got[k] <= stack.max(0).values + 1e-6).all())
    if method == "krum":
        assert f"node-{n}" not in s.last["selected"]


def test_too_few_usable_replies_leave_the_round_without_a_model() -> None:
    s = strategy(strategy="fedavg", min_results=2)
    arrays, metrics = s.aggregate_train(3, [reply(1, client(1), 5), failed(2)])
    assert arrays is None and metrics is None
    assert s.last["errors"] == {"node-2": "client crashed"}
    assert "1 usable replies, 2 needed" in s.last["failed"]


def test_dp_round_goes_on_without_a_failed_client_and_follows_the_formula() -> None:
    dp = FederatedDP(mode="server", noise_multiplier=0.5, clip_norm=0.2)
    s = strategy(strategy="fedavg", min_results=2, dp=dp)
    s.population = 3  # every client each round: denominator 3
    s.generator = torch.Generator().manual_seed(7)
    ws = [client(1), client(2, scale=10.0)]
    arrays, _ = s.aggregate_train(1, [reply(1, ws[0], 5), reply(2, ws[1], 50), failed(3)])
    assert arrays is not None
    got = arrays.to_torch_state_dict()
    gen = torch.Generator().manual_seed(7)
    for k in GLOBAL:  # noise is drawn tensor by tensor, in the global's order
        clipped = []
        for w in ws:
            norm = torch.sqrt(sum((w[j].double() ** 2).sum() for j in GLOBAL))
            clipped.append(w[k].double() * min(1.0, 0.2 / float(norm)))
        noise = torch.normal(
            0.0, 0.5 * 0.2, size=tuple(GLOBAL[k].shape), generator=gen, dtype=torch.float64
        )
        hand = (clipped[0] + clipped[1] + noise) / 3  # examples do not weigh under DP
        assert torch.allclose(got[k].double(), hand, atol=1e-6)
    assert s.last["dp"]["clipped"] == 2 and s.last["errors"] == {"node-3": "client crashed"}
