"""Meta-consensus over N members of one start: a Byzantine-tolerant vote.

Each member is placed by two figures: how far its weights lie from the coordinate-wise
median of the members' weights (an L2 distance, streamed tensor by tensor), and its
validation loss. A member is an outlier when either is not finite, when its distance is
more than `max_distance` times the median member's distance, or when its loss is more than
(1 + `max_loss_gap`) times the median member's loss. The median is what makes the vote
robust: up to half the members can be arbitrarily bad without moving it far, where a mean
would follow a single member scaled by 1e6.

The merge of the agreeing members goes ahead only when they are at least `threshold` of
all members; otherwise, and when the merged model validates worse than the best member,
the best member is kept (improve/consensus.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from jupiter.merge.methods import coordinate_median


class Weights(Protocol):
    """A model's tensors by name (merge.shards.ModelWeights, merge.lora.AdapterWeights)."""

    def read(self, name: str) -> torch.Tensor: ...


@dataclass
class Vote:
    distances: list[float]  # to the coordinate-wise median (inf: weights not finite)
    losses: list[float]  # validation, lower is better (inf: not finite)
    outliers: dict[int, str]  # member -> why it gets no weight
    threshold: float
    median_distance: float = 0.0
    median_loss: float = 0.0
    agree: list[int] = field(default_factory=list)

    @property
    def quorum(self) -> bool:
        """At least `threshold` of the members agree."""
        return len(self.agree) >= math.ceil(self.threshold * len(self.distances) - 1e-9)

    def best(self) -> int:
        """The member with the lowest finite validation loss, agreeing members first."""
        pool = self.agree or [i for i, v in enumerate(self.losses) if math.isfinite(v)]
        pool = pool or list(range(len(self.losses)))
        return min(pool, key=lambda i: (self.losses[i], i))

    def record(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "agree": self.agree,
            "quorum": self.quorum,
            "median_distance": _finite(self.median_distance),
            "median_loss": _finite(self.median_loss),
            "outliers": {str(i): why for i, why in sorted(self.outliers.items())},
        }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _all_finite(t: torch.Tensor) -> bool:
    return bool(torch.isfinite(t).all()) if t.is_floating_point() else True


def median_distances(members: Sequence[Weights], names: Sequence[str]) -> list[float]:
    """Each member's L2 distance to the coordinate-wise median of the members with finite
    weights (inf for a member with a NaN or inf anywhere). Two passes over the tensors, one
    name at a time: n tensors held at once, never n models."""
    n = len(members)
    finite = [True] * n
    for name in names:
        for i, m in enumerate(members):
            if finite[i] and not _all_finite(m.read(name)):
                finite[i] = False
    honest = [i for i in range(n) if finite[i]]
    sq = [0.0] * n
    if len(honest) > 1:
        for name in names:
            ts = [members[i].read(name).to(torch.float64) for i in honest]
            if not ts[0].is_floating_point():
                continue
            med = coordinate_median(ts)
            for i, t in zip(honest, ts, strict=True):
                sq[i] += float((t - med).pow_(2).sum())
    return [math.sqrt(sq[i]) if finite[i] else math.inf for i in range(n)]


def vote(
    distances: Sequence[float],
    losses: Sequence[float],
    *,
    threshold: float,
    max_distance: float,
    max_loss_gap: float,
) -> Vote:
    """Outliers by distance and by loss, and the members that agree."""
    n = len(distances)
    d_ok = [d for d in distances if math.isfinite(d)]
    med_d = statistics.median(d_ok) if d_ok else math.inf
    l_ok = [
        v for v, d in zip(losses, distances, strict=True) if math.isfinite(v) and math.isfinite(d)
    ]
    med_l = statistics.median(l_ok) if l_ok else math.inf
    outliers: dict[int, str] = {}
    for i in range(n):
        d, loss = distances[i], losses[i]
        if not math.isfinite(d):
            outliers[i] = "weights not finite (NaN or inf)"
        elif d > max_distance * med_d:
            ratio = f"{d / med_d:.3g}x" if med_d > 0 else "above 0, the"
            outliers[i] = (
                f"distance to the median {d:.4g} is {ratio} median member's "
                f"{med_d:.4g} (max_distance {max_distance:g})"
            )
        elif not math.isfinite(loss):
            outliers[i] = "validation loss not finite"
        elif loss > (1.0 + max_loss_gap) * med_l:
            outliers[i] = (
                f"validation loss {loss:.4f} above the median member's "
                f"{med_l:.4f} by more than max_loss_gap {max_loss_gap:g}"
            )
    agree = [i for i in range(n) if i not in outliers]
    return Vote(list(distances), list(losses), outliers, threshold, med_d, med_l, agree)
