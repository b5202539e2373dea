"""The exam in a user's words: quotes checked against their sources, template wordings and
8-grams shared with the training examples rejected, and the eval stage scoring it beside the
own exam (every model, paired comparisons, eval.json)."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from pathlib import Path

import pytest
from evaldocs import COPIED, eval_with_tiny_models, make_docs

from jupiter.eval.qa import QAItem
from jupiter.eval.userexam import (
    LENGTH_TELL,
    check_exam,
    load_user_exam,
    longest_right,
    man_page_text,
    python_source_text,
    shared_ngrams,
    source_text,
)
from jupiter.records import Document

CHOICES = ("alpha", "beta", "gamma", "delta")


def item(k: str, question: str, choices: tuple[str, ...] = CHOICES) -> QAItem:
    return QAItem(k, question, choices[0], choices=choices, answer_index=0)


def test_sources_read_docstrings_topics_and_builtins() -> None:
    assert python_source_text("py:len") == "Return the number of items in a container."
    assert "separators" in (python_source_text("py:json.dumps") or "")
    assert "Concatenate any number of strings" in (python_source_text("py:str.join") or "")
    assert "else" in (python_source_text("pydoc:topics/for") or "")
    assert python_source_text("py:json.no_such_thing") is None
    assert python_source_text("pydoc:topics/no-such-topic") is None
    assert source_text("cmake:command/no_such_command.rst") is None


PAGE = r""".TH FROB 1 "2026" "Jupiter" "User Commands"
.SH NAME
frob \- keep the end of a stream
.SH DESCRIPTION
.B frob
keeps the last three lines of its input, whichever incomprehensibilities
antidisestablishmentarianism characteristically overwhelms notwithstanding.
.TP
\fB\-n\fR \fINUM\fR
keep NUM lines instead.
"""


@pytest.mark.skipif(not shutil.which("groff"), reason="groff renders manual pages")
def test_a_doc_source_naming_a_local_file_is_read_outside_a_workspace(tmp_path: Path) -> None:
    page = tmp_path / "spool.md"
    page.write_text("# Spool\n\nThe spool keeps every page for an hour.\n")
    assert source_text(f"doc:{page}") == page.read_text()
    assert source_text(f"doc:{tmp_path / 'gone.md'}") is None
    assert source_text("doc:relative/spool.md") is None  # only a workspace knows that uri


def test_a_man_source_is_the_page_as_a_terminal_shows_it(tmp_path: Path) -> None:
    (tmp_path / "man1").mkdir()
    (tmp_path / "man1" / "frob.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    text = man_page_text("frob", man_dir=tmp_path)
    assert text is not None and "\b" not in text  # col -b took the overstrikes away
    assert "frob - keep the end of a stream" in text
    assert "keeps the last three lines of its input," in " ".join(text.split())
    assert "\u2010" not in text and "incomprehensibilities" in text  # no word hyphenated
    assert "-n NUM" in text and "keep NUM lines instead." in text
    assert man_page_text("frob", section="8", man_dir=tmp_path) is None
    assert man_page_text("nope", man_dir=tmp_path) is None
    assert source_text("man:no-such-page-anywhere") is None


SHIPPED = Path(__file__).resolve().parents[2] / "config" / "domains" / "exams"


CLICK = Path.home() / ".cache/jupiter/corpora/click-8.1.8"  # benchmarks/quality/fetch_sdist.py


@pytest.mark.parametrize(
    "name", ["python", "cmake", "man", "coreutils", "nodejs", "valgrind", "click", "licenses"]
)
def test_every_shipped_exam_item_passes_its_checks(name: str) -> None:
    """Each item's quote is in its source, no template wrote its question, four distinct
    choices; the issue's sizes (Python >= 200, CMake >= 150, man pages >= 150), and 100 for
    the fourth, fifth and sixth corpora (coreutils' info manual, Node.js's Markdown pages,
    Valgrind's DocBook HTML, Click's sources: its reST guide and its docstrings, the
    free-software licenses as plain text)."""
    if name == "cmake" and source_text("cmake:command/add_library.rst") is None:
        pytest.skip("CMake's reference is not installed")
    if name == "man" and source_text("man:tail") is None:
        pytest.skip("the manual pages or groff are not installed")
    if name == "coreutils" and source_text("info:coreutils#cp invocation") is None:
        pytest.skip("coreutils' info manual is not installed")
    if name == "nodejs" and source_text("doc:/usr/share/doc/nodejs/api/events.md") is None:
        pytest.skip("Node.js's API reference is not installed")
    if name == "valgrind" and source_text("doc:/usr/share/doc/valgrind/html/faq.html") is None:
        pytest.skip("Valgrind's manual is not installed")
    if name == "licenses" and source_text("doc:/usr/share/common-licenses/GPL-3") is None:
        pytest.skip("Debian's common-licenses are not installed")
    if name == "click" and not (CLICK / "src/click/core.py").is_file():
        pytest.skip("Click's sources are not fetched (benchmarks/quality/fetch_sdist.py)")
    path = SHIPPED / f"{name}.jsonl"
    items, about = load_user_exam(path)
    assert about["dropped"] == {} and len(items) == about["items"]
    sizes = {"python": 200, "cmake": 150, "man": 150, "coreutils": 100, "nodejs": 100}
    sizes["valgrind"] = sizes["click"] = sizes["licenses"] = 100
    assert len(items) >= sizes[name]
    for it in items:
        assert it.choices is not None and it.choices[it.answer_index or 0] == it.answer, it.id
    shares = [sum(it.answer_index == k for it in items) / len(items) for k in range(4)]
    assert max(shares) < 0.4, shares  # no answer position a model could learn to prefer
    if name in ("valgrind", "click", "licenses"):  # written after the length check: held to it
        assert longest_right(items) <= LENGTH_TELL


def test_check_exam_drops_each_bad_item_with_its_reason() -> None:
    docs = {"d1": "The frobnicator keeps the last three lines of a stream in memory only."}
    items = [
        item("ok", "I only want my tail of a huge log kept around; which tool fits?"),
        item("template", "What does `frobnicator` do?"),
        item("no-quote", "Where would I keep just the final lines of my output?"),
        item("bad-quote", "How do I remember the end of a stream without all of it?"),
        item("three", "Which thing holds the end of my log for me?", CHOICES[:3]),
        item("dup", "Which of these holds the end of my log for me?", ("a", "a ", "b", "c")),
        item("case", "Which flag keeps the end of my log for me?", ("-a", "-A", "-b", "-c")),
        item("unknown", "Which of these holds the end of a file in memory?"),
    ]
    quote = "keeps the last three lines of a stream"
    raw = {it.id: {"source": "d1", "quote": quote} for it in items}
    raw["no-quote"]["quote"] = "last lines"
    raw["bad-quote"]["quote"] = "keeps the first three lines of a stream"
    raw["unknown"]["source"] = "d2"
    got = check_exam(items, raw, text_of=docs.get)
    assert [it.id for it in got.kept] == ["ok", "case"]  # -a and -A: two options, not one
    assert got.counts() == {
        "no_quote": 1,
        "not_four_distinct_choices": 2,
        "quote_not_in_source": 1,
        "source_not_found": 1,
        "template_wording": 1,
    }


def test_a_question_sharing_an_8gram_with_training_is_rejected() -> None:
    q = "my script needs to keep the last three lines of a stream; what fits?"
    training = ["Q: How to keep the last three lines of a stream in memory? A: a deque"]
    assert shared_ngrams({"x": q}, training) == {"x"}  # "keep the last three lines of a stream"
    assert shared_ngrams({"x": q}, ["keep the last three lines of a file"]) == set()
    raw = {"x": {"source": "d", "quote": "the last three lines are kept"}}
    got = check_exam([item("x", q)], raw, training, text_of={"d": raw["x"]["quote"]}.get)
    assert got.kept == [] and got.counts() == {"shares_8gram_with_training": 1}


def _write_exam(path: Path) -> None:
    rng = random.Random(0)  # the documents evaldocs.doc_workspace stores
    train, held = make_docs(12, rng), make_docs(8, rng)
    api = next(d for d in train if d.uri.startswith("python:"))
    held_api = next(d for d in held if d.uri.startswith("python:"))

    def step(doc: Document) -> str:  # the sentence's end with the document's own word
        return doc.text[doc.text.index("says how many") :].rstrip(".")

    rows = [
        (
            "u1",
            "doc:/docs/guides/logging.md",
            COPIED.split(",")[0],
            "A slow request bit us in production; what gets written down for every request?",
        ),
        (
            "u2",
            f"doc:{api.uri}",
            step(api),
            "I need the step applied twice; which parameter controls that?",
        ),
        (
            "u3",
            f"doc:{held_api.uri}",
            step(held_api),
            "In the held-out module, which parameter repeats the step?",
        ),
        (
            "u4",
            f"doc:{api.uri}",
            "The count argument says how many times",
            f"What does `{api.title}` do?",
        ),
        (
            "u5",
            "doc:/docs/guides/logging.md",
            "Every request is dropped silently",
            "When my service drops a request, is it logged anywhere at all?",
        ),
    ]
    with path.open("w") as f:
        for k, source, quote, question in rows:
            f.write(
                json.dumps(
                    {
                        "id": k,
                        "question": question,
                        "choices": list(CHOICES),
                        "answer_index": 1,
                        "source": source,
                        "quote": quote,
                    }
                )
                + "\n"
            )


def test_eval_stage_scores_both_exams_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    _write_exam(tmp_path / "user.jsonl")
    ws, ev = eval_with_tiny_models(
        tmp_path,
        "eval: {max_items: 4, max_new_tokens: 4, general_max_bytes: 0,\n"
        "       user_exam_path: user.jsonl}\n",
    )
    user = ev["user_exam"]
    assert user["items"] == 5 and user["scored"] == 2
    # u3's quote is only in a held-out document; u4 asks in a template's words; u5 misquotes
    assert user["dropped"] == {
        "quote_not_in_training_documents": 1,
        "template_wording": 1,
        "quote_not_in_source": 1,
    }
    for model in ("student", "untrained", "generator"):
        assert user[model]["n_mc"] == 2 and user[model]["n_qa"] == 2
        assert user[model]["mc_chance"] == 0.25
    assert ev["student"]["n_mc"] == 4  # the own exam is unchanged
    pair = user["comparisons"]["student_vs_untrained"]
    assert pair["model"].startswith("student:") and pair["metrics"]["mc_accuracy"]["n"] == 2
    cycle = ws.cycle_dir(1)
    written = json.loads((cycle / "eval.json").read_text())
    assert written["student"]["user_exam"]["n_mc"] == 2
    assert "item_scores" not in written["student"]["user_exam"]
    # where the eval's time went, phase by phase, and the generator's own seconds
    phases = written["student"]["phase_seconds"]
    assert list(phases) == ["load", "own_exam", "user_exam", "bpb"]
    assert all(v >= 0 for v in phases.values())
    assert sum(phases.values()) <= written["student"]["seconds"] + 0.5
    assert written["generator"]["seconds"] >= 0
    scores = json.loads((cycle / "eval_items.json").read_text())
    assert set(scores["student"]["user_exam"]["item_scores"]["mc_accuracy"]) == {"u1", "u2"}
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "user exam" in out and "2 of 5 items scored" in out
    cached = json.loads((ws.root / "untrained_eval.json").read_text())
    assert set(cached["user_exam"]["item_scores"]["mc_accuracy"]) == {"u1", "u2"}
    # the picture of both exams, and the student's model card with their figures
    assert (cycle / "exams.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    card = (ws.student_dir(1) / "README.md").read_text()
    assert "More Information Needed" not in card and "| user | student:cycle-001 |" in card
    assert "| own | untrained |" in card and "user exam, mc_accuracy:" in card
    assert "license: none: trained from scratch" in card


def test_the_card_keeps_the_checksums_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evaldocs import doc_workspace

    from jupiter.improve.card import write_card
    from jupiter.models.folder import verify_checksums, write_checksums
    from tinyhf import save_tiny

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    ws = doc_workspace(tmp_path)
    student = save_tiny("llama", ws.student_dir(1), seed=1)
    (student / "README.md").write_text("More Information Needed\n")
    write_checksums(student)
    path = write_card(ws, 1, {"examples": 12, "tokens": 3000, "steps": 4})
    assert path is not None and "Not evaluated yet" in path.read_text()
    assert "More Information Needed" not in path.read_text()
    assert verify_checksums(student) is None
    ws.close()


def test_a_missing_or_choiceless_user_exam_is_one_line(tmp_path: Path) -> None:
    from jupiter.errors import JupiterError

    with pytest.raises(JupiterError, match="fix eval.user_exam_path"):
        load_user_exam(tmp_path / "none.jsonl")
    path = tmp_path / "open.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "How?", "answer": "So."}) + "\n")
    with pytest.raises(JupiterError, match="item q1 has no choices"):
        load_user_exam(path)


def test_an_info_source_is_a_node_of_a_gnu_manual(tmp_path: Path) -> None:
    from jupiter.eval.userexam import info_node_text

    manual = (
        "\x1f\nFile: frob.info,  Node: Top,  Next: frob invocation,  Up: (dir)\n\n"
        "Frob\n****\n\nThis manual documents frob, which keeps the end of a stream.\n\n"
        "\x1f\nFile: frob.info,  Node: frob invocation,  Prev: Top,  Up: Top\n\n"
        "1 ‘frob’: Keep the end\n======================\n\n"
        "‘frob’ keeps the last three lines of its input, and nothing else.\n"
    )
    (tmp_path / "frob.info.gz").write_bytes(gzip.compress(manual.encode()))
    (tmp_path / "frobnicate.info").write_text(manual.replace("frob", "other"))
    text = info_node_text("frob", "frob invocation", tmp_path)
    assert text is not None and text.startswith("‘frob’: Keep the end\n")  # unnumbered
    assert "keeps the last three lines of its input" in text
    assert info_node_text("frob", "No such node", tmp_path) is None
    assert info_node_text("nope", "Top", tmp_path) is None
    assert source_text("info:no-such-manual#Top") is None and source_text("info:frob") is None


def test_the_checker_command_says_its_usage_and_a_missing_file_in_one_line(
    tmp_path: Path,
) -> None:
    """`python -m jupiter.eval.userexam`: --help is its usage, a missing file one line and
    exit 2, a good exam exit 0 (the shipped Node.js exam)."""
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "jupiter.eval.userexam", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    helped = run("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage:"), helped.stderr
    missing = run(str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.strip() == (
        f"error: eval set not found: {tmp_path / 'none.jsonl'} (check the path and the file's name)"
    )
    good = run(str(SHIPPED / "nodejs.jsonl"))
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.strip().endswith("120 items, 120 pass; dropped {}")


def test_the_checker_warns_when_the_right_choice_is_the_longest() -> None:
    """A set where the right answer is the most qualified choice scores for a reader who
    picks the longest: counted (strictly longest only), and over 40% the command warns."""
    from jupiter.eval.qa import QAItem

    def item(i: int, choices: list[str], right: int) -> QAItem:
        return QAItem(
            id=f"q{i}",
            question="?",
            answer=choices[right],
            choices=tuple(choices),
            answer_index=right,
        )

    told = [item(i, ["a", "bb", "the long right one", "cc"], 2) for i in range(3)]
    fair = [item(3, ["long wrong choice", "b", "right", "c"], 2), item(4, ["aa", "bb"], 0)]
    assert longest_right(told + fair) == pytest.approx(3 / 5)
    assert longest_right(fair) == 0.0 and longest_right([]) == 0.0
    assert longest_right(told + fair) > LENGTH_TELL >= longest_right(fair)
