"""ModelGenerator on a tiny random Llama with a tokenizer trained in the test."""

from __future__ import annotations

import inspect
import json
import os.path
from pathlib import Path

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from jupiter.config import GeneratorConfig
from jupiter.data.tokenizer import train_tokenizer
from jupiter.records import Chunk
from jupiter.synth import load_generator
from jupiter.synth.model import ModelGenerator

QUESTIONS = [
    "What does `json.dumps` do?",
    "Which arguments does `os.path.join` take?",
    "Explain the for statement in Python, with an example of a loop over a list of numbers.",
    "Why?",
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny-model")
    texts = [inspect.getdoc(o) or "" for o in (json, json.dumps, json.loads, os.path)] * 3
    tok = train_tokenizer(texts, 400, out)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=128,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(out)
    assert (out / "model.safetensors").is_file()
    return out


@pytest.fixture(scope="module")
def gen(model_dir: Path) -> ModelGenerator:
    return ModelGenerator(model_dir, "model:cycle-001", max_new_tokens=12, batch_size=4)


def test_batched_answers_equal_one_by_one(gen: ModelGenerator) -> None:
    batched = gen.answer(QUESTIONS)
    single = [gen.answer([q])[0] for q in QUESTIONS]
    assert len(batched) == len(QUESTIONS)
    assert all(isinstance(a, str) for a in batched)
    assert batched == single
    assert gen.answer([]) == []


def test_greedy_answers_are_deterministic(model_dir: Path, gen: ModelGenerator) -> None:
    other = ModelGenerator(model_dir, "model:other", max_new_tokens=12, batch_size=2)
    assert other.answer(QUESTIONS) == gen.answer(QUESTIONS)


def test_prompt_uses_the_chat_template_and_is_cut_from_the_left(gen: ModelGenerator) -> None:
    tok = gen.tokenizer
    ids = gen.prompt_ids("What does `json.dumps` do?", 10_000)
    text = tok.decode(ids)
    assert text.startswith("<|bos|><|user|>\nWhat does `json.dumps` do?<|end|>\n")
    assert text.endswith("<|assistant|>\n") and text.count("<|bos|>") == 1
    cut = gen.prompt_ids("word " * 200, 20)
    assert len(cut) == 20 and cut[0] == tok.bos_token_id
    assert tok.decode(cut).endswith("<|assistant|>\n")
    # a question far longer than the context still gets answered
    [answer] = gen.answer(["word " * 500])
    assert isinstance(answer, str)


def test_system_prompt_goes_first(model_dir: Path) -> None:
    g = ModelGenerator(model_dir, "m", system_prompt="You are a Python expert.")
    text = g.tokenizer.decode(g.prompt_ids("Hi?", 10_000))
    assert text.startswith("<|bos|><|system|>\nYou are a Python expert.<|end|>\n<|user|>\n")


def test_answer_stops_at_eos(gen: ModelGenerator) -> None:
    tok = gen.tokenizer
    hello = tok("Serialize obj", add_special_tokens=False)["input_ids"]
    rest = tok(" never shown", add_special_tokens=False)["input_ids"]
    row = [*hello, gen.eos_id, *rest, gen.pad_id]
    assert gen.decode_answer(row) == "Serialize obj"


def test_choose_is_the_argmax_of_choice_logprobs(gen: ModelGenerator) -> None:
    question = "What does `json.dumps` do?"
    choices = [
        "Serialize obj to a JSON formatted str.",
        "Return an absolute path.",
        "A",
        "Deserialize s, a str or bytes instance containing a JSON document, to a Python object.",
        "Return an absolute path.",
    ]
    scores = gen.choice_logprobs(question, choices)
    assert len(scores) == len(choices) and all(s < 0 for s in scores)
    assert scores[1] == pytest.approx(scores[4], abs=1e-5)  # same choice, same score
    assert gen.choose(question, choices) == max(range(len(scores)), key=lambda i: scores[i])
    # the batch size does not change the scores
    small = ModelGenerator.__new__(ModelGenerator)
    small.__dict__.update(gen.__dict__, batch_size=1)
    assert small.choice_logprobs(question, choices) == pytest.approx(scores, abs=1e-5)


def test_choice_logprobs_by_hand(gen: ModelGenerator) -> None:
    question, choice = "Why?", "Because it is."
    prompt = gen.prompt_ids(question, 10_000)
    c_ids = gen.tokenizer(choice, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        logits = gen.model(input_ids=torch.tensor([prompt + c_ids])).logits[0]
    logp = torch.log_softmax(logits, dim=-1)
    want = sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(c_ids)) / len(c_ids)
    assert gen.choice_logprobs(question, [choice])[0] == pytest.approx(want, abs=1e-5)


@pytest.mark.parametrize("kind", ["llama", "gemma"])
def test_choices_after_answers_read_the_answers_prefill(
    kind: str, model_dir: Path, tmp_path: Path
) -> None:
    """A multiple-choice question asked with a prompt just answered scores its choices from
    that answer's prefill (cut out of the left-padded batch's cache): one forward instead of
    two, and the same scores as from a prefill of its own. Gemma's sliding-window layers
    (window 64 here) keep a cache of a long batch short: nothing is taken from it then."""
    from support.tinyhf import save_tiny_base

    path = model_dir if kind == "llama" else save_tiny_base("gemma", tmp_path / "gemma")
    g = ModelGenerator(path, "m", max_new_tokens=5, batch_size=4)
    calls: list[int] = []
    g.model.register_forward_pre_hook(lambda *_: calls.append(1))
    choices = ["Serialize obj to a JSON formatted str.", "A", "Return an absolute path.", "x y"]
    # Gemma: prompts of 30, 39 and 15 tokens, 5 new tokens inside its window
    asked = QUESTIONS if kind == "llama" else [QUESTIONS[i] for i in (0, 1, 3)]
    cold = [g.choice_logprobs(q, choices) for q in asked]
    assert len(calls) == 2 * len(asked)  # each: the prompt's prefill, then the choices
    g.answer(asked)  # prompts of different lengths: left padding
    assert sorted(g.prefills) == sorted(tuple(g.prompt_ids(q, 10_000)) for q in asked)
    calls.clear()
    warm = [g.choice_logprobs(q, choices) for q in asked]
    assert len(calls) == len(asked) and g.prefills == {}  # each prefill read once
    for a, b in zip(warm, cold, strict=True):
        assert a == pytest.approx(b, rel=1e-4, abs=1e-4)
    # with a prompt of 64 tokens, Gemma's sliding layers kept the last 63 positions: no
    # prefill is taken from that batch, and the scores hold
    g.answer([QUESTIONS[2], asked[0]])
    assert len(g.prefills) == (2 if kind == "llama" else 0)
    calls.clear()
    again = g.choice_logprobs(asked[0], choices)
    assert again == pytest.approx(cold[0], rel=1e-4, abs=1e-4)
    assert len(calls) == (1 if kind == "llama" else 2)


def test_generate_answers_the_template_questions(
    model_dir: Path, gen: ModelGenerator, stdlib_chunks: list[Chunk]
) -> None:
    cfg = GeneratorConfig(
        type="model", model_path=str(model_dir), max_questions_per_chunk=2, continuation=True
    )
    examples = list(gen.generate(stdlib_chunks, 2, cfg, limit=6))
    assert len(examples) == 6
    assert all(e.kind == "qa" and e.generator == "model:cycle-001" for e in examples)
    assert all(e.cycle == 2 and e.template != "continuation" for e in examples)
    # the same questions as the extractive generator asks, in the same order
    from jupiter.synth import ExtractiveGenerator

    extractive = ExtractiveGenerator(stdlib_chunks).generate(
        stdlib_chunks, 2, cfg.model_copy(update={"continuation": False}), limit=6
    )
    assert [e.question for e in examples] == [e.question for e in extractive]
    assert [e.answer for e in examples] == gen.answer([e.question for e in examples])
    loaded = load_generator("model", stdlib_chunks, str(model_dir), "model:cycle-002", cfg)
    assert isinstance(loaded, ModelGenerator) and loaded.id == "model:cycle-002"
    assert loaded.dtype == "float32"
    # the generate stage passes the eval's dtype: a promoted model writes as it sat the exam
    half = load_generator("model", stdlib_chunks, str(model_dir), "m", cfg, dtype="bfloat16")
    assert isinstance(half, ModelGenerator) and half.dtype == "bfloat16"


# ----------------------------------------------- eval's dtype: auto follows the CPU's bf16
@pytest.mark.parametrize(("native", "want"), [(True, "bfloat16"), (False, "float32")])
def test_auto_dtype_is_bf16_on_a_cpu_that_runs_it(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch, native: bool, want: str
) -> None:
    from jupiter.models import decode

    monkeypatch.setattr(decode, "cpu_runs_bf16", lambda: native)
    g = ModelGenerator(model_dir, "m", dtype="auto", device="cpu")
    assert g.dtype == want and next(g.model.parameters()).dtype == getattr(torch, want)
    # an explicit dtype wins; the default (the generator's) stays fp32
    assert ModelGenerator(model_dir, "m", dtype="float32", device="cpu").dtype == "float32"
    assert ModelGenerator(model_dir, "m", device="cpu").dtype == "float32"
    # serve, chat and batch keep fp32 on any CPU for "auto"
    assert decode.torch_dtype("auto", torch.device("cpu")) == torch.float32


@pytest.mark.parametrize(
    ("capability", "cpuinfo", "want"),
    [
        ("AVX512", "flags\t\t: fpu avx512f avx512_bf16 amx_tile\n", True),  # this CI host
        ("AVX512", "flags\t\t: fpu avx512f avx512_vnni\n", False),  # Cascade Lake: emulated
        ("AMX", "flags\t\t: fpu\n", True),
        ("AVX2", "flags\t\t: fpu avx2\n", False),
        ("DEFAULT", None, False),  # no /proc/cpuinfo (macOS)
    ],
)
def test_cpu_runs_bf16_reads_the_flags(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capability: str,
    cpuinfo: str | None,
    want: bool,
) -> None:
    from jupiter.models import decode
    from jupiter.train.setup import autocast_dtype

    info = tmp_path / "cpuinfo"
    if cpuinfo is not None:
        info.write_text(cpuinfo)
    monkeypatch.setattr(decode, "CPUINFO", info)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)
    decode.cpu_runs_bf16.cache_clear()
    try:
        assert decode.cpu_runs_bf16() is want
        # training's autocast follows the same rule
        assert autocast_dtype("auto", torch.device("cpu")) == (torch.bfloat16 if want else None)
    finally:
        decode.cpu_runs_bf16.cache_clear()
