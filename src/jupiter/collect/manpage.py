"""Manual pages read as `man` prints them: a page's roff source (`/usr/share/man/man1/ls.1.gz`,
a project's `doc/tool.1`) rendered to text by the formatter on this machine, groff (`groff
-mandoc -Tutf8`, what `man` runs on Linux) or mandoc (the BSDs', macOS's), its overstrikes
(bold, underline) taken off as `col -b` does.

Read as it was, a page gave the question templates its requests and escapes (".TH GREP 1",
"\\fB\\-\\-count\\fR", ".de dT"), no prose. The text is the layout the manual-page readers
of synth/docparse.py know: section headings at the margin, paragraphs and option
descriptions indented. A page that only points to another (`.so man1/gzip.1`: gunzip's) is
that other page, read under its own name: it is counted, not read twice. With no formatter
on the machine a page is counted with the fix (install groff or mandoc), not read as roff.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from jupiter.collect.result import CollectResult, count

# ls.1, perl.3pm, openssl-req.1ssl, cron.8 (the section, then letters of a suite)
NAME = re.compile(r"\.[1-9][a-z]*$|\.man$", re.I)
_REQUEST = re.compile(r"^[.'](?:\s*[A-Za-z\\\"]|\s*$|\.\s*$)")
_DEFINE = re.compile(r"^[.']\s*(?:de1?|am1?|ig)\b")
_PAGE_REQUEST = re.compile(r"^[.']\s*(?:TH|Dd|Dt|so)\b")
_ALIAS = re.compile(r"^\.so\s+\S+\s*$")
MAN_ALIAS = "man_alias"
MAN_NO_FORMATTER = "man_no_formatter"
MAN_UNREADABLE = "man_unreadable"
FIXES = {
    MAN_ALIAS: "a manual page that only points to another (.so) is read as that other page",
    MAN_NO_FORMATTER: (
        "manual pages are rendered by groff or mandoc, and neither is on this machine: "
        "install one (apt install groff-base; brew install groff) and collect again"
    ),
    MAN_UNREADABLE: "the formatter could not render these pages: check them with `man -l FILE`",
}
TIMEOUT = 60  # seconds one page may take to render


def is_page_name(name: str) -> bool:
    """Whether a file name (without a trailing .gz) is a manual page's (`ls.1`, `x.3pm`)."""
    return bool(NAME.search(name))


def is_roff(text: str) -> bool:
    """Whether the text is a manual page's roff source: it opens with a request or a
    comment, and a page's title request (`.TH`, mdoc's `.Dd`/`.Dt`) or a pointer to another
    page (`.so`) comes before its first line of prose (a preamble of requests, comments and
    macro definitions may come first: pod2man's runs to 130 lines, rst2man's defines macros
    whose bodies are text), or at least in its first 2,000 lines when it opens so."""
    lines = [x for x in text.splitlines()[:2000] if x.strip()]
    if not lines or not (_REQUEST.match(lines[0]) or lines[0].startswith("\\")):
        return False
    in_macro = False
    for line in lines:
        if in_macro:
            in_macro = line.strip() != ".."
            continue
        if _PAGE_REQUEST.match(line):
            return True
        if _DEFINE.match(line):
            in_macro = True
            continue
        if not (_REQUEST.match(line) or line.startswith("\\")):  # `\{\`, `\"` too
            break
    return any(_PAGE_REQUEST.match(x) for x in lines)


def is_alias(text: str) -> bool:
    """A page that only points to another: `.so man1/gzip.1` and comments."""
    body = [x for x in text.splitlines() if x.strip() and not x.startswith(('.\\"', "'\\\""))]
    return len(body) == 1 and _ALIAS.match(body[0]) is not None


def formatter() -> list[str] | None:
    """The command that renders a page read on its standard input to UTF-8 text, or None."""
    if shutil.which("groff"):
        # -k: preprocess for the input's encoding; -P-c: overstrikes, not ANSI colors; -S:
        # safer mode (groff's default, said): a page cannot run commands or open files
        return ["groff", "-S", "-k", "-mandoc", "-Tutf8", "-P-c"]
    if shutil.which("mandoc"):
        return ["mandoc", "-Tutf8"]
    return None


def render(source: bytes, command: list[str]) -> str | None:
    """The page's text as `man` shows it, overstrikes off; None when it cannot be rendered."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    try:
        proc = subprocess.run(command, input=source, capture_output=True, timeout=TIMEOUT, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0 and not proc.stdout:
        return None
    text = without_leading_blank_lines(strip_overstrike(proc.stdout.decode("utf-8", "replace")))
    return text if text.strip() else None


def page_or_reject(
    data: bytes, text: str, where: str, rejects: CollectResult | None = None
) -> str | None:
    """A page's roff source (`data`, decoded as `text`) rendered as `man` prints it; None,
    counted in `rejects` by reason, for a page that points to another (`.so`), or when no
    formatter is on this machine or it cannot render the page."""
    command = formatter()
    rendered = None
    if is_alias(text):
        why = MAN_ALIAS
    elif command is None:
        why = MAN_NO_FORMATTER
    else:
        rendered = render(data, command)
        why = MAN_UNREADABLE
    if rendered is None:
        count(rejects, why, where)
    return rendered


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def without_leading_blank_lines(text: str) -> str:
    """The text from its first line that holds something (gcloud's pages render after a
    blank line; a text file may open with some): the document's first chunk then starts at
    0 and is read as its start (its title, a page's NAME line), its first line indented as
    it was."""
    return _LEADING_BLANK_LINES.sub("", text, count=1)


def strip_overstrike(text: str) -> str:
    """What `col -b` does: "X\\bX" (bold) and "_\\bX" (underline) keep the last character."""
    out: list[str] = []
    for ch in text:
        if ch == "\b":
            if out:
                out.pop()
            continue
        out.append(ch)
    return "".join(out)
