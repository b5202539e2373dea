"""An Ollama Modelfile beside the GGUF: FROM the file, TEMPLATE in Ollama's Go-template
syntax, PARAMETER stop per stop token, SYSTEM from the domain's system prompt.

The chat template is translated by family, not parsed: the model's Jinja template and each
family's reference template (data/templates.py: jupiter's generic one, chatml, gemma,
llama3, mistral) render the same probe chats, and the family whose renderings match exactly
gives its Go template. A template that renders like a family plus a fixed system message
(Qwen2.5's "You are Qwen, …") is that family with that message as SYSTEM. Anything else is
said in the Modelfile and export.json, and the TEMPLATE line left out: Ollama then picks a
template itself from the GGUF's tokenizer.chat_template.

One difference stays: the Jinja templates of gemma and llama3 trim each message, and Ollama's
Go templates have no trim; a message with leading or trailing whitespace keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from jupiter.errors import JupiterError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

PROBE = [
    {"role": "user", "content": "First question?"},
    {"role": "assistant", "content": "First answer."},
    {"role": "user", "content": "Second question?"},
]
SYSTEM_PROBE = "Probe system message."
MARK = "\x00JUPITER-SYSTEM\x00"

# {eos}: the tokenizer's eos text. System messages with no role of their own (gemma,
# mistral) are folded into the next user turn as "system\n\nuser", as the Jinja ones do.
FOLD_START = (
    '{{- $system := "" }}{{- range .Messages }}{{- if eq .Role "system" }}{{ $system = .Content }}'
)
GO_TEMPLATES = {
    "jupiter": "{{- range .Messages }}<|{{ .Role }}|>\n{{ .Content }}{eos}\n{{ end }}<|assistant|>\n",
    "chatml": "{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}"
    "<|im_start|>assistant\n",
    "llama3": "{{- range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n"
    "{{ .Content }}<|eot_id|>{{ end }}<|start_header_id|>assistant<|end_header_id|>\n\n",
    "gemma": FOLD_START + '{{- else if eq .Role "assistant" }}<start_of_turn>model\n'
    "{{ .Content }}<end_of_turn>\n{{ else }}<start_of_turn>{{ .Role }}\n"
    "{{ if $system }}{{ $system }}\n\n{{ end }}{{ .Content }}<end_of_turn>\n"
    '{{ $system = "" }}{{ end }}{{ end }}<start_of_turn>model\n',
    "mistral": FOLD_START + '{{- else if eq .Role "assistant" }}{{ .Content }}{eos}'
    "{{- else }}[INST] {{ if $system }}{{ $system }}\n\n{{ end }}{{ .Content }} [/INST]"
    '{{ $system = "" }}{{ end }}{{ end }}',
}


@dataclass(frozen=True)
class Translation:
    family: str | None  # None: no family renders like the model's template
    template: str | None  # the Go template
    default_system: str = ""  # a system message the Jinja template writes when none is given
    note: str = ""


def _render(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, str]], template: str | None = None
) -> str | None:
    from jinja2.exceptions import TemplateError

    try:
        text = tokenizer.apply_chat_template(
            messages, chat_template=template, tokenize=False, add_generation_prompt=True
        )
    except (TemplateError, ValueError, TypeError, KeyError, IndexError):
        return None
    return text if isinstance(text, str) else None


def _families() -> dict[str, str]:
    from jupiter.data.templates import NAMED
    from jupiter.data.tokenizer import CHAT_TEMPLATE

    return {"jupiter": CHAT_TEMPLATE, **NAMED}


def _default_system(tokenizer: PreTrainedTokenizerBase, jinja: str, plain: str) -> str | None:
    """The system message `jinja` must be given to render `plain` (the model's rendering of
    the probe without one), when there is one."""
    marked = _render(tokenizer, [{"role": "system", "content": MARK}, *PROBE], jinja)
    if marked is None or marked.count(MARK) != 1:
        return None
    pre, post = marked.split(MARK)
    if not (plain.startswith(pre) and plain.endswith(post)) or len(plain) < len(pre) + len(post):
        return None
    system = plain[len(pre) : len(plain) - len(post)]
    again = _render(tokenizer, [{"role": "system", "content": system}, *PROBE], jinja)
    return system if system and again == plain else None


def translate(tokenizer: PreTrainedTokenizerBase, add_bos: bool) -> Translation:
    """The Go template for the tokenizer's chat template, found by family (module doc).
    `add_bos`: the GGUF tells llama.cpp to put bos before the text itself."""
    if not tokenizer.chat_template:
        return Translation(None, None, note="the model has no chat template")
    plain = _render(tokenizer, PROBE)
    if plain is None:
        return Translation(
            None, None, note="the chat template fails on a plain user/assistant chat"
        )
    with_system = _render(tokenizer, [{"role": "system", "content": SYSTEM_PROBE}, *PROBE])
    for family, jinja in _families().items():
        reference = _render(tokenizer, [{"role": "system", "content": SYSTEM_PROBE}, *PROBE], jinja)
        if with_system is not None and with_system != reference:
            continue
        system = (
            ""
            if plain == _render(tokenizer, PROBE, jinja)
            else _default_system(tokenizer, jinja, plain)
        )
        if system is None:
            continue
        go = GO_TEMPLATES[family].replace("{eos}", str(tokenizer.eos_token or ""))
        bos = str(tokenizer.bos_token or "")
        if bos and plain.startswith(bos) and not add_bos:
            go = bos + go  # the template writes bos and llama.cpp will not add it
        return Translation(family, go, system)
    names = ", ".join(_families())
    return Translation(
        None,
        None,
        note=f"the chat template renders like none of {names}: it cannot be "
        "translated into Ollama's Go-template syntax",
    )


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _triple(key: str, value: str) -> str:
    if '"""' in value:
        raise JupiterError(
            f'the {key} text contains """, which a Modelfile cannot hold: '
            "remove it (e.g. from the domain's system_prompt)"
        )
    return f'{key} """{value}"""'


def modelfile(
    gguf_name: str, translation: Translation, stops: list[str], system: str, create: str
) -> str:
    """The Modelfile's text; `create` is the `ollama create` line it is meant for."""
    lines = [
        "# Written by `jupiter export`. Create the Ollama model with:",
        f"#   {create}",
        f"FROM ./{gguf_name}",
    ]
    if translation.template is not None:
        lines.append(_triple("TEMPLATE", translation.template))
    else:
        lines += [
            f"# No TEMPLATE: {translation.note}. Ollama picks one from the GGUF's",
            "# tokenizer.chat_template; check it with `ollama show NAME --template`.",
        ]
    lines += [f"PARAMETER stop {_quoted(s)}" for s in stops if s]
    system = system or translation.default_system
    if system:
        lines.append(_triple("SYSTEM", system))
    return "\n".join(lines) + "\n"
