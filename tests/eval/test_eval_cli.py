"""`jupiter score --model M --qa FILE`: any model on any QA set, with intervals, a JSON report,
and one-line errors for bad input; `jupiter eval --model M --qa FILE`, its old spelling,
runs the same."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from climain import run_main as _main
from jupiter.eval.compare import compare_reports
from tinyhf import save_tiny

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
ITEMS = [
    {
        "id": f"q{k}",
        "question": f"What does tool_{k} print?",
        "answer": f"tool_{k} prints {k}.",
        "topic": "tools" if k % 2 else "files",
        "source": f"/docs/{'ab'[k % 2]}/t{k}.md",
    }
    for k in range(8)
] + [{"id": "m", "question": "Pick two", "choices": ["one", "two", "three"], "answer_index": 1}]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny("llama", tmp_path_factory.mktemp("m") / "tiny")


def _qa(tmp_path: Path, rows: list[dict] | None = None) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows or ITEMS))
    return path


def test_scores_any_model_on_any_set_with_intervals(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "r.json"
    args = [
        "score",
        "--model",
        str(model_dir),
        "--qa",
        str(_qa(tmp_path)),
        "--out",
        str(out),
        "--max-new-tokens",
        "3",
        "--general-max-bytes",
        "2000",
    ]
    assert _main(monkeypatch, *args) == 0
    printed = capsys.readouterr().out
    assert "qa_f1" in printed and "general_bpb" in printed and "(chance" in printed
    report = json.loads(out.read_text())
    assert report["n_qa"] == 9 and report["n_mc"] == 9 and report["model"] == "tiny"
    assert len(report["qa_f1_ci"]) == 2 and len(report["mc_accuracy_ci"]) == 2
    # eight built items with 4 choices, one with its own 3: chance is their mean
    assert report["mc_chance"] == pytest.approx((8 / 4 + 1 / 3) / 9)
    assert report["general_bpb"] > 1 and len(report["general_bpb_ci"]) == 2
    assert set(report["breakdown"]["topic"]) == {"tools", "files", "(none)"}
    assert report["lower_is_better"] == ["general_bpb"]
    # two such reports pair item by item
    same = compare_reports(report, report)["metrics"]
    assert same["qa_f1"]["difference"] == 0 and same["general_bpb"]["difference"] == 0


def test_a_report_another_run_is_writing_is_refused_before_the_model_loads(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import jupiter.eval.standalone as standalone

    def never(*_: object, **__: object) -> None:
        raise AssertionError("the model was scored while another run held --out")

    monkeypatch.setattr(standalone, "score_model", never)
    out = tmp_path / "r.json"
    writer = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / ".r.json.lock").write_text(str(writer.pid))
        code = _main(
            monkeypatch,
            "score",
            "--model",
            str(model_dir),
            "--qa",
            str(_qa(tmp_path)),
            "--out",
            str(out),
        )
    finally:
        writer.kill()
        writer.wait()
    err = capsys.readouterr().err.strip()
    assert code == 1 and f"pid {writer.pid}" in err and len(err.splitlines()) == 1, err
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--model", "MODEL", "--qa", "missing.jsonl"],
            r"--qa: eval set not found: .*missing\.jsonl",
        ),
        (["--model", "MODEL", "--qa", "BAD"], r"--qa: .*set\.jsonl:2: malformed JSON"),
        (["--model", "no/such/dir", "--qa", "GOOD"], "model not found"),
        (["--model", "MODEL", "--qa", "GOOD", "--distractors", "easy"], "hard or random"),
        (["--model", "MODEL", "--qa", "GOOD", "--general", "nope"], "general text not found"),
        (["--model", "MODEL", "--qa", "GOOD", "--open-book"], "has no retrieval index"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(
    args: list[str],
    message: str,
    model_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    good = _qa(tmp_path)
    bad = tmp_path / "set.jsonl" if "BAD" in args else good
    if "BAD" in args:
        bad.write_text(json.dumps(ITEMS[0]) + "\n{oops\n")
    subs = {"MODEL": str(model_dir), "GOOD": str(good), "BAD": str(bad)}
    monkeypatch.chdir(tmp_path)
    code = _main(
        monkeypatch, "score", "--general-max-bytes", "1000", *[subs.get(a, a) for a in args]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert re.search(message, err) and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "MODEL"], "Missing option '--qa'"),
        (["--qa", "GOOD"], "Missing option '--model'"),
        (["--model", "MODEL", "--qa", "GOOD", "--domain", "d"], "No such option '--domain'"),
    ],
)
def test_a_missing_or_foreign_flag_is_a_usage_line_and_exit_2(
    args: list[str],
    message: str,
    model_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    subs = {"MODEL": str(model_dir), "GOOD": str(_qa(tmp_path))}
    code = _main(monkeypatch, "score", *[subs.get(a, a) for a in args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "jupiter score --help" in err
    assert len(err.strip().splitlines()) == 1


def test_eval_with_model_and_qa_is_the_old_spelling_of_score(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """`jupiter eval --model M --qa FILE ...` runs `jupiter score` with the same flags; its
    own errors are the ones it always gave."""
    out = tmp_path / "r.json"
    args = [
        "eval",
        "--model",
        str(model_dir),
        "--qa",
        str(_qa(tmp_path)),
        "--out",
        str(out),
        "--max-new-tokens",
        "2",
        "--general-max-bytes",
        "0",
        "--max-items",
        "3",
    ]
    assert _main(monkeypatch, *args) == 0
    report = json.loads(out.read_text())
    assert report["model"] == "tiny" and report["n_mc"] == 3 and "general_bpb" not in report
    # the console wraps long paths at its width: compare without the whitespace
    assert f"report:{out}" in "".join(capsys.readouterr().out.split())
    for argv, message, code in [
        (["--model", str(model_dir)], "--model and --qa go together, without --domain", 1),
        (["--qa", str(out), "--domain", "d"], "--model and --qa go together, without --domain", 1),
        ([], "give --domain NAME, or --model MODEL --qa FILE", 1),
        (["--model", str(model_dir), "--qa", str(out), "--bogus"], "No such option '--bogus'", 2),
        (["--domain", "d", "--out", str(out)], "No such option '--out'", 2),
    ]:
        assert _main(monkeypatch, "eval", *argv) == code, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_real_command_bad_set_no_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, COLUMNS="200")
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"id": "a", "question": "Q?"}\n')
    got = subprocess.run(
        [JUPITER, "score", "--model", str(tmp_path), "--qa", str(bad)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert got.returncode == 1
    assert "s.jsonl:1: missing field 'answer'" in got.stderr
    assert "Traceback" not in got.stderr and len(got.stderr.strip().splitlines()) == 1


def test_open_book_puts_the_saved_index_passages_before_each_question(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.eval.qa import load_eval_set
    from jupiter.eval.standalone import ScoreOptions, open_book_items
    from jupiter.synth.passages import Passage, PassageIndex

    student = tmp_path / "student"
    shutil.copytree(model_dir, student)
    index = PassageIndex(
        [Passage(f"c{k}", f"tool_{k}", f"Running tool_{k} prints {k} and exits.") for k in range(8)]
    )
    index.save(student)
    qa = _qa(tmp_path)
    items = load_eval_set(qa)
    # a base model borrows the student's index with --passages
    opts = ScoreOptions(str(model_dir), qa, open_book=True, top_k=2, passages=student)
    got, _ = open_book_items(opts, model_dir, items, [])
    assert got[3].question == index.prompt(items[3].question, 2)
    assert "Running tool_3 prints 3" in got[3].question.split("Question:")[0]
    assert [g.id for g in got] == [i.id for i in items] and got[3].answer == items[3].answer
    out = tmp_path / "r.json"
    args = [
        "score",
        "--model",
        str(student),
        "--qa",
        str(qa),
        "--out",
        str(out),
        "--open-book",
        "--top-k",
        "2",
        "--max-new-tokens",
        "3",
        "--general-max-bytes",
        "0",
    ]
    assert _main(monkeypatch, *args) == 0
    report = json.loads(out.read_text())
    assert report["open_book"] is True and report["top_k"] == 2
    assert report["passages"] == str(student) and report["n_qa"] == 9
