"""Weights chosen on validation: the greedy soup and convex (simplex) weights.

Both take the scoring as a function, so the selection logic is tested on small tensors and
the engine plugs in the real validator (merge/validation.py). Scores are lower-is-better
(bits per byte, or minus MC accuracy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

ScoreFn = Callable[[Sequence[int]], float]  # the uniform soup of these inputs -> score
LossGradFn = Callable[[torch.Tensor], tuple[float, torch.Tensor]]  # w -> (loss, dloss/dw)


def greedy_soup(
    individual: Sequence[float], score_soup: ScoreFn
) -> tuple[list[int], list[dict[str, Any]]]:
    """Wortsman et al. 2022, "Model soups", Recipe 1: sort the ingredients by their own
    validation score, best first; start the soup with the best; add each next one only if
    the uniform soup with it scores no worse than without it.

    Returns the kept inputs (in the order added) and the history of every decision."""
    order = sorted(range(len(individual)), key=lambda i: (individual[i], i))
    kept = [order[0]]
    best = individual[order[0]]
    history: list[dict[str, Any]] = [{"input": order[0], "score": best, "kept": True}]
    for i in order[1:]:
        score = score_soup([*kept, i])
        keep = score <= best
        history.append({"input": i, "score": score, "kept": keep, "soup_before": best})
        if keep:
            kept.append(i)
            best = score
    return kept, history


def fit_convex(
    n: int, loss_grad: LossGradFn, steps: int = 20, lr: float = 0.3
) -> tuple[list[float], list[dict[str, Any]]]:
    """Mixing weights on the simplex that minimise a validation loss: w = softmax(a), a
    from 0 (the uniform soup), Adam on a (Kingma & Ba 2015, betas 0.9/0.999) with the
    gradient dL/da = w * (dL/dw - <w, dL/dw>) through the softmax. Every visited point is
    scored, and the best is returned, so the result is never worse on the fitting data than
    the uniform soup it starts from.

    Returns the weights and the history of (weights, loss) per step."""
    logits = torch.zeros(n, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([logits], lr=lr)
    best_w: list[float] = [1.0 / n] * n
    best_loss = float("inf")
    history: list[dict[str, Any]] = []
    for _ in range(steps):
        w = torch.softmax(logits.detach(), dim=0)
        loss, gw = loss_grad(w)
        history.append({"weights": [round(float(x), 6) for x in w], "loss": loss})
        if loss < best_loss:
            best_loss, best_w = loss, [float(x) for x in w]
        gw = gw.to(torch.float64)
        opt.zero_grad()
        logits.grad = w * (gw - (w * gw).sum())
        opt.step()
    return best_w, history
