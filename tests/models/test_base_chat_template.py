"""A base model without a chat template (tiny random Gemma 3, Llama 3 vocabulary): every
inference path renders with the template training uses, and stops at its turn-end token;
model dirs Jupiter writes list that token in generation_config.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from transformers import PreTrainedModel

from jupiter.data.templates import NAMED
from jupiter.errors import JupiterError
from jupiter.models.decode import LocalLM
from jupiter.models.folder import save_model_dir
from jupiter.models.loading import load_for_inference
from jupiter.serve.chat import ChatSession
from jupiter.synth.backend import Sampling
from jupiter.synth.model import ModelGenerator
from tinyhf import BaseKind, save_tiny_base

QUESTION = [{"role": "user", "content": "What does list.append do?"}]
TURN_END: dict[BaseKind, str] = {"gemma": "<end_of_turn>", "llama3": "<|eot_id|>"}


@pytest.fixture(scope="module")
def base_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[BaseKind, Path]:
    root = tmp_path_factory.mktemp("tiny-base")
    return {k: save_tiny_base(k, root / k) for k in ("gemma", "llama3")}


def rig(model: PreTrainedModel, token: int) -> None:
    """The output head replaced by one whose argmax is always `token`."""
    head = model.get_output_embeddings()
    assert isinstance(head, torch.nn.Linear)
    rigged = torch.nn.Linear(head.in_features, head.out_features, bias=True)
    with torch.no_grad():
        rigged.weight.zero_()
        rigged.bias.zero_()
        rigged.bias[token] = 10.0
    model.set_output_embeddings(rigged)


@pytest.mark.parametrize("kind", ["gemma", "llama3"])
def test_load_for_inference_gives_the_family_template(
    base_dirs: dict[BaseKind, Path], kind: BaseKind
) -> None:
    _, tok = load_for_inference(base_dirs[kind])
    assert tok.chat_template == NAMED[kind]
    _, forced = load_for_inference(base_dirs[kind], chat_template="mistral")
    assert forced.chat_template == NAMED["mistral"]
    with pytest.raises(JupiterError, match="chatml needs <\\|im_start\\|>"):
        load_for_inference(base_dirs[kind], chat_template="chatml")


@pytest.mark.parametrize("kind", ["gemma", "llama3"])
def test_local_lm_stops_at_the_turn_end(base_dirs: dict[BaseKind, Path], kind: BaseKind) -> None:
    lm = LocalLM(base_dirs[kind], device="cpu")
    end = lm.tokenizer.convert_tokens_to_ids(TURN_END[kind])
    assert end != lm.tokenizer.eos_token_id and end in lm.eos_ids
    prompt = lm.chat_ids(QUESTION)
    if kind == "gemma":
        assert lm.tokenizer.decode(prompt).endswith("<end_of_turn>\n<start_of_turn>model\n")
    rig(lm.model, end)
    out = lm.generate([prompt], [Sampling(max_tokens=8, temperature=0.0)])[0]
    assert (out.text, out.finish_reason, out.token_ids) == ("", "stop", [end])


def test_model_generator_and_chat_stop_at_the_turn_end(base_dirs: dict[BaseKind, Path]) -> None:
    gen = ModelGenerator(
        base_dirs["gemma"], "base", max_new_tokens=8, device="cpu", system_prompt="Answer briefly."
    )
    end = gen.tokenizer.convert_tokens_to_ids("<end_of_turn>")
    text = gen.tokenizer.decode(gen.prompt_ids("Why?", 100))
    assert (
        text
        == "<bos><start_of_turn>user\nAnswer briefly.\n\nWhy?<end_of_turn>\n<start_of_turn>model\n"
    )
    rig(gen.model, end)
    assert gen.answer(["Why?"]) == [""]
    assert (
        gen.decode_answer([*gen.tokenizer("yes", add_special_tokens=False)["input_ids"], end, 5])
        == "yes"
    )
    chat = ChatSession(base_dirs["gemma"], "Answer briefly.", max_new_tokens=8)
    rig(chat.model, end)
    assert chat.reply("Why?") == ""


def test_saved_model_dir_carries_template_and_stop_tokens(
    base_dirs: dict[BaseKind, Path], tmp_path: Path
) -> None:
    model, tok = load_for_inference(base_dirs["gemma"])
    out = save_model_dir(tmp_path / "student", model, tok)
    end = tok.convert_tokens_to_ids("<end_of_turn>")
    saved = json.loads((out / "generation_config.json").read_text())
    assert saved["eos_token_id"] == sorted([tok.eos_token_id, end])
    # a plain transformers load sees the template, without Jupiter's auto
    from transformers import AutoTokenizer, GenerationConfig

    assert AutoTokenizer.from_pretrained(out).chat_template == NAMED["gemma"]
    assert end in GenerationConfig.from_pretrained(out).eos_token_id
