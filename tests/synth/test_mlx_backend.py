"""MLXBackend on tiny random models: greedy output token-for-token equal to transformers on
the same weights (so mlx-lm reads the parameters under the same names), batched equal to
alone, stop/length/seed semantics, and a PEFT LoRA adapter merged before loading."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("mlx.core", reason="needs mlx (pip install 'mlx[cpu]' on Linux)")
pytest.importorskip("mlx_lm", reason="needs mlx-lm (pip install mlx-lm)")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel  # noqa: E402

from jupiter.errors import JupiterError  # noqa: E402
from jupiter.synth.backend import Completion, Request, Sampling  # noqa: E402
from jupiter.synth.mlx_backend import MLXBackend, require_mlx, rope_overrides  # noqa: E402
from tinyhf import Family  # noqa: E402

pytestmark = pytest.mark.mlx

QUESTION = ({"role": "user", "content": "What does str.split do?"},)
SYSTEM_CHAT = (
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "How do I join paths with os.path?"},
)
PROMPT = "def add(a, b):\n    return"


def run(backend: MLXBackend, requests: Sequence[Request]) -> list[Completion]:
    return asyncio.run(backend.complete(requests))


def greedy(max_tokens: int = 16, stop: tuple[str, ...] = ()) -> Sampling:
    return Sampling(max_tokens=max_tokens, temperature=0.0, stop=stop)


@pytest.fixture(scope="module")
def backends(tiny_model_dirs: dict[Family, Path]) -> dict[Family, MLXBackend]:
    """One loaded backend per family, shared by the tests of this module."""
    out = {f: MLXBackend(d, max_batch=4) for f, d in tiny_model_dirs.items()}
    for b in out.values():
        asyncio.run(b.check())
    return out


def hf_reference(
    model: PreTrainedModel, model_dir: Path, request: Request
) -> tuple[list[int], list[int], str]:
    """(prompt ids, greedy new ids up to and with eos, their text) from transformers, fp32."""
    tok = AutoTokenizer.from_pretrained(model_dir)
    if request.messages is not None:
        text = tok.apply_chat_template(
            [dict(m) for m in request.messages], add_generation_prompt=True, tokenize=False
        )
        ids = tok.encode(text, add_special_tokens=False)
    else:
        ids = tok.encode(request.prompt)
    with torch.no_grad():
        out = model.generate(
            torch.tensor([ids]),
            do_sample=False,
            max_new_tokens=request.sampling.max_tokens,
            eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id or tok.eos_token_id,
        )
    new = out[0, len(ids) :].tolist()
    kept = [t for t in new if t != tok.eos_token_id]
    return ids, new, tok.decode(kept, skip_special_tokens=True, clean_up_tokenization_spaces=False)


def assert_same(got: Completion, ref: tuple[list[int], list[int], str], max_tokens: int) -> None:
    ids, new, text = ref
    assert got.prompt_tokens == len(ids)
    assert got.completion_tokens == len(new)
    assert got.text == text
    assert got.finish_reason == ("length" if len(new) == max_tokens else "stop")


@pytest.mark.parametrize("family", ["llama", "mistral", "qwen2"])
def test_greedy_equals_transformers(
    family: Family, tiny_model_dirs: dict[Family, Path], backends: dict[Family, MLXBackend]
) -> None:
    model_dir = tiny_model_dirs[family]
    hf = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    requests = [
        Request(messages=QUESTION, sampling=greedy(20)),
        Request(prompt=PROMPT, sampling=greedy(12)),
    ]
    got = run(backends[family], requests)
    for completion, request in zip(got, requests, strict=True):
        ref = hf_reference(hf, model_dir, request)
        assert len(ref[1]) > 3  # a real continuation, not an immediate eos
        assert_same(completion, ref, request.sampling.max_tokens)
    # The chat went through the family's template: the prompt is longer than the question.
    assert got[0].prompt_tokens > len(AutoTokenizer.from_pretrained(model_dir).encode("x"))


def test_batch_equals_single(backends: dict[Family, MLXBackend]) -> None:
    backend = backends["llama"]
    requests = [
        Request(messages=QUESTION, sampling=greedy(14)),
        Request(prompt=PROMPT, sampling=greedy(9)),
        Request(messages=SYSTEM_CHAT, sampling=greedy(20)),
    ]
    batched = run(backend, requests)
    alone = [run(backend, [r])[0] for r in requests]
    assert batched == alone
    assert len({c.prompt_tokens for c in batched}) == 3  # unequal lengths: padding exercised
    assert len({c.text for c in batched}) == 3

    # Concurrent calls queue on the lock and still answer each their own request.
    async def both() -> list[list[Completion]]:
        return list(await asyncio.gather(*(backend.complete([r]) for r in requests)))

    assert [c[0] for c in asyncio.run(both())] == alone


def test_length_and_stop(backends: dict[Family, MLXBackend]) -> None:
    backend = backends["llama"]
    full = run(backend, [Request(messages=QUESTION, sampling=greedy(16))])[0]
    assert full.finish_reason == "length" and full.completion_tokens == 16

    short = run(backend, [Request(messages=QUESTION, sampling=greedy(5))])[0]
    assert short.finish_reason == "length"
    assert short.completion_tokens == 5
    assert full.text.startswith(short.text) and len(short.text) < len(full.text)

    # A plain two-letter stop string from past the start of the text.
    text = full.text
    at = next(
        i
        for i in range(3, len(text) - 1)
        if text[i : i + 2].isascii() and text[i : i + 2].isalpha()
    )
    stop = text[at : at + 2]
    cut = text[: text.index(stop)]
    assert cut
    got = run(backend, [Request(messages=QUESTION, sampling=greedy(16, stop=("zzzq", stop)))])[0]
    assert got.text == cut
    assert got.finish_reason == "stop"
    assert got.completion_tokens < 16
    assert got.prompt_tokens == full.prompt_tokens

    nothing = run(backend, [Request(prompt=PROMPT, sampling=greedy(0))])[0]
    assert nothing == Completion("", "length", nothing.prompt_tokens, 0)
    assert nothing.prompt_tokens > 0


def test_seeded_sampling_reproducible(backends: dict[Family, MLXBackend]) -> None:
    backend = backends["llama"]

    def sampled(seed: int | None) -> Request:
        return Request(
            messages=QUESTION,
            sampling=Sampling(max_tokens=16, temperature=1.0, top_p=0.9, seed=seed),
        )

    first = run(backend, [sampled(7)])[0]
    again = run(backend, [sampled(7)])[0]
    assert first == again
    assert first.completion_tokens == 16 or first.finish_reason == "stop"
    # The same seed in a batch with other requests draws the same tokens.
    mixed = run(backend, [Request(prompt=PROMPT, sampling=greedy(8)), sampled(7), sampled(None)])
    assert mixed[1] == first
    others = {run(backend, [sampled(seed)])[0].text for seed in (8, 9, 10)}
    assert first.text not in others
    # Sampling differs from greedy on a random model at temperature 1.
    assert first.text != run(backend, [Request(messages=QUESTION, sampling=greedy(16))])[0].text


def make_adapter(base_dir: Path, out: Path) -> PreTrainedModel:
    """A PEFT LoRA adapter on `base_dir` with random lora_B (so it changes the output),
    saved at `out`; returns the same adapter merged in torch."""
    peft = pytest.importorskip("peft")
    base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    config = peft.LoraConfig(
        r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"], task_type="CAUSAL_LM"
    )
    model = peft.get_peft_model(base, config)
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.3)
    model.save_pretrained(out)
    return model.merge_and_unload().eval()  # type: ignore[no-any-return]


def test_lora_adapter_matches_merged_torch(
    tmp_path: Path, tiny_model_dirs: dict[Family, Path], backends: dict[Family, MLXBackend]
) -> None:
    base_dir = tiny_model_dirs["llama"]
    adapter_dir = tmp_path / "adapter"
    merged = make_adapter(base_dir, adapter_dir)
    assert (adapter_dir / "adapter_config.json").is_file()
    assert not (adapter_dir / "config.json").exists()

    backend = MLXBackend(adapter_dir)
    request = Request(messages=QUESTION, sampling=greedy(16))
    got = run(backend, [request])[0]
    assert_same(got, hf_reference(merged, base_dir, request), 16)
    assert got.text != run(backends["llama"], [request])[0].text  # the adapter took effect

    merged_dir = backend._merged
    assert merged_dir is not None and (merged_dir / "config.json").is_file()
    asyncio.run(backend.close())
    assert not merged_dir.exists()  # the temp merge goes with the backend


def test_check_missing_dir(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(JupiterError, match="no-such-model") as err:
        asyncio.run(MLXBackend(missing).check())
    assert "Hugging Face model dir" in str(err.value)
    assert "\n" not in str(err.value)

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(JupiterError, match="no config.json"):
        asyncio.run(MLXBackend(empty).complete([Request(prompt="hi")]))

    assert MLXBackend(missing).name == "mlx"
    assert MLXBackend(missing, max_batch=3).max_batch == 3
    assert MLXBackend(missing).model == str(missing)


def test_rope_parameters_reach_mlx(tmp_path: Path, tiny_model_dirs: dict[Family, Path]) -> None:
    # transformers>=5 nests RoPE settings; mlx-lm reads the top-level keys only.
    assert rope_overrides(tiny_model_dirs["qwen2"]) == {"rope_theta": 10000.0}
    llama3 = {"rope_type": "llama3", "rope_theta": 5e5, "factor": 8.0, "low_freq_factor": 1.0}
    (tmp_path / "config.json").write_text(json.dumps({"rope_parameters": llama3}))
    assert rope_overrides(tmp_path) == {"rope_theta": 5e5, "rope_scaling": llama3}
    (tmp_path / "config.json").write_text(json.dumps({"rope_theta": 1e4, "rope_scaling": None}))
    assert rope_overrides(tmp_path) == {}


def test_missing_mlx_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlx_lm", None)  # makes `import mlx_lm` fail
    with pytest.raises(JupiterError, match='pip install "mlx-lm"') as err:
        require_mlx()
    if sys.platform.startswith("linux"):
        assert '"mlx[cpu]"' in str(err.value)


def test_a_base_model_gets_its_family_template_and_stops_at_its_turn_end(
    tmp_path: Path,
) -> None:
    from jupiter.data.templates import NAMED
    from tinyhf import save_tiny_base

    backend = MLXBackend(save_tiny_base("llama3", tmp_path / "base"))
    asyncio.run(backend.check())
    assert backend._loaded is not None
    _, tok = backend._loaded
    assert tok.chat_template == NAMED["llama3"]
    assert tok.convert_tokens_to_ids("<|eot_id|>") in tok.eos_token_ids
    assert tok.eos_token_id in tok.eos_token_ids
