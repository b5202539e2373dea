"""A domain's multiple-choice eval set as an lm-evaluation-harness task, so
`lm_eval --model hf --model_args pretrained=DIR --tasks <domain> --include_path OUT
--apply_chat_template` scores any model on the very items the eval stage uses.

Written to OUT: <task>.jsonl (one item a line: question, choices in Jupiter's order, the
right one's index, the system prompt), <task>.yaml (the task) and <task>.json (what the set
is, and the command). Nothing is templated: doc_to_text, doc_to_choice, doc_to_target and
the description are field names, so lm-eval reads each string as written.

What lm-eval then computes, next to Jupiter's own `choose` (synth/model.py):
- the prompt: with --apply_chat_template, the model's chat template renders [system, user]
  with the generation prompt, as Jupiter renders it (lm-eval drops a system message the
  template rejects; Jupiter folds it into the user turn);
- each choice's log-likelihood after it, the choice's text with no leading space (lm-eval
  drops the target delimiter under a chat template), as Jupiter scores it. lm-eval moves the
  prompt's trailing whitespace (the "\\n" after "assistant") into the continuation and
  tokenizes prompt and choice together; a newline does not merge into the choice's first
  token (byte-level BPE splits it off), so its figure is Jupiter's plus log P(that newline
  | prompt): the same for every choice of an item, so the ranking by summed
  log-likelihood is Jupiter's (a template ending in a space could merge, " choice");
- acc picks the highest summed log-likelihood; Jupiter's mc_accuracy picks the highest mean
  per token. The two agree on every item whose choices have equal token counts, and may
  differ elsewhere (lm-eval's acc_norm divides by characters, not tokens; per-token means
  cannot be rebuilt from lm-eval's figures, since the whitespace term above is in them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem

TASK_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


def task_docs(mc: Sequence[MCItem], system_prompt: str) -> list[dict[str, Any]]:
    """One lm-eval doc per item: its choices in the order Jupiter scores them."""
    return [
        {
            "id": m.id,
            "question": m.question,
            "choices": list(m.choices),
            "answer": m.correct,
            "system": system_prompt,
        }
        for m in mc
    ]


def task_config(name: str, data: Path) -> dict[str, Any]:
    """The task YAML: multiple choice over the JSONL at `data` (an absolute path: lm-eval
    reads data_files relative to where it runs, not to the YAML)."""
    return {
        "task": name,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "question",
        "doc_to_choice": "choices",
        "doc_to_target": "answer",
        "description": "system",  # a field name: the system message, as written
        "target_delimiter": " ",  # without a chat template; lm-eval drops it with one
        "num_fewshot": 0,
        "metric_list": [
            {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
            {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
        ],
        "metadata": {"version": 1.0},
    }


def lm_eval_command(name: str, out: Path) -> str:
    return (
        f"lm_eval --model hf --model_args pretrained=MODEL_DIR --tasks {name} "
        f"--include_path {out} --apply_chat_template"
    )


def export_task(
    name: str, mc: Sequence[MCItem], out: Path, system_prompt: str, about: dict[str, Any]
) -> dict[str, Any]:
    """Write the task's three files into `out` (each whole: a temp file renamed); returns
    the manifest."""
    if not TASK_NAME.match(name):
        raise JupiterError(f"lm-eval task name {name!r}: use letters, digits, _ and -")
    if not mc:
        raise JupiterError("the eval set has no multiple-choice items to export")
    out = out.expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise JupiterError(f"--export-lm-eval {out} is a file: give a folder")
    out.mkdir(parents=True, exist_ok=True)
    data = out / f"{name}.jsonl"
    docs = task_docs(mc, system_prompt)
    atomic.write_text(data, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    command = lm_eval_command(name, out)
    head = (
        f"# Jupiter's eval set of '{name}' as an lm-eval task: {len(docs)} multiple-choice "
        "items, choices in Jupiter's order.\n# Scored as Jupiter scores them (chat "
        f"template, system prompt):\n#   {command}\n"
    )
    body = yaml.safe_dump(task_config(name, data), sort_keys=False, allow_unicode=True)
    atomic.write_text(out / f"{name}.yaml", head + body)
    manifest = {
        "task": name,
        "items": len(docs),
        "data": str(data),
        "yaml": str(out / f"{name}.yaml"),
        "choices": sorted({len(d["choices"]) for d in docs}),
        "system_prompt": system_prompt,
        "eval_set": about,
        "command": command,
    }
    atomic.write_text(
        out / f"{name}.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    )
    return manifest
