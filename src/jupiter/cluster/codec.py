"""What goes through the sync store: weights and pseudo-gradients as safetensors bytes
(bf16/fp16/fp32, or int8/int4 in groups with a bf16 scale each), and a digest of weights that
torch and MLX islands compute alike."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from jupiter.errors import JupiterError

Dtype = Literal["bf16", "fp16", "fp32", "int8", "int4"]
TORCH_DTYPES: dict[str, torch.dtype] = {
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "fp32": torch.float32,
}
# int8 / int4: symmetric integers per group of QUANT_GROUP values, one bf16 scale a group
# (absmax / 127 or / 7), int4 packed two to a byte: 1.03 and 0.53 bytes a value
QUANT_LEVELS = {"int8": 127, "int4": 7}
QUANT_GROUP = 64
SCALE_SUFFIX = "@scale"


def as_torch(x: torch.Tensor | np.ndarray) -> torch.Tensor:
    """A CPU torch tensor for a torch tensor or a numpy array (ml_dtypes bfloat16 included,
    which is what an MLX array becomes in numpy), without copying where possible."""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if x.dtype.name == "bfloat16":
        return torch.from_numpy(np.ascontiguousarray(x).view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(x))


def encode(
    tensors: Mapping[str, torch.Tensor | np.ndarray],
    dtype: Dtype = "bf16",
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """safetensors bytes with every floating tensor cast to `dtype` (others kept as is).

    fp16 tops out at 65504: a larger value becomes inf on purpose. Such a contribution is
    then rejected as non_finite by the aggregator, rather than silently clipped.
    """
    if dtype not in TORCH_DTYPES and dtype not in QUANT_LEVELS:
        raise JupiterError(f"unknown sync dtype {dtype!r}; use bf16, fp16, fp32, int8 or int4")
    if metadata and not all(isinstance(v, str) for v in metadata.values()):
        raise JupiterError("encode: metadata values must be strings; json.dumps them first")
    if dtype in QUANT_LEVELS:
        return _encode_quantized(tensors, dtype, metadata)
    target = TORCH_DTYPES[dtype]
    out: dict[str, torch.Tensor] = {}
    storages: set[int] = set()
    for name, x in tensors.items():
        t = as_torch(x)
        t = (t.to(target) if t.is_floating_point() else t).contiguous()
        ptr = t.untyped_storage().data_ptr()
        if ptr in storages and t.numel():  # tied weights: safetensors refuses shared storage
            t = t.clone()
        storages.add(t.untyped_storage().data_ptr())
        out[name] = t
    return bytes(st_save(out, metadata=dict(metadata) if metadata else None))


def _encode_quantized(
    tensors: Mapping[str, torch.Tensor | np.ndarray],
    dtype: str,
    metadata: Mapping[str, str] | None,
) -> bytes:
    """Every floating tensor as integers per group of QUANT_GROUP values and a bf16 scale
    a group (round to nearest; the scale is rounded to bf16 before the values are divided
    by it, so `decode` multiplies back by exactly what was used); others kept as is. The
    shapes and scheme go in the metadata under "quant"."""
    levels = QUANT_LEVELS[dtype]
    out: dict[str, torch.Tensor] = {}
    shapes: dict[str, list[int]] = {}
    for name, x in tensors.items():
        t = as_torch(x)
        if not t.is_floating_point():
            out[name] = t.contiguous().clone()
            continue
        flat = t.detach().to(torch.float32).reshape(-1)
        pad = (-flat.numel()) % QUANT_GROUP
        groups = torch.nn.functional.pad(flat, (0, pad)).reshape(-1, QUANT_GROUP)
        scale = (groups.abs().amax(dim=1) / levels).to(torch.bfloat16)
        safe = torch.where(scale == 0, torch.ones_like(scale), scale).to(torch.float32)
        q = torch.round(groups / safe[:, None]).clamp_(-levels, levels).to(torch.int8)
        if dtype == "int4":  # two values a byte: low nibble first, each stored as q + 8
            u = (q.reshape(-1, 2) + 8).to(torch.uint8)
            q = u[:, 0] | (u[:, 1] << 4)
        out[name] = q.reshape(-1).contiguous()
        out[name + SCALE_SUFFIX] = scale.contiguous()
        shapes[name] = list(t.shape)
    meta = dict(metadata or {})
    meta["quant"] = json.dumps({"dtype": dtype, "group": QUANT_GROUP, "shapes": shapes})
    return bytes(st_save(out, metadata=meta))


def _dequantize(tensors: dict[str, torch.Tensor], quant: dict[str, Any]) -> dict[str, torch.Tensor]:
    """`_encode_quantized`'s tensors back to fp32 in their shapes: integer times its group's
    scale, one IEEE multiply a value, so every reader gets the same bits."""
    group = int(quant["group"])
    out: dict[str, torch.Tensor] = {}
    for name, t in tensors.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        shape = quant["shapes"].get(name)
        if shape is None:
            out[name] = t
            continue
        if quant["dtype"] == "int4":
            low = (t & 0x0F).to(torch.int16) - 8
            high = (t >> 4).to(torch.int16) - 8
            t = torch.stack([low, high], dim=1).reshape(-1)
        scale = tensors[name + SCALE_SUFFIX].to(torch.float32)
        values = t.to(torch.float32).reshape(-1, group) * scale[:, None]
        n = math.prod(shape)
        out[name] = values.reshape(-1)[:n].reshape(shape)
    return out


def decode(data: bytes, source: str = "payload") -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """(tensors, metadata) from `encode`'s bytes: floating tensors in their stored dtype, or
    fp32 for an int8/int4 payload (its "quant" metadata kept)."""
    try:
        tensors = st_load(data)
        n = int.from_bytes(data[:8], "little")
        meta: dict[str, str] = json.loads(data[8 : 8 + n]).get("__metadata__") or {}
        if "quant" in meta:
            tensors = _dequantize(tensors, json.loads(meta["quant"]))
    except (SafetensorError, ValueError, KeyError, RuntimeError) as e:
        raise JupiterError(
            f"{source} is not a safetensors payload ({e}); delete it so that its writer "
            "publishes it again"
        ) from e
    return tensors, meta


def with_metadata(data: bytes, extra: Mapping[str, str]) -> bytes:
    """`encode`'s bytes again, the same tensors byte for byte, with `extra` added to the
    metadata."""
    tensors = st_load(data)
    n = int.from_bytes(data[:8], "little")
    meta: dict[str, str] = json.loads(data[8 : 8 + n]).get("__metadata__") or {}
    return bytes(st_save(tensors, metadata={**meta, **extra}))


def to_fp32(tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as fp32 (what the aggregator works in); others unchanged."""
    return {k: v.float() if v.is_floating_point() else v for k, v in tensors.items()}


def weights_digest(tensors: Mapping[str, torch.Tensor | np.ndarray]) -> str:
    """SHA-256 over the names (sorted), each tensor's dtype, shape and raw bytes. Equal
    digests on a torch island and an MLX island prove byte-identical global weights."""
    h = hashlib.sha256(b"jupiter-weights-v1\n")
    for name in sorted(tensors):
        t = as_torch(tensors[name]).contiguous()
        dtype = str(t.dtype).removeprefix("torch.")
        h.update(json.dumps([name, dtype, list(t.shape)]).encode("utf-8") + b"\n")
        # raw bytes in memory order (little-endian on every platform Jupiter runs on)
        h.update(t.reshape(-1).view(torch.uint8).numpy().data)
    return h.hexdigest()
