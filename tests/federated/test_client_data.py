"""A client's packed data: packed once, kept in its workspace, packed again when anything
that shapes it changes (the knowledge recipe included)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fedsetup import fill_queue, write_domain
from rich.console import Console

from jupiter.config import load_domain
from jupiter.federated.client import packed_data
from jupiter.improve.workspace import Workspace
from jupiter.records import Example


def test_the_packed_data_follow_the_knowledge_recipe(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    yaml = write_domain(tmp_path, "c", tiny_model_dirs["llama"])
    facts = [  # templated Q&A, the kind the recipe asks again
        Example(
            "qa",
            "extractive",
            f"chunk-{i}",
            "what_does",
            [
                {"role": "user", "content": f"What does `zork.frob{i}` do?"},
                {"role": "assistant", "content": f"Return the frobbed copy number {i} of a list."},
            ],
            status="accepted",
        )
        for i in range(6)
    ]
    fill_queue(tmp_path, yaml, facts)

    def packed() -> tuple[int, int, str]:
        ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO()))
        try:
            data, n, key, _ = packed_data(ws)
            return data.num_rows, data.tokens, key
        finally:
            ws.close()

    recipe = packed()  # a base model: the fine-tuning defaults' recipe asks each fact again
    assert packed() == recipe  # kept: the same key, the same rows
    text = yaml.read_text(encoding="utf-8")
    yaml.write_text(text.replace("  warmup_steps: 0\n", "  warmup_steps: 0\n  knowledge: {}\n"))
    plain = packed()
    assert plain[2] != recipe[2]  # packed again, not read from the recipe's cache
    assert plain[1] < recipe[1]  # no facts asked again: fewer tokens
    assert len(list((tmp_path / "runs" / "c" / "federated" / "data").iterdir())) == 2
