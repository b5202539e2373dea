"""What the readers of a language's API share in scanning source text (collect/goapi.py,
rustapi.py, capi.py): blanking a stretch of it (comments, literals) to spaces, lines kept,
so the code keeps its length and every position its meaning; and finding the bracket that
closes an open one in code whose literals are blanked."""

from __future__ import annotations


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
