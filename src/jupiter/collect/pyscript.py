"""Python scripts written as notebooks, read as the page they render to: the tutorials and
example galleries of scientific Python (sphinx-gallery: scikit-learn's, Matplotlib's,
PyTorch's tutorials; jupytext's percent format; VS Code's and Spyder's `# %%` cells; a
notebook exported by nbconvert with `# In[1]:` markers).

Read as a module's API, such a script gave its docstring alone (its title and first
paragraph): the text between the code, written as comment blocks, and the code itself were
lost. Here the script is a page: the module docstring first (a gallery's title and
introduction), then each cell in order, a text block (the comment lines right after a cell
marker, `#` and one space taken off) as the Markdown it is, the code as a fenced ```` ```python
```` block. reStructuredText in the text (sphinx-gallery writes it) is made light Markdown:
underlined titles (`Title` over `=====`, with or without an overline) headings, levels in
the order their underline characters first appear; roles (`:class:`sklearn.svm.SVC``) and
double-backquoted literals code spans; a `.. note::`-style directive its content under
"Note:"; a paragraph ending in `::` and the indented block after it fenced.

A script is one when it has a cell marker: a `# %%` line (sphinx-gallery since 0.10,
jupytext, editors), a line of 20 or more `#` over comment lines (sphinx-gallery's text
block), or nbconvert's `# In[ ]:`. Any other `.py` file is read as before (its API).
"""

from __future__ import annotations

import ast
import re
import textwrap

# a cell marker: `# %%` (`# %% [markdown]`, `# %% Title`), nbconvert's `# In[3]:`
_CELL = re.compile(r"^#\s?%%(?:\s|$)|^# In\[[\d ]*\]:\s*$")
# sphinx-gallery's older text-block separator: a line of 20 or more `#`
_BAR = re.compile(r"^#{20,}\s*$")
_COMMENT = re.compile(r"^#(?: |$)")
_UNDERLINE = re.compile(r"^([=\-~^*+#`:.'\"_])\1{2,}\s*$")
_ROLE = re.compile(r":(?:[\w-]+:)?[\w-]+:`~?([^`]+?)(?:\s*<([^>`]+)>)?`")
_LITERAL = re.compile(r"``([^`]+)``")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$")
_GALLERIES = {"examples", "tutorials", "tutorial", "gallery", "galleries", "auto_examples"}
_ADMONITIONS = {"note", "warning", "tip", "hint", "important", "caution", "attention", "danger"}


def is_script(path: str, text: str) -> bool:
    """Whether a Python file (`path` inside its source) is a page written as a script: a
    cell script, or a gallery's example (sphinx-gallery's `plot_*.py`, or a file with a
    module docstring in an examples or tutorials folder), which renders as its docstring
    and its code."""
    parts = path.replace("\\", "/").split("/")
    if is_cell_script(text):
        return True
    if parts[-1].startswith("plot_") or _GALLERIES & {p.lower() for p in parts[:-1]}:
        return bool(_docstring(text, [])[0].strip())
    return False


def is_cell_script(text: str) -> bool:
    """Whether a Python file is a notebook written as a script: a `# %%` or `# In[ ]:`
    marker, or a line of `#` over a comment block, at a line's start."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _CELL.match(line):
            return True
        if _BAR.match(line) and i + 1 < len(lines) and _COMMENT.match(lines[i + 1]):
            return True
    return False


def render(text: str) -> tuple[str, str]:
    """(title, Markdown) of a cell script: its docstring, then its cells' text and code;
    the title the first heading's ("" without one)."""
    lines = text.replace("\r\n", "\n").split("\n")
    levels: list[str] = []  # underline characters in the order they first appear
    doc, start = _docstring(text, levels)
    parts: list[str] = [doc] if doc.strip() else []
    code: list[str] = []
    i = start

    def flush_code() -> None:
        body = textwrap.dedent("\n".join(code)).strip("\n")
        if body.strip():
            parts.append(f"```python\n{body}\n```")
        code.clear()

    while i < len(lines):
        line = lines[i]
        if _CELL.match(line) or (_BAR.match(line) and i + 1 < len(lines)):
            flush_code()
            j = i + 1
            block: list[str] = []
            while j < len(lines) and _COMMENT.match(lines[j]) and not _CELL.match(lines[j]):
                if _BAR.match(lines[j]):  # a closing bar, or the next block's
                    break
                block.append(lines[j][2:] if lines[j].startswith("# ") else "")
                j += 1
            marker = line.split("%%", 1)[1] if "%%" in line else ""
            title = re.sub(r"\[\w+\]", "", marker).strip()
            if title and not block:  # `# %% Loading the data`: a cell's title
                block = [title, "-" * len(title)]
            if any(b.strip() for b in block):
                parts.append(rst_to_markdown("\n".join(block), levels))
            i = j
            continue
        code.append(line)
        i += 1
    flush_code()
    markdown = "\n\n".join(p.strip("\n") for p in parts if p.strip())
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
    heading = re.search(r"^#{1,6} (.+)$", markdown, re.M)
    return (heading.group(1).strip() if heading else ""), markdown


def _docstring(text: str, levels: list[str]) -> tuple[str, int]:
    """The module docstring as Markdown and the line the code starts at after it; ("", 0)
    without one (or when the file does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return "", 0
    body = tree.body
    if not body or not isinstance(body[0], ast.Expr):
        return "", 0
    value = body[0].value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return "", 0
    end = body[0].end_lineno or 0
    return rst_to_markdown(textwrap.dedent(value.value).strip("\n"), levels), end


def rst_to_markdown(text: str, levels: list[str]) -> str:
    """Light reStructuredText as Markdown: underlined titles headings (`levels` the order of
    the underline characters seen so far, shared across a page's blocks), roles and
    literals code spans, an admonition under its name, a `::` literal block fenced."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        # an overlined title: `=====` / `Title` / `=====`
        if _UNDERLINE.match(line) and nxt.strip() and i + 2 < len(lines):
            under = lines[i + 2]
            if _UNDERLINE.match(under) and under.strip()[0] == line.strip()[0]:
                out.extend(_heading(nxt.strip(), "o" + line.strip()[0], levels))
                i += 3
                continue
        if line.strip() and _UNDERLINE.match(nxt) and len(nxt.strip()) >= len(line.strip()):
            if not _UNDERLINE.match(line):
                out.extend(_heading(line.strip(), nxt.strip()[0], levels))
                i += 2
                continue
        m = _DIRECTIVE.match(line)
        if m is not None:
            indent, name, arg = m.groups()
            j = i + 1
            content: list[str] = []
            while j < len(lines) and (not lines[j].strip() or _width(lines[j]) > len(indent)):
                content.append(lines[j])
                j += 1
            inner = textwrap.dedent("\n".join(content)).strip("\n")
            if name in ("code-block", "code", "sourcecode"):
                out.extend(["", f"```{arg.strip() or 'python'}", inner, "```", ""])
            elif name.lower() in _ADMONITIONS:
                said = " ".join(p for p in (arg.strip(), _inline(inner)) if p)
                out.extend(["", f"{name.capitalize()}: {said}", ""])
            elif name in ("math",):
                out.extend(["", "$$", (arg.strip() + "\n" + inner).strip(), "$$", ""])
            elif inner.strip() and name not in ("image", "figure", "raw", "only", "plot"):
                out.extend(["", _inline(inner), ""])
            i = j
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            said = line.rstrip()[:-1] if line.rstrip()[-3:-2] != " " else line.rstrip()[:-3]
            j = i + 1
            block: list[str] = []
            while j < len(lines) and (not lines[j].strip() or _width(lines[j]) > _width(line)):
                block.append(lines[j])
                j += 1
            code = textwrap.dedent("\n".join(block)).strip("\n")
            if said.strip():
                out.append(_inline(said))
            if code:
                out.extend(["", "```", code, "```", ""])
            i = j
            continue
        out.append(_inline(line))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def _heading(title: str, mark: str, levels: list[str]) -> list[str]:
    if mark not in levels:
        levels.append(mark)
    level = min(levels.index(mark) + 1, 6)
    return ["", f"{'#' * level} {_inline(title)}", ""]


def _inline(text: str) -> str:
    """Roles (`:class:`~sklearn.svm.SVC``, `:ref:`text <target>``) and ``literals`` as
    code spans."""
    text = _ROLE.sub(lambda m: f"`{m.group(1).strip()}`", text)
    return _LITERAL.sub(r"`\1`", text)


def _width(line: str) -> int:
    return len(line) - len(line.lstrip())
