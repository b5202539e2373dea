"""State that must not override the YAML: a generator changed in the
YAML of an existing workspace is the one in force (recorded as an activation), a missing
model fails before any stage; a stage command run before its input exists is refused
without a workspace, and one run out of order is not marked done."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from fakellm import FakeLLM
from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.improve.cycle import run_stage_command
from jupiter.improve.lineage import lineage_tables, rollback
from jupiter.improve.workspace import Workspace

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
DOCS = {
    "cache": "The cache stores the results of expensive calls. Each entry expires after the "
    "configured time to live. The clear function empties the whole cache at once.",
    "queue": "The queue hands work from producers to consumers. A bounded queue blocks the "
    "producer when it is full. Each item is delivered to exactly one consumer.",
    "retry": "The retry helper calls a function again when it fails. The delay doubles after "
    "every failed attempt. After the last attempt the original error is raised again.",
}


def write_domain(home: Path, generator: str) -> Path:
    docs = home / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n")
    path = home / "d.yaml"
    path.write_text(
        f"name: st\nsources: [{{type: local, path: docs}}]\n"
        f"chunking: {{heldout_fraction: 0.0}}\ngenerator: {generator}\n"
    )
    return path


def open_ws(path: Path) -> Workspace:
    return Workspace(load_domain(str(path)), console=Console(file=io.StringIO(), width=300))


def said(ws: Workspace) -> str:
    return " ".join(ws.console.file.getvalue().split())  # type: ignore[attr-defined]


def rows(ws: Workspace) -> dict[str, int]:
    tables = ("documents", "chunks", "examples", "cycles", "generators")
    return {t: ws.store.count(t) for t in tables} | {
        "events": len(ws.store.generator_events()),
        "stages": len(ws.store.stages(1)),
    }


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    return tmp_path


def extractive_workspace(home: Path) -> Path:
    """collect + generate with the extractive generator; returns the YAML."""
    path = write_domain(home, "{type: extractive, max_questions_per_chunk: 1}")
    ws = open_ws(path)
    for stage in ("collect", "generate"):
        run_stage_command(ws, stage)
    assert ws.store.active_generator()["id"] == "extractive"  # type: ignore[index]
    ws.close()
    return path


def test_missing_model_in_the_changed_yaml_fails_before_any_stage(home: Path) -> None:
    path = extractive_workspace(home)
    ws = open_ws(path)
    before = rows(ws)
    ws.close()
    write_domain(home, "{type: model, model_path: ./gone-model}")
    ws = open_ws(path)
    with pytest.raises(JupiterError) as err:
        run_stage_command(ws, "generate")
    assert str(err.value).startswith(f"generator.model_path: model not found: {home}/gone-model")
    assert rows(ws) == before and ws.store.active_generator()["id"] == "extractive"  # type: ignore[index]
    ws.close()
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    write_domain(home, f'{{type: llm, llm: {{base_url: "http://127.0.0.1:{port}/v1"}}}}')
    ws = open_ws(path)
    with pytest.raises(JupiterError, match=rf"^generator\.llm: the LLM server at .*:{port}/v1 is"):
        run_stage_command(ws, "generate")  # probed: the new teacher, not the old generator
    assert rows(ws) == before
    ws.close()


def test_a_changed_generator_in_the_yaml_is_the_one_in_force(home: Path) -> None:
    """extractive → an openai LLM: the LLM generates (no "llm.backend is transformers"),
    recorded as an activation shown by `jupiter generators`; a promoted student stays in
    force until the YAML changes again; rollback to an LLM the YAML no longer names is
    refused."""
    path = extractive_workspace(home)
    with FakeLLM() as llm:
        write_domain(
            home,
            f"{{type: llm, num_requests: 3, continuation: false, "
            f'llm: {{base_url: "{llm.base_url}", model: teacher}}}}',
        )
        ws = open_ws(path)
        tables = Console(file=io.StringIO(), width=300)
        for table in lineage_tables(ws):  # before any stage: the change is announced
            tables.print(table)
        assert "the YAML's generator is now llm:openai:teacher (was extractive)" in " ".join(
            tables.file.getvalue().split()
        )  # type: ignore[attr-defined]
        info = run_stage_command(ws, "generate")
        assert llm.count == 3 and info["generator"] == "llm:openai:teacher"
        assert info["requests"] == 3 and info["failed"] == 0
        events = ws.store.generator_events()
        assert [(e["action"], e["generator"], e["previous"], e["reason"]) for e in events] == [
            ("initial", "extractive", "", "the first generator: generator.type in the domain YAML"),
            (
                "configured",
                "llm:openai:teacher",
                "extractive",
                "generator changed in the YAML (was extractive)",
            ),
        ]
        assert "generator: llm:openai:teacher is active now" in said(ws)
        run_stage_command(ws, "generate")  # unchanged YAML: no new activation
        assert len(ws.store.generator_events()) == 2 and llm.count == 3  # cached answers

        # a promoted student generates while the YAML stays as it is
        student = ws.student_dir(1)
        student.mkdir(parents=True)
        ws.store.add_generator(
            "model:cycle-001",
            "model",
            str(student),
            1,
            parent="llm:openai:teacher",
            status="promoted",
            reason="won",
        )
        ws.store.activate_generator("model:cycle-001", cycle=1, action="promoted", reason="won")
        ws.close()
        ws = open_ws(path)
        from jupiter.improve.generator import active_generator

        assert active_generator(ws)["id"] == "model:cycle-001"
        tables = Console(file=io.StringIO(), width=300)
        for table in lineage_tables(ws):
            tables.print(table)
        text = " ".join(tables.file.getvalue().split())  # type: ignore[attr-defined]
        assert "generator changed in the YAML (was extractive)" in text
        assert "the YAML's generator: llm:openai:teacher; model:cycle-001 generates instead" in text
        ws.close()

    # back to extractive in the YAML: it wins over the promoted student
    write_domain(home, "{type: extractive, max_questions_per_chunk: 1}")
    ws = open_ws(path)
    assert active_generator(ws)["id"] == "extractive"
    last = ws.store.generator_events()[-1]
    assert (last["action"], last["previous"]) == ("configured", "model:cycle-001")
    assert last["reason"] == "generator changed in the YAML (was llm:openai:teacher)"
    with pytest.raises(JupiterError, match=r"llm:openai:teacher is an LLM an earlier version"):
        rollback(ws, "llm:openai:teacher")
    assert rollback(ws, "model:cycle-001")["to"] == "model:cycle-001"  # still possible
    assert active_generator(ws)["id"] == "model:cycle-001"  # the YAML did not change again
    ws.close()


@pytest.mark.slow  # the command's imports (torch, transformers): ~7 s on a shared machine
def test_filter_first_on_a_fresh_workspace_is_refused(home: Path) -> None:
    """Through the real command: one line naming the stage to run first, no workspace."""
    path = write_domain(home, "{type: extractive}")
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="200")
    r = subprocess.run(
        [JUPITER, "filter", "--domain", str(path)],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    expected = "filter: the workspace has no documents yet: run `jupiter collect --domain st`"
    assert r.stderr.strip() == f"error: {expected} first"
    assert not (home / "runs").exists()


def test_stage_commands_need_their_inputs_and_mark_in_order(home: Path) -> None:
    path = write_domain(home, "{type: extractive, max_questions_per_chunk: 1}")
    ws = open_ws(path)
    expected = {
        "generate": "generate: the workspace has no documents yet: run `jupiter collect",
        "filter": "filter: the workspace has no documents yet: run `jupiter collect",
        "train": "train: the workspace has no documents yet: run `jupiter collect",
        "eval": "eval: cycle 1 has no trained student yet: run `jupiter train --domain st`",
    }
    for stage, start in expected.items():
        with pytest.raises(JupiterError) as err:
            run_stage_command(ws, stage)
        assert str(err.value).startswith(start), err.value
    assert not ws.has_store() and not (home / "runs").exists()

    run_stage_command(ws, "collect")
    for stage, start in (
        ("filter", "filter: cycle 1 has no generated examples to filter: run `jupiter generate"),
        ("train", "train: no accepted examples to train on yet: run `jupiter generate"),
    ):
        with pytest.raises(JupiterError) as err:
            run_stage_command(ws, stage)
        assert str(err.value).startswith(start), err.value
    assert list(ws.store.stages(1)) == ["collect"]
    run_stage_command(ws, "generate")
    with pytest.raises(JupiterError, match="run `jupiter filter --domain st` first"):
        run_stage_command(ws, "train")
    info = run_stage_command(ws, "filter")
    assert info["examined"] > 0 and ws.store.count("examples", "status = 'accepted'") > 0
    assert list(ws.store.stages(1)) == ["collect", "generate", "filter"]

    # cycle 1 done: `jupiter generate` now works on cycle 2 (its documents exist) but is not
    # marked, since cycle 2's collect has not run: `start` runs generate again after it
    for stage in ("train", "eval", "decide"):
        ws.store.mark_stage(1, stage, {})
    ws.store.start_cycle(1, "extractive")
    ws.store.finish_cycle(1)
    run_stage_command(ws, "generate")
    assert ws.store.stages(2) == {}
    assert "generate: not marked done in cycle 2, whose collect has not run" in said(ws)
    ws.close()
