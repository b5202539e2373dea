"""Real chat templates (Llama-3, Mistral, Qwen2 ChatML): which tokens are trained, the
system prompt folded where a template has no system role, preflight and pad ids."""

from __future__ import annotations

import pytest
from transformers import PreTrainedTokenizerFast

from jupiter.data.chat import IGNORE, encode_chat, pad_id_for, preflight
from jupiter.errors import JupiterError
from tinyhf import FAMILIES, Family, tiny_tokenizer

SYSTEM, Q1, A1, Q2, A2 = (
    "You are a Python expert.",
    "What does list.append do?",
    "It adds one item to the end of a list.",
    "And dict.get?",
    "It returns a default when a key is missing.",
)
CHAT = [
    {"role": "system", "content": SYSTEM},
    {"role": "user", "content": Q1},
    {"role": "assistant", "content": A1},
    {"role": "user", "content": Q2},
    {"role": "assistant", "content": A2},
]


@pytest.fixture(scope="module")
def toks() -> dict[Family, PreTrainedTokenizerFast]:
    return {f: tiny_tokenizer(f) for f in FAMILIES}


def trained_spans(tok: PreTrainedTokenizerFast, ids: list[int], labels: list[int]) -> list[str]:
    """Decoded runs of consecutive trained tokens; trained labels must equal their ids."""
    spans: list[list[int]] = []
    prev = False
    for t, lab in zip(ids, labels, strict=True):
        if lab != IGNORE:
            assert lab == t
            if not prev:
                spans.append([])
            spans[-1].append(t)
        prev = lab != IGNORE
    return [tok.decode(s) for s in spans]


@pytest.mark.parametrize("family", FAMILIES)
def test_only_assistant_turns_and_their_eos_are_trained(
    toks: dict[Family, PreTrainedTokenizerFast], family: Family
) -> None:
    tok = toks[family]
    ids, labels = encode_chat(tok, CHAT)
    eos = tok.eos_token
    assert trained_spans(tok, ids, labels) == [A1 + eos, A2 + eos]
    assert sum(lab == tok.eos_token_id for lab in labels) == 2
    text = tok.decode(ids)
    assert text.index(SYSTEM) < text.index(Q1) < text.index(A1) < text.index(Q2)
    if family != "mistral":  # templates with a system role keep it as its own turn
        assert text == tok.apply_chat_template(CHAT, tokenize=False)
        assert "system" in text


def test_mistral_folds_the_system_prompt_and_trains_exactly_the_answers(
    toks: dict[Family, PreTrainedTokenizerFast],
) -> None:
    tok = toks["mistral"]
    ids, labels = encode_chat(tok, CHAT)
    expected = f"<s>[INST] {SYSTEM}\n\n{Q1} [/INST]{A1}</s>[INST] {Q2} [/INST]{A2}</s>"
    assert tok.decode(ids) == expected
    enc = tok(expected, add_special_tokens=False, return_offsets_mapping=True)
    assert enc["input_ids"] == ids
    # the tokens whose characters lie inside "{a}</s>", for each answer
    want = [IGNORE] * len(ids)
    for answer in (A1, A2):
        lo = expected.index(answer)
        hi = lo + len(answer) + len("</s>")
        span = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if lo <= a and b <= hi]
        assert tok.decode([ids[i] for i in span]) == answer + "</s>"
        assert span == list(range(span[0], span[-1] + 1))  # contiguous
        for i in span:
            want[i] = ids[i]
    assert labels == want


def test_a_template_refusal_that_folding_cannot_fix_is_a_clear_error(
    toks: dict[Family, PreTrainedTokenizerFast],
) -> None:
    two_users = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(JupiterError, match="chat template rejected a chat .*alternate"):
        encode_chat(toks["mistral"], two_users)


@pytest.mark.parametrize("family", FAMILIES)
def test_preflight_marks_the_trained_answer(
    toks: dict[Family, PreTrainedTokenizerFast], family: Family
) -> None:
    tok = toks[family]
    out = preflight(tok, CHAT)
    ids, labels = encode_chat(tok, CHAT)
    n_trained = sum(lab != IGNORE for lab in labels)
    assert f"⟦{A1}{tok.eos_token}⟧" in out and f"⟦{A2}{tok.eos_token}⟧" in out
    assert out.count("⟦") == 2
    # without the marks, the rendering is the chat exactly as trained; then the notes
    notes = 2 if family == "mistral" else 1
    rendering, *tail = out.rsplit("\n", notes)
    assert rendering.replace("⟦", "").replace("⟧", "") == tok.decode(ids)
    assert tail[-1].startswith(f"{len(ids)} tokens, {n_trained} trained (")
    assert tail[-1].endswith(f"eos {tok.eos_token!r} trained: yes")
    assert ("folded" in out) == (family == "mistral")


def test_preflight_refuses_a_template_whose_answers_do_not_end_with_eos(
    toks: dict[Family, PreTrainedTokenizerFast],
) -> None:
    tok = tiny_tokenizer("qwen2")
    # ChatML without <|im_end|>: turns end with a newline, the model never learns to stop
    tok.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    with pytest.raises(JupiterError, match="eos token '<\\|im_end\\|>'.*learn to stop"):
        preflight(tok, CHAT)


def test_preflight_refuses_a_tokenizer_without_eos() -> None:
    tok = tiny_tokenizer("llama")
    tok.eos_token = None
    assert tok.eos_token_id is None
    with pytest.raises(JupiterError, match="no eos token.*never stop"):
        preflight(tok, CHAT)


def test_preflight_refuses_a_chat_with_nothing_trained(
    toks: dict[Family, PreTrainedTokenizerFast],
) -> None:
    with pytest.raises(JupiterError, match="no token of the example is trained"):
        preflight(toks["qwen2"], [{"role": "user", "content": "hello"}])


def test_pad_id_is_never_eos(toks: dict[Family, PreTrainedTokenizerFast]) -> None:
    mistral, qwen2, llama = toks["mistral"], toks["qwen2"], toks["llama"]
    assert mistral.pad_token_id is None  # Mistral ships without a pad token: unk pads
    assert pad_id_for(mistral) == mistral.unk_token_id != mistral.eos_token_id
    assert pad_id_for(qwen2) == qwen2.pad_token_id == qwen2.convert_tokens_to_ids("<|endoftext|>")
    assert pad_id_for(llama) == llama.pad_token_id
    # pad set to eos (a common shortcut) and no unk: the lowest id that is not eos or bos
    eos_padded = tiny_tokenizer("llama")
    eos_padded.pad_token = eos_padded.eos_token
    assert (eos_padded.bos_token_id, eos_padded.eos_token_id) == (0, 1)
    assert pad_id_for(eos_padded) == 2
