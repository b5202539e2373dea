"""Multiple-choice distractors written by the LLM teacher, through a real OpenAI-compatible
server on 127.0.0.1: checked one by one, topped up with hard ones, counted by reason,
frozen into the automatic eval set (or a sidecar for a user's file), and asked for once."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from evaldocs import doc_workspace
from rich.console import Console

from fakellm import FakeLLM
from jupiter.eval.distractors import describe
from jupiter.eval.mc import build_mc, hard_distractors
from jupiter.eval.qa import QAItem, item_record, load_eval_set, normalize_answer
from jupiter.improve.evalset import eval_items
from jupiter.improve.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(
    r"Question:\n(.*?)\n\nCorrect answer:\n(.*?)\n\n(?:Source passage|Write )", re.S
)


def good(answer: str, k: int) -> str:
    """A wrong answer of the answer's own shape: its last word swapped."""
    return " ".join([*answer.split()[:-1], f"quxo{k}"])


class Teacher:
    """The scripted teacher: good distractors unless `plan` names another reply for the
    question; a letter for any other prompt."""

    def __init__(self) -> None:
        self.plan: dict[str, str] = {}

    def __call__(self, body: dict[str, Any]) -> str:
        m = PROMPT.search(body["messages"][-1]["content"])
        if m is None:
            return "B."
        question, answer = m.group(1), m.group(2)
        kind = self.plan.get(question, "good")
        if kind == "malformed":
            return "Sure! Here are three wrong answers to the question."
        wrong = {
            "good": [good(answer, 1), good(answer, 2), good(answer, 3)],
            "answer": [answer, good(answer, 1), good(answer, 2)],
            "duplicates": [good(answer, 1), good(answer, 1).upper(), good(answer, 2)],
            # overlaps the answer, far too long, then three good ones: one too many
            "mixed": [f"{answer} and more", "x " * 300, *(good(answer, k) for k in (1, 2, 3, 4))],
        }[kind]
        return "```json\n" + json.dumps({"distractors": wrong}) + "\n```"


def teacher_workspace(root: Path, llm: FakeLLM, eval_extra: str = "auto_max_items: 8") -> Workspace:
    extra = (
        f"generator: {{type: llm, llm: {{base_url: '{llm.base_url}', model: teacher, "
        f"max_retries: 0}}}}\neval: {{{eval_extra}}}\n"
    )
    return doc_workspace(root, extra)


def with_mode(ws: Workspace, mode: str) -> Workspace:
    """The same workspace (root, store) under another eval.mc_distractors."""
    ecfg = ws.cfg.eval.model_copy(update={"mc_distractors": mode})
    return Workspace(ws.cfg.model_copy(update={"eval": ecfg}), console=ws.console)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeLLM, Teacher]]:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    script = Teacher()
    with FakeLLM(reply=script) as llm:
        yield llm, script


def test_frozen_set_carries_the_teachers_checked_choices_asked_once(
    tmp_path: Path, served: tuple[FakeLLM, Teacher]
) -> None:
    llm, script = served
    ws = teacher_workspace(tmp_path, llm)
    folder = ws.root / "eval"
    # hard: the server is never called, and the frozen set carries no choices
    hard = with_mode(ws, "hard")
    plain, _, about = eval_items(hard)
    hard.close()
    assert about["distractors"] == {"source": "hard"} and (llm.count, llm.gets) == (0, 0)
    assert not any(it.choices for it in plain) and len(plain) == 8
    shutil.rmtree(folder)
    ordered = sorted(plain, key=lambda it: it.id)
    kinds = ("malformed", "answer", "duplicates", "mixed")
    script.plan = {it.question: kind for it, kind in zip(ordered, kinds, strict=False)}

    # auto with an LLM generator: the teacher writes them when the set is frozen
    items, mc, about = eval_items(ws)
    assert llm.count == 8  # one request per item
    manifest = json.loads((folder / "eval-v1.json").read_text())
    info = manifest["distractors"]
    assert info["counts"] == {
        "distractor_dup": 1,
        "distractor_is_answer": 1,
        "distractor_length": 1,
        "distractor_overlaps_answer": 1,
        "distractor_surplus": 1,
        "items_topped_up": 3,
        "llm": 19,
        "malformed:no_json": 1,
        "topped_up": 5,
    }
    recipe = ROOT / "config" / "recipes" / "distractors.j2"
    assert info["recipe_sha256"] == hashlib.sha256(recipe.read_bytes()).hexdigest()
    assert (info["source"], info["teacher"], info["recipe"]) == (
        "llm",
        "openai:teacher",
        "distractors.j2",
    )
    assert about["distractors"] == info

    frozen = {it.id: it for it in load_eval_set(folder / "eval-v1.jsonl")}
    top = hard_distractors(plain, 6, seed=0)  # the top-ups, best first
    want = {
        "malformed": [],
        "answer": [1, 2],
        "duplicates": [1, 2],
        "mixed": [1, 2, 3],
    }
    for it in plain:
        got = frozen[it.id]
        assert len(got.choices) == 4 and got.choices[got.answer_index] == it.answer  # type: ignore[index]
        from_teacher = [
            good(it.answer, k) for k in want.get(script.plan.get(it.question, ""), [1, 2, 3])
        ]
        topped = top[it.id][: 3 - len(from_teacher)]
        assert sorted(got.choices) == sorted([it.answer, *from_teacher, *topped])
    # the MC of the eval is the frozen choices, as given
    assert {m.id: (m.choices, m.correct) for m in mc} == {
        i: (list(it.choices), it.answer_index) for i, it in frozen.items()
    }
    assert len({m.correct for m in mc}) > 1  # shuffled: the answer is not always first

    # the next cycle (a new workspace object): the same choices, the server not asked
    again = Workspace(ws.cfg, console=Console(file=io.StringIO()))
    _, mc2, about2 = eval_items(again)
    again.close()
    assert mc2 == mc and about2["distractors"] == info and (llm.count, llm.gets) == (8, 1)
    # frozen again from scratch: every answer comes from the store's cache, none is asked
    jsonl = (folder / "eval-v1.jsonl").read_bytes()
    shutil.rmtree(folder)
    _, mc3, _ = eval_items(ws)
    ws.close()
    assert (folder / "eval-v1.jsonl").read_bytes() == jsonl and mc3 == mc
    assert (llm.count, llm.gets) == (8, 1)


def _qa_file(path: Path, items: list[QAItem]) -> None:
    path.write_text("".join(json.dumps(item_record(it)) + "\n" for it in items))


def test_a_users_file_gets_a_sidecar_keyed_by_its_hash(
    tmp_path: Path, served: tuple[FakeLLM, Teacher]
) -> None:
    llm, _ = served
    items = [
        QAItem(
            f"q{k}",
            f"Which colour does the widget number {k} use?",
            f"The widget {k} is painted {c} by default",
            topic="widgets",
        )
        for k, c in enumerate(["red", "green", "blue", "amber", "violet", "black"])
    ]
    own = ("It is blue", "It is red", "It is grey")
    items[5] = replace(items[5], choices=own, answer_index=0, answer=own[0])
    qa = tmp_path / "qa.jsonl"
    _qa_file(qa, items)
    ws = teacher_workspace(tmp_path, llm, "qa_path: qa.jsonl")
    _, mc, about = eval_items(ws)
    info = about["distractors"]
    assert llm.count == 5 and info["source"] == "llm" and info["given"] == 1
    assert info["counts"] == {"llm": 15}
    digest = hashlib.sha256(qa.read_bytes()).hexdigest()
    sidecar = ws.root / "eval" / f"choices-{digest[:16]}.jsonl"
    assert info["path"] == str(sidecar) and info["eval_sha256"] == digest
    # `jupiter eval --qa` on the sidecar sits the same exam: its choices are used as given
    assert build_mc(load_eval_set(sidecar), 4, seed=7, distractors="random") == mc
    assert mc[5].choices == list(own) and mc[5].correct == 0
    for it, m in zip(items[:5], mc[:5], strict=True):
        assert sorted(m.choices) == sorted([it.answer, *(good(it.answer, k) for k in (1, 2, 3))])
    # a re-run reads the sidecar back
    again = Workspace(ws.cfg, console=Console(file=io.StringIO()))
    assert eval_items(again)[1] == mc and llm.count == 5
    again.close()
    # an edited file gets its own sidecar; unchanged items come from the store's cache
    _qa_file(
        qa,
        [
            *items,
            QAItem(
                "q6",
                "Which colour does the widget 6 use?",
                "The widget 6 is painted white by default",
            ),
        ],
    )
    assert len(eval_items(ws)[1]) == 7 and llm.count == 6
    assert len(list((ws.root / "eval").glob("choices-*.jsonl"))) == 2
    # cached answers that no longer parse (a number as text) are asked again, not fatal
    with ws.store.transaction() as db:
        db.execute("""UPDATE llm_cache SET response = '{"text": 7}'""")
    for side in (ws.root / "eval").glob("choices-*"):
        side.unlink()
    assert eval_items(ws)[1][:5] == mc[:5] and llm.count == 12
    ws.close()


def test_auto_without_a_teacher_is_hard_and_calls_nothing(
    tmp_path: Path, served: tuple[FakeLLM, Teacher]
) -> None:
    llm, _ = served
    ws = doc_workspace(
        tmp_path,
        f"eval: {{auto_max_items: 6}}\ngenerator: {{llm: "
        f"{{base_url: '{llm.base_url}', model: teacher}}}}\n",
    )
    items, mc, about = eval_items(ws)
    ws.close()
    assert about["distractors"] == {"source": "hard"} and (llm.count, llm.gets) == (0, 0)
    assert mc == build_mc(items, 4, seed=0, distractors="hard")
    assert "hard (other items' answers" in describe(about["distractors"])


def test_an_unreachable_teacher_names_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.errors import JupiterError

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    extra = (
        "generator: {type: llm, llm: {base_url: 'http://127.0.0.1:9/v1', model: t, "
        "timeout: 1, max_retries: 0}}\neval: {auto_max_items: 4, mc_distractors: llm}\n"
    )
    ws = doc_workspace(tmp_path, extra)
    with pytest.raises(JupiterError, match="set it to hard"):
        eval_items(ws)
    ws.close()
    assert not (ws.root / "eval" / "eval-v1.json").exists()  # nothing frozen


def test_the_report_line_says_who_wrote_them() -> None:
    info = {
        "source": "llm",
        "teacher": "openai:teacher",
        "recipe": "distractors.j2",
        "recipe_sha256": "ab" * 32,
        "items": 8,
        "counts": {"llm": 19, "topped_up": 5, "items_topped_up": 3},
    }
    line = describe(info)
    assert "written by openai:teacher (recipe distractors.j2 abababababab) for 8 items" in line
    assert "19 used; 5 hard ones topped up on 3 items" in line
    assert describe(None).startswith("multiple-choice distractors: hard")
    assert "as given" in describe({"source": "given"})


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ([""], "distractor_empty"),
        ([3], "distractor_empty"),
        (["The Answer here!"], "distractor_is_answer"),
        (["not the answer here at all"], "distractor_overlaps_answer"),
        (["the answer"], "distractor_overlaps_answer"),  # contained in the answer
        (["a b", "A  b."], "distractor_dup"),
        (["x" * 60], "distractor_length"),
    ],
)
def test_each_check_has_its_reason(raw: list[Any], reason: str) -> None:
    from collections import Counter

    from jupiter.eval.distractors import check_distractors

    counts: Counter[str] = Counter()
    kept = check_distractors("the answer here", raw, 3, counts)
    assert counts == Counter({reason: 1}) and len(kept) == len(raw) - 1
    assert all(normalize_answer(k) != "answer here" for k in kept)
