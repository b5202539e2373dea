"""--to mlx: mlx-lm's own loader opens the folder and its logits match the torch model's
(float32: 1e-5 of the largest logit; mlx's affine 8-bit in groups of 64: 4e-2, measured
1.3e-2 on the tiny Qwen2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exportkit import load_hf, logits, save_gemma
from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.export.source import from_model
from jupiter.export.writer import plan_export, write_export
from tinyhf import tiny_base_tokenizer

mx = pytest.importorskip("mlx.core")
IDS = [3, 17, 42, 99, 150, 7, 64, 201]


def mlx_logits(path: Path) -> tuple[np.ndarray, object]:
    from mlx_lm.utils import load

    model, tok = load(str(path))
    return np.array(model(mx.array([IDS]))[0].astype(mx.float32)), tok


def export(src: Path, out: Path, quant: str | None, console: Console) -> dict:
    source = from_model(str(src), out.parent / "cache", console)
    return write_export(plan_export("mlx", out, quant), source, console).manifest


@pytest.mark.parametrize(
    ("family", "quant", "tolerance"), [("llama", None, 1e-5), ("qwen2", "q8", 4e-2)]
)
def test_mlx_lm_loads_it_with_the_same_logits(
    family: str,
    quant: str | None,
    tolerance: float,
    family_dirs: dict[str, Path],
    tmp_path: Path,
    quiet: Console,
) -> None:
    src = family_dirs[family]
    manifest = export(src, tmp_path / "mlx", quant, quiet)
    got, tok = mlx_logits(tmp_path / "mlx")
    model, hf_tok = load_hf(src)
    want = logits(model, IDS).numpy()
    assert np.abs(got - want).max() / np.abs(want).max() <= tolerance
    assert tok.chat_template == hf_tok.chat_template and tok.eos_token_id == hf_tok.eos_token_id
    bits = manifest["mlx"]["quantization"]
    assert bits == ({"bits": 8, "group_size": 64, "mode": "affine"} if quant else None)
    assert "model.safetensors" in manifest["files"] and "config.json" in manifest["files"]


def test_gemma3_with_its_template(tmp_path: Path, quiet: Console) -> None:
    """A Gemma 3 base (no template of its own) goes out with Gemma's template."""
    src = save_gemma(tmp_path / "g6", tiny_base_tokenizer("gemma"), num_hidden_layers=6)
    export(src, tmp_path / "mlx", None, quiet)
    got, tok = mlx_logits(tmp_path / "mlx")
    want = logits(load_hf(src)[0], IDS).numpy()
    assert np.abs(got - want).max() / np.abs(want).max() <= 1e-5
    assert "<start_of_turn>" in tok.chat_template
    with pytest.raises(JupiterError, match="mlx-lm runs Gemma 3 with at least 6 layers"):
        export(
            save_gemma(tmp_path / "g2", tiny_base_tokenizer("gemma")), tmp_path / "m2", None, quiet
        )
    assert not (tmp_path / "m2").exists()
