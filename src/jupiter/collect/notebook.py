"""Jupyter notebooks read as the Markdown they render to: markdown cells as written, code
cells as fenced blocks in the notebook's language, a cell's short text output straight
under it as an `output` block; images, HTML, widget state and long outputs left out. Read as JSON
text, a notebook gave questions about its escaped source lines and base64 images.

nbformat 4 (`cells`) and 3 (`worksheets[].cells`, code in `input`) are read; anything
else is not a notebook (the collect stage counts it `bad_notebook`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from jupiter.collect.result import CollectResult

SUFFIX = ".ipynb"
BAD_NOTEBOOK = "bad_notebook"
FIXES = {
    BAD_NOTEBOOK: "not a Jupyter notebook's JSON (nbformat 3 or 4): open and save it in "
    "Jupyter again"
}
# a text output kept under its cell: a short one (a value, a printed line or two)
MAX_OUTPUT_LINES = 12
MAX_OUTPUT_CHARS = 1200
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def notebook_markdown(text: str) -> tuple[str, str] | None:
    """(title, Markdown) of a notebook's JSON, the title its first heading ("" without
    one); None when the text is no notebook."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict):
        return None
    cells = nb.get("cells")
    if cells is None and isinstance(nb.get("worksheets"), list):  # nbformat 3
        cells = [c for ws in nb["worksheets"] if isinstance(ws, dict) for c in ws.get("cells", [])]
    if not isinstance(cells, list):
        return None
    lang = _language(nb.get("metadata"))
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _joined(cell.get("source", cell.get("input", "")))
        if kind in ("markdown", "heading") and source.strip():
            if kind == "heading":  # nbformat 3's heading cell
                source = "#" * int(cell.get("level", 1) or 1) + " " + source.strip()
            parts.append(source.strip())
        elif kind == "code" and source.strip():
            parts.append(f"```{lang}\n{source.strip(chr(10))}\n```")
            out = _text_output(cell.get("outputs"))
            if out:
                # straight under its code, no prose between: no example of its own
                parts[-1] += f"\n```output\n{out}\n```"
    body = "\n\n".join(parts)
    m = _HEADING.search(body)
    return (m.group(1).strip() if m else ""), body


def notebook_or_reject(
    text: str | None, where: str, rejects: CollectResult | None
) -> tuple[str, str] | None:
    """notebook_markdown of `text`; None, counted `bad_notebook` in `rejects`, when it is no
    notebook (or could not be decoded)."""
    got = notebook_markdown(text) if text is not None else None
    if got is None and rejects is not None:
        rejects.reject(BAD_NOTEBOOK, where)
    return got


def _language(meta: Any) -> str:
    meta = meta if isinstance(meta, dict) else {}
    for key in ("kernelspec", "language_info"):
        sub = meta.get(key)
        if isinstance(sub, dict):
            lang = sub.get("language") or (sub.get("name") if key == "language_info" else None)
            if isinstance(lang, str) and re.fullmatch(r"[\w+#.-]{1,20}", lang):
                return lang.lower()
    return "python"


def _joined(source: Any) -> str:
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def _text_output(outputs: Any) -> str:
    """The cell's printed text and plain-text results, when short; "" otherwise (an error's
    traceback, an image, HTML or a long listing says nothing a question should quote)."""
    if not isinstance(outputs, list):
        return ""
    texts: list[str] = []
    for out in outputs:
        if not isinstance(out, dict) or out.get("output_type") in ("error", "pyerr"):
            continue
        if out.get("output_type") == "stream":
            texts.append(_joined(out.get("text")))
        else:
            data = out.get("data") if isinstance(out.get("data"), dict) else out
            plain = data.get("text/plain", data.get("text")) if isinstance(data, dict) else None
            if plain is not None and not (isinstance(data, dict) and "image/png" in data):
                texts.append(_joined(plain))
    text = _ANSI.sub("", "\n".join(t.rstrip("\n") for t in texts if t.strip())).strip("\n")
    if not text or text.count("\n") >= MAX_OUTPUT_LINES or len(text) > MAX_OUTPUT_CHARS:
        return ""
    return text
