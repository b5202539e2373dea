"""A project folder written from a {path: text} dict, and the local source that collects it
with chosen include globs: what the collect tests of a language's API read from disk."""

from __future__ import annotations

from pathlib import Path

from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig
from jupiter.records import Document


def write_tree(root: Path, tree: dict[str, str]) -> None:
    for rel, text in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def collect_tree(
    tmp_path: Path, tree: dict[str, str], include: list[str], **extra: object
) -> tuple[dict[str, Document], CollectResult]:
    """`tree` written to tmp_path/project and collected: documents by uri, and the rejects."""
    write_tree(tmp_path / "project", tree)
    src = {"type": "local", "path": "project", "include": include, **extra}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [src]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    return {d.uri: d for d in docs}, rejects
