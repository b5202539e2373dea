"""What every export format shares: the format and quantization names, the staging folder
renamed into place at the end, and export.json (the manifest) with the checksums."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, cast

from jupiter import __version__
from jupiter.atomic import write_text
from jupiter.errors import JupiterError

Format = Literal["hf", "gguf", "ollama", "mlx"]
FORMATS: tuple[Format, ...] = ("hf", "gguf", "ollama", "mlx")
MANIFEST = "export.json"

# --quant per format. hf and mlx: "auto" keeps the dtype the weights are stored in. GGUF:
# llama.cpp's converter's plain types (f16 is its default); mlx: mlx-lm's affine 8/4-bit
# quantization with groups of 64.
QUANTS: dict[Format, tuple[str, ...]] = {
    "hf": ("auto", "f32", "f16", "bf16"),
    "gguf": ("f32", "f16", "bf16", "q8_0"),
    "ollama": ("f32", "f16", "bf16", "q8_0"),
    "mlx": ("auto", "f32", "f16", "bf16", "q8", "q4"),
}
# Ollama's users expect a compact model: q8_0 is half of f16 and near it in quality
DEFAULT_QUANT: dict[Format, str] = {"hf": "auto", "gguf": "f16", "ollama": "q8_0", "mlx": "auto"}
# llama.cpp's k-quants and legacy types: made from an f16 GGUF by llama.cpp's llama-quantize
LLAMA_QUANTIZE = (
    "q2_k",
    "q3_k_s",
    "q3_k_m",
    "q3_k_l",
    "q4_0",
    "q4_1",
    "q4_k_s",
    "q4_k_m",
    "q5_0",
    "q5_1",
    "q5_k_s",
    "q5_k_m",
    "q6_k",
    "iq4_xs",
    "iq4_nl",
)


def check_format(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise JupiterError(f"unknown export format '{fmt}': use --to {', '.join(FORMATS)}")
    return cast(Format, fmt)


def check_quant(fmt: Format, quant: str | None) -> str:
    """The quantization to write: `quant`, or the format's default; one line naming the
    choices when it does not fit the format."""
    if quant is None:
        return DEFAULT_QUANT[fmt]
    q = quant.lower()
    if q in QUANTS[fmt]:
        return q
    choices = ", ".join(QUANTS[fmt])
    if fmt in ("gguf", "ollama") and q in LLAMA_QUANTIZE:
        if importlib.util.find_spec("llama_cpp") is not None:
            return q  # written as f16, then quantized by llama.cpp (export/gguf.py)
        raise JupiterError(
            f"--quant {quant} is made by llama.cpp's quantizer: pip install llama-cpp-python "
            f"(it builds llama.cpp), or export --quant f16 and run "
            f"`llama-quantize model-f16.gguf model-{q}.gguf {q.upper()}`"
        )
    raise JupiterError(f"--quant {quant} is not a {fmt} quantization: choose {choices}")


def check_out(out: Path, force: bool) -> Path:
    """The absolute output folder; an existing one only with --force."""
    out = out.expanduser().resolve()
    if out.suffix.lower() == ".gguf":
        raise JupiterError(
            f"--out {out} names a file: --out is a folder (it holds the model and "
            f"{MANIFEST}); drop the .gguf suffix"
        )
    if out.exists() and not out.is_dir():
        raise JupiterError(f"--out {out} is a file: choose a folder path for the export")
    if out.exists() and not force:
        raise JupiterError(
            f"{out} already exists: choose another --out, or add --force to replace it"
        )
    return out


@contextmanager
def staging(out: Path) -> Iterator[Path]:
    """A temp path beside `out` (not created: writers make it); renamed over `out` when the
    block ends, deleted when it fails, so --out is whole or absent (or the old one)."""
    from jupiter.models.folder import replace_dir

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        yield tmp
        replace_dir(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def scratch(out: Path, what: str) -> Iterator[Path]:
    """A temp folder beside `out` for an intermediate (a merged model before its GGUF),
    deleted afterwards."""
    tmp = out.with_name(f".tmp-{out.name}-{what}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def weight_hashes(model_dir: Path) -> dict[str, str]:
    """SHA-256 of a model dir's weight files (safetensors, an adapter's too)."""
    from jupiter.models.folder import sha256_file

    files = sorted(model_dir.glob("*.safetensors"))
    return {p.name: sha256_file(p) for p in files}


def write_manifest(root: Path, info: dict[str, Any]) -> dict[str, Any]:
    """root/export.json: Jupiter's version, when, `info` and the checksums of every file."""
    from jupiter.models.folder import file_sums

    manifest = {
        "jupiter_version": __version__,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **info,
        "files": file_sums(root, skip=(MANIFEST,)),
    }
    write_text(root / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


def slug(name: str) -> str:
    """A file and Ollama model name made of [a-z0-9._-] from a folder or model name."""
    text = "".join(c if c.isalnum() or c in "._-" else "-" for c in name.lower()).strip("-.")
    return "-".join(p for p in text.split("-") if p) or "model"
