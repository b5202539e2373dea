"""General ability: bits-per-byte on text outside the domain, so that forgetting shows.

A student that learns its domain by overwriting what its base model knew gets better
domain figures and worse general ones (catastrophic forgetting, documented for LLM
fine-tuning by Luo et al. 2023, "An Empirical Study of Catastrophic Forgetting in Large
Language Models During Continual Fine-tuning"); bits-per-byte on general text is the
cheapest measure of it that needs no labelled data. The text is `eval.general_path` (a file, or a folder
of .txt/.md/.rst files), by default a bundled sample of encyclopedic English prose on topics
far from software (about 30 KB, written for Jupiter). Each paragraph is one unit of the
bootstrap interval and of the paired comparison.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jupiter.errors import JupiterError

BUNDLED = "general_en.txt"
SUFFIXES = (".txt", ".md", ".rst", ".text")


def paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs; a one-line heading is joined to the paragraph after
    it (alone it would be a unit of a few bytes)."""
    out: list[str] = []
    heading = ""
    for block in text.replace("\r\n", "\n").split("\n\n"):
        block = block.strip()
        if not block:
            continue
        if "\n" not in block and (block.startswith("#") or not block.endswith((".", "?", "!"))):
            heading = f"{heading}\n{block}".strip()
            continue
        out.append(f"{heading}\n{block}" if heading else block)
        heading = ""
    if heading:
        out.append(heading)
    return out


def bundled_text() -> str:
    return (
        resources.files("jupiter.eval")
        .joinpath("data")
        .joinpath(BUNDLED)
        .read_text(encoding="utf-8")
    )


def general_texts(path: Path | None) -> list[str]:
    """The general-text units: of `path` (a file, or the text files of a folder, in name
    order), or of the bundled sample when None."""
    if path is None:
        return paragraphs(bundled_text())
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    else:
        raise JupiterError(
            f"general text not found: {path} (fix eval.general_path: a text file or a folder)"
        )
    out: list[str] = []
    for f in files:
        try:
            out += paragraphs(f.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise JupiterError(f"{f} is not UTF-8 text (eval.general_path)") from None
    if not out:
        raise JupiterError(f"no text in {path} (eval.general_path wants {'/'.join(SUFFIXES)})")
    return out
