"""The cycle's student checked before it is evaluated or promoted.

A training run writes its final model with checksums.json, like every checkpoint. Flipped
or missing bytes in it are found here, before a damaged model is scored and enters the
promotion decision. When the run's newest valid checkpoint holds its last step, its model/
is the final model bit for bit: the student is restored from it, with a warning (as resume
skips a corrupt checkpoint). Otherwise the stage stops with the file and the fix.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rich.markup import escape

from jupiter.errors import JupiterError
from jupiter.improve.passages import save_passages
from jupiter.improve.workspace import Workspace


def student_id(cycle: int) -> str:
    """The lineage's id of the cycle's student."""
    return f"model:cycle-{cycle:03d}"


def run_dir_of(ws: Workspace, cycle: int) -> Path:
    """Where the run that wrote the student keeps its checkpoints: the cycle's train dir,
    or its last curriculum level's."""
    if ws.cfg.levels:
        return ws.train_dir(cycle) / "levels" / ws.cfg.levels[-1].name
    return ws.train_dir(cycle)


def check_student(ws: Workspace, cycle: int) -> Path:
    """The cycle's student dir, verified (or restored from the finished checkpoint);
    JupiterError naming the damaged file and the fix when it can be neither."""
    from jupiter.models.integrity import model_problem
    from jupiter.train.checkpoint import finished_checkpoint

    student = ws.student_dir(cycle)
    problem = model_problem(student)
    if problem is None:
        return student
    ckpt = finished_checkpoint(run_dir_of(ws, cycle))
    if ckpt is None:
        raise JupiterError(
            f"cycle {cycle}'s student is damaged ({problem}) and no valid checkpoint holds its "
            f"last step: delete {student} and run `jupiter train --domain {ws.cfg.name}` (it "
            "resumes from the newest valid checkpoint)"
        )
    restore_student(ws, student, ckpt)
    text = (
        f"cycle {cycle}'s student is damaged ({problem}): restored from {ckpt}, the "
        "run's last step (the same weights)"
    )
    ws.console.print(f"[bold yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)
    return student


def restore_student(ws: Workspace, student: Path, ckpt: Path) -> None:
    """The checkpoint's model/ as the student, with its checksums and retrieval index;
    copied to a temp dir and renamed, so a kill here leaves the damaged one, not half."""
    from jupiter.models.folder import replace_dir, write_checksums

    tmp = student.with_name(f".tmp-{student.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(ckpt / "model", tmp)
    write_checksums(tmp)
    replace_dir(tmp, student)
    save_passages(ws, student)
