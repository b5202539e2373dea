"""Chat templates for tokenizers that come without one (base models), and the stop tokens a
template implies.

`model.chat_template` picks the template: `auto` keeps the tokenizer's own; a tokenizer
without one gets its family's (Gemma, Llama 3, Mistral, ChatML), when the family's turn
tokens are in its vocabulary, else Jupiter's generic template, whose turns end with eos. A
name forces that template, a `.jinja` path reads one.

A template's turn-end token (Gemma's `<end_of_turn>`, Llama 3's `<|eot_id|>`) need not be
eos, so every place that decides "the model is done" asks `stop_token_ids`: eos plus the
turn-end token found by rendering a probe chat.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2.exceptions import TemplateError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from jupiter.config import CHAT_TEMPLATES
from jupiter.data.tokenizer import CHAT_TEMPLATE
from jupiter.errors import JupiterError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

# A system message has no role of its own in Gemma's or Mistral's format: it is folded into
# the first user turn as "{system}\n\n{user}", as data/chat.py fold_system does. A system
# message not followed by a user turn is refused, so fit_template folds it into a user turn.
_FOLD_SYSTEM = (
    "{%- set system = '' -%}{%- set turns = messages -%}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- if messages | length < 2 or messages[1]['role'] != 'user' -%}"
    "{{ raise_exception('a system message must be followed by a user message') }}"
    "{%- endif -%}"
    "{%- set system = messages[0]['content'] + '\\n\\n' -%}{%- set turns = messages[1:] -%}"
    "{%- endif -%}"
)
_ALTERNATE = (
    "{%- if (m['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('roles must alternate user/assistant/user/assistant/...') }}"
    "{%- endif -%}"
)

# Google's Gemma 3 format: the assistant is "model", content trimmed, bos written here.
GEMMA = (
    "{{ bos_token }}"
    + _FOLD_SYSTEM
    + "{%- for m in turns -%}"
    + _ALTERNATE
    + "{%- set role = 'model' if m['role'] == 'assistant' else m['role'] -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (system if loop.first else '') "
    "+ (m['content'] | trim) + '<end_of_turn>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)

# Meta's Llama 3 format (without its date and tool preamble): headers, content trimmed.
LLAMA3 = (
    "{{ bos_token }}"
    "{%- for m in messages -%}"
    "{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' "
    "+ (m['content'] | trim) + '<|eot_id|>' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{%- endif -%}"
)

# ChatML (Qwen, many others); no bos.
CHATML = (
    "{%- for m in messages -%}"
    "{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)

# Mistral-7B-Instruct's format: the answer follows [/INST] and ends with eos.
MISTRAL = (
    "{{ bos_token }}"
    + _FOLD_SYSTEM
    + "{%- for m in turns -%}"
    + _ALTERNATE
    + "{%- if m['role'] == 'user' -%}"
    "{{ '[INST] ' + (system if loop.first else '') + m['content'] + ' [/INST]' }}"
    "{%- else -%}{{ m['content'] + eos_token }}{%- endif -%}"
    "{%- endfor -%}"
)

NAMED: dict[str, str] = {"chatml": CHATML, "gemma": GEMMA, "llama3": LLAMA3, "mistral": MISTRAL}

# The tokens each named template writes as single tokens; without them its turns would be
# spelled out in pieces and no single token would end a turn.
TURN_TOKENS: dict[str, tuple[str, ...]] = {
    "chatml": ("<|im_start|>", "<|im_end|>"),
    "gemma": ("<start_of_turn>", "<end_of_turn>"),
    "llama3": ("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
    "mistral": (),  # eos only, checked apart
}

# config.json model_type → the template its instruct models use
FAMILIES: dict[str, str] = {
    "gemma": "gemma",
    "gemma2": "gemma",
    "gemma3": "gemma",
    "gemma3_text": "gemma",
    "llama": "llama3",
    "mistral": "mistral",
    "qwen2": "chatml",
    "qwen3": "chatml",
}

_PROBE = "Jupiter probe answer."
_turn_ends: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, Any], str | None]] = (
    weakref.WeakKeyDictionary()
)


def read_template(path: Path) -> str:
    """The Jinja text of a template file; JupiterError naming the file when it is unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise JupiterError(
            f"chat template file {path} cannot be read ({err.strerror or err}): fix "
            "model.chat_template, or set it to auto"
        ) from None
    except UnicodeDecodeError as err:
        raise JupiterError(
            f"chat template file {path} is not UTF-8 (byte {err.start}): save it as UTF-8"
        ) from None
    if not text.strip():
        raise JupiterError(f"chat template file {path} is empty: write a Jinja chat template in it")
    try:  # parsed now: a syntax error would otherwise surface at the first chat, or never
        ImmutableSandboxedEnvironment().parse(text)
    except TemplateSyntaxError as err:
        raise JupiterError(
            f"chat template file {path}: line {err.lineno}: {err.message}: fix the Jinja syntax"
        ) from None
    return text


def model_type_of(model_dir: Path) -> str | None:
    """The `model_type` in a model dir's config.json; None when it has none."""
    try:
        config = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    value = config.get("model_type") if isinstance(config, dict) else None
    return str(value) if value else None


def is_single_token(tokenizer: PreTrainedTokenizerBase, token: str) -> bool:
    """Whether `token` is in the vocabulary and text containing it encodes it as one id."""
    tid = tokenizer.convert_tokens_to_ids(token)
    if not isinstance(tid, int) or tid == tokenizer.unk_token_id:
        return False
    ids = tokenizer(token, add_special_tokens=False)["input_ids"]
    return bool(ids == [tid])


def missing_tokens(tokenizer: PreTrainedTokenizerBase, name: str) -> list[str]:
    """The tokens template `name` needs that the tokenizer lacks."""
    missing = [t for t in TURN_TOKENS[name] if not is_single_token(tokenizer, t)]
    if name == "mistral" and tokenizer.eos_token is None:
        missing.append("an eos token")
    return missing


def family_template(tokenizer: PreTrainedTokenizerBase, model_type: str | None) -> str:
    """The template `auto` gives a tokenizer without one: its family's when the family's turn
    tokens are in the vocabulary, else Jupiter's generic one (turns end with eos)."""
    name = FAMILIES.get(model_type or "")
    if name is not None and not missing_tokens(tokenizer, name):
        return NAMED[name]
    return CHAT_TEMPLATE


def resolve_template(
    tokenizer: PreTrainedTokenizerBase, choice: str, model_type: str | None = None
) -> str | None:
    """The Jinja text `choice` gives this tokenizer; None when `auto` keeps its own.

    A path is read as it is (relative paths are the caller's to resolve); a named template
    the vocabulary cannot write as single tokens is refused with the alternatives.
    """
    if choice == "auto":
        return None if tokenizer.chat_template else family_template(tokenizer, model_type)
    if choice in NAMED:
        missing = missing_tokens(tokenizer, choice)
        if missing:
            raise JupiterError(
                f"model.chat_template: {choice} needs {', '.join(missing)}, which the "
                "tokenizer lacks: use auto (the model's family or Jupiter's generic "
                "template) or a .jinja file written for this tokenizer"
            )
        return NAMED[choice]
    if not choice.endswith(".jinja"):
        raise JupiterError(
            f"unknown chat template '{choice}': choose {', '.join(CHAT_TEMPLATES)}, or a "
            "path to a .jinja file"
        )
    return read_template(Path(choice))


def set_chat_template(
    tokenizer: PreTrainedTokenizerBase, choice: str = "auto", model_type: str | None = None
) -> str | None:
    """Give the tokenizer the chat template `choice` picks (see `resolve_template`); returns
    the template's turn-end token: its own special token (Gemma's <end_of_turn>), else eos."""
    template = resolve_template(tokenizer, choice, model_type)
    if template is not None:
        tokenizer.chat_template = template
    return turn_end_token(tokenizer) or tokenizer.eos_token


def _probe_turn_end(tokenizer: PreTrainedTokenizerBase) -> str | None:
    chat = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": _PROBE}]
    try:
        text = tokenizer.apply_chat_template(chat, tokenize=False)
    except (TemplateError, ValueError):
        return None
    if not isinstance(text, str) or _PROBE not in text:
        return None
    tail = text[text.rindex(_PROBE) + len(_PROBE) :].lstrip()
    if not tail:
        return None
    # Only an added (special) token is atomic in any context, hence a reliable stop token.
    candidates = set(tokenizer.get_added_vocab())
    if tokenizer.eos_token:
        candidates.add(str(tokenizer.eos_token))
    found = [t for t in candidates if tail.startswith(t)]
    return max(found, key=len) if found else None


def turn_end_token(tokenizer: PreTrainedTokenizerBase) -> str | None:
    """The token the chat template writes right after an assistant message (found by
    rendering a probe chat), or None. Cached per tokenizer and template: data encoding asks
    once per example."""
    key = (tokenizer.chat_template, tokenizer.eos_token)
    cached = _turn_ends.get(tokenizer)
    if cached is not None and cached[0] == key:
        return cached[1]
    token = _probe_turn_end(tokenizer) if tokenizer.chat_template else None
    _turn_ends[tokenizer] = (key, token)
    return token


def _ints(value: Any) -> list[int]:
    if isinstance(value, int):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, int)]
    return []


def stop_token_ids(tokenizer: PreTrainedTokenizerBase, also: Iterable[Any] = ()) -> list[int]:
    """Every token that ends generation: eos, the template's turn-end token, and `also`
    (e.g. generation_config.eos_token_id, an int or a list), sorted."""
    ids = set(_ints(tokenizer.eos_token_id))
    turn_end = turn_end_token(tokenizer)
    if turn_end is not None:
        ids.update(_ints(tokenizer.convert_tokens_to_ids(turn_end)))
    for value in also:
        ids.update(_ints(value))
    return sorted(ids)


def write_stop_tokens(model_dir: Path, tokenizer: PreTrainedTokenizerBase) -> None:
    """List every stop token as eos_token_id in the dir's generation_config.json, so other
    tools (transformers generate, vLLM, llama.cpp converters) stop at the turn end too."""
    path = Path(model_dir) / "generation_config.json"
    if not path.is_file():
        return
    config = json.loads(path.read_text(encoding="utf-8"))
    stops = stop_token_ids(tokenizer, [config.get("eos_token_id")])
    if not stops or _ints(config.get("eos_token_id")) == stops:
        return
    config["eos_token_id"] = stops if len(stops) > 1 else stops[0]
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
