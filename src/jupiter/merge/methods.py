"""Merge methods, one tensor at a time: each function takes the inputs' tensor of one name
(and the base's, for the methods that work on task vectors) and returns the merged tensor.

Conventions follow mergekit where the two can be compared (tests/merge/test_mergekit.py):
- linear: sum_i w_i x_i / sum_i w_i (Wortsman et al. 2022's uniform soup with w_i = 1);
- task arithmetic (Ilharco et al. 2023): base + lambda * sum_i w_i (x_i - base), not
  normalised unless asked;
- TIES (Yadav et al. 2023): each task vector keeps its top-`density` share of entries by
  magnitude, per tensor (k = max(1, int(density * numel))); the sign of each coordinate is
  elected by the sign of sum_i w_i d_i (ties go to +), and the entries of that sign are
  averaged with their weights (sum of agreeing w_i d_i / sum of agreeing w_i);
- SLERP: the angle between the two whole tensors, flattened; when |cos| > 0.9995 (parallel
  or antiparallel) it falls back to linear interpolation.
DARE (Yu et al. 2024) drops each entry of a task vector with probability 1 - density and
rescales the survivors by 1 / density, as the paper does (mergekit instead rescales to
keep the L1 norm, so DARE is not compared with it).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from typing import Literal

import torch

from jupiter.merge.aggregate import Contribution, median, trimmed_mean

Sparsify = Literal["magnitude", "random"]
# SLERP's fallback threshold and the norm below which a tensor counts as zero (mergekit's)
PARALLEL = 0.9995
EPS = 1e-8


def work_dtype(t: torch.Tensor) -> torch.dtype:
    """The dtype merges compute in: fp64 for fp64 inputs, else fp32."""
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def linear(tensors: Iterable[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """sum_i w_i x_i / sum_i w_i. `tensors` may be a generator: each input is added and
    dropped before the next is read, so a mean holds two tensors, not n."""
    acc: torch.Tensor | None = None
    inputs = iter(tensors)
    for w in weights:  # not zip: its reused result tuple would keep the last input alive
        t = next(inputs)
        if acc is None:
            acc = torch.zeros(t.shape, dtype=work_dtype(t))
        acc.add_(t.to(acc.dtype), alpha=w)
        del t  # before the next input is read
    assert acc is not None, "linear of no tensors"
    return acc.div_(math.fsum(weights))


def magnitude_mask(delta: torch.Tensor, density: float) -> torch.Tensor:
    """1 on the k = max(1, int(density * numel)) largest |entries|, 0 elsewhere.

    Entries tied in magnitude at the k-th place are chosen as mergekit chooses them (the
    first k of a descending argsort): fp32 deltas tie there often enough to matter (1 in
    1e6 entries of a 2M-entry embedding differed by 6e-4 with another choice). The sort is
    only paid when such a tie must be broken; otherwise the k-th value alone decides."""
    flat = delta.abs().reshape(-1)
    if density >= 1:
        return torch.ones_like(delta)
    n = flat.numel()
    k = max(1, int(density * n))
    kth = torch.kthvalue(flat, n - k + 1).values
    keep = flat > kth
    tied = flat == kth
    if int(keep.sum()) + int(tied.sum()) != k:
        keep = torch.zeros_like(keep)
        keep[torch.argsort(flat, descending=True)[:k]] = True
    else:
        keep |= tied
    return keep.to(delta.dtype).reshape(delta.shape)


def entry_seed(seed: int, name: str, index: int) -> int:
    """A seed per (run seed, tensor, input): DARE's masks do not depend on the order in
    which tensors are merged, nor on how many there are."""
    digest = hashlib.sha256(f"{seed}\0{name}\0{index}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def random_mask(delta: torch.Tensor, density: float, seed: int) -> torch.Tensor:
    """Bernoulli(density) entries, scaled by 1 / density (DARE's drop and rescale)."""
    if density >= 1:
        return torch.ones_like(delta)
    gen = torch.Generator().manual_seed(seed)
    keep = torch.rand(delta.shape, generator=gen) < density
    return keep.to(delta.dtype) / density


def task_vectors(
    base: torch.Tensor,
    tensors: Sequence[torch.Tensor],
    weights: Sequence[float],
    *,
    lam: float = 1.0,
    normalize: bool = False,
    sparsify: Sparsify | None = None,
    density: float = 1.0,
    elect_sign: bool = False,
    seeds: Sequence[int] = (),
) -> torch.Tensor:
    """Task arithmetic, TIES and DARE (linear or with TIES's sign election) in one function:
    d_i = x_i - base, sparsified; base + lam * combine(w_i d_i). Written in place where it
    can be: a 130 MB embedding merged from 3 inputs needs about n + 4 copies of it."""
    dtype = work_dtype(base)
    b = base.to(dtype)
    deltas = torch.empty((len(tensors), *base.shape), dtype=dtype)
    for i, t in enumerate(tensors):
        d = torch.sub(t.to(dtype), b, out=deltas[i])
        if sparsify == "magnitude":
            d.mul_(magnitude_mask(d, density))
        elif sparsify == "random":
            d.mul_(random_mask(d, density, seeds[i]))
        d.mul_(weights[i])
    if elect_sign:
        # the sign of sum_i w_i d_i wins (ties to +); entries of the other sign, and zeros,
        # take no part in the sum nor in the divisor
        positive = deltas.sum(dim=0) >= 0
        mixed = torch.zeros_like(b)
        divisor = torch.zeros_like(b)
        for i in range(len(tensors)):
            agree = torch.where(positive, deltas[i] > 0, deltas[i] < 0)
            mixed.add_(torch.where(agree, deltas[i], 0.0))
            divisor.add_(agree.to(dtype), alpha=weights[i])
        divisor[divisor == 0] = 1
    else:
        mixed = deltas.sum(dim=0)
        total = math.fsum(weights)
        divisor = torch.full_like(b, 1.0 if abs(total) < EPS else total)
    del deltas
    if normalize:
        mixed.div_(divisor)
    return b + lam * mixed


def slerp(a: torch.Tensor, b: torch.Tensor, t: float) -> torch.Tensor:
    """Spherical interpolation from a (t = 0) to b (t = 1) along the great circle through
    the two flattened tensors' directions, applied to the tensors themselves; linear when
    they are (anti)parallel, where the circle is not defined."""
    dtype = work_dtype(a)
    x, y = a.to(dtype).reshape(-1), b.to(dtype).reshape(-1)
    if x.numel() == 0:
        return x.reshape(a.shape)
    cos = _cosine(x, y)
    if abs(cos) > PARALLEL:
        ca, cb = 1 - t, t
    else:
        theta = math.acos(cos)
        ca, cb = (
            math.sin((1 - t) * theta) / math.sin(theta),
            math.sin(t * theta) / math.sin(theta),
        )
    return (x * ca).add_(y, alpha=cb).reshape(a.shape)  # one new tensor, not three


def _cosine(x: torch.Tensor, y: torch.Tensor, chunk: int = 1 << 20) -> float:
    """cos of the angle between two flat tensors, summed in fp64 a chunk at a time: fine
    tunes are a few degrees apart, where an fp32 sum over a 32M-entry embedding moved the
    SLERP result by 1e-4 (fp64 chunks: 5e-7 off an all-fp64 reference)."""
    xx = yy = xy = 0.0
    for i in range(0, x.numel(), chunk):
        xs, ys = x[i : i + chunk].double(), y[i : i + chunk].double()
        xx += float(xs @ xs)
        yy += float(ys @ ys)
        xy += float(xs @ ys)
    nx, ny = math.sqrt(xx), math.sqrt(yy)
    # a zero tensor has no direction: as mergekit, divide by 1 instead of by its norm
    nx, ny = (nx if nx > EPS else 1.0), (ny if ny > EPS else 1.0)
    return max(-1.0, min(1.0, xy / (nx * ny)))


def coordinate_median(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """Coordinate-wise median (aggregate.median: the mean of the middle two for even n)."""
    contribs = [Contribution(str(i), {"t": t}) for i, t in enumerate(tensors)]
    return median(contribs)["t"]


def coordinate_trimmed_mean(tensors: Sequence[torch.Tensor], fraction: float) -> torch.Tensor:
    """Coordinate-wise trimmed mean (aggregate.trimmed_mean)."""
    contribs = [Contribution(str(i), {"t": t}) for i, t in enumerate(tensors)]
    return trimmed_mean(contribs, fraction)["t"]
