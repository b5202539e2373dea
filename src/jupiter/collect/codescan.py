"""What the readers of a language's API share in scanning source text (collect/goapi.py,
rustapi.py, capi.py): blanking a stretch of it (comments, literals) to spaces, lines kept,
so the code keeps its length and every position its meaning; finding the bracket that
closes an open one in code whose literals are blanked; and, for the readers that walk a
file's declarations (javaapi.py, csapi.py, ktapi.py, scalaapi.py), its doc comments indexed
by where they start, its lines and its brackets' matches."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

_NONSPACE = re.compile(r"\S")


def blank(out: list[str], i: int, j: int) -> None:
    """Characters i to j of `out` made spaces, its line breaks kept."""
    for k in range(i, j):
        if out[k] != "\n":
            out[k] = " "


def blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each (start, end) span blanked."""
    out = list(text)
    for i, j in spans:
        blank(out, i, j)
    return "".join(out)


def closing(code: str, i: int, pairs: str = "()[]{}") -> int:
    """Past the bracket that closes the one at `i` (`code` with its literals blanked);
    `pairs` the brackets counted, open and close by turns ("<>()[]" for a generic's
    arguments, where the `>` of an arrow `->` closes nothing). The end of `code` when none
    does."""
    close = {pairs[k]: pairs[k + 1] for k in range(0, len(pairs), 2)}
    stack: list[str] = []
    for j in range(i, len(code)):
        ch = code[j]
        if ch == ">" and j and code[j - 1] == "-":
            continue
        if ch in close:
            stack.append(close[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    return len(code)


_NESTING = re.compile(r"/\*|\*/")


def comment_end(text: str, s: int) -> tuple[int, int, bool]:
    """(past the `*/` closing the block comment at s, where its text stops, whether it
    closes): block comments nest (Swift's, Dart's); an unclosed one runs to the end."""
    depth = 0
    for m in _NESTING.finditer(text, s):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end(), m.start(), True
    return len(text), len(text), False


_BRACKET = re.compile(r"[(){}\[\]]")
_OPENER = {")": "(", "]": "[", "}": "{"}


def brackets(code: str) -> dict[int, int]:
    """For each opening bracket of the code, the position past its closing one (an
    unclosed one is absent; a stray closer is ignored)."""
    match: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    for m in _BRACKET.finditer(code):
        ch = m.group()
        if ch in "({[":
            stack.append((ch, m.start()))
        elif stack and stack[-1][0] == _OPENER[ch]:
            match[stack.pop()[1]] = m.end()
    return match


def balanced(code: str) -> bool:
    """Whether every bracket of the code closes, in order."""
    stack: list[str] = []
    for m in _BRACKET.finditer(code):
        ch = m.group()
        if ch in "({[":
            stack.append(ch)
        elif not stack or stack.pop() != _OPENER[ch]:
            return False
    return not stack


@dataclass
class Comment:
    """A comment of a scanned file: where it stands, whether it is the language's doc
    comment (`/** */`, a run of `///` lines), its text without its marks."""

    start: int
    end: int
    doc: bool
    text: str


@dataclass
class Item:
    """A documented declaration a walker found: its qualified name, kind, head line (its
    signature as shown) and the signature the question templates read, the text after the
    head, where it stands."""

    qual: str
    kind: str
    head: str
    signature: str
    body: str  # everything after the head line
    at: int


class DocIndex:
    """A scanned file as a declaration walker asks of it: the doc comment over a
    declaration, a position's line, the close of a bracket, the next code after space. The
    class that mixes it in holds `docs` (its doc comments, by start), their `starts`, the
    text's `newlines`, the brackets' `match` (open -> past its close) and the `code`."""

    docs: list[Any]
    starts: list[int]
    newlines: list[int]
    match: dict[int, int]
    code: str

    def close(self, k: int, end: int) -> int:
        """Past the bracket closing the one at k, at most `end`."""
        return min(self.match.get(k, end), end)

    def doc_before(self, a: int, b: int) -> Any:
        """The last doc comment that starts between a and b; None when none does."""
        k = bisect_left(self.starts, b) - 1
        return self.docs[k] if k >= 0 and self.starts[k] >= a else None

    def line(self, at: int) -> int:
        return bisect_left(self.newlines, at) + 1

    def skip(self, j: int, end: int) -> int:
        """Past the space (and blanked comments) at j, at most `end`."""
        m = _NONSPACE.search(self.code, j, end)
        return end if m is None else m.start()
