"""An mlx-lm model folder, made by mlx-lm's own converter (`mlx_lm.convert`) from the merged
HF dir: mlx-lm reads it back with `mlx_lm.load`, `mlx_lm.generate` and `mlx_lm.server`.
--quant: auto (the stored dtype), f32, f16, bf16, or mlx's affine q8/q4 in groups of 64."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

MLX_MISSING = "exporting to MLX needs mlx-lm: pip install mlx-lm (mlx[cpu] off Apple silicon)"
DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
GROUP_SIZE = 64  # mlx-lm's default quantization group
GEMMA3_PATTERN = 6  # mlx-lm's Gemma 3 takes the global layer's cache at index 5


def write_mlx(hf_dir: Path, dest: Path, quant: str) -> dict[str, Any]:
    """mlx_lm.convert(hf_dir → dest); its console chatter is kept out of Jupiter's."""
    try:
        from mlx_lm.convert import convert
    except ImportError:
        raise JupiterError(MLX_MISSING) from None
    config = json.loads((hf_dir / "config.json").read_text(encoding="utf-8"))
    layers = int(config.get("num_hidden_layers", 0))
    if config.get("model_type") == "gemma3_text" and layers < GEMMA3_PATTERN:
        raise JupiterError(
            f"mlx-lm runs Gemma 3 with at least {GEMMA3_PATTERN} layers (one global every "
            f"{GEMMA3_PATTERN}); this one has {layers}: export --to hf or gguf instead"
        )
    bits = {"q8": 8, "q4": 4}.get(quant)
    chatter = io.StringIO()
    try:
        with contextlib.redirect_stdout(chatter):
            convert(
                str(hf_dir),
                str(dest),
                quantize=bits is not None,
                q_bits=bits,
                q_group_size=GROUP_SIZE if bits else None,
                dtype=DTYPES.get(quant),
            )
    except (ValueError, KeyError, NotImplementedError) as err:
        first = (str(err).splitlines() or [type(err).__name__])[0]
        raise JupiterError(f"mlx-lm cannot convert this model ({first}): export --to hf") from None
    return {
        "dtype": DTYPES.get(quant, "stored"),
        "quantization": (
            {"bits": bits, "group_size": GROUP_SIZE, "mode": "affine"} if bits else None
        ),
    }
