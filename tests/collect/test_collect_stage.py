"""collect(cfg): every source in order, deduplicated, chunked; clear errors; no store writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupiter.collect import collect
from jupiter.config import DomainConfig
from jupiter.errors import JupiterError


def domain(tmp_path: Path, *sources: dict, **extra: object) -> DomainConfig:
    cfg = DomainConfig.model_validate({"name": "demo", "sources": list(sources), **extra})
    cfg.base_dir = tmp_path
    return cfg


def test_collects_every_source_dedups_and_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n" + "Alpha text. " * 300)
    (tmp_path / "docs" / "b.txt").write_text("Beta.")
    cfg = domain(
        tmp_path,
        {"type": "python_stdlib", "modules": ["json"], "topics": False},
        {"type": "local", "path": "docs"},
        {"type": "local", "path": "docs/a.md"},  # the same file again: deduplicated
        chunking={"max_chars": 1000, "overlap": 100, "heldout_fraction": 0.0},
    )
    progress: list[tuple[str, int]] = []
    docs, chunks = collect(cfg, on_progress=lambda label, n: progress.append((label, n)))
    assert [d.uri for d in docs][:5] == [
        "python:json",
        "python:json.dump",
        "python:json.dumps",
        "python:json.load",
        "python:json.loads",
    ]
    docs_dir = (tmp_path / "docs").resolve()
    assert [d.uri for d in docs][5:] == [str(docs_dir / "a.md"), str(docs_dir / "b.txt")]
    assert len({d.id for d in docs}) == len(docs) == 7
    assert progress == [
        ("python_stdlib (docstrings; modules ['json'])", 5),
        (f"local: {docs_dir}", 2),
        (f"local: {docs_dir / 'a.md'}", 1),
        ("chunks", len(chunks)),
    ]
    by_doc = {d.id: d for d in docs}
    for c in chunks:
        assert by_doc[c.doc_id].text[c.start : c.end] == c.text and c.split == "train"
    a_chunks = [c for c in chunks if c.uri.endswith("a.md")]
    assert len(a_chunks) == 4  # 3605 chars, advancing ~900 (1000 less the overlap) a chunk
    assert all(0 < x.end - y.start <= 100 for x, y in zip(a_chunks, a_chunks[1:], strict=False))
    assert not (tmp_path / "home").exists()  # collect writes nothing


def test_empty_corpus_names_the_sources_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "image.md").write_bytes(b"\x00\x01binary")
    (tmp_path / "docs" / "notes.pdf").write_bytes(b"%PDF-1.4")
    cfg = domain(tmp_path, {"type": "local", "path": "docs", "exclude": ["*.pdf"]})
    with pytest.raises(JupiterError) as err:
        collect(cfg)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg == (
        "empty corpus: the sources of domain 'demo' yielded no documents"
        f" (local: {(tmp_path / 'docs').resolve()} matched no non-empty text files with include"
        " ['*.md', '*.mdx', '*.rst', '*.txt', '*.html', '*.htm', '*.pdf', '*.py', '*.info', '*.info.gz',"
        " '*.info-[0-9]*', '*.ipynb', '*.adoc', '*.asciidoc', '*.org', '*.docx', '*.odt', '*.epub', '*.pod',"
        " '*.rdoc', '*.mediawiki', '*.wiki', '*.Rd', '*.Rmd', '*.qmd', '*.proto', '*.tex', '*.texi', '*.texinfo', 'README',"
        " 'openapi.json', 'openapi.yaml', 'openapi.yml', 'swagger.json', 'swagger.yaml',"
        " '*.schema.json', '*.graphql', '*.graphqls', '*.xsd', '*.dbk', '*.docbook', '*.sgml']"
        " and exclude"
        " ['*.pdf']);"
        " check sources[].path and include"
    )
