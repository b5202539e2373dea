"""Encode chats and raw text into (input ids, labels) with the tokenizer's own chat template.

Labels follow the HF convention: aligned with the ids (the shift to next-token targets
happens when rows are packed), -100 where no loss is taken.
"""

from __future__ import annotations

from collections.abc import Sequence

from transformers import PreTrainedTokenizerBase

from jupiter.errors import JupiterError

IGNORE = -100  # torch.nn.functional.cross_entropy's default ignore_index

Message = dict[str, str]


def _render_ids(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message], add_generation_prompt: bool
) -> list[int]:
    # Render to text, then tokenize without adding specials: the template already
    # writes bos, and some tokenizers would add a second one.
    text = tokenizer.apply_chat_template(
        list(messages), tokenize=False, add_generation_prompt=add_generation_prompt
    )
    if not isinstance(text, str):
        raise JupiterError("the tokenizer's chat template did not render to text")
    ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # stop at the shorter
        if x != y:
            break
        n += 1
    return n


def _answer_end(ids: Sequence[int], start: int, end: int, eos_id: int | None) -> int:
    """End of the trained span: just past the last end-of-turn token in ids[start:end].

    Whatever the template writes after it (here a newline) is formatting, not answer.
    """
    if eos_id is not None:
        for i in range(end - 1, start - 1, -1):
            if ids[i] == eos_id:
                return i + 1
    return end


def encode_chat(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]
) -> tuple[list[int], list[int]]:
    """Input ids of the rendered chat and labels that keep only assistant turns.

    An assistant turn is located by rendering the chat up to it with the generation prompt
    and comparing token prefixes with the chat including it: the tokens in between are the
    answer and its end-of-turn token. Comparing tokens (not characters) stays right for any
    template; where a tokenizer merges across the boundary, the span starts at the first
    differing token.
    """
    if not messages:
        raise JupiterError("cannot encode an empty chat")
    ids = _render_ids(tokenizer, messages, add_generation_prompt=False)
    labels = [IGNORE] * len(ids)
    eos_id = tokenizer.eos_token_id
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        prompt = _render_ids(tokenizer, messages[:i], add_generation_prompt=True)
        upto = _render_ids(tokenizer, messages[: i + 1], add_generation_prompt=False)
        start = _common_prefix(prompt, upto)
        # The chat up to this turn must be a token prefix of the whole chat, or the
        # template renders a turn differently depending on what follows it.
        if ids[: len(upto)] != upto:
            raise JupiterError("the chat template does not render turns as a stable prefix")
        end = _answer_end(ids, start, len(upto), eos_id)
        labels[start:end] = ids[start:end]
    return ids, labels


def encode_text(tokenizer: PreTrainedTokenizerBase, text: str) -> tuple[list[int], list[int]]:
    """bos + text + eos; loss on every token except bos (nothing predicts a document start)."""
    body: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    ids: list[int] = []
    if tokenizer.bos_token_id is not None:
        ids.append(tokenizer.bos_token_id)
    ids += body
    if tokenizer.eos_token_id is not None:
        ids.append(tokenizer.eos_token_id)
    labels = list(ids)
    if tokenizer.bos_token_id is not None:
        labels[0] = IGNORE
    return ids, labels
