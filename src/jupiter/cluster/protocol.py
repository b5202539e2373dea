"""Where things live in the sync store. Every object is written once, atomically, and never
changed, except `global/latest.json` (the newest round) and the heartbeats."""

from __future__ import annotations

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
