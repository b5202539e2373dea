"""--to hf: a LoRA adapter merged into its base, a full model copied through or cast, each
with the chat template and a generation_config.json listing every stop token; export.json
with the source's checksums; nothing half-written when a write fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from exportkit import load_hf, logits
from rich.console import Console
from safetensors import safe_open

from jupiter.errors import JupiterError
from jupiter.export.source import from_model
from jupiter.export.writer import plan_export, write_export
from jupiter.models.folder import sha256_file

IDS = [3, 17, 42, 99, 150, 7, 64, 201]


def export(ref: Path, fmt: str, out: Path, console: Console, quant: str | None = None) -> dict:
    source = from_model(str(ref), out.parent / "cache", console)
    return write_export(plan_export(fmt, out, quant), source, console).manifest


@pytest.fixture(scope="module")
def adapter(family_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LoRA adapter on the tiny Llama, B initialised at random so it changes the logits."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = family_dirs["llama"]
    out = tmp_path_factory.mktemp("adapter") / "adapter"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    config = LoraConfig(
        r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"], init_lora_weights=False
    )
    peft_model = get_peft_model(model, config)
    peft_model.peft_config["default"].base_model_name_or_path = str(base)
    peft_model.save_pretrained(out)
    AutoTokenizer.from_pretrained(base).save_pretrained(out)
    return out


def test_adapter_is_merged_into_its_base(
    adapter: Path, family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    from jupiter.models.loading import load_for_inference

    manifest = export(adapter, "hf", tmp_path / "merged", quiet)
    out = tmp_path / "merged"
    assert not (out / "adapter_config.json").exists() and (out / "model.safetensors").is_file()
    merged, _ = load_hf(out)  # plain transformers, no peft
    expected, _ = load_for_inference(adapter)
    base, _ = load_hf(family_dirs["llama"])
    torch.testing.assert_close(logits(merged, IDS), logits(expected, IDS), rtol=0, atol=1e-5)
    assert (logits(merged, IDS) - logits(base, IDS)).abs().max() > 1e-3  # the adapter counts
    src = manifest["source"]
    assert src["kind"] == "adapter" and src["path"] == str(adapter.resolve())
    assert src["weights_sha256"] == {
        "adapter_model.safetensors": sha256_file(adapter / "adapter_model.safetensors")
    }
    base_dir = family_dirs["llama"]
    assert src["base"] == {
        "path": str(base_dir.resolve()),
        "weights_sha256": {"model.safetensors": sha256_file(base_dir / "model.safetensors")},
    }
    assert manifest["hf"]["how"] == "adapter merged into its base"
    assert manifest["eval"] is None and "no evaluation is recorded" in manifest["eval_note"]
    assert set(manifest["files"]) == {p.name for p in out.iterdir()} - {"export.json"}
    for name, digest in manifest["files"].items():
        assert sha256_file(out / name) == digest


def test_full_model_copied_with_template_and_stop_tokens(
    family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    """A Gemma base without a chat template: weights copied byte for byte; the tokenizer
    gets Gemma's template and generation_config.json stops at <end_of_turn> too."""
    src = family_dirs["gemma3"]
    manifest = export(src, "hf", tmp_path / "g", quiet)
    out = tmp_path / "g"
    assert sha256_file(out / "model.safetensors") == sha256_file(src / "model.safetensors")
    _, tok = load_hf(out)
    assert tok.chat_template and "<start_of_turn>" in tok.chat_template
    eos = json.loads((out / "generation_config.json").read_text())["eos_token_id"]
    assert eos == [tok.eos_token_id, tok.convert_tokens_to_ids("<end_of_turn>")]
    assert manifest["hf"]["stop_tokens"] == ["<eos>", "<end_of_turn>"]
    assert manifest["hf"]["chat_template_added"] is True and manifest["hf"]["how"] == "copied"


def test_cast_to_bf16(family_dirs: dict[str, Path], tmp_path: Path, quiet: Console) -> None:
    export(family_dirs["qwen2"], "hf", tmp_path / "q", quiet, quant="bf16")
    with safe_open(tmp_path / "q" / "model.safetensors", framework="pt") as st:
        assert {st.get_tensor(k).dtype for k in st.keys()} == {torch.bfloat16}
    assert json.loads((tmp_path / "q" / "config.json").read_text())["dtype"] == "bfloat16"


def test_a_failed_export_leaves_the_old_output(
    family_dirs: dict[str, Path], tmp_path: Path, quiet: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "x"  # an earlier export: --force may replace it
    out.mkdir()
    (out / "keep.txt").write_text("old")
    (out / "export.json").write_text("{}")
    with pytest.raises(JupiterError, match="already exists"):
        export(family_dirs["llama"], "gguf", out, quiet)

    def broken(*args: object, **kwargs: object) -> None:
        Path(args[1]).write_bytes(b"half a file")  # type: ignore[arg-type]
        raise JupiterError("disk full")

    monkeypatch.setattr("jupiter.export.gguf.write_gguf", broken)
    source = from_model(str(family_dirs["llama"]), tmp_path / "cache", quiet)
    with pytest.raises(JupiterError, match="disk full"):
        write_export(plan_export("gguf", out, force=True), source, quiet)
    assert sorted(p.name for p in out.iterdir()) == ["export.json", "keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]  # no temp folder, no lock


def test_adapter_to_gguf_is_merged_first(adapter: Path, tmp_path: Path, quiet: Console) -> None:
    """--to gguf from an adapter: merged into its base in a scratch folder (deleted after),
    then written; the GGUF gives the merged model's logits."""
    from exportkit import reload_gguf

    from jupiter.models.loading import load_for_inference

    manifest = export(adapter, "gguf", tmp_path / "a", quiet, quant="f32")
    back, _ = reload_gguf(tmp_path / "a" / manifest["gguf"]["file"])
    expected, _ = load_for_inference(adapter)
    torch.testing.assert_close(logits(back, IDS), logits(expected, IDS), rtol=0, atol=1e-5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]  # no scratch left
