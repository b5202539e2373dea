"""Strict parsing of a teacher's answers: one JSON object with the recipe's fields, or a
reject with its reason. A malformed answer never becomes training data.

Reasons are "malformed:<what>" for answers that do not follow the format, and a plain word
("ungrounded", "code_syntax_error", "not_evolved") for well-formed answers that fail the
recipe's own check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from jupiter.records import Chunk

TRUNCATED = "malformed:truncated"
NO_JSON = "malformed:no_json"
INVALID_JSON = "malformed:invalid_json"
EXTRA_TEXT = "malformed:extra_text"
UNGROUNDED = "ungrounded"
CODE_SYNTAX = "code_syntax_error"
NO_CODE = "malformed:no_code_block"
NOT_EVOLVED = "not_evolved"
TOO_FEW_TURNS = "malformed:too_few_turns"
BAD_SCORE = "malformed:score"

FENCE_OPEN = re.compile(r"^```[A-Za-z0-9_+-]*\s*")
FENCE_CLOSE = re.compile(r"\s*```$")
CODE_BLOCK = re.compile(r"```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)
WORD = re.compile(r"[A-Za-z0-9_]+")
# words too common to show that an answer rests on the passage
STOP = frozenset(
    """the a an and or of to in is are was were be been it its this that these those for on
    with as by at from can could will would should may might not no yes you your we our they
    them their he she his her which what when where how why who whom there here than then
    also only just more most some any all each such into about over under use used using
    does do did has have had if else so but because while""".split()
)


class Malformed(Exception):
    """An answer that fails parsing; the message is the reject reason."""


def json_object(text: str, finish_reason: str = "stop") -> dict[str, Any]:
    """The answer's one JSON object. A ```json fence around it is allowed; any other text
    before or after it is not. A cut-off answer (finish "length") is reported as such."""
    body = text.strip()
    body = FENCE_CLOSE.sub("", FENCE_OPEN.sub("", body, count=1)).strip()
    if not body.startswith("{"):
        raise Malformed(TRUNCATED if finish_reason == "length" and "{" in body else NO_JSON)
    try:
        value, end = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError:
        raise Malformed(TRUNCATED if finish_reason == "length" else INVALID_JSON) from None
    except RecursionError:  # nested deeper than the parser follows: no answer of ours
        raise Malformed(INVALID_JSON) from None
    if body[end:].strip():
        raise Malformed(EXTRA_TEXT)
    if not isinstance(value, dict):
        raise Malformed(NO_JSON)
    return value


def text_field(obj: dict[str, Any], name: str) -> str:
    value = obj.get(name)
    if value is None:
        raise Malformed(f"malformed:missing_field:{name}")
    if not isinstance(value, str):
        raise Malformed(f"malformed:not_text:{name}")
    if not value.strip():
        raise Malformed(f"malformed:empty_field:{name}")
    return value.strip()


def content_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if len(w) > 2 and w not in STOP]


def grounded_share(answer: str, passage: str) -> float:
    """The share of the answer's content words that occur in the passage."""
    words = content_words(answer)
    if not words:
        return 0.0
    source = set(content_words(passage))
    return sum(w in source for w in words) / len(words)


def check_grounded(answer: str, chunk: Chunk, min_share: float) -> None:
    if grounded_share(answer, chunk.text) < min_share:
        raise Malformed(UNGROUNDED)


def check_code(solution: str) -> None:
    """The solution needs a fenced code block; Python blocks must compile."""
    blocks = CODE_BLOCK.findall(solution)
    if not blocks:
        raise Malformed(NO_CODE)
    for lang, code in blocks:
        if lang.lower() in ("python", "py", "python3"):
            try:
                compile(code, "<solution>", "exec")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                # RecursionError, MemoryError: an expression nested too deep to compile
                raise Malformed(CODE_SYNTAX) from None


def normalized(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def check_evolved(instruction: str, seed: str) -> None:
    """Evol-Instruct's elimination step: an evolved instruction that copies the seed, or
    adds nothing to it, is dropped (Xu et al. 2023, section 3.3)."""
    new, old = normalized(instruction), normalized(seed)
    if new == old or len(new.split()) <= len(old.split()):
        raise Malformed(NOT_EVOLVED)


def dialogue(obj: dict[str, Any], min_turns: int) -> list[dict[str, str]]:
    turns = obj.get("turns")
    if not isinstance(turns, list):
        raise Malformed("malformed:missing_field:turns")
    messages: list[dict[str, str]] = []
    for turn in turns:
        if not isinstance(turn, dict):
            raise Malformed("malformed:not_object:turns")
        messages.append({"role": "user", "content": text_field(turn, "user")})
        messages.append({"role": "assistant", "content": text_field(turn, "assistant")})
    if len(messages) < 2 * min_turns:
        raise Malformed(TOO_FEW_TURNS)
    return messages


def judge_score(text: str, finish_reason: str = "stop") -> tuple[int, str]:
    """(score 1..5, reason) from a judge's answer."""
    obj = json_object(text, finish_reason)
    score = obj.get("score")
    if isinstance(score, str) and score.strip().isdigit():
        score = int(score.strip())
    if isinstance(score, bool) or not isinstance(score, int | float) or score != int(score):
        raise Malformed(BAD_SCORE)
    if not 1 <= int(score) <= 5:
        raise Malformed(BAD_SCORE)
    reason = obj.get("reason", "")
    return int(score), reason if isinstance(reason, str) else ""


def pair(obj: dict[str, Any], fields: Sequence[str]) -> tuple[str, str]:
    a, b = fields
    return text_field(obj, a), text_field(obj, b)
