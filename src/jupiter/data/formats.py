"""Dataset formats in and out: one record of any common fine-tuning format to and from
OpenAI-style messages, the canonical form.

    messages     {"messages": [{"role": "system"|"user"|"assistant", "content": str}, ...]}
    alpaca       {"instruction", "input" (optional), "output", "system" (optional)}
    sharegpt     {"conversations": [{"from": "system"|"human"|"gpt", "value": str}, ...]}
    text         {"text": str}: raw text, parsed to a str, not to messages
    completions  {"prompt": str, "completion": str}
    mistral      {"text": "<s>[INST] {user} [/INST] {assistant} </s>[INST] … [/INST] … </s>"}

What each format can hold, and so where messages → format → messages is exact:
messages and sharegpt hold any conversation; alpaca one user turn and one reply, with a
system prompt; completions one turn, a system prompt folded into the prompt ("system\\n\\n
prompt", lossy); mistral any number of turns, the system prompt folded into the first user
turn (as Mistral's own chat template does, lossy) and the contents stripped of the spaces
around turns (they are markup); text no conversation at all.

A conversation is valid when it is non-empty, an optional system message comes first, and
user and assistant messages alternate from a user message. Malformed rows raise
`FormatError`, which names the reason.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from jupiter.errors import JupiterError

Format = Literal["messages", "alpaca", "sharegpt", "text", "completions", "mistral"]
FORMATS: tuple[Format, ...] = get_args(Format)

Message = dict[str, str]

BOS, EOS, INST, END_INST = "<s>", "</s>", "[INST]", "[/INST]"
# ShareGPT dumps spell the roles several ways; rendering always writes the first spelling
SHAREGPT_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
}
SHAREGPT_FROM = {"system": "system", "user": "human", "assistant": "gpt"}


class FormatError(JupiterError, ValueError):
    """A record that does not parse, or a conversation a format cannot hold; says why."""


# ---------------------------------------------------------------------------- checks
def _field(row: dict[str, Any], key: str) -> str:
    if key not in row:
        raise FormatError(f"missing key '{key}' (keys: {', '.join(sorted(map(str, row)))})")
    value = row[key]
    if not isinstance(value, str):
        raise FormatError(f"'{key}' must be a string, got {type(value).__name__}")
    return value


def check_messages(messages: object) -> list[Message]:
    """The messages, validated: roles, string contents, optional system first, then user and
    assistant alternating from a user turn."""
    if not isinstance(messages, list) or not messages:
        raise FormatError("messages must be a non-empty list")
    out: list[Message] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise FormatError(f"message {i} needs 'role' and 'content'")
        role, content = m["role"], m["content"]
        if role not in ("system", "user", "assistant"):
            raise FormatError(f"message {i}: unknown role {role!r}")
        if not isinstance(content, str):
            raise FormatError(f"message {i}: content must be a string")
        out.append({"role": role, "content": content})
    turns = out[1:] if out[0]["role"] == "system" else out
    if not turns:
        raise FormatError("a system message alone is no conversation")
    for i, m in enumerate(turns):
        want = "user" if i % 2 == 0 else "assistant"
        if m["role"] != want:
            raise FormatError(
                f"wrong roles order: turn {i} is {m['role']!r}, expected {want!r} "
                "(optional system first, then user and assistant alternating)"
            )
    return out


def _single_turn(messages: list[Message], fmt: str) -> tuple[str, str, str]:
    """(system, user, assistant) of a one-turn conversation, for formats holding just one."""
    msgs = check_messages(messages)
    system = msgs[0]["content"] if msgs[0]["role"] == "system" else ""
    turns = msgs[1:] if msgs[0]["role"] == "system" else msgs
    if len(turns) != 2:
        raise FormatError(
            f"{fmt} holds one user turn and one reply; this conversation has {len(turns)} "
            "messages besides the system prompt (use messages, sharegpt or mistral)"
        )
    return system, turns[0]["content"], turns[1]["content"]


# ---------------------------------------------------------------------------- detect
def detect_format(row: dict[str, Any]) -> Format:
    """The format of one record, from its keys (and, for "text", the Mistral markup)."""
    if not isinstance(row, dict):
        raise FormatError(f"a record must be a JSON object, got {type(row).__name__}")
    if "messages" in row:
        return "messages"
    if "conversations" in row:
        return "sharegpt"
    if "instruction" in row or "output" in row:
        return "alpaca"
    if "prompt" in row or "completion" in row:
        return "completions"
    if "text" in row:
        text = row["text"]
        head = text.lstrip().removeprefix(BOS).lstrip() if isinstance(text, str) else ""
        return "mistral" if head.startswith(INST) else "text"
    keys = ", ".join(sorted(map(str, row))) or "none"
    raise FormatError(
        f"unknown record format (keys: {keys}); expected one of messages, conversations, "
        "instruction/output, prompt/completion, text"
    )


# ---------------------------------------------------------------------------- parse
def to_messages(row: dict[str, Any], fmt: Format | None = None) -> list[Message] | str:
    """One record as messages (or as a str for raw text); `fmt` None detects it."""
    if not isinstance(row, dict):
        raise FormatError(f"a record must be a JSON object, got {type(row).__name__}")
    fmt = fmt or detect_format(row)
    if fmt == "messages":
        if "messages" not in row:
            raise FormatError("missing key 'messages'")
        return check_messages(row["messages"])
    if fmt == "sharegpt":
        return _parse_sharegpt(row)
    if fmt == "alpaca":
        user = _field(row, "instruction")
        extra = row.get("input") or ""
        if not isinstance(extra, str):
            raise FormatError("'input' must be a string")
        user = f"{user}\n\n{extra}" if extra else user
        system = row.get("system") or ""
        return _chat(system, user, _field(row, "output"))
    if fmt == "completions":
        return _chat("", _field(row, "prompt"), _field(row, "completion"))
    if fmt == "text":
        return _field(row, "text")
    if fmt == "mistral":
        return parse_mistral(_field(row, "text"))
    raise FormatError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def _chat(system: object, user: str, assistant: str) -> list[Message]:
    if not isinstance(system, str):
        raise FormatError("'system' must be a string")
    head = [{"role": "system", "content": system}] if system else []
    return check_messages(
        head + [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    )


def _parse_sharegpt(row: dict[str, Any]) -> list[Message]:
    conv = row.get("conversations")
    if not isinstance(conv, list):
        raise FormatError("missing key 'conversations' (a list of {from, value})")
    msgs = []
    for i, turn in enumerate(conv):
        if not isinstance(turn, dict) or "from" not in turn or "value" not in turn:
            raise FormatError(f"conversations[{i}] needs 'from' and 'value'")
        role = SHAREGPT_ROLES.get(str(turn["from"]).lower())
        if role is None:
            raise FormatError(f"conversations[{i}]: unknown speaker {turn['from']!r}")
        msgs.append({"role": role, "content": turn["value"]})
    return check_messages(msgs)


def parse_mistral(text: str) -> list[Message]:
    """Split Mistral instruct text into user/assistant turns, contents stripped.

    Lenient about the spaces and repeated `<s>` that Mistral's template versions differ on;
    a trailing `[INST] … [/INST]` without a reply (a prompt) ends on a user message."""
    rest = text.strip().removeprefix(BOS).lstrip()
    if not rest.startswith(INST):
        raise FormatError(f"mistral text must start with {BOS}{INST}")
    msgs: list[Message] = []
    while rest:
        if not rest.startswith(INST):
            raise FormatError(f"expected {INST} at {rest[:30]!r}")
        end = rest.find(END_INST)
        if end < 0:
            raise FormatError(f"unterminated {INST}: no {END_INST} after turn {len(msgs) // 2}")
        user = rest[len(INST) : end]
        if INST in user:
            raise FormatError(f"unterminated {INST}: a second {INST} before {END_INST}")
        rest = rest[end + len(END_INST) :]
        stop = rest.find(EOS)
        nxt = rest.find(INST)
        if stop < 0 or (0 <= nxt < stop):
            if rest.strip():
                raise FormatError(f"a reply must end with {EOS}: {rest.strip()[:30]!r}")
            msgs.append({"role": "user", "content": user.strip()})
            break
        reply = rest[:stop]
        msgs += [
            {"role": "user", "content": user.strip()},
            {"role": "assistant", "content": reply.strip()},
        ]
        rest = rest[stop + len(EOS) :].lstrip().removeprefix(BOS).lstrip()
    return check_messages(msgs)


# ---------------------------------------------------------------------------- render
def from_messages(messages: list[Message], fmt: Format) -> dict[str, Any]:
    """One conversation rendered as a record of `fmt`; FormatError where it cannot hold it."""
    msgs = check_messages(messages)
    if fmt == "messages":
        return {"messages": msgs}
    if fmt == "sharegpt":
        return {
            "conversations": [
                {"from": SHAREGPT_FROM[m["role"]], "value": m["content"]} for m in msgs
            ]
        }
    if fmt == "alpaca":
        system, user, assistant = _single_turn(msgs, fmt)
        row = {"instruction": user, "input": "", "output": assistant}
        return {"system": system, **row} if system else row
    if fmt == "completions":
        system, user, assistant = _single_turn(msgs, fmt)
        return {"prompt": f"{system}\n\n{user}" if system else user, "completion": assistant}
    if fmt == "mistral":
        return {"text": render_mistral(msgs)}
    if fmt == "text":
        raise FormatError("the text format holds raw text, not a conversation")
    raise FormatError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def render_mistral(messages: list[Message]) -> str:
    """`<s>[INST] {user} [/INST] {assistant} </s>…`, the system prompt folded into the first
    user turn; contents holding the control tokens are refused (they would not parse back)."""
    msgs = check_messages(messages)
    system = msgs[0]["content"] if msgs[0]["role"] == "system" else ""
    turns = msgs[1:] if msgs[0]["role"] == "system" else msgs
    for m in msgs:
        for token in (INST, END_INST, EOS):
            if token in m["content"]:
                raise FormatError(f"a {m['role']} message holds the Mistral token {token}")
    out = [BOS]
    for i in range(0, len(turns), 2):
        user = turns[i]["content"]
        if i == 0 and system:
            user = f"{system}\n\n{user}"
        out.append(f"{INST} {user} {END_INST}")
        if i + 1 < len(turns):
            out.append(f" {turns[i + 1]['content']} {EOS}")
    return "".join(out)
