"""The weights that travel: a model's trainable tensors (the LoRA adapter, or every weight
under full training) by their saved names, and a fingerprint of the base model every party
must share for them to mean the same thing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

# PEFT's in-memory names carry the adapter's name, the saved (travelling) ones don't: the
# cluster sync's mapping; config.json keys that fix what the weights mean: the merge's
from jupiter.cluster.island import canonical
from jupiter.cluster.island import torch_name as in_model
from jupiter.errors import JupiterError
from jupiter.merge.inputs import ARCH_KEYS

Tensors = dict[str, torch.Tensor]
EDGE = 1 << 20  # bytes of each weight file's head and tail that go into the fingerprint


def trainable(model: torch.nn.Module) -> Tensors:
    """Whole fp32 CPU copies of the trainable weights, by saved name."""
    return {
        canonical(n): p.detach().float().cpu().clone()
        for n, p in model.named_parameters()
        if p.requires_grad
    }


@torch.no_grad()
def load_into(model: torch.nn.Module, weights: Tensors) -> None:
    """Copy travelling weights into the model; a name or shape it lacks is an error."""
    params = dict(model.named_parameters())
    for name, w in weights.items():
        p = params.get(in_model(name, model))
        if p is None or tuple(p.shape) != tuple(w.shape):
            raise JupiterError(
                f"the global weights do not fit this model ({name} "
                f"{'unknown' if p is None else f'{tuple(p.shape)} vs {tuple(w.shape)}'}): "
                "client and server must use the same model.base and train.method/lora"
            )
        p.copy_(w.to(device=p.device, dtype=p.dtype))


def fingerprint(model_dir: Path) -> str:
    """sha256 over the architecture keys of config.json and, for each weight file, its
    name, size and first and last MiB: two copies of one base agree, a different
    checkpoint of the same architecture does not (reading 2 MiB a file, not gigabytes)."""
    model_dir = Path(model_dir)
    try:
        conf = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise JupiterError(
            f"{model_dir} has no readable config.json: is it an HF model dir?"
        ) from None
    h = hashlib.sha256(json.dumps({k: conf.get(k) for k in ARCH_KEYS}, sort_keys=True).encode())
    files = sorted(p for p in model_dir.iterdir() if p.suffix in (".safetensors", ".bin"))
    if not files:
        raise JupiterError(f"{model_dir} holds no weight files (.safetensors)")
    for path in files:
        size = path.stat().st_size
        h.update(f"{path.name}:{size}".encode())
        with path.open("rb") as f:
            h.update(f.read(EDGE))
            f.seek(max(0, size - EDGE))
            h.update(f.read(EDGE))
    return h.hexdigest()


def digest(weights: Tensors) -> str:
    """sha256 of the weights (names, shapes, fp32 bytes): what a round's record names."""
    h = hashlib.sha256()
    for name in sorted(weights):
        t = weights[name].detach().float().contiguous().cpu()
        h.update(f"{name}:{tuple(t.shape)}".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()
