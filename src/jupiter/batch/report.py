"""What `jupiter test` writes: results.jsonl (one row per prompt per model, with timing),
results.md (the prompts and every model's answer side by side, and the scores) and
summary.json (per model: scores with their 95% bootstrap intervals, tokens/s).

Answers are scored when the prompt has an expected answer: SQuAD token F1 and exact match
(eval/qa.py), their means with a 95% percentile-bootstrap interval (eval/stats.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.batch.prompts import PromptItem
from jupiter.batch.run import ModelRun
from jupiter.errors import JupiterError
from jupiter.eval.qa import exact_match, token_f1
from jupiter.eval.stats import mean_ci


def result_rows(items: Sequence[PromptItem], runs: Sequence[ModelRun]) -> list[dict[str, Any]]:
    """One row per prompt per model, model by model, prompts in file order."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for k, (item, a) in enumerate(zip(items, run.answers, strict=True)):
            row: dict[str, Any] = {
                "index": k,
                "id": item.id,
                "model": run.model.label,
                "model_ref": run.model.ref,
                "prompt": item.prompt,
                "output": a.text,
                "finish_reason": a.finish_reason,
                "prompt_tokens": a.prompt_tokens,
                "completion_tokens": a.completion_tokens,
                "batch_seconds": round(a.batch_seconds, 4),
            }
            if item.expected is not None:
                row |= {
                    "expected": item.expected,
                    "f1": token_f1(a.text, item.expected),
                    "exact": float(exact_match(a.text, item.expected)),
                }
            rows.append(row)
    return rows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ci(values: list[float]) -> list[float] | None:
    ci = mean_ci(values)
    return None if ci is None else [float(ci[0]), float(ci[1])]


def summaries(rows: Sequence[dict[str, Any]], runs: Sequence[ModelRun]) -> list[dict[str, Any]]:
    """Per model: answers, scored answers, mean F1 and exact match with 95% intervals, load
    and decoding time, tokens/s."""
    out = []
    for run in runs:
        mine = [r for r in rows if r["model"] == run.model.label]
        f1 = [float(r["f1"]) for r in mine if "f1" in r]
        exact = [float(r["exact"]) for r in mine if "exact" in r]
        tokens = sum(int(r["completion_tokens"]) for r in mine)
        out.append(
            {
                "model": run.model.label,
                "ref": run.model.ref,
                "path": str(run.model.path),
                "n": len(mine),
                "n_scored": len(f1),
                "f1": _mean(f1),
                "f1_ci": _ci(f1),
                "exact": _mean(exact),
                "exact_ci": _ci(exact),
                "load_seconds": round(run.load_seconds, 3),
                "seconds": round(run.seconds, 3),
                "completion_tokens": tokens,
                "tokens_per_s": round(tokens / run.seconds, 1) if run.seconds > 0 else None,
            }
        )
    return out


def _cell(text: str) -> str:
    """Text inside one markdown table cell: pipes escaped, line breaks as <br>."""
    flat = text.strip().replace("\\", "\\\\").replace("|", "\\|")
    return "<br>".join(flat.splitlines()) or " "


def _figure(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def markdown(
    items: Sequence[PromptItem], rows: Sequence[dict[str, Any]], summary: Sequence[dict[str, Any]]
) -> str:
    """The scores (when expected answers are given), then the side-by-side table."""
    labels = [s["model"] for s in summary]
    lines = [f"# jupiter test: {len(items)} prompts, {len(labels)} models", ""]
    scored = any(s["n_scored"] for s in summary)
    head = ["model", "answers", "tokens/s"]
    if scored:
        head[1:1] = ["token F1 [95% CI]", "exact match [95% CI]", "scored"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in summary:
        cells = [_cell(s["model"]), str(s["n"]), str(s["tokens_per_s"] or "—")]
        if scored:
            cells[1:1] = [
                _figure(s["f1"], s["f1_ci"]),
                _figure(s["exact"], s["exact_ci"]),
                str(s["n_scored"]),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    by_key = {(r["model"], r["index"]): r for r in rows}
    expected = any(it.expected is not None for it in items)
    head = ["#", "prompt", *(["expected"] if expected else []), *map(_cell, labels)]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, item in enumerate(items):
        cells = [str(k + 1), _cell(item.prompt)]
        if expected:
            cells.append(_cell(item.expected or ""))
        for label in labels:
            r = by_key[(label, k)]
            score = f" (F1 {r['f1']:.2f})" if "f1" in r else ""
            cells.append(_cell(r["output"]) + score)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def check_results_out(out: Path, inputs: Sequence[Path]) -> None:
    """A one-line JupiterError, before any model has answered, when the results could not
    be written to `out`: a file, a model folder being tested or a workspace (or inside
    one), a folder holding an input (a model, the prompts), or a place this user cannot
    write."""
    from jupiter.wspath import workspace_of

    out = Path(out).expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise JupiterError(f"--out {out} is a file: choose a folder for the results")
    for given in inputs:
        src = Path(given).resolve()
        if out == src or src in out.parents:
            raise JupiterError(f"--out {out} is inside the model {src}: choose a folder outside it")
        if out in src.parents:  # the results' files could land on it (results.jsonl)
            raise JupiterError(
                f"--out {out} holds the input {src}: choose a folder for the "
                "results apart from the models and prompts"
            )
    ws = workspace_of(out)
    if ws is not None:
        raise JupiterError(f"--out {out} is inside the workspace {ws}: choose a folder outside it")
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise JupiterError(
            f"--out {out} cannot be written ({existing} is not a writable "
            "folder): choose another --out"
        )


def write_results(
    out: Path, items: Sequence[PromptItem], runs: Sequence[ModelRun]
) -> dict[str, Any]:
    """results.jsonl, results.md and summary.json in `out`, each written whole (a temp file
    renamed); returns the summary."""
    rows = result_rows(items, runs)
    summary = summaries(rows, runs)
    out.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    atomic.write_text(out / "results.jsonl", text)
    atomic.write_text(out / "results.md", markdown(items, rows, summary))
    doc = {"prompts": len(items), "models": summary}
    atomic.write_text(out / "summary.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return doc
