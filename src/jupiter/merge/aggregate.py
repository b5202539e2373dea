"""Combine contributions (dicts of named fp32 tensors) into one: weighted mean, coordinate-wise
median and trimmed mean, (multi-)Krum.

Models may be gigabytes, so every aggregator works one tensor name at a time: it stacks the
n contributions' tensor for that name, reduces it, and moves on. Krum's pairwise distances
are accumulated the same way, tensor by tensor.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from jupiter.errors import JupiterError

Method = Literal["mean", "median", "trimmed_mean", "krum"]
Signature = dict[str, tuple[int, ...]]
# what contributions are checked against: names with shapes, or the global weights themselves
Reference = Mapping[str, torch.Tensor | tuple[int, ...]]


@dataclass
class Contribution:
    """One party's tensors: an island's pseudo-gradient, a model in a soup, a client update.
    `weight` is what the mean weighs by (tokens seen, examples, or 1 for uniform)."""

    name: str
    tensors: dict[str, torch.Tensor]
    weight: float = 1.0


def signature(tensors: Mapping[str, torch.Tensor]) -> Signature:
    """Names and shapes: what two contributions must share to be combined."""
    return {k: tuple(v.shape) for k, v in tensors.items()}


def check_contributions(
    contribs: Sequence[Contribution], reference: Reference | None = None
) -> tuple[list[Contribution], dict[str, str]]:
    """Keep the contributions that can be combined; say why each other one was dropped.

    Reasons: "duplicate_name", "bad_weight" (weight <= 0 or not finite), "name_mismatch",
    "shape_mismatch" (against `reference` - names with shapes, or the global weights - else
    the signature most contributions share) and
    "non_finite" (a NaN or inf anywhere: it would poison every coordinate it touches, even
    in a median once more than half the rows are NaN, so no aggregator ever sees one).
    """
    if reference is None:
        sigs = Counter(_frozen(signature(c.tensors)) for c in contribs)
        ref: Signature = dict(sigs.most_common(1)[0][0]) if sigs else {}
    else:
        ref = {
            k: tuple(v.shape if isinstance(v, torch.Tensor) else v) for k, v in reference.items()
        }
    kept: list[Contribution] = []
    rejected: dict[str, str] = {}
    for c in contribs:
        reason = _reject_reason(c, ref, seen={k.name for k in kept} | set(rejected))
        if reason:
            rejected[c.name] = reason
        else:
            kept.append(c)
    return kept, rejected


def _frozen(sig: Signature) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple(sorted(sig.items()))


def _reject_reason(c: Contribution, reference: Signature, seen: set[str]) -> str | None:
    if c.name in seen:
        return "duplicate_name"
    if not (math.isfinite(c.weight) and c.weight > 0):
        return "bad_weight"
    if set(c.tensors) != set(reference):
        return "name_mismatch"
    if any(tuple(t.shape) != reference[k] for k, t in c.tensors.items()):
        return "shape_mismatch"
    if not all(bool(torch.isfinite(t).all()) for t in c.tensors.values()):
        return "non_finite"
    return None


def _require(contribs: Sequence[Contribution], method: str) -> None:
    if not contribs:
        raise JupiterError(
            f"{method}: no contribution left to aggregate (all were missing or rejected); "
            "check the islands' logs and the rejection reasons"
        )


def _stack(contribs: Sequence[Contribution], name: str) -> torch.Tensor:
    """The n contributions' tensor `name` as one (n, *shape) fp32 tensor."""
    return torch.stack([c.tensors[name].to(torch.float32) for c in contribs])


def weighted_mean(contribs: Sequence[Contribution]) -> dict[str, torch.Tensor]:
    """sum_i w_i x_i / sum_i w_i, tensor by tensor (FedAvg, McMahan et al. 2017)."""
    _require(contribs, "mean")
    total = math.fsum(c.weight for c in contribs)
    weights = [c.weight / total for c in contribs]
    out: dict[str, torch.Tensor] = {}
    for name in contribs[0].tensors:
        # accumulate rather than stack: one extra tensor in memory instead of n
        acc = torch.zeros_like(contribs[0].tensors[name], dtype=torch.float32)
        for w, c in zip(weights, contribs, strict=True):
            acc.add_(c.tensors[name].to(torch.float32), alpha=w)
        out[name] = acc
    return out


def median(contribs: Sequence[Contribution]) -> dict[str, torch.Tensor]:
    """Coordinate-wise median (Yin et al. 2018); for an even n the mean of the two middle
    values (torch.median would return the lower one, biasing every coordinate down)."""
    _require(contribs, "median")
    n = len(contribs)
    out: dict[str, torch.Tensor] = {}
    for name in contribs[0].tensors:
        s = _stack(contribs, name).sort(dim=0).values
        out[name] = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return out


def trim_count(n: int, fraction: float) -> int:
    """How many values to drop from each end: floor(fraction * n), but at least one when
    n >= 3 and fraction > 0, so that a single attacker is always cut."""
    if not 0 <= fraction < 0.5:
        raise JupiterError(
            f"trimmed_mean: trim_fraction {fraction} is outside [0, 0.5); "
            "set sync.trim_fraction to e.g. 0.25"
        )
    k = math.floor(fraction * n)
    if fraction > 0 and n >= 3:
        k = max(k, 1)
    return k


def trimmed_mean(contribs: Sequence[Contribution], fraction: float) -> dict[str, torch.Tensor]:
    """Coordinate-wise trimmed mean (Yin et al. 2018): per coordinate, drop the k lowest and
    k highest values (k = `trim_count`) and average the rest. Unweighted: a weight would let
    one party buy its way past the trimming."""
    _require(contribs, "trimmed_mean")
    n = len(contribs)
    k = trim_count(n, fraction)
    out: dict[str, torch.Tensor] = {}
    for name in contribs[0].tensors:
        s = _stack(contribs, name)
        if k:
            s = s.sort(dim=0).values[k : n - k]
        out[name] = s.mean(dim=0)
    return out


def krum_scores(contribs: Sequence[Contribution], byzantine: int) -> list[float]:
    """Krum scores (Blanchard et al. 2017): for each contribution, the sum of squared
    distances to its n - f - 2 nearest others, over all tensors flattened together."""
    n = len(contribs)
    check_krum(n, byzantine)
    dist = torch.zeros(n, n, dtype=torch.float64)
    for name in contribs[0].tensors:
        add_sq_distances(dist, [c.tensors[name] for c in contribs])
    return krum_scores_of(dist, byzantine)


def check_krum(n: int, byzantine: int) -> None:
    f = byzantine
    if f < 0 or n <= 2 * f + 2:
        raise JupiterError(
            f"krum: tolerating byzantine={f} needs more than 2*{f}+2 = {2 * f + 2} "
            f"contributions, got {n}; lower sync.byzantine or use aggregate: median"
        )


def add_sq_distances(dist: torch.Tensor, tensors: Sequence[torch.Tensor]) -> None:
    """Add the pairwise squared distances of one tensor of each contribution to `dist`
    (n x n, fp64): a model streamed tensor by tensor builds Krum's distances this way."""
    n = len(tensors)
    # one pair at a time keeps the memory at two tensors, however large the model
    for i in range(n):
        a = tensors[i].to(torch.float32)
        for j in range(i + 1, n):
            d = (a - tensors[j].to(torch.float32)).double().square().sum()
            dist[i, j] += d
            dist[j, i] += d


def krum_scores_of(dist: torch.Tensor, byzantine: int) -> list[float]:
    """Krum scores from the full matrix of pairwise squared distances."""
    n = dist.shape[0]
    check_krum(n, byzantine)
    scores = []
    for i in range(n):
        others = torch.cat([dist[i, :i], dist[i, i + 1 :]])
        scores.append(float(others.sort().values[: n - byzantine - 2].sum()))
    return scores


def krum(
    contribs: Sequence[Contribution], byzantine: int, multi: int = 1
) -> tuple[dict[str, torch.Tensor], list[str], list[float]]:
    """(Multi-)Krum: the contribution with the lowest score, or the plain mean of the `multi`
    lowest. Returns the result, the selected names (best first) and every score."""
    _require(contribs, "krum")
    if not 1 <= multi <= len(contribs):
        raise JupiterError(f"krum: multi={multi} must be between 1 and {len(contribs)}")
    scores = krum_scores(contribs, byzantine)
    order = sorted(range(len(contribs)), key=lambda i: (scores[i], i))[:multi]
    chosen = [contribs[i] for i in order]
    uniform = [Contribution(c.name, c.tensors, 1.0) for c in chosen]
    return weighted_mean(uniform), [c.name for c in chosen], scores


def aggregate(
    contribs: Sequence[Contribution],
    method: Method = "mean",
    trim_fraction: float = 0.25,
    byzantine: int = 1,
    multi: int = 1,
    reference: Reference | None = None,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Check the contributions, then combine the survivors with `method`.

    info: method, used (names that passed the checks), rejected ({name: reason}),
    selected (names that shaped the result: Krum's picks, else all used), and for Krum the
    scores ({name: score}).
    """
    kept, rejected = check_contributions(contribs, reference)
    info: dict[str, Any] = {"method": method, "used": [c.name for c in kept]}
    info["rejected"] = rejected
    if not kept:
        raise JupiterError(
            f"{method}: no contribution left to aggregate out of {len(contribs)} "
            f"(rejected: {rejected or 'none given'}); check the islands' logs"
        )
    selected = [c.name for c in kept]
    if method == "mean":
        out = weighted_mean(kept)
    elif method == "median":
        out = median(kept)
    elif method == "trimmed_mean":
        out = trimmed_mean(kept, trim_fraction)
    elif method == "krum":
        out, selected, scores = krum(kept, byzantine, multi)
        info["scores"] = {c.name: s for c, s in zip(kept, scores, strict=True)}
    else:
        raise JupiterError(
            f"unknown aggregation {method!r}; use one of mean, median, trimmed_mean, krum"
        )
    info["selected"] = selected
    return out, info
