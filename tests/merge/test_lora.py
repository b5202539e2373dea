"""LoRA adapters: merged in delta space (a full model out) and concatenated to a higher rank
(an adapter out) give the same effective weights, which are the hand-computed
base + sum_i w_i s_i B_i A_i; PEFT loads the concatenated adapter."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from mergefamily import read

from jupiter.errors import JupiterError
from jupiter.merge.engine import merge_models
from jupiter.merge.lora import AdapterWeights
from jupiter.merge.recipe import parse_recipe
from jupiter.merge.shards import ModelWeights


def save_adapter(base: Path, out: Path, r: int, alpha: int, targets: list[str], seed: int) -> Path:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(base)
    # init_lora_weights=False: B is random too, so the adapter's delta is not zero
    cfg = LoraConfig(r=r, lora_alpha=alpha, target_modules=targets, init_lora_weights=False)
    get_peft_model(model, cfg).save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def adapters(family: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two adapters of the family's base: rank 4 on q/v, rank 2 on q/o (different targets)."""
    root = tmp_path_factory.mktemp("adapters")
    return [
        save_adapter(family["base"], root / "a1", 4, 8, ["q_proj", "v_proj"], seed=1),
        save_adapter(family["base"], root / "a2", 2, 4, ["q_proj", "o_proj"], seed=2),
    ]


def merge(recipe: dict, out: Path) -> dict:
    return merge_models(
        parse_recipe({**recipe, "out": str(out)}), base_dir=None, cache_dir=out.parent / "cache"
    )


def ab(adapter: Path, module: str) -> tuple[torch.Tensor, torch.Tensor]:
    t = read(adapter)
    key = f"base_model.model.{module}"
    return t[f"{key}.lora_A.weight"], t[f"{key}.lora_B.weight"]


def test_delta_merge_by_hand(family: dict[str, Path], adapters: list[Path], tmp_path: Path) -> None:
    models = [
        {"model": str(adapters[0]), "weight": 0.7},
        {"model": str(adapters[1]), "weight": 0.3},
    ]
    info = merge({"method": "weighted", "models": models}, tmp_path / "delta")
    assert info["output"]["kind"] == "model" and info["inputs_kind"] == "adapter"
    out, base = read(tmp_path / "delta"), read(family["base"])
    q = "model.layers.0.self_attn.q_proj"
    a1, b1 = ab(adapters[0], q)
    a2, b2 = ab(adapters[1], q)
    want = base[f"{q}.weight"] + 0.7 * (8 / 4) * b1 @ a1 + 0.3 * (4 / 2) * b2 @ a2
    assert torch.allclose(out[f"{q}.weight"], want, atol=1e-6)
    o = "model.layers.1.self_attn.o_proj"  # only the second adapter targets o_proj
    a2, b2 = ab(adapters[1], o)
    assert torch.allclose(out[f"{o}.weight"], base[f"{o}.weight"] + 0.3 * 2 * b2 @ a2, atol=1e-6)
    k = "model.layers.0.self_attn.k_proj.weight"  # neither adapter touches k_proj
    assert torch.equal(out[k], base[k])
    assert (tmp_path / "delta" / "config.json").is_file()
    assert (tmp_path / "delta" / "tokenizer.json").is_file()


def test_concat_equals_delta_merge(
    family: dict[str, Path], adapters: list[Path], tmp_path: Path
) -> None:
    models = [
        {"model": str(adapters[0]), "weight": 0.7},
        {"model": str(adapters[1]), "weight": 0.3},
    ]
    merge({"method": "weighted", "models": models}, tmp_path / "delta")
    info = merge({"method": "weighted", "models": models, "lora": "concat"}, tmp_path / "cat")
    assert info["output"]["kind"] == "adapter" and info["output"]["rank"] == 4 + 2
    base = ModelWeights(family["base"])
    concat = AdapterWeights(tmp_path / "cat", base)
    delta = read(tmp_path / "delta")
    assert {t.rank for t in concat.targets.values()} == {6}
    worst = max(float((concat.read(n) - delta[n]).abs().max()) for n in base.names())
    assert worst <= 1e-6, worst
    # PEFT reads the concatenated adapter: the same logits as the delta-merged model
    from jupiter.models.loading import load_for_inference

    ids = torch.tensor([[1, 5, 9, 2, 7]])
    m_cat, _ = load_for_inference(tmp_path / "cat")
    m_delta, _ = load_for_inference(tmp_path / "delta")
    with torch.no_grad():
        assert torch.allclose(m_cat(ids).logits, m_delta(ids).logits, atol=1e-5)


def test_task_arithmetic_concat_and_ties_in_delta_space(
    family: dict[str, Path], adapters: list[Path], tmp_path: Path
) -> None:
    models = [
        {"model": str(adapters[0]), "weight": 1.0},
        {"model": str(adapters[1]), "weight": 0.5},
    ]
    recipe = {"method": "task_arithmetic", "models": models, "params": {"lambda": 0.8}}
    merge(recipe, tmp_path / "ta")
    merge({**recipe, "lora": "concat"}, tmp_path / "ta-cat")
    concat = AdapterWeights(tmp_path / "ta-cat", ModelWeights(family["base"]))
    ta = read(tmp_path / "ta")
    assert max(float((concat.read(n) - ta[n]).abs().max()) for n in ta) <= 1e-6
    # TIES works on adapters through their deltas; the result is a full model
    info = merge({"method": "ties", "models": models, "params": {"density": 0.5}}, tmp_path / "t")
    assert info["output"]["kind"] == "model"
    with pytest.raises(JupiterError, match="lora: concat sums"):
        merge({"method": "ties", "models": models, "lora": "concat"}, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
