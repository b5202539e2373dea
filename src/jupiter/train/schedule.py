"""Learning-rate schedule: a pure function of the step, so a resumed run needs no state."""

from __future__ import annotations

import math


def lr_at(step: float, max_steps: int, lr: float, min_lr: float, warmup_steps: int) -> float:
    """Linear warmup from lr/warmup_steps to lr, then cosine decay to min_lr at max_steps.

    `step` counts from 0 (the first optimizer step). The warmup never yields 0, so the
    first step already moves the weights (nanoGPT's get_lr has the same shape).
    """
    if warmup_steps > 0 and step < warmup_steps:
        return lr * (step + 1) / warmup_steps
    if step >= max_steps:
        return min_lr
    span = max(1, max_steps - warmup_steps)
    progress = (step - warmup_steps) / span
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr - min_lr)
