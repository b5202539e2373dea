"""LocalLM's batched decode and TransformersBackend on the tiny random models of tinyhf.py."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

import pytest

from jupiter.data.chat import fold_system
from jupiter.errors import JupiterError
from jupiter.models.decode import LocalLM, nucleus
from jupiter.synth.backend import Backend, Completion, Request, Sampling
from jupiter.synth.transformers_backend import TransformersBackend

CHATS = [
    [{"role": "user", "content": "What does str.split do?"}],
    [{"role": "user", "content": "hello"}],
    [{"role": "user", "content": "def add(a, b): return a + b. Explain the list.append method."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "for i in range"}],
]
GREEDY = Sampling(max_tokens=24, temperature=0.0)


@pytest.fixture(scope="module")
def lms(tiny_model_dirs: dict[str, Path]) -> dict[str, LocalLM]:
    return {family: LocalLM(path, device="cpu") for family, path in tiny_model_dirs.items()}


def prompts(lm: LocalLM) -> list[list[int]]:
    return [lm.chat_ids(chat) for chat in CHATS]


def single(lm: LocalLM, prompt: list[int], sampling: Sampling) -> tuple[str, list[int]]:
    out = lm.generate([prompt], [sampling])[0]
    return out.text, out.token_ids


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_greedy_batch_equals_single(lms: dict[str, LocalLM], family: str) -> None:
    lm = lms[family]
    batch = lm.generate(prompts(lm), [GREEDY] * len(CHATS))
    for prompt, out in zip(prompts(lm), batch, strict=True):
        assert (out.text, out.token_ids) == single(lm, prompt, GREEDY)
        assert out.prompt_tokens == len(prompt)
        assert out.completion_tokens == len(out.token_ids) > 0
    # the prompts differ, so the rows are not copies of one answer
    assert len({out.text for out in batch}) > 1


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_seeded_sampling_batch_equals_single(lms: dict[str, LocalLM], family: str) -> None:
    lm = lms[family]
    # a mixed batch: seeded rows with their own temperatures next to a greedy row
    params = [
        Sampling(max_tokens=24, temperature=1.0, seed=1),
        Sampling(max_tokens=24, temperature=0.7, seed=2),
        GREEDY,
        Sampling(max_tokens=24, temperature=1.3, seed=3),
    ]
    batch = lm.generate(prompts(lm), params)
    for prompt, sampling, out in zip(prompts(lm), params, batch, strict=True):
        assert (out.text, out.token_ids) == single(lm, prompt, sampling)
    # sampling is not greedy, and the seed decides the draw
    p0 = prompts(lm)[0]
    assert batch[0].token_ids != single(lm, p0, GREEDY)[1]
    assert single(lm, p0, Sampling(max_tokens=24, temperature=1.0, seed=99))[1] != (
        batch[0].token_ids
    )


def test_top_p_keeps_the_most_likely_token(lms: dict[str, LocalLM]) -> None:
    import torch

    probs = torch.tensor([0.1, 0.5, 0.15, 0.25])
    assert nucleus(probs.clone(), 0.7).tolist() == [0.0, 0.5, 0.0, 0.25]
    assert nucleus(probs.clone(), 1.0).tolist() == probs.tolist()
    # a tiny top_p leaves only the argmax: sampling becomes greedy, whatever the seed
    lm = lms["llama"]
    p = prompts(lm)[2]
    narrow = Sampling(max_tokens=24, temperature=1.0, top_p=1e-6, seed=5)
    assert single(lm, p, narrow) == single(lm, p, GREEDY)


def test_stop_string_cuts_text_and_stream(lms: dict[str, LocalLM]) -> None:
    lm = lms["llama"]
    p = prompts(lm)[0]
    full, _ = single(lm, p, GREEDY)
    stop = full[6:9]
    cut = full[: full.index(stop)]
    streamed: list[str] = []
    out = lm.generate(
        [p],
        [Sampling(max_tokens=24, temperature=0.0, stop=(stop, "never appears"))],
        on_text=lambda row, delta: streamed.append(delta),
    )[0]
    assert out.text == cut
    assert out.finish_reason == "stop"
    assert "".join(streamed) == cut
    assert out.completion_tokens < 24


def test_max_tokens_ends_with_length(lms: dict[str, LocalLM]) -> None:
    lm = lms["qwen2"]
    out = lm.generate([prompts(lm)[1]], [Sampling(max_tokens=7, temperature=0.0)])[0]
    assert out.finish_reason == "length"
    assert out.completion_tokens == 7 == len(out.token_ids)


def test_eos_ends_with_stop(tiny_model_dirs: dict[str, Path]) -> None:
    lm = LocalLM(tiny_model_dirs["mistral"], device="cpu")
    p = lm.chat_ids(CHATS[0])
    first = single(lm, p, GREEDY)[1][0]
    lm.eos_ids = {first}  # the token the model picks first now ends its turn
    out = lm.generate([p], [GREEDY])[0]
    assert (out.text, out.finish_reason, out.token_ids, out.completion_tokens) == (
        "",
        "stop",
        [first],
        1,
    )


def test_on_text_streams_each_row(lms: dict[str, LocalLM]) -> None:
    lm = lms["qwen2"]
    deltas: dict[int, list[str]] = defaultdict(list)
    outs = lm.generate(prompts(lm)[:3], [GREEDY] * 3, on_text=lambda i, d: deltas[i].append(d))
    for i, out in enumerate(outs):
        assert "".join(deltas[i]) == out.text
        assert len(deltas[i]) > 3  # piece by piece, not once at the end


def test_long_prompt_is_cut_from_the_left_keeping_bos(lms: dict[str, LocalLM]) -> None:
    lm = lms["llama"]
    long_chat = [{"role": "user", "content": "hello world python code " * 200}]
    ids = lm.chat_ids(long_chat)
    assert len(ids) > lm.context
    out = lm.generate([ids], [GREEDY])[0]
    assert out.prompt_tokens == lm.context - 1
    # one position is left in the context: one token, then "length"
    assert (out.completion_tokens, out.finish_reason) == (1, "length")
    assert lm._fit(ids)[0] == lm.tokenizer.bos_token_id == ids[0]


def test_system_message_is_folded_for_mistral(lms: dict[str, LocalLM]) -> None:
    lm = lms["mistral"]
    assert lm.chat_ids(CHATS[3]) == lm.chat_ids(fold_system(CHATS[3]))
    # the generation prompt is there: the rendered chat ends with [/INST]
    assert lm.tokenizer.decode(lm.chat_ids(CHATS[1])).endswith("[/INST]")


def test_empty_prompt_is_refused(lms: dict[str, LocalLM]) -> None:
    lm = lms["qwen2"]  # no bos: an empty text is no tokens at all
    with pytest.raises(JupiterError, match="no tokens"):
        lm.request_ids(Request(prompt=""))


def test_backend_completes_chat_and_prompt(
    tiny_model_dirs: dict[str, Path], lms: dict[str, LocalLM]
) -> None:
    backend = TransformersBackend(tiny_model_dirs["llama"], max_batch=2, device="cpu")
    assert isinstance(backend, Backend)
    assert (backend.name, backend.model, backend.max_batch) == (
        "transformers",
        str(tiny_model_dirs["llama"]),
        2,
    )
    assert backend._lm is None  # nothing loaded until needed
    lm = lms["llama"]
    requests = [
        Request(messages=tuple(CHATS[0]), sampling=GREEDY),
        Request(prompt="def add(a, b):", sampling=Sampling(max_tokens=5, temperature=0.0)),
        Request(messages=tuple(CHATS[2]), sampling=Sampling(max_tokens=9, temperature=0.8, seed=4)),
    ]

    async def run() -> list[Completion]:
        await backend.check()
        try:
            return await backend.complete(requests)
        finally:
            await backend.close()

    got = asyncio.run(run())
    want = [lm.generate([lm.request_ids(r)], [r.sampling])[0] for r in requests]
    assert got == [
        Completion(w.text, w.finish_reason, w.prompt_tokens, w.completion_tokens) for w in want
    ]
    assert (got[2].completion_tokens, got[2].finish_reason) == (9, "length")
    assert got[1].prompt_tokens == len(lm.prompt_ids("def add(a, b):"))


def test_backend_check_names_a_missing_dir(tmp_path: Path) -> None:
    missing = tmp_path / "no-model"
    backend = TransformersBackend(missing)
    with pytest.raises(JupiterError, match=str(missing)) as err:
        asyncio.run(backend.check())
    assert "Hugging Face model dir" in str(err.value)
