"""`jupiter test`: prompts from .txt and JSONL through tiny random models; the files, the
row counts, the side-by-side table, the scores (a model's own greedy answers as expected
answers score 1.0), a training checkpoint as a model, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from climain import run_main as _main
from jupiter.batch.prompts import read_prompts
from jupiter.errors import JupiterError
from jupiter.eval.qa import exact_match, token_f1
from tinyhf import Family

PROMPTS = ["What does list.append do?", "How do I open a file?", "Explain dict.get | now"]


def _rows(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def first_run(
    tiny_model_dirs: dict[Family, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[dict]]:
    """llama and qwen2 on three prompts from a .txt (blank lines skipped)."""
    root = tmp_path_factory.mktemp("batch")
    txt = root / "p.txt"
    txt.write_text(f"{PROMPTS[0]}\n\n{PROMPTS[1]}\n   \n{PROMPTS[2]}\n")
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:
        args = [
            "test",
            "--model",
            str(tiny_model_dirs["llama"]),
            "--model",
            str(tiny_model_dirs["qwen2"]),
            "--prompts",
            str(txt),
            "--out",
            str(out),
            "--max-new-tokens",
            "6",
            "--max-batch",
            "2",
        ]
        assert _main(mp, *args) == 0
    return out, _rows(out)


def test_txt_prompts_through_two_models(first_run: tuple[Path, list[dict]]) -> None:
    out, rows = first_run
    assert len(rows) == 6 and [r["model"] for r in rows] == ["llama"] * 3 + ["qwen2"] * 3
    assert [r["prompt"] for r in rows[:3]] == PROMPTS and [r["index"] for r in rows[3:]] == [
        0,
        1,
        2,
    ]
    for r in rows:
        assert 1 <= r["completion_tokens"] <= 6 and r["prompt_tokens"] > 5
        assert r["finish_reason"] in ("stop", "length") and r["batch_seconds"] > 0
        assert "f1" not in r and "expected" not in r
    md = (out / "results.md").read_text()
    assert "| # | prompt | llama | qwen2 |" in md and "token F1" not in md
    assert "| 3 | Explain dict.get \\| now |" in md  # a pipe in a prompt stays in its cell
    summary = json.loads((out / "summary.json").read_text())
    assert summary["prompts"] == 3 and [m["n"] for m in summary["models"]] == [3, 3]
    assert all(m["n_scored"] == 0 and m["f1"] is None for m in summary["models"])


def test_expected_answers_are_scored(
    first_run: tuple[Path, list[dict]],
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Expected = llama's own greedy answers: llama scores 1.0 on both figures (interval
    [1, 1]); qwen2's scores are the token F1 of its answers against them."""
    _, before = first_run
    llama = [r["output"] for r in before if r["model"] == "llama"]
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"id": f"q{k}", "prompt": p, "expected": e}) + "\n"
            for k, (p, e) in enumerate(zip(PROMPTS, llama, strict=True))
        )
    )
    out = tmp_path / "scored"
    args = [
        "test",
        "--model",
        str(tiny_model_dirs["llama"]),
        "--model",
        str(tiny_model_dirs["qwen2"]),
        "--prompts",
        str(jsonl),
        "--out",
        str(out),
        "--max-new-tokens",
        "6",
        "--max-batch",
        "3",
    ]
    assert _main(monkeypatch, *args) == 0
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["q0", "q1", "q2"] * 2
    # another batching (3 a batch, not 2) gives the same greedy answers
    assert [r["output"] for r in rows] == [r["output"] for r in before]
    summary = {m["model"]: m for m in json.loads((out / "summary.json").read_text())["models"]}
    assert summary["llama"]["f1"] == 1.0 and summary["llama"]["exact"] == 1.0
    assert summary["llama"]["f1_ci"] == [1.0, 1.0] and summary["llama"]["n_scored"] == 3
    qwen = [r for r in rows if r["model"] == "qwen2"]
    f1s = [token_f1(r["output"], e) for r, e in zip(qwen, llama, strict=True)]
    assert [r["f1"] for r in qwen] == f1s
    assert summary["qwen2"]["f1"] == pytest.approx(sum(f1s) / 3)
    assert summary["qwen2"]["exact"] == pytest.approx(
        sum(exact_match(r["output"], e) for r, e in zip(qwen, llama, strict=True)) / 3
    )
    lo, hi = summary["qwen2"]["f1_ci"]
    assert lo <= summary["qwen2"]["f1"] <= hi
    md = (out / "results.md").read_text()
    assert (
        "| model | token F1 [95% CI] | exact match [95% CI] | scored | answers | tokens/s |" in md
    )
    assert "| llama | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | 3 | 3 |" in md
    assert "| # | prompt | expected | llama | qwen2 |" in md and "(F1 1.00)" in md


def test_a_training_checkpoint_is_a_model(
    first_run: tuple[Path, list[dict]],
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A step-N checkpoint dir (model/, optimizer, RNG, state.json, checksums) of the llama
    weights answers as the llama dir does."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from jupiter.train.checkpoint import save_checkpoint

    src = tiny_model_dirs["llama"]
    model = AutoModelForCausalLM.from_pretrained(src)
    ckpt = save_checkpoint(
        tmp_path / "train", 3, model, AutoTokenizer.from_pretrained(src), {}, {"epoch": 1}
    )
    assert ckpt.name == "step-000003" and (ckpt / "model" / "config.json").is_file()
    txt = tmp_path / "p.txt"
    txt.write_text("\n".join(PROMPTS) + "\n")
    out = tmp_path / "ck"
    args = [
        "test",
        "--model",
        str(ckpt),
        "--prompts",
        str(txt),
        "--out",
        str(out),
        "--max-new-tokens",
        "6",
        "--max-batch",
        "2",
    ]
    assert _main(monkeypatch, *args) == 0
    rows = _rows(out)
    assert [r["model"] for r in rows] == ["step-000003"] * 3
    _, before = first_run
    assert [r["output"] for r in rows] == [r["output"] for r in before if r["model"] == "llama"]


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ("\n \n", ".txt", "holds no prompt"),
        ('{"prompt": "a"}\n{"prompt": \n', ".jsonl", r"p\.jsonl:2: malformed JSON"),
        ('{"expected": "a"}\n', ".jsonl", r"p\.jsonl:1: missing field 'prompt'"),
        ('["a"]\n', ".jsonl", "expected a JSON object"),
        ('{"id": "x", "prompt": "a"}\n{"id": "x", "prompt": "b"}\n', ".jsonl", "duplicate id 'x'"),
        ('{"prompt": "a", "expected": ["b"]}\n', ".jsonl", "'expected' must be a string"),
        ("hello\nwor\0ld\n", ".txt", r"p\.txt:2: a NUL byte"),  # a binary file, not prompts
    ],
)
def test_bad_prompt_files(tmp_path: Path, text: str, suffix: str, message: str) -> None:
    path = tmp_path / f"p{suffix}"
    path.write_text(text)
    with pytest.raises(JupiterError, match=message):
        read_prompts(path)


def test_cli_errors_are_one_line_and_write_nothing(
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    txt = tmp_path / "p.txt"
    txt.write_text("hello\n")
    out = tmp_path / "never"
    cases = [
        (["--model", str(tmp_path / "nope"), "--prompts", str(txt)], "model not found"),
        (
            ["--model", str(tiny_model_dirs["llama"]), "--prompts", str(tmp_path / "x.txt")],
            "prompts file not found",
        ),
        (["--model", str(tmp_path), "--prompts", str(txt)], "is not a model folder"),
    ]
    for args, message in cases:
        assert _main(monkeypatch, "test", *args, "--out", str(out)) == 1
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_bad_out_is_refused_before_any_model_answers(
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--out that is a file, inside the model tested, or inside a workspace: one line, and
    no model loaded (run_models is never reached)."""
    import jupiter.batch.run as batch_run

    def never(*_: object, **__: object) -> None:
        raise AssertionError("a model answered before --out was checked")

    monkeypatch.setattr(batch_run, "run_models", never)
    txt = tmp_path / "p.txt"
    txt.write_text("hello\n")
    (tmp_path / "file").write_text("x")
    ws = tmp_path / "runs" / "d"
    ws.mkdir(parents=True)
    (ws / "jupiter.sqlite").touch()
    model = tiny_model_dirs["llama"]
    for out, message in (
        (tmp_path / "file", "is a file"),
        (model / "res", "inside the model"),
        (ws / "res", "inside the workspace"),
        (tmp_path, "holds the input"),
    ):  # results.jsonl could be the prompts
        code = _main(
            monkeypatch, "test", "--model", str(model), "--prompts", str(txt), "--out", str(out)
        )
        err = capsys.readouterr().err.strip()
        assert code == 1 and message in err and len(err.splitlines()) == 1, err
    assert not (model / "res").exists() and not (ws / "res").exists()


def test_a_second_writer_of_the_same_out_fails_before_any_model_answers(
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import subprocess

    import jupiter.batch.run as batch_run

    def never(*_: object, **__: object) -> None:
        raise AssertionError("a model answered while another run held --out")

    monkeypatch.setattr(batch_run, "run_models", never)
    txt = tmp_path / "p.txt"
    txt.write_text("hello\n")
    out = tmp_path / "res"
    lock = tmp_path / ".res.lock"
    writer = subprocess.Popen(["sleep", "60"])  # another live process holds the lock
    try:
        lock.write_text(str(writer.pid))
        code = _main(
            monkeypatch,
            "test",
            "--model",
            str(tiny_model_dirs["llama"]),
            "--prompts",
            str(txt),
            "--out",
            str(out),
        )
    finally:
        writer.kill()
        writer.wait()
    err = capsys.readouterr().err.strip()
    assert code == 1 and f"pid {writer.pid}" in err and len(err.splitlines()) == 1, err
    assert lock.read_text() == str(writer.pid) and not out.exists()


def test_every_model_is_checked_before_the_first_answers(
    tiny_model_dirs: dict[Family, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A damaged second --model was found only after the first had answered every prompt."""
    import shutil

    import jupiter.batch.run as batch_run

    def never(*_: object, **__: object) -> None:
        raise AssertionError("a model answered before every model was checked")

    monkeypatch.setattr(batch_run, "run_models", never)
    broken = tmp_path / "broken"
    shutil.copytree(tiny_model_dirs["llama"], broken)
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    txt = tmp_path / "p.txt"
    txt.write_text("hello\n")
    code = _main(
        monkeypatch,
        "test",
        "--model",
        str(tiny_model_dirs["llama"]),
        "--model",
        str(broken),
        "--prompts",
        str(txt),
        "--out",
        str(tmp_path / "res"),
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1 and "broken/model.safetensors" in err, err
    assert not (tmp_path / "res").exists()
