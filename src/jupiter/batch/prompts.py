"""The prompt list of `jupiter test`: a text file, one prompt a line (blank lines skipped),
or JSONL, one {"prompt": ..., "expected": ..., "id": ...} object a line (expected and id
optional)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


@dataclass(frozen=True)
class PromptItem:
    id: str
    prompt: str
    expected: str | None = None


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if b"\0" in raw:
        line = raw.count(b"\n", 0, raw.index(b"\0")) + 1
        raise JupiterError(
            f"{path}:{line}: a NUL byte: this is not a text file; save the prompts as UTF-8 text"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise JupiterError(
            f"{path}:{line}: byte 0x{raw[err.start]:02x} is not UTF-8: save the prompts as UTF-8"
        ) from None


def _field(where: str, obj: dict[str, Any], key: str, required: bool) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise JupiterError(f"{where}: missing field '{key}' (each line needs a prompt)")
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise JupiterError(f"{where}: field '{key}' must be a string")
    text = str(value)
    if required and not text.strip():
        raise JupiterError(f"{where}: field '{key}' is empty")
    return text


def _jsonl(path: Path, text: str) -> list[PromptItem]:
    items: list[PromptItem] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            msg = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise JupiterError(
                f"{where}: malformed JSON: {msg} (one JSON object per line)"
            ) from None
        if not isinstance(obj, dict):
            raise JupiterError(
                f'{where}: expected a JSON object like {{"prompt": "..."}}, '
                f"got {type(obj).__name__}"
            )
        prompt = _field(where, obj, "prompt", required=True)
        item_id = _field(where, obj, "id", required=False) or str(len(items) + 1)
        if item_id in seen:
            raise JupiterError(f"{where}: duplicate id '{item_id}' (first on line {seen[item_id]})")
        seen[item_id] = lineno
        expected = _field(where, obj, "expected", required=False)
        items.append(PromptItem(item_id, prompt or "", expected))
    return items


def read_prompts(path: Path) -> list[PromptItem]:
    """The prompts of `path`, in order; JupiterError naming the file (and line) when it is
    missing, empty or malformed."""
    path = Path(path)
    if path.is_dir():
        raise JupiterError(f"--prompts {path} is a folder: point it at a .txt or .jsonl file")
    if not path.is_file():
        raise JupiterError(f"prompts file not found: {path}")
    text = _text(path)
    if path.suffix.lower() in JSONL_SUFFIXES:
        items = _jsonl(path, text)
    else:
        lines = [ln.rstrip("\r") for ln in text.split("\n")]
        items = [PromptItem(str(i), ln) for i, ln in enumerate((x for x in lines if x.strip()), 1)]
    if not items:
        raise JupiterError(
            f"{path} holds no prompt: write one a line (.txt), or one "
            '{"prompt": ..., "expected": ...} object a line (.jsonl)'
        )
    return items
