"""A damaged newest checkpoint, and a damaged final model.

Checkpoints: a run stopped at step 9 of 12 (checkpoints at 3, 6, 9) has one file of its
newest checkpoint damaged — bytes flipped, cut short, or deleted — for each file a
checkpoint holds. Resume must notice it by its checksum, warn naming it, resume from
step 6, and end bit-identical to the uninterrupted run. Then every checkpoint damaged:
the run starts over (with a warning per checkpoint) and still ends identical.

The final model (improve/student.py): train/final's weights or config
damaged the same ways; the cycle's student check restores it from the run's finished
checkpoint with a warning (bit-identical), or, with no such checkpoint, stops with one
line naming the file and the fix.

    python tests/chaos/corrupt_checkpoint.py [--quick] [--out FILE]
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import emit, max_abs_diff, out_arg, tiny_run, tiny_tokenizer

STEPS, EVERY = 12, 3
CHECKPOINT_FILES = (
    "model/model.safetensors",
    "model/config.json",
    "model/tokenizer.json",
    "optimizer.pt",
    "rng.pt",
    "state.json",
    "scheduler.json",
    "checksums.json",
)
FINAL_FILES = ("model.safetensors", "config.json", "tokenizer.json", "checksums.json")


def flip(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x55
    p.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "flip": flip,
    "truncate": lambda p: p.write_bytes(p.read_bytes()[: max(1, p.stat().st_size // 3)]),
    "missing": lambda p: p.unlink(),
}


def train_quietly(run: Any, stop_after: int | None = None) -> tuple[Any, list[str]]:
    """train(run) and the warnings it gave."""
    from jupiter.train.trainer import train

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = train(run, stop_after=stop_after)
    return result, [str(w.message) for w in seen]


def checkpoint_cases(
    root: Path,
    tok: Path,
    ref: Path,
    files: tuple[str, ...],
    damages: tuple[str, ...] = tuple(DAMAGE),
) -> list[dict]:
    from jupiter.train.checkpoint import latest_checkpoint

    partial = root / "partial"
    train_quietly(
        tiny_run(tok, partial, max_steps=STEPS, checkpoint_every=EVERY, keep_checkpoints=10),
        stop_after=9,
    )
    rows = []
    variants = [(f, d) for f in files for d in damages] + [("every checkpoint", "flip")]
    for rel, damage in variants:
        out = root / f"case-{len(rows)}"
        shutil.copytree(partial, out)
        targets = (
            [out / "step-000009" / rel]
            if rel != "every checkpoint"
            else [c / "model" / "model.safetensors" for c in sorted(out.glob("step-*"))]
        )
        for t in targets:
            DAMAGE[damage](t)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            chosen = latest_checkpoint(out)
        named = any("step-000009" in str(w.message) for w in seen)
        run = tiny_run(tok, out, max_steps=STEPS, checkpoint_every=EVERY, keep_checkpoints=10)
        try:
            result, said = train_quietly(run)
            diff, same = max_abs_diff(ref / "final", out / "final")
            error = ""
        except Exception as err:  # noqa: BLE001 - a resume that fails is the finding
            result, said, diff, same, error = (
                None,
                [],
                float("inf"),
                False,
                f"{type(err).__name__}: {err}",
            )
        rows.append(
            {
                "file": rel,
                "damage": damage,
                "detected": named,
                "resumed_from": chosen.name if chosen else "scratch",
                "warned_on_resume": any("corrupt checkpoint" in w for w in said),
                "finished": bool(result and result.finished),
                "max_abs_diff": diff,
                "bit_identical": same,
                "error": error[:300],
            }
        )
        shutil.rmtree(out, ignore_errors=True)
    return rows


def final_cases(root: Path, finished: Path, files: tuple[str, ...]) -> list[dict]:
    """The cycle's student check on a damaged train/final (with and without the run's
    finished checkpoint to restore it from)."""
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.errors import JupiterError
    from jupiter.improve.student import check_student
    from jupiter.improve.workspace import Workspace

    yaml = root / "damaged.yaml"
    yaml.write_text("name: damaged\nsources: [{type: python_stdlib, modules: [json]}]\n")
    rows = []
    for rel in files:
        for damage in DAMAGE:
            for keep_checkpoint in (True, False):
                home = root / f"final-{len(rows)}"
                ws = Workspace(
                    load_domain(str(yaml)), console=Console(file=io.StringIO(), width=300)
                )
                _at_home(home)
                shutil.copytree(finished, ws.train_dir(1))
                if not keep_checkpoint:
                    for c in ws.train_dir(1).glob("step-*"):
                        shutil.rmtree(c)
                DAMAGE[damage](ws.student_dir(1) / rel)
                error = ""
                try:
                    check_student(ws, 1)
                    diff, same = max_abs_diff(finished / "final", ws.student_dir(1))
                except JupiterError as err:
                    error, diff, same = str(err), float("nan"), False
                said = " ".join(ws.console.file.getvalue().split())  # type: ignore[attr-defined]
                # without checksums.json intact weights are taken as they are (a final
                # written before checksums existed); everything else must be noticed
                unverifiable = rel == "checksums.json" and damage == "missing"
                one_line = (
                    bool(error)
                    and len(error.splitlines()) == 1
                    and "student is damaged" in error
                    and rel in error
                )
                if keep_checkpoint or unverifiable:
                    ok = not error and same and ("warning:" in said or unverifiable)
                else:
                    ok = one_line
                rows.append(
                    {
                        "file": rel,
                        "damage": damage,
                        "checkpoint_kept": keep_checkpoint,
                        "ok": ok,
                        "restored": not error,
                        "warned": "warning:" in said,
                        "bit_identical": same,
                        "max_abs_diff": diff,
                        "one_line_error": one_line,
                        "error": error[:300],
                    }
                )
                ws.close()
                shutil.rmtree(home, ignore_errors=True)
    return rows


def _at_home(home: Path) -> None:
    import os

    home.mkdir(parents=True, exist_ok=True)
    os.environ["JUPITER_HOME"] = str(home)


def main(argv: list[str]) -> dict[str, Any]:
    quick = "--quick" in argv
    files = CHECKPOINT_FILES[:2] if quick else CHECKPOINT_FILES
    root = Path(tempfile.mkdtemp(prefix="jupiter-corrupt-checkpoint-"))
    try:
        tok = tiny_tokenizer(root / "tok")
        ref = root / "ref"
        train_quietly(
            tiny_run(tok, ref, max_steps=STEPS, checkpoint_every=EVERY, keep_checkpoints=10)
        )
        ckpt = checkpoint_cases(root, tok, ref, files)
        final = final_cases(root, ref, FINAL_FILES[:1] if quick else FINAL_FILES)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ok_ckpt = [r for r in ckpt if r["detected"] and r["bit_identical"]]
    restorable = [r for r in final if r["checkpoint_kept"]]
    stopped = [r for r in final if not r["checkpoint_kept"]]
    figures_ok = sum(r["ok"] for r in final)
    figures = {
        "checkpoint": {
            "cases": len(ckpt),
            "detected_and_identical": len(ok_ckpt),
            "resumed_from_previous": sum(r["resumed_from"] == "step-000006" for r in ckpt),
            "per_case": ckpt,
        },
        "final_model": {
            "cases": len(final),
            "as_expected": figures_ok,
            "restored_identical": sum(r["ok"] for r in restorable),
            "restorable_cases": len(restorable),
            "stopped_one_line": sum(r["one_line_error"] for r in stopped),
            "unrestorable_cases": len(stopped),
            "per_case": final,
        },
    }
    return emit("corrupt checkpoint", figures, out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
