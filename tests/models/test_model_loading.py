"""Loading HF causal LMs for full / LoRA / QLoRA training, and adapters back for inference."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, PreTrainedModel

from jupiter.config import LoraConfig
from jupiter.errors import JupiterError
from jupiter.models import loading
from jupiter.models.folder import is_adapter_dir
from jupiter.models.loading import (
    attention_impl,
    load_adapter_weights,
    load_for_inference,
    load_for_training,
    merge_adapter,
    trainable_parameters,
)
from tinyhf import FAMILIES, Family

CPU = torch.device("cpu")
PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
LORA = LoraConfig(r=8, alpha=16, dropout=0.0)


def config_of(model_dir: Path) -> dict:
    return json.loads((model_dir / "config.json").read_text())


def projection_shapes(c: dict) -> dict[str, tuple[int, int]]:
    """(in, out) of every projection in one decoder layer, from the HF config."""
    h, i = c["hidden_size"], c["intermediate_size"]
    head = c.get("head_dim") or h // c["num_attention_heads"]
    q, kv = c["num_attention_heads"] * head, c["num_key_value_heads"] * head
    return {
        "q_proj": (h, q),
        "k_proj": (h, kv),
        "v_proj": (h, kv),
        "o_proj": (q, h),
        "gate_proj": (h, i),
        "up_proj": (h, i),
        "down_proj": (i, h),
    }


def base_params(c: dict, family: Family) -> int:
    """Parameter count of the tiny model from its shapes (Qwen2 has q/k/v biases)."""
    shapes = projection_shapes(c)
    h, v = c["hidden_size"], c["vocab_size"]
    layer = sum(a * b for a, b in shapes.values()) + 2 * h
    if family == "qwen2":
        layer += shapes["q_proj"][1] + 2 * shapes["k_proj"][1]
    return c["num_hidden_layers"] * layer + 2 * v * h + h  # untied embedding and head


def lora_params(c: dict, r: int) -> int:
    return c["num_hidden_layers"] * sum(r * (a + b) for a, b in projection_shapes(c).values())


def logits(model: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        out: torch.Tensor = model(input_ids=ids).logits
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_lora_trains_only_adapters_on_every_projection(
    tiny_model_dirs: dict[Family, Path], family: Family
) -> None:
    d = tiny_model_dirs[family]
    c = config_of(d)
    model = load_for_training(d, "lora", LORA, device=CPU)
    assert model.training
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trainable and all(".lora_A." in n or ".lora_B." in n for n in trainable)
    # Every projection of every layer carries both adapter matrices, with rank 8.
    layers, shapes = c["num_hidden_layers"], projection_shapes(c)
    for layer in range(layers):
        for proj, (fan_in, fan_out) in shapes.items():
            group = "self_attn" if proj in PROJECTIONS[:4] else "mlp"
            stem = f"base_model.model.model.layers.{layer}.{group}.{proj}"
            a = model.get_parameter(f"{stem}.lora_A.default.weight")
            b = model.get_parameter(f"{stem}.lora_B.default.weight")
            assert a.shape == (8, fan_in) and b.shape == (fan_out, 8)
            assert a.requires_grad and b.requires_grad and a.dtype == torch.float32
    assert len(trainable) == 2 * len(PROJECTIONS) * layers
    for name, p in model.named_parameters():
        if "embed_tokens" in name or "lm_head" in name:
            assert not p.requires_grad, name
    expected = lora_params(c, 8)
    assert trainable_parameters(model) == (expected, base_params(c, family) + expected)
    # The adapter config names the base by absolute path, whatever the working directory.
    assert model.peft_config["default"].base_model_name_or_path == str(d.resolve())


def assert_head_multiplies_one_matrix(model: torch.nn.Module, ids: torch.Tensor) -> None:
    """The merged model's frozen head, given the strided last-position slice that decoding
    passes it, runs one matrix product (a batched one copies the weight once per row) and
    gives the logits the whole sequence's forward gives."""
    head = model.get_output_embeddings()
    assert not head.weight.requires_grad  # the case torch.matmul does not fold by itself
    with torch.inference_mode():
        hidden = model(input_ids=ids, output_hidden_states=True).hidden_states[-1]
        last = hidden[:, -1:, :]
        assert not last.is_contiguous()
        with torch.profiler.profile() as prof:
            out = head(last)
        ops = {e.name for e in prof.events()}
        assert "aten::bmm" not in ops and ops & {"aten::mm", "aten::addmm"}, ops
        assert out.shape == (ids.shape[0], 1, model.config.vocab_size)
        torch.testing.assert_close(out, logits(model, ids)[:, -1:], atol=1e-5, rtol=0)
        kept = model(input_ids=ids, logits_to_keep=1).logits
        torch.testing.assert_close(kept, out, atol=1e-5, rtol=0)


def test_lora_steps_save_and_load_back(tiny_model_dirs: dict[Family, Path], tmp_path: Path) -> None:
    from peft import PeftModel

    d = tiny_model_dirs["mistral"]
    model = load_for_training(d, "lora", LORA, device=CPU)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-2)
    gen = torch.Generator().manual_seed(0)
    for _ in range(3):
        ids = torch.randint(0, model.config.vocab_size, (2, 12), generator=gen)
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    for name, p in model.named_parameters():
        if p.requires_grad:
            assert not torch.equal(p, before[name]), f"{name} did not change"
        else:
            assert torch.equal(p, before[name]), f"frozen {name} changed"

    ids = torch.randint(0, model.config.vocab_size, (2, 10), generator=gen)
    want = logits(model.eval(), ids)
    adapter = tmp_path / "adapter"
    model.save_pretrained(adapter, safe_serialization=True)
    assert (adapter / "adapter_model.safetensors").is_file() and is_adapter_dir(adapter)
    assert not is_adapter_dir(d)
    saved = json.loads((adapter / "adapter_config.json").read_text())
    assert saved["base_model_name_or_path"] == str(d.resolve())

    merged, tok = load_for_inference(adapter)
    assert not merged.training and not hasattr(merged, "peft_config")
    assert tok.eos_token == "</s>" and tok.chat_template  # the base's tokenizer
    torch.testing.assert_close(logits(merged, ids), want, atol=1e-5, rtol=0)
    assert_head_multiplies_one_matrix(merged, ids)

    plain = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(d), adapter).eval()
    torch.testing.assert_close(logits(plain, ids), want, atol=1e-5, rtol=0)

    # Resuming: a fresh training model takes the saved adapter weights back exactly.
    resumed = load_for_training(d, "lora", LORA, device=CPU)
    load_adapter_weights(resumed, adapter)
    torch.testing.assert_close(logits(resumed.eval(), ids), want, atol=0, rtol=0)
    with pytest.raises(JupiterError, match="train.lora.r"):
        load_adapter_weights(load_for_training(d, "lora", LoraConfig(r=4), device=CPU), adapter)

    out = merge_adapter(adapter, tmp_path / "merged")
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    assert not is_adapter_dir(out)
    reread = AutoModelForCausalLM.from_pretrained(out).eval()
    torch.testing.assert_close(logits(reread, ids), want, atol=1e-5, rtol=0)


def test_adapter_base_resolution_and_tokenizer(
    tiny_model_dirs: dict[Family, Path], tmp_path: Path
) -> None:
    d = tiny_model_dirs["qwen2"]
    adapter = tmp_path / "run" / "adapter"
    load_for_training(d, "lora", LORA, device=CPU).save_pretrained(adapter)
    cfg_path = adapter / "adapter_config.json"
    cfg = json.loads(cfg_path.read_text())
    # A base named relative to the adapter dir loads.
    cfg["base_model_name_or_path"] = os.path.relpath(d, adapter)
    cfg_path.write_text(json.dumps(cfg))
    model, tok = load_for_inference(adapter)
    assert isinstance(model, PreTrainedModel) and tok.eos_token == "<|im_end|>"
    # Tokenizer files in the adapter dir win over the base's.
    tok.chat_template = "{{ 'adapter template' }}"
    tok.save_pretrained(adapter)
    assert load_for_inference(adapter)[1].chat_template == "{{ 'adapter template' }}"
    # A missing base is named, with the fix.
    cfg["base_model_name_or_path"] = str(tmp_path / "gone")
    cfg_path.write_text(json.dumps(cfg))
    with pytest.raises(JupiterError, match="needs its base model .*gone.*missing"):
        load_for_inference(adapter)
    with pytest.raises(JupiterError, match="missing"):
        merge_adapter(adapter, tmp_path / "merged")


def test_plain_dir_for_inference(tiny_model_dirs: dict[Family, Path]) -> None:
    model, tok = load_for_inference(tiny_model_dirs["llama"], dtype=torch.bfloat16)
    assert not model.training and next(model.parameters()).dtype == torch.bfloat16
    assert tok.eos_token == "<|eot_id|>"


def test_full_is_all_trainable_fp32(tiny_model_dirs: dict[Family, Path]) -> None:
    d = tiny_model_dirs["llama"]
    model = load_for_training(d, "full", LORA, device=CPU, base_dtype=torch.bfloat16)
    assert model.training and not hasattr(model, "peft_config")
    assert all(p.requires_grad and p.dtype == torch.float32 for p in model.parameters())
    n = base_params(config_of(d), "llama")
    assert trainable_parameters(model) == (n, n)


def test_lora_base_dtype(tiny_model_dirs: dict[Family, Path]) -> None:
    model = load_for_training(
        tiny_model_dirs["llama"], "lora", LORA, device=CPU, base_dtype=torch.bfloat16
    )
    for name, p in model.named_parameters():
        assert p.dtype == (torch.float32 if p.requires_grad else torch.bfloat16), name


def test_qlora_quantizes_and_trains_adapters(tiny_model_dirs: dict[Family, Path]) -> None:
    import bitsandbytes as bnb

    d = tiny_model_dirs["llama"]
    c = config_of(d)
    model = load_for_training(d, "qlora", LORA, device=CPU)
    four_bit = [n for n, m in model.named_modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert len(four_bit) == len(PROJECTIONS) * c["num_hidden_layers"]
    assert not isinstance(model.get_output_embeddings(), bnb.nn.Linear4bit)
    quant = model.base_model.model.config.quantization_config
    assert quant.bnb_4bit_quant_type == "nf4" and quant.bnb_4bit_use_double_quant
    assert quant.bnb_4bit_compute_dtype == torch.bfloat16
    expected = lora_params(c, 8)
    # 4-bit weights count as the weights they stand for.
    assert trainable_parameters(model) == (expected, base_params(c, "llama") + expected)
    ids = torch.randint(0, c["vocab_size"], (2, 12), generator=torch.Generator().manual_seed(0))
    model(input_ids=ids, labels=ids).loss.backward()
    # lora_B starts at zero, so lora_A's first gradient is zero by construction; B's is not.
    b_grads = [p.grad for n, p in model.named_parameters() if ".lora_B." in n]
    assert len(b_grads) == len(four_bit)
    assert all(g is not None and g.abs().sum() > 0 for g in b_grads)


def test_missing_optional_packages(
    tiny_model_dirs: dict[Family, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tiny_model_dirs["llama"]
    monkeypatch.setitem(sys.modules, "bitsandbytes", None)
    with pytest.raises(JupiterError, match="pip install bitsandbytes"):
        load_for_training(d, "qlora", LORA, device=CPU)
    monkeypatch.setitem(sys.modules, "peft", None)
    with pytest.raises(JupiterError, match="pip install peft"):
        load_for_training(d, "lora", LORA, device=CPU)


def test_not_a_model_dir(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match=f"no config.json.*{re.escape(tmp_path.name)}"):
        load_for_training(tmp_path, "full", LORA, device=CPU)
    with pytest.raises(JupiterError, match=re.escape(str(tmp_path / "nope"))):
        load_for_inference(tmp_path / "nope")


@pytest.mark.parametrize("method", ["full", "lora"])
def test_gradient_checkpointing_same_loss_and_grads(
    tiny_model_dirs: dict[Family, Path], method: str
) -> None:
    d = tiny_model_dirs["llama"]
    lora = LoraConfig(r=8, alpha=16, dropout=0.0)
    ids = torch.randint(0, 300, (2, 16), generator=torch.Generator().manual_seed(1))
    runs = []
    for ckpt in (False, True):
        torch.manual_seed(0)  # the same LoRA init both times
        model = load_for_training(d, method, lora, device=CPU, gradient_checkpointing=ckpt)  # type: ignore[arg-type]
        with torch.no_grad():  # non-zero B, so that lora_A gets a gradient too
            for name, p in model.named_parameters():
                if ".lora_B." in name:
                    p.normal_(std=0.02)
        # transformers checkpoints a layer's forward: the recompute enters its children again.
        mlp = model.get_decoder().layers[0].mlp
        calls: list[int] = []
        mlp.register_forward_pre_hook(lambda *_, calls=calls: calls.append(1))
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
        runs.append((loss.detach(), grads, len(calls)))
    (loss0, g0, calls0), (loss1, g1, calls1) = runs
    assert (calls0, calls1) == (1, 2)  # the backward recomputed the layer
    torch.testing.assert_close(loss1, loss0, atol=1e-5, rtol=0)
    assert g0.keys() == g1.keys() and len(g0) > 0
    for name in g0:
        assert g0[name].abs().sum() > 0, name
        torch.testing.assert_close(g1[name], g0[name], atol=1e-5, rtol=0)


def test_attention_choice(
    tiny_model_dirs: dict[Family, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert attention_impl("auto", CPU) == "sdpa"
    assert attention_impl("eager", CPU) == "eager"
    with pytest.raises(JupiterError, match="unknown model.attention"):
        attention_impl("fast", CPU)
    monkeypatch.setitem(sys.modules, "flash_attn", None)
    loading._has_flash_attn.cache_clear()
    try:
        assert attention_impl("auto", torch.device("cuda")) == "sdpa"
        with pytest.raises(JupiterError, match="pip install flash-attn"):
            attention_impl("flash_attention_2", torch.device("cuda"))
    finally:
        loading._has_flash_attn.cache_clear()
    d = tiny_model_dirs["mistral"]
    eager = load_for_training(d, "full", LORA, device=CPU, attention="eager")
    assert eager.config._attn_implementation == "eager"
    auto = load_for_training(d, "lora", LORA, device=CPU)
    assert auto.config._attn_implementation == "sdpa"
