"""The Modelfile: the chat template translated by family into Ollama's Go template syntax
(checked by rendering it with Go's text/template where Go is installed), stop tokens,
SYSTEM, and what is written when a template cannot be translated."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from jupiter.data.templates import NAMED
from jupiter.errors import JupiterError
from jupiter.export.ollama import modelfile, translate
from tinyhf import tiny_base_tokenizer, tiny_tokenizer

GO_RENDER = Path(__file__).with_name("gotemplate") / "main.go"
CHATS = [
    [{"role": "user", "content": "Hi there"}],
    [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Again?"},
    ],
    [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ],
]
QWEN_LIKE = (  # ChatML that writes a system message of its own when none is given
    "{%- if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are Qwen, a "
    "helpful assistant.<|im_end|>\\n' }}{%- endif %}{% for m in messages %}<|im_start|>"
    "{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}"
    "<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    from jupiter.data.tokenizer import train_tokenizer
    from tinyhf import CORPUS

    gemma = tiny_base_tokenizer("gemma")
    gemma.chat_template = NAMED["gemma"]
    return {
        "jupiter": train_tokenizer(CORPUS, 300, tmp_path_factory.mktemp("tok")),
        "chatml": tiny_tokenizer("qwen2"),
        "llama3": tiny_tokenizer("llama"),
        "mistral": tiny_tokenizer("mistral"),
        "gemma": gemma,
    }


def test_each_family_is_recognised(tokenizers: dict[str, object]) -> None:
    for family, tok in tokenizers.items():
        t = translate(tok, add_bos=False)
        assert (t.family, t.default_system, t.note) == (family, "", "")
        bos = tok.bos_token or ""  # these tokenizers add no bos: the template writes it
        assert t.template is not None and t.template.startswith(bos + "{{- ")


def test_chatml_modelfile_exactly(tokenizers: dict[str, object]) -> None:
    t = translate(tokenizers["chatml"], add_bos=False)
    text = modelfile(
        "qwen-q8_0.gguf",
        t,
        ["<|im_end|>", 'say "x"'],
        "You are terse.",
        "ollama create qwen -f /m/Modelfile",
    )
    assert text == (
        "# Written by `jupiter export`. Create the Ollama model with:\n"
        "#   ollama create qwen -f /m/Modelfile\n"
        "FROM ./qwen-q8_0.gguf\n"
        'TEMPLATE """{{- range .Messages }}<|im_start|>{{ .Role }}\n'
        "{{ .Content }}<|im_end|>\n"
        "{{ end }}<|im_start|>assistant\n"
        '"""\n'
        'PARAMETER stop "<|im_end|>"\n'
        'PARAMETER stop "say \\"x\\""\n'
        'SYSTEM """You are terse."""\n'
    )


def test_gemma_with_bos_added_by_llama_cpp(tokenizers: dict[str, object]) -> None:
    """A tokenizer that adds bos itself (Gemma's, Llama 3's) gets no bos in the template:
    llama.cpp puts it there, once."""
    t = translate(tokenizers["gemma"], add_bos=True)
    assert t.template == (
        '{{- $system := "" }}{{- range .Messages }}{{- if eq .Role "system" }}'
        '{{ $system = .Content }}{{- else if eq .Role "assistant" }}<start_of_turn>model\n'
        "{{ .Content }}<end_of_turn>\n{{ else }}<start_of_turn>{{ .Role }}\n"
        "{{ if $system }}{{ $system }}\n\n{{ end }}{{ .Content }}<end_of_turn>\n"
        '{{ $system = "" }}{{ end }}{{ end }}<start_of_turn>model\n'
    )


def test_a_default_system_message_becomes_system(tokenizers: dict[str, object]) -> None:
    tok = tiny_tokenizer("qwen2")
    tok.chat_template = QWEN_LIKE
    t = translate(tok, add_bos=False)
    assert t.family == "chatml" and t.default_system == "You are Qwen, a helpful assistant."
    text = modelfile("m.gguf", t, ["<|im_end|>"], "", "ollama create m -f Modelfile")
    assert text.endswith('SYSTEM """You are Qwen, a helpful assistant."""\n')
    text = modelfile("m.gguf", t, ["<|im_end|>"], "Domain prompt.", "ollama create m -f Modelfile")
    assert text.endswith('SYSTEM """Domain prompt."""\n')  # the domain's own wins


def test_an_untranslatable_template_is_said(tokenizers: dict[str, object]) -> None:
    tok = tiny_tokenizer("qwen2")
    tok.chat_template = (
        "{% for m in messages %}### {{ m['role'] }}: {{ m['content'] }}\n{% endfor %}### assistant:"
    )
    t = translate(tok, add_bos=False)
    assert t.family is None and t.template is None
    assert "renders like none of jupiter, chatml, gemma, llama3, mistral" in t.note
    text = modelfile("m.gguf", t, ["<|im_end|>"], "", "ollama create m -f Modelfile")
    assert "TEMPLATE" not in text.replace("# No TEMPLATE", "")
    assert "# No TEMPLATE: the chat template renders like none of" in text
    assert "FROM ./m.gguf\n" in text and 'PARAMETER stop "<|im_end|>"\n' in text


def test_triple_quotes_in_the_system_prompt_are_refused(tokenizers: dict[str, object]) -> None:
    t = translate(tokenizers["chatml"], add_bos=False)
    with pytest.raises(JupiterError, match='contains """, which a Modelfile cannot hold'):
        modelfile("m.gguf", t, [], 'Say """hi"""', "ollama create m -f Modelfile")


@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed")
def test_go_templates_render_as_the_jinja_ones(
    tokenizers: dict[str, object], tmp_path: Path
) -> None:
    """Each Go template, run by Go's text/template as Ollama runs it, renders every chat as
    the model's own Jinja template does (or, where that refuses a system message, as the
    family's reference template, which folds it into the first user turn)."""
    render = tmp_path / "render"
    subprocess.run(["go", "build", "-o", str(render), str(GO_RENDER)], check=True, timeout=300)
    for family, tok in tokenizers.items():
        template = translate(tok, add_bos=False).template
        for chat in CHATS:
            try:
                want = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
            except Exception:  # noqa: BLE001 - Mistral's own template takes no system
                want = tok.apply_chat_template(
                    chat, chat_template=NAMED[family], tokenize=False, add_generation_prompt=True
                )
            got = subprocess.run(
                [str(render)],
                input=json.dumps({"template": template, "messages": chat}),
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            ).stdout
            assert got == want, (family, chat)
