"""LoRA-FA (Zhang et al. 2023): the A matrices stay at their start and only B trains.

The start is Jupiter's own draw, not an engine's RNG: PEFT's bound (kaiming_uniform with
a = √5, i.e. uniform in ±1/√fan_in) from a generator keyed by the run's seed and the
adapter's saved name, so a torch rank, an MLX rank or an island with the same seed holds
the same A bit for bit without sending it (`jupiter federated` refuses it for now: its
clients train with seeds of their own). With A shared and fixed the
adapter's update B·A is linear in B: averaging B across islands or clients averages the
updates exactly (FFA-LoRA, Sun et al. 2024), where averaging A and B apart does not, and
only half the adapter is trained and sent.
"""

from __future__ import annotations

import math
import zlib

import numpy as np


def frozen_a(name: str, r: int, fan_in: int, seed: int) -> np.ndarray:
    """The (r, fan_in) float32 A of the adapter whose saved name is `name`
    (`base_model.model.<module>.lora_A.weight`)."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    bound = 1.0 / math.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=(r, fan_in)).astype(np.float32)
