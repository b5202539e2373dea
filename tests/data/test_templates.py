"""Chat templates for base models (model.chat_template): the named templates render as their
reference formats, `auto` picks the family's template only when its turn tokens exist, the
turn-end token is trained and counts as a stop token, and the config refuses what it cannot
use with the fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_chat_templates import A1, A2, CHAT, trained_spans
from test_chat_templates import Q1 as U1
from test_chat_templates import Q2 as U2
from test_chat_templates import SYSTEM as S
from transformers import PreTrainedTokenizerFast

from jupiter.config import CHAT_TEMPLATES, load_domain
from jupiter.data.chat import IGNORE, encode_chat, pad_id_for, preflight
from jupiter.data.templates import (
    NAMED,
    set_chat_template,
    stop_token_ids,
    turn_end_token,
    write_stop_tokens,
)
from jupiter.data.tokenizer import CHAT_TEMPLATE
from jupiter.errors import JupiterError
from tinyhf import tiny_base_tokenizer, tiny_tokenizer


def gemma() -> PreTrainedTokenizerFast:
    tok = tiny_base_tokenizer("gemma")
    assert set_chat_template(tok, "auto", "gemma3_text") == "<end_of_turn>"
    return tok


def llama3() -> PreTrainedTokenizerFast:
    tok = tiny_base_tokenizer("llama3")
    assert set_chat_template(tok, "auto", "llama") == "<|eot_id|>"
    return tok


def render(tok: PreTrainedTokenizerFast, chat: list[dict[str, str]], prompt: bool = False) -> str:
    text = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=prompt)
    assert isinstance(text, str)
    return text


# ------------------------------------------------------------------------- rendering
def test_config_lists_the_named_templates() -> None:
    assert set(CHAT_TEMPLATES) == {"auto", *NAMED}


def test_gemma_renders_the_reference_format() -> None:
    tok = gemma()
    turn = "<start_of_turn>{}\n{}<end_of_turn>\n"
    assert render(tok, CHAT[1:3]) == "<bos>" + turn.format("user", U1) + turn.format("model", A1)
    # the system message is folded into the first user turn; assistant renders as "model"
    assert render(tok, CHAT) == "<bos>" + "".join(
        [
            turn.format("user", f"{S}\n\n{U1}"),
            turn.format("model", A1),
            turn.format("user", U2),
            turn.format("model", A2),
        ]
    )
    assert render(tok, CHAT[:2], prompt=True) == (
        "<bos>" + turn.format("user", f"{S}\n\n{U1}") + "<start_of_turn>model\n"
    )


def test_llama3_renders_the_reference_format_with_content_stripped() -> None:
    tok = llama3()
    chat = [
        {"role": "system", "content": S},
        {"role": "user", "content": f"  {U1}\n"},
        {"role": "assistant", "content": f"{A1} "},
    ]
    head = "<|start_header_id|>{}<|end_header_id|>\n\n{}<|eot_id|>"
    assert render(tok, chat) == "<|begin_of_text|>" + "".join(
        head.format(r, c) for r, c in (("system", S), ("user", U1), ("assistant", A1))
    )
    assert render(tok, chat[:2], prompt=True).endswith(
        head.format("user", U1) + "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_chatml_and_mistral_render_their_reference_formats() -> None:
    qwen = tiny_tokenizer("qwen2")
    qwen.chat_template = None
    assert set_chat_template(qwen, "chatml") == "<|im_end|>"
    assert render(qwen, CHAT[:3]) == "".join(
        f"<|im_start|>{r}\n{c}<|im_end|>\n"
        for r, c in (("system", S), ("user", U1), ("assistant", A1))
    )
    mistral = tiny_tokenizer("mistral")
    mistral.chat_template = None
    assert set_chat_template(mistral, "auto", "mistral") == "</s>"
    assert render(mistral, CHAT[1:3]) == f"<s>[INST] {U1} [/INST]{A1}</s>"
    assert render(mistral, CHAT[:3]) == f"<s>[INST] {S}\n\n{U1} [/INST]{A1}</s>"


# ----------------------------------------------------------------- choosing a template
def test_auto_keeps_a_tokenizers_own_template() -> None:
    tok = tiny_tokenizer("qwen2")
    own = tok.chat_template
    assert set_chat_template(tok, "auto", "gemma3") == "<|im_end|>"
    assert tok.chat_template == own


def test_auto_falls_back_to_the_generic_template_without_the_familys_tokens() -> None:
    # a llama model whose vocabulary has no <|eot_id|> is no Llama 3: generic template
    tok = tiny_base_tokenizer("gemma")
    assert set_chat_template(tok, "auto", "llama") == "<eos>"
    assert tok.chat_template == CHAT_TEMPLATE
    assert render(tok, CHAT[1:3]) == f"<bos><|user|>\n{U1}<eos>\n<|assistant|>\n{A1}<eos>\n"
    unknown = tiny_base_tokenizer("llama3")
    set_chat_template(unknown, "auto", None)
    assert unknown.chat_template == CHAT_TEMPLATE


def test_a_named_template_needs_its_tokens() -> None:
    with pytest.raises(JupiterError, match="gemma needs <start_of_turn>, <end_of_turn>.*auto"):
        set_chat_template(tiny_base_tokenizer("llama3"), "gemma")


def test_a_jinja_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "mine.jinja"
    path.write_text(NAMED["gemma"], encoding="utf-8")
    tok = tiny_base_tokenizer("gemma")
    assert set_chat_template(tok, str(path)) == "<end_of_turn>"
    assert tok.chat_template == NAMED["gemma"]
    with pytest.raises(JupiterError, match="gone.jinja cannot be read"):
        set_chat_template(tok, str(tmp_path / "gone.jinja"))
    with pytest.raises(JupiterError, match="unknown chat template 'phi'"):
        set_chat_template(tok, "phi")


def domain(tmp_path: Path, template: str) -> str:
    path = tmp_path / "d.yaml"
    path.write_text(
        f"name: x\nsources: [{{type: python_stdlib}}]\nmodel: {{chat_template: {template}}}\n"
    )
    return str(path)


def test_config_resolves_a_template_path_and_refuses_bad_ones(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "chat.jinja").write_text(NAMED["chatml"], encoding="utf-8")
    cfg = load_domain(domain(tmp_path, "t/chat.jinja"))
    assert cfg.chat_template() == str((tmp_path / "t" / "chat.jinja").resolve())
    assert load_domain(domain(tmp_path, "gemma")).chat_template() == "gemma"
    with pytest.raises(
        JupiterError, match=r"d\.yaml: model\.chat_template: .*nope\.jinja not found"
    ):
        load_domain(domain(tmp_path, "nope.jinja"))
    with pytest.raises(
        JupiterError, match=r"d\.yaml: model\.chat_template: unknown chat template.*gemma"
    ):
        load_domain(domain(tmp_path, "gemini"))


# ------------------------------------------------------------------ training and stops
@pytest.mark.parametrize(
    ("make", "end", "eos"),
    [(gemma, "<end_of_turn>", "<eos>"), (llama3, "<|eot_id|>", "<|end_of_text|>")],
)
def test_the_loss_covers_each_answer_and_its_turn_end_only(
    make: Callable[[], PreTrainedTokenizerFast], end: str, eos: str
) -> None:
    tok = make()
    ids, labels = encode_chat(tok, CHAT)
    assert trained_spans(tok, ids, labels) == [A1 + end, A2 + end]
    end_id = tok.convert_tokens_to_ids(end)
    for i, t in enumerate(ids):
        if t == end_id and labels[i] != IGNORE:
            # nothing after the turn end is trained (Gemma's "\n", the next turn)
            assert i + 1 == len(ids) or labels[i + 1] == IGNORE
    assert tok.convert_tokens_to_ids(eos) not in ids


def test_preflight_accepts_a_turn_end_other_than_eos() -> None:
    tok = gemma()
    out = preflight(tok, CHAT)
    assert f"⟦{A1}<end_of_turn>⟧" in out and f"⟦{A2}<end_of_turn>⟧" in out
    assert out.endswith("turn end '<end_of_turn>' trained: yes")


def test_preflight_refuses_turns_ending_with_neither_eos_nor_a_turn_end() -> None:
    tok = tiny_base_tokenizer("gemma")
    tok.chat_template = NAMED["gemma"].replace("<end_of_turn>", "")
    assert turn_end_token(tok) is None
    with pytest.raises(JupiterError, match="eos token '<eos>'.*learn to stop.*chat_template"):
        preflight(tok, CHAT)


def test_stop_tokens_and_pad() -> None:
    tok = gemma()
    eos, end = tok.eos_token_id, tok.convert_tokens_to_ids("<end_of_turn>")
    assert stop_token_ids(tok) == sorted([eos, end])
    assert stop_token_ids(tok, [None, [7, eos]]) == sorted([eos, end, 7])
    assert pad_id_for(tok) == tok.pad_token_id
    tok.pad_token = "<end_of_turn>"  # a pad that is a stop token is not used
    assert pad_id_for(tok) not in (eos, end)


def test_generation_config_lists_every_stop_token(tmp_path: Path) -> None:
    tok = gemma()
    (tmp_path / "generation_config.json").write_text(json.dumps({"eos_token_id": 1}))
    write_stop_tokens(tmp_path, tok)
    saved = json.loads((tmp_path / "generation_config.json").read_text())
    assert saved["eos_token_id"] == [tok.eos_token_id, tok.convert_tokens_to_ids("<end_of_turn>")]
    write_stop_tokens(tmp_path / "absent", tok)  # no generation config: nothing to do


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{% for m in messages %}{{ m.content }", "line 1"),
        (b"{% if %}", "line 1"),
        ("{{ 'caf\xe9' }}".encode("latin-1"), "not UTF-8"),
    ],
)
def test_a_template_file_that_does_not_parse_is_refused_when_read(
    tmp_path: Path, data: bytes, message: str
) -> None:
    """A Jinja syntax error surfaced at the first chat (serve served, chat exited 0 on empty
    stdin), and a latin-1 file was a raw UnicodeDecodeError."""
    from jupiter.data.templates import read_template
    from jupiter.errors import JupiterError

    path = tmp_path / "t.jinja"
    path.write_bytes(data)
    with pytest.raises(JupiterError, match=message) as err:
        read_template(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
