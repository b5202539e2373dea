"""Where things live in the sync store. Every object is written once, atomically, and never
changed, except `global/latest.json` (the newest round) and the heartbeats."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.")

SPEC = "spec"  # run.json, train.npz, heldout.npz, tokenizer/, plan.json
PLAN = "spec/plan.json"  # islands, their inner steps and max steps, the sync settings
# {"round": r, "done": bool, "digest": of round r's weights, "plan": round r's}
LATEST = "global/latest.json"
FINAL = "final"  # the finished model dir, file by file


def global_key(rnd: int) -> str:
    """Round rnd's global weights (fp32), the round's plan in the metadata."""
    return f"global/round-{rnd:06d}.safetensors"


def delta_key(rnd: int) -> str:
    """Round rnd's global weights as their change from round rnd - 1's, quantized
    (`sync.down_dtype`), for the islands that hold round rnd - 1's; the round's plan, the
    digest of the weights it gives and of the weights it applies to in the metadata."""
    return f"global/delta-{rnd:06d}.safetensors"


def contribution_key(rnd: int, island: str) -> str:
    """An island's pseudo-gradient for round rnd (`sync.dtype`), its numbers in the metadata."""
    return f"rounds/round-{rnd:06d}/{island}.safetensors"


def closed_key(rnd: int) -> str:
    """The contributions the coordinator took for round rnd, written before it publishes."""
    return f"rounds/round-{rnd:06d}/closed.json"


def momentum_key(rnd: int) -> str:
    """The outer optimizer's momentum after round rnd - 1, beside global_key(rnd)."""
    return f"coordinator/momentum-{rnd:06d}.safetensors"


def heartbeat(island: str) -> str:
    return f"heartbeat/{island}.json"


def error_key(island: str) -> str:
    return f"errors/{island}.json"


# ------------------------------------------------------------ what a round syncs
def fragment_of(name: str, fragments: int) -> int:
    """Streaming DiLoCo's fragment of a parameter: its layer's index modulo the fragment
    count (strided, so every fragment spans the depth), fragment 0 for what is outside the
    layers (embeddings, the final norm, the head)."""
    m = _LAYER.search(name)
    return int(m.group(1)) % fragments if m else 0


def synced_names(names: Iterable[str], sync: Mapping[str, Any], rnd: int, rounds: int) -> list[str]:
    """The parameters round rnd syncs: all of them, or with `sync.fragments` F > 1 those of
    fragment rnd mod F, except the last round, which syncs every fragment (the final model
    holds every island's last steps)."""
    names = list(names)
    frags = int(sync.get("fragments", 1))
    if frags <= 1 or rnd >= rounds - 1:
        return names
    return [n for n in names if fragment_of(n, frags) == rnd % frags]


def outer_lr_at(sync: Mapping[str, Any], rnd: int, rounds: int) -> float:
    """Round rnd's outer lr: `sync.outer_lr`, or along `sync.outer_lr_schedule` from it to
    `sync.outer_min_lr` at the last round."""
    base = float(sync["outer_lr"])
    kind = sync.get("outer_lr_schedule", "constant")
    if kind == "constant":
        return base
    low = float(sync.get("outer_min_lr", 0.0))
    t = min(1.0, rnd / max(1, rounds - 1))
    frac = (1 + math.cos(math.pi * t)) / 2 if kind == "cosine" else 1 - t
    return low + (base - low) * frac
