"""The student's model card (README.md in its folder), in place of PEFT's empty template: the
base and its license, the data and the recipe, and, once evaluated, both exams' figures
with their 95% intervals. Written after training and again after the eval; the folder's
checksums.json is brought up to date with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.improve.workspace import Workspace

CARD = "README.md"
# what a license id in a model's metadata means, where it is not an SPDX id
LICENSES = {"gemma": "Gemma Terms of Use (https://ai.google.dev/gemma/terms)"}


def base_license(ws: Workspace) -> str:
    """The base model's license as its files name it, else a pointer to its own terms."""
    from jupiter.models.gguf_import import SOURCE, gguf_license

    base = ws.cfg.model.base
    if not base:
        return "none: trained from scratch by Jupiter on the domain's documents"
    folder = ws.model(base)
    name = ""
    source = folder / SOURCE
    if source.is_file():
        facts = json.loads(source.read_text(encoding="utf-8"))
        name = facts.get("license") or ""
        if not name and Path(facts.get("source", "")).is_file():
            name = gguf_license(Path(facts["source"]))
    readme = folder / CARD
    if not name and readme.is_file():
        for line in readme.read_text(encoding="utf-8", errors="replace").splitlines()[:30]:
            if line.startswith("license:"):
                name = line.removeprefix("license:").strip()
    if not name:
        return f"the base model's own terms (see {base})"
    return LICENSES.get(name, name)


def _ci(report: dict[str, Any], key: str) -> str:
    value, ci = report.get(key), report.get(f"{key}_ci")
    if value is None:
        return "—"
    return f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def figures_table(ev: dict[str, Any]) -> list[str]:
    """Both exams, every model scored: QA F1 and MC accuracy with their 95% intervals."""
    rows = [
        "| exam | model | QA F1 [95% CI] | MC accuracy [95% CI] | MC chance |",
        "|---|---|---|---|---|",
    ]
    names = ("untrained", "student", "student+retriever", "generator")
    exams = [("own", ev)] + ([("user", ev["user_exam"])] if ev.get("user_exam") else [])
    for exam, got in exams:
        for name in names:
            r = got.get(name) if exam == "user" else ev.get(name)
            if not r:
                continue
            chance = r.get("mc_chance")
            rows.append(
                f"| {exam} | {r.get('model', name)} | {_ci(r, 'qa_f1')} | "
                f"{_ci(r, 'mc_accuracy')} | {'—' if chance is None else f'{chance:.2f}'} |"
            )
    return rows


def differences(ev: dict[str, Any]) -> list[str]:
    """Student minus base, paired, on each exam's MC and QA F1 and on general text."""
    out = []
    for exam, comps in (
        ("own", ev.get("comparisons")),
        ("user", (ev.get("user_exam") or {}).get("comparisons")),
    ):
        pair = (comps or {}).get("student_vs_untrained") or {}
        for metric, e in (pair.get("metrics") or {}).items():
            ci = e.get("ci")
            shown = f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
            out.append(f"- {exam} exam, {metric}: {e['difference']:+.3f}{shown} ({e['verdict']})")
    return out


def render(ws: Workspace, cycle: int, train: dict[str, Any], ev: dict[str, Any] | None) -> str:
    cfg, t = ws.cfg, ws.cfg.train
    base = cfg.model.base or f"{cfg.model.preset} (from scratch)"
    method = t.method + (f" (r {t.lora.r}, alpha {t.lora.alpha})" if t.method != "full" else "")
    mix = train.get("knowledge") or {}
    lines = [
        "---",
        f"base_model: {cfg.model.base or 'none'}",
        f"library_name: {'peft' if t.method != 'full' else 'transformers'}",
        f"tags: [jupiter, {cfg.name}]",
        "---",
        "",
        f"# {cfg.name}: the cycle {cycle} student",
        "",
        cfg.description or "",
        "",
        "## Base model and license",
        "",
        f"- base: {base}",
        f"- license: {base_license(ws)}",
        "",
        "## Data",
        "",
        f"- documents: {ws.store.count('documents')} collected; chunks trained on: "
        f"{ws.store.count('chunks', 'split = ?', ('train',))}, held out: "
        f"{ws.store.count('chunks', 'split = ?', ('heldout',))}",
        f"- examples: {train.get('examples', '—')} in the train split (the knowledge "
        "recipe's included); "
        f"{train.get('tokens', 0):,} tokens packed",
        f"- knowledge recipe: {json.dumps(t.knowledge.model_dump())}; added: {json.dumps(mix)}",
        f"- replay of the base's own text: {t.replay.fraction:.0%} of the tokens"
        + (", scored by the KL to the base" if t.replay.fraction and t.replay.loss == "kl" else ""),
        "",
        "## Recipe",
        "",
        f"- method: {method}; {train.get('steps', '—')} steps at lr {t.lr:g}; context "
        f"{cfg.model.context_length}; loss {train.get('first_loss', float('nan')):.3f} → "
        f"{train.get('final_loss', float('nan')):.3f}",
        "",
        "## Evaluation",
        "",
    ]
    if ev is None:
        lines.append("Not evaluated yet: `jupiter eval` writes both exams' figures here.")
    else:
        lines += [
            "Own exam: " + str(ev.get("eval_set", {}).get("path", "")),
            "User exam (questions as users ask them): "
            + str((ev.get("user_exam") or {}).get("path", "none")),
            "",
        ]
        lines += figures_table(ev) + ["", "Paired differences, student − base (95% CI):", ""]
        lines += differences(ev) or ["- no base model was scored"]
    return "\n".join(lines) + "\n"


def write_card(
    ws: Workspace, cycle: int, train: dict[str, Any] | None = None, ev: dict[str, Any] | None = None
) -> Path | None:
    """README.md in the cycle's student folder (checksums.json updated); None without one.
    `train`: the train stage's record (default: the one stored for the cycle)."""
    from jupiter.models.folder import CHECKSUMS, sha256_file

    student = ws.student_dir(cycle)
    if not student.is_dir():
        return None
    train = train if train is not None else ws.store.stages(cycle).get("train") or {}
    path = student / CARD
    atomic.write_text(path, render(ws, cycle, train, ev))
    sums_path = student / CHECKSUMS
    if sums_path.is_file():
        sums = json.loads(sums_path.read_text(encoding="utf-8"))
        sums[CARD] = sha256_file(path)
        atomic.write_text(sums_path, json.dumps(sums, indent=1, sort_keys=True))
    return path
