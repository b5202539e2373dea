"""No command deletes what it was given: `export` and `merge` refuse an --out that is,
holds or sits inside an input or a workspace, --force or not, and a second writer to the
same --out fails in one line (src/jupiter/outputs.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from climain import run_main as climain_run
from jupiter.errors import JupiterError
from jupiter.outputs import check_output, claimed_output, output_lock


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    """cli.main() in this process (climain.run_main): the exit code and stderr."""
    return climain_run(monkeypatch, *args), capsys.readouterr().err


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def workspace(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> Path:
    """runs/D: a store and a trained model inside, as a cycle leaves them."""
    ws = tmp_path / "runs" / "d"
    final = ws / "cycles" / "cycle-001" / "train" / "final"
    shutil.copytree(tiny_model_dirs["llama"], final)
    (ws / "jupiter.sqlite").write_bytes(b"SQLite format 3\x00")
    return ws


def test_export_into_its_workspace_with_force_deletes_nothing(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_digest(workspace)
    final = workspace / "cycles" / "cycle-001" / "train" / "final"
    for out in (workspace, final, final / "sub", workspace / "exports"):
        code, err = run_main(
            monkeypatch,
            capsys,
            "export",
            "--model",
            str(final),
            "--to",
            "hf",
            "--out",
            str(out),
            "--force",
        )
        assert code == 1, err
        assert len(err.strip().splitlines()) == 1 and "--out" in err and "Traceback" not in err
    assert tree_digest(workspace) == before
    assert sorted(p.name for p in workspace.parent.iterdir()) == ["d"]  # no lock, no temp


def test_merge_into_the_folder_of_its_inputs_with_force_deletes_nothing(
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = tmp_path / "x"
    for name in ("a", "b"):
        shutil.copytree(tiny_model_dirs["llama"], x / name)
    before = tree_digest(x)
    for out in (x, x / "a", x / "a" / "inner"):
        code, err = run_main(
            monkeypatch,
            capsys,
            "merge",
            "--method",
            "linear",
            "--model",
            str(x / "a"),
            "--model",
            str(x / "b"),
            "--out",
            str(out),
            "--force",
        )
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        assert "input" in err
    assert tree_digest(x) == before


def test_force_replaces_only_an_earlier_output_of_the_same_command(tmp_path: Path) -> None:
    src = tmp_path / "model"
    src.mkdir()
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(JupiterError, match="did not write"):
        check_output(home, [src], force=True, manifest="export.json")
    with pytest.raises(JupiterError, match="already exists"):
        check_output(home, [src], force=False, manifest="export.json")
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "export.json").write_text("{}")
    assert check_output(earlier, [src], force=True, manifest="export.json") == earlier
    with pytest.raises(JupiterError, match="did not write"):  # a merge is not an export
        check_output(earlier, [src], force=True, manifest="merge.json")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert check_output(empty, [src], force=True, manifest="export.json") == empty
    # a command's own place in a workspace is allowed, the workspace itself never
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "jupiter.sqlite").touch()
    own = ws / "export"
    assert check_output(own, [src], force=False, manifest="x", allowed_in=own.parent) == own
    with pytest.raises(JupiterError, match="is the workspace"):
        check_output(ws, [src], force=True, manifest="x", allowed_in=ws)


def test_a_second_writer_fails_in_one_line_and_a_dead_writers_lock_is_taken(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    lock = tmp_path / ".out.lock"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(str(sleeper.pid))  # a live writer holds it
        with pytest.raises(JupiterError, match=f"pid {sleeper.pid}") as err:
            with output_lock(out):
                pass
        assert "\n" not in str(err.value) and lock.read_text() == str(sleeper.pid)
    finally:
        sleeper.kill()
        sleeper.wait()
    # the same lock, its writer gone: taken over, and removed when the block ends
    with claimed_output(out, [tmp_path / "in"], force=False, manifest="export.json") as got:
        assert got == out and lock.read_text() == str(os.getpid())
    assert not lock.exists()


def test_a_writer_that_finished_while_this_one_waited_is_not_replaced(tmp_path: Path) -> None:
    """Both writers checked --out before either wrote: the second, once it holds the lock,
    finds the first one's output and refuses without --force."""
    out = tmp_path / "out"
    check_output(out, [], force=False, manifest="export.json")  # free when checked
    out.mkdir()
    (out / "export.json").write_text("{}")  # meanwhile, the first writer finished
    with pytest.raises(JupiterError, match="already exists"):
        with claimed_output(out, [], force=False, manifest="export.json"):
            pass
    assert not (tmp_path / ".out.lock").exists()


def damage(model: Path, how: str) -> None:
    from safetensors.torch import load_file, save_file

    from jupiter.models.folder import write_checksums

    weights = model / "model.safetensors"
    if how == "truncated":
        write_checksums(model)
        data = weights.read_bytes()
        weights.write_bytes(data[: len(data) // 2])
    elif how == "flipped":  # framing intact: only the checksums see it
        write_checksums(model)
        data = bytearray(weights.read_bytes())
        data[-100] ^= 0xFF
        weights.write_bytes(bytes(data))
    elif how == "no-weights":
        weights.unlink()
    elif how == "nan":
        tensors = load_file(weights)
        name = sorted(tensors)[0]
        tensors[name][0] = float("nan")
        save_file(tensors, weights, metadata={"format": "pt"})


@pytest.mark.parametrize("how", ["truncated", "flipped", "no-weights", "nan"])
def test_a_damaged_model_is_never_exported(
    how: str,
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = tmp_path / "model"
    shutil.copytree(tiny_model_dirs["llama"], model)
    damage(model, how)
    out = tmp_path / "out"
    code, err = run_main(
        monkeypatch, capsys, "export", "--model", str(model), "--to", "hf", "--out", str(out)
    )
    assert code == 1 and len(err.strip().splitlines()) == 1 and "damaged model" in err, err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_sigterm_mid_export_leaves_no_temp_folder(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """SIGTERM while the export writes: the process unwinds like Ctrl-C (exit 143, one
    line), its staging folder and lock are removed and no --out appears."""
    import signal
    import time

    code = (
        "import sys, time\n"
        "import jupiter.export.hf as hf\n"
        "def slow(*a, **k):\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
        "hf.write_hf = slow\n"
        "from jupiter import cli\n"
        "sys.argv = ['jupiter'] + sys.argv[1:]\n"
        "cli.main()\n"
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            code,
            "export",
            "--model",
            str(tiny_model_dirs["llama"]),
            "--to",
            "hf",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        assert any(p.name.startswith(".out.lock") for p in tmp_path.iterdir())
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143 and err.strip().splitlines()[-1] == "interrupted", err
    time.sleep(0.1)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_report_file_never_lands_on_what_the_command_reads(tmp_path: Path) -> None:
    """`eval --out` wrote its JSON over the model's config.json, the QA file or the store
    it was given, with exit 0."""
    from jupiter.outputs import check_output_file

    model, qa = tmp_path / "m", tmp_path / "qa.jsonl"
    model.mkdir()
    (model / "config.json").write_text("{}")
    qa.write_text("{}\n")
    ws = tmp_path / "runs" / "d"
    ws.mkdir(parents=True)
    (ws / "jupiter.sqlite").touch()
    (tmp_path / "notes.txt").write_text("x")
    refused = {
        model / "config.json": "sits inside the input",
        qa: "is the input",
        ws / "jupiter.sqlite": "sits inside the workspace",
        model: "is a folder",
        tmp_path / "notes.txt" / "r.json": "sits under the file",
    }
    for out, message in refused.items():
        with pytest.raises(JupiterError, match=message):
            check_output_file(out, [model, qa])
    assert check_output_file(tmp_path / "r.json", [model, qa]) == tmp_path / "r.json"


def test_eval_out_onto_its_model_is_refused_before_scoring(
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = tmp_path / "model"
    shutil.copytree(tiny_model_dirs["llama"], model)
    qa = tmp_path / "qa.jsonl"
    qa.write_text('{"id": "a", "question": "What turns?", "answer": "the lever"}\n')
    before = tree_digest(tmp_path)
    for out in (model / "config.json", qa):
        code, err = run_main(
            monkeypatch, capsys, "score", "--model", str(model), "--qa", str(qa), "--out", str(out)
        )
        assert code == 1 and len(err.strip().splitlines()) == 1 and "--out" in err, err
    assert tree_digest(tmp_path) == before


def test_a_live_writer_or_a_file_above_out_is_refused_before_anything_is_said(
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both were found once the export had printed its 'exporting …' line: two lines, and
    a raw FileExistsError for --out under a file."""
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / ".new.lock").write_text(str(os.getppid()))  # a live process: this one's parent
    model = str(tiny_model_dirs["llama"])
    for out, message in (
        (tmp_path / "notes.txt" / "x", "sits under the file"),
        (tmp_path / "new", f"pid {os.getppid()}"),
    ):
        code, err = run_main(
            monkeypatch, capsys, "export", "--model", model, "--to", "hf", "--out", str(out)
        )
        assert code == 1 and len(err.strip().splitlines()) == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".new.lock", "notes.txt"]


def test_a_federated_run_dir_never_lands_in_the_base_or_another_workspace(
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`federated server --out BASE/run` started a SuperLink writing its run into the base
    model's folder; `--out notes.txt` was a raw NotADirectoryError."""
    base = tmp_path / "base"
    shutil.copytree(tiny_model_dirs["llama"], base)
    other = tmp_path / "runs" / "other"
    other.mkdir(parents=True)
    (other / "jupiter.sqlite").touch()
    (tmp_path / "notes.txt").write_text("x")
    domain = tmp_path / "d.yaml"
    domain.write_text(
        f"name: d\nsources: [{{type: local, path: {tmp_path}}}]\n"
        f"model: {{base: {base}}}\ntrain: {{method: full}}\n"
    )
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    before = tree_digest(tmp_path)
    for out, message in (
        (base / "run", "sits inside the input"),
        (other / "run", "sits inside the workspace"),
        (tmp_path / "notes.txt", "is a file"),
    ):
        code, err = run_main(
            monkeypatch, capsys, "federated", "server", "--domain", str(domain), "--out", str(out)
        )
        assert code == 1 and len(err.strip().splitlines()) == 1 and message in err, err
    assert tree_digest(tmp_path) == before
