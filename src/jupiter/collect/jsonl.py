"""One JSON record read safely: a value, or the reason it is dropped.

Two records break more than themselves if let through: one nested deeper than the parser
can follow (RecursionError), and one whose text holds a lone surrogate (a `\\ud800`
escape, valid JSON but not encodable as UTF-8, so the store refuses it). Both are counted
and skipped, as `bad_json` and `bad_text`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jupiter.records import Document

BAD_JSON = "bad_json"
BAD_TEXT = "bad_text"
# a \uD800-\uDFFF escape: only a line holding one can decode to a lone surrogate
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def parse_line(line: str) -> tuple[Any, str]:
    """(value, "") for a JSON line, else (None, BAD_JSON or BAD_TEXT)."""
    try:
        value = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None, BAD_JSON
    if SURROGATE_ESCAPE.search(line):
        return (None, reason) if (reason := text_problem(value)) else (value, "")
    return value, ""


def text_problem(value: Any) -> str:
    """BAD_TEXT when a string inside `value` cannot be written as UTF-8, BAD_JSON when it
    nests too deep to walk, else ""."""
    try:
        json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:
        return BAD_TEXT
    except RecursionError:
        return BAD_JSON
    return ""


def document_problem(doc: Document) -> str:
    """text_problem over everything of a document that reaches the store."""
    return text_problem([doc.uri, doc.title, doc.text, doc.meta])
