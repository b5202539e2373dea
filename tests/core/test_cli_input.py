"""What the command line takes in and says back: NaN and infinities refused wherever a
number comes in (every float flag, every number of a domain YAML: a comparison with NaN is
always false, so range checks let it through), and Ctrl-C as one line that promises a
resume only for the commands that have one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jupiter.config import load_domain
from jupiter.errors import JupiterError


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["doctor", "--timeout", "nan"], "--timeout"),
        (["chat", "--temperature", "nan"], "--temperature"),
        (["chat", "--temperature", "-inf"], "--temperature"),
        (["merge", "--method", "slerp", "--t", "inf"], "--t"),
        (["federated", "server", "--clip-norm", "nan"], "--clip-norm"),
    ],
)
def test_non_finite_flags_are_one_line_errors(args: list[str], flag: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "jupiter.cli", *args], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "not a finite number" in lines[0], r.stderr


def test_non_finite_numbers_in_a_domain_yaml_are_refused(tmp_path: Path) -> None:
    for value in (".nan", ".inf", "-.inf"):
        path = tmp_path / "d.yaml"
        path.write_text(
            f"name: d\nsources: [{{type: local, path: {tmp_path}}}]\ntrain: {{lr: {value}}}\n"
        )
        with pytest.raises(JupiterError, match="lr"):
            load_domain(str(path))


@pytest.mark.parametrize(
    ("argv", "promise"),
    [
        (["train", "--domain", "d"], "`jupiter train` goes on from where it stopped"),
        (["start", "--domain", "d"], "`jupiter start` goes on from where it stopped"),
        (["export", "--model", "m", "--to", "hf", "--out", "o"], None),
        (["merge", "--method", "linear"], None),
    ],
)
def test_ctrl_c_is_one_line_that_promises_a_resume_only_where_there_is_one(
    argv: list[str],
    promise: str | None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from jupiter import cli

    def interrupted(**_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "app", interrupted)
    monkeypatch.setattr(sys, "argv", ["jupiter", *argv])
    with pytest.raises(SystemExit) as code:
        cli.main()
    err = capsys.readouterr().err.strip()
    assert code.value.code == 130 and len(err.splitlines()) == 1 and err.startswith("interrupted")
    assert (promise in err) if promise else ("goes on" not in err)


@pytest.mark.parametrize(
    ("argv", "files", "words"),
    [
        (["doctor", "--cluster-file", "c.yaml"], {"c.yaml": "nodes: [{host: a\n"}, "c.yaml"),
        (
            ["doctor", "--cluster-file", "c.yaml"],
            {"c.yaml": "nodes: [{host: a, gpus: 2}]\n"},
            "gpus",
        ),
        (["serve", "--model", "m", "--host", ""], {}, "--host is empty"),
        (["data", "export", "--domain", "d.yaml", "--out", "runs/d"], {}, "is the workspace"),
        (["data", "export", "--domain", "d.yaml", "--split", "nan,0.5,0.5"], {}, "--split"),
        (
            ["federated", "client", "--domain", "d.yaml", "--server", "h:1", "--device", "tpu"],
            {},
            "--device 'tpu'",
        ),
    ],
)
def test_inputs_the_commands_corpus_found_are_one_line_errors(
    argv: list[str],
    files: dict[str, str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A malformed --cluster-file was a doctor report on stdout with nothing on stderr; an
    empty --host said 'serve on  without an API key'; `data export --out` onto the
    workspace and a NaN --split passed their checks; --device tpu was not checked."""
    from climain import run_main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    (tmp_path / "d.yaml").write_text(f"name: d\nsources: [{{type: local, path: {tmp_path}}}]\n")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code = run_main(monkeypatch, *argv)
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1 and words in err, err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
