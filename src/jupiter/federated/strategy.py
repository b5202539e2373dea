"""The server's Flower Strategy. Flower's FedAvg gives the message plumbing (train messages,
error replies); the rest is Jupiter's: sampling (a deadline for clients to connect; a
Poisson sample under DP), aggregation by merge/aggregate.py (FedAvg = example-weighted
mean, FedMedian, trimmed mean, Krum; NaN/inf and misshapen replies rejected with a reason)
and differential privacy by privacy.py.

Flower's own DP wrappers are not used: they skip the whole round when any client fails,
weight by examples (a sensitivity they do not account for) and divide the noise by the
configured sample size whatever arrived; its FedAvg would average a NaN into every weight.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from typing import Any, cast

from flwr.app import ArrayRecord, ConfigRecord, Message, MessageType, MetricRecord, RecordDict
from flwr.serverapp import Grid
from flwr.serverapp.strategy import FedAvg

from jupiter.config import FederatedConfig
from jupiter.errors import JupiterError
from jupiter.federated import privacy
from jupiter.federated.spec import METHODS, min_results_of

WEIGHT_KEY = "num-examples"
CLIP_KEY = "clipping_norm"  # Flower's fixedclipping_mod reads the clipping norm under this key


def node_name(node_id: int) -> str:
    return f"node-{node_id}"


class JupiterStrategy(FedAvg):
    """Sampling, aggregation and DP of `jupiter federated server` (see the module doc)."""

    def __init__(self, fed: FederatedConfig) -> None:
        self.fed = fed
        self.min_results = min_results_of(fed)
        super().__init__(
            fraction_train=1.0,
            fraction_evaluate=0.0,
            min_train_nodes=self.min_results,
            min_evaluate_nodes=0,
            min_available_nodes=fed.min_clients,
            weighted_by_key=WEIGHT_KEY,
        )
        self.population: int | None = None  # clients connected when round 1 starts
        self.global_weights: dict[str, Any] = {}
        self.last: dict[str, Any] = {}  # the last round's aggregation record
        self.generator = privacy.noise_generator()

    # ------------------------------------------------------------------- sampling
    @property
    def dp(self) -> bool:
        return self.fed.dp.mode != "off"

    @property
    def per_round(self) -> int:
        """Clients a round asks (the expected count under Poisson sampling)."""
        assert self.population is not None, "connect() first"
        return self.fed.clients_per_round or self.population

    @property
    def sample_rate(self) -> float:
        return self.per_round / (self.population or 1)

    def connect(self, grid: Grid, log: Any = print) -> list[int]:
        """Wait (up to wait_clients_s) for min_clients; the first call fixes the population."""
        deadline = time.monotonic() + self.fed.wait_clients_s
        said = -1
        while len(nodes := sorted(grid.get_node_ids())) < self.fed.min_clients:
            if time.monotonic() > deadline:
                raise JupiterError(
                    f"only {len(nodes)} of the {self.fed.min_clients} clients needed connected "
                    f"within {self.fed.wait_clients_s:.0f} s: start more `jupiter federated "
                    "client`s, or lower --min-clients"
                )
            if len(nodes) != said:
                log(f"waiting for clients: {len(nodes)} of {self.fed.min_clients} connected")
                said = len(nodes)
            time.sleep(0.5)
        if self.population is None:
            self.population = len(nodes)
        return nodes

    def sample(self, nodes: list[int]) -> list[int]:
        if self.dp:  # the amplification by sampling that the accountant counts
            return privacy.poisson_sample(nodes, self.sample_rate)
        if self.fed.clients_per_round:
            return random.sample(nodes, min(self.fed.clients_per_round, len(nodes)))
        return nodes

    def configure_train(
        self, server_round: int, arrays: ArrayRecord, config: ConfigRecord, grid: Grid
    ) -> Iterable[Message]:
        """One train message per sampled client, carrying the global weights and the plan."""
        sampled = self.sample(self.connect(grid))
        config["server-round"] = server_round
        if self.fed.dp.mode == "client":
            config[CLIP_KEY] = self.fed.dp.clip_norm
        self.global_weights = arrays.to_torch_state_dict()
        record = RecordDict({self.arrayrecord_key: arrays, self.configrecord_key: config})
        return [
            Message(content=record, message_type=MessageType.TRAIN, dst_node_id=n) for n in sampled
        ]

    # ---------------------------------------------------------------- aggregation
    def contributions(self, replies: list[Message]) -> tuple[list[Any], dict[str, Any]]:
        """Replies as merge/aggregate.py Contributions; what each client said alongside."""
        from jupiter.merge.aggregate import Contribution

        out: list[Any] = []
        about: dict[str, dict[str, Any]] = {}
        for msg in replies:
            name = node_name(msg.metadata.src_node_id)
            metrics = next(iter(msg.content.metric_records.values()), MetricRecord())
            weight = float(metrics.get(WEIGHT_KEY, 0.0))  # type: ignore[arg-type]
            about[name] = {k: v for k, v in metrics.items() if isinstance(v, int | float)}
            said = msg.content.config_records.get("about")
            if said is not None and isinstance(said.get("client"), str):
                about[name]["client"] = said["client"]  # the name the client goes by
            arrays = next(iter(msg.content.array_records.values()), None)
            tensors = arrays.to_torch_state_dict() if arrays is not None else {}
            out.append(Contribution(name, {k: v.float() for k, v in tensors.items()}, weight))
        return out, about

    def aggregate_train(
        self, server_round: int, replies: Iterable[Message]
    ) -> tuple[ArrayRecord | None, MetricRecord | None]:
        """The new global weights, or (None, None) when fewer than min_results usable replies
        came (the reasons in self.last)."""
        from jupiter.merge.aggregate import Method, aggregate, check_contributions

        valid, errors = self._check_and_log_replies(list(replies), is_train=True, validate=False)
        contribs, about = self.contributions(valid)
        info: dict[str, Any] = {
            "errors": {node_name(m.metadata.src_node_id): m.error.reason for m in errors},
            "clients": about,
        }
        self.last = info
        # NaN/inf, other names or shapes: dropped with the reason, before any aggregator
        kept, rejected = check_contributions(contribs, reference=self.global_weights)
        info |= {"used": [c.name for c in kept], "rejected": rejected}
        # under Poisson sampling every round releases, whatever the sample: skipping small
        # ones would make a client's inclusion more likely than q in the rounds released
        need = 0 if self.dp and self.sample_rate < 1 else self.min_results
        if len(kept) < need:
            info["failed"] = (
                f"round {server_round}: {len(kept)} usable replies, {self.min_results} needed "
                f"({len(errors)} failed, {len(rejected)} rejected)"
            )
            return None, None
        if self.dp:  # uniform: each client's clipped update counts once
            new, dp_info = self._private(kept)
            info["dp"] = dp_info
            info["selected"] = info["used"]
        else:
            method = cast(Method, METHODS[self.fed.strategy])
            new, agg = aggregate(
                kept,
                method,
                self.fed.trim_fraction,
                self.fed.byzantine,
                reference=self.global_weights,
            )
            info["selected"] = agg["selected"]
            if "scores" in agg:
                info["krum_scores"] = agg["scores"]
        total = sum(c.weight for c in kept)
        loss = (
            sum(about[c.name].get("train-loss", 0.0) * c.weight for c in kept) / total
            if kept
            else float("nan")
        )
        info["train_loss"] = loss
        metrics = MetricRecord({"train-loss": loss, "clients": len(kept)})
        return ArrayRecord({k: v.contiguous() for k, v in new.items()}), metrics

    def _private(self, kept: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """global + (sum of clipped updates + N(0, (zC)^2)) / expected clients per round."""
        g = self.global_weights
        updates = [{k: c.tensors[k] - g[k].float() for k in g} for c in kept]
        dp = self.fed.dp
        mean, info = privacy.private_update(
            updates, g, dp.clip_norm, dp.noise_multiplier, float(self.per_round), self.generator
        )
        info["norms"] = dict(zip([c.name for c in kept], info["norms"], strict=True))
        return {k: g[k].float() + mean[k] for k in g}, info
