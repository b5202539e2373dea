"""Where llama-cpp-python is installed (it is not a dependency: it builds llama.cpp from
source), llama.cpp itself loads the exported GGUF files and generates, greedily, the tokens
transformers generates from the source model. Skipped elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from exportkit import load_hf
from rich.console import Console

from jupiter.export.gguf import write_gguf

llama_cpp = pytest.importorskip("llama_cpp")
TEXT = "def add(a, b):\n    return a + b"


@torch.no_grad()
def argmax_tokens(model: torch.nn.Module, ids: list[int], n: int) -> list[int]:
    """n greedy tokens, stop tokens included (llama.cpp's generate does not stop either)."""
    out = list(ids)
    for _ in range(n):
        out.append(int(model(torch.tensor([out])).logits[0, -1].argmax()))
    return out[len(ids) :]


@pytest.mark.parametrize("quant", ["f32", "f16"])
@pytest.mark.parametrize("family", ["jupiter", "llama", "mistral", "qwen2", "gemma3", "gemma3-spm"])
def test_llama_cpp_generates_the_transformers_tokens(
    family: str, quant: str, family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    src = family_dirs[family]
    dest = tmp_path / f"{family}.gguf"
    write_gguf(src, dest, quant, label=f"tiny-{family}", console=quiet)
    model, tok = load_hf(src)
    ids = tok(TEXT, add_special_tokens=False)["input_ids"]
    llm = llama_cpp.Llama(model_path=str(dest), n_ctx=256, n_threads=1, verbose=False)
    assert llm.tokenize(TEXT.encode(), add_bos=False, special=True) == ids
    got = []
    for token in llm.generate(ids, temp=0.0, top_k=1, repeat_penalty=1.0):
        got.append(token)
        if len(got) == 12:
            break
    assert got == argmax_tokens(model, ids, 12)


def test_q4_k_m_through_llama_cpps_quantizer(
    family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    import gguf
    from exportkit import logits, reload_gguf

    from jupiter.export.source import from_model
    from jupiter.export.writer import plan_export, write_export

    src = family_dirs["llama"]
    source = from_model(str(src), tmp_path / "cache", quiet)
    f16 = write_export(plan_export("gguf", tmp_path / "f16", "f16"), source, quiet)
    q = write_export(plan_export("gguf", tmp_path / "q", "q4_k_m"), source, quiet)
    info = q.manifest["gguf"]
    path = tmp_path / "q" / info["file"]
    assert q.manifest["quant"] == "q4_k_m" and info["file"].endswith("-q4_k_m.gguf")
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([info["file"], "export.json"])
    assert info["quantizer"].startswith("llama.cpp (llama-cpp-python")
    field = gguf.GGUFReader(path).fields["general.file_type"]
    assert int(field.parts[field.data[0]][0]) == llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_K_M
    assert path.stat().st_size < (tmp_path / "f16" / f16.manifest["gguf"]["file"]).stat().st_size
    assert set(info["tensor_types"]) - {"F32", "F16"}, info["tensor_types"]  # quantized
    # llama.cpp and transformers both read it back; the logits stay near the source's
    model, tok = load_hf(src)
    ids = tok(TEXT, add_special_tokens=False)["input_ids"]
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=256, n_threads=1, verbose=False)
    assert llm.tokenize(TEXT.encode(), add_bos=False, special=True) == ids
    back, _ = reload_gguf(path)
    a, b = logits(model, ids), logits(back, ids)
    err = float((a - b).abs().max()) / float(a.abs().max())
    print(f"q4_k_m: tensor types {info['tensor_types']}, max logit error {err:.3f} of the largest")
    assert err < 0.25
