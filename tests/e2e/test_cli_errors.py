"""Bad input through the real `jupiter` command: one line, non-zero exit, no traceback,
nothing written to the store."""

import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from badinput import BAD_SURROUNDINGS, BAD_YAML, model_dir
from jupiter.config import LocalSource
from jupiter.config.cli import source_entry

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="200")
    return subprocess.run(
        [JUPITER, *args], cwd=home, env=env, capture_output=True, text=True, timeout=120
    )


def store_rows(home: Path) -> int:
    """Rows across every table of every store under home (0 when there is none)."""
    total = 0
    for db in home.glob("runs/*/jupiter.sqlite"):
        con = sqlite3.connect(db)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        total += sum(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables)
        con.close()
    return total


CASES = {
    "malformed_yaml": ("name: bad\nsources: [\n  - {type: local, path: x\n", "malformed YAML"),
    "unknown_key": (
        "name: bad\nsources: [{type: python_stdlib}]\ntrian: {max_steps: 1}\n",
        "unknown key 'trian'",
    ),
    "missing_path": (
        "name: bad\nsources: [{type: local, path: does/not/exist}]\n",
        "source path not found",
    ),
    "empty_corpus": ("name: bad\nsources: [{type: local, path: empty}]\n", "empty corpus"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_domain_yaml(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.yaml").write_text(text)
    r = run(["start", "--domain", str(tmp_path / "bad.yaml"), "--auto"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    err = r.stderr.strip()
    assert expected in err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in r.stdout + r.stderr
    assert store_rows(tmp_path) == 0


def test_unknown_domain(tmp_path: Path) -> None:
    r = run(["start", "--domain", "klingon", "--auto"], tmp_path)
    assert r.returncode == 1
    assert "unknown domain 'klingon'" in r.stderr and "python" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "runs").exists()


def test_debug_shows_traceback(tmp_path: Path) -> None:
    r = run(["--debug", "start", "--domain", "klingon"], tmp_path)
    assert r.returncode != 0 and "Traceback" in r.stderr


def test_init_and_config_show(tmp_path: Path) -> None:
    r = run(["init", "--domain", "chemistry"], tmp_path)
    assert r.returncode == 0, r.stderr
    made = tmp_path / "config" / "domains" / "chemistry.yaml"
    assert "name: chemistry" in made.read_text()
    again = run(["init", "--domain", "chemistry"], tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr
    shown = run(["config", "show", "--domain", "python"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "name: python" in shown.stdout and "micro_batch_size: 16" in shown.stdout


def test_init_from_sources_writes_the_yaml_a_user_would(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe spool keeps pages for jobs.\n")
    (tmp_path / "pairs.jsonl").write_text('{"text": "a row"}\n')
    (tmp_path / "exam.jsonl").write_text("")
    r = run(
        [
            "init", "--domain", "spool", "--source", "docs", "--source", "pairs.jsonl",
            "--source", "https://docs.example.org/spool/", "--source",
            "https://example.org/spool.git", "--base", "ollama:llama3.2", "--user-exam",
            "exam.jsonl", "--description", "The spool",
        ],
        tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    made = tmp_path / "config" / "domains" / "spool.yaml"
    data = yaml.safe_load(made.read_text())
    assert data == {
        "name": "spool",
        "description": "The spool",
        "sources": [
            {"type": "local", "path": str(docs)},
            {"type": "dataset", "path": str(tmp_path / "pairs.jsonl")},
            {"type": "web", "urls": ["https://docs.example.org/spool/"]},
            {"type": "git", "url": "https://example.org/spool.git"},
        ],
        "model": {"base": "ollama:llama3.2"},
        "eval": {"user_exam_path": str(tmp_path / "exam.jsonl")},
    }
    shown = run(["config", "show", "--domain", "spool"], tmp_path)
    assert shown.returncode == 0 and "max_chars: 1500" in shown.stdout, shown.stderr
    # a JavaScript project (a package.json): its .js and .ts files are read too, as its API
    (docs / "package.json").write_text('{"name": "spool"}')
    js = source_entry(str(docs))
    assert js["include"][-4:] == ["*.js", "*.mjs", "*.cjs", "*.ts"]
    assert js["include"][:-4] == LocalSource(type="local", path="x").include
    # a database project (.sql files up to two folders down): its schema is read too
    (docs / "db" / "migrations").mkdir(parents=True)
    (docs / "db" / "migrations" / "001_init.sql").write_text("CREATE TABLE t (x int);\n")
    assert source_entry(str(docs))["include"][-5:] == [*js["include"][-4:], "*.sql"]
    # a Go module (a go.mod): its packages' API
    (docs / "go.mod").write_text("module example.com/spool\n")
    assert source_entry(str(docs))["include"][-2:] == ["*.go", "*.sql"]
    # a path that is not there, or a model with no documents: one line, nothing written
    assert_one_line(
        run(["init", "--domain", "gone", "--source", "nowhere"], tmp_path),
        r"--source: no file or folder at nowhere",
    )
    assert_one_line(
        run(["init", "--domain", "bare", "--base", "ollama:llama3.2"], tmp_path),
        r"--base needs --source",
    )
    assert sorted(p.name for p in made.parent.iterdir()) == ["spool.yaml"]


def test_web_domain_says_it_needs_the_network(tmp_path: Path) -> None:
    r = run(["collect", "--domain", "unreal_engine"], tmp_path)
    assert r.returncode == 1
    assert "needs the network" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert store_rows(tmp_path) == 0


def test_auto_and_interactive_exclude_each_other(tmp_path: Path) -> None:
    r = run(["start", "--domain", "python", "--auto", "--interactive"], tmp_path)
    assert r.returncode == 1 and "exclude each other" in r.stderr


def assert_one_line(r: subprocess.CompletedProcess[str], expected: str) -> None:
    """Exit 1, one line on stderr matching `expected`, no traceback."""
    assert r.returncode == 1, r.stdout + r.stderr
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert re.search(expected, err), err
    assert "Traceback" not in r.stdout + r.stderr


def start_with(home: Path, yaml_text: bytes | str) -> subprocess.CompletedProcess[str]:
    (home / "docs").mkdir(exist_ok=True)
    (home / "docs" / "a.md").write_text("# A note\n\nThe lever turns the widget twice.\n")
    path = home / "bad.yaml"
    path.write_bytes(yaml_text.encode() if isinstance(yaml_text, str) else yaml_text)
    return run(["start", "--domain", str(path), "--auto"], home)


@pytest.mark.parametrize("case", sorted(BAD_YAML))
def test_bad_yaml_stops_start(tmp_path: Path, case: str) -> None:
    """Refused when the YAML is read; no workspace made."""
    data, expected = BAD_YAML[case]
    assert_one_line(start_with(tmp_path, data), expected)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("case", sorted(BAD_SURROUNDINGS))
def test_bad_surroundings_stop_start_before_any_stage(tmp_path: Path, case: str) -> None:
    """An eval set, model, dataset or server the run needs is
    found wrong before the first stage writes anything: no store, no workspace."""
    prepare, expected = BAD_SURROUNDINGS[case]
    assert_one_line(start_with(tmp_path, prepare(tmp_path)), expected)
    assert not (tmp_path / "runs").exists()


def test_bad_eval_set_leaves_an_existing_store_as_it_was(tmp_path: Path) -> None:
    """A workspace with a store is not touched either."""
    from jupiter.store import Store

    db = tmp_path / "runs" / "bad" / "jupiter.sqlite"
    db.parent.mkdir(parents=True)
    with Store(db) as store:
        store.mark_stage(1, "collect", {"documents": 1})
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    prepare, expected = BAD_SURROUNDINGS["eval_qa_malformed"]
    assert_one_line(start_with(tmp_path, prepare(tmp_path)), expected)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["jupiter.sqlite"]


@pytest.mark.parametrize(
    ("command", "damage", "expected"),
    [
        ("serve", {"config": "{not json"}, r"damaged model file .*config\.json: not valid JSON"),
        ("serve", {"data_len": 3}, r"model\.safetensors: holds 3 bytes of tensor data"),
        # well-formed files the loader still refuses: its error, with the dir and the fix
        (
            "chat",
            {"config": '{"model_type": "no-such-family"}'},
            r"cannot load the model in .*model \(ValueError: .*\): check that its files",
        ),
        # a value of the wrong type: the field and the value, on the one line
        (
            "chat",
            {"config": '{"model_type": "llama", "hidden_size": "abc"}'},
            r"cannot load the model in .*hidden_size.*'abc'.*check that its files",
        ),
    ],
    ids=["serve-config", "serve-safetensors", "chat-loader", "chat-bad-value"],
)
def test_damaged_model_dir_in_serve_and_chat(
    tmp_path: Path, command: str, damage: dict, expected: str
) -> None:
    """A corrupt config.json or safetensors is named with the fix."""
    model = model_dir(tmp_path / "model", **damage)
    args = [command, "--model", str(model)] + (["--port", "0"] if command == "serve" else [])
    assert_one_line(run(args, tmp_path), expected)
