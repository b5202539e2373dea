"""The lineage of generators through the real cycle loop (with stand-in stages before the
decision): parents, cycles, figures, data and reasons; rollback through the store and the
`jupiter` command; promotion.patience stopping the loop; an old store migrating."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_records import MakeWorkspace, eval_record, hits, printed

from jupiter.errors import JupiterError
from jupiter.improve import cycle as cycle_mod
from jupiter.improve.generator import active_generator
from jupiter.improve.grounding import data_summary
from jupiter.improve.lineage import lineage_tables, rejections_in_a_row, rollback
from jupiter.improve.training import init_model_dir
from jupiter.improve.workspace import Workspace
from jupiter.records import Example
from jupiter.store import Store

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
WIN = (hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
LOSE = (hits(200, 0.3, seed=5), hits(200, 0.8, seed=6))


def fake_stages(monkeypatch: pytest.MonkeyPatch, outcomes: list[tuple[list, list]]) -> None:
    """Stand-ins up to the eval: a student dir, a training-data summary, and an eval record
    with the given per-item scores against the active generator; the real decide."""

    def nothing(ws: Workspace, cycle: int) -> dict[str, Any]:
        return {}

    def train(ws: Workspace, cycle: int) -> dict[str, Any]:
        ws.student_dir(cycle).mkdir(parents=True, exist_ok=True)
        examples = [
            Example("text", "extractive", f"c{cycle}", "continuation", text=f"doc {cycle}"),
            Example(
                "qa",
                "extractive",
                "c",
                "what_does",
                messages=[
                    {"role": "user", "content": f"q{cycle}"},
                    {"role": "assistant", "content": "a"},
                ],
            ),
            Example(
                "qa",
                "model:x",
                "c",
                "what_does",
                messages=[
                    {"role": "user", "content": f"m{cycle}"},
                    {"role": "assistant", "content": "b"},
                ],
            ),
        ]
        return {"data": data_summary(ws, cycle, examples)}

    def evaluate(ws: Workspace, cycle: int) -> dict[str, Any]:
        student, generator = outcomes[cycle - 1]
        return eval_record(student, generator, active_generator(ws)["id"])

    for name in ("collect", "generate", "filter"):
        monkeypatch.setitem(cycle_mod.STAGES, name, nothing)
    monkeypatch.setitem(cycle_mod.STAGES, "train", train)
    monkeypatch.setitem(cycle_mod.STAGES, "eval", evaluate)


def test_lineage_lists_parent_cycle_figures_data_and_reason(
    make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_stages(monkeypatch, [WIN, LOSE])
    ws = make_ws(cycles=2)
    assert cycle_mod.run_cycles(ws) == [1, 2]
    gens = {g["id"]: g for g in ws.store.generators()}
    assert list(gens) == ["extractive", "model:cycle-001", "model:cycle-002"]
    first, won, lost = gens.values()
    assert first["status"] == "initial" and first["cycle"] == 0 and first["reason"]
    assert won["parent"] == "extractive" and won["cycle"] == 1 and won["status"] == "promoted"
    assert won["active"] == 1 and "is above 0" in won["reason"]
    assert won["figures"]["metric"] == "mc_accuracy" and won["figures"]["ci"][0] > 0
    assert won["data"]["by_generator"] == {"extractive": 2, "model:x": 1}
    assert won["data"]["by_kind"] == {"qa": 2, "text": 1} and won["data"]["grounded"] == 2
    ids = Path(won["data"]["ids_file"]).read_text().split()
    assert len(ids) == 3 and len(won["data"]["ids_sha256"]) == 64
    assert lost["parent"] == "model:cycle-001" and lost["status"] == "rejected"
    assert lost["active"] == 0 and "needs >" in lost["reason"]
    events = ws.store.generator_events()
    assert [(e["action"], e["generator"], e["previous"]) for e in events] == [
        ("initial", "extractive", ""),
        ("promoted", "model:cycle-001", "extractive"),
    ]
    tables = lineage_tables(ws)
    assert tables[0].row_count == 3 and tables[1].row_count == 2


def test_rollback_restores_the_parent_and_is_recorded(
    make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_stages(monkeypatch, [WIN, WIN])
    ws = make_ws(cycles=2)
    cycle_mod.run_cycles(ws)
    assert ws.store.active_generator()["id"] == "model:cycle-002"
    done = rollback(ws)  # default: the active one's parent
    assert done == {"from": "model:cycle-002", "to": "model:cycle-001", "cycle": 2}
    assert ws.store.active_generator()["id"] == "model:cycle-001"
    last = ws.store.generator_events()[-1]
    assert (last["action"], last["previous"]) == ("rollback", "model:cycle-002")
    assert rollback(ws, "extractive")["to"] == "extractive"
    assert active_generator(ws)["id"] == "extractive"  # what generate will use
    with pytest.raises(JupiterError, match="is the first generator"):
        rollback(ws)
    with pytest.raises(JupiterError, match="no generator 'nope'"):
        rollback(ws, "nope")
    with pytest.raises(JupiterError, match="already the active"):
        rollback(ws, "extractive")


def test_after_a_rollback_training_goes_on_from_the_generator_rolled_back_to(
    make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_stages(monkeypatch, [WIN, WIN])
    ws = make_ws(cycles=2)
    cycle_mod.run_cycles(ws)
    for n in (1, 2):
        (ws.student_dir(n) / "config.json").write_text("{}")
    assert init_model_dir(ws, 3) == ws.student_dir(2)  # train.init: previous
    rollback(ws)  # to model:cycle-001
    got = init_model_dir(ws, 3)
    assert got == Path(ws.store.generator("model:cycle-001")["path"])
    assert got.resolve() == ws.student_dir(1).resolve()  # not cycle 2's, which was set aside
    rollback(ws, "extractive")
    assert init_model_dir(ws, 3) is None  # the base (or scratch) again
    (ws.student_dir(3) / "config.json").parent.mkdir(parents=True)
    (ws.student_dir(3) / "config.json").write_text("{}")
    assert init_model_dir(ws, 4) == ws.student_dir(3)  # made after the rollback


def run_cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="250")
    return subprocess.run(
        [JUPITER, *args], cwd=home, env=env, capture_output=True, text=True, timeout=60
    )


def test_rollback_and_generators_commands(
    make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_stages(monkeypatch, [WIN, LOSE])
    ws = make_ws(cycles=2)
    cycle_mod.run_cycles(ws)
    ws.close()
    yaml = str(tmp_path / "t.yaml")
    r = run_cli(["generators", "--domain", yaml], tmp_path)
    assert r.returncode == 0, r.stderr
    for text in ("* model:cycle-001", "model:cycle-002", "rejected", "needs >", "activations"):
        assert text in r.stdout
    r = run_cli(["rollback", "--domain", yaml], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "extractive is the active generator again (was model:cycle-001)" in r.stdout
    with Store(ws.store_path) as s:
        assert s.active_generator()["id"] == "extractive"
    for bad, message in (("nope", "no generator 'nope'"), ("model:cycle-002", "never a generator")):
        r = run_cli(["rollback", "--domain", yaml, "--to", bad], tmp_path)
        err = r.stderr.strip()
        assert r.returncode == 1 and message in err and len(err.splitlines()) == 1, err
        assert "Traceback" not in r.stdout + r.stderr


def test_patience_stops_the_loop_with_a_message(
    make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_stages(monkeypatch, [WIN, LOSE, LOSE, WIN, WIN])
    ws = make_ws(cycles=5, patience=2)
    assert cycle_mod.run_cycles(ws) == [1, 2, 3]
    text = printed(ws)
    assert "stopped: 2 students in a row were kept out (cycles 2, 3" in text
    assert "promotion.patience: 2" in text and "jupiter rollback" in text
    assert [d["cycle"] for d in rejections_in_a_row(ws)] == [2, 3]
    assert cycle_mod.run_cycles(ws) == []  # started again: still stopped
    rollback(ws)  # a rollback starts a new run of chances
    assert rejections_in_a_row(ws) == []
    assert cycle_mod.run_cycles(ws) == [4, 5]


def test_patience_zero_never_stops(make_ws: MakeWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_stages(monkeypatch, [LOSE] * 4)
    ws = make_ws(cycles=4, patience=0)
    assert cycle_mod.run_cycles(ws) == [1, 2, 3, 4]
    assert len(rejections_in_a_row(ws)) == 4


def test_an_old_store_migrates(tmp_path: Path) -> None:
    """A workspace from before the lineage: generators without its columns."""
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE generators (id TEXT PRIMARY KEY, kind TEXT NOT NULL, path TEXT NOT NULL,"
        " cycle INTEGER NOT NULL, active INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL);"
        "INSERT INTO generators VALUES ('extractive', 'extractive', '', 0, 0, 1.0);"
        "INSERT INTO generators VALUES ('model:cycle-001', 'model', '/m', 1, 1, 2.0);"
    )
    con.commit()
    con.close()
    with Store(path) as s:
        gens = {g["id"]: g for g in s.generators()}
        assert gens["extractive"]["status"] == "initial"
        assert gens["model:cycle-001"]["status"] == "promoted"
        assert gens["model:cycle-001"]["figures"] == {} and gens["model:cycle-001"]["parent"] == ""
        assert s.active_generator()["id"] == "model:cycle-001"
        s.add_generator(
            "model:cycle-002",
            "model",
            "/m2",
            2,
            parent="model:cycle-001",
            status="rejected",
            reason="needs > 0.5",
        )
        assert s.generator("model:cycle-002")["reason"] == "needs > 0.5"
    with Store(path) as s:  # opening again changes nothing
        assert len(s.generators()) == 3


def test_generators_without_a_workspace_is_an_error(tmp_path: Path) -> None:
    r = run_cli(["generators", "--domain", "python"], tmp_path)
    assert r.returncode == 1 and "no workspace yet" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""
