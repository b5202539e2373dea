"""What `jupiter export` exports: a model given by reference (--model: a dir, an adapter, a
Hub id, a .gguf, ollama:NAME, resolved as `serve` and `chat` resolve them), or one of a
domain's models (--domain): the model `jupiter chat` talks to (the active generator when it
is a model, else the best evaluated student), the best evaluated student (--best), a
cycle's student (--cycle N), or a training checkpoint (--checkpoint epoch-K or step-N).
With it come the eval figures recorded for that very model, when there are any."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from jupiter.errors import JupiterError

if TYPE_CHECKING:
    from rich.console import Console

    from jupiter.improve.workspace import Workspace

STUDENT_DIR = re.compile(r"^cycle-(\d+)$")
CHECKPOINT = re.compile(r"^(epoch|step)-(\d+)$")
LOWER_IS_BETTER = ("bpb", "general_bpb")  # as improve/evaluate.py scores them
# per-item detail in a report; the manifest keeps the figures
DETAIL_KEYS = ("samples", "breakdown", "predictions", "item_scores")


@dataclass(frozen=True)
class Source:
    """The model to export, as a local HF dir or PEFT adapter dir."""

    ref: str  # as the user gave it
    path: Path
    kind: Literal["model", "adapter"]
    selected: str  # how it was picked, for the console and export.json
    label: str  # a short name: the GGUF's general.name, file names
    evals: dict[str, Any] | None = None
    eval_note: str = ""
    system_prompt: str = ""


def _kind(path: Path) -> Literal["model", "adapter"]:
    from jupiter.models.folder import is_adapter_dir, is_model_dir

    if not is_model_dir(path):
        raise JupiterError(
            f"{path} is not a model (no config.json or adapter_config.json): point --model at "
            "a model folder, a LoRA adapter folder, a .gguf file, a Hub id or ollama:NAME"
        )
    return "adapter" if is_adapter_dir(path) else "model"


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in DETAIL_KEYS}


def student_figures(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The eval figures of a cycle's student (runs/<domain>/cycles/cycle-NNN/train/final),
    read from that cycle's eval.json; (None, why) for any other dir."""
    path = path.resolve()
    cycle_dir = path.parent.parent
    if path.name != "final" or path.parent.name != "train" or not STUDENT_DIR.match(cycle_dir.name):
        return None, "no evaluation is recorded for this model (a cycle's student has one)"
    report_path = cycle_dir / "eval.json"
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None, f"cycle {cycle_dir.name} has no readable eval.json: run `jupiter eval`"
    student = report.get("student") or {}
    if Path(student.get("path") or "").resolve() != path:
        return None, f"{report_path} scores another model"
    comparisons = report.get("comparisons") or {}
    figures = {
        "source": str(report_path),
        "cycle": report.get("cycle"),
        "promotion_metric": report.get("promotion_metric"),
        "eval_set": report.get("eval_set"),
        "student": _figures(student),
    }
    for name, entry in comparisons.items():
        figures[name] = entry.get("metrics")
    return figures, ""


def _stored_figures(ws: Workspace, path: Path) -> dict[str, Any] | None:
    """The latest eval row the domain's store holds for the model at `path`."""
    rows = [
        r
        for r in ws.store.evals()
        if r["report"].get("path") and Path(r["report"]["path"]).resolve() == path.resolve()
    ]
    if not rows:
        return None
    row = rows[-1]
    return {
        "source": f"{ws.store_path} (evals)",
        "cycle": row["cycle"],
        "promotion_metric": ws.cfg.promotion.metric,
        "student": _figures(row["report"]),
    }


def from_model(ref: str, cache_dir: Path, console: Console) -> Source:
    """--model REF: any reference `serve` and `chat` take; a GGUF is imported once."""
    from jupiter.models.reference import resolve_model

    path = resolve_model(ref, base_dir=None, cache_dir=cache_dir, console=console)
    kind = _kind(path)
    figures, note = student_figures(path)
    label = path.name if path.name not in ("final", "model") else path.parent.parent.name
    return Source(ref, path, kind, f"--model {ref}", label, figures, note)


def _no_store(ws: Workspace) -> JupiterError:
    return JupiterError(
        f"domain '{ws.cfg.name}' has no workspace yet at {ws.root}: train a model first with "
        f"`jupiter start --domain {ws.cfg.name}`"
    )


def _best_student(ws: Workspace) -> Path:
    metric = ws.cfg.promotion.metric
    sign = -1.0 if metric in LOWER_IS_BETTER else 1.0
    scored = []
    for row in ws.store.evals():
        score, path = row["report"].get(metric), Path(row["report"].get("path") or "")
        if row["model"].startswith("student:") and score is not None and path.is_dir():
            scored.append((sign * float(score), row["cycle"], path))
    if not scored:
        raise JupiterError(
            f"domain '{ws.cfg.name}' has no evaluated student with a {metric}: run "
            f"`jupiter eval --domain {ws.cfg.name}`, or pick one with --cycle N"
        )
    return max(scored)[2]  # ties: the later cycle


def _cycles_with_train(ws: Workspace) -> list[int]:
    found = [
        int(m.group(1))
        for p in (ws.root / "cycles").glob("cycle-*")
        if (m := STUDENT_DIR.match(p.name)) and (p / "train").is_dir()
    ]
    return sorted(found)


def _student(ws: Workspace, cycle: int) -> Path:
    from jupiter.models.folder import is_model_dir

    path = ws.student_dir(cycle)
    if not is_model_dir(path):
        have = [n for n in _cycles_with_train(ws) if is_model_dir(ws.student_dir(n))]
        listed = ", ".join(map(str, have)) or "none yet"
        raise JupiterError(
            f"cycle {cycle} of '{ws.cfg.name}' has no trained student at {path} (cycles with "
            f"one: {listed}): pick another --cycle, or train it with `jupiter train`"
        )
    return path


def _epoch_rows(train_dir: Path) -> list[dict[str, Any]]:
    try:
        rows = json.loads((train_dir / "epoch_info.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return []
    return [r for r in rows.get("epochs", []) if isinstance(r, dict)]


def _available(train_dir: Path) -> str:
    from jupiter.train.checkpoint import list_checkpoints

    epoch_of = {
        Path(r.get("checkpoint") or "").name: r.get("epoch") for r in _epoch_rows(train_dir)
    }
    names = [
        p.name + (f" (epoch-{epoch_of[p.name]})" if epoch_of.get(p.name) else "")
        for p in list_checkpoints(train_dir)
        if (p / "model").is_dir()
    ]
    return ", ".join(names) or "none"


def checkpoint_dir(ws: Workspace, cycle: int | None, spec: str) -> tuple[Path, int]:
    """The model dir of checkpoint `spec` (epoch-K: the one written at the end of epoch K,
    per epoch_info.json; step-N) of `cycle`'s training run (default: the latest run)."""
    m = CHECKPOINT.match(spec.strip().lower())
    if m is None:
        raise JupiterError(f"--checkpoint {spec!r}: write epoch-K (e.g. epoch-2) or step-N")
    runs = _cycles_with_train(ws)
    if cycle is None:
        if not runs:
            raise JupiterError(
                f"domain '{ws.cfg.name}' has no training run yet in {ws.root / 'cycles'}: "
                f"run `jupiter train --domain {ws.cfg.name}` first"
            )
        cycle = runs[-1]
    train_dir = ws.train_dir(cycle)
    kind, n = m.group(1), int(m.group(2))
    if kind == "step":
        path = train_dir / f"step-{n:06d}"
    else:
        rows = [r for r in _epoch_rows(train_dir) if r.get("epoch") == n and r.get("checkpoint")]
        path = Path(rows[-1]["checkpoint"]) if rows else train_dir / "-"
    if not (path / "model").is_dir() and (train_dir / "levels").is_dir():
        raise JupiterError(
            f"cycle {cycle} of '{ws.cfg.name}' trained by levels: their checkpoints are in "
            f"{train_dir / 'levels'}/NAME/: export one with --model "
            f"{train_dir / 'levels'}/NAME/step-N/model"
        )
    if not (path / "model").is_dir():
        raise JupiterError(
            f"cycle {cycle} of '{ws.cfg.name}' has no checkpoint {spec} in {train_dir} "
            f"(available: {_available(train_dir)}; train.keep_checkpoints keeps the newest K "
            "plus the best): pick one of those"
        )
    return path / "model", cycle


def from_domain(
    ws: Workspace, *, best: bool = False, cycle: int | None = None, checkpoint: str | None = None
) -> Source:
    """One of the domain's models; see the module's docstring for the choices."""
    from jupiter.serve.chat import best_model

    if best and (cycle is not None or checkpoint is not None):
        raise JupiterError("--best picks among the evaluated students: drop --cycle/--checkpoint")
    if not ws.has_store():
        raise _no_store(ws)
    name, note = ws.cfg.name, ""
    if checkpoint is not None:
        path, n = checkpoint_dir(ws, cycle, checkpoint)
        selected, label = (
            f"checkpoint {checkpoint} of cycle {n}",
            f"{name}-cycle-{n:03d}-{checkpoint}",
        )
        note = (
            f"checkpoint {checkpoint} was not evaluated (only each cycle's final student "
            f"is): score it with `jupiter eval --model {path} --qa FILE`"
        )
    elif cycle is not None:
        path, selected, label = (
            _student(ws, cycle),
            f"student of cycle {cycle}",
            f"{name}-cycle-{cycle:03d}",
        )
    else:
        path = _best_student(ws) if best else best_model(ws)
        active = ws.store.active_generator() or {}
        what = (
            "best evaluated student"
            if best
            else (
                f"active generator {active.get('id')}"
                if Path(active.get("path") or "-") == path
                else "best evaluated student"
            )
        )
        selected, label = (
            what,
            f"{name}-{path.parent.parent.name if path.name == 'final' else path.name}",
        )
    figures, why = student_figures(path) if checkpoint is None else (None, note)
    if figures is None and checkpoint is None:
        figures = _stored_figures(ws, path)
    return Source(
        f"--domain {name}",
        path.resolve(),
        _kind(path),
        selected,
        label,
        figures,
        "" if figures else (note or why),
        ws.cfg.system_prompt,
    )
