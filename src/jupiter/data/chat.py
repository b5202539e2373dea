"""Encode chats and raw text into (input ids, labels) with the tokenizer's own chat template.

Labels follow the HF convention: aligned with the ids (the shift to next-token targets
happens when rows are packed), -100 where no loss is taken. Any HF chat template works;
templates without a system role (Mistral's) get the system prompt folded into the first
user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from jinja2.exceptions import TemplateError
from transformers import PreTrainedTokenizerBase

from jupiter.data.templates import stop_token_ids, turn_end_token
from jupiter.errors import JupiterError

IGNORE = -100  # torch.nn.functional.cross_entropy's default ignore_index

Message = dict[str, str]


def _rejected(e: TemplateError) -> JupiterError:
    return JupiterError(
        f"the tokenizer's chat template rejected a chat ({e}): give examples the roles it "
        "accepts (user/assistant alternating), or use a tokenizer with another template"
    )


def _render_text(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message], add_generation_prompt: bool
) -> str:
    try:
        text = tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=add_generation_prompt
        )
    except TemplateError as e:
        raise _rejected(e) from e
    if not isinstance(text, str):
        raise JupiterError("the tokenizer's chat template did not render to text")
    return text


def _tokenize(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    # Tokenize rendered text without adding specials: the template already writes bos,
    # and some tokenizers would add a second one.
    ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def fold_system(messages: Sequence[Message]) -> list[Message]:
    """The chat with its leading system message merged into the first user message.

    `system + "\\n\\n" + user`: the prompt stays in the model's context as a preamble to
    the question. A system message not followed by a user message becomes a user message.
    """
    if not messages or messages[0]["role"] != "system":
        return list(messages)
    system, rest = messages[0], list(messages[1:])
    if rest and rest[0]["role"] == "user":
        merged = {**rest[0], "content": system["content"] + "\n\n" + rest[0]["content"]}
        return [merged, *rest[1:]]
    return [{"role": "user", "content": system["content"]}, *rest]


def fit_template(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]
) -> tuple[list[Message], bool]:
    """The chat as the template accepts it, and whether its system message was folded.

    Templates that reject a system role raise a jinja TemplateError (Mistral's says the
    roles must alternate); rather than matching each template's wording, any rejection of a
    chat that starts with a system message is retried once with the system prompt folded.
    """
    try:
        tokenizer.apply_chat_template(list(messages), tokenize=False)
        return list(messages), False
    except TemplateError as e:
        if not messages or messages[0]["role"] != "system":
            raise _rejected(e) from e
    folded = fold_system(messages)
    _render_text(tokenizer, folded, False)  # a second refusal is the user's to fix
    return folded, True


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # stop at the shorter
        if x != y:
            break
        n += 1
    return n


def _answer_end(ids: Sequence[int], start: int, end: int, stops: Sequence[int]) -> int:
    """End of the trained span: just past the last stop token (eos or the template's
    turn-end token) in ids[start:end].

    Whatever the template writes after it (here a newline) is formatting, not answer.
    """
    for i in range(end - 1, start - 1, -1):
        if ids[i] in stops:
            return i + 1
    return end


def _label_turns(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]
) -> tuple[list[int], list[int]]:
    ids = _tokenize(tokenizer, _render_text(tokenizer, messages, False))
    labels = [IGNORE] * len(ids)
    stops = stop_token_ids(tokenizer)
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        prompt = _tokenize(tokenizer, _render_text(tokenizer, messages[:i], True))
        upto = _tokenize(tokenizer, _render_text(tokenizer, messages[: i + 1], False))
        start = _common_prefix(prompt, upto)
        # The chat up to this turn must be a token prefix of the whole chat, or the
        # template renders a turn differently depending on what follows it.
        if ids[: len(upto)] != upto:
            raise JupiterError("the chat template does not render turns as a stable prefix")
        end = _answer_end(ids, start, len(upto), stops)
        labels[start:end] = ids[start:end]
    return ids, labels


def encode_chat(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]
) -> tuple[list[int], list[int]]:
    """Input ids of the rendered chat and labels that keep only assistant turns.

    An assistant turn is located by rendering the chat up to it with the generation prompt
    and comparing token prefixes with the chat including it: the tokens in between are the
    answer and its end-of-turn token. Comparing tokens (not characters) stays right for any
    template; where a tokenizer merges across the boundary, the span starts at the first
    differing token. A system message the template rejects is folded (`fit_template`).
    """
    if not messages:
        raise JupiterError("cannot encode an empty chat")
    fitted, _ = fit_template(tokenizer, messages)
    return _label_turns(tokenizer, fitted)


def encode_prompt(tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]) -> list[int]:
    """Ids of the chat rendered with the generation prompt (what precedes the assistant's
    next turn), the system message folded where the template rejects it."""
    fitted, _ = fit_template(tokenizer, messages)
    return _tokenize(tokenizer, _render_text(tokenizer, fitted, True))


def encode_text(tokenizer: PreTrainedTokenizerBase, text: str) -> tuple[list[int], list[int]]:
    """bos + text + eos; loss on every token except bos (nothing predicts a document start)."""
    body = _tokenize(tokenizer, text)
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


def pad_id_for(tokenizer: PreTrainedTokenizerBase) -> int:
    """The id that fills the unused end of packed rows.

    Padding is masked by position ids and IGNORE targets, so any id is safe for the model;
    it must never be a stop token (eos, the turn end), because tools that mask labels by the
    pad id would then stop teaching the model to stop. Order: pad, unk, then the lowest id
    that is not a stop token or bos.
    """
    stops, bos = stop_token_ids(tokenizer), tokenizer.bos_token_id
    for candidate in (tokenizer.pad_token_id, tokenizer.unk_token_id):
        if isinstance(candidate, int) and candidate not in stops:
            return candidate
    for i in range(len(tokenizer)):
        if i not in stops and i != bos:
            return i
    raise JupiterError("the tokenizer has no token to pad with besides eos and bos")


def _marked(tokenizer: PreTrainedTokenizerBase, ids: list[int], labels: list[int]) -> str:
    """The decoded chat with each trained run of tokens wrapped in ⟦ ⟧."""
    out = []
    for trained, run in groupby(zip(ids, labels, strict=True), key=lambda p: p[1] != IGNORE):
        text = str(tokenizer.decode([t for t, _ in run]))
        out.append(f"⟦{text}⟧" if trained else text)
    return "".join(out)


def preflight(tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message]) -> str:
    """Encode one example and show which tokens are trained (inside ⟦ ⟧), with counts.

    Refuses (JupiterError) a setup that would train a model that cannot stop: no stop token,
    nothing trained, or assistant turns that end with neither eos nor the template's
    turn-end token (Gemma's <end_of_turn>, Llama 3's <|eot_id|>).
    """
    # eos is needed even when the template ends turns with its own token: raw text
    # documents end with eos, and tools that know nothing of the template stop on it.
    eos = tokenizer.eos_token_id
    if eos is None:
        raise JupiterError(
            "the tokenizer has no eos token, so a trained model could never stop: set "
            "`eos_token` in tokenizer_config.json to the token that ends assistant turns"
        )
    if not messages:
        raise JupiterError("cannot preflight an empty chat: give one example with messages")
    fitted, folded = fit_template(tokenizer, messages)
    ids, labels = _label_turns(tokenizer, fitted)
    trained = [lab for lab in labels if lab != IGNORE]
    if not trained:
        raise JupiterError(
            "no token of the example is trained: give it an assistant message, with roles "
            "the chat template renders (user/assistant)"
        )
    stops = stop_token_ids(tokenizer)
    ended = [t for t in trained if t in stops]
    if not ended:
        turn_end = turn_end_token(tokenizer)
        also = (
            f" or its turn-end token {turn_end!r}"
            if turn_end not in (None, tokenizer.eos_token)
            else ""
        )
        raise JupiterError(
            f"the chat template does not end assistant turns with the eos token "
            f"{tokenizer.eos_token!r}{also}, so the model would not learn to stop: set "
            "model.chat_template to a template that writes eos_token (or a special turn-end "
            "token) after each assistant message"
        )
    lines = [_marked(tokenizer, ids, labels)]
    if folded:
        lines.append(
            "(system message folded into the first user message: the template has no system role)"
        )
    stop = tokenizer.convert_ids_to_tokens(ended[-1])
    kind = "eos" if ended[-1] == tokenizer.eos_token_id else "turn end"
    lines.append(
        f"{len(ids)} tokens, {len(trained)} trained ({100 * len(trained) / len(ids):.0f}%), "
        f"{kind} {stop!r} trained: yes"
    )
    return "\n".join(lines)
