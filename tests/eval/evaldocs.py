"""Documents for the eval set and eval stage tests: API docstrings and markdown guides with
made-up words, split into training and held-out, in a workspace's store."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Document

# a paragraph that a held-out guide quotes from a training guide, word for word
COPIED = (
    "Every request is logged with its origin, its size and the time it took, so that a slow "
    "path can be found later without a debugger attached."
)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghjklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def make_docs(n: int, rng: random.Random) -> list[Document]:
    """Half API docstrings, half markdown guides, each with words of its own."""
    out = []
    for k in range(n):
        w = [_word(rng) for _ in range(12)]
        if k % 2:
            name = f"pkg{k}.{w[0]}"
            text = (
                f"{name}(value, count=1)\n\nReturn the {w[1]} {w[2]} of value, computed "
                f"with the {w[3]} {w[4]} method.\n\nThe count argument says how many "
                f"times the {w[5]} step is applied."
            )
            out.append(Document("python_stdlib", f"python:{name}", name, text))
        else:
            text = (
                f"# The {w[0]} guide\n\nThis guide explains how {w[1]} {w[2]} works and "
                f"why the {w[3]} matters for every {w[4]} in the system.\n\n## Setup of "
                f"{w[5]}\n\nInstall the {w[6]} package first, then configure the {w[7]} "
                f"file with the {w[8]} option set.\n"
            )
            out.append(Document("local", f"/docs/guides/{w[0]}.md", w[0], text))
    return out


def chunk_of(doc: Document, split: str) -> Chunk:
    return Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(doc.text), doc.text, split)  # type: ignore[arg-type]


def doc_workspace(root: Path, yaml_extra: str = "") -> Workspace:
    """Workspace `t` under `root` (JUPITER_HOME must point there), its store filled."""
    (root / "t.yaml").write_text(f"name: t\nsources: [{{type: local, path: docs}}]\n{yaml_extra}")
    w = Workspace(load_domain(str(root / "t.yaml")), console=Console(file=io.StringIO(), width=200))
    rng = random.Random(0)
    train, held = make_docs(12, rng), make_docs(8, rng)
    train.append(
        Document("local", "/docs/guides/logging.md", "logging", f"# Logging\n\n{COPIED}\n")
    )
    held.append(
        Document("local", "/docs/guides/tracing.md", "tracing", f"# Tracing requests\n\n{COPIED}\n")
    )
    w.store.add_documents(train + held)
    w.store.add_chunks(
        [chunk_of(d, "train") for d in train] + [chunk_of(d, "heldout") for d in held]
    )
    return w


def eval_with_tiny_models(root: Path, yaml_extra: str) -> tuple[Workspace, dict[str, Any]]:
    """The eval stage of cycle 1 in a doc workspace, with a tiny random untrained model and
    student (different seeds): the (closed) workspace, its console output kept, and the
    stage's record."""
    from jupiter.improve.evaluate import eval_stage
    from tinyhf import save_tiny

    ws = doc_workspace(root, yaml_extra)
    ws.console = Console(file=io.StringIO(), width=250)
    save_tiny("llama", ws.root / "untrained", seed=0)
    save_tiny("llama", ws.student_dir(1), seed=1)
    try:
        return ws, eval_stage(ws, 1)
    finally:
        ws.close()
