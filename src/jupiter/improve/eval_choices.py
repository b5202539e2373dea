"""The multiple-choice side of a workspace's eval set: which distractors (eval.mc_distractors)
and, for `llm`, where the teacher's choices live so it is asked once.

- The automatic eval set: the choices are written into the frozen items when the set is
  frozen, and its manifest records the teacher and the recipe's hash; every later cycle,
  and `jupiter eval --qa eval-vN.jsonl`, sits the very same choices.
- A user's eval.qa_path: a sidecar pair in <workspace>/eval, choices-<hash>.jsonl (the
  items with their choices, readable by `jupiter eval --qa`) and choices-<hash>.json (what
  made them), keyed by the SHA-256 of the eval file; a re-run reads it back.

`auto` decides once per set: an automatic set frozen without the teacher's choices keeps
hard distractors, so a running workspace's exam does not change under it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from jupiter import atomic
from jupiter.config import DomainConfig, LLMConfig
from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem, QAItem, item_record, load_eval_set
from jupiter.improve.generator import llm_config
from jupiter.improve.workspace import Workspace
from jupiter.models.folder import sha256_file

Mode = Literal["hard", "random", "llm"]


def has_teacher(cfg: DomainConfig) -> bool:
    """An LLM the domain already relies on: an LLM generator, or an eval judge LLM."""
    return cfg.generator.type == "llm" or cfg.eval.judge_llm is not None


def teacher_llm(cfg: DomainConfig) -> LLMConfig:
    """The generator's llm when it is the teacher, else the eval judge's, else the filter
    judge's, else generator.llm (the judge's own order, eval/judge.py)."""
    if cfg.generator.type == "llm":
        return cfg.generator.llm
    return cfg.eval.judge_llm or cfg.filters.judge.llm or cfg.generator.llm


def distractor_mode(cfg: DomainConfig, about: Mapping[str, Any] | None = None) -> Mode:
    """eval.mc_distractors resolved for the set `about` describes (eval_set's record; None
    while an automatic set is being frozen)."""
    mode = cfg.eval.mc_distractors
    if mode != "auto":
        return mode
    if about is not None and about.get("auto"):  # decided when the set was frozen
        frozen = about.get("distractors") or {}
        return "llm" if frozen.get("source") == "llm" else "hard"
    return "llm" if has_teacher(cfg) else "hard"


def passages(ws: Workspace, items: Sequence[QAItem]) -> dict[str, str]:
    """Each item's source passage where the store has it: a chunk of its document (or of
    its source URI) holding the answer, else that document's first chunk."""
    by_key: dict[str, list[str]] = {}
    for c in ws.store.iter_chunks():
        by_key.setdefault(c.doc_id, []).append(c.text)
        by_key.setdefault(c.uri, []).append(c.text)
    out: dict[str, str] = {}
    for it in items:
        texts = by_key.get(it.doc) or by_key.get(it.source) or []
        holding = [t for t in texts if it.answer.strip("`") in t]
        if texts:
            out[it.id] = (holding or texts)[0]
    return out


def llm_choices(ws: Workspace, items: Sequence[QAItem]) -> tuple[list[QAItem], dict[str, Any]]:
    """The items with the teacher's choices (eval/distractors.py) and the record of them."""
    from jupiter.eval.distractors import Recipe, Teacher, teacher_choices
    from jupiter.synth.http import make_backend
    from jupiter.synth.recipes import LANGUAGES, template_path

    ecfg, llm = ws.cfg.eval, teacher_llm(ws.cfg)
    teacher = Teacher(
        make_backend(llm_config(ws, llm)),
        ws.store,
        llm.concurrency,
        llm.max_retries,
        llm.max_tokens,
    )
    recipe = Recipe(
        template_path("distractors", "", ws.cfg),
        ws.cfg.name,
        LANGUAGES.get(ws.cfg.language, ws.cfg.language),
    )
    todo = sum(1 for it in items if not it.choices)
    with ws.console.status(f"the teacher writes distractors for {todo} eval items…"):
        try:
            out, info = teacher_choices(
                items, teacher, recipe, passages(ws, items), ecfg.mc_choices, ecfg.seed
            )
        except JupiterError as err:
            raise JupiterError(
                f"{err} (eval.mc_distractors is {ecfg.mc_distractors}: the teacher writes the "
                "multiple-choice distractors; set it to hard to build them without an LLM)"
            ) from None
    info["llm"] = {"backend": llm.backend, "model": llm.model}
    ws.console.print(_counts_line(info))
    return out, info


def _counts_line(info: Mapping[str, Any]) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in info["counts"].items())
    return f"distractors by {info['teacher']} for {info['items']} eval items: {counts}"


def frozen_choices(ws: Workspace, items: list[QAItem]) -> tuple[list[QAItem], dict[str, Any]]:
    """For an automatic set about to be frozen: the teacher's choices in the items when the
    mode is llm, else the items as they are and the mode the eval will build them with."""
    mode = distractor_mode(ws.cfg)
    if mode != "llm":
        return items, {"source": mode}
    return llm_choices(ws, items)


# ------------------------------------------------------------------------------- sidecar
def sidecar_choices(
    ws: Workspace, items: Sequence[QAItem], eval_path: Path
) -> tuple[list[QAItem], dict[str, Any]]:
    """The teacher's choices for an eval file, from its sidecar when one was made for this
    file, teacher, recipe, number of choices and seed; else made and written."""
    from jupiter.synth.recipes import template_path

    ecfg, llm = ws.cfg.eval, teacher_llm(ws.cfg)
    digest = sha256_file(eval_path)
    folder = ws.root / "eval"
    data, record = folder / f"choices-{digest[:16]}.jsonl", folder / f"choices-{digest[:16]}.json"
    want = {
        "eval_sha256": digest,
        "llm": {"backend": llm.backend, "model": llm.model},
        "recipe_sha256": sha256_file(template_path("distractors", "", ws.cfg)),
        "n_choices": ecfg.mc_choices,
        "seed": ecfg.seed,
    }
    if record.is_file() and data.is_file():
        info = json.loads(record.read_text(encoding="utf-8"))
        same = all(info.get(k) == v for k, v in want.items())
        if same and info.get("sha256") == sha256_file(data):
            return load_eval_set(data), info
    out, info = llm_choices(ws, items)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(item_record(it), ensure_ascii=False) for it in out]
    atomic.write_text(data, "\n".join(lines) + "\n")
    info |= {**want, "eval_file": str(eval_path), "path": str(data), "sha256": sha256_file(data)}
    atomic.write_text(record, json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    return out, info


def mc_items(
    ws: Workspace, items: list[QAItem], about: Mapping[str, Any]
) -> tuple[list[QAItem], list[MCItem], dict[str, Any]]:
    """(items, their multiple choice, where the distractors came from) for the set `about`
    describes: its own or frozen choices as given, the teacher's from the sidecar, or hard
    or random ones built now."""
    from jupiter.eval.mc import build_mc
    from jupiter.eval.qa import normalize_answer

    ecfg = ws.cfg.eval
    mode = distractor_mode(ws.cfg, about)
    frozen = about.get("distractors") or {}
    given = sum(1 for it in items if it.choices) if frozen.get("source") != "llm" else 0
    info: dict[str, Any] = dict(frozen) if frozen.get("source") == "llm" else {"source": mode}
    if given == len(items):
        info = {"source": "given"}
    elif mode == "llm" and any(not it.choices for it in items):
        items, info = sidecar_choices(ws, items, Path(about["path"]))
    if given and info["source"] != "given":
        info["given"] = given
    n = ecfg.mc_choices
    distinct = len({normalize_answer(it.answer) for it in items})
    if about.get("auto") and any(not it.choices for it in items) and 2 <= distinct < n:
        # an automatic set from a few held-out chunks (a small prose corpus): fewer choices
        # than asked, said, rather than no eval after a whole training run
        n = info["n_choices"] = distinct
        ws.console.print(
            f"[yellow]warning:[/] the automatic eval set has {distinct} distinct answers: "
            f"multiple choice among {n}, not eval.mc_choices {ecfg.mc_choices} (chance "
            f"{1 / n:.2f}); add documents or raise chunking.heldout_fraction for more"
        )
    mc = build_mc(items, n, ecfg.seed, "random" if mode == "random" else "hard")
    return items, mc, info


def mc_digest(mc: Sequence[MCItem]) -> str:
    """A hash of the exact multiple choice (ids, choices, right positions): a cached report
    of other choices does not pair."""
    rows = [[m.id, m.choices, m.correct] for m in mc]
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()
