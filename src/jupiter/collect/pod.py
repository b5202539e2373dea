"""Perl's documentation read as the Markdown it amounts to: POD, the `=head1`... `=cut`
blocks of a module (`.pm`), a script (`.pl`) or a document of its own (`.pod`), as
perldoc shows it. Read as text, a module was its code with the POD commands and
formatting codes in between ("=item B<--verbose>", "C<< $x->y >>"); here each POD block's
paragraphs become Markdown: `=head1`-`=head4` headings, `=over`/`=item`/`=back` lists (an
item naming a term, `=item B<--verbose>`, a definition `- --verbose: ...`, its first
paragraph the description), verbatim (indented) paragraphs fenced code, and the
formatting codes their text (`C<x>` code, `B<>`/`I<>` plain, `L<text|target>` its text,
`E<lt>` its character, `X<>`/`Z<>` nothing), nested and with doubled brackets. `=begin`/
`=end` and `=for` blocks for other formatters are left out. The document is titled by its
NAME section ("Locale::Maketext - framework for localization"). A module or script with no
POD gives no document and is counted.
"""

from __future__ import annotations

import html
import re
import textwrap

from jupiter.collect.result import CollectResult, count

SUFFIXES = (".pod", ".pm", ".pl")
POD_NONE = "pod_none"
FIXES = {
    POD_NONE: (
        "Perl modules and scripts are read as their POD documentation; these have none: "
        "the source's perl: text reads them as text"
    )
}
_OPEN = re.compile(r"([A-Z])(<+)(\s?)")
_COMMAND = re.compile(r"^=([a-zA-Z]\w*)\s*(.*)$", re.S)
_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&"}


def is_pod_file(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def document_or_reject(
    text: str, name: str, where: str, rejects: CollectResult | None = None
) -> tuple[str, str] | None:
    """(title, Markdown) of a file's POD; None, counted `pod_none`, when it has none."""
    title, markdown = to_markdown(text, whole=name.lower().endswith(".pod"))
    if not markdown.strip():
        count(rejects, POD_NONE, where)
        return None
    return title, markdown


def pod_paragraphs(text: str, whole: bool = False) -> list[str]:
    """The POD paragraphs of a file: those from a command paragraph (`=head1`, `=pod`, ...)
    to `=cut`; all of a `.pod` file's (`whole`) from its first command on."""
    paragraphs = re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n"))
    out: list[str] = []
    inside = False
    for p in paragraphs:
        stripped = p.strip("\n")
        if not stripped.strip():
            continue
        if stripped.startswith("="):
            command = stripped.split(None, 1)[0]
            if command == "=cut":
                inside = False
                continue
            inside = True
        elif not inside:
            continue
        out.append(stripped)
    if whole and not out:
        out = [p.strip("\n") for p in paragraphs if p.strip()]
    return out


def to_markdown(text: str, whole: bool = False) -> tuple[str, str]:
    """(title, Markdown) of a file's POD; ("", "") when it has none."""
    paragraphs = pod_paragraphs(text, whole)
    out: list[str] = []
    title = ""
    stack: list[str] = []  # open =over lists: "bullet", "number", "term"
    skip_until = ""  # inside =begin FORMAT ... =end FORMAT
    section = ""
    pending_term = ""  # a term item waiting for its description
    for p in paragraphs:
        m = _COMMAND.match(p)
        if skip_until:
            if m is not None and m.group(1) == "end" and m.group(2).strip() == skip_until:
                skip_until = ""
            continue
        if m is not None:
            command, arg = m.group(1), " ".join(m.group(2).split())
            if command.startswith("head") and command[4:].isdigit():
                pending_term = _flush_term(out, pending_term)
                level = min(int(command[4:]), 6)
                section = codes(arg)
                out += [f"{'#' * level} {section}", ""]
            elif command == "over":
                pending_term = _flush_term(out, pending_term)
                stack.append("")
            elif command == "back":
                pending_term = _flush_term(out, pending_term)
                if stack:
                    stack.pop()
                out.append("")
            elif command == "item":
                pending_term = _flush_term(out, pending_term)
                kind, item = _item(arg)
                if stack:
                    stack[-1] = stack[-1] or kind
                indent = "  " * max(len(stack) - 1, 0)
                mark = "1." if kind == "number" else "-"
                if kind == "term":
                    pending_term = f"{indent}- `{item}`:" if item else ""
                elif item:
                    out.append(f"{indent}{mark} {item}")
                else:  # "=item *" alone: the next paragraph is the item
                    pending_term = f"{indent}{mark}"
            elif command == "begin":
                skip_until = arg.split()[0] if arg else ""
            # =for, =encoding, =pod, =cut, =end: nothing to show
            continue
        if p[:1] in (" ", "\t"):  # a verbatim paragraph: code as written
            pending_term = _flush_term(out, pending_term)
            out += ["```", textwrap.dedent(p).rstrip(), "```", ""]
            continue
        paragraph = codes(" ".join(p.split()))
        if pending_term:
            out += [f"{pending_term} {paragraph}", ""]
            pending_term = ""
        elif stack and out and out[-1].lstrip().startswith(("- ", "1. ")):
            out[-1] = f"{out[-1]} {paragraph}"
        else:
            out += [paragraph, ""]
        if section.upper() == "NAME" and not title:
            title = paragraph
    _flush_term(out, pending_term)
    markdown = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
    return title, (markdown + "\n" if markdown else "")


def _flush_term(out: list[str], term: str) -> str:
    """A term item with no description yet, said alone (its colon off)."""
    if term and term.rstrip(":").strip() not in ("-", "1."):
        out += [term.rstrip(":"), ""]
    return ""


def _item(arg: str) -> tuple[str, str]:
    """(kind, text) of an `=item`: a bullet (`*`), a number (`1.`), or a term."""
    if arg in ("", "*", "o", "-"):
        return "bullet", ""
    if arg.startswith(("* ", "o ", "- ")):
        return "bullet", codes(arg[2:].strip())
    m = re.match(r"^(\d+)\.?\s*(.*)$", arg)
    if m is not None and (m.group(2) or not arg.strip(".").isdigit() or arg.endswith(".")):
        return "number", codes(m.group(2))
    return "term", codes(arg, plain=True)


def codes(text: str, plain: bool = False) -> str:
    """POD's formatting codes as Markdown (`plain`: no backticks, for a list's term)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        m = _OPEN.match(text, i) if text[i].isupper() else None
        if m is None:
            out.append(text[i])
            i += 1
            continue
        code, opens = m.group(1), len(m.group(2))
        start = m.end()
        if opens > 1 and not m.group(3):  # C<<x> is C< <x >: doubled brackets need a space
            opens, start = 1, i + 2
        if opens == 1:
            end, depth, j = -1, 1, start
            while j < n:
                if text[j] == "<" and j > 0 and text[j - 1].isupper():
                    depth += 1
                elif text[j] == ">":
                    depth -= 1
                    if depth == 0:
                        end = j
                        break
                j += 1
            after = end + 1
        else:
            close = " " + ">" * opens
            end = text.find(close, start)
            after = end + len(close) if end >= 0 else -1
        if end < 0:
            out.append(text[i])
            i += 1
            continue
        inner = text[start:end]
        out.append(_code(code, inner.strip() if opens > 1 else inner, plain))
        i = after
    return "".join(out)


def _code(code: str, inner: str, plain: bool) -> str:
    if code in ("X", "Z"):
        return ""
    if code == "E":
        if inner.isdigit():
            return chr(int(inner))
        if inner.lower().startswith("0x"):
            return chr(int(inner, 16))
        return _ESCAPES.get(inner, html.unescape(f"&{inner};"))
    body = codes(inner, plain)
    if code == "L":  # L<text|target>, L<name/"section">, L<Module::Name>
        text, bar, _ = body.partition("|")
        if bar:
            return text
        name, slash, section = body.partition("/")
        section = section.strip('"')
        if slash and section:
            return f'"{section}" in {name}' if name else f'"{section}"'
        return body
    if code in ("C", "F") and not plain:
        return f"`{body}`" if "`" not in body else body
    return body
